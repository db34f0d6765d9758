"""Load an Instant Insanity instance: n cubes with coloured faces, a question, an order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyomo_puzzles.contract import merge_base
from pyomo_puzzles.contract import DataError
from pyomo_puzzles.families.instant_insanity.schema import SCHEMA


@dataclass(frozen=True)
class CubeSet:
    """n cubes; `cubes[i][f-1]` is the colour of face f of cube i+1."""

    colours: tuple[str, ...]
    cubes: tuple[tuple[str, ...], ...]
    question: str          # "all_different" or "all_equal"
    order: str             # "fixed" or "any"
    title: str = ""

    @property
    def n(self) -> int:
        return len(self.cubes)


MAX_CUBES = 1000
"""The most cubes an instance may have. The rotations model has about 100 n^2 nonzeros with
n colours for n cubes (measured: 300 cubes build in 5.7 s and peak at 393 MiB; 1,000 cubes
would take about a minute and 3.5 GiB)."""


def load(data: dict, path: Path) -> CubeSet:
    data = merge_base(data, path, SCHEMA)
    for required in ("colours", "cubes", "question"):
        if required not in data:
            raise DataError(path, required, "required field is missing")
    colours = tuple(data["colours"])
    cubes = tuple(tuple(cube) for cube in data["cubes"])
    if len(cubes) > MAX_CUBES:
        raise DataError(path, "cubes", f"{len(cubes):,} cubes, more than the {MAX_CUBES:,} this framework builds "
                        "in reasonable time and memory (the models grow with the square of the cubes)")
    for i, cube in enumerate(cubes):
        for f, colour in enumerate(cube):
            if colour not in colours:
                raise DataError(path, f"cubes[{i}][{f}]",
                                f"colour {colour!r} is not one of the colours ({', '.join(colours)})")
    if len(colours) != len(cubes):
        raise DataError(path, "colours", f"{len(colours)} colours for {len(cubes)} cubes: "
                                         "an instance has as many colours as cubes")
    if data["question"] == "all_equal" and len(colours) < 4:
        raise DataError(path, "question", "all_equal needs at least 4 colours (the four long "
                                          "sides show different colours)")
    return CubeSet(colours=colours, cubes=cubes, question=data["question"],
                   order=data.get("order", "fixed"), title=data.get("title", ""))
