"""Instant Insanity: stack n coloured cubes so the four long sides meet a colour rule."""

from pathlib import Path

from pyomo_puzzles.contract import Family, Formulation, register
from pyomo_puzzles.families.instant_insanity import (
    checker,
    generate,
    model_opposite_pairs,
    model_rotations,
    orbits,
    spec,
)
from pyomo_puzzles.families.instant_insanity.schema import SCHEMA


def _draw(puzzle, solution, path):
    """The picture hook; matplotlib is imported by the commands that draw, not by every run."""
    from pyomo_puzzles.families.instant_insanity import picture  # matplotlib: only when drawing

    picture.draw(puzzle, solution, path)


def _design(**question):
    from pyomo_puzzles.families.instant_insanity import design  # the census tables: only for design questions

    return design.run(**question)


FAMILY = register(Family(
    name="instant_insanity",
    summary="n coloured cubes in a tower: every long side all different colours, or each one colour",
    schema=SCHEMA,
    load=spec.load,
    formulations={
        "rotations": Formulation.from_module(
            "rotations", "the paper's model (Loeffler et al. 2020): one of 24 rotations per cube",
            model_rotations, prepare_enumeration=orbits.prepare_enumeration),
        "opposite_pairs": Formulation.from_module(
            "opposite_pairs", "the classic graph model: two edge-disjoint subgraphs of opposite-face pairs",
            model_opposite_pairs),
    },
    default_formulation="rotations",
    check=checker.check,
    solution_key=orbits.solution_key,
    symmetry_images=orbits.symmetry_images,
    draw=_draw,
    generators=generate.GENERATORS,
    design=_design,
    size=lambda s: (s.n, "cubes"),
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",
    describe=lambda s: f"{s.n} cubes, {len(s.colours)} colours, {s.question.replace('_', '-')}, "
                       f"cube order {s.order}",
))
