"""What one part of the 3x3x3 projection model costs, phase by phase, now against a git revision.

For a shipped 3x3x3 scramble, one horizon and a split into first moves, the first
``--parts`` parts that a pattern network does not settle are each: pruned (`part`), turned
into the model's data (`model_data`), instantiated by Pyomo (`create_instance`), read into
a sparse matrix (`read_linear_form`) and solved by HiGHS on one thread. Each version runs in a
fresh process, alternately, ``--repeats`` times; printed are the medians over the repeats of
the mean time per part, in milliseconds, and the ratio now / before.

Run:  python benchmarks/projection_build.py [--instance rubik/cube3_htm_depth_10_1] [--horizon 9]
                                            [--split 2] [--parts 30] [--repeats 3] [--compare REF]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
PHASES = ("part", "model_data", "create_instance", "read_linear_form", "HiGHS")

WORKER = """
import json, sys, time
from pyomo_puzzles.core import instances, models, run, solvers
from pyomo_puzzles.core.linear_form import read_linear_form
from pyomo_puzzles.families.rubik import model_projections as mp
name, horizon, split, wanted = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
spec = instances.load(name).spec
form = models.choose_formulation(instances.load(name), "projections")
abstract = models.abstract_model(form)
mp.patterns(spec)
spent = dict.fromkeys(("part", "model_data", "create_instance", "read_linear_form", "HiGHS"), 0.0)
done = 0
for prefix in mp._prefixes(spec, split):
    t = time.perf_counter(); p = mp.part(spec, prefix, horizon - len(prefix)); spent["part"] += time.perf_counter() - t
    if p is None:
        continue
    t = time.perf_counter(); data = form.model_data(p); spent["model_data"] += time.perf_counter() - t
    t = time.perf_counter(); model = abstract.create_instance(data=data); spent["create_instance"] += time.perf_counter() - t
    t = time.perf_counter(); read_linear_form(model); spent["read_linear_form"] += time.perf_counter() - t
    t = time.perf_counter(); solvers.SolverSession("highs", model, time_limit=60, threads=1).solve(); spent["HiGHS"] += time.perf_counter() - t
    done += 1
    if done == wanted:
        break
print(json.dumps({k: v / done * 1000 for k, v in spent.items()}))
"""


def measure(env: dict, args) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", WORKER, args.instance, str(args.horizon), str(args.split),
                           str(args.parts)], env=env, check=True, capture_output=True, text=True, cwd=tempfile.gettempdir())
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", default="rubik/cube3_htm_depth_10_1")
    parser.add_argument("--horizon", type=int, default=9)
    parser.add_argument("--split", type=int, default=2)
    parser.add_argument("--parts", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare", metavar="REF")
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# {args.instance}, horizon {args.horizon}, split {args.split}, {args.parts} parts; "
          f"ms per part, median of {args.repeats} fresh processes per version, alternating")
    with tempfile.TemporaryDirectory() as scratch:
        with worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext() as before:
            versions = {"now": dict(os.environ, PYTHONPATH=str(ROOT))}
            if before is not None:
                versions[f"at {args.compare}"] = dict(os.environ, PYTHONPATH=str(before))
            results: dict[str, list[dict]] = {label: [] for label in versions}
            for _ in range(args.repeats):
                for label, env in versions.items():
                    results[label].append(measure(env, args))
    medians = {label: {p: statistics.median(r[p] for r in runs) for p in PHASES} for label, runs in results.items()}
    for label in medians:
        medians[label]["total"] = sum(medians[label][p] for p in PHASES)
    labels = list(medians)
    print(f"{'phase':18s} " + " ".join(f"{label:>14s}" for label in labels) + ("   now / before" if len(labels) > 1 else ""))
    for phase in (*PHASES, "total"):
        row = " ".join(f"{medians[label][phase]:14.1f}" for label in labels)
        ratio = f"   {medians[labels[0]][phase] / medians[labels[1]][phase]:13.2f}" if len(labels) > 1 else ""
        print(f"{phase:18s} {row}{ratio}")


if __name__ == "__main__":
    main()
