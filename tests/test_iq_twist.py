"""IQ Twist against the published and independently computed figures.

Ground truth: every booklet challenge (19-68) has exactly one covering (placements that
differ only in where a symmetric piece's rings fall count as one); the empty board has
5,992 coverings, 1,498 up to the board's 4 symmetries and 191,744 when ring variants are
counted apart; without flips there are 440 coverings.
"""

from __future__ import annotations

import pytest

from conftest import INSTALLED
from pyomo_puzzles.core import counting as enumeration, instances, run

CHALLENGES = [f"packing/iq_twist/challenge_{n:02d}" for n in range(19, 69)]


def test_fifty_booklet_challenges_are_shipped():
    from pyomo_puzzles.core.instances import shipped_instances

    shipped = [n for n in shipped_instances() if n.startswith("packing/iq_twist/challenge_")]
    assert sorted(shipped) == CHALLENGES


@pytest.mark.parametrize("name", CHALLENGES)
def test_every_booklet_challenge_has_exactly_one_covering(name):
    result = enumeration.count_solutions(instances.load(name), "placement", "highs", split=0)
    assert result.complete and result.solutions == 1


@pytest.mark.parametrize("solver", INSTALLED)
def test_every_challenge_solves_on_every_solver(solver):
    for name in CHALLENGES:
        record = run.run(instances.load(name), "placement", solver, time_limit=60, isolate=False)
        assert record.status == "optimal" and record.checked, (name, record.message)


def test_without_flips_440_coverings():
    result = enumeration.count_solutions(instances.load("packing/iq_twist/empty_no_flips"), "placement",
                                         "highs", up_to_symmetry=True)
    assert result.complete and result.solutions == 440


@pytest.mark.slow
def test_empty_board_counts():
    result = enumeration.count_solutions(instances.load("packing/iq_twist/empty"), "placement", "highs",
                                         up_to_symmetry=True)
    assert result.complete
    assert (result.classes, result.solutions, result.solutions_with_variants) == (1498, 5992, 191744)
