"""Counting at the speed of the peers (issue 30): every counting method on the pentomino boards,
the Soma cube and the L-tromino cube, all solutions and up to symmetry, side by side in one
run, each against dancing links.

Methods: dancing links (``dlx``, the base), and each solver by no-good cuts (``nogood``: a
solve per orbit, every image cut off) and by its own enumeration where it has one (``native``:
SCIP's counter, CP-SAT's search for all solutions, Gurobi's and CPLEX's solution pools), each
on the placement model. Every count must equal the published figure (ground_truth.md) and
every complete count of one board must give the same digest of the set of solutions, or the
line says MISMATCH. A count that does not finish within the limit prints how far it got; its
ratio is then a lower bound (">").

Times are the count's own clock (`CountResult.elapsed`: loading, building, enumerating,
checking every solution, reducing to orbits), the solver's one-off start-up excluded (paid
once before the first count of each solver). Medians of ``--repeats`` counts.

Run:  python benchmarks/counting.py [--boards 3x20,4x15,5x12,6x10,soma,l_tromino]
          [--methods highs:nogood,scip:nogood,scip:native,cpsat:nogood,cpsat:native,gurobi:native,cplex:native]
          [--time-limit 300] [--repeats 1]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys

from pyomo_puzzles import api
from pyomo_puzzles.core import solvers

BOARDS = {
    "3x20": ("packing/pentominoes/3x20", 8, 2),
    "4x15": ("packing/pentominoes/4x15", 1472, 368),
    "5x12": ("packing/pentominoes/5x12", 4040, 1010),
    "6x10": ("packing/pentominoes/6x10", 9356, 2339),
    "soma": ("packing/soma_cube", 11520, 240),
    "l_tromino": ("packing/l_tromino_cube", 5328, 111),
}
"""Board: (instance, solutions, solutions up to symmetry), from ground_truth.md (all = classes x
the group's order where no tiling is symmetric: 4 for the rectangles; Soma and the L-tromino
cube as published)."""

DEFAULT_METHODS = "highs:nogood,scip:nogood,scip:native,cpsat:nogood,cpsat:native,gurobi:native,cplex:native"


def count_once(instance: str, solver: str, method: str, up_to_symmetry: bool, time_limit: float):
    formulation = None if solver == "dlx" else "placement"
    return api.count(instance, formulation, solver, up_to_symmetry=up_to_symmetry, method=method,
                     time_limit=time_limit)


def measure(instance: str, solver: str, method: str, up_to_symmetry: bool, time_limit: float, repeats: int):
    results = [count_once(instance, solver, method, up_to_symmetry, time_limit) for _ in range(repeats)]
    return results[-1], statistics.median(r.elapsed for r in results)


def verdict(result, expected: tuple[int, int], up_to_symmetry: bool, digests: set) -> str:
    if "licence_limit" in result.message:
        return f"not run: {result.message.split('licence_limit ', 1)[1][:60]}"
    if not result.complete:
        return f"incomplete: {result.message} ({result.classes if up_to_symmetry else result.solutions} found)"
    found = (result.solutions, result.classes) if up_to_symmetry else (result.solutions,)
    wanted = expected if up_to_symmetry else expected[:1]
    if found != wanted:
        return f"MISMATCH: {found}, known {wanted}"
    if digests and result.digest not in digests:
        return f"MISMATCH: digest {result.digest}, dancing links {sorted(digests)}"
    return "ok"


def available(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    chosen = []
    for solver, method in pairs:
        ok, why = solvers.availability(solver)
        if not ok:
            print(f"# {solver}: not installed, skipped ({why})")
        elif method == "native" and solvers.adapter(solver).enumeration is None:
            print(f"# {solver}: has no enumeration of its own, native skipped")
        else:
            chosen.append((solver, method))
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default=",".join(BOARDS))
    parser.add_argument("--methods", default=DEFAULT_METHODS, help="solver:method pairs")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    pairs = available([tuple(p.split(":")) for p in args.methods.split(",")])
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# time: each count's own clock (seconds), median of {args.repeats}; ratio: to dancing links on the "
          f"same board and question; limit {args.time_limit:g} s per count")
    print(f"{'board':10s} {'question':9s} {'method':14s} {'found':>11s} {'seconds':>8s} {'ratio':>7s}  verdict")
    goal = []
    for board in args.boards.split(","):
        instance, every, classes = BOARDS[board]
        for up_to_symmetry in (False, True):
            question = "classes" if up_to_symmetry else "all"
            base, base_seconds = measure(instance, "dlx", "native", up_to_symmetry, args.time_limit, args.repeats)
            digests = {base.digest} if base.complete else set()
            line(board, question, "dlx", base, base_seconds, 1.0,
                 verdict(base, (every, classes), up_to_symmetry, set()), up_to_symmetry)
            best = None
            for solver, method in pairs:
                result, seconds = measure(instance, solver, method, up_to_symmetry, args.time_limit, args.repeats)
                state = verdict(result, (every, classes), up_to_symmetry, digests)
                ratio = seconds / base_seconds
                line(board, question, f"{solver}:{method}", result, seconds, ratio, state, up_to_symmetry)
                if state == "ok" and (best is None or ratio < best[0]):
                    best = (ratio, f"{solver}:{method}")
            goal.append((board, question, best))
    print("\n# goal: the best solver-based method within 10x of dancing links")
    for board, question, best in goal:
        if best is None:
            print(f"{board:10s} {question:9s} no solver-based method finished: NOT MET")
        else:
            print(f"{board:10s} {question:9s} {best[1]:14s} {best[0]:6.1f}x  {'met' if best[0] <= 10 else 'NOT MET'}")


def line(board, question, method, result, seconds, ratio, state, up_to_symmetry) -> None:
    found = result.classes if up_to_symmetry else result.solutions
    bound = ">" if not result.complete and state.startswith("incomplete") else " "
    shown = "      -" if state.startswith("not run") else f"{bound}{ratio:6.1f}x"
    print(f"{board:10s} {question:9s} {method:14s} {found if found is not None else '-':>11} {seconds:8.2f} "
          f"{shown}  {state}", flush=True)


if __name__ == "__main__":
    main()
