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


# Published numbers of 3x3x3 states at distance 0..6: half turns OEIS A080601, quarter turns
# OEIS A080583 (Jerry Bryan's table, jerrybryan.com/math/rubikresults.html).
PUBLISHED_3X3X3_COUNTS = {"htm": [1, 18, 243, 3240, 43239, 574908, 7618438],
                          "qtm": [1, 12, 114, 1068, 10011, 93840, 878880]}


@pytest.mark.parametrize("metric", ["htm", "qtm"])
def test_3x3x3_ball_matches_the_published_counts(metric):
    """The meet-in-the-middle ball: every state within 6 moves of solved, counted by distance."""
    from pyomo_puzzles.families.rubik import middle

    ball = middle.ball(metric)
    assert ball.counts() == PUBLISHED_3X3X3_COUNTS[metric]
    assert len(np.unique(np.asarray(ball.joined))) == sum(PUBLISHED_3X3X3_COUNTS[metric])  # no state twice


def test_meet_in_the_middle_moves_agree_with_the_stickers():
    """Its own cubie move tables against the sticker permutations, on random sequences."""
    import random

    from pyomo_puzzles.families.rubik import middle

    rng = random.Random(11)
    for metric in ("htm", "qtm"):
        moves = middle.MOVES[metric]
        for _ in range(60):
            sequence = [rng.choice(moves) for _ in range(rng.randint(0, 20))]
            state = middle.solved()[None, :]
            for name in sequence:
                state = middle.expand(state, metric)[moves.index(name)][None, :]
            assert state[0].tolist() == middle.from_colours(cube.apply(cube.solved(3), sequence, 3)).tolist()


def test_the_bound_beyond_the_ball_agrees_with_the_exact_distance(monkeypatch):
    """`middle.farther_than` proves distances past 12 (the certificates of the 14-half-turn
    and 15-16-quarter-turn scrambles) by a search that differs from `distance`'s: below 10
    moves both can be had cheaply, and they must agree at every bound; its last layer is
    read in small chunks here so that the chunking is exercised."""
    import random

    from pyomo_puzzles.families.rubik import middle

    monkeypatch.setattr(middle, "CHUNK_STATES", 1000)
    rng = random.Random(1)
    for metric, powers in (("htm", ("", "2", "'")), ("qtm", ("", "'"))):
        for _ in range(6):
            moves = [rng.choice(cube.FACES) + rng.choice(powers) for _ in range(rng.randrange(3, 10))]
            state = cube.apply(cube.solved(3), moves, 3)
            exact = middle.distance(state, metric)
            assert [middle.farther_than(state, metric, bound) for bound in range(10)] \
                == [exact > bound for bound in range(10)], (metric, moves, exact)
    # the superflip is 20 half turns from solved (Reid, 1995)
    superflip = "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2".split()
    assert middle.farther_than(cube.apply(cube.solved(3), superflip, 3), "htm", 9)


def test_meet_in_the_middle_distances_of_known_states():
    from pyomo_puzzles.families.rubik import middle

    solved = cube.solved(3)
    assert middle.distance(solved, "htm") == 0
    # a sexy move (R U R' U') is 4 moves in both metrics; R2 is 1 half turn or 2 quarter turns
    assert middle.distance(cube.apply(solved, ["R", "U", "R'", "U'"], 3), "htm") == 4
    assert middle.distance(cube.apply(solved, ["R2", "U2"], 3), "qtm") == 4
    # the superflip is 20 half turns from solved (Reid, 1995): beyond 12, so None
    superflip = "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2".split()
    assert middle.distance(cube.apply(solved, superflip, 3), "htm") is None
    with pytest.raises(ValueError, match="colours no cubie has"):
        middle.from_colours(np.zeros(54, dtype=np.int8))


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
