"""Packing puzzles: polyominoes on boards and polycubes in boxes (exact cover)."""

from pathlib import Path

import importlib.util

from pyomo_puzzles.core.registry import Family, Formulation, ReferenceSolver, register
from pyomo_puzzles.families.packing import (
    checker,
    generate,
    model_cell_assignment,
    model_placement,
    orbits,
    picture,
    spec,
)
from pyomo_puzzles.families.packing.schema import SCHEMA

def _dlx_run(instance, time_limit):
    from pyomo_puzzles.families.packing import dancing_links  # imports numba: only when used

    return dancing_links.run_record(instance, time_limit)


def _dlx_available() -> tuple[bool, str]:
    if importlib.util.find_spec("xcover") is None:
        return False, "Python package 'xcover' not installed"
    from importlib.metadata import version

    return True, f"xcover {version('xcover')}"


DLX = ReferenceSolver("dlx", "exact cover by dancing links (xcover), the puzzle solver's method",
                      _dlx_run, _dlx_available)

FAMILY = register(Family(
    name="packing",
    summary="polyominoes on boards and polycubes in boxes, each cell covered once",
    schema=SCHEMA,
    load=spec.load,
    formulations={
        "placement": Formulation(
            name="placement",
            summary="exact cover over all placements of the pieces",
            build_model=model_placement.build_model,
            model_data=model_placement.model_data,
            decode=model_placement.decode,
            solution_vars=model_placement.solution_vars,
            partitions=model_placement.partitions,
            prepare_enumeration=orbits.prepare_enumeration,
        ),
        "cell_assignment": Formulation(
            name="cell_assignment",
            summary="the published L-tromino model: element/cell binaries (ILP Part 16)",
            build_model=model_cell_assignment.build_model,
            model_data=model_cell_assignment.model_data,
            decode=model_cell_assignment.decode,
            applies_to=model_cell_assignment.applies_to,
        ),
        "coordinates": Formulation(
            name="coordinates",
            summary="the IQ Twist thesis CSP (Ao 2020) as a MILP: unit coordinates, orientations",
            build_model=(model_coordinates := __import__(  # binds the module for the entries below
                "pyomo_puzzles.families.packing.model_coordinates", fromlist=["build_model"])).build_model,
            model_data=model_coordinates.model_data,
            decode=model_coordinates.decode,
            applies_to=model_coordinates.applies_to,
        ),
        "coordinates_tight": Formulation(
            name="coordinates_tight",
            summary="unit coordinates, distinct orientations, cell-cover and unit-reach rows",
            build_model=model_coordinates.build_model_tight,
            model_data=model_coordinates.model_data_tight,
            decode=model_coordinates.decode,
            applies_to=model_coordinates.applies_to,
        ),
    },
    default_formulation="placement",
    check=checker.check,
    solution_key=orbits.solution_key,
    symmetry_images=orbits.symmetry_images,
    draw=picture.draw,
    variants=orbits.variants,
    generators=generate.GENERATORS,
    reference_solvers={"dlx": DLX},
    size=lambda s: (len(s.cells), "cells"),
    instances_dir=Path(__file__).parent / "instances",
    describe=lambda s: f"board {'x'.join(map(str, s.size))}, {sum(p.count for p in s.pieces)} pieces, "
                       f"{len(s.placements)} placements, symmetry group of order {len(s.symmetries)}",
))
