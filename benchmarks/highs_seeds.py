"""How much of HiGHS's time on the IQ Twist challenges is luck: its run time over random seeds.

HiGHS is deterministic for a given matrix, column order and `random_seed`, but a change
of any of them can change its root heuristics and branching, and so its time. This script
builds each booklet challenge's placement model as `core.run` does (the same matrix and
column order), then times `Highs.run` alone for seeds 0..S-1, on three matrices:

  as built        the model as the framework hands it to HiGHS (first-use column order)
  merged          mark (ring) variants of one outline merged into one column: with the
                  framework's data these columns are identical, so this is the model
                  after HiGHS's own parallel-column reduction
  merged, index   the merged columns in placement-index order (piece, orientation,
                  position) instead of first-use order

and prints, per matrix, the median over challenges x seeds, the slowest challenge's
median and spread over seeds, and how many seeds keep every challenge under 150 ms.

Run:  python benchmarks/highs_seeds.py [--seeds 12]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

import highspy
import numpy as np
import scipy.sparse as sp

from pyomo_puzzles.core import instances, models, run
from pyomo_puzzles.core.linear_form import LinearForm, read_linear_form

SLOW_MS = 150.0


def built_matrix(name: str) -> tuple[LinearForm, sp.csc_matrix, list[int], list[int]]:
    """(linear form, matrix, merged column positions, placement index per column)."""
    instance = instances.load(name)
    form = models.choose_formulation(instance, "placement")
    linear = read_linear_form(models.build_model(instance, form))
    matrix = sp.csc_matrix((linear.value, linear.index, linear.start),
                           shape=(len(linear.row_lower), len(linear.columns)))
    placement_of_column = [var.index() for var in linear.columns]
    first_of_outline: dict = {}
    for column, p in enumerate(placement_of_column):
        first_of_outline.setdefault(instance.spec.placements[p].outline, column)
    return linear, matrix, list(first_of_outline.values()), placement_of_column


def highs_ms(linear: LinearForm, matrix: sp.csc_matrix, seed: int) -> float:
    matrix = matrix.tocsc()
    n_cols = matrix.shape[1]
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("random_seed", seed)
    highs.passModel(n_cols, matrix.shape[0], matrix.nnz, 1, 1, 0.0, np.zeros(n_cols), np.zeros(n_cols),
                    np.ones(n_cols), linear.row_lower, linear.row_upper, matrix.indptr.astype(np.int32),
                    matrix.indices.astype(np.int32), matrix.data, np.ones(n_cols, dtype=np.int32))
    started = time.perf_counter()
    highs.run()
    elapsed = (time.perf_counter() - started) * 1000
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS did not solve the model: {highs.modelStatusToString(highs.getModelStatus())}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=12, help="HiGHS random seeds 0..S-1 (default 12)")
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# HiGHS {highspy.Highs().version()}, 1 thread, time of Highs.run only")
    names = [f"packing/iq_twist/challenge_{n}" for n in range(19, 69)]
    times: dict[str, dict[str, list[float]]] = {"as built": {}, "merged": {}, "merged, index": {}}
    for name in names:
        linear, matrix, merged, placement_of_column = built_matrix(name)
        by_index = sorted(merged, key=lambda column: placement_of_column[column])
        columns = {"as built": list(range(matrix.shape[1])), "merged": merged, "merged, index": by_index}
        for label, chosen in columns.items():
            times[label][name] = [highs_ms(linear, matrix[:, chosen], seed) for seed in range(args.seeds)]
    print(f"{'matrix':15s} {'median':>8s} {'slowest challenge: median [min-max] over seeds':>50s}"
          f" {'seeds with all < 150 ms':>25s}")
    for label, per_challenge in times.items():
        everything = [t for series in per_challenge.values() for t in series]
        slowest = max(per_challenge, key=lambda n: statistics.median(per_challenge[n]))
        series = per_challenge[slowest]
        good_seeds = sum(all(per_challenge[n][s] < SLOW_MS for n in names) for s in range(args.seeds))
        spread = f"{slowest.rsplit('_', 1)[1]}: {statistics.median(series):.0f} ms [{min(series):.0f}-{max(series):.0f}]"
        print(f"{label:15s} {statistics.median(everything):6.2f}ms {spread:>50s} {good_seeds:>18d} of {args.seeds}")


if __name__ == "__main__":
    main()
