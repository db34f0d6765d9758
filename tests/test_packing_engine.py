"""The general packing engine: marks, pegs, face clues, pre-placed pieces, base files,
mirror-image pieces, and the checker's view of them."""

from __future__ import annotations

import copy

import pytest

from conftest import run_cli
from pyomo_puzzles.core import instances, run
from pyomo_puzzles.families.packing.spec import face_cells

IQ_EMPTY = "packing/iq_twist/empty"


def test_iq_twist_pieces_derive_the_expected_orientations():
    spec = instances.load(IQ_EMPTY).spec
    # Distinct orientations with rings: a ring pattern breaks the symmetry of an outline.
    # yellow1 (straight 3, ring at one end): 2 directions x 2 ring ends = 4.
    # blue2 (straight 4, ring on the third cell): 4; green2 (L tromino, rings on two cells): 8.
    counts = {p.name: len(p.orientations) for p in spec.pieces}
    assert counts["yellow1"] == 4 and counts["blue2"] == 4 and counts["green2"] == 8
    assert counts["yellow2"] == 8 and counts["blue1"] == 8
    assert sum(len(p.shape.mark_cells("ring")) for p in spec.pieces) == 14  # 14 rings in all
    assert len(spec.symmetries) == 4


def test_ring_variants_are_distinct_placements_of_one_outline():
    spec = instances.load(IQ_EMPTY).spec
    variants = [len(v) for v in spec.outline_index.values()]
    assert max(variants) == 2  # a symmetric outline with asymmetric rings: two variants


def test_pegs_restrict_placements_and_solutions_meet_them():
    instance = instances.load("packing/iq_twist/challenge_30")
    record = run.run(instance, "placement", "highs", isolate=False)
    assert record.checked
    rings = {tuple(c): e["piece"] for e in record.solution["pieces"] for c in e.get("marks", {}).get("ring", [])}
    colours = {p.name: p.colour for p in instance.spec.pieces}
    assert instance.spec.requirements
    for peg in instance.spec.requirements:
        assert peg.cell in rings and colours[rings[peg.cell]] == peg.colour


def test_checker_rejects_a_peg_without_a_matching_ring():
    instance = instances.load("packing/iq_twist/challenge_30")
    record = run.run(instance, "placement", "highs", isolate=False)
    peg = instance.spec.requirements[0]
    bad = copy.deepcopy(record.solution)
    for entry in bad["pieces"]:
        if peg.cell in [tuple(c) for c in entry["cells"]]:
            entry["marks"]["ring"] = [c for c in entry["marks"]["ring"] if tuple(c) != peg.cell]
    errors = instance.family.check(instance.spec, bad)
    assert any("needs a ring" in e for e in errors) or any("not the piece's shape" in e for e in errors), errors


def test_mirror_image_pieces_are_renamed_by_reflections():
    spec = instances.load("packing/soma_cube").spec
    assert len(spec.symmetries) == 48  # 24 rotations + 24 reflections that swap A and B
    reflections = [g for g in spec.symmetries if not g.axis_map.is_rotation]
    assert reflections and all(g.rename("A") == "B" and g.rename("P") == "P" for g in reflections)


def test_face_cells_cover_each_face_once():
    size = (3, 3, 3)
    for face, fixed in (("front", (2, 0)), ("back", (2, 2)), ("left", (0, 0)), ("right", (0, 2)),
                        ("top", (1, 2)), ("bottom", (1, 0))):
        cells = face_cells(size, face, 3, 3)
        axis, value = fixed
        assert len(set(cells.values())) == 9 and all(c[axis] == value for c in cells.values())
    # front seen from outside: top-left is x=0, y=2; back seen from behind: top-left is x=2, y=2
    assert face_cells(size, "front", 3, 3)[(0, 0)] == (0, 2, 0)
    assert face_cells(size, "back", 3, 3)[(0, 0)] == (2, 2, 2)


CUBE_WITH_CLUES = """\
puzzle: packing
base: packing/cube_puzzler/example_pieces
faces:
  front: [[red, "?", "?"], ["?", "?", "?"], ["?", "?", blue]]
"""


def test_face_clues_are_met(write_instance):
    instance = instances.load(write_instance(CUBE_WITH_CLUES))
    record = run.run(instance, "placement", "highs", isolate=False)
    assert record.checked
    owner = {tuple(c): e["piece"] for e in record.solution["pieces"] for c in e["cells"]}
    assert owner[(0, 2, 0)] == "red" and owner[(2, 0, 0)] == "blue"


def test_pre_placed_piece_stays(write_instance):
    text = "puzzle: packing\nbase: packing/iq_twist/empty\nfixed:\n  - {piece: blue2, cells: [[0, 3], [1, 3], [2, 3], [3, 3]]}\n"
    instance = instances.load(write_instance(text))
    record = run.run(instance, "placement", "highs", isolate=False)
    assert record.checked
    blue2 = next(e for e in record.solution["pieces"] if e["piece"] == "blue2")
    assert sorted(map(tuple, blue2["cells"])) == [(0, 3), (1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("text, field, words", [
    ("pegs:\n  - {colour: purple, cell: [0, 0]}\n", "pegs[0].cell", "no piece has colour 'purple'"),
    ("pegs:\n  - {colour: red, cell: [8, 0]}\n", "pegs[0].cell", "off the board"),
    ("pegs:\n  - {colour: red, cell: [0, 0], colour2: x}\n", "pegs[0].colour2", "unknown field"),
    ("fixed:\n  - {piece: blue2, cells: [[0, 0], [1, 1]]}\n", "fixed[0].cells", "not a placement"),
    ("fixed:\n  - {piece: pink, cells: [[0, 0]]}\n", "fixed[0].piece", "no piece named"),
    ("faces:\n  front: [[red]]\n", "faces.front", "3D box"),
])
def test_bad_rules_in_a_challenge_file(write_instance, text, field, words):
    path = write_instance("puzzle: packing\nbase: packing/iq_twist/empty\n" + text)
    result = run_cli("solve", path)
    assert result.returncode == 2, result.stderr
    assert f"'{field}'" in result.stderr and words in result.stderr and result.stderr.count("\n") == 1


def test_bad_face_grid_shape(write_instance):
    path = write_instance("puzzle: packing\nbase: packing/cube_puzzler/example_pieces\n"
                          "faces:\n  back: [[red, blue]]\n")
    result = run_cli("solve", path)
    assert result.returncode == 2 and "'faces.back'" in result.stderr and "3 rows of 3" in result.stderr


def test_unknown_base(write_instance):
    path = write_instance("puzzle: packing\nbase: packing/iq_twist/emptyy\n")
    result = run_cli("solve", path)
    assert result.returncode == 2 and "'base'" in result.stderr


def test_checker_congruence_turns_and_mirrors_only_as_allowed():
    from pyomo_puzzles.families.packing.checker import _congruent
    from pyomo_puzzles.families.packing.spec import Shape

    # an L tetromino with a ring on its long arm's end: chiral, and the ring breaks its symmetry
    shape = Shape(cells=((0, 0), (1, 0), (2, 0), (2, 1)), marks=(("ring", ((0, 0),)),))
    turned = [(5, 5), (5, 6), (5, 7), (4, 7)]            # a quarter turn, moved
    mirrored = [(0, 0), (1, 0), (2, 0), (2, -1)]          # reflected in the x axis
    assert _congruent(turned, {"ring": [(5, 5)]}, shape, mirror_allowed=False)
    assert not _congruent(turned, {"ring": [(4, 7)]}, shape, mirror_allowed=False)  # ring at the other end
    assert not _congruent(turned, {}, shape, mirror_allowed=False)                  # ring missing
    assert not _congruent(mirrored, {"ring": [(0, 0)]}, shape, mirror_allowed=False)
    assert _congruent(mirrored, {"ring": [(0, 0)]}, shape, mirror_allowed=True)
    assert not _congruent([(0, 0), (1, 0), (2, 0), (3, 0)], {"ring": [(0, 0)]}, shape, mirror_allowed=True)


def test_an_edited_base_file_is_read_again(tmp_path):
    """Base files are kept between loads while unchanged; an edit must be seen."""
    base = tmp_path / "base.yaml"
    challenge = tmp_path / "challenge.yaml"
    challenge.write_text("puzzle: packing\nbase: base.yaml\n", encoding="utf-8")
    board = "puzzle: packing\nboard: {{size: [{}, 1]}}\npieces:\n  - {{name: I, cells: [[0, 0], [1, 0]], count: {}}}\n"
    base.write_text(board.format(4, 2), encoding="utf-8")
    assert instances.load(challenge).spec.size == (4, 1)
    base.write_text(board.format(6, 3) + "# longer\n", encoding="utf-8")
    assert instances.load(challenge).spec.size == (6, 1)
