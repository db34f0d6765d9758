"""Counting up to symmetry by no-good cuts: three routes side by side, per solver.

(Every counting method of every solver against dancing links: benchmarks/counting.py.)

  plain orbit cuts     cut off every image of each solution found (the prototype's method)
  anchor restriction   first fix to zero the non-canonical placements on the best anchor
                       (a cell or a single piece), so only the images that stay feasible
                       need a cut
  anchor + split       also split the search into disjoint parts on the cells with fewest
                       placements (the default of `pyomo-puzzles count`)

Every method must reproduce the instance's known figures, or the script stops.

Run:  python benchmarks/counting_routes.py [--instance packing/l_tromino_cube] [--repeats 3]
                                    [--solvers highs,glpk,cbc] [--methods plain,anchor,split]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys

from pyomo_puzzles.core import counting as enumeration, instances, solvers

METHODS = {
    "plain": ("plain orbit cuts", {"restrict": False, "split": 0}),
    "anchor": ("anchor restriction", {"restrict": True, "split": 0}),
    "split": ("anchor + split", {"restrict": True, "split": None}),
}


def measure(name: str, solver: str, options: dict, repeats: int) -> dict:
    instance = instances.load(name)
    known = instance.spec.known
    expected = (known.get("solutions_up_to_symmetry"), known.get("solutions"))
    runs = [enumeration.count_solutions(instance, "placement", solver, up_to_symmetry=True, method="nogood", **options)
            for _ in range(repeats)]
    for result in runs:
        assert result.complete and (result.classes, result.solutions) == expected, (result.classes, result.solutions)
    return {"seconds": statistics.median(r.elapsed for r in runs), "solves": runs[0].solves,
            "cuts": runs[0].cuts, "classes": runs[0].classes, "solutions": runs[0].solutions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", default="packing/l_tromino_cube")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--solvers", default="highs,glpk,cbc")
    parser.add_argument("--methods", default="plain,anchor,split")
    args = parser.parse_args()
    print(f"# {args.instance}: count up to symmetry; medians of {args.repeats} repeats")
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"{'solver':8s} {'method':20s} {'classes':>7s} {'total':>6s} {'solves':>6s} {'cuts':>5s} "
          f"{'seconds':>8s} {'speed-up':>8s}")
    for solver in args.solvers.split(","):
        if not solvers.availability(solver)[0]:
            print(f"{solver:8s} not installed, skipped")
            continue
        baseline = None
        for key in args.methods.split(","):
            label, options = METHODS[key]
            row = measure(args.instance, solver, options, args.repeats)
            baseline = baseline or row["seconds"]
            print(f"{solver:8s} {label:20s} {row['classes']:7d} {row['solutions']:6d} {row['solves']:6d} "
                  f"{row['cuts']:5d} {row['seconds']:8.2f} {baseline / row['seconds']:7.1f}x")


if __name__ == "__main__":
    main()
