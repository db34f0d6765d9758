"""Pictures of solutions: the family's drawing hook, written atomically, and a stand-in
picture where there is no solution to draw."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyomo_puzzles.core.drawing import new_figure
from pyomo_puzzles.core.files import write_atomic
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.errors import UserError


def draw(instance: Instance, solution: dict[str, Any], path: str | Path) -> Path:
    """Draw `solution` of `instance` to `path` (PNG, PDF or SVG by its suffix)."""
    check_picture_path(path)
    draw_hook = instance.family.drawing()
    return write_atomic(path, lambda tmp: draw_hook(instance.spec, solution, tmp))


def check_picture_path(path: str | Path) -> None:
    """A picture's file name must end in a format matplotlib writes (UserError otherwise)."""
    from matplotlib.backend_bases import FigureCanvasBase  # matplotlib: only when drawing

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise UserError(f"picture {path}: unsupported format {suffix or '(no suffix)'!r} "
                        f"(choose {', '.join(sorted(formats))})")


def draw_no_solution(name: str, why: str, path: str | Path) -> Path:
    """In place of a solution's picture, one that says why there is none (an infeasible
    instance must not stop the pipeline)."""
    figure = no_solution_figure(name, why)
    return write_atomic(path, lambda tmp: figure.savefig(tmp, dpi=150))


def no_solution_figure(name: str, why: str):
    """The figure `draw_no_solution` writes: the instance's name and why it has no picture."""
    figure = new_figure(figsize=(4.5, 0.8))
    figure.text(0.5, 0.5, f"{name}: no solution to draw\n({why})", ha="center", va="center", fontsize=9)
    return figure
