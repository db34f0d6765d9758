"""Thesis-ready figures of solver runs: runtimes, performance profile, cactus, scaling.

Every figure is drawn on a `matplotlib.figure.Figure` with an Agg canvas (pyplot's global
figure manager and backend are left alone), `FigureStyle.width_in` wide (the LaTeX text
width), and written as ``<stem>.pdf`` and ``<stem>.png`` (200 dpi). A *method* is a
solver / formulation pair. Colours come from seaborn's colour-blind palette and every
method also has its own marker and line style, so the figures read in greyscale. Runs that
were not solved are drawn at their time limit with an ``x`` (legend: "timeout (at limit)").

Per instance, repeats are combined: the time is the median of the censored times (see
`tables.censored_time`) and the instance counts as solved by a method iff a strict
majority of its repeats were solved.
"""

from __future__ import annotations

import math
import shutil
import warnings
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from pyomo_puzzles.report import tables

POINTS_PER_INCH = 72.27
"""TeX points per inch (LaTeX lengths such as \\textwidth are in TeX points)."""

PNG_DPI = 200
TIMEOUT_MARKER = "x"
TIMEOUT_LABEL = "timeout (at limit)"
METHOD_MARKERS = ("o", "s", "^", "D", "v", "P", "<", ">", "p", "h", "*", "d")
LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2, 2, 2)))
MIN_TIME = 1e-6
"""Times below this (seconds) are raised to it: no division by zero, no log of zero."""


# --- style -------------------------------------------------------------------------------------

@dataclass
class FigureStyle:
    """Sizes and fonts for a thesis: figures as wide as the LaTeX text, fonts matching it.

    ``text_width_pt`` is LaTeX's ``\\textwidth`` in TeX points (``\\the\\textwidth``); a
    figure is ``text_width_pt / 72.27`` inches wide and its height follows from an aspect
    ratio. ``latex=True`` typesets text with LaTeX (serif fonts) if the ``latex`` and
    ``dvipng`` executables are on PATH; otherwise it warns once and falls back to
    matplotlib's mathtext with the serif STIX fonts (shipped with matplotlib).
    """

    text_width_pt: float = 418.25
    latex: bool = False
    font_size: float = 9
    _usetex: bool | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def width_in(self) -> float:
        """Figure width in inches: the text width."""
        return self.text_width_pt / POINTS_PER_INCH

    def figsize(self, aspect: float) -> tuple[float, float]:
        """(width, height) in inches for height = aspect * width."""
        return self.width_in, self.width_in * aspect

    @property
    def usetex(self) -> bool:
        """Whether text goes through LaTeX: asked for and available (decided, and warned, once)."""
        if self._usetex is None:
            missing = [exe for exe in ("latex", "dvipng") if shutil.which(exe) is None] if self.latex else []
            if missing:
                warnings.warn(f"FigureStyle(latex=True) but {', '.join(missing)} not found on PATH: "
                              "falling back to matplotlib's mathtext", RuntimeWarning, stacklevel=2)
            self._usetex = self.latex and not missing
        return self._usetex

    def rc_params(self) -> dict:
        """The rcParams of this style (fonts, sizes, TrueType fonts in PDFs, colour-blind palette)."""
        size = self.font_size
        params = dict(sns.axes_style("ticks"))
        params.update({
            "font.size": size, "axes.titlesize": size, "axes.labelsize": size,
            "xtick.labelsize": size - 1, "ytick.labelsize": size - 1, "legend.fontsize": size - 1,
            "legend.title_fontsize": size - 1, "figure.titlesize": size + 1,
            "pdf.fonttype": 42, "ps.fonttype": 42, "savefig.dpi": PNG_DPI,
            "figure.dpi": 100, "figure.constrained_layout.use": True,
            "axes.prop_cycle": mpl.cycler(color=sns.color_palette("colorblind")),
            "axes.linewidth": 0.6, "lines.linewidth": 1.2, "lines.markersize": 4,
            "xtick.major.width": 0.6, "ytick.major.width": 0.6, "grid.linewidth": 0.4,
            "axes.grid": False, "legend.frameon": False,
            "text.usetex": self.usetex,
        })
        if self.usetex:
            params.update({"font.family": "serif", "font.serif": ["Computer Modern Roman"]})
        elif self.latex:
            params.update({"font.family": "serif", "font.serif": ["STIXGeneral", "DejaVu Serif"],
                           "mathtext.fontset": "stix", "axes.formatter.use_mathtext": True})
        else:
            params.update({"font.family": "sans-serif", "mathtext.fontset": "dejavusans"})
        return params

    def apply(self) -> None:
        """Set this style's rcParams globally (the figure functions use `context` instead)."""
        mpl.rcParams.update(self.rc_params())

    def context(self) -> AbstractContextManager:
        """A context in which this style's rcParams hold; global rcParams are restored after."""
        return mpl.rc_context(self.rc_params())

    def text(self, label: str) -> str:
        """A label as plain text: LaTeX's special characters escaped if text goes through LaTeX."""
        return tables.latex_escape(label) if self.usetex else str(label).replace("$", r"\$")


# --- data ------------------------------------------------------------------------------------

def method_label(solver: str, formulation: str) -> str:
    """How a solver / formulation pair is named in figures."""
    return f"{solver} / {formulation}"


def instance_times(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (puzzle, instance, method): repeats combined.

    Columns: puzzle, instance, method, solver, formulation, time (median censored time over
    repeats), solved (strict majority of repeats solved), time_limit (median over repeats),
    repeats, size, size_label.
    """
    columns = ["puzzle", "instance", "method", "solver", "formulation", "time", "solved", "time_limit",
               "repeats", "size", "size_label"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    size = pd.to_numeric(tables._column(runs, "size"), errors="coerce").astype(float)
    table = pd.DataFrame({
        "puzzle": tables._column(runs, "puzzle").fillna("?").astype(str),
        "instance": tables._column(runs, "instance").astype(str),
        "solver": tables._column(runs, "solver").astype(str),
        "formulation": tables._column(runs, "formulation").astype(str),
        "time": tables.censored_time(runs), "solved": tables.solved(runs),
        "time_limit": tables.time_limits(runs), "size": size,
        "size_label": tables._column(runs, "size_label"),
    }, index=runs.index)
    table["method"] = [method_label(s, f) for s, f in zip(table["solver"], table["formulation"])]
    grouped = table.groupby(["puzzle", "instance", "method"], sort=True)
    out = grouped.agg(solver=("solver", "first"), formulation=("formulation", "first"),
                      time=("time", "median"), solved_runs=("solved", "sum"), repeats=("solved", "size"),
                      time_limit=("time_limit", "median"), size=("size", "first"),
                      size_label=("size_label", "first")).reset_index()
    out["solved"] = out["solved_runs"] > out["repeats"] / 2
    return out[columns]


def performance_ratios(runs: pd.DataFrame) -> pd.DataFrame:
    """Dolan-More ratios per (puzzle, instance, method): time / best time on that instance.

    Puzzles are kept apart (formulations are family-specific). Within a puzzle, every
    method that ran any of its instances is compared on all of them; an instance the method
    did not solve (or did not run) has time and ratio infinity. The best time is the
    smallest solved time of any method; if no method solved the instance, all ratios are
    infinite. Columns: puzzle, instance, method, time, best, ratio.
    """
    data = instance_times(runs)
    frames = []
    for puzzle, group in data.groupby("puzzle", sort=True):
        grid = pd.MultiIndex.from_product([sorted(group["instance"].unique()), sorted(group["method"].unique())],
                                          names=["instance", "method"])
        times = group.set_index(["instance", "method"])
        time = times["time"].clip(lower=MIN_TIME).where(times["solved"], math.inf).reindex(grid, fill_value=math.inf)
        frame = time.rename("time").reset_index()
        frame["best"] = frame.groupby("instance")["time"].transform("min")
        frame["ratio"] = np.where(np.isfinite(frame["best"]), frame["time"] / frame["best"], math.inf)
        frame.insert(0, "puzzle", puzzle)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["puzzle", "instance", "method", "time", "best", "ratio"])
    return pd.concat(frames, ignore_index=True)


def performance_profile_data(runs: pd.DataFrame, taus: Sequence[float] | None = None) -> pd.DataFrame:
    """The Dolan-More performance profile: for each puzzle and method, the fraction of the
    puzzle's instances with ratio t / t_best <= tau (unsolved: ratio infinity).

    ``taus``: where to evaluate it; by default at its breakpoints (1 and every finite ratio
    of the puzzle), where the step function changes. Columns: puzzle, method, tau, fraction.
    """
    ratios = performance_ratios(runs)
    rows = []
    for puzzle, group in ratios.groupby("puzzle", sort=True):
        finite = group["ratio"][np.isfinite(group["ratio"])]
        points = sorted(set(taus) if taus is not None else {1.0, *finite.tolist()})
        for method, by_method in group.groupby("method", sort=True):
            values = by_method["ratio"].to_numpy()
            for tau in points:
                rows.append({"puzzle": puzzle, "method": method, "tau": float(tau),
                             "fraction": float(np.mean(values <= tau))})
    return pd.DataFrame(rows, columns=["puzzle", "method", "tau", "fraction"])


def cactus_data(runs: pd.DataFrame) -> pd.DataFrame:
    """Per puzzle and method, its solved instances sorted by time: the k-th row says k of
    the puzzle's instances were solved within `time` seconds (median over repeats).
    Columns: puzzle, method, solved, time. A method that solved nothing has no rows.
    """
    data = instance_times(runs)
    rows = []
    for (puzzle, method), group in data.groupby(["puzzle", "method"], sort=True):
        times = sorted(group.loc[group["solved"].astype(bool), "time"].tolist())
        rows += [{"puzzle": puzzle, "method": method, "solved": k, "time": float(t)}
                 for k, t in enumerate(times, start=1)]
    return pd.DataFrame(rows, columns=["puzzle", "method", "solved", "time"])


# --- drawing helpers ---------------------------------------------------------------------------

def method_styles(methods: Sequence[str], puzzles_of: dict[str, set[str]] | None = None) -> dict[str, dict]:
    """Colour, marker and line style per method; the same in every figure of one runs table.

    Methods are taken in sorted order; markers and line styles cycle through their lists.
    Colours come from the 10 colour-blind colours, chosen greedily so that methods sharing
    a puzzle (``puzzles_of``: method -> puzzles it ran) get different colours while each
    puzzle has at most 10 methods.
    """
    names = sorted(set(methods))
    puzzles_of = puzzles_of or {}
    colours = sns.color_palette("colorblind", 10)
    colour_index: dict[str, int] = {}
    for i, name in enumerate(names):
        taken = {colour_index[other] for other in colour_index
                 if not puzzles_of.get(name) or puzzles_of.get(name, set()) & puzzles_of.get(other, set())}
        free = [c for c in range(len(colours)) if c not in taken]
        colour_index[name] = free[0] if free else i % len(colours)
    return {name: {"color": colours[colour_index[name]], "marker": METHOD_MARKERS[i % len(METHOD_MARKERS)],
                   "linestyle": LINE_STYLES[i % len(LINE_STYLES)]} for i, name in enumerate(names)}


def _methods_and_styles(runs: pd.DataFrame) -> tuple[list[str], dict[str, dict]]:
    """All methods of the runs table (sorted) and their styles."""
    solvers = tables._column(runs, "solver").astype(str)
    formulations = tables._column(runs, "formulation").astype(str)
    puzzles = tables._column(runs, "puzzle").fillna("?").astype(str)
    puzzles_of: dict[str, set[str]] = {}
    for s, f, p in zip(solvers, formulations, puzzles):
        puzzles_of.setdefault(method_label(s, f), set()).add(p)
    methods = sorted(puzzles_of)
    return methods, method_styles(methods, puzzles_of)


def _new_figure(style: FigureStyle, aspect: float) -> Figure:
    figure = Figure(figsize=style.figsize(aspect))
    FigureCanvasAgg(figure)
    return figure


def _panel_grid(count: int) -> tuple[int, int]:
    columns = 1 if count == 1 else 2
    return math.ceil(count / columns), columns


def _panels_aspect(rows: int, columns: int) -> float:
    """Height / width of a figure of panels, with room for the legend below."""
    return rows * (0.5 if columns == 1 else 0.38) + 0.14


def _panels(figure: Figure, count: int, **kwargs) -> list:
    """`count` axes in a grid of up to two columns; unused cells are hidden."""
    rows, columns = _panel_grid(count)
    axes = figure.subplots(rows, columns, squeeze=False, **kwargs).flatten()
    for ax in axes[count:]:
        ax.set_axis_off()
    return list(axes[:count])


def _legend(figure: Figure, style: FigureStyle, methods: Sequence[str], styles: dict[str, dict],
            lines: bool, limit: str | None) -> None:
    """One legend below the panels: the methods, then the time limit's entry.

    ``limit``: "timeout" (an x at the limit, dashed line: "timeout (at limit)"), "line"
    (the dashed line alone: "time limit"), or None.
    """
    handles = [Line2D([], [], color=styles[m]["color"], marker=styles[m]["marker"],
                      linestyle=styles[m]["linestyle"] if lines else "none", label=style.text(m))
               for m in methods]
    if limit == "timeout":
        handles.append(Line2D([], [], color="0.35", marker=TIMEOUT_MARKER, linestyle="--", linewidth=0.8,
                              label=style.text(TIMEOUT_LABEL)))
    elif limit == "line":
        handles.append(Line2D([], [], color="0.35", linestyle="--", linewidth=0.8, label=style.text("time limit")))
    if handles:
        figure.legend(handles=handles, loc="outside lower center", ncol=min(3, len(handles)))


def _limit_lines(ax, limits: pd.Series, vertical: bool = False) -> None:
    for limit in sorted(set(limits.dropna().tolist())):
        (ax.axvline if vertical else ax.axhline)(limit, color="0.35", linestyle="--", linewidth=0.8, zorder=1)


def _no_data(figure: Figure, style: FigureStyle, what: str) -> None:
    ax = figure.add_subplot()
    ax.text(0.5, 0.5, style.text(f"no {what}"), ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def save_figure(figure: Figure, stem: str | Path) -> list[Path]:
    """Write ``<stem>.pdf`` and ``<stem>.png`` (200 dpi), then free the figure; return [pdf, png]."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_name(stem.name + ".pdf"), stem.with_name(stem.name + ".png")]
    figure.savefig(paths[0], format="pdf", metadata={"CreationDate": None})
    figure.savefig(paths[1], format="png", dpi=PNG_DPI)
    figure.clear()
    return paths


def _draw_points(ax, frame: pd.DataFrame, x: np.ndarray, spec: dict) -> None:
    """Solved: the method's marker at its time; not solved: an x at the time limit."""
    solved = frame["solved"].to_numpy(dtype=bool)
    ax.scatter(x[solved], frame["time"].clip(lower=MIN_TIME).to_numpy()[solved], marker=spec["marker"],
               color=spec["color"], s=14, linewidths=0.5, edgecolors="black", zorder=3)
    ax.scatter(x[~solved], frame["time_limit"].to_numpy()[~solved], marker=TIMEOUT_MARKER,
               color=spec["color"], s=20, linewidths=1.0, zorder=3)


def _instance_order(data: pd.DataFrame) -> pd.DataFrame:
    """Instances by puzzle, then by best solved time (unsolved last), then by name."""
    best = data[data["solved"].astype(bool)].groupby("instance")["time"].min()
    order = data[["puzzle", "instance"]].drop_duplicates()
    order = order.assign(best=order["instance"].map(best).fillna(math.inf))
    return order.sort_values(["puzzle", "best", "instance"]).reset_index(drop=True)


def _short_name(instance: str, puzzle: str) -> str:
    """The instance's name without its puzzle (the panel says it), generated ones marked by a star."""
    generated = f"generated/{puzzle}/"
    if instance.startswith(generated):
        return "*" + instance.removeprefix(generated)
    return instance.removeprefix(f"{puzzle}/")


# --- figures -----------------------------------------------------------------------------------

def runtime_per_instance(runs: pd.DataFrame, style: FigureStyle, stem: str | Path) -> list[Path]:
    """Wall time per instance (median over repeats, log scale), one marker per method;
    unsolved at the time limit with an ``x``, the limit as a dashed line. Instances are
    grouped by puzzle (named above the axes) and sorted by their best time."""
    data = instance_times(runs)
    methods, styles = _methods_and_styles(runs)
    legend_rows = math.ceil((len(methods) + 1) / 3)
    with style.context():
        figure = _new_figure(style, 0.40 + 0.05 * legend_rows)  # room for the legend below
        if data.empty:
            _no_data(figure, style, "runs")
            return save_figure(figure, stem)
        order = _instance_order(data)
        position = {name: i for i, name in enumerate(order["instance"])}
        ax = figure.add_subplot()
        for puzzle, group in data.groupby("puzzle", sort=True):
            present = sorted(group["method"].unique())
            width = min(0.8 / len(present), 0.15)
            for i, method in enumerate(present):
                frame = group[group["method"] == method]
                x = frame["instance"].map(position).to_numpy(dtype=float) + (i - (len(present) - 1) / 2) * width
                _draw_points(ax, frame, x, styles[method])
        _limit_lines(ax, data["time_limit"])
        for puzzle, rows in order.groupby("puzzle", sort=False):
            first, last = rows.index.min(), rows.index.max()
            if first > 0:
                ax.axvline(first - 0.5, color="0.7", linewidth=0.6, zorder=0)
            ax.text((first + last) / 2, 1.01, style.text(puzzle), transform=ax.get_xaxis_transform(),
                    ha="center", va="bottom", fontsize=style.font_size - 1)
        ax.set_yscale("log")
        ax.set_xlim(-0.6, len(position) - 0.4)
        ax.set_ylabel(style.text("wall time [s]"))
        if len(position) <= 40:
            ax.set_xticks(range(len(position)))
            ax.set_xticklabels([style.text(_short_name(i, p)) for i, p in zip(order["instance"], order["puzzle"])],
                               rotation=60, ha="right", rotation_mode="anchor", fontsize=style.font_size - 2)
        else:
            ax.set_xticks([])
        ax.set_xlabel(style.text("instance (by puzzle, then best time; * generated)"))
        ax.grid(axis="y", which="major", color="0.9")
        _legend(figure, style, methods, styles, lines=False, limit="timeout")
        return save_figure(figure, stem)


def performance_profile(runs: pd.DataFrame, style: FigureStyle, stem: str | Path) -> list[Path]:
    """Dolan-More performance profile per puzzle (one panel each), log2 tau axis; a marker
    where a method's curve steps up."""
    data = performance_profile_data(runs)
    methods, styles = _methods_and_styles(runs)
    puzzles = sorted(data["puzzle"].unique())
    with style.context():
        figure = _new_figure(style, _panels_aspect(*_panel_grid(max(len(puzzles), 1))))
        if data.empty:
            _no_data(figure, style, "runs")
            return save_figure(figure, stem)
        tau_max = max(2.0, float(data["tau"].max()) * 1.25)
        axes = _panels(figure, len(puzzles), sharey=True)
        for ax, puzzle in zip(axes, puzzles):
            for method, frame in data[data["puzzle"] == puzzle].groupby("method", sort=True):
                frame = frame.sort_values("tau")
                x = np.append(frame["tau"].to_numpy(), tau_max)
                y = np.append(frame["fraction"].to_numpy(), frame["fraction"].iloc[-1])
                spec = styles[method]
                ax.step(x, y, where="post", color=spec["color"], linestyle=spec["linestyle"])
                steps = np.diff(np.concatenate([[0.0], y[:-1]])) > 0
                ax.plot(x[:-1][steps], y[:-1][steps], linestyle="none", marker=spec["marker"], color=spec["color"],
                        markersize=3.5)
            ax.set_xscale("log", base=2)
            ax.set_xlim(1, tau_max)
            ax.set_ylim(-0.02, 1.02)
            ax.set_title(style.text(puzzle))
            ax.set_xlabel(r"$\tau$ " + style.text("(time / best time)"))
            ax.grid(which="major", color="0.9")
        for ax in axes[::_panel_grid(len(puzzles))[1]]:
            ax.set_ylabel(style.text("fraction of instances"))
        _legend(figure, style, methods, styles, lines=True, limit=None)
        return save_figure(figure, stem)


def cactus(runs: pd.DataFrame, style: FigureStyle, stem: str | Path) -> list[Path]:
    """Instances solved within time t, per method: one panel per puzzle (log time axis),
    step functions of the sorted solved times; the time limit as a dashed line."""
    data = cactus_data(runs)
    methods, styles = _methods_and_styles(runs)
    times = instance_times(runs)
    puzzles = sorted(times["puzzle"].unique())
    with style.context():
        figure = _new_figure(style, _panels_aspect(*_panel_grid(max(len(puzzles), 1))))
        if times.empty:
            _no_data(figure, style, "runs")
            return save_figure(figure, stem)
        limits = times["time_limit"]
        right = float(limits.max()) if limits.notna().any() else float(data["time"].max() if len(data) else 1.0)
        lowest = float(data["time"].clip(lower=MIN_TIME).min()) if len(data) else right / 10
        for ax, puzzle in zip(_panels(figure, len(puzzles)), puzzles):
            panel = times[times["puzzle"] == puzzle]
            for method in sorted(panel["method"].unique()):
                frame = data[(data["puzzle"] == puzzle) & (data["method"] == method)]
                spec = styles[method]
                x = np.concatenate([[lowest / 2], frame["time"].clip(lower=MIN_TIME).to_numpy(), [right * 1.3]])
                y = np.concatenate([[0], frame["solved"].to_numpy(), [len(frame)]])
                ax.step(x, y, where="post", color=spec["color"], linestyle=spec["linestyle"])
                ax.plot(x[1:-1], y[1:-1], linestyle="none", marker=spec["marker"], color=spec["color"],
                        markersize=3.5)
            _limit_lines(ax, panel["time_limit"], vertical=True)
            ax.set_xscale("log")
            ax.set_xlim(lowest / 2, right * 1.3)
            ax.set_ylim(0, panel["instance"].nunique() + 0.5)
            ax.yaxis.get_major_locator().set_params(integer=True)
            ax.set_title(style.text(puzzle))
            ax.set_xlabel(style.text("time t [s]"))
            ax.set_ylabel(style.text("instances solved within t"))
            ax.grid(which="major", color="0.9")
        _legend(figure, style, methods, styles, lines=True, limit="line" if limits.notna().any() else None)
        return save_figure(figure, stem)


def scaling(runs: pd.DataFrame, style: FigureStyle, stem: str | Path) -> list[Path]:
    """Time against instance size, one panel per puzzle and size measure (a puzzle whose
    instances are measured in different units, e.g. half-turn and quarter-turn depth, gets
    a panel per unit; log time axis), a line through each method's median time per size
    (unsolved counted at the limit). If no run has a size: no file, returns []."""
    data = instance_times(runs)
    data = data[data["size"].notna()]
    if data.empty:
        return []
    data = data.assign(size_label=data["size_label"].fillna("size"))
    styles = _methods_and_styles(runs)[1]
    methods = sorted(data["method"].unique())
    panels = sorted(data.groupby(["puzzle", "size_label"]).groups)
    with style.context():
        figure = _new_figure(style, _panels_aspect(*_panel_grid(len(panels))))
        for ax, (puzzle, unit) in zip(_panels(figure, len(panels)), panels):
            panel = data[(data["puzzle"] == puzzle) & (data["size_label"] == unit)]
            for method, frame in panel.groupby("method", sort=True):
                spec = styles[method]
                _draw_points(ax, frame, frame["size"].to_numpy(dtype=float), spec)
                at_limit = frame["time"].where(frame["solved"].astype(bool), frame["time_limit"])
                line = at_limit.groupby(frame["size"]).median().clip(lower=MIN_TIME)
                ax.plot(line.index, line.to_numpy(), color=spec["color"], linestyle=spec["linestyle"],
                        linewidth=0.9, zorder=2)
            _limit_lines(ax, panel["time_limit"])
            ax.set_xlabel(style.text(str(unit)))
            ax.set_ylabel(style.text("wall time [s]"))
            ax.set_yscale("log")
            ax.set_title(style.text(puzzle))
            ax.grid(which="major", color="0.9")
        _legend(figure, style, methods, styles, lines=True, limit="timeout")
        return save_figure(figure, stem)


def all_figures(runs: pd.DataFrame, style: FigureStyle, directory: str | Path) -> list[Path]:
    """Every figure into `directory` (runtime, profile, cactus, scaling if sizes): all paths."""
    directory = Path(directory)
    paths: list[Path] = []
    for name, draw in (("runtime_per_instance", runtime_per_instance), ("performance_profile", performance_profile),
                       ("cactus", cactus), ("scaling", scaling)):
        paths += draw(runs, style, directory / name)
    return paths
