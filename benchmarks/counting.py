"""Counting the L-tromino cube's tilings up to symmetry: orbit cuts with and without the
anchor restriction, on each installed solver, side by side.

"plain orbit cuts" cuts off all 48 images of each tiling found (the prototype's method);
"anchor restriction" first fixes to zero the placements on one corner cell that are not
the first of their orbit under the corner's stabiliser (order 6), so only the images that
remain feasible need a cut. Both must find 111 classes and 5,328 tilings.

Run:  python benchmarks/counting.py [--repeats 3] [--solvers highs,glpk,cbc]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys

from pyomo_puzzles.core import enumerate as enumeration
from pyomo_puzzles.core import instances, solvers

INSTANCE = "packing/l_tromino_cube"
EXPECTED = (111, 5328)


def measure(solver: str, restrict: bool, repeats: int) -> dict:
    instance = instances.load(INSTANCE)
    runs = [enumeration.count_solutions(instance, "placement", solver, up_to_symmetry=True,
                                        restrict=restrict) for _ in range(repeats)]
    for result in runs:
        assert result.complete and (result.classes, result.solutions) == EXPECTED, result
    return {"seconds": statistics.median(r.elapsed for r in runs),
            "solves": runs[0].solves, "cuts": runs[0].cuts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--solvers", default="highs,glpk,cbc")
    args = parser.parse_args()
    print(f"# {INSTANCE}: count up to the 48 symmetries (111 classes, 5,328 tilings); "
          f"medians of {args.repeats} repeats")
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"{'solver':8s} {'method':20s} {'solves':>6s} {'cuts':>5s} {'seconds':>8s} {'speed-up':>8s}")
    for solver in args.solvers.split(","):
        if not solvers.availability(solver)[0]:
            print(f"{solver:8s} not installed, skipped")
            continue
        plain = measure(solver, restrict=False, repeats=args.repeats)
        anchored = measure(solver, restrict=True, repeats=args.repeats)
        for label, row in (("plain orbit cuts", plain), ("anchor restriction", anchored)):
            ratio = plain["seconds"] / row["seconds"]
            print(f"{solver:8s} {label:20s} {row['solves']:6d} {row['cuts']:5d} "
                  f"{row['seconds']:8.2f} {ratio:7.1f}x")


if __name__ == "__main__":
    main()
