"""Bootstrap intervals, spread and the paired test, on the times of real runs (and on a
published data set for the test); expected values are computed here from their definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from pyomo_puzzles import api
from pyomo_puzzles.report.statistics import bootstrap_sgm_ci, median_spread, sgm_ratio_ci, wilcoxon_p

CHALLENGES = [f"packing/iq_twist/challenge_{n}" for n in range(19, 25)]
SLOWER = [("packing/iq_twist/challenge_49", "placement"), ("packing/cube_puzzler/example_pieces", "placement"),
          ("packing/l_tromino_cube", "cell_assignment")]  # each about 0.15-0.3 s with HiGHS, the challenges 0.01 s


def wall_time(instance: str, formulation: str, solver: str) -> float:
    """A real run's wall time; it must be solved, so that it is also its censored time."""
    record = api.solve(instance, formulation, solver, time_limit=60, isolate=False)
    assert record.status == "optimal" and record.checked is True, record.message
    return record.wall_time


@pytest.fixture(scope="module")
def times() -> dict[str, dict]:
    """repeats: HiGHS, three runs per challenge; glpk: GLPK, one run per challenge;
    spread: one HiGHS run each of the challenges and of three slower instances."""
    repeats = {name: [wall_time(name, "placement", "highs") for _ in range(3)] for name in CHALLENGES}
    glpk = {name: wall_time(name, "placement", "glpk") for name in CHALLENGES}
    spread = {name: runs[:1] for name, runs in repeats.items()}
    spread.update({name: [wall_time(name, formulation, "highs")] for name, formulation in SLOWER})
    return {"repeats": repeats, "glpk": glpk, "spread": spread}


def sgm(values, shift: float = 1.0) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(values, dtype=float) + shift))) - shift)


def per_instance_sgm(times_by_instance: dict) -> dict[str, float]:
    return {name: sgm(runs) for name, runs in times_by_instance.items()}


# --- bootstrap_sgm_ci ----------------------------------------------------------------------

def test_estimate_is_the_sgm_over_all_runs(times):
    every_run = [t for runs in times["repeats"].values() for t in runs]
    assert bootstrap_sgm_ci(times["repeats"])[0] == pytest.approx(sgm(every_run), rel=1e-12)
    assert bootstrap_sgm_ci(times["repeats"], shift=0.1)[0] == pytest.approx(sgm(every_run, 0.1), rel=1e-12)


def test_interval_holds_the_estimate_and_is_reproducible(times):
    estimate, low, high = bootstrap_sgm_ci(times["repeats"], seed=7)
    assert low <= estimate <= high and low < high
    assert bootstrap_sgm_ci(times["repeats"], seed=7) == (estimate, low, high)
    # another seed draws other samples: with six instances the bootstrap distribution is
    # discrete, and one other seed can land on the same two quantiles (it did once in the suite)
    assert any(bootstrap_sgm_ci(times["repeats"], seed=seed)[1:] != (low, high) for seed in range(8, 20))


def test_instances_are_resampled_with_all_their_runs(times):
    """With two instances a resample is both runs of X, of Y, or of both, a quarter of the
    resamples each way round: the 95 % interval runs from one instance's SGM to the other's.
    Resampling single runs would reach beyond them."""
    two = {name: times["repeats"][name] for name in CHALLENGES[:2]}
    own = sorted(sgm(runs) for runs in two.values())
    _, low, high = bootstrap_sgm_ci(two)
    assert (low, high) == pytest.approx(tuple(own), rel=1e-9)


def test_one_instance_has_no_interval(times):
    runs = times["repeats"][CHALLENGES[0]]
    estimate, low, high = bootstrap_sgm_ci({CHALLENGES[0]: runs})
    assert estimate == pytest.approx(sgm(runs), rel=1e-12) and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(x) for x in bootstrap_sgm_ci({}))


def test_concentrated_times_give_a_narrower_interval(times):
    _, low, high = bootstrap_sgm_ci(times["repeats"])
    _, spread_low, spread_high = bootstrap_sgm_ci(times["spread"])
    assert high - low < spread_high - spread_low


def test_a_higher_level_gives_a_wider_interval(times):
    _, low_80, high_80 = bootstrap_sgm_ci(times["spread"], level=0.8)
    _, low_99, high_99 = bootstrap_sgm_ci(times["spread"], level=0.99)
    assert low_99 < low_80 and high_80 < high_99


def test_bad_settings_are_refused(times):
    with pytest.raises(ValueError, match="level"):
        bootstrap_sgm_ci(times["repeats"], level=95)
    with pytest.raises(ValueError, match="resamples"):
        sgm_ratio_ci(times["glpk"], times["glpk"], resamples=0)


# --- median_spread -------------------------------------------------------------------------

def test_median_spread_by_definition(times):
    expected = np.median([max(runs) - min(runs) for runs in times["repeats"].values()])
    assert median_spread(times["repeats"]) == pytest.approx(expected, rel=1e-12)
    with_a_single_run = {**times["repeats"], "packing/l_tromino_cube": times["spread"]["packing/l_tromino_cube"]}
    assert median_spread(with_a_single_run) == pytest.approx(expected, rel=1e-12)  # it takes no part
    assert math.isnan(median_spread(times["spread"]))


# --- sgm_ratio_ci --------------------------------------------------------------------------

def test_ratio_is_b_over_a_on_the_paired_instances(times):
    a, b = per_instance_sgm(times["repeats"]), times["glpk"]
    ratio, low, high = sgm_ratio_ci(a, b)
    assert ratio == pytest.approx(sgm(list(b.values())) / sgm(list(a.values())), rel=1e-12)
    assert low <= ratio <= high
    assert sgm_ratio_ci(b, a)[0] == pytest.approx(1 / ratio, rel=1e-12)
    only_in_b = {**b, "packing/l_tromino_cube": times["spread"]["packing/l_tromino_cube"][0]}
    assert sgm_ratio_ci(a, only_in_b) == (ratio, low, high)


def test_ratio_interval_with_two_pairs_by_hand(times):
    """Resamples: pair 1 twice, pair 2 twice (a quarter each), or both (a half): the 95 %
    interval runs from the smallest of the three ratios to the largest."""
    a = {name: per_instance_sgm(times["repeats"])[name] for name in CHALLENGES[:2]}
    b = {name: times["glpk"][name] for name in CHALLENGES[:2]}
    one, two = CHALLENGES[:2]
    candidates = [b[one] / a[one], b[two] / a[two], sgm(list(b.values())) / sgm(list(a.values()))]
    _, low, high = sgm_ratio_ci(a, b)
    assert (low, high) == pytest.approx((min(candidates), max(candidates)), rel=1e-9)


def test_ratio_of_equal_times_and_of_one_pair(times):
    a = per_instance_sgm(times["repeats"])
    assert sgm_ratio_ci(a, a) == pytest.approx((1.0, 1.0, 1.0), rel=1e-12)
    ratio, low, high = sgm_ratio_ci({CHALLENGES[0]: a[CHALLENGES[0]]}, times["glpk"])
    assert ratio == pytest.approx(times["glpk"][CHALLENGES[0]] / a[CHALLENGES[0]])
    assert math.isnan(low) and math.isnan(high)
    assert all(math.isnan(x) for x in sgm_ratio_ci(a, {"packing/soma_cube": 1.0}))
    assert sgm_ratio_ci(a, times["glpk"], seed=3) == sgm_ratio_ci(a, times["glpk"], seed=3)


# --- wilcoxon_p ----------------------------------------------------------------------------

def exact_two_sided_p(a: list[float], b: list[float]) -> float:
    """The exact signed-rank p-value by enumerating all 2^n sign patterns (zeros dropped)."""
    differences = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    differences = differences[differences != 0]
    ranks = scipy.stats.rankdata(np.abs(differences))
    observed = min(ranks[differences > 0].sum(), ranks[differences < 0].sum())
    signs = (np.arange(2 ** differences.size)[:, None] >> np.arange(differences.size)) & 1
    plus = signs @ ranks
    return float(np.mean(np.minimum(plus, ranks.sum() - plus) <= observed + 1e-9))


# Darwin's Zea mays data, plant heights in eighths of an inch (Fisher 1935, The Design of
# Experiments): 15 pairs of a cross- and a self-fertilised plant.
CROSS = [188, 96, 168, 176, 153, 172, 177, 163, 146, 173, 186, 168, 177, 184, 96]
SELF = [139, 163, 160, 160, 147, 149, 149, 122, 132, 144, 130, 144, 102, 124, 144]


def test_wilcoxon_on_a_published_example():
    pairs = [f"pot{i}" for i in range(len(CROSS))]
    p = wilcoxon_p(dict(zip(pairs, SELF)), dict(zip(pairs, CROSS)))
    assert p == pytest.approx(exact_two_sided_p(SELF, CROSS), rel=1e-12)
    assert p == pytest.approx(0.041259765625, rel=1e-12)  # 1352 / 32768, as the scipy.stats.wilcoxon docs give


def test_wilcoxon_by_hand_on_real_times(times):
    a, b = per_instance_sgm(times["repeats"]), times["glpk"]
    assert wilcoxon_p(a, b) == pytest.approx(exact_two_sided_p([a[n] for n in CHALLENGES],
                                                               [b[n] for n in CHALLENGES]), rel=1e-12)
    slower = {name: value + 1 + i for i, (name, value) in enumerate(list(a.items())[:5])}
    assert wilcoxon_p(a, slower) == pytest.approx(2 / 2 ** 5)  # all five differences one way: 2 of 32 patterns


def test_wilcoxon_has_nothing_to_test():
    a = dict(zip(["x", "y", "z"], CROSS))
    assert wilcoxon_p(a, dict(a)) is None  # all differences zero
    assert wilcoxon_p(a, {"x": 1.0, "w": 2.0}) is None  # one pair
    assert wilcoxon_p({}, a) is None
