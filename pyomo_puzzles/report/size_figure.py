"""Model size against time: every run's time measure against the number of nonzeros of its
formulation's matrix on that instance (``tables/models.csv``, `core.statistics`), one panel
per family. Where one formulation of a family is much larger or much slower than another on
the same instances, its markers sit apart from the other's: what the Formulations table
summarises by medians, here run by run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from pyomo_puzzles.report import figures
from pyomo_puzzles.report.measure import DEFAULT, Statistics

JITTER = 1.02
"""Horizontal factor between neighbouring solvers' markers at one model size."""


def _count(value: float, _position=None) -> str:
    """An axis label for a count: 500, 2k, 50k, 1M (short enough that neighbours never touch)."""
    for scale, unit in ((1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:g}{unit}"
    return f"{value:g}"


def model_nonzeros(models: pd.DataFrame) -> pd.DataFrame:
    """Nonzeros per (instance, formulation): the one model's, or for a staged formulation the
    sum over the stages whose parts were built (a stage only counted has none)."""
    if models is None or models.empty or "nonzeros" not in models:
        return pd.DataFrame(columns=["instance", "formulation", "nonzeros"])
    sized = models[pd.to_numeric(models["nonzeros"], errors="coerce") > 0]
    summed = sized.groupby(["instance", "formulation"])["nonzeros"].sum(min_count=1)
    return summed.reset_index()


def size_against_time(runs: pd.DataFrame, models: pd.DataFrame, style: figures.FigureStyle, stem: str | Path,
                      stats: Statistics = DEFAULT) -> list[Path]:
    """One panel per family with sized runs: per method (solver colour, formulation marker), or
    in the formulation view per formulation (its best of the solvers; colour and marker by
    formulation), each instance's time against its model's nonzeros, both on log axes; a run
    stopped by a limit is an x at the limit. No sized run: no file, returns []."""
    runs, codes = figures._with_runs(runs, style)
    data = figures.view_times(runs, stats, codes.view).merge(model_nonzeros(models), on=["instance", "formulation"])
    families = sorted(data["puzzle"].unique()) if len(data) else []
    if not families:
        return []
    with style.context():
        figure = figures._new_figure(style, figures._panels_aspect(*figures._panel_grid(len(families)),
                                                                   figures._legend_rows(style, codes)))
        for ax, puzzle in zip(figures._panels(figure, len(families)), families):
            panel = data[data["puzzle"] == puzzle]
            solvers = sorted(panel["solver"].unique())
            for solver, formulation in figures._methods_of(panel, codes, puzzle):
                frame = panel[(panel["solver"] == solver) & (panel["formulation"] == formulation)]
                # the solvers of one model share its size: spread them a little so that none hides another
                spread = JITTER ** (solvers.index(solver) - (len(solvers) - 1) / 2)
                figures._draw_points(ax, frame, frame["nonzeros"].to_numpy(dtype=float) * spread,
                                     codes.spec(puzzle, solver, formulation))
            figures._limit_lines(ax, panel["time_limit"])
            ax.set_xscale("log")
            ax.set_yscale("log")
            sizes = panel["nonzeros"].to_numpy(dtype=float)
            ax.set_xlim(sizes.min() / 1.6, sizes.max() * 1.6)
            decades = np.log10(sizes.max() / sizes.min())
            ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades < 2 else (1.0,)))
            ax.xaxis.set_major_formatter(FuncFormatter(_count))
            ax.xaxis.set_minor_formatter(NullFormatter())
            figures._plain_log_axis(ax.yaxis, [*panel["time"], *panel["time_limit"]])
            ax.set_xlabel(style.text("nonzeros of the model"))
            ax.set_ylabel(style.text(stats.axis_label()))
            ax.set_title(style.text(puzzle))
            ax.grid(which="major", color="0.9")
        figures._legends(figure, style, codes.restricted(data), lines=False,
                         limit="timeout and error" if bool(np.any(data["error"])) else "timeout")
        return figures.save_figure(figure, stem)
