"""Pictures of solutions: the family's drawing hook, written atomically, and a stand-in
picture where there is no solution to draw."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyomo_puzzles.core.drawing import new_figure
from pyomo_puzzles.core.files import write_atomic
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.errors import UserError

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.text import Text


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


NO_SOLUTION_WIDTH_IN = 4.5
NO_SOLUTION_FONT_PT = 9
LINE_HEIGHT_IN = 1.25 * NO_SOLUTION_FONT_PT / 72


def no_solution_figure(name: str, why: str) -> Figure:
    """The figure `draw_no_solution` writes: the instance's name and why it has no picture,
    wrapped to the figure's width (a reason lists every solver's status), as tall as its lines."""
    figure = new_figure(figsize=(NO_SOLUTION_WIDTH_IN, 1.0))
    text = figure.text(0.5, 0.5, "", ha="center", va="center", fontsize=NO_SOLUTION_FONT_PT)
    lines = _fit_lines(text, [f"{name}: no solution to draw", f"({why})"], 0.92 * NO_SOLUTION_WIDTH_IN)
    figure.set_size_inches(NO_SOLUTION_WIDTH_IN, max(0.8, 0.5 + LINE_HEIGHT_IN * len(lines)))
    return figure


def _fit_lines(text: Text, paragraphs: list[str], width_in: float) -> list[str]:
    """Wrap `paragraphs` into `text` at the most characters per line whose widest line,
    measured as drawn, is at most `width_in` wide; return the lines."""
    renderer = text.figure.canvas.get_renderer()
    for characters in range(64, 8, -4):
        lines = [line for part in paragraphs for line in _wrapped(part, characters)]
        text.set_text("\n".join(lines))
        if text.get_window_extent(renderer).width <= width_in * text.figure.dpi:
            break
    return lines


def _wrapped(text: str, characters: int) -> list[str]:
    """Lines of at most `characters`, broken at spaces; a longer word (an instance name) after
    a '/' or '_' in it, and cut where it has none."""
    pieces = []
    for word in re.split(r"(?<= )", text):
        parts = [word] if len(word) <= characters else re.split(r"(?<=[/_])", word)
        pieces += [part[k:k + characters] for part in parts for k in range(0, len(part), characters)]
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1] + piece.rstrip()) > characters:
            lines.append("")
        lines[-1] += piece
    return [line.strip() for line in lines]
