"""Uncertainty of shifted geometric means: bootstrap intervals, spread over repeats, a paired test.

The unit of resampling is the *instance*: runs of one instance (seeds, permutations,
repeats) are not independent draws, so a drawn instance brings all of its runs along.
Intervals are percentile bootstrap intervals from a numpy ``Generator(PCG64(seed))``, so the
same data and seed give the same interval. Times are seconds, censored as in
`pyomo_puzzles.report.tables` (unsolved runs at their time limit).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
from pyomo_puzzles.report.tables import SHIFT_SECONDS

_DRAWS_PER_CHUNK = 1_000_000
"""At most this many instance indices are drawn at once (bounds memory for many instances)."""

TimesByInstance = Mapping[str, Iterable[float]] | pd.Series
TimeByInstance = Mapping[str, float] | pd.Series


def _run_times(times_by_instance: TimesByInstance) -> list[np.ndarray]:
    """Each instance's run times as a float array (a bare number counts as one run)."""
    return [np.atleast_1d(np.asarray(list(times) if isinstance(times, Iterable) else times, dtype=float))
            for _, times in times_by_instance.items()]  # .items(): a dict and a pandas Series alike


def _check_bootstrap(resamples: int, level: float) -> None:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")


def _resampled_indices(count: int, resamples: int, seed: int) -> Iterable[np.ndarray]:
    """Bootstrap draws of `count` instance indices with replacement, one row per resample,
    in chunks; reproducible for a given seed."""
    rng = np.random.Generator(np.random.PCG64(seed))
    rows_per_chunk = max(1, _DRAWS_PER_CHUNK // max(count, 1))
    for start in range(0, resamples, rows_per_chunk):
        yield rng.integers(0, count, size=(min(rows_per_chunk, resamples - start), count))


def _percentile_interval(estimates: np.ndarray, level: float) -> tuple[float, float]:
    low, high = np.quantile(estimates, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def bootstrap_sgm_ci(times_by_instance: TimesByInstance, shift: float = SHIFT_SECONDS, resamples: int = 2000,
                     level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """The shifted geometric mean of all runs and a percentile bootstrap interval for it.

    `times_by_instance` maps an instance to its runs' (censored) times in seconds. Returns
    ``(estimate, low, high)``: the estimate is ``exp(mean(log(t + shift))) - shift`` over all
    runs of all instances; each of the `resamples` bootstrap samples draws as many instances
    as there are, with replacement, and takes the same mean over all runs of the drawn
    instances; ``low`` and ``high`` are that distribution's ``(1 - level) / 2`` and
    ``(1 + level) / 2`` quantiles. With one instance there is nothing to resample: the
    interval is ``(nan, nan)`` around the estimate. No runs, or a NaN time: all three NaN.
    """
    _check_bootstrap(resamples, level)
    arrays = [values for values in _run_times(times_by_instance) if values.size]
    if not arrays:
        return math.nan, math.nan, math.nan
    log_sums = np.array([np.log(values + shift).sum() for values in arrays])
    run_counts = np.array([values.size for values in arrays], dtype=float)
    estimate = float(np.exp(log_sums.sum() / run_counts.sum()) - shift)
    if math.isnan(estimate) or len(arrays) == 1:
        return estimate, math.nan, math.nan
    estimates = np.concatenate([
        np.exp(log_sums[draws].sum(axis=1) / run_counts[draws].sum(axis=1)) - shift
        for draws in _resampled_indices(len(arrays), resamples, seed)])
    return (estimate, *_percentile_interval(estimates, level))


def median_spread(times_by_instance: TimesByInstance) -> float:
    """The median over instances of (slowest - fastest run) of that instance, in seconds.

    Only instances with at least two runs (seeds, permutations, repeats) take part; NaN when
    there is none.
    """
    spreads = [values.max() - values.min() for values in _run_times(times_by_instance) if values.size >= 2]
    return float(np.median(spreads)) if spreads else math.nan


def _paired(a: TimeByInstance, b: TimeByInstance) -> tuple[np.ndarray, np.ndarray]:
    """The times of the instances in both `a` and `b`, in `a`'s order."""
    common = [instance for instance in a.keys() if instance in b.keys()]
    return (np.array([a[instance] for instance in common], dtype=float),
            np.array([b[instance] for instance in common], dtype=float))


def _sgm_rows(log_shifted: np.ndarray, shift: float) -> np.ndarray:
    """The shifted geometric mean of each row of log(t + shift) values."""
    return np.exp(log_shifted.mean(axis=-1)) - shift


def sgm_ratio_ci(a: TimeByInstance, b: TimeByInstance, shift: float = SHIFT_SECONDS, resamples: int = 2000,
                 level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """How much slower `b` is than `a`: SGM(b) / SGM(a), with a percentile bootstrap interval.

    `a` and `b` map an instance to one time each (e.g. the shifted geometric mean of its
    repeats); only instances in both are used, as pairs. Returns ``(ratio, low, high)``; a
    ratio above 1 means `b` is slower than `a`, below 1 faster. Each bootstrap sample draws
    pairs with replacement and takes the ratio of the two SGMs over the drawn pairs. One
    pair: ``(ratio, nan, nan)``; no pair or a NaN time: all NaN. If every time of `a` is 0 the
    ratio is infinite (or NaN if `b`'s are too).
    """
    _check_bootstrap(resamples, level)
    times_a, times_b = _paired(a, b)
    if times_a.size == 0:
        return math.nan, math.nan, math.nan
    log_a, log_b = np.log(times_a + shift), np.log(times_b + shift)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(_sgm_rows(log_b, shift) / _sgm_rows(log_a, shift))
        if math.isnan(ratio) or times_a.size == 1:
            return ratio, math.nan, math.nan
        ratios = np.concatenate([_sgm_rows(log_b[draws], shift) / _sgm_rows(log_a[draws], shift)
                                 for draws in _resampled_indices(times_a.size, resamples, seed)])
    return (ratio, *_percentile_interval(ratios, level))


def wilcoxon_p(a: TimeByInstance, b: TimeByInstance) -> float | None:
    """Two-sided p-value of the paired Wilcoxon signed-rank test of `a` against `b`.

    Pairs are the instances in both mappings (one time each). Zero differences are dropped
    (scipy's ``zero_method="wilcox"``); scipy computes the exact p-value for up to 50 pairs
    and the normal approximation beyond. ``None`` when there are fewer than two pairs or
    every difference is zero: there is then nothing to test.
    """
    from scipy.stats import wilcoxon  # scipy.stats: 0.7 s of every report job, only where experiments are compared

    times_a, times_b = _paired(a, b)
    if times_a.size < 2 or np.all(times_a == times_b):
        return None
    return float(wilcoxon(times_a, times_b, alternative="two-sided").pvalue)
