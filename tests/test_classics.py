"""Pentominoes and the Soma cube: counts up to symmetry against the published figures.

Published: 12 pentominoes on 6x10: 2,339; 5x12: 1,010; 4x15: 368; 3x20: 2 (distinct up to
the rectangle's symmetries). Soma cube: 240 up to rotation and reflection, 11,520 in all.
"""

from __future__ import annotations

import pytest

from pyomo_puzzles.core import counting as enumeration, instances, run


def test_pentominoes_3x20_has_two_solutions_up_to_symmetry():
    result = enumeration.count_solutions(instances.load("packing/pentominoes/3x20"), "placement", "highs",
                                         up_to_symmetry=True)
    assert result.complete and (result.classes, result.solutions) == (2, 8)


def test_soma_cube_240_up_to_rotation_and_reflection():
    result = enumeration.count_solutions(instances.load("packing/soma_cube"), "placement", "highs",
                                         up_to_symmetry=True)
    assert result.complete and (result.classes, result.solutions) == (240, 11520)
    assert result.images_per_solution == 48


@pytest.mark.parametrize("board", ["6x10", "5x12", "4x15", "3x20"])
def test_pentomino_boards_solve_to_checked_tilings(board):
    record = run.run(instances.load(f"packing/pentominoes/{board}"), "placement", "highs",
                     time_limit=120, isolate=False)
    assert record.status == "optimal" and record.checked


@pytest.mark.slow
@pytest.mark.parametrize("board, classes", [("4x15", 368), ("5x12", 1010), ("6x10", 2339)])
def test_pentomino_counts(board, classes):
    result = enumeration.count_solutions(instances.load(f"packing/pentominoes/{board}"), "placement",
                                         "highs", up_to_symmetry=True)
    assert result.complete and (result.classes, result.solutions) == (classes, 4 * classes)
