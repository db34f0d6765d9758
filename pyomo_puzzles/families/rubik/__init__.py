"""Rubik's cubes: the 2x2x2 (and 3x3x3) solved to a fewest-moves sequence by integer programming."""

from pathlib import Path

from pyomo_puzzles.contract import Family, Formulation, register
from pyomo_puzzles.families.rubik import checker, distances, model_pieces, model_projections, model_seed, spec
from pyomo_puzzles.families.rubik.schema import SCHEMA


def _draw(puzzle, solution, path):
    """The picture hook; matplotlib is imported by the commands that draw, not by every run."""
    from pyomo_puzzles.families.rubik import picture  # matplotlib: only when drawing

    picture.draw(puzzle, solution, path)


FAMILY = register(Family(
    name="rubik",
    summary="a scrambled cube solved in the fewest moves (half-turn or quarter-turn metric)",
    schema=SCHEMA,
    load=spec.load,
    formulations={
        "seed": Formulation.from_module(
            "seed", "the published model (ILP Part 41): sticker colours, 12 quarter turns + no-op per step",
            model_seed),
        "pieces": Formulation.from_module(
            "pieces", "own design: fixed corner, binary corner pieces, one state copy per move, both metrics",
            model_pieces),
        "projections": Formulation.from_module(
            "projections", "own design: two corner-pattern networks sharing one move sequence, iterative deepening",
            model_projections),
    },
    default_formulation="projections",
    check=checker.check,
    objective=checker.moves_made,
    solution_key=lambda solution: tuple(solution["moves"]),
    symmetry_images=lambda spec, solution: [solution],
    draw=_draw,
    instances_dir=Path(__file__).parent / "instances",
    library=Path(__file__).parent / "library.yaml",
    size=lambda s: ((s.known_distance, f"{s.size}x{s.size}x{s.size} scramble depth ({s.metric})")
                  if s.known_distance is not None else None),
    generators={"rubik": distances.generate},
    known_objective=lambda s: s.known_distance,
    describe=lambda s: f"{s.size}x{s.size}x{s.size}, {s.metric}, step bound {s.steps}",
))
