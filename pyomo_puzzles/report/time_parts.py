"""Where the time goes: each method's runs split into the parts their records measure.

Per family, solver and formulation, over the runs that were solved (licence-refused runs
left out), the mean seconds per run of:

Columns (seconds):

* ``load``: reading the instance and declaring the model, before the run's clock starts;
* ``prepare``: a forked run's process preparing itself before the run's clock (a tiny model
  built and solved: the shared pages' copy-on-write faults paid there, not in the run);
* ``startup``: the solver's one-off start-up (environment, licence, imports), paid once
  per process by one run and spread here over the method's runs;
* ``build``: the concrete model from the data;
* ``generate``: a staged formulation's own work between its models (generating its stages,
  settling parts without a solver, in Python);
* ``compile``: the concrete model compiled into the matrix the solver is handed;
* ``handover``: the solver call less the solver's own time: handing the model to the
  solver and reading the answer back (zero where the solver has no clock of its own);
* ``solving``: the solver's own time (where it has none: its whole call, marked);
* ``decode`` and ``check``: the solution read back into the puzzle's terms, and the
  independent checker;
* ``other``: the rest of the run's wall time: the framework's bookkeeping between the parts.

The parts add up to load + preparation + start-up share + wall time. The figure shows them as shares of
that total, one bar per method, with the total written beside each bar, so overhead reads
as overhead and not as solving.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pyomo_puzzles.core.palette import palette
from pyomo_puzzles.report import tables
from pyomo_puzzles.report.figures import FigureStyle, _new_figure, _no_data, save_figure
from pyomo_puzzles.report.measure import DEFAULT, Statistics, solver_call_time, without_own_clock

PARTS = ("load", "prepare", "startup", "build", "generate", "compile", "handover", "solving", "decode", "check", "other")
"""The parts' columns in `time_parts` (seconds), in the order they happen."""
LABELS = {"load": "load", "prepare": "process preparation", "startup": "start-up (once)", "build": "build", "generate": "stage generation",
          "compile": "compile", "handover": "hand-over", "solving": "solver", "decode": "decode", "check": "check",
          "other": "bookkeeping"}
_COLOURS = {"load": 7, "prepare": 7, "startup": 8, "build": 0, "generate": 3, "compile": 6, "handover": 1, "solving": 2, "decode": 4,
            "check": 9, "other": 5}
_HATCHES = {"load": "", "prepare": "||", "startup": "xx", "build": "//", "generate": "||", "compile": "--", "handover": "/|",
            "solving": "", "decode": "\\\\", "check": "++", "other": "-\\"}
"""Lines only: TeX draws a dotted or circled hatch (figures.latex) in seconds to minutes per patch."""
COLUMNS = ("puzzle", "solver", "formulation", "runs", *PARTS, "total", "own_clock")


def _seconds(runs: pd.DataFrame, column: str) -> pd.Series:
    return pd.to_numeric(tables._column(runs, column), errors="coerce").astype(float).fillna(0.0)


def time_parts_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Tidy: one row per (puzzle, solver, formulation) with the mean seconds per solved run of
    each part (`PARTS`), their ``total``, and ``own_clock`` (whether the solver reported a time
    of its own in all of these runs)."""
    chosen = runs[tables.solved(runs) & (tables._column(runs, "status") != "licence_limit")]
    if chosen.empty:
        return pd.DataFrame(columns=list(COLUMNS))
    no_clock = without_own_clock(chosen)
    call = solver_call_time(chosen)
    own = _seconds(chosen, "solver_time")
    frame = pd.DataFrame({
        "puzzle": tables._column(chosen, "puzzle").astype(str), "solver": chosen["solver"].astype(str),
        "formulation": chosen["formulation"].astype(str),
        "load": _seconds(chosen, "load_time"), "prepare": _seconds(chosen, "prepare_time"),
        "startup": _seconds(chosen, "startup_time"),
        "build": _seconds(chosen, "build_time"), "generate": _seconds(chosen, "generate_time"),
        "compile": _seconds(chosen, "compile_time"),
        "handover": (call - own).clip(lower=0.0).where(~no_clock, 0.0),
        "solving": own.where(~no_clock, call),
        "decode": _seconds(chosen, "decode_time"), "check": _seconds(chosen, "check_time"),
        "own_clock": ~no_clock,
    })
    measured = frame[["build", "generate", "compile", "handover", "solving", "decode", "check"]].sum(axis=1)
    frame["other"] = (_seconds(chosen, "wall_time") - measured).clip(lower=0.0)
    grouped = frame.groupby(["puzzle", "solver", "formulation"], sort=True)
    table = grouped[list(PARTS)].mean()
    table.insert(0, "runs", grouped.size())
    table["total"] = table[list(PARTS)].sum(axis=1)
    table["own_clock"] = grouped["own_clock"].all()
    return table.reset_index()[list(COLUMNS)]


def _total_text(seconds: float) -> str:
    """"45 ms", "3.9 s", "16 s"."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def where_the_time_goes(runs: pd.DataFrame, style: FigureStyle, stem: str | Path,
                        stats: Statistics = DEFAULT) -> list[Path]:
    """Stacked bars, one per method and one panel per family: each part's share of the mean
    solved run, the mean total beside the bar; solvers without a clock of their own marked
    with a star. Nothing solved: a figure saying so."""
    table = time_parts_table(runs)
    if style.solvers:
        table = table[table["solver"].isin(style.solvers)]
    if style.formulations:
        table = table[table["formulation"].isin(style.formulations)]
    puzzles = sorted(table["puzzle"].unique())
    heights = [len(table[table["puzzle"] == p]) for p in puzzles]
    with style.context():
        labels = [style.text(LABELS[p]) for p in PARTS]
        columns = _legend_columns(style, labels)
        figure = _new_figure(style, _height_in(style, sum(heights), len(puzzles), -(-len(PARTS) // columns))
                             / style.width_in)
        if table.empty:
            _no_data(figure, style, "solved runs")
            return save_figure(figure, stem)
        axes = figure.subplots(len(puzzles), 1, squeeze=False, gridspec_kw={"height_ratios": heights}).flatten()
        colours = palette(10)
        for ax, puzzle in zip(axes, puzzles):
            _family_bars(ax, table[table["puzzle"] == puzzle], style, colours)
        axes[-1].set_xlabel(style.text("share of the mean solved run [%]"))
        figure.legend(handles=list(axes[0].containers), labels=labels, loc="outside lower center", ncol=columns, handlelength=1.2, columnspacing=0.8, handletextpad=0.4)
        return save_figure(figure, stem)


def _height_in(style: FigureStyle, bars: int, panels: int, legend_rows: int) -> float:
    """Inches: a line of text per bar, a title and tick labels per panel, the axis label and legend."""
    line = 1.45 * style.font_size / 72.27
    return line * (1.15 * bars + 3.2 * panels + 1.6 + 1.2 * legend_rows)


def _legend_columns(style: FigureStyle, labels: list[str]) -> int:
    """As many columns as fit the text width (estimated from the labels' lengths)."""
    for rows in range(1, len(labels) + 1):
        columns = -(-len(labels) // rows)
        widest = [max(len(label) for label in labels[c::columns]) for c in range(columns)]
        if sum(0.6 * (style.font_size - 1) * w + 2.6 * style.font_size for w in widest) <= 0.95 * style.text_width_pt:
            return columns
    return 1


def _family_bars(ax, rows: pd.DataFrame, style: FigureStyle, colours) -> None:
    rows = rows.sort_values(["solver", "formulation"], ascending=False)
    labels = [style.text(style.labels.get(s, s) + " / " + style.labels.get(f, f) + ("" if own else "*"))
              for s, f, own in zip(rows["solver"], rows["formulation"], rows["own_clock"])]
    y = np.arange(len(rows))
    left = np.zeros(len(rows))
    shares = rows[list(PARTS)].to_numpy(dtype=float) / rows["total"].to_numpy(dtype=float)[:, None] * 100
    for k, part in enumerate(PARTS):
        ax.barh(y, shares[:, k], left=left, height=0.72, color=colours[_COLOURS[part]], hatch=_HATCHES[part],
                edgecolor="white", linewidth=0.3, label=part,
                rasterized=style.usetex)  # one picture, not one TeX-tiled hatch per bar (past TeX's memory at 300 runs)
        left += shares[:, k]
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=style.font_size - 1)
    ax.set_xlim(0, 100)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    totals = ax.twinx()  # the totals as right-hand tick labels: the layout makes room for them
    totals.set_ylim(ax.get_ylim())
    totals.set_yticks(y)
    totals.set_yticklabels([style.text(_total_text(t)) for t in rows["total"]], fontsize=style.font_size - 1)
    totals.tick_params(axis="y", length=0)
    for axis in (ax, totals):
        axis.spines[["top"]].set_visible(False)
    ax.set_title(style.text(f"{rows['puzzle'].iloc[0]}: mean solved run, total at right"), loc="left")
