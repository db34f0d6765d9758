"""The thesis's unit-coordinate model of IQ Twist (Ao 2020), faithful and tightened.

Ground truth written here: the thesis's unit numbering ("from left to right and bottom
up") and its peg constraints (11)-(17), which name the ring units y11, y21, y22, y24
(yellow), b13, b15, b23 (blue), g13, g14, g22, g23 (green), r12, r21, r23 (red); the
booklet challenges have one covering, so every formulation must find the placement
formulation's.
"""

from __future__ import annotations

import pytest

from pyomo_puzzles.core import instances, run
from pyomo_puzzles.errors import UserError
from pyomo_puzzles.families.packing import checker
from pyomo_puzzles.families.packing import model_coordinates as coordinates

THESIS_RING_UNITS = {
    "yellow1": [1], "yellow2": [1, 2, 4], "blue1": [3, 5], "blue2": [3],
    "green1": [3, 4], "green2": [2, 3], "red1": [2], "red2": [1, 3],
}
# Chosen from a scan of all 50 challenges (benchmarks/coordinates.py): these solve in
# about a second with the faithful model and well under one with the tight one.
FAITHFUL_CHALLENGES = ["challenge_19", "challenge_21"]
TIGHT_CHALLENGES = ["challenge_19", "challenge_21", "challenge_24"]
TIME_LIMIT = 60.0


@pytest.fixture(scope="module")
def empty():
    return instances.load("packing/iq_twist/empty")


def test_units_and_rings_are_numbered_as_in_the_thesis(empty):
    for piece in empty.spec.pieces:
        assert coordinates._marked_units(piece, "ring") == THESIS_RING_UNITS[piece.name], piece.name


def test_orientations_keep_unit_identity_and_cover_every_placed_shape(empty):
    for piece in empty.spec.pieces:
        reference = coordinates.units(piece)
        all8 = coordinates.orientations(piece, distinct=False)
        distinct = coordinates.orientations(piece, distinct=True)
        assert len(all8) == 8
        for offsets in all8:  # each orientation moves the units rigidly: distances are kept
            for i, c in enumerate(reference, start=1):
                for j, d in enumerate(reference, start=1):
                    seen = [abs(a - b) for a, b in zip(offsets[i], offsets[j])]
                    assert sorted(seen) == sorted(abs(a - b) for a, b in zip(c, d))
        rings = coordinates._marked_units(piece, "ring")

        def shape(offsets):
            low = [min(v[a] for v in offsets.values()) for a in (0, 1)]
            cells = {i: (v[0] - low[0], v[1] - low[1]) for i, v in offsets.items()}
            return frozenset(cells.values()), frozenset(cells[i] for i in rings)

        assert len({shape(o) for o in distinct}) == len(distinct) == len(piece.orientations)
        assert {shape(o) for o in all8} == {shape(o) for o in distinct}
    assert sum(len(coordinates.orientations(p, distinct=True)) for p in empty.spec.pieces) == 56


def _covering(solution: dict) -> set:
    return {(p["piece"], tuple(sorted(map(tuple, p["cells"])))) for p in solution["pieces"]}


@pytest.mark.parametrize("formulation, challenge",
                         [("coordinates", c) for c in FAITHFUL_CHALLENGES]
                         + [("coordinates_tight", c) for c in TIGHT_CHALLENGES])
def test_booklet_challenge_solved_with_the_unique_covering(formulation, challenge):
    instance = instances.load(f"packing/iq_twist/{challenge}")
    reference = run.run(instance, "placement", "highs", time_limit=TIME_LIMIT, isolate=False)
    record = run.run(instance, formulation, "highs", time_limit=TIME_LIMIT, isolate=False)
    assert record.status == "optimal" and record.checked, record.message
    assert checker.check(instance.spec, record.solution) == []
    assert all("marks" in entry for entry in record.solution["pieces"])
    assert _covering(record.solution) == _covering(reference.solution)


def test_refuses_a_3d_box():
    cube = instances.load("packing/l_tromino_cube")
    assert "2D" in coordinates.applies_to(cube.spec)
    for formulation in ("coordinates", "coordinates_tight"):
        with pytest.raises(UserError, match="cannot model"):
            run.run(cube, formulation, "highs", isolate=False)


def test_refuses_repeated_pieces(write_instance):
    path = write_instance(
        "puzzle: packing\nboard:\n  size: [2, 2]\n"
        "pieces:\n  - {name: domino, cells: [[0, 0], [1, 0]], count: 2}\n")
    instance = instances.load(str(path))
    assert "copies" in coordinates.applies_to(instance.spec)
    with pytest.raises(UserError, match="cannot model"):
        run.run(instance, "coordinates_tight", "highs", isolate=False)


def test_applies_to_pieces_without_marks():
    pentominoes = instances.load("packing/pentominoes/3x20")
    assert coordinates.applies_to(pentominoes.spec) is None
