"""The first model of a process against the next one: what a one-off cost of the framework
charges to a formulation's ranked time (issue 56, item 2); now against a git revision, side by
side in one run.

A pipeline batch is one process that forks one child per run; every run of a batch after
the first is as cold as the first was, as far as Pyomo's and the framework's per-process
machinery goes, unless the batch's parent paid it before forking. So what a forked run pays
once per process, every pipeline run pays. Here each (instance, formulation) pair is run
twice in each of `--processes` fresh Python processes, isolated (forked) as a batch runs
them, on HiGHS with one thread, and per version this prints medians over the processes, in
milliseconds:

- ``compile 1st`` / ``compile 2nd``: ``compile_time`` of the process's first and second run;
- ``ranked 1st`` / ``ranked 2nd``: build + stage generation + compile + solver call (the
  ``build_and_solve`` measure a formulation comparison ranks by);
- ``1st / 2nd``: the ratio of the two ranked times (1.0: the first run pays nothing extra).

The default pairs are the Golomb test plugin's formulations (`tests/plugins/golomb`, its
``positions`` rows are differences of differences and a Param times a sum) and a shipped one
of the same kind (Rubik's ``seed`` model, ``5 * (1 - m)``).

Run:  python benchmarks/first_model.py [--compare REF] [--processes 5]
                                       [--pairs golomb/marks_06:positions,...]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugins" / "golomb"
PAIRS = ("golomb/marks_05:positions", "golomb/marks_06:positions", "golomb/marks_06:grid", "rubik/qtm_depth_01:seed")

PROCESS = """
import json, sys
from pyomo_puzzles.core import run
instance, formulation = sys.argv[1], sys.argv[2]
out = []
for _ in range(2):
    r = run.run(instance, formulation, "highs", 120.0, 1, isolate=True)
    ranked = sum(getattr(r, k, None) or 0.0 for k in ("build_time", "generate_time", "compile_time", "call_time"))
    out.append({"status": r.status, "compile": r.compile_time, "ranked": ranked})
print(json.dumps(out))
"""


def one_process(env: dict, instance: str, formulation: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-c", PROCESS, instance, formulation], env=env,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{instance} [{formulation}]: failed\n{done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_ms(values) -> float:
    return 1000 * statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", metavar="REF", help="also measure the package at this git revision")
    parser.add_argument("--processes", type=int, default=5, help="fresh processes per pair and version (default 5)")
    parser.add_argument("--pairs", default=",".join(PAIRS), help="INSTANCE:FORMULATION, comma-separated")
    args = parser.parse_args()
    base = dict(os.environ)
    with tempfile.TemporaryDirectory() as scratch, \
            worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext() as before:
        versions = {"now": dict(base, PYTHONPATH=f"{ROOT}{os.pathsep}{PLUGIN}")}
        if before is not None:
            versions[f"at {args.compare[:10]}"] = dict(base, PYTHONPATH=f"{before}{os.pathsep}{PLUGIN}")
        print(f"# command: python benchmarks/first_model.py {' '.join(sys.argv[1:])}")
        print(f"# {os.cpu_count()} cores; HiGHS, 1 thread, isolated runs; two runs per fresh process, "
              f"{args.processes} processes per pair and version, the versions taking turns; medians, ms")
        print(f"{'instance:formulation':28s} {'version':>14s} {'compile 1st':>11s} {'compile 2nd':>11s} "
              f"{'ranked 1st':>10s} {'ranked 2nd':>10s} {'1st / 2nd':>9s}")
        for pair in args.pairs.split(","):
            instance, formulation = pair.split(":")
            runs: dict = {version: [] for version in versions}
            for _ in range(args.processes):
                for version, env in versions.items():
                    runs[version].append(one_process(env, instance, formulation))
            for version, processes in runs.items():
                statuses = {run["status"] for process in processes for run in process}
                first = [process[0] for process in processes]
                second = [process[1] for process in processes]
                ranked_1, ranked_2 = median_ms(r["ranked"] for r in first), median_ms(r["ranked"] for r in second)
                print(f"{pair:28s} {version:>14s} {median_ms(r['compile'] for r in first):11.1f} "
                      f"{median_ms(r['compile'] for r in second):11.1f} {ranked_1:10.1f} {ranked_2:10.1f} "
                      f"{ranked_1 / ranked_2:9.2f}" + ("" if statuses == {"optimal"} else f"  ({sorted(statuses)})"))


if __name__ == "__main__":
    main()
