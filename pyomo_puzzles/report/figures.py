"""Thesis-ready figures of solver runs: runtimes, performance profile, cactus, scaling.

Every figure is drawn on a `matplotlib.figure.Figure` with an Agg canvas (pyplot's global
figure manager and backend are left alone), `FigureStyle.width_in` wide (the LaTeX text
width), and written as ``<stem>.pdf`` and ``<stem>.png`` (200 dpi). A *method* is a
solver / formulation pair.

Two views (`FigureStyle.view`, the configuration's ``figures.view``; `resolve_view`):

- ``methods``: one series per method. Colours (one per solver) come from seaborn's
  colour-blind palette and every formulation also has its own marker and line style, one per
  name in all panels, so the figures read in greyscale.
- ``formulations``: one series per formulation, its *virtual best over the solvers*
  (`best_of_solvers`): per instance the best time of any solver that ran the formulation,
  solved if any of them solved it, an error only if all of them ended in one. Colour, marker
  and line style are all the formulation's (colour and greyscale alike); the legend's title
  says "formulation (best of the solvers)", the report's captions say the same. Seven solvers x four formulations are 28 curves
  in one panel, in which two formulations on one solver cannot be told apart; four curves can.
- ``auto`` (the default): ``formulations`` where the runs compare formulations (some family
  ran at least two formulations on at least two solvers), else ``methods``.

Runtime, performance profile, cactus, scaling, size against time and progress follow the
view; variability and where the time goes are per method whatever the view (they are about
one method's runs). The grey band of the virtual best over every method is the same in both.
Runs that were not solved are drawn at their time limit with an ``x`` (legend: "timeout (at
limit)"), or a ``!`` where they ended in an error; no formulation's marker is a cross.

Times are the configured measure (`pyomo_puzzles.report.measure`; the solver's own time by
default), named on every time axis. Per instance, repeats are combined: the time is the
median of the censored times (see `tables.censored_time`) and the instance counts as solved by a method iff a strict
majority of its repeats were solved.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import subprocess
import warnings
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from pyomo_puzzles.core import registry
from pyomo_puzzles.core.files import write_atomic
from pyomo_puzzles.core.palette import palette
from pyomo_puzzles.report import tables
from pyomo_puzzles.report.measure import DEFAULT, Statistics

POINTS_PER_INCH = 72.27
"""TeX points per inch (LaTeX lengths such as \\textwidth are in TeX points)."""

PNG_DPI = 200
TIMEOUT_MARKER = "x"
TIMEOUT_LABEL = "timeout (at limit)"
ERROR_MARKER = "$!$"
ERROR_LABEL = "error (at limit)"
LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)), (0, (1, 1)), (0, (8, 2, 2, 2)))
MIN_TIME = 1e-6
"""Times below this (seconds) are raised to it: no division by zero, no log of zero."""
METHODS, FORMULATIONS, AUTO = "methods", "formulations", "auto"
VIEWS = (AUTO, FORMULATIONS, METHODS)
"""The figures' views (the schema's ``figures.view`` lists the same): see the module docstring."""
BEST_OF_SOLVERS = "best of the solvers"
"""The solver of the formulation view's series: each formulation's virtual best over the solvers."""


# --- style -------------------------------------------------------------------------------------

_TYPESET_BY_LATEX: ContextVar[bool] = ContextVar("typeset_by_latex", default=False)
"""Set by `FigureStyle.context`: whether `save_figure` saves with the pgf backend."""


def latex_missing() -> list[str]:
    """What typesetting the figures' text with LaTeX lacks here: pdflatex, the pgf package,
    a PDF-to-PNG converter (pdftocairo or Ghostscript); nothing when all are installed."""
    if shutil.which("pdflatex") is None:
        return ["pdflatex"]
    missing = []
    found = subprocess.run(["kpsewhich", "pgf.sty"], capture_output=True, text=True, check=False).stdout.strip() \
        if shutil.which("kpsewhich") else ""
    if not found:
        missing.append("the pgf package (pgf.sty; Debian: texlive-pictures)")
    if shutil.which("pdftocairo") is None and shutil.which("gs") is None:
        missing.append("pdftocairo or gs (Debian: poppler-utils)")
    return missing


_TICKS_STYLE = {
    "figure.facecolor": "white", "axes.facecolor": "white", "axes.edgecolor": ".15", "axes.labelcolor": ".15",
    "text.color": ".15", "xtick.color": ".15", "ytick.color": ".15", "xtick.direction": "out",
    "ytick.direction": "out", "xtick.top": False, "ytick.right": False, "xtick.bottom": True, "ytick.left": True,
    "axes.axisbelow": True, "axes.grid": False, "grid.color": ".8", "grid.linestyle": "-",
    "font.family": ["sans-serif"], "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans",
                                                      "Bitstream Vera Sans", "sans-serif"],
    "lines.solid_capstyle": "round", "patch.edgecolor": "w", "patch.force_edgecolor": True,
    "axes.spines.left": True, "axes.spines.bottom": True, "axes.spines.right": True, "axes.spines.top": True}
"""seaborn's "ticks" style (its colour map aside: no figure draws an image), written out as the
palette is (`core.palette`): importing seaborn imports scipy, a second and a half of every
report job."""

@dataclass
class FigureStyle:
    """Sizes and fonts for a thesis: figures as wide as the LaTeX text, fonts matching it.

    ``text_width_pt`` is LaTeX's ``\\textwidth`` in TeX points (``\\the\\textwidth``); a
    figure is ``text_width_pt / 72.27`` inches wide and its height follows from an aspect
    ratio. ``latex=True`` typesets every text with pdflatex through matplotlib's pgf backend
    (PDF and PNG), in LaTeX's own fonts, as the thesis sets its text, where `pdflatex`, the
    pgf package and a PDF-to-PNG converter (pdftocairo or Ghostscript) are installed
    (`latex_missing`); otherwise it warns once and falls back to matplotlib's mathtext with
    the serif STIX fonts (shipped with matplotlib).
    """

    text_width_pt: float = 418.25
    latex: bool = False
    font_size: float = 9
    solvers: list[str] | None = None
    """Which solvers the figures show, in legend order (None: all, sorted)."""
    formulations: list[str] | None = None
    """Which formulations the figures show, in legend order (None: all, in each family's order)."""
    labels: dict[str, str] = field(default_factory=dict)
    """Display labels of solvers and formulations (e.g. {"highs": "HiGHS"})."""
    view: str = AUTO
    """One series per method, per formulation (best of the solvers), or `auto`: see `resolve_view`."""
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
            missing = latex_missing() if self.latex else []
            if missing:
                warnings.warn(f"FigureStyle(latex=True) but {', '.join(missing)} not found: "
                              "falling back to matplotlib's mathtext", RuntimeWarning, stacklevel=2)
            self._usetex = self.latex and not missing
        return self._usetex

    def rc_params(self) -> dict:
        """The rcParams of this style (fonts, sizes, TrueType fonts in PDFs, colour-blind palette)."""
        size = self.font_size
        params = dict(_TICKS_STYLE)
        params.update({
            "font.size": size, "axes.titlesize": size, "axes.labelsize": size,
            "xtick.labelsize": size - 1, "ytick.labelsize": size - 1, "legend.fontsize": size - 1,
            "legend.title_fontsize": size - 1, "figure.titlesize": size + 1,
            "pdf.fonttype": 42, "ps.fonttype": 42, "savefig.dpi": PNG_DPI,
            "figure.dpi": 100, "figure.constrained_layout.use": True,
            "axes.prop_cycle": mpl.cycler(color=palette(10)),
            "axes.linewidth": 0.6, "lines.linewidth": 1.2, "lines.markersize": 4,
            "xtick.major.width": 0.6, "ytick.major.width": 0.6, "grid.linewidth": 0.4,
            "axes.grid": False, "legend.frameon": False,
            "text.usetex": False,
        })
        if self.usetex:  # matplotlib's pgf backend sets each text with pdflatex when it saves (`save_figure`)
            params.update({"font.family": "serif", "pgf.texsystem": "pdflatex", "pgf.rcfonts": False,
                           "pgf.preamble": ""})
        elif self.latex:
            params.update({"font.family": "serif", "font.serif": ["STIXGeneral", "DejaVu Serif"],
                           "mathtext.fontset": "stix", "axes.formatter.use_mathtext": True})
        else:
            params.update({"font.family": "sans-serif", "mathtext.fontset": "dejavusans"})
        return params

    def apply(self) -> None:
        """Set this style's rcParams globally (the figure functions use `context` instead)."""
        mpl.rcParams.update(self.rc_params())

    @contextmanager
    def context(self) -> Iterator[None]:
        """A context in which this style's rcParams hold (and `save_figure` typesets with
        LaTeX where the style does); global rcParams are restored after."""
        token = _TYPESET_BY_LATEX.set(self.usetex)
        try:
            with mpl.rc_context(self.rc_params()):
                yield
        finally:
            _TYPESET_BY_LATEX.reset(token)

    def text(self, label: str) -> str:
        """A label as plain text: LaTeX's special characters escaped if text goes through LaTeX."""
        return tables.latex_escape(label) if self.usetex else str(label).replace("$", r"\$")


# --- data ------------------------------------------------------------------------------------

def method_label(solver: str, formulation: str) -> str:
    """How a solver / formulation pair is named in figures."""
    return f"{solver} / {formulation}"


def instance_times(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """One row per (puzzle, instance, method): repeats combined.

    Columns: puzzle, instance, method, solver, formulation, time (median censored time over
    repeats), solved (strict majority of repeats solved), error (not solved, and most of the
    unsolved repeats ended in an error rather than a limit), time_limit (median over
    repeats), repeats, size, size_label.
    """
    columns = ["puzzle", "instance", "method", "solver", "formulation", "time", "solved", "error", "time_limit",
               "repeats", "size", "size_label"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    size = pd.to_numeric(tables._column(runs, "size"), errors="coerce").astype(float)
    table = pd.DataFrame({
        "puzzle": tables._column(runs, "puzzle").fillna("?").astype(str),
        "instance": tables._column(runs, "instance").astype(str),
        "solver": tables._column(runs, "solver").astype(str),
        "formulation": tables._column(runs, "formulation").astype(str),
        "time": tables.censored_time(runs, stats), "solved": tables.solved(runs),
        "errored": tables._column(runs, "status").astype(str) == "error",
        "time_limit": tables.time_limits(runs), "size": size,
        "size_label": tables._column(runs, "size_label"),
    }, index=runs.index)
    table["method"] = [method_label(s, f) for s, f in zip(table["solver"], table["formulation"])]
    grouped = table.groupby(["puzzle", "instance", "method"], sort=True)
    out = grouped.agg(solver=("solver", "first"), formulation=("formulation", "first"),
                      time=("time", "median"), solved_runs=("solved", "sum"), repeats=("solved", "size"),
                      errors=("errored", "sum"),
                      time_limit=("time_limit", "median"), size=("size", "first"),
                      size_label=("size_label", "first")).reset_index()
    out["solved"] = out["solved_runs"] > out["repeats"] / 2
    out["error"] = ~out["solved"] & (out["errors"] > (out["repeats"] - out["solved_runs"]) / 2)
    return out[columns]


def best_of_solvers(times: pd.DataFrame) -> pd.DataFrame:
    """The formulation view of `instance_times`: one row per (puzzle, instance, formulation),
    the formulation's virtual best over the solvers that ran it there.

    time: the smallest time of a solver that solved it (none did: the smallest censored
    time, about the limit); solved: some solver solved it; error: every solver ended in an
    error (one that ran out of time makes it a time-out); time_limit: the largest; repeats:
    the most of any solver. solver is `BEST_OF_SOLVERS` and method its `method_label`, so that
    the series are drawn, ranked and profiled as methods are; the columns are `instance_times`'s.
    """
    columns = list(times.columns)
    if times.empty:
        return times.copy()
    solved = times["solved"].astype(bool)
    grouped = times.assign(solved_time=times["time"].where(solved), solved=solved,
                           error=times["error"].astype(bool)).groupby(["puzzle", "instance", "formulation"], sort=True)
    out = grouped.agg(best_solved=("solved_time", "min"), best_any=("time", "min"), solved=("solved", "any"),
                      error=("error", "all"), time_limit=("time_limit", "max"), repeats=("repeats", "max"),
                      size=("size", "first"), size_label=("size_label", "first")).reset_index()
    out["time"] = out["best_solved"].where(out["solved"], out["best_any"])
    out["error"] = out["error"] & ~out["solved"]
    out["solver"] = BEST_OF_SOLVERS
    out["method"] = [method_label(BEST_OF_SOLVERS, f) for f in out["formulation"]]
    return out[columns]


def formulation_times(runs: pd.DataFrame, stats: Statistics = DEFAULT) -> pd.DataFrame:
    """Per (puzzle, instance, formulation), the best of the solvers (`best_of_solvers` of
    `instance_times`: repeats combined per method first)."""
    return best_of_solvers(instance_times(runs, stats))


def compares_formulations(runs: pd.DataFrame) -> bool:
    """Whether the runs compare formulations: some family ran at least two formulations and
    at least two solvers (with one solver, the best of the solvers is that solver)."""
    if runs.empty:
        return False
    table = pd.DataFrame({"puzzle": tables._column(runs, "puzzle").fillna("?").astype(str),
                          "formulation": tables._column(runs, "formulation").astype(str),
                          "solver": tables._column(runs, "solver").astype(str)})
    counts = table.groupby("puzzle").nunique()
    return bool(((counts["formulation"] >= 2) & (counts["solver"] >= 2)).any())


def resolve_view(runs: pd.DataFrame, view: str = AUTO) -> str:
    """The view the figures of `runs` are drawn in: `view`, or for ``auto`` ``formulations``
    where the runs compare formulations (`compares_formulations`), else ``methods``."""
    if view not in VIEWS:
        raise ValueError(f"unknown figure view {view!r} (choose from {', '.join(VIEWS)})")
    if view != AUTO:
        return view
    return FORMULATIONS if compares_formulations(runs) else METHODS


def resolved_style(runs: pd.DataFrame, style: FigureStyle) -> FigureStyle:
    """The style with its view resolved on the runs it shows (`select_runs`), so that every
    figure of one report is drawn in the same view."""
    return dataclasses.replace(style, view=resolve_view(select_runs(runs, style), style.view))


def view_times(runs: pd.DataFrame, stats: Statistics = DEFAULT, view: str = METHODS) -> pd.DataFrame:
    """The series of the view (``auto`` resolved on `runs`): `instance_times` per method, or
    `formulation_times` per formulation."""
    return formulation_times(runs, stats) if resolve_view(runs, view) == FORMULATIONS else instance_times(runs, stats)


def view_sentence(view: str) -> str:
    """The resolved view as the report names it, before its figures."""
    if view == FORMULATIONS:
        return ("Figures per formulation, the best of the solvers (figures.view; methods draws every solver / "
                "formulation pair): per instance, each formulation's best time over the solvers that ran it, solved "
                "if any of them solved it, an error only if all of them ended in one; colour, marker and line style: "
                "formulation. Variability and where the time goes stay per method.")
    return ("Figures per method (figures.view; formulations draws each formulation's best of the solvers): colour: "
            "solver; marker and line style: formulation.")


def performance_ratios(runs: pd.DataFrame, stats: Statistics = DEFAULT, view: str = METHODS) -> pd.DataFrame:
    """Dolan-More ratios per (puzzle, instance, method): time / best time on that instance.
    In the formulation view (`view_times`) the methods are the formulations' best of the solvers.

    Puzzles are kept apart (formulations are family-specific). Within a puzzle, every
    method that ran any of its instances is compared on the instances it ran; an instance it
    ran and did not solve has time and ratio infinity. An instance it did not run is one its
    formulation does not apply to (the experiment leaves those out): ``applies`` is False
    there and time and ratio are NaN, neither solved nor failed. The best time is the
    smallest solved time of any method; if no method solved the instance, the ratios of the
    methods that ran it are infinite. Columns: puzzle, instance, method, applies, time, best,
    ratio.
    """
    data = view_times(runs, stats, view)
    frames = []
    for puzzle, group in data.groupby("puzzle", sort=True):
        grid = pd.MultiIndex.from_product([sorted(group["instance"].unique()), sorted(group["method"].unique())],
                                          names=["instance", "method"])
        times = group.set_index(["instance", "method"])
        time = times["time"].clip(lower=MIN_TIME).where(times["solved"], math.inf).reindex(grid)
        frame = time.rename("time").reset_index()
        frame.insert(2, "applies", frame["time"].notna())
        frame["best"] = frame.groupby("instance")["time"].transform("min")
        frame["ratio"] = np.where(np.isfinite(frame["best"]), frame["time"] / frame["best"],
                                  np.where(frame["applies"], math.inf, math.nan))
        frame.insert(0, "puzzle", puzzle)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["puzzle", "instance", "method", "applies", "time", "best", "ratio"])
    return pd.concat(frames, ignore_index=True)


def performance_profile_data(runs: pd.DataFrame, taus: Sequence[float] | None = None,
                             stats: Statistics = DEFAULT, view: str = METHODS) -> pd.DataFrame:
    """The Dolan-More performance profile: for each puzzle and method, the fraction of the
    instances the method applies to with ratio t / t_best <= tau (unsolved: ratio infinity;
    instances its formulation does not apply to are left out, see `performance_ratios`).

    ``taus``: where to evaluate it; by default at its breakpoints (1 and every finite ratio
    of the puzzle), where the step function changes. Columns: puzzle, method, tau, fraction,
    instances (those the method applies to), of (the puzzle's instances).
    """
    ratios = performance_ratios(runs, stats, view)
    rows = []
    for puzzle, group in ratios.groupby("puzzle", sort=True):
        finite = group["ratio"][np.isfinite(group["ratio"])]
        points = sorted(set(taus) if taus is not None else {1.0, *finite.tolist()})
        total = group["instance"].nunique()
        for method, by_method in group.groupby("method", sort=True):
            values = by_method.loc[by_method["applies"], "ratio"].to_numpy()
            for tau in points:
                rows.append({"puzzle": puzzle, "method": method, "tau": float(tau),
                             "fraction": float(np.mean(values <= tau)), "instances": len(values), "of": total})
    return pd.DataFrame(rows, columns=["puzzle", "method", "tau", "fraction", "instances", "of"])


def cactus_data(runs: pd.DataFrame, stats: Statistics = DEFAULT, view: str = METHODS) -> pd.DataFrame:
    """Per puzzle and method (of the view, `view_times`), its solved instances sorted by time:
    the k-th row says k of the puzzle's instances were solved within `time` seconds (median
    over repeats). Columns: puzzle, method, solved, time. A method that solved nothing has no rows.
    """
    data = view_times(runs, stats, view)
    rows = []
    for (puzzle, method), group in data.groupby(["puzzle", "method"], sort=True):
        times = sorted(group.loc[group["solved"].astype(bool), "time"].tolist())
        rows += [{"puzzle": puzzle, "method": method, "solved": k, "time": float(t)}
                 for k, t in enumerate(times, start=1)]
    return pd.DataFrame(rows, columns=["puzzle", "method", "solved", "time"])


# --- the encoding: colour = solver (or formulation), marker and line style = formulation ------

SOLVER_COLOUR_INDEX = {"highs": 0, "cbc": 1, "glpk": 2, "scip": 4, "gurobi": 3, "cplex": 5, "cpsat": 6, "dlx": 8}
"""Fixed colours (index into seaborn's 10 colour-blind colours) for the solvers that ship, so
a solver has the same colour in every figure and every results folder. Grey (7) is kept for
time limits; other solvers get a colour from their name (stable, but may repeat)."""
FORMULATION_MARKERS = ("o", "s", "^", "D", "v", "<", ">", "p", "h", "*")
"""Filled shapes that differ at a glance, and no cross among them: an x marks a run not solved
(`TIMEOUT_MARKER`), and a filled X or plus read as one. With the eight line styles, no two of
up to 40 formulations look alike in a figure of lines."""
FORMULATION_COLOUR_INDEX = (0, 1, 2, 4, 3, 5, 6, 9, 8)
"""The formulation view's colours, by rank (index into seaborn's 10 colour-blind colours): blue
and orange first, the pair told apart best by every kind of colour vision; no grey (7), which is
the time limit's and the virtual best's."""
FORMULATION_VIEW_HEADER = f"formulation ({BEST_OF_SOLVERS})"
"""The legend's title in the formulation view: it names the view in every figure drawn in it."""
VIRTUAL_BEST = "virtual best"
VIRTUAL_BEST_LINE = {"color": "0.72", "linewidth": 3.4, "zorder": 1, "solid_capstyle": "butt"}
"""The virtual best's curve: a wide grey band under the methods' curves, so that the method that
is the virtual best stays visible on top of it (a black line on top hid it)."""


def solver_colour(solver: str) -> tuple:
    """The solver's colour: fixed for the shipped solvers, from a hash of the name otherwise."""
    colours = palette(10)
    index = SOLVER_COLOUR_INDEX.get(solver)
    if index is None:
        free = [i for i in range(10) if i not in SOLVER_COLOUR_INDEX.values() and i != 7]
        index = free[zlib.crc32(solver.encode()) % len(free)]
    return colours[index]


def formulation_colour(rank: int) -> tuple:
    """The colour of the rank-th formulation of a figure in the formulation view."""
    return palette(10)[FORMULATION_COLOUR_INDEX[rank % len(FORMULATION_COLOUR_INDEX)]]


def _family_formulations(puzzle: str) -> list[str]:
    """The family's formulations in its own order (empty if the family is not installed)."""
    try:
        return list(registry.family(puzzle).formulations)
    except Exception:  # noqa: BLE001 - a results folder may hold a family this machine lacks
        return []


def _family_order(puzzle: str, formulations: Sequence[str]) -> list[str]:
    """A family's formulations in its own order, others (its reference methods' exact_cover,
    a formulation file's) after them by name."""
    known = _family_formulations(puzzle)
    return [f for f in known if f in formulations] + sorted(set(formulations) - set(known))


def formulation_mark(rank: int) -> dict:
    """Marker and line style of the rank-th formulation of a figure."""
    return {"marker": FORMULATION_MARKERS[rank % len(FORMULATION_MARKERS)],
            "linestyle": LINE_STYLES[rank % len(LINE_STYLES)]}


def _ordered(values: Sequence[str], wanted: Sequence[str] | None) -> list[str]:
    present = set(values)
    return [v for v in wanted if v in present] if wanted else sorted(present)


@dataclass
class Encoding:
    """Solvers (colours) and formulations (markers, line styles) of the figures' runs, in
    legend order, with their display labels. In the formulation view the one solver is
    `BEST_OF_SOLVERS` and each formulation's mark has its colour too."""

    solvers: list[str]
    formulations: dict[str, list[str]]  # per puzzle
    marks: dict[str, dict]  # formulation -> marker, line style (and colour): one per name, whatever its family
    labels: dict[str, str]
    view: str = METHODS

    def spec(self, puzzle: str, solver: str, formulation: str) -> dict:
        return {"color": solver_colour(solver), **self.marks[formulation]}

    def label(self, name: str) -> str:
        return self.labels.get(name, name)

    def restricted(self, drawn: pd.DataFrame) -> "Encoding":
        """The same marks, with only the solvers and formulations of `drawn` (the legend of
        a figure lists what it shows)."""
        pairs = set(zip(drawn["puzzle"].astype(str), drawn["formulation"].astype(str)))
        solvers = (self.solvers if self.view == FORMULATIONS  # the best of whichever solvers drew it
                   else [s for s in self.solvers if s in set(drawn["solver"].astype(str))])
        formulations = {p: [f for f in names if (p, f) in pairs] for p, names in self.formulations.items()}
        return Encoding(solvers, {p: f for p, f in formulations.items() if f}, self.marks, self.labels, self.view)

    def ordered_formulations(self) -> list[str]:
        """The formulations in legend order, each name once: two families' dlx are both filed
        under exact_cover, and are one entry with one mark in every panel."""
        return _each_once(self.formulations)


def _each_once(formulations: dict[str, list[str]]) -> list[str]:
    """The formulation names of all families, in order, each once."""
    return list(dict.fromkeys(name for names in formulations.values() for name in names))


def select_runs(runs: pd.DataFrame, style: FigureStyle) -> pd.DataFrame:
    """The runs the figures show: the configured solvers and formulations, if any are given."""
    keep = pd.Series(True, index=runs.index)
    if style.solvers:
        keep &= tables._column(runs, "solver").astype(str).isin(style.solvers)
    if style.formulations:
        keep &= tables._column(runs, "formulation").astype(str).isin(style.formulations)
    return runs[keep]


def encoding(runs: pd.DataFrame, style: FigureStyle, view: str = METHODS) -> Encoding:
    """Colours by solver; markers and line styles by formulation name, numbered through the
    families (in each family's own order) so that no two formulations of a figure look alike,
    and a name two families share looks the same in both panels. In the formulation view
    (``auto`` resolved on `runs`) the colours are by formulation too, and the one solver is
    `BEST_OF_SOLVERS`."""
    view = resolve_view(runs, view)
    solvers = _ordered(tables._column(runs, "solver").astype(str).unique(), style.solvers)
    formulations = {}
    puzzles = tables._column(runs, "puzzle").fillna("?").astype(str)
    for puzzle in sorted(puzzles.unique()):
        present = tables._column(runs, "formulation").astype(str)[puzzles == puzzle].unique()
        formulations[puzzle] = (_ordered(present, style.formulations) if style.formulations
                                else _family_order(puzzle, present))
    marks = {name: formulation_mark(rank) for rank, name in enumerate(_each_once(formulations))}
    if view == FORMULATIONS:
        marks = {name: {**mark, "color": formulation_colour(rank)} for rank, (name, mark) in enumerate(marks.items())}
        solvers = [BEST_OF_SOLVERS]
    return Encoding(solvers, formulations, marks, dict(style.labels or {}), view)


# --- drawing helpers ---------------------------------------------------------------------------

def _new_figure(style: FigureStyle, aspect: float) -> Figure:
    figure = Figure(figsize=style.figsize(aspect))
    FigureCanvasAgg(figure)
    return figure


def _panel_grid(count: int) -> tuple[int, int]:
    columns = 1 if count == 1 else 2
    return math.ceil(count / columns), columns


def _panels_aspect(rows: int, columns: int, legend_rows: int) -> float:
    """Height / width of a figure of panels, with room for the legends below."""
    return rows * (0.5 if columns == 1 else 0.4) + 0.06 + 0.035 * legend_rows


def _panels(figure: Figure, count: int, **kwargs) -> list:
    """`count` axes in a grid of up to two columns; unused cells are hidden."""
    rows, columns = _panel_grid(count)
    axes = figure.subplots(rows, columns, squeeze=False, **kwargs).flatten()
    for ax in axes[count:]:
        ax.set_axis_off()
    return list(axes[:count])


def _limit_entries(style: FigureStyle, limit: str | None) -> list[Line2D]:
    """The legend's entries for what is drawn at the time limit: time-outs, errors, or the limit's line."""
    entries = []
    if limit in ("timeout", "timeout and error"):
        entries.append(Line2D([], [], color="0.45", marker=TIMEOUT_MARKER, linestyle="--", linewidth=0.8,
                              label=style.text(TIMEOUT_LABEL)))
    if limit == "timeout and error":
        entries.append(Line2D([], [], color="0.45", marker=ERROR_MARKER, linestyle="none",
                              label=style.text(ERROR_LABEL)))
    elif limit == "line":
        entries.append(Line2D([], [], color="0.45", linestyle="--", linewidth=0.8, label=style.text("time limit")))
    return entries


def legend_title(codes: Encoding) -> str | None:
    """The title above a figure's legend: `FORMULATION_VIEW_HEADER` in the formulation view
    (its long header would widen the first column of a legend of several rows), else none."""
    return FORMULATION_VIEW_HEADER if codes.view == FORMULATIONS else None


def _legend_groups(style: FigureStyle, codes: Encoding, lines: bool, limit: str | None,
                   virtual_best: bool) -> list[tuple[str | None, list[Line2D]]]:
    """The legend's groups, each (header, entries). Methods view: solvers (colours; the virtual
    best as a grey band) and formulations (markers and line styles in grey; the time limit's
    entry). Formulation view: one group without a header (`legend_title` names it), each
    formulation in its colour, marker and line style, then the virtual best and the time
    limit's entries."""
    best = [Line2D([], [], **VIRTUAL_BEST_LINE, label=style.text(VIRTUAL_BEST))] if virtual_best else []
    limits = _limit_entries(style, limit)
    if codes.view == FORMULATIONS:
        formulations = [Line2D([], [], color=codes.marks[name]["color"], marker=codes.marks[name]["marker"],
                               linestyle=codes.marks[name]["linestyle"] if lines else "none",
                               label=style.text(codes.label(name))) for name in codes.ordered_formulations()]
        return [(None, formulations + best + limits)]
    solvers = [Line2D([], [], color=solver_colour(s), marker="s", linestyle="-" if lines else "none",
                      label=style.text(codes.label(s))) for s in codes.solvers]
    formulations = []
    for name in codes.ordered_formulations():
        mark = codes.marks[name]
        formulations.append(Line2D([], [], color="0.3", marker=mark["marker"], linestyle=mark["linestyle"] if lines
                                   else "none", label=style.text(codes.label(name))))
    return [(title, group) for title, group in (("solver", solvers + best), ("formulation", formulations + limits))
            if group]


def _with_header(style: FigureStyle, title: str | None, group: list[Line2D]) -> list[Line2D]:
    """A group's entries after its header (a line without a handle), if it has one."""
    return ([Line2D([], [], linestyle="none", label=style.text(title + ":"))] if title else []) + group


def _legend_shape(style: FigureStyle, groups: list[tuple[str | None, list[Line2D]]]) -> int:
    """Rows of the legend: the fewest that keep its estimated width within the figure."""
    def width(rows: int) -> float:
        points = 0.0
        for title, group in groups:
            entries = _with_header(style, title, group)
            for column in range(0, len(entries), rows):
                labels = [h.get_label() for h in entries[column:column + rows]]
                points += 0.6 * (style.font_size - 1) * max([len(x) for x in labels] + [8]) + 3.2 * style.font_size
        return points
    rows = 1
    while width(rows) > 0.95 * style.text_width_pt and rows < max(len(g) for _, g in groups) + 1:
        rows += 1
    return rows


def _legend_rows(style: FigureStyle, codes: Encoding) -> int:
    """The legend's rows (its title's among them) at most, for the figure's height."""
    rows = _legend_shape(style, _legend_groups(style, codes, True, "timeout and error", True))
    return rows + (legend_title(codes) is not None)


def _legends(figure: Figure, style: FigureStyle, codes: Encoding, lines: bool, limit: str | None,
             virtual_best: bool = False) -> None:
    """One legend below the panels, in column groups each under its header: 'solver:' and the
    solvers' colours, then 'formulation:' and the markers and line styles; in the formulation
    view one group under the legend's title, 'formulation (best of the solvers)'."""
    groups = _legend_groups(style, codes, lines, limit, virtual_best)
    if not groups:
        return
    rows = _legend_shape(style, groups)
    handles = []
    for title, group in groups:
        entries = _with_header(style, title, group)
        entries += [Line2D([], [], linestyle="none", label=" ")] * (-len(entries) % rows)
        handles += entries
    title = legend_title(codes)
    figure.legend(handles=handles, loc="outside lower center", ncol=len(handles) // rows, handlelength=2.0,
                  columnspacing=1.2, handletextpad=0.5, title=style.text(title) if title else None)


def _plain_log_axis(axis, values=None) -> None:
    """Log-axis ticks as plain numbers (0.01, 1, 100), not 10^k or '6 x 10^1'; ticks at
    1, 2 and 5 times a power of ten where `values` span less than two decades."""
    finite = np.asarray([v for v in (values if values is not None else []) if np.isfinite(v) and v > 0])
    decades = np.log10(finite.max() / finite.min()) if len(finite) else 3.0
    subs = tuple(range(1, 10)) if decades < 0.7 else (1.0, 2.0, 5.0) if decades < 2 else (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


def _limit_lines(ax, limits: pd.Series, vertical: bool = False) -> None:
    for limit in sorted(set(limits.dropna().tolist())):
        (ax.axvline if vertical else ax.axhline)(limit, color="0.45", linestyle="--", linewidth=0.8, zorder=1)


def _no_data(figure: Figure, style: FigureStyle, what: str) -> None:
    ax = figure.add_subplot()
    ax.text(0.5, 0.5, style.text(f"no {what}"), ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


INSPECTORS: list = []
"""Functions called with every figure just before it is saved (the tests check layouts here)."""


def layout_problems(figure: Figure, style: FigureStyle) -> list[str]:
    """What breaks the style in a drawn figure: a text whose size is not the style's font
    size (or one point less, for ticks and legends), or a text or legend that reaches
    outside the figure."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    problems = []
    for text in figure.findobj(Text):
        if text.get_visible() and text.get_text().strip():
            size = text.get_fontsize()
            if not style.font_size - 1 <= size <= style.font_size:
                problems.append(f"text {text.get_text()!r} is {size:g} pt, not {style.font_size:g}")
    drawn = figure.get_tightbbox(renderer)  # inches; every drawn artist, legends and labels included
    width, height = figure.get_size_inches()
    if drawn.x0 < -0.01 or drawn.y0 < -0.01 or drawn.x1 > width + 0.01 or drawn.y1 > height + 0.01:
        problems.append(f"drawn parts reach outside the figure: {drawn.bounds} in a {width:.2f} x {height:.2f} in figure")
    return problems


def save_figure(figure: Figure, stem: str | Path) -> list[Path]:
    """Write ``<stem>.pdf`` and ``<stem>.png`` (200 dpi), then free the figure; return [pdf, png].
    Within a LaTeX style's `FigureStyle.context`, pdflatex sets the text of both (pgf backend)."""
    for inspect in INSPECTORS:
        inspect(figure)
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_name(stem.name + ".pdf"), stem.with_name(stem.name + ".png")]
    backend = "pgf" if _TYPESET_BY_LATEX.get() else None
    write_atomic(paths[0], lambda tmp: figure.savefig(tmp, format="pdf", backend=backend,
                                                      metadata={"CreationDate": None}))
    write_atomic(paths[1], lambda tmp: figure.savefig(tmp, format="png", dpi=PNG_DPI, backend=backend))
    figure.clear()
    return paths


def _draw_points(ax, frame: pd.DataFrame, x: np.ndarray, spec: dict) -> None:
    """Solved: the method's marker at its time; stopped by a limit: an x at the time limit;
    ended in an error: an exclamation mark there."""
    solved = frame["solved"].to_numpy(dtype=bool)
    error = frame["error"].to_numpy(dtype=bool)
    limit = frame["time_limit"].to_numpy()
    ax.scatter(x[solved], frame["time"].clip(lower=MIN_TIME).to_numpy()[solved], marker=spec["marker"],
               color=spec["color"], s=14, linewidths=0.4, edgecolors="black", zorder=3)
    timed_out = ~solved & ~error
    ax.scatter(x[timed_out], limit[timed_out], marker=TIMEOUT_MARKER, color=spec["color"], s=20, linewidths=1.0,
               zorder=3)
    ax.scatter(x[error], limit[error], marker=ERROR_MARKER, color=spec["color"], s=30, linewidths=0.6, zorder=3)


def _instance_order(data: pd.DataFrame) -> pd.DataFrame:
    """Instances by best solved time (unsolved last), then by name."""
    best = data[data["solved"].astype(bool)].groupby("instance")["time"].min()
    order = data[["puzzle", "instance"]].drop_duplicates()
    order = order.assign(best=order["instance"].map(best).fillna(math.inf))
    return order.sort_values(["puzzle", "best", "instance"]).reset_index(drop=True)


TICK_LABEL_WIDTH = 22
"""Characters per line of an instance's tick label; longer names wrap at underscores."""


def _short_name(instance: str, puzzle: str) -> str:
    """The instance's name without its puzzle (the panel says it) and without the library's
    folder, generated ones marked by a star; a long name wrapped at its underscores (the
    library's generated instances are named by their options)."""
    generated = f"generated/{puzzle}/"
    if instance.startswith(generated):
        name = "*" + instance.removeprefix(generated)
    else:
        name = instance.removeprefix(f"{puzzle}/").removeprefix("library/")
    return _wrapped(name, TICK_LABEL_WIDTH)


def _wrapped(name: str, width: int) -> str:
    lines = [""]
    for part in name.split("_"):
        if lines[-1] and len(lines[-1]) + 1 + len(part) > width:
            lines.append(part)
        else:
            lines[-1] = f"{lines[-1]}_{part}" if lines[-1] else part
    return "\n".join(lines)


def _methods_of(group: pd.DataFrame, codes: Encoding, puzzle: str) -> list[tuple[str, str]]:
    """(solver, formulation) pairs of a family's data, in legend order."""
    pairs = set(zip(group["solver"], group["formulation"]))
    return [(s, f) for f in codes.formulations[puzzle] for s in codes.solvers if (s, f) in pairs]


def _with_runs(runs: pd.DataFrame, style: FigureStyle, view: str | None = None) -> tuple[pd.DataFrame, Encoding]:
    """The runs a figure shows (`select_runs`; a run a size-limited licence refused says nothing
    of speed and is left out) and their encoding in `view` (default: the style's), ``auto``
    resolved on the runs shown."""
    runs = select_runs(runs, style)
    runs = runs[tables._column(runs, "status") != "licence_limit"]
    return runs, encoding(runs, style, style.view if view is None else view)


def licence_refused(runs: pd.DataFrame, view: str) -> dict[tuple[str, str], int]:
    """(puzzle, method) -> how many instances a size-limited licence refused it on, where it then
    has no time: in the methods view a solver's; in the formulation view a formulation's, where
    every solver that ran it there was refused."""
    status = tables._column(runs, "status").astype(str)
    frame = pd.DataFrame({"puzzle": tables._column(runs, "puzzle").fillna("?").astype(str),
                          "instance": tables._column(runs, "instance").astype(str),
                          "solver": tables._column(runs, "solver").astype(str),
                          "formulation": tables._column(runs, "formulation").astype(str),
                          "refused": status == "licence_limit"})
    if view == FORMULATIONS:
        cells = frame.groupby(["puzzle", "formulation", "instance"])["refused"].all()
        counts = cells[cells].groupby(level=["puzzle", "formulation"]).size()
        return {(p, method_label(BEST_OF_SOLVERS, f)): int(n) for (p, f), n in counts.items()}
    cells = frame[frame["refused"]].groupby(["puzzle", "solver", "formulation"])["instance"].nunique()
    return {(p, method_label(s, f)): int(n) for (p, s, f), n in cells.items()}


# --- figures -----------------------------------------------------------------------------------

def _instance_axis(ax, style: FigureStyle, order: pd.DataFrame) -> None:
    if len(order) <= 40:
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels([style.text(_short_name(i, p)) for i, p in zip(order["instance"], order["puzzle"])],
                           rotation=50, ha="right", rotation_mode="anchor", fontsize=style.font_size - 1)
    else:
        ax.set_xticks([])
        ax.set_xlabel(style.text(f"{len(order)} instances, by best time"))


def runtime_per_instance(runs: pd.DataFrame, style: FigureStyle, stem: str | Path,
                         stats: Statistics = DEFAULT) -> list[Path]:
    """The time measure per instance (median over repeats, log scale), one panel per family:
    per method colour = solver, marker = formulation, or in the formulation view colour and
    marker = formulation (the best of the solvers); unsolved at the time limit with an ``x``,
    the limit as a dashed line. Instances are sorted by their best time."""
    runs, codes = _with_runs(runs, style)
    data = view_times(runs, stats, codes.view)
    puzzles = sorted(data["puzzle"].unique())
    with style.context():
        figure = _new_figure(style, 0.36 * max(len(puzzles), 1) + 0.06 + 0.035 * _legend_rows(style, codes))
        if data.empty:
            _no_data(figure, style, "runs")
            return save_figure(figure, stem)
        axes = figure.subplots(len(puzzles), 1, squeeze=False).flatten()
        for ax, puzzle in zip(axes, puzzles):
            group = data[data["puzzle"] == puzzle]
            order = _instance_order(group)
            position = {name: i for i, name in enumerate(order["instance"])}
            methods = _methods_of(group, codes, puzzle)
            width = min(0.8 / len(methods), 0.15)
            for i, (solver, formulation) in enumerate(methods):
                frame = group[(group["solver"] == solver) & (group["formulation"] == formulation)]
                x = frame["instance"].map(position).to_numpy(dtype=float) + (i - (len(methods) - 1) / 2) * width
                _draw_points(ax, frame, x, codes.spec(puzzle, solver, formulation))
            _limit_lines(ax, group["time_limit"])
            ax.set_yscale("log")
            _plain_log_axis(ax.yaxis, [*group["time"], *group["time_limit"]])
            ax.set_xlim(-0.6, len(position) - 0.4)
            ax.set_ylabel(style.text(stats.axis_label()))
            ax.set_title(style.text(puzzle))
            _instance_axis(ax, style, order)
            ax.grid(axis="y", which="major", color="0.9")
        _legends(figure, style, codes, lines=False, limit="timeout and error" if data["error"].any() else "timeout")
        return save_figure(figure, stem)


def _virtual_best_profile(ratios: pd.DataFrame, taus: np.ndarray) -> np.ndarray:
    """The virtual best method's profile: ratio 1 on every instance some method solved."""
    solved_by_any = ratios.groupby("instance")["ratio"].min().apply(np.isfinite)
    return np.full(len(taus), float(solved_by_any.mean()))


def _note_partial_formulations(ax, style: FigureStyle, panel: pd.DataFrame, puzzle: str,
                               refused: dict[tuple[str, str], int] | None = None) -> None:
    """Say in the panel which curves are over only some of its instances (they are fractions
    of those), and why: a formulation that does not apply to the others, or a size-limited
    licence that refused a method's runs there (`licence_refused`: they have no time)."""
    refused = refused or {}
    sizes = panel.groupby("method")[["instances", "of"]].max()
    lines = []
    for method, row in sizes[sizes["instances"] < sizes["of"]].iterrows():
        formulation = method.split(" / ", 1)[1]
        count = refused.get((puzzle, method), 0)
        lines.append(f"{method}: {int(row.instances)} of {int(row.of)}, a licence refused {count}" if count
                     else f"{formulation}: applies to {int(row.instances)} of {int(row.of)}")
    lines = list(dict.fromkeys(lines))
    if not lines:
        return
    ax.text(0.98, 0.03, style.text("\n".join(lines)), transform=ax.transAxes, ha="right", va="bottom",
            fontsize=style.font_size - 1, color="0.3", zorder=5)


def performance_profile(runs: pd.DataFrame, style: FigureStyle, stem: str | Path,
                        stats: Statistics = DEFAULT) -> list[Path]:
    """Dolan-More performance profile per family (one panel each), log2 tau axis, with the
    virtual best method (the best of all methods on each instance) as a grey band under the curves. A method's curve
    is over the instances its formulation applies to; a formulation that applies to only some
    of the family's instances is named in the panel with how many. In the formulation view the
    methods are the formulations' best of the solvers."""
    refused_runs = select_runs(runs, style)
    runs, codes = _with_runs(runs, style)
    refused = licence_refused(refused_runs, codes.view)
    data = performance_profile_data(runs, stats=stats, view=codes.view)
    ratios = performance_ratios(runs, stats, codes.view)
    puzzles = sorted(data["puzzle"].unique())
    with style.context():
        figure = _new_figure(style, _panels_aspect(*_panel_grid(max(len(puzzles), 1)), _legend_rows(style, codes)))
        if data.empty:
            _no_data(figure, style, "runs")
            return save_figure(figure, stem)
        tau_max = max(2.0, float(data["tau"].max()) * 1.25)
        axes = _panels(figure, len(puzzles), sharey=True)
        for ax, puzzle in zip(axes, puzzles):
            panel = data[data["puzzle"] == puzzle]
            for solver, formulation in _methods_of(panel.assign(
                    solver=panel["method"].str.split(" / ").str[0],
                    formulation=panel["method"].str.split(" / ", n=1).str[1]), codes, puzzle):
                frame = panel[panel["method"] == method_label(solver, formulation)].sort_values("tau")
                x = np.append(frame["tau"].to_numpy(), tau_max)
                y = np.append(frame["fraction"].to_numpy(), frame["fraction"].iloc[-1])
                spec = codes.spec(puzzle, solver, formulation)
                ax.step(x, y, where="post", color=spec["color"], linestyle=spec["linestyle"])
                steps = np.diff(np.concatenate([[0.0], y[:-1]])) > 0
                ax.plot(x[:-1][steps], y[:-1][steps], linestyle="none", marker=spec["marker"], color=spec["color"],
                        markersize=3.5)
            _note_partial_formulations(ax, style, panel, puzzle, refused)
            best = _virtual_best_profile(ratios[ratios["puzzle"] == puzzle], np.array([1.0, tau_max]))
            ax.step([1.0, tau_max], best, where="post", **VIRTUAL_BEST_LINE)
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(mpl.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
            ax.xaxis.set_minor_formatter(mpl.ticker.NullFormatter())
            ax.set_xlim(1, tau_max)
            ax.set_ylim(-0.02, 1.02)
            ax.set_title(style.text(puzzle))
            ax.set_xlabel(r"$\tau$ = " + style.text(f"{stats.name}\n/ best {stats.name}"))
            ax.grid(which="major", color="0.9")
        for ax in axes[::_panel_grid(len(puzzles))[1]]:
            ax.set_ylabel(style.text("fraction of instances"))
        _legends(figure, style, codes, lines=True, limit=None, virtual_best=True)
        return save_figure(figure, stem)


def _virtual_best_times(times: pd.DataFrame) -> np.ndarray:
    """Per instance, the best solved time of any method (instances nobody solved left out)."""
    solved = times[times["solved"].astype(bool)]
    return np.sort(solved.groupby("instance")["time"].min().clip(lower=MIN_TIME).to_numpy())


def cactus(runs: pd.DataFrame, style: FigureStyle, stem: str | Path, stats: Statistics = DEFAULT) -> list[Path]:
    """Instances solved within time t, per method, one panel per family (log time axis),
    with the virtual best method as a grey band under the curves; the time limit as a dashed line.
    In the formulation view one curve per formulation, its best of the solvers."""
    runs, codes = _with_runs(runs, style)
    data = cactus_data(runs, stats, codes.view)
    times = view_times(runs, stats, codes.view)
    puzzles = sorted(times["puzzle"].unique())
    with style.context():
        figure = _new_figure(style, _panels_aspect(*_panel_grid(max(len(puzzles), 1)), _legend_rows(style, codes)))
        if times.empty:
            _no_data(figure, style, "runs")
            return save_figure(figure, stem)
        limits = times["time_limit"]
        right = float(limits.max()) if limits.notna().any() else float(data["time"].max() if len(data) else 1.0)
        lowest = float(data["time"].clip(lower=MIN_TIME).min()) if len(data) else right / 10
        for ax, puzzle in zip(_panels(figure, len(puzzles)), puzzles):
            panel = times[times["puzzle"] == puzzle]
            for solver, formulation in _methods_of(panel, codes, puzzle):
                frame = data[(data["puzzle"] == puzzle) & (data["method"] == method_label(solver, formulation))]
                spec = codes.spec(puzzle, solver, formulation)
                x = np.concatenate([[lowest / 2], frame["time"].clip(lower=MIN_TIME).to_numpy(), [right * 1.3]])
                y = np.concatenate([[0], frame["solved"].to_numpy(), [len(frame)]])
                ax.step(x, y, where="post", color=spec["color"], linestyle=spec["linestyle"])
                ax.plot(x[1:-1], y[1:-1], linestyle="none", marker=spec["marker"], color=spec["color"],
                        markersize=3.5)
            best = _virtual_best_times(panel)
            ax.step(np.concatenate([[lowest / 2], best, [right * 1.3]]),
                    np.concatenate([[0], np.arange(1, len(best) + 1), [len(best)]]),
                    where="post", **VIRTUAL_BEST_LINE)
            _limit_lines(ax, panel["time_limit"], vertical=True)
            ax.set_xscale("log")
            _plain_log_axis(ax.xaxis, [lowest / 2, right * 1.3])
            ax.set_xlim(lowest / 2, right * 1.3)
            ax.set_ylim(0, panel["instance"].nunique() + 0.5)
            ax.yaxis.get_major_locator().set_params(integer=True)
            ax.set_title(style.text(puzzle))
            ax.set_xlabel(style.text(f"{stats.name} t [s]"))
            ax.set_ylabel(style.text("solved within t"))
            ax.grid(which="major", color="0.9")
        _legends(figure, style, codes, lines=True, limit="line" if limits.notna().any() else None, virtual_best=True)
        return save_figure(figure, stem)


def _series_panels(data: pd.DataFrame) -> list[tuple[str, str]]:
    """(puzzle, size unit) series with at least two sizes: the family's size unit names one
    kind of instance, so a line joins only instances of that kind."""
    sizes = data.groupby(["puzzle", "size_label"])["size"].nunique()
    return sorted(key for key, count in sizes.items() if count >= 2)


def scaling(runs: pd.DataFrame, style: FigureStyle, stem: str | Path, stats: Statistics = DEFAULT) -> list[Path]:
    """Time against instance size, one panel per family and size unit (the family's `size`
    hook: instances with one unit are one kind, e.g. 2x2x2 scrambles by depth), only where
    the unit has at least two sizes; a line through each method's median time per size
    (unsolved counted at the limit), or each formulation's best of the solvers in the formulation
    view. Nothing to draw: no file, returns []."""
    runs, codes = _with_runs(runs, style)
    data = view_times(runs, stats, codes.view)
    data = data[data["size"].notna()]
    data = data.assign(size_label=data["size_label"].fillna("size"))
    panels = _series_panels(data) if len(data) else []
    if not panels:
        return []
    with style.context():
        figure = _new_figure(style, _panels_aspect(*_panel_grid(len(panels)), _legend_rows(style, codes)))
        for ax, (puzzle, unit) in zip(_panels(figure, len(panels)), panels):
            panel = data[(data["puzzle"] == puzzle) & (data["size_label"] == unit)]
            for solver, formulation in _methods_of(panel, codes, puzzle):
                frame = panel[(panel["solver"] == solver) & (panel["formulation"] == formulation)]
                spec = codes.spec(puzzle, solver, formulation)
                _draw_points(ax, frame, frame["size"].to_numpy(dtype=float), spec)
                at_limit = frame["time"].where(frame["solved"].astype(bool), frame["time_limit"])
                line = at_limit.groupby(frame["size"]).median().clip(lower=MIN_TIME)
                ax.plot(line.index, line.to_numpy(), color=spec["color"], linestyle=spec["linestyle"],
                        linewidth=0.9, zorder=2)
            _limit_lines(ax, panel["time_limit"])
            ax.set_xlabel(style.text(str(unit)))
            ax.set_ylabel(style.text(stats.axis_label()))
            ax.set_yscale("log")
            _plain_log_axis(ax.yaxis, [*panel["time"], *panel["time_limit"]])
            ax.xaxis.get_major_locator().set_params(integer=True)
            ax.set_title(style.text(puzzle))
            ax.grid(which="major", color="0.9")
        drawn = data[data.set_index(["puzzle", "size_label"]).index.isin(panels)]
        _legends(figure, style, codes.restricted(drawn), lines=True,
                 limit="timeout and error" if drawn["error"].any() else "timeout")
        return save_figure(figure, stem)


def varied(runs: pd.DataFrame) -> bool:
    """Whether runs differ by seed or permutation (the variability figure's condition)."""
    seeds = tables._column(runs, "seed").dropna().nunique() if "seed" in runs else 0
    permutations = tables._column(runs, "permutation").fillna(0).nunique() if "permutation" in runs else 0
    return seeds > 1 or permutations > 1


def variability(runs: pd.DataFrame, style: FigureStyle, stem: str | Path,
                stats: Statistics = DEFAULT) -> list[Path]:
    """Where seeds or permutations were run: per instance and method, the range of the
    censored times over all its runs (seeds, permutations, repeats) as a vertical bar, the
    median as the formulation's marker, in the solver's colour; one panel per family. Per method
    in either view: it is about one method's runs. Without seeds or permutations: no file, returns []."""
    runs, codes = _with_runs(runs, style, METHODS)
    if runs.empty or not varied(runs):
        return []
    table = pd.DataFrame({"puzzle": tables._column(runs, "puzzle").astype(str),
                          "instance": tables._column(runs, "instance").astype(str),
                          "solver": tables._column(runs, "solver").astype(str),
                          "formulation": tables._column(runs, "formulation").astype(str),
                          "time": tables.censored_time(runs, stats).clip(lower=MIN_TIME)})
    spread = table.groupby(["puzzle", "instance", "solver", "formulation"])["time"].agg(["min", "median", "max"])
    spread = spread.reset_index()
    puzzles = sorted(spread["puzzle"].unique())
    with style.context():
        figure = _new_figure(style, 0.36 * len(puzzles) + 0.06 + 0.035 * _legend_rows(style, codes))
        axes = figure.subplots(len(puzzles), 1, squeeze=False).flatten()
        for ax, puzzle in zip(axes, puzzles):
            group = spread[spread["puzzle"] == puzzle]
            order = group.groupby("instance")["median"].min().sort_values().index.tolist()
            position = {name: i for i, name in enumerate(order)}
            methods = _methods_of(group, codes, puzzle)
            width = min(0.8 / len(methods), 0.15)
            for i, (solver, formulation) in enumerate(methods):
                frame = group[(group["solver"] == solver) & (group["formulation"] == formulation)]
                x = frame["instance"].map(position).to_numpy(dtype=float) + (i - (len(methods) - 1) / 2) * width
                spec = codes.spec(puzzle, solver, formulation)
                ax.vlines(x, frame["min"], frame["max"], color=spec["color"], linewidth=1.2, zorder=2)
                ax.scatter(x, frame["median"], marker=spec["marker"], color=spec["color"], s=12,
                           edgecolors="black", linewidths=0.4, zorder=3)
            ax.set_yscale("log")
            _plain_log_axis(ax.yaxis, [*group["min"], *group["max"]])
            ax.set_xlim(-0.6, len(order) - 0.4)
            ax.set_ylabel(style.text(stats.axis_label()))
            ax.set_title(style.text(f"{puzzle}: range over seeds and permutations"))
            _instance_axis(ax, style, pd.DataFrame({"instance": order, "puzzle": puzzle}))
            ax.grid(axis="y", which="major", color="0.9")
        _legends(figure, style, codes, lines=False, limit=None)
        return save_figure(figure, stem)


FIGURES = (("runtime", runtime_per_instance), ("performance_profile", performance_profile),
           ("cactus", cactus), ("scaling", scaling), ("variability", variability))
"""The figures of times: file stem and drawing function (`catalogue.FIGURES` has them all)."""
