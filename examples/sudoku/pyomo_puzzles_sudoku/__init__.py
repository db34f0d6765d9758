"""Sudoku, a puzzle family for pyomo-puzzles written outside it (registered on import)."""

from pathlib import Path

from pyomo_puzzles.contract import Family, Formulation, exact_cover, register

from pyomo_puzzles_sudoku import checker, cover, generate, grid, model_candidates, model_three_index, picture
from pyomo_puzzles_sudoku.schema import SCHEMA

FAMILY = register(Family(
    name="sudoku",
    summary="fill the grid so that every row, column and box holds each digit once",
    schema=SCHEMA,
    load=grid.load,
    formulations={
        "three_index": Formulation.from_module(
            "three_index", "the classic model: a binary per cell and digit (Bartlett et al. 2008)",
            model_three_index),
        "candidates": Formulation.from_module(
            "candidates", "binaries only for the digits the givens leave possible (this plugin's own)", model_candidates),
    },
    check=checker.check,
    draw=picture.draw,
    corruptions=checker.corruptions,
    generators=generate.GENERATORS,
    reference_solvers={"dlx": exact_cover.reference_solver(cover.options, cover.decode)},
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",
    size=lambda spec: (len(spec.givens), "givens"),
    describe=lambda spec: f"{spec.n}x{spec.n}, {len(spec.givens)} givens",
))
