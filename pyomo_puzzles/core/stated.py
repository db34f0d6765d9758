"""What an instance's data file states about it in `known:` (its optimum, whether it has a
solution, how many solutions), each figure with the file and field it comes from. Plain data,
read without loading the instance: the benchmark library checks its reference answers against
it (`core.library`), and `core.known` judges runs and counts by it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from pyomo_puzzles.errors import quoted

OBJECTIVE_TOLERANCE = 1e-6
"""Objectives agree if |objective - known| <= 1e-6 * max(1, |known|)."""


@dataclass(frozen=True)
class Known:
    """What is known about solving an instance; ``*_from`` names the file and field it comes from."""

    solvable: bool | None = None
    solvable_from: str | None = None
    objective: float | None = None
    objective_from: str | None = None


@dataclass(frozen=True)
class KnownCount:
    """How many solutions (and symmetry classes) an instance is known to have, and from where."""

    solutions: int | None = None
    solutions_from: str | None = None
    classes: int | None = None
    classes_from: str | None = None


def field_of(path: str | Path, field: str) -> str:
    """A file and a field, as one-line errors name them: ``FILE: field 'known.solvable'``."""
    return f"{path}: field {quoted(field)}"


def stated_answer(known: dict | None, path: str | Path) -> Known:
    """What a data file's `known` mapping states about solving it (no instance needs loading).
    A figure of the wrong type counts as not stated (a family's schema may leave `known` open)."""
    known = known if isinstance(known, dict) else {}
    solvable, solvable_from = None, None
    if isinstance(known.get("solvable"), bool):
        solvable, solvable_from = known["solvable"], field_of(path, "known.solvable")
    elif _count(known.get("solutions")) is not None:
        solvable, solvable_from = known["solutions"] > 0, field_of(path, "known.solutions")
    objective = known.get("objective")
    if isinstance(objective, bool) or not isinstance(objective, (int, float)) or math.isnan(objective):
        return Known(solvable, solvable_from)
    return Known(solvable, solvable_from, objective, field_of(path, "known.objective"))


def _count(value: object) -> int | None:
    """`value` if it is a count (a whole number, 0 or more), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def stated_count(known: dict | None, path: str | Path, up_to_symmetry: bool) -> KnownCount:
    """The counts a data file's `known` mapping states (no instance needs loading for them)."""
    known = known if isinstance(known, dict) else {}
    solutions = _count(known.get("solutions"))
    classes = _count(known.get("solutions_up_to_symmetry")) if up_to_symmetry else None
    return KnownCount(solutions, field_of(path, "known.solutions") if solutions is not None else None,
                      classes, field_of(path, "known.solutions_up_to_symmetry") if classes is not None else None)


def close(objective: float, known: float) -> bool:
    return abs(objective - known) <= OBJECTIVE_TOLERANCE * max(1.0, abs(known))
