"""Challenge generators: random coverings plus clues until the covering is unique.

Uniqueness is proved by the solver: enumeration with a limit of two coverings must end
with exactly one (outlines; ring variants of a symmetric piece are the same covering, as in
the IQ Twist booklet).
"""

from __future__ import annotations

import random
from pathlib import Path

import pyomo.environ as pyo

from pyomo_puzzles import api
from pyomo_puzzles.contract import UserError
from pyomo_puzzles.families.packing.polyominoes import colouring_proof, free_polyominoes
from pyomo_puzzles.families.packing.spec import FACE_SHAPE, face_cells

IQ_TWIST_BASE = "packing/iq_twist/empty"
IQ_TWIST_PEGS = {"yellow": 2, "blue": 2, "green": 2, "red": 1}
"""The pegs in the box: 2 yellow, 2 blue, 2 green, 1 red."""
CUBE_PUZZLER_PIECES = "packing/cube_puzzler/example_pieces"
ATTEMPTS = 60


def random_covering(instance: api.Instance, rng: random.Random, solver: str = "highs") -> dict:
    """A covering chosen by minimising random weights over the placements."""
    form = instance.family.formulations["placement"]
    model = api.build(instance, "placement")
    model.feasibility.deactivate()
    model.random_weights = pyo.Objective(expr=sum(rng.random() * model.x[p] for p in model.PLACEMENTS))
    outcome = api.solve_model(model, solver, time_limit=120)
    if not outcome.has_solution:
        raise UserError(f"{instance.name} has no covering ({outcome.status})")
    return form.decode(instance.spec, model)


def is_unique(data: dict, label: str, solver: str = "highs") -> bool:
    """True if the instance described by `data` has exactly one covering (proved)."""
    instance = api.from_data(data, label)
    result = api.count(instance, "placement", solver, limit=2, split=0)
    return result.complete and result.solutions == 1


def _iq_twist_pegs(covering: dict, spec, pegs: int, rng: random.Random) -> list[list[dict]]:
    """Random peg sets of size `pegs` on ring cells of the covering, within the peg box."""
    rings = [(spec.piece(e["piece"]).colour, tuple(c)) for e in covering["pieces"] for c in e.get("marks", {}).get("ring", [])]
    options = []
    for _ in range(ATTEMPTS):
        rng.shuffle(rings)
        chosen, left = [], dict(IQ_TWIST_PEGS)
        for colour, cell in rings:
            if len(chosen) < pegs and left.get(colour, 0) > 0:
                left[colour] -= 1
                chosen.append({"colour": colour, "cell": list(cell)})
        if len(chosen) == pegs:
            options.append(sorted(chosen, key=lambda p: (p["cell"][1], p["cell"][0])))
    return options


def generate_iq_twist(seed: int, pegs: int = 4, solver: str = "highs", **_: object) -> dict:
    """An IQ Twist challenge with `pegs` pegs whose covering is unique."""
    if not 1 <= pegs <= sum(IQ_TWIST_PEGS.values()):
        raise UserError(f"--pegs must be between 1 and {sum(IQ_TWIST_PEGS.values())} (the pegs in the box)")
    rng = random.Random(seed)
    base = api.load(IQ_TWIST_BASE)
    for _ in range(ATTEMPTS):
        covering = random_covering(base, rng, solver)
        for peg_set in _iq_twist_pegs(covering, base.spec, pegs, rng):
            data = {"puzzle": "packing", "base": IQ_TWIST_BASE,
                    "title": f"IQ Twist generated challenge (seed {seed}, {pegs} pegs)",
                    "source": f"pyomo-puzzles generate iq_twist --pegs {pegs} --seed {seed}",
                    "pegs": peg_set, "known": {"solutions": 1}}
            if is_unique(data, "generated.yaml", solver):
                return data
    raise UserError(f"no unique IQ Twist challenge with {pegs} pegs found for seed {seed}; "
                    "try more pegs or another seed")


def _faces_of(covering: dict, spec, names=("front", "back")) -> dict:
    colour_at = {tuple(c): spec.piece(e["piece"]).colour for e in covering["pieces"] for c in e["cells"]}
    faces = {}
    for name in names:
        rows, cols = spec.size[FACE_SHAPE[name][0]], spec.size[FACE_SHAPE[name][1]]
        grid = [["?"] * cols for _ in range(rows)]
        for (r, c), cell in face_cells(spec.size, name, rows, cols).items():
            grid[r][c] = colour_at[cell]
        faces[name] = grid
    return faces


def generate_cube_puzzler(seed: int, unknown: int = 0, pieces: str | None = None,
                          solver: str = "highs", **_: object) -> dict:
    """A Cube Puzzler style challenge: front and back face colours with a unique covering,
    then up to `unknown` squares hidden ('?') as long as the covering stays unique."""
    rng = random.Random(seed)
    base_name = pieces or CUBE_PUZZLER_PIECES
    base = api.load(base_name)
    if base.spec.dim != 3:
        raise UserError(f"{base_name}: Cube Puzzler pieces must fill a 3D box")
    base_ref = str(Path(base_name).resolve()) if Path(base_name).is_file() else base_name
    for _ in range(ATTEMPTS):
        faces = _faces_of(random_covering(base, rng, solver), base.spec)
        data = {"puzzle": "packing", "base": base_ref,
                "title": f"Cube Puzzler style challenge (seed {seed})",
                "source": f"pyomo-puzzles generate cube_puzzler --seed {seed} --unknown {unknown}",
                "faces": faces, "known": {"solutions": 1}}
        if not is_unique(data, "generated.yaml", solver):
            continue
        squares = [(name, r, c) for name, grid in faces.items() for r in range(len(grid)) for c in range(len(grid[0]))]
        rng.shuffle(squares)
        hidden = 0
        for name, r, c in squares:
            if hidden >= unknown:
                break
            kept = faces[name][r][c]
            faces[name][r][c] = "?"
            if is_unique(data, "generated.yaml", solver):
                hidden += 1
            else:
                faces[name][r][c] = kept
        if hidden < unknown:
            continue
        return data
    raise UserError(f"no unique challenge with {unknown} unknown squares found for seed {seed}; "
                    "try fewer unknown squares or another seed")


ORDER_NAMES = {1: "monominoes", 2: "dominoes", 3: "trominoes", 4: "tetrominoes", 5: "pentominoes",
               6: "hexominoes", 7: "heptominoes"}


def generate_polyominoes(seed: int, order: int = 5, width: int = 10, height: int = 6, holes: int = 0,
                         copies: int = 1, **_: object) -> dict:
    """Every free polyomino of `order` cells, `copies` times each, on a `width` x `height`
    board with `holes` cells left out at random (drawn from `seed`). Where the checkerboard
    colouring forbids a tiling, the instance says so (``known: {solutions: 0}``) with the
    argument."""
    if order not in ORDER_NAMES:
        raise UserError(f"--order must be between 1 and {max(ORDER_NAMES)}")
    if copies < 1:
        raise UserError("--copies must be at least 1")
    shapes = free_polyominoes(order)
    cells = [(x, y) for y in range(height) for x in range(width)]
    needed = order * len(shapes) * copies
    if width * height - holes != needed:
        sets = f"{copies} sets of the " if copies > 1 else "the "
        raise UserError(f"--width x --height less --holes must be {needed}, the cells of {sets}"
                        f"{len(shapes)} free {ORDER_NAMES[order]} (it is {width * height - holes})")
    rng = random.Random(seed)
    left_out = sorted(rng.sample(cells, holes), key=lambda c: (c[1], c[0])) if holes else []
    board = {"size": [width, height]}
    if left_out:
        board["holes"] = [list(c) for c in left_out]
    name = ORDER_NAMES[order]
    data = {"puzzle": "packing",
            "title": (f"{copies} sets of the" if copies > 1 else "The") + f" {len(shapes)} free {name} on a "
                     f"{width}x{height} board" + (f" with {holes} holes" if holes else ""),
            "source": f"generated: pyomo-puzzles generate polyominoes --order {order} --width {width} "
                      f"--height {height} --holes {holes}" + (f" --copies {copies}" if copies > 1 else "")
                      + f" --seed {seed}",
            "board": board,
            "pieces": [{"name": f"{name[0].upper()}{i + 1:02d}", "cells": [list(c) for c in shape],
                        **({"count": copies} if copies > 1 else {})}
                       for i, shape in enumerate(shapes)],
            "allow_reflections": True}
    proof = colouring_proof(set(cells) - set(left_out), shapes * copies)
    if proof is not None:
        data["notes"] = f"No tiling exists: {proof}."
        data["known"] = {"solutions": 0}
    return data


GENERATORS = {"iq_twist": generate_iq_twist, "cube_puzzler": generate_cube_puzzler,
              "polyominoes": generate_polyominoes}
