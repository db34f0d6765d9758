"""One part of the 3x3x3 projection model handed to HiGHS with its log: where a hard part's time goes.

Builds the part of ``--horizon`` that starts with ``--prefix`` for a shipped scramble
(`model_projections.part`), reads it into one sparse matrix and runs HiGHS on one thread with
its log on, under ``--time-limit``. ``--relax`` drops integrality (the root LP alone);
``--option NAME=VALUE`` sets any HiGHS option (e.g. ``solver=ipm`` for the LP).
With ``--rank`` it instead lists, for every first-moves prefix of the scramble's own
distance, whether meeting in the middle (`middle`) says an optimal solution starts with it,
and where the first such part comes in the natural order and when parts are sorted by
their pattern distances.

Run:  python benchmarks/projection_part.py --instance rubik/cube3_qtm_depth_12_1 --horizon 12
                                           --prefix "U U" [--time-limit 60] [--relax] [--option solver=ipm]
                                           [--four-cubie-patterns]
      python benchmarks/projection_part.py --instance rubik/cube3_qtm_depth_12_1 --rank [--split 2]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

import numpy as np

from pyomo_puzzles.core import instances, models, run
from pyomo_puzzles.core.linear_form import read_linear_form
from pyomo_puzzles.families.rubik import cube, middle, model_projections


def option_value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def solve_one(args) -> None:
    import highspy

    instance = instances.load(args.instance)
    prefix = tuple(args.prefix.split())
    part = model_projections.part(instance.spec, prefix, args.horizon - len(prefix))
    if part is None:
        sys.exit("the pattern networks settle this part without a solver")
    form = models.choose_formulation(instance, "projections")
    form_matrix = read_linear_form(models.instantiate(form, part))
    highs = highspy.Highs()
    highs.setOptionValue("time_limit", args.time_limit)
    highs.setOptionValue("threads", 1)
    for setting in args.option:
        name, _, value = setting.partition("=")
        highs.setOptionValue(name, option_value(value))
    integer = form_matrix.integer.astype(np.int32) * (0 if args.relax else 1)
    highs.passModel(len(form_matrix.columns), len(form_matrix.row_lower), len(form_matrix.index), 1, 1,
                    form_matrix.offset, form_matrix.cost, form_matrix.col_lower, form_matrix.col_upper,
                    form_matrix.row_lower, form_matrix.row_upper, form_matrix.start.astype(np.int32),
                    form_matrix.index.astype(np.int32), form_matrix.value, integer)
    started = time.perf_counter()
    highs.run()
    print(f"# {highs.modelStatusToString(highs.getModelStatus())} after {time.perf_counter() - started:.2f} s")


def rank(args) -> None:
    instance = instances.load(args.instance)
    spec, distance = instance.spec, instance.spec.known_distance
    patterns = model_projections.patterns(spec)
    rows = []
    for prefix in model_projections._prefixes(spec, args.split):
        part = model_projections.part(spec, prefix, distance - len(prefix))
        if part is None:
            continue
        state = cube.apply(model_projections.start_state(spec)[0], list(prefix), 3)
        good = middle.distance(state, spec.metric) == distance - len(prefix)
        pattern_distances = [int(patterns[j].to_solved[s]) for j, s in enumerate(part.starts)]
        rows.append((good, max(pattern_distances), sum(pattern_distances)))
    good = [i for i, row in enumerate(rows) if row[0]]
    print(f"{len(rows)} parts not settled at horizon {distance}, {len(good)} start an optimal solution")
    print(f"first of them in the natural order: {good[0] + 1}")
    for label, key in (("(max, sum) of pattern distances", lambda i: (rows[i][1], rows[i][2])),
                       ("sum of pattern distances", lambda i: rows[i][2])):
        order = sorted(range(len(rows)), key=key)
        print(f"first of them sorted by {label}: {min(order.index(i) for i in good) + 1}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", default="rubik/cube3_qtm_depth_12_1")
    parser.add_argument("--horizon", type=int, default=12)
    parser.add_argument("--prefix", default="U U")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--relax", action="store_true")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--rank", action="store_true")
    parser.add_argument("--split", type=int, default=2)
    parser.add_argument("--four-cubie-patterns", action="store_true", help="the 3x3x3 patterns of four cubies")
    args = parser.parse_args()
    if args.four_cubie_patterns:
        from pocket_cube_random import FOUR_CUBIE_PATTERNS

        model_projections.PATTERNS[3] = FOUR_CUBIE_PATTERNS
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    if args.rank:
        rank(args)
    else:
        solve_one(args)


if __name__ == "__main__":
    main()
