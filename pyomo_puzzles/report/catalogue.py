"""Every figure the report draws: file stem and drawing function, in the report's order."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pyomo_puzzles.report import figures, time_parts
from pyomo_puzzles.report.measure import DEFAULT, Statistics

FIGURES = (*figures.FIGURES, ("where_the_time_goes", time_parts.where_the_time_goes))
"""(stem, draw): ``draw(runs, style, stem, stats)`` writes ``stem.pdf`` and ``stem.png``
and returns their paths (none where the figure does not apply)."""


def all_figures(runs: pd.DataFrame, style: figures.FigureStyle, directory: str | Path,
                stats: Statistics = DEFAULT) -> list[Path]:
    """Every figure into `directory` (runtime, profile, cactus, scaling and variability where
    they apply, where the time goes), all in one view (`figures.resolved_style`): all paths."""
    directory = Path(directory)
    style = figures.resolved_style(runs, style)
    paths: list[Path] = []
    for name, draw in FIGURES:
        paths += draw(runs, style, directory / name, stats)
    return paths
