"""Where each run's time goes outside the solver, per solver and per model: building the
Pyomo model, compiling it into the matrix, handing it over (the solver call minus the
solver's own clock) and the solver's own time; now against a git revision, side by side in
one run.

For each solver and each version (this checkout, and with ``--compare REF`` the package at
git revision REF, checked out into a temporary worktree and put first on PYTHONPATH), one
fresh Python process runs the instances one after another with
`pyomo_puzzles.core.run.run(..., isolate=True)` on one thread (as a pipeline batch does:
one process, one forked child per run, the solver's one-off start-up paid before) and
reports each record's times. Per run, a time is divided by the models it solved (the
record's ``models``; one for a formulation solved in one model; a revision without the
field: the "N models solved" of a staged run's message). Printed are medians over the
runs, in milliseconds:

- ``build``: the Pyomo model from the data (``build_time``),
- ``compile``: the matrix every matrix solver gets (``compile_time``; a revision without it
  compiled inside the solver call, so its hand-over holds it),
- ``hand-over``: ``call_time - solver_time`` (the whole call where the solver has no clock),
- ``solver``: the solver's own clock,
- ``outside``: ``wall_time - solver_time`` per run (everything but the solver's own time,
  the formulation's own work included), and its ratio to HiGHS's of the same version.

Instance sets: ``--iq`` IQ Twist challenges (default 19-38, isolated runs) and ``--rubik``
the 3x3x3 scrambles of the default experiment (the ``projections`` formulation, solved as a
sequence of small models). Issue 44's goals: on the IQ Twist challenges every solver's
``outside`` below 15 ms and within 1.5x of HiGHS's; on the Rubik scrambles a hand-over below
2 ms per model for every solver, and HiGHS's build plus hand-over per model at most half of
the revision's.

Run:  python benchmarks/handover.py [--compare REF] [--solvers highs,cbc,...] [--iq 19-38]
                                    [--rubik rubik/cube3_htm_depth_11_3,...] [--time-limit 120] [--repeats 1]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
SOLVERS = ("highs", "cbc", "glpk", "scip", "gurobi", "cplex", "cpsat")
RUBIK = ("rubik/cube3_htm_depth_11_3", "rubik/cube3_htm_depth_12_1", "rubik/cube3_htm_depth_12_2")

BATCH = """
import json, sys
from pyomo_puzzles.core import run, solvers
solver, limit, names = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
if not solvers.availability(solver)[0]:
    print(json.dumps(None)); raise SystemExit
out = []
for name in names:
    r = run.run(name, None, solver, limit, 1, isolate=True)
    out.append({k: getattr(r, k, None) for k in ("instance", "status", "wall_time", "build_time", "compile_time", "call_time",
                                                  "solver_time", "models", "message", "matrix_digest")})
print(json.dumps(out))
"""


def batch(solver: str, env: dict, names: list[str], limit: float) -> list[dict] | None:
    """The records' times of one solver on `names`, in a fresh process (None: not available)."""
    done = subprocess.run([sys.executable, "-c", BATCH, solver, str(limit), *names], env=env,
                          cwd=tempfile.gettempdir(), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{solver}: failed\n{done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def models_of(record: dict) -> int:
    if record.get("models"):
        return record["models"]
    found = re.search(r"(\d+) models solved", record.get("message") or "")
    return int(found.group(1)) if found else 1


def per_model(records: list[dict]) -> dict:
    """Medians (ms) over the runs that ended optimal or infeasible (solved)."""
    solved = [r for r in records if r["status"] in ("optimal", "infeasible")]
    if not solved:
        return {"runs": len(records), "solved": 0}

    def median(values) -> float | None:
        values = [v for v in values if v is not None]
        return 1000 * statistics.median(values) if values else None

    clock = all(r["solver_time"] is not None for r in solved)
    return {
        "runs": len(records), "solved": len(solved),
        "models": statistics.median(models_of(r) for r in solved),
        "build": median(r["build_time"] / models_of(r) for r in solved),
        "compile": median((r["compile_time"] / models_of(r)) if r.get("compile_time") is not None else None
                          for r in solved),
        "handover": median((r["call_time"] - (r["solver_time"] or 0.0)) / models_of(r) for r in solved),
        "solver": median(r["solver_time"] / models_of(r) for r in solved) if clock else None,
        "outside": median(r["wall_time"] - (r["solver_time"] or 0.0) for r in solved),
        "digests": {r["instance"]: r.get("matrix_digest") for r in solved if r.get("matrix_digest")},
    }


def cell(value: float | None, width: int = 9) -> str:
    return f"{'-':>{width}s}" if value is None else f"{value:{width}.2f}"


def table(title: str, results: dict, solvers: list[str], versions: list[str]) -> None:
    print(f"\n## {title}")
    print(f"{'solver':8s} {'version':>14s} {'solved':>7s} {'models':>7s} {'build':>9s} {'compile':>9s} "
          f"{'hand-over':>9s} {'solver':>9s} {'outside':>9s} {'/ highs':>7s}  (ms per model; outside: ms per run)")
    for solver in solvers:
        for version in versions:
            s = results.get((solver, version))
            if s is None:
                print(f"{solver:8s} {version:>14s}  not available")
                continue
            if not s["solved"]:
                print(f"{solver:8s} {version:>14s} {0:>3d}/{s['runs']:<3d} none solved within the limit")
                continue
            highs = results.get(("highs", version))
            ratio = f"{s['outside'] / highs['outside']:.2f}" if highs and highs.get("solved") else "-"
            print(f"{solver:8s} {version:>14s} {s['solved']:>3d}/{s['runs']:<3d} {s['models']:7.0f} "
                  f"{cell(s['build'])} {cell(s['compile'])} {cell(s['handover'])} {cell(s['solver'])} "
                  f"{cell(s['outside'])} {ratio:>7s}")


def digest_check(results: dict, solvers: list[str], version: str) -> None:
    """Whether the solvers of this version that got the matrix of an instance and solved it
    got the same one."""
    per_instance: dict = {}
    for solver in solvers:
        for instance, digest in ((results.get((solver, version)) or {}).get("digests") or {}).items():
            per_instance.setdefault(instance, {})[solver] = digest
    differing = {instance: got for instance, got in per_instance.items() if len(set(got.values())) > 1}
    compared = sorted({solver for got in per_instance.values() for solver in got})
    if compared:
        print(f"# matrix digests ({version}), per instance among the solvers that solved it: "
              + ("the same for " + ", ".join(compared) if not differing else f"DIFFER: {differing}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", metavar="REF", help="also measure the package at this git revision")
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    parser.add_argument("--iq", default="19-38", help="IQ Twist challenges FIRST-LAST ('' for none)")
    parser.add_argument("--rubik", default=",".join(RUBIK), help="Rubik instances, comma-separated ('' for none)")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per run (default 120)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of every instance per version, the versions taking turns (default 1)")
    args = parser.parse_args()
    solvers = args.solvers.split(",")
    sets = {}
    if args.iq:
        first, last = (int(v) for v in args.iq.split("-"))
        sets["IQ Twist challenges " + args.iq] = [f"packing/iq_twist/challenge_{k}" for k in range(first, last + 1)]
    if args.rubik:
        sets["Rubik scrambles (projections)"] = args.rubik.split(",")
    base = dict(os.environ)
    with tempfile.TemporaryDirectory() as scratch, \
            worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext() as before:
        versions = {"now": dict(base, PYTHONPATH=str(ROOT))}
        if before is not None:
            versions[f"at {args.compare[:10]}"] = dict(base, PYTHONPATH=str(before))
        print(f"# command: python benchmarks/handover.py {' '.join(sys.argv[1:])}")
        print(f"# {os.cpu_count()} cores; isolated runs, 1 thread, time limit {args.time_limit:g} s; medians over the "
              f"runs solved; {args.repeats} run(s) per instance and version, the versions taking turns")
        for title, names in sets.items():
            results: dict = {}
            for solver in solvers:
                runs: dict = {version: [] for version in versions}
                for _ in range(args.repeats):
                    for version, env in versions.items():
                        records = batch(solver, env, names, args.time_limit)
                        runs[version] = None if records is None else runs[version] + records
                for version, records in runs.items():
                    results[solver, version] = None if records is None else per_model(records)
            table(title, results, solvers, list(versions))
            digest_check(results, solvers, "now")


if __name__ == "__main__":
    main()
