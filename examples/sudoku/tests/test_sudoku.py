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

test_conformance = conformance_tests("sudoku", solvers=["highs", "cbc", "glpk", "scip", "cpsat"])


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
