"""What an isolated run costs beyond its own parts, as a batch makes it (issue 59).

A batch's process loads an instance once and makes each run in a forked process of its own
(`core.isolation`). This measures, in one process that has loaded IQ Twist challenge 40 and
started the solver, ``--runs`` isolated runs (placement, one thread) per solver, and prints
the medians of: the whole call of `pyomo_puzzles.solve` as the batch waits for it, the
record's ``load_time``, ``prepare_time`` (the forked process preparing itself before the
run's clock; inside ``load_time`` before the record had it) and ``wall_time``, and what is
left: forking, starting and ending the process, handing the record back. With ``--compare
REF`` the package at git revision REF is measured too, in its own processes, the two
interleaved round by round (``--rounds``), side by side in one run.

Run:  python benchmarks/isolation.py [--runs 30] [--rounds 3] [--compare REF]
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
import time
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
SOLVERS = ("highs", "scip", "cbc")
INSTANCE = "packing/iq_twist/challenge_40"


def worker(solver: str, runs: int) -> dict:
    """The medians (ms) of `runs` isolated runs made by this process."""
    from pyomo_puzzles import api
    from pyomo_puzzles.core import solvers
    from pyomo_puzzles.core.records import RunSettings

    settings = RunSettings(time_limit=20, threads=1)
    solvers.availability(solver)  # as a batch's fingerprints do before its runs
    instance = api.load(INSTANCE)
    api.solve(instance, "placement", solver, settings=settings)  # the process's one-offs
    rows = []
    for _ in range(runs):
        started = time.perf_counter()
        record = api.solve(instance, "placement", solver, settings=settings)
        whole = time.perf_counter() - started
        prepare = getattr(record, "prepare_time", None) or 0.0
        rows.append({"whole": whole, "load": record.load_time, "prepare": prepare, "wall": record.wall_time,
                     "rest": whole - record.load_time - prepare - record.wall_time})
    return {key: 1000 * statistics.median(row[key] for row in rows) for key in rows[0]}


def measure(tree: Path, solver: str, runs: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tree)
    done = subprocess.run([sys.executable, __file__, "--worker", solver, "--runs", str(runs)], env=env,
                          capture_output=True, text=True, cwd=tree, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", metavar="REF")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.runs)))
        return
    with tempfile.TemporaryDirectory(prefix="isolation-") as scratch, (
            worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext()) as before:
        trees = {"now": ROOT, **({f"at {args.compare[:10]}": before} if before else {})}
        found: dict = {(name, solver): [] for name in trees for solver in SOLVERS}
        for _ in range(args.rounds):
            for solver in SOLVERS:
                for name, tree in trees.items():
                    found[name, solver].append(measure(tree, solver, args.runs))
    print(f"{INSTANCE}, placement, 1 thread: {args.runs} isolated runs x {args.rounds} rounds per solver and version, "
          f"{os.cpu_count()} cores; medians over the rounds of each round's median, ms")
    print(f"{'solver':8s} {'version':16s} {'whole':>7s} {'load':>7s} {'prepare':>7s} {'wall':>7s} {'rest':>7s}")
    for solver in SOLVERS:
        for name in trees:
            rounds = found[name, solver]
            cells = [statistics.median(r[key] for r in rounds) for key in ("whole", "load", "prepare", "wall", "rest")]
            print(f"{solver:8s} {name:16s} " + " ".join(f"{value:7.1f}" for value in cells))
        if len(trees) == 2:
            now, then = (statistics.median(r["whole"] for r in found[name, solver]) for name in trees)
            print(f"{solver:8s} {'now / before':16s} {now / then:7.2f}")


if __name__ == "__main__":
    main()
