"""Packing puzzles: polyominoes on boards and polycubes in boxes (exact cover)."""

from pathlib import Path

from pyomo_puzzles.core.registry import Family, Formulation, register
from pyomo_puzzles.families.packing import (
    checker,
    model_cell_assignment,
    model_placement,
    orbits,
    picture,
    spec,
)
from pyomo_puzzles.families.packing.schema import SCHEMA

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
    },
    default_formulation="placement",
    check=checker.check,
    solution_key=orbits.solution_key,
    symmetry_images=orbits.symmetry_images,
    draw=picture.draw,
    variants=orbits.variants,
    instances_dir=Path(__file__).parent / "instances",
    describe=lambda s: f"board {'x'.join(map(str, s.size))}, {sum(p.count for p in s.pieces)} pieces, "
                       f"{len(s.placements)} placements, symmetry group of order {len(s.symmetries)}",
))
