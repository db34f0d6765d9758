"""Pocket cube (and 3x3x3): time to a proven-optimal solution against scramble depth, per
formulation and solver, with a time limit (the shipped scrambles rubik/{htm,qtm}_depth_DD,
and with --size 3 rubik/cube3_{htm,qtm}_depth_DD, depths 1-8, then the first of the three
shipped at each depth 9-12, rubik/cube3_{htm,qtm}_depth_DD_1).

Each run is `pyomo_puzzles.core.run.run(instance, formulation, solver, time_limit=T)` in
a process of its own. A run counts as proven if its status is optimal, its solution passed
the independent simulator, and its number of moves equals the distance from the
breadth-first table, or for the 3x3x3 from meeting in the middle (the instance's
`known.distance`). After the first depth that a
formulation and solver do not prove within the limit, deeper scrambles are not tried.

Run:  python benchmarks/pocket_cube.py [--size 2] [--metric qtm] [--depths 1-14] [--time-limit 300]
                                       [--formulations seed] [--solvers highs,cbc,glpk]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from pyomo_puzzles.core import instances, registry, run, solvers
from pyomo_puzzles.families.rubik import distances
from pyomo_puzzles.families.rubik.checker import length


def depths(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def instance_name(prefix: str, metric: str, depth: int) -> str:
    """The shipped scramble of that depth: `..._depth_DD`, or the first of several, `..._depth_DD_1`."""
    name = f"{prefix}{metric}_depth_{depth:02d}"
    return name if name in instances.shipped_instances() else f"{name}_1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2, choices=(2, 3))
    parser.add_argument("--metric", default="qtm", choices=("htm", "qtm"))
    parser.add_argument("--depths", default=None, help="e.g. 1-8 (default: all shipped)")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--formulations", default=",".join(registry.family("rubik").formulations))
    parser.add_argument("--solvers", default="highs,cbc,glpk")
    args = parser.parse_args()
    deepest = distances.deepest_generated(args.size, args.metric)
    chosen = depths(args.depths) if args.depths else list(range(1, deepest + 1))
    prefix = "rubik/" if args.size == 2 else "rubik/cube3_"
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    names = [s for s in args.solvers.split(",") if s and solvers.availability(s)[0]]
    print(f"# {args.size}x{args.size}x{args.size}, {args.metric}, time limit {args.time_limit:g} s, 1 thread; solvers: "
          f"{', '.join(solvers.availability(s)[1] for s in names)}")
    print(f"{'formulation':12s} {'solver':7s} " + " ".join(f"{d:>7d}" for d in chosen))
    started = time.perf_counter()
    for formulation in args.formulations.split(","):
        for solver in names:
            cells = []
            stopped = False
            for depth in chosen:
                if stopped:
                    cells.append(f"{'-':>7s}")
                    continue
                instance = instances.load(instance_name(prefix, args.metric, depth))
                try:
                    record = run.run(instance, formulation, solver, time_limit=args.time_limit)
                except Exception as error:  # a formulation that does not apply to the metric
                    cells.append(f"{'n/a':>7s}")
                    print(f"# {formulation}: {error}", file=sys.stderr)
                    stopped = True
                    continue
                proven = (record.status == "optimal" and record.checked
                          and length(record.solution["moves"], args.metric) == depth)
                cells.append(f"{record.wall_time:7.1f}" if proven else f"{'>' + format(args.time_limit, 'g'):>7s}")
                stopped = not proven
            print(f"{formulation:12s} {solver:7s} " + " ".join(cells), flush=True)
    print(f"# wall seconds to a proven-optimal, checked solution; measured in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
