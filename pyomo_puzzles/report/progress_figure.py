"""Incumbent and bound over time, on the optimisation instances where that tells most: those
some method did not prove within its limit (then those whose best method took longest). Drawn
from ``tables/progress.csv`` (`core.progress`: each solver's own reports where it makes them,
else the run's end alone).

In the methods view (`figures` module docstring) every run's trace is drawn in its solver's
colour, its formulation's marker at its last point. In the formulation view each formulation
has one incumbent and one bound, its virtual best over the solvers (`virtual_best_trace`), in
the formulation's colour with its marker along the curves. Runs that ended in an error (a
solution the checker refused, an objective its hook did not confirm) or gave a wrong answer
draw nothing in either view: their incumbent and bound are not trusted (`trusted_progress`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from pyomo_puzzles.report import figures, tables
from pyomo_puzzles.report.measure import DEFAULT, Statistics

MOST_INSTANCES = 4
"""Panels of the figure, at most."""
MOST_MARKERS = 8
"""Markers along one curve of the formulation view, at most (its changes, thinned out evenly)."""
RUN_KEY = ("instance", "formulation", "solver", "seed", "permutation", "repeat")
"""What names one run in both the runs table and the progress table."""


def _key_part(value: object) -> str:
    """One part of a run's key as text: a seed of 1 and 1.0 alike (the runs table holds floats
    where a column has a missing value), a missing one empty."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(number)) if number.is_integer() else repr(number)


def _run_keys(frame: pd.DataFrame) -> pd.Series:
    """Each row's run as a tuple of `RUN_KEY` (permutation 0 where missing, as the progress table has it)."""
    parts = [tables._column(frame, column) for column in RUN_KEY]
    parts[RUN_KEY.index("permutation")] = parts[RUN_KEY.index("permutation")].fillna(0)
    return pd.Series(list(zip(*(part.map(_key_part) for part in parts))), index=frame.index, dtype=object)


def trusted_progress(runs: pd.DataFrame, progress: pd.DataFrame) -> pd.DataFrame:
    """The trace points of `progress` without those of runs that ended in an error (a refused
    solution, an objective its family's hook contradicts) or gave a wrong answer
    (`tables.wrong_answers`): their incumbents and bounds are not trusted, in any view."""
    if progress.empty or runs.empty:
        return progress
    untrusted = (tables._column(runs, "status").astype(str) == "error") | tables.wrong_answers(runs).notna()
    bad = set(_run_keys(runs[untrusted]))
    return progress[~_run_keys(progress).isin(bad)] if bad else progress


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


def virtual_best_trace(traces: pd.DataFrame, sense: str) -> pd.DataFrame:
    """The virtual best of several runs' traces (columns seconds, incumbent, bound): at each
    time t at which any of them changes, the best incumbent any of them had by t and the best
    bound any of them had by t, by the objective's `sense` (``minimize``: the smallest incumbent
    and the largest bound; ``maximize``: the largest incumbent and the smallest bound). NaN
    until the first value. Columns: seconds, incumbent, bound, one row per time."""
    if sense not in ("minimize", "maximize"):
        raise ValueError(f"objective sense {sense!r}: 'minimize' or 'maximize'")
    points = traces.sort_values("seconds", kind="stable")
    incumbent = pd.to_numeric(points["incumbent"], errors="coerce").astype(float)
    bound = pd.to_numeric(points["bound"], errors="coerce").astype(float)
    minimise = sense == "minimize"
    best = pd.DataFrame({
        "seconds": points["seconds"].astype(float).to_numpy(),
        "incumbent": (incumbent.cummin() if minimise else incumbent.cummax()).ffill().to_numpy(),
        "bound": (bound.cummax() if minimise else bound.cummin()).ffill().to_numpy(),
    })
    return best.groupby("seconds", sort=True).last().reset_index()


def objective_sense(runs: pd.DataFrame) -> str | None:
    """The objective sense the runs record (the first one given; None if none is)."""
    senses = tables._column(runs, "objective_sense").dropna().astype(str)
    return senses.iloc[0] if len(senses) else None


def _steps(trace: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """The points of the trace where `column` has a value (it holds until the next point)."""
    known = trace[trace[column].notna()]
    return known["seconds"].to_numpy(dtype=float), known[column].to_numpy(dtype=float)


def progress_over_time(runs: pd.DataFrame, progress: pd.DataFrame, style: figures.FigureStyle, stem: str | Path,
                       stats: Statistics = DEFAULT) -> list[Path]:
    """One panel per chosen instance (`chosen_instances`) over the solver's own time (log axis),
    the time limit dashed grey: per method each run's incumbent (solid) and bound (dashed) as
    steps, or in the formulation view (`FigureStyle.view`) per formulation the virtual best
    incumbent and bound over its solvers' runs (`virtual_best_trace`). Runs not trusted
    (`trusted_progress`) are left out. None where no optimisation instance has a trace."""
    progress = trusted_progress(runs, progress)
    names = chosen_instances(runs, progress)
    if not names:
        return []
    runs, codes = figures._with_runs(runs, style)  # the view and marks of all the runs shown, as in the other figures
    runs = runs[runs["instance"].isin(names)]
    traced = set(zip(progress["instance"].astype(str), progress["solver"].astype(str),
                     progress["formulation"].astype(str)))
    codes = codes.restricted(runs[[key in traced for key in zip(runs["instance"].astype(str),
                                                                 runs["solver"].astype(str),
                                                                 runs["formulation"].astype(str))]])
    with style.context():
        rows, columns = figures._panel_grid(len(names))
        figure = figures._new_figure(style, figures._panels_aspect(rows, columns, _legend_height(style, codes)))
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
    if codes.view == figures.FORMULATIONS:
        _formulation_curves(ax, codes, runs, progress, puzzle)
    else:
        _method_curves(ax, codes, runs, progress, puzzle)
    if limit:
        figures._limit_lines(ax, pd.Series([limit]), vertical=True)
    ax.set_xscale("log")
    ax.set_xlim(shortest / 2, right)
    figures._plain_log_axis(ax.xaxis, [shortest / 2, right])
    ax.set_title(style.text(figures._wrapped(figures._short_name(name, puzzle), 40)))
    ax.set_xlabel(style.text("solver time t [s]"))
    ax.set_ylabel(style.text("objective"))
    ax.grid(which="major", color="0.9")


def _method_curves(ax, codes: figures.Encoding, runs: pd.DataFrame, progress: pd.DataFrame, puzzle: str) -> None:
    """Every run's incumbent (solid) and bound (dashed) in its solver's colour, its formulation's
    marker at the last point."""
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


def _formulation_curves(ax, codes: figures.Encoding, runs: pd.DataFrame, progress: pd.DataFrame,
                        puzzle: str) -> None:
    """Per formulation the virtual best incumbent (solid, filled markers) and bound (dashed,
    open markers) over its solvers' runs, in the formulation's colour, its marker at up to
    `MOST_MARKERS` of the curve's changes (the last among them): told apart in greyscale too."""
    for formulation in codes.formulations.get(puzzle, []):
        mine = progress[progress["formulation"].astype(str) == formulation]
        sense = objective_sense(runs[runs["formulation"].astype(str) == formulation]) or objective_sense(runs)
        if mine.empty or sense is None:
            continue
        best = virtual_best_trace(mine, sense)
        end = _proved_at(best)
        spec = codes.spec(puzzle, figures.BEST_OF_SOLVERS, formulation)
        # where the two meet (the optimum proved), the incumbent's filled marker is drawn on top
        for column, line, face, above in (("incumbent", "-", spec["color"], 1), ("bound", "--", "white", 0)):
            x, y = _changes(*_steps(best[best["seconds"] <= end], column))
            if not len(x):
                continue
            ax.step(np.append(x, end), np.append(y, y[-1]), where="post", color=spec["color"], linestyle=line,
                    linewidth=1.1, zorder=3 + above)
            marked = _thinned(len(x))
            ax.plot(x[marked], y[marked], linestyle="none", marker=spec["marker"], color=spec["color"],
                    markerfacecolor=face, markersize=3.8, markeredgewidth=0.8, zorder=5 + above)


def _proved_at(best: pd.DataFrame) -> float:
    """When a virtual best trace's incumbent first meets its bound (1e-6 relative: some run
    proved the optimum by then), else its last time: where its curves end."""
    closed = (best["incumbent"] - best["bound"]).abs() <= 1e-6 * np.maximum(1.0, best["incumbent"].abs())
    return float(best.loc[closed, "seconds"].iloc[0] if closed.any() else best["seconds"].iloc[-1])


def _changes(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of a step curve where its value changes (the first one included)."""
    keep = np.concatenate([[True], y[1:] != y[:-1]]) if len(y) else np.zeros(0, dtype=bool)
    return x[keep], y[keep]


def _thinned(count: int, most: int = MOST_MARKERS) -> np.ndarray:
    """Indices of up to `most` of `count` points, evenly spread, the last always among them."""
    if count <= most:
        return np.arange(count)
    return np.unique(np.round(np.linspace(count - 1, 0, most)).astype(int))


def _legend_groups(style: figures.FigureStyle, codes: figures.Encoding) -> list[list[Line2D]]:
    """The legend's groups, each under its header: solvers (colours), formulations (markers),
    lines (incumbent, bound, time limit); in the formulation view the formulations (colours
    and markers) under the legend's title (`figures.legend_title`), then the lines."""
    def header(text: str) -> Line2D:
        return Line2D([], [], linestyle="none", label=style.text(text + ":"))

    if codes.view == figures.FORMULATIONS:
        formulations = [Line2D([], [], color=codes.marks[f]["color"], marker=codes.marks[f]["marker"], linestyle="-",
                               label=style.text(codes.label(f))) for f in codes.ordered_formulations()]
        lines = [Line2D([], [], color="0.3", marker="o", linestyle="-", label=style.text("incumbent")),
                 Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linestyle="--",
                        label=style.text("bound")),
                 Line2D([], [], color="0.45", linestyle="--", linewidth=0.8, label=style.text("time limit"))]
        return [formulations, [header("line"), *lines]]  # the formulations under the title, `figures.legend_title`
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


def _legend_height(style: figures.FigureStyle, codes: figures.Encoding) -> int:
    """The legend's rows and its title's, for the figure's height."""
    return _legend_rows(style, codes) + (figures.legend_title(codes) is not None)


def _legend(figure, style: figures.FigureStyle, codes: figures.Encoding) -> None:
    """One legend below the panels; each group starts a column with its header."""
    rows = _legend_rows(style, codes)
    handles = []
    for group in _legend_groups(style, codes):
        handles += group + [Line2D([], [], linestyle="none", label=" ")] * (-len(group) % rows)
    title = figures.legend_title(codes)
    figure.legend(handles=handles, loc="outside lower center", ncol=len(handles) // rows, handlelength=2.0,
                  columnspacing=1.0, handletextpad=0.4, title=style.text(title) if title else None)
