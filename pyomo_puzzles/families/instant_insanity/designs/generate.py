"""Seeded design instances: n cubes painted at random, to be repainted as little as possible
so that the set stacks into the towers asked for.

With four cubes and every colour on every cube (the paper's setting) the generator writes the
answer of the exhaustive census (`design.fewest_repaints`) into `known`; larger sets have no
such second method here, and their reference answers come from the solvers that agree.
"""

from __future__ import annotations

import random

from pyomo_puzzles.contract import UserError
from pyomo_puzzles.families.instant_insanity.designs.schema import TOWER_KINDS
from pyomo_puzzles.families.instant_insanity.designs.spec import MAX_CUBES
from pyomo_puzzles.families.instant_insanity.generate import colour_names

TOWER_CHOICES = {"both": TOWER_KINDS, "all_different": ("all_different",), "all_equal": ("all_equal",)}


def instant_insanity_design(seed: int = 1, cubes: int = 4, towers: str = "both",
                            every_colour: bool | None = None, **_: object) -> dict:
    """Random starting cubes (`cubes` of them, as many colours); every_colour defaults to
    true up to 6 cubes."""
    if towers not in TOWER_CHOICES:
        raise UserError(f"option towers must be one of {', '.join(TOWER_CHOICES)}, not {towers!r}")
    if not 2 <= cubes <= MAX_CUBES:
        raise UserError(f"--cubes must be from 2 to {MAX_CUBES}")
    every_colour = cubes <= 6 if every_colour is None else every_colour
    kinds = TOWER_CHOICES[towers]
    rng = random.Random(seed)
    colours = colour_names(cubes)
    start = [[rng.choice(colours) for _ in range(6)] for _ in range(cubes)]
    command = (f"pyomo-puzzles generate instant_insanity_design --cubes {cubes} --seed {seed}"
               f" --option towers={towers}" + ("" if every_colour == (cubes <= 6) else
                                               f" --option every_colour={str(every_colour).lower()}"))
    data = {"puzzle": "instant_insanity_design",
            "title": f"repaint {cubes} random cubes for {' and '.join(k.replace('_', '-') for k in kinds)} towers",
            "source": f"generated: {command}", "colours": colours, "cubes": start,
            "towers": list(kinds), "every_colour": every_colour}
    if cubes == 4 and every_colour:
        from pyomo_puzzles.families.instant_insanity import design  # numpy census: only for four cubes

        data["known"] = {"solvable": True, "objective": design.fewest_repaints(start, kinds)["repaints"]}
    return data


GENERATORS = {"instant_insanity_design": instant_insanity_design}
