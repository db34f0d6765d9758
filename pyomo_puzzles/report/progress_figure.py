"""Incumbent and bound over time per method, on the optimisation instances where that tells
most: those some method did not prove within its limit (then those whose best method took
longest). Drawn from ``tables/progress.csv`` (`core.progress`: each solver's own reports
where it makes them, else the run's end alone)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from pyomo_puzzles.report import figures, tables
from pyomo_puzzles.report.measure import DEFAULT, Statistics

MOST_INSTANCES = 4
"""Panels of the figure, at most."""


def chosen_instances(runs: pd.DataFrame, progress: pd.DataFrame, most: int = MOST_INSTANCES) -> list[str]:
    """The optimisation instances with a trace, those with the most runs not proved optimal first,
    then those whose fastest proof took longest."""
    traced = set(progress["instance"].astype(str)) if len(progress) else set()
    frame = runs[tables._column(runs, "instance").astype(str).isin(traced)
                 & tables._column(runs, "objective_sense").notna()]
    if frame.empty:
        return []
    unproved = (frame["status"] != "optimal").groupby(frame["instance"]).sum()
    fastest = frame.assign(time=tables._column(frame, "solver_time").astype(float)).groupby("instance")["time"].min()
    order = sorted(unproved.index, key=lambda name: (-int(unproved[name]), -float(fastest.get(name, 0.0) or 0.0),
                                                     name))
    return order[:most]


def _steps(trace: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """The points of the trace where `column` has a value (it holds until the next point)."""
    known = trace[trace[column].notna()]
    return known["seconds"].to_numpy(dtype=float), known[column].to_numpy(dtype=float)


def progress_over_time(runs: pd.DataFrame, progress: pd.DataFrame, style: figures.FigureStyle, stem: str | Path,
                       stats: Statistics = DEFAULT) -> list[Path]:
    """One panel per chosen instance (`chosen_instances`): per method its incumbent (solid) and
    bound (dashed) as steps over the solver's own time (log axis), the time limit dashed grey;
    none where no optimisation instance has a trace."""
    names = chosen_instances(runs, progress)
    if not names:
        return []
    runs, codes = figures._with_runs(runs[runs["instance"].isin(names)], style)
    traced = set(zip(progress["instance"].astype(str), progress["solver"].astype(str),
                     progress["formulation"].astype(str)))
    codes = codes.restricted(runs[[key in traced for key in zip(runs["instance"].astype(str),
                                                                 runs["solver"].astype(str),
                                                                 runs["formulation"].astype(str))]])
    with style.context():
        rows, columns = figures._panel_grid(len(names))
        figure = figures._new_figure(style, figures._panels_aspect(rows, columns, _legend_rows(style, codes)))
        for ax, name in zip(figures._panels(figure, len(names)), names):
            _panel(ax, style, codes, runs[runs["instance"] == name], progress[progress["instance"] == name], name)
        _legend(figure, style, codes)
        return figures.save_figure(figure, stem)


def _panel(ax, style: figures.FigureStyle, codes: figures.Encoding, runs: pd.DataFrame, progress: pd.DataFrame,
           name: str) -> None:
    puzzle = str(runs["puzzle"].iloc[0])
    limit = float(runs["time_limit"].max()) if runs["time_limit"].notna().any() else None
    shortest = max(float(progress["seconds"][progress["seconds"] > 0].min()) if (progress["seconds"] > 0).any()
                   else 1e-3, 1e-4)
    right = limit * 1.05 if limit else float(progress["seconds"].max()) * 1.5
    for solver, formulation in figures._methods_of(runs, codes, puzzle):
        mine = progress[(progress["solver"] == solver) & (progress["formulation"] == formulation)]
        for key, trace in mine.groupby(["seed", "permutation", "repeat"], dropna=False):
            spec = codes.spec(puzzle, solver, formulation)
            for column, line in (("incumbent", "-"), ("bound", "--")):
                x, y = _steps(trace.sort_values("seconds"), column)
                if len(x):
                    ax.step(np.append(x, x[-1]), np.append(y, y[-1]), where="post", color=spec["color"],
                            linestyle=line, linewidth=1.0)
                    ax.plot(x[-1:], y[-1:], linestyle="none", marker=spec["marker"], color=spec["color"],
                            markersize=3.5)
    if limit:
        figures._limit_lines(ax, pd.Series([limit]), vertical=True)
    ax.set_xscale("log")
    ax.set_xlim(shortest / 2, right)
    figures._plain_log_axis(ax.xaxis, [shortest / 2, right])
    ax.set_title(style.text(figures._wrapped(figures._short_name(name, puzzle), 40)))
    ax.set_xlabel(style.text("solver time t [s]"))
    ax.set_ylabel(style.text("objective"))
    ax.grid(which="major", color="0.9")


def _legend_groups(style: figures.FigureStyle, codes: figures.Encoding) -> list[list[Line2D]]:
    """The legend's groups, each under its header: solvers (colours), formulations (markers),
    lines (incumbent, bound, time limit)."""
    def header(text: str) -> Line2D:
        return Line2D([], [], linestyle="none", label=style.text(text + ":"))

    solvers = [Line2D([], [], color=figures.solver_colour(s), linestyle="-", label=style.text(codes.label(s)))
               for s in codes.solvers]
    formulations = [Line2D([], [], color="0.3", marker=codes.marks[f]["marker"], linestyle="none",
                           label=style.text(codes.label(f))) for f in codes.ordered_formulations()]
    lines = [Line2D([], [], color="0.3", linestyle="-", label=style.text("incumbent")),
             Line2D([], [], color="0.3", linestyle="--", label=style.text("bound")),
             Line2D([], [], color="0.45", linestyle="--", linewidth=0.8, label=style.text("time limit"))]
    return [[header("solver"), *solvers], [header("formulation"), *formulations], [header("line"), *lines]]


def _legend_rows(style: figures.FigureStyle, codes: figures.Encoding) -> int:
    """The fewest rows that keep the legend's columns within the text width."""
    groups = _legend_groups(style, codes)
    per_row = max(1, int(0.95 * style.text_width_pt // (6.5 * style.font_size)))
    rows = 1
    while sum(-(-len(group) // rows) for group in groups) > per_row and rows < max(map(len, groups)):
        rows += 1
    return rows


def _legend(figure, style: figures.FigureStyle, codes: figures.Encoding) -> None:
    """One legend below the panels; each group starts a column with its header."""
    rows = _legend_rows(style, codes)
    handles = []
    for group in _legend_groups(style, codes):
        handles += group + [Line2D([], [], linestyle="none", label=" ")] * (-len(group) % rows)
    figure.legend(handles=handles, loc="outside lower center", ncol=len(handles) // rows, handlelength=2.0,
                  columnspacing=1.0, handletextpad=0.4)
