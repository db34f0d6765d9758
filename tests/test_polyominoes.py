"""Polyomino sets and the checkerboard-colouring proof (issue 29: instances that must be
proved infeasible), against published figures:
* free polyominoes of 1..7 cells: 1, 1, 2, 5, 12, 35, 108 (OEIS A000105);
* the 35 hexominoes tile no rectangle (Golomb, Polyominoes, 1965: 11 of them cover 4 + 2
  cells of a checkerboard, an odd number of +-2 terms cannot add up to 0);
* the 5 tetrominoes tile no rectangle (the T covers 3 + 1, the others 2 + 2);
* the 12 pentominoes tile 6x10 (2,339 ways up to symmetry), so no colouring forbids it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from pyomo_puzzles import api
from pyomo_puzzles.families.packing.generate import generate_polyominoes
from pyomo_puzzles.families.packing.polyominoes import colouring_proof, free_polyominoes

A000105 = [1, 1, 2, 5, 12, 35, 108]


def rectangle(width: int, height: int) -> set[tuple[int, int]]:
    return {(x, y) for x in range(width) for y in range(height)}


def test_free_polyominoes_are_counted_as_published():
    assert [len(free_polyominoes(n)) for n in range(1, 8)] == A000105
    for shape in free_polyominoes(6):
        assert len(set(shape)) == 6


@pytest.mark.parametrize("width,height", [(3, 70), (5, 42), (6, 35), (7, 30), (10, 21), (14, 15)])
def test_the_colouring_forbids_every_hexomino_rectangle(width, height):
    proof = colouring_proof(rectangle(width, height), free_polyominoes(6))
    assert proof is not None and "11 of 35 pieces unbalanced" in proof


def test_the_colouring_forbids_the_tetrominoes_and_allows_the_pentominoes():
    assert colouring_proof(rectangle(5, 4), free_polyominoes(4)) is not None
    assert colouring_proof(rectangle(10, 2), free_polyominoes(4)) is not None
    assert colouring_proof(rectangle(10, 6), free_polyominoes(5)) is None


def test_the_generator_writes_a_valid_instance_that_states_the_proof():
    data = generate_polyominoes(seed=1, order=6, width=15, height=14)
    assert data["known"] == {"solutions": 0} and "checkerboard" in data["notes"]
    instance = api.from_data(data, "hexominoes.yaml")
    assert len(instance.raw["pieces"]) == 35
    holes = generate_polyominoes(seed=3, order=5, width=8, height=8, holes=4)
    assert len(holes["board"]["holes"]) == 4 and "known" not in holes
    assert generate_polyominoes(seed=3, order=5, width=8, height=8, holes=4) == holes  # the seed decides


def test_an_integer_program_agrees_with_the_colouring_proof():
    """Two independent methods on the tetrominoes' 5x4 rectangle: the proof, and the integer program
    (its placement reduction and HiGHS)."""
    data = generate_polyominoes(seed=1, order=4, width=5, height=4)
    assert data["known"] == {"solutions": 0}
    record = api.solve(api.from_data(data, "tetrominoes.yaml"), "placement", "highs", time_limit=60)
    assert record.status == "infeasible"


def test_a_wrong_board_size_is_one_line():
    done = subprocess.run([sys.executable, "-m", "pyomo_puzzles", "generate", "polyominoes", "--order", "6",
                           "--width", "15", "--height", "15"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "210" in done.stderr


def test_copies_are_sets_of_the_pieces_and_the_board_must_fit_them():
    data = generate_polyominoes(seed=1, order=5, width=10, height=12, copies=2)
    assert len(data["pieces"]) == 12 and all(p["count"] == 2 for p in data["pieces"])
    assert "--copies 2" in data["source"] and "known" not in data  # 2 x 6x10: the colouring allows it
    with pytest.raises(Exception, match="120, the cells of 2 sets of the 12 free pentominoes"):
        generate_polyominoes(seed=1, order=5, width=10, height=6, copies=2)
