"""Load an Instant Insanity design instance: the cubes to start from (or how many to design),
the towers the set must have, and whether every cube shows every colour."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pyomo_puzzles.contract import DataError, merge_base
from pyomo_puzzles.families.instant_insanity.designs.schema import SCHEMA

MAX_CUBES = 12
"""The most cubes a design instance may have: the formulations grow with the square of the
cubes (n colours for n cubes), and a few cubes more than this are already out of reach."""


@dataclass(frozen=True)
class DesignSpec:
    """`start[i][f-1]` is the colour face f of cube i+1 starts with (empty: design from nothing)."""

    colours: tuple[str, ...]
    start: tuple[tuple[str, ...], ...]
    n: int
    towers: tuple[str, ...]
    every_colour: bool
    title: str = ""

    @property
    def repaint(self) -> bool:
        return bool(self.start)


def load(data: dict, path: Path) -> DesignSpec:
    data = merge_base(data, path, SCHEMA)
    for required in ("colours", "towers"):
        if required not in data:
            raise DataError(path, required, "required field is missing")
    colours = tuple(data["colours"])
    start = tuple(tuple(cube) for cube in data.get("cubes", ()))
    if start and "number_of_cubes" in data:
        raise DataError(path, "number_of_cubes", "give the cubes to start from or their number, not both")
    if not start and "number_of_cubes" not in data:
        raise DataError(path, "cubes", "required field is missing (or give number_of_cubes)")
    n = len(start) or data["number_of_cubes"]
    if n > MAX_CUBES:
        raise DataError(path, "cubes" if start else "number_of_cubes",
                        f"{n} cubes, more than the {MAX_CUBES} a design instance may have")
    for i, cube in enumerate(start):
        for f, colour in enumerate(cube):
            if colour not in colours:
                raise DataError(path, f"cubes[{i}][{f}]",
                                f"colour {colour!r} is not one of the colours ({', '.join(colours)})")
    if len(colours) != n:
        raise DataError(path, "colours", f"{len(colours)} colours for {n} cubes: "
                                         "a design instance has as many colours as cubes")
    towers = tuple(sorted(data["towers"]))
    if "all_equal" in towers and n < 4:
        raise DataError(path, "towers", "all_equal needs at least 4 colours (the four long sides "
                                        "show different colours)")
    every_colour = data.get("every_colour", True)
    if every_colour and n > 6:
        raise DataError(path, "every_colour", f"a cube has 6 faces and cannot show {n} colours: "
                                              "set every_colour: false")
    return DesignSpec(colours=colours, start=start, n=n, towers=towers, every_colour=every_colour,
                      title=data.get("title", ""))
