"""Tests of the Sudoku plugin, against truth computed without it (`backtracking.py`, the
published solution of the Wikipedia grid, the 288 4x4 grids of OEIS A107739), and the
conformance kit of pyomo-puzzles."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import pyomo_puzzles as pp
from pyomo_puzzles.testing import conformance_tests

from backtracking import solutions

INSTANCES = sorted((Path(__file__).parents[1] / "pyomo_puzzles_sudoku" / "instances").glob("*.yaml"))
WIKIPEDIA_SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"

# The kit on the hand-made grids; the benchmark library's 25x25 and 36x36 grids (instances/library/) take
# seconds to minutes each and are the library's business (`pyomo-puzzles library`).
test_conformance = conformance_tests("sudoku", instances=[f"sudoku/{path.stem}" for path in INSTANCES],
                                     solvers=["highs", "cbc", "glpk", "scip", "cpsat"])


@pytest.mark.parametrize("path", INSTANCES, ids=[p.stem for p in INSTANCES])
def test_stated_answers_are_those_of_an_independent_search(path):
    data = yaml.safe_load(path.read_text())
    found = solutions(data["grid"], box=data.get("box", 3), up_to=1000)
    assert len(found) == data["known"]["solutions"]
    assert sum(ch not in ".0" for row in data["grid"] for ch in row) == data["known"]["givens"]
    if len(found) == 1:
        assert "".join(data["known"]["solution"]) == found[0]


def test_the_wikipedia_grid_has_its_published_solution():
    for formulation in ("three_index", "candidates"):
        record = pp.solve("sudoku/wikipedia", formulation=formulation, isolate=False)
        assert record.status == "optimal" and record.checked
        assert "".join(record.solution["grid"]) == WIKIPEDIA_SOLUTION


@pytest.mark.parametrize("formulation", ["three_index", "candidates"])
def test_both_formulations_count_the_288_shidoku_grids(formulation):
    result = pp.count("sudoku/shidoku_empty", formulation=formulation)
    assert result.complete and result.solutions == 288


def test_seventeen_givens_are_unique_solutions_for_both_formulations():
    for formulation in ("three_index", "candidates"):
        result = pp.count("sudoku/royle17_1", formulation=formulation)
        assert result.complete and result.solutions == 1


def test_candidates_keep_fewer_binaries_than_the_three_index_model():
    from pyomo_puzzles_sudoku import model_candidates

    spec = pp.load("sudoku/royle17_1").spec
    kept = sum(len(digits) for digits in model_candidates.candidates(spec).values())
    assert kept < 729 // 2  # 729 binaries in the three-index model


@pytest.mark.parametrize("row, message", [
    ('"53..7..."', r"field 'grid\[0\]': has 8 cells, not 9"),
    ('"53..7...5"', r"field 'grid\[0\]': digit 5 is given twice in row 1"),
], ids=["short row", "digit twice"])
def test_a_wrong_grid_names_the_row(tmp_path, row, message):
    from pyomo_puzzles.errors import DataError

    path = tmp_path / "wrong.yaml"
    path.write_text((INSTANCES[0].parent / "wikipedia.yaml").read_text().replace('"53..7...."', row))
    with pytest.raises(DataError, match=message):
        pp.load(path)


def _valid_grid(rows: list[str], box: int) -> bool:
    """Every row, column and box holds each of the n symbols once (counted here, not by the plugin)."""
    n = box * box
    units = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    units += [[(br * box + r, bc * box + c) for r in range(box) for c in range(box)]
              for br in range(box) for bc in range(box)]
    return all(len({rows[r][c] for r, c in unit}) == n and "." not in {rows[r][c] for r, c in unit}
               for unit in units)


@pytest.mark.parametrize("box", [2, 3, 4, 5, 6])
def test_generated_complete_grids_are_valid_and_fixed_by_the_seed(box):
    import random

    from pyomo_puzzles_sudoku.generate import complete_grid
    from pyomo_puzzles_sudoku.grid import symbol

    grids = [complete_grid(box, random.Random(seed)) for seed in (1, 1, 2)]
    rows = [["".join(symbol(v) for v in row) for row in grid] for grid in grids]
    assert all(_valid_grid(r, box) for r in rows)
    assert rows[0] == rows[1] and rows[0] != rows[2]


def test_a_generated_16x16_grid_keeps_its_givens_and_is_solved_and_checked():
    from pyomo_puzzles_sudoku.generate import sudoku

    data = sudoku(seed=5, box=4, givens=150)
    assert data["box"] == 4 and len(data["grid"]) == 16
    assert sum(ch != "." for row in data["grid"] for ch in row) == data["known"]["givens"] == 150
    found = solutions(data["grid"], box=4, up_to=1)  # the independent search completes it
    assert len(found) == 1 and _valid_grid([found[0][16 * r:16 * r + 16] for r in range(16)], 4)
    instance = pp.from_data(data, "generated.yaml")
    for formulation in ("three_index", "candidates"):
        record = pp.solve(instance, formulation=formulation, solver="highs", isolate=False)
        assert record.status == "optimal" and record.checked
        assert all(given == "." or given == filled
                   for row, solved in zip(data["grid"], record.solution["grid"]) for given, filled in zip(row, solved))


def test_letters_are_the_digits_above_nine_and_checked_against_the_box():
    from pyomo_puzzles.errors import DataError
    from pyomo_puzzles_sudoku.generate import sudoku

    data = sudoku(seed=1, box=4, givens=256)  # the whole grid: its letters A-G are the digits 10-16
    assert {ch for row in data["grid"] for ch in row} == set("123456789ABCDEFG")
    spec = pp.from_data(data, "full.yaml").spec
    assert sorted(set(spec.givens.values())) == list(range(1, 17))
    wrong = {**data, "box": 3, "grid": [row[:9] for row in data["grid"][:9]]}
    wrong["grid"][0] = "ABCDEFGH1"
    with pytest.raises(DataError, match=r"field 'grid\[0\]': digit A is not one of 123456789"):
        pp.from_data(wrong, "wrong.yaml")
    whole36 = sudoku(seed=1, box=6, givens=1296)  # 36x36: A-Z are 10-35 and a is 36
    assert {ch for row in whole36["grid"] for ch in row} == set("123456789ABCDEFGHIJKLMNOPQRSTUVWXYZa")
    assert sorted(set(pp.from_data(whole36, "full36.yaml").spec.givens.values())) == list(range(1, 37))


def test_the_generator_refuses_a_box_or_givens_it_cannot_make():
    from pyomo_puzzles.contract import UserError
    from pyomo_puzzles_sudoku.generate import sudoku

    with pytest.raises(UserError, match="option box must be one of 2, 3, 4, 5, 6, not 7"):
        sudoku(box=7)
    with pytest.raises(UserError, match="option givens must be between 0 and 81 for box 3, not 82"):
        sudoku(box=3, givens=82)
    with pytest.raises(UserError, match=r"option changed must be between 0 and the givens \(5\), not 6"):
        sudoku(box=3, givens=5, changed=6)


def test_a_grid_with_changed_givens_is_answered_alike_by_the_search_and_both_formulations():
    """`changed=1` gives one given another digit that clashes with no other given; whether the
    grid still has a completion is then the question: the independent backtracking search and
    HiGHS on both formulations must answer it alike (seed 1: none; seed 2: several completions)."""
    from pyomo_puzzles_sudoku.generate import sudoku

    for seed, solvable in ((1, False), (2, True)):
        plain, changed = sudoku(seed=seed, box=3, givens=36), sudoku(seed=seed, box=3, givens=36, changed=1)
        differ = [(r, c) for r in range(9) for c in range(9) if plain["grid"][r][c] != changed["grid"][r][c]]
        assert len(differ) == 1 and changed["grid"][differ[0][0]][differ[0][1]] != "."
        for r in range(9):  # no two givens of a row, column or box clash
            units = ([changed["grid"][r][c] for c in range(9)], [changed["grid"][c][r] for c in range(9)],
                     [changed["grid"][r // 3 * 3 + i][r % 3 * 3 + j] for i in range(3) for j in range(3)])
            assert all(len([d for d in unit if d != "."]) == len({d for d in unit if d != "."}) for unit in units)
        assert changed["known"] == {"givens": 36} and "--option changed=1" in changed["source"]
        assert bool(solutions(changed["grid"], box=3, up_to=1)) is solvable
        instance = pp.from_data(changed, "changed.yaml")
        for formulation in ("three_index", "candidates"):
            record = pp.solve(instance, formulation=formulation, solver="highs", isolate=False)
            assert record.status == ("optimal" if solvable else "infeasible"), (seed, formulation)
            assert record.checked is (True if solvable else None)


def test_the_library_s_counting_questions_agree_with_the_independent_search():
    """The catalogue's counting questions (how many completions a sparse 9x9 grid has): the
    smallest recounted here by the plain-Python backtracking search (no solver, no plugin code),
    and each answered by SCIP's counter and by dancing links, independently of each other."""
    package = Path(__file__).parents[1] / "pyomo_puzzles_sudoku"
    catalogue = yaml.safe_load((package / "library.yaml").read_text())["instances"]
    counts = [item for item in catalogue if item.get("question") == "count"]
    assert len(counts) >= 2 and "hard" in {item["band"] for item in counts}
    smallest = min(counts, key=lambda item: item["answer"]["solutions"])
    data = yaml.safe_load((package / "instances" / (smallest["name"].removeprefix("sudoku/") + ".yaml")).read_text())
    assert len(solutions(data["grid"], box=data["box"], up_to=10 ** 6)) == smallest["answer"]["solutions"]
    for item in counts:
        assert any(s.startswith("dlx/") for s in item["sources"]), item["name"]
        assert any(s.startswith("scip/") and "/native" in s for s in item["sources"]), item["name"]
