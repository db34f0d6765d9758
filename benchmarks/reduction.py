"""What the one-step lookahead buys: `placement` against `placement_unreduced`, side by side.

Both formulations are the same exact-cover model over the same derived placements (dead
regions already left out); `placement` keeps only the placements that survive the
one-step lookahead (`pyomo_puzzles.families.packing.reduction.lookahead`), inside its
timed build. For each instance and solver, the two are run in alternation
(`core.run.run(..., isolate=False)`, 1 thread) ``--repeats`` times; an instance's time is
its median over the repeats. Printed per group of instances and solver: the median over
the instances of the whole run's wall time (build, hand-over, solve, decode, check) and
of the solver's share, for both formulations and their ratio; the max over instances; the
median number of columns of each model; and the lookahead's own cost (the median of
`model_data` with it minus without it, timed in alternation). Every run must end
optimal with a checked solution, and both formulations must find the same covering
(IQ Twist challenges have one each).

Run:  python benchmarks/reduction.py [--repeats 5] [--solvers highs] [--pentominoes]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

from pyomo_puzzles.core import instances, run, solvers
from pyomo_puzzles.families.packing import model_placement

CHALLENGES = [f"packing/iq_twist/challenge_{n}" for n in range(19, 69)]
PENTOMINOES = [f"packing/pentominoes/{board}" for board in ("3x20", "4x15", "5x12", "6x10")]
FORMULATIONS = ("placement_unreduced", "placement")


def columns(instance, reduce: bool) -> int:
    return len(model_placement.model_data(instance.spec, reduce=reduce)[None]["PLACEMENTS"][None])


def lookahead_ms(instance, repeats: int) -> float:
    """Median of (model_data with the lookahead - without it), in alternation."""
    differences = []
    for _ in range(repeats):
        started = time.perf_counter()
        model_placement.model_data(instance.spec, reduce=False)
        middle = time.perf_counter()
        model_placement.model_data(instance.spec, reduce=True)
        differences.append((time.perf_counter() - middle) - (middle - started))
    return statistics.median(differences) * 1000


def measure(instance, solver: str, repeats: int, time_limit: float) -> dict:
    """formulation -> (median wall ms, median solver ms)."""
    walls: dict = {f: [] for f in FORMULATIONS}
    solves: dict = {f: [] for f in FORMULATIONS}
    keys = set()
    for _ in range(repeats):
        for formulation in FORMULATIONS:
            record = run.run(instance, formulation, solver, time_limit=time_limit, isolate=False)
            if not (record.status == "optimal" and record.checked):
                sys.exit(f"{instance.name} [{formulation}] on {solver} ended {record.status}: {record.message}")
            walls[formulation].append(record.wall_time * 1000)
            solves[formulation].append((record.solver_time or 0.0) * 1000)
            keys.add(instance.family.solution_key(record.solution))
    if len(keys) != 1 and instance.name in CHALLENGES:
        sys.exit(f"{instance.name}: the two formulations found different coverings on {solver}")
    return {f: (statistics.median(walls[f]), statistics.median(solves[f])) for f in FORMULATIONS}


def report(label: str, loaded: list, solver_names: list[str], repeats: int, time_limit: float) -> None:
    cols = {reduce: statistics.median(columns(i, reduce) for i in loaded) for reduce in (False, True)}
    look = statistics.median(lookahead_ms(i, max(repeats, 3)) for i in loaded)
    print(f"{label}: columns {cols[False]:g} -> {cols[True]:g} (median); lookahead {look:.2f} ms (median)")
    for solver in solver_names:
        per = [measure(instance, solver, repeats, time_limit) for instance in loaded]
        for stat_name, stat in (("median", statistics.median), ("max", max))[:2 if len(loaded) > 1 else 1]:
            wall = {f: stat(row[f][0] for row in per) for f in FORMULATIONS}
            solve = {f: stat(row[f][1] for row in per) for f in FORMULATIONS}
            print(f"  {solver:6s} {stat_name:6s} wall {wall['placement_unreduced']:9.1f} -> {wall['placement']:9.1f}"
                  f" ({wall['placement_unreduced'] / wall['placement']:4.2f}x)   solver "
                  f"{solve['placement_unreduced']:9.1f} -> {solve['placement']:9.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="repeats per IQ Twist challenge (default 5)")
    parser.add_argument("--solvers", default="highs", help="comma-separated MIP solvers (default highs)")
    parser.add_argument("--pentominoes", action="store_true", help="also the four pentomino boards (one run each)")
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    names = [s for s in args.solvers.split(",") if s]
    unknown = [s for s in names if s not in solvers.SOLVERS]
    if unknown:
        parser.error(f"unknown solver(s) {', '.join(unknown)} (choose from {', '.join(solvers.SOLVERS)})")
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    available = []
    for solver in names:
        ok, detail = solvers.availability(solver)
        print(f"# {solver}: {detail}" + ("" if ok else " - skipped"))
        if ok:
            available.append(solver)
    print("# times in ms: placement_unreduced -> placement (ratio unreduced / reduced)")
    challenges = [instances.load(name) for name in CHALLENGES]
    for solver in available:  # warm-up, not measured
        for formulation in FORMULATIONS:
            run.run(challenges[0], formulation, solver, isolate=False)
    report("IQ Twist 19-68 (50)", challenges, available, args.repeats, args.time_limit)
    if args.pentominoes:
        for name in PENTOMINOES:
            report(name, [instances.load(name)], available, 1, args.time_limit)


if __name__ == "__main__":
    main()
