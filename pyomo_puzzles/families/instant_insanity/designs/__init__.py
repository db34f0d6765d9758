"""Instant Insanity design: paint a set of cubes (or repaint one with the fewest faces) so
that it stacks into the towers asked for; Loeffler et al.'s design question 2 as optimisation."""

from pathlib import Path

from pyomo_puzzles.contract import Family, Formulation, register
from pyomo_puzzles.families.instant_insanity.designs import checker, generate, models, spec
from pyomo_puzzles.families.instant_insanity.designs.schema import SCHEMA


def _draw(puzzle, solution, path):
    from pyomo_puzzles.families.instant_insanity.designs import picture  # matplotlib: only when drawing

    picture.draw(puzzle, solution, path)


def _describe(s) -> str:
    towers = " and ".join(t.replace("_", "-") for t in s.towers)
    what = f"repaint {s.n} cubes" if s.repaint else f"paint {s.n} cubes"
    return f"{what} for {towers} towers{', every colour on every cube' if s.every_colour else ''}"


FAMILY = register(Family(
    name="instant_insanity_design",
    summary="repaint the fewest faces of n cubes so the set stacks into the towers asked for",
    schema=SCHEMA,
    load=spec.load,
    formulations={
        "rlt": Formulation(
            "rlt", "colour x rotation products by reformulation-linearisation (Sherali-Adams)",
            models.build_rlt, models.model_data, models.decode),
        "mccormick": Formulation(
            "mccormick", "colour x rotation products by McCormick's lower envelope",
            models.build_mccormick, models.model_data, models.decode),
    },
    default_formulation="rlt",
    check=checker.check,
    objective=checker.faces_repainted,
    draw=_draw,
    generators=generate.GENERATORS,
    size=lambda s: (s.n, f"cubes to repaint for {'+'.join(s.towers)} towers"),
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",
    describe=_describe,
))
