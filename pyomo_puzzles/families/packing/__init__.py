"""Packing puzzles: polyominoes on boards and polycubes in boxes (exact cover)."""

import importlib.util
from pathlib import Path

from pyomo_puzzles.contract import Family, Formulation, ReferenceSolver, exact_cover, register
from pyomo_puzzles.families.packing import (
    checker,
    generate,
    model_cell_assignment,
    model_coordinates,
    model_placement,
    orbits,
    spec,
)
from pyomo_puzzles.families.packing.schema import SCHEMA


def _draw(puzzle, solution, path):
    """The picture hook; matplotlib is imported by the commands that draw, not by every run."""
    from pyomo_puzzles.families.packing import picture  # matplotlib: only when drawing

    picture.draw(puzzle, solution, path)


def _dlx_run(instance, time_limit):
    from pyomo_puzzles.families.packing import dancing_links  # imports numba: only when used

    return dancing_links.run_record(instance, time_limit)


def _dlx_enumerate(instance, found):
    from pyomo_puzzles.families.packing import dancing_links  # see _dlx_run

    return dancing_links.enumerate_solutions(instance, found)


def _dlx_warm_up() -> None:
    """Import xcover, whose search numba compiles at import (0.5 s from its cache, 10 s without),
    its compiler's warnings held back (`exact_cover.xcover_module`)."""
    from pyomo_puzzles.families.packing import dancing_links  # noqa: F401 - the module, and then xcover

    exact_cover.xcover_module()


def _dlx_available() -> tuple[bool, str]:
    if importlib.util.find_spec("xcover") is None:
        return False, "Python package 'xcover' not installed (pip install 'pyomo-puzzles[dlx]')"
    from importlib.metadata import version  # 20 ms: only when asked whether dlx is available

    return True, f"xcover {version('xcover')}"


DLX = ReferenceSolver("dlx", "exact cover by dancing links (xcover), the puzzle solver's method",
                      _dlx_run, _dlx_available, enumerate=_dlx_enumerate, warm_up=_dlx_warm_up,
                      formulation="exact_cover")

FAMILY = register(Family(
    name="packing",
    summary="polyominoes on boards and polycubes in boxes, each cell covered once",
    schema=SCHEMA,
    load=spec.load,
    formulations={
        "placement": Formulation.from_module(
            "placement", "exact cover over the placements that survive a one-step lookahead",
            model_placement, prepare_enumeration=orbits.prepare_enumeration),
        "placement_unreduced": Formulation.from_module(
            "placement_unreduced", "exact cover over placements, without the one-step lookahead",
            model_placement, model_data=model_placement.model_data_unreduced,
            prepare_enumeration=orbits.prepare_enumeration),
        "cell_assignment": Formulation.from_module(
            "cell_assignment", "the published L-tromino model: element/cell binaries (ILP Part 16)",
            model_cell_assignment),
        "coordinates": Formulation.from_module(
            "coordinates", "the IQ Twist thesis CSP (Ao 2020) as a MILP: unit coordinates, orientations",
            model_coordinates),
        "coordinates_tight": Formulation.from_module(
            "coordinates_tight", "unit coordinates, distinct orientations, cell-cover and unit-reach rows",
            model_coordinates, build_model=model_coordinates.build_model_tight,
            model_data=model_coordinates.model_data_tight),
    },
    default_formulation="placement",
    check=checker.check,
    solution_key=orbits.solution_key,
    symmetry_images=orbits.symmetry_images,
    draw=_draw,
    variants=orbits.variants,
    generators=generate.GENERATORS,
    reference_solvers={"dlx": DLX},
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",
    describe=lambda s: f"board {'x'.join(map(str, s.size))}, {sum(p.count for p in s.pieces)} pieces, "
                       f"{len(s.placements)} placements ({s.unfiltered_placements} on the board), symmetry group of order {len(s.symmetries)}",
))
