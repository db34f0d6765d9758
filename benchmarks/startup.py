"""The framework's own share of each run, per solver: median over runs of (wall_time -
solver_time), runs isolated as a pipeline batch makes them (one process, one forked child per
run), before and after, side by side in one run.

For each solver and each version (this checkout, and with ``--compare REF`` the package at
git revision REF, checked out into a temporary worktree and put first on PYTHONPATH), one
fresh Python process runs IQ Twist challenges ``--first``..``--first + --runs - 1`` one after
another with `pyomo_puzzles.core.run.run(..., isolate=True)` and reports each record's
``wall_time`` and ``solver_time`` (and ``startup_time`` where the record has it). The
processes of the two versions alternate, solver by solver. A run whose solver reports no
time of its own (GLPK, now) counts its whole wall time as the framework's (``-`` in the
solver column); at revisions before the time parts, GLPK's "solver_time" was the
framework's own clock around the call.

Goal (issue 28): for every solver, the framework's share within 1.5x of HiGHS's and below
30 ms on these challenges.

Run:  python benchmarks/startup.py [--runs 20] [--compare REF] [--solvers highs,cbc,...]
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
SOLVERS = ("highs", "cbc", "glpk", "scip", "gurobi", "cplex", "cpsat")

BATCH = """
import json, sys
from pyomo_puzzles.core import run
solver, first, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = []
for k in range(first, first + runs):
    r = run.run(f"packing/iq_twist/challenge_{k}", None, solver, 60, 1, isolate=True)
    out.append([r.status, r.wall_time, r.solver_time, getattr(r, "startup_time", None)])
print(json.dumps(out))
"""


def batch(solver: str, env: dict, first: int, runs: int) -> list[list]:
    done = subprocess.run([sys.executable, "-c", BATCH, solver, str(first), str(runs)], env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{solver}: failed\n{done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(rows: list[list]) -> dict:
    solved = [r for r in rows if r[0] == "optimal"]
    own = [r[1] - (r[2] or 0.0) for r in solved]
    startups = [r[3] for r in rows if r[3]]
    return {"runs": len(rows), "optimal": len(solved), "wall": statistics.median(r[1] for r in solved),
            "solver": statistics.median(r[2] for r in solved) if all(r[2] is not None for r in solved) else None,
            "own": statistics.median(own), "startup": max(startups) if startups else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="challenges per solver and version (default 20)")
    parser.add_argument("--first", type=int, default=19, help="the first IQ Twist challenge (default 19)")
    parser.add_argument("--compare", metavar="REF", help="also measure the package at this git revision")
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    args = parser.parse_args()
    base = dict(os.environ)
    with tempfile.TemporaryDirectory() as scratch, \
            worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext() as before:
        versions = {"now": dict(base, PYTHONPATH=str(ROOT))}
        if before is not None:
            versions[f"at {args.compare}"] = dict(base, PYTHONPATH=str(before))
        print(f"# command: python benchmarks/startup.py {' '.join(sys.argv[1:])}")
        print(f"# {os.cpu_count()} cores; IQ Twist challenges {args.first}-{args.first + args.runs - 1}, "
              f"isolated runs, 1 thread; medians over the optimal runs (ms)")
        print(f"{'solver':8s} {'version':>16s} {'optimal':>8s} {'wall':>9s} {'solver':>9s} {'wall-solver':>12s} "
              f"{'/ highs':>8s} {'start-up once':>14s}")
        results: dict[tuple[str, str], dict] = {}
        for solver in args.solvers.split(","):
            for version, env in versions.items():
                results[solver, version] = summary(batch(solver, env, args.first, args.runs))
        for solver in args.solvers.split(","):
            for version in versions:
                s, highs = results[solver, version], results.get(("highs", version))
                ratio = f"{s['own'] / highs['own']:.2f}" if highs else "-"
                solver_ms = "-" if s["solver"] is None else f"{1000 * s['solver']:.1f}"
                startup = "-" if s["startup"] is None else f"{1000 * s['startup']:.0f}"
                print(f"{solver:8s} {version:>16s} {s['optimal']:>4d}/{s['runs']:<3d} {1000 * s['wall']:9.1f} "
                      f"{solver_ms:>9s} {1000 * s['own']:12.1f} {ratio:>8s} {startup:>14s}")


if __name__ == "__main__":
    main()
