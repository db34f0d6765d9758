"""Load a Rubik's cube instance: the scrambled sticker state, the metric, the step bound."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pyomo_puzzles.contract import DataError
from pyomo_puzzles.families.rubik import cube

GODS_NUMBER = {(2, "htm"): 11, (2, "qtm"): 14, (3, "htm"): 20, (3, "qtm"): 26}


@dataclass(frozen=True)
class CubeState:
    size: int
    state: tuple[int, ...]   # colour (face index 0..5 = U R F D L B) of each sticker
    metric: str
    steps: int
    scramble: tuple[str, ...] | None = None
    title: str = ""
    known_distance: int | None = None

    def array(self) -> np.ndarray:
        return np.array(self.state, dtype=np.int8)


def _from_facelets(text: str, n: int, path: Path) -> np.ndarray:
    letters = "".join(text.split())
    if len(letters) != 6 * n * n:
        raise DataError(path, "state", f"has {len(letters)} stickers, a {n}x{n}x{n} cube has {6 * n * n}")
    bad = sorted(set(letters) - set(cube.FACES))
    if bad:
        raise DataError(path, "state", f"unknown colour letter {bad[0]!r} (use the face letters U R F D L B)")
    counts = Counter(letters)
    wrong = [f for f in cube.FACES if counts[f] != n * n]
    if wrong:
        raise DataError(path, "state", f"colour {wrong[0]} appears {counts[wrong[0]]} times, not {n * n}")
    state = np.array([cube.FACES.index(ch) for ch in letters], dtype=np.int8)
    problem = cube.impossible(state, n)
    if problem:
        raise DataError(path, "state", f"is not a reachable cube state: {problem}")
    return state


def load(data: dict, path: Path) -> CubeState:
    n, metric = data["size"], data["metric"]
    if ("scramble" in data) == ("state" in data):
        raise DataError(path, "scramble", "give exactly one of 'scramble' and 'state'")
    scramble = None
    if "scramble" in data:
        try:
            scramble = tuple(cube.parse(data["scramble"]))
        except ValueError as error:
            raise DataError(path, "scramble", str(error)) from None
        state = cube.apply(cube.solved(n), list(scramble), n)
    else:
        state = _from_facelets(data["state"], n, path)
    gods_number = GODS_NUMBER[(n, metric)]
    if data.get("steps", 0) > gods_number:
        raise DataError(path, "steps", f"{data['steps']} is more than God's number ({gods_number} moves in "
                        f"{metric} on the {n}x{n}x{n}): no state needs more, and every step enlarges the model")
    return CubeState(size=n, state=tuple(int(c) for c in state), metric=metric,
                     steps=data.get("steps", gods_number), scramble=scramble,
                     title=data.get("title", ""), known_distance=(data.get("known") or {}).get("distance"))
