"""What Pyomo costs on an IQ Twist challenge: the framework's run against the same solve without Pyomo.

Side by side, interleaved, for each booklet challenge 19-68 and ``--repeats`` rounds:

  pyomo   `core.run.run(instance, "placement", "highs", isolate=False)`: the whole run
          (Pyomo build from the data dictionary, reading the model into a sparse matrix,
          HiGHS, loading values, decoding, the independent check); its ``wall_time``.
  direct  the same run with no Pyomo: the same data dictionary (`model_placement.model_data`)
          turned into the same sparse matrix with numpy (rows: cells, piece types,
          requirements, pre-placed pieces; columns in order of first use, as the framework
          hands them to HiGHS), the same HiGHS options, the solution read off HiGHS's vector,
          and the same independent check. Before timing, each challenge's matrix is compared
          with the framework's (`core.linear_form.read_linear_form`): they must be equal, so
          HiGHS does the same work in both.
  HiGHS   `Highs.run` alone, inside the direct run.

Prints the median over challenges of each one's median over the repeats, for the three, and
the two differences that matter: pyomo - direct (what Pyomo costs) and direct - HiGHS (what
the rest costs without Pyomo). Differences and ratios are measured in one process, in
alternation, so a busy machine moves both sides alike. (`benchmarks/overhead.py` makes the
same comparison on the L-tromino cubes, which have no pegs, with the check outside the timer.)

Run:  python benchmarks/placement_floor.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

import highspy
import numpy as np

from pyomo_puzzles.core import checking, instances, models, run
from pyomo_puzzles.core.linear_form import first_use_numbering, read_linear_form
from pyomo_puzzles.families.packing import model_placement

CHALLENGES = [f"packing/iq_twist/challenge_{n}" for n in range(19, 69)]
ROW_SETS = ("PLACEMENTS_COVERING", "PLACEMENTS_OF", "PLACEMENTS_MEETING", "PLACEMENTS_AS_GIVEN")


def direct_matrix(spec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(placement of each column, column starts, row indices, row lower = upper, number of rows)."""
    data = model_placement.model_data(spec)[None]
    rows = [members for name in ROW_SETS for members in data[name].values()]
    rhs = np.ones(len(rows))
    type_rows = range(len(data["PLACEMENTS_COVERING"]), len(data["PLACEMENTS_COVERING"]) + len(data["PLACEMENTS_OF"]))
    rhs[list(type_rows)] = [data["COPIES"][t] for t in data["PLACEMENTS_OF"]]
    row_of_term = np.repeat(np.arange(len(rows)), [len(members) for members in rows])
    placement_of_term = np.fromiter((p for members in rows for p in members), dtype=np.int64, count=len(row_of_term))
    first_terms, columns = first_use_numbering(placement_of_term)
    order = np.lexsort((row_of_term, columns))
    start = np.zeros(len(first_terms) + 1, dtype=np.int32)
    np.cumsum(np.bincount(columns, minlength=len(first_terms)), out=start[1:])
    return placement_of_term[first_terms], start, row_of_term[order].astype(np.int32), rhs, len(rows)


def direct_run(instance) -> tuple[float, float]:
    """(wall seconds, HiGHS run seconds) of one solve without Pyomo; the solution must pass the check."""
    started = time.perf_counter()
    placements, start, index, rhs, n_rows = direct_matrix(instance.spec)
    n_cols = len(placements)
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("time_limit", 60.0)
    highs.setOptionValue("threads", 1)
    highs.passModel(n_cols, n_rows, len(index), int(highspy.MatrixFormat.kColwise),
                    int(highspy.ObjSense.kMinimize), 0.0, np.zeros(n_cols), np.zeros(n_cols), np.ones(n_cols),
                    rhs, rhs, start, index, np.ones(len(index)), np.ones(n_cols, dtype=np.int32))
    solve_started = time.perf_counter()
    highs.run()
    solve = time.perf_counter() - solve_started
    used = placements[np.asarray(highs.getSolution().col_value) > 0.5]
    solution = {"pieces": [model_placement.placement_entry(instance.spec.placements[p]) for p in used]}
    errors = checking.check_solution(instance, solution)
    if errors:
        raise RuntimeError(f"{instance.name}: direct solution failed the check: {errors[0]}")
    return time.perf_counter() - started, solve


def same_matrix(instance, form) -> bool:
    """Whether the direct matrix is exactly the one the framework hands to HiGHS."""
    linear = read_linear_form(models.build_model(instance, form))
    placements, start, index, rhs, _ = direct_matrix(instance.spec)
    return ([var.index() for var in linear.columns] == placements.tolist()
            and np.array_equal(linear.start, start) and np.array_equal(linear.index, index)
            and np.array_equal(linear.row_lower, rhs) and np.array_equal(linear.row_upper, rhs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# HiGHS {highspy.Highs().version()}, 1 thread; times in ms; median over the 50 challenges "
          f"of each challenge's median over {args.repeats} repeats")
    loaded = [instances.load(name) for name in CHALLENGES]
    form = models.choose_formulation(loaded[0], "placement")
    different = [instance.name for instance in loaded if not same_matrix(instance, form)]
    if different:
        sys.exit(f"the direct matrix differs from the framework's for {', '.join(different)}")
    run.run(loaded[0], "placement", "highs", isolate=False)  # warm-up, not measured
    direct_run(loaded[0])
    times: dict[str, dict[str, list[float]]] = {"pyomo": {}, "direct": {}, "HiGHS": {}}
    for _ in range(args.repeats):
        for instance in loaded:
            record = run.run(instance, "placement", "highs", isolate=False)
            if not (record.status == "optimal" and record.checked):
                sys.exit(f"{instance.name}: the framework's run ended {record.status}: {record.message}")
            wall, solve = direct_run(instance)
            for label, seconds in (("pyomo", record.wall_time), ("direct", wall), ("HiGHS", solve)):
                times[label].setdefault(instance.name, []).append(seconds * 1000)

    def median_of(label: str) -> float:
        return statistics.median(statistics.median(times[label][name]) for name in CHALLENGES)

    def median_difference(a: str, b: str) -> float:
        return statistics.median(statistics.median(x - y for x, y in zip(times[a][name], times[b][name]))
                                 for name in CHALLENGES)

    for label in times:
        print(f"{label:28s} {median_of(label):7.2f}")
    print(f"{'pyomo - direct (Pyomo)':28s} {median_difference('pyomo', 'direct'):7.2f}")
    print(f"{'direct - HiGHS (the rest)':28s} {median_difference('direct', 'HiGHS'):7.2f}")
    print(f"{'pyomo / direct':28s} {median_of('pyomo') / median_of('direct'):7.2f}x")


if __name__ == "__main__":
    main()
