"""Face turns derived from geometry, and the 2x2x2 group by breadth-first search.

Ground truth (../shared/data/ground_truth.md, OEIS A079761 and A079762): 3,674,160 states
of the 2x2x2 with one corner fixed; distance distributions in the half-turn and the
quarter-turn metric below. Known facts of the 3x3x3: (R U) has order 105, (R U R' U') 6.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyomo_puzzles.families.rubik import cube, distances

HTM = [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
QTM = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852, 782536, 90280, 276]


def order(n: int, sequence: list[str]) -> int:
    start = state = cube.solved(n)
    for k in range(1, 10_000):
        state = cube.apply(state, sequence, n)
        if (state == start).all():
            return k
    raise AssertionError("no return to the start")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_quarter_turns_have_order_four_and_inverses_undo(n):
    start = cube.solved(n)
    for face in cube.FACES:
        assert order(n, [face]) == 4
        assert (cube.apply(start, [face, face + "'"], n) == start).all()
        assert (cube.apply(start, [face + "2"], n) == cube.apply(start, [face, face], n)).all()


def test_known_orders_on_the_3x3x3():
    assert order(3, ["R", "U"]) == 105
    assert order(3, ["R", "U", "R'", "U'"]) == 6


def test_clockwise_u_moves_the_front_top_row_to_the_left():
    n = 3
    after = cube.apply(cube.solved(n), ["U"], n)
    face = {f: after[i * n * n:(i + 1) * n * n].reshape(n, n) for i, f in enumerate(cube.FACES)}
    assert (face["L"][0] == cube.FACES.index("F")).all()   # U: F's top row goes to L
    assert (face["F"][0] == cube.FACES.index("R")).all()   # and R's comes to F


def test_parse_rejects_unknown_moves():
    assert cube.parse("R U2 F' ") == ["R", "U2", "F'"]
    with pytest.raises(ValueError, match="'X'"):
        cube.parse("R X")


@pytest.mark.parametrize("metric, expected", [("htm", HTM), ("qtm", QTM)])
def test_pocket_cube_distance_distribution(metric, expected):
    table = distances.table(metric)
    assert table.counts == expected and sum(table.counts) == 3_674_160
    state = cube.apply(cube.solved(2), ["R", "U2", "F'"], 2)
    assert table.distance(state) == (3 if metric == "htm" else 4)


@pytest.mark.parametrize("metric, counts", [("htm", [1, 18, 243, 3240]), ("qtm", [1, 12, 114, 1068])])
def test_3x3x3_states_near_solved_match_the_published_counts(metric, counts):
    """States of the 3x3x3 at distance 0-3 (OEIS A080601 and A080602)."""
    from collections import Counter

    from pyomo_puzzles.families.rubik import cubies

    ball = distances._ball(cube.solved(3).astype("int8"), 3, cubies.moves(3, metric), 3)
    assert [Counter(ball.values())[d] for d in range(4)] == counts


@pytest.mark.parametrize("n", [2, 3])
def test_cubie_labels_follow_the_moves(n):
    import random

    from pyomo_puzzles.families.rubik import cubies

    rng = random.Random(n)
    for metric in ("htm", "qtm"):
        moves = cubies.moves(n, metric)
        for _ in range(40):
            state = cube.apply(cube.solved(n), [rng.choice(moves) for _ in range(rng.randint(0, 10))], n)
            k = rng.randrange(len(moves))
            after = cube.apply(state, [moves[k]], n)
            for kind in ("corner", "edge"):
                if cubies.positions(n, kind):
                    table = cubies.label_moves(n, metric, kind)
                    assert cubies.labels(after, n, kind) == [int(table[k, label]) for label in cubies.labels(state, n, kind)]
    assert len(cubies.positions(n, "corner")) == (7 if n == 2 else 8)
    assert len(cubies.positions(n, "edge")) == (0 if n == 2 else 12)
