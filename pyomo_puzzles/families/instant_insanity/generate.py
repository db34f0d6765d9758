"""Seeded random n-cube instances: solvable ones with a planted tower, unsolvable ones
proved so by a solver.

Solvable: each long side gets a random permutation of the n colours (so the tower
exists), tops and bottoms random colours, then every cube is turned by a random rotation
so the planted tower is hidden. Unsolvable: every colour on exactly 6 faces (as balanced
as a solvable instance looks), faces shuffled, redrawn until a solver proves that no tower
exists (the `opposite_pairs` formulation, whose infeasibility proofs are the quickest). The
proof gets `proof_limit` seconds a draw (default 60): enough up to about 48 cubes; larger
unsolvable towers, the hard band of the benchmark library, need more.
"""

from __future__ import annotations

import random

from pyomo_puzzles.contract import UserError
from pyomo_puzzles.families.instant_insanity import geometry
from pyomo_puzzles.families.instant_insanity.spec import MAX_CUBES

COLOUR_NAMES = ("red", "green", "white", "blue", "yellow", "orange", "purple", "black", "brown",
                "pink", "grey", "cyan")
MAX_DRAWS = 200
PROOF_LIMIT = 60.0
"""Seconds a solver gets to prove a draw unsolvable (option proof_limit)."""


def colour_names(n: int) -> list[str]:
    return list(COLOUR_NAMES[:n]) if n <= len(COLOUR_NAMES) else [f"c{k}" for k in range(1, n + 1)]


def _scrambled(faces: list[str], rng: random.Random) -> list[str]:
    """The same cube, relabelled as seen after a random rotation."""
    rotation = rng.choice(geometry.rotations())
    return [faces[f - 1] for f in rotation]


def planted(n: int, rng: random.Random) -> list[list[str]]:
    colours = colour_names(n)
    sides = [rng.sample(colours, n) for _ in geometry.SIDES]
    cubes = []
    for level in range(n):
        faces = [sides[s][level] for s in range(4)] + [rng.choice(colours), rng.choice(colours)]
        cubes.append(_scrambled(faces, rng))
    return cubes


def balanced(n: int, rng: random.Random) -> list[list[str]]:
    faces = [c for c in colour_names(n) for _ in range(6)]
    rng.shuffle(faces)
    return [faces[6 * i:6 * i + 6] for i in range(n)]


def instant_insanity(seed: int = 1, cubes: int = 4, unsolvable: bool = False,
                     solver: str = "highs", proof_limit: float = PROOF_LIMIT, **_: object) -> dict:
    """An instance of `cubes` cubes (all-different question, cube order fixed)."""
    if cubes < 2:
        raise UserError("--cubes must be at least 2")
    if proof_limit <= 0:
        raise UserError(f"option proof_limit must be positive seconds, not {proof_limit}")
    if cubes > MAX_CUBES:  # the instance would be refused when loaded; drawing it could take hours
        raise UserError(f"--cubes must be at most {MAX_CUBES:,}")
    rng = random.Random(seed)
    command = f"pyomo-puzzles generate instant_insanity --cubes {cubes} --seed {seed}"
    data = {"puzzle": "instant_insanity",
            "title": f"random {cubes}-cube instance ({'unsolvable' if unsolvable else 'solvable'})",
            "source": f"generated: {command}{' --unsolvable' if unsolvable else ''}"
                      f"{f' --option proof_limit={proof_limit:g}' if proof_limit != PROOF_LIMIT else ''}",
            "colours": colour_names(cubes), "question": "all_different", "order": "fixed"}
    if not unsolvable:
        return {**data, "cubes": planted(cubes, rng), "known": {"solvable": True}}
    from pyomo_puzzles import api  # only for unsolvable towers: a planted one needs no solver

    for _ in range(MAX_DRAWS):
        candidate = {**data, "cubes": balanced(cubes, rng)}
        instance = api.from_data(candidate, "generated.yaml")
        record = api.solve(instance, "opposite_pairs", solver, time_limit=proof_limit, isolate=False)
        if record.status == "infeasible":
            return {**candidate, "known": {"solvable": False}}
        if record.status == "time_limit":
            raise UserError(f"could not decide a candidate within {proof_limit:g} s: raise option proof_limit")
        if record.status != "optimal":
            raise UserError(f"could not decide a candidate ({record.status}: {record.message})")
    raise UserError(f"no unsolvable instance among {MAX_DRAWS} random draws; try another seed")


GENERATORS = {"instant_insanity": instant_insanity}
