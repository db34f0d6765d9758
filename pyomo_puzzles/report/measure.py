"""What the statistics rank by: the time measure of a run, and the settings of the statistics.

A run's record splits its time into parts (``core.records``): ``load_time`` and
``prepare_time`` (before the run's clock), ``build_time``, ``generate_time`` (a formulation solved in stages: its own
search between its models), ``compile_time``, the solver call (``call_time``),
``decode_time``, ``check_time``, and ``wall_time`` over all of it. ``solver_time`` is the
solver's own clock, inside the call.
The measures:

* ``solver`` (the default, for solver comparisons): the solver's own reported time. A
  solver without a clock of its own (GLPK) is measured by its *solver call* on the
  framework's clock: wall time less building, decoding and checking, which includes handing
  the model over and reading the answer back. The report names such solvers.
* ``build_and_solve`` (for formulation comparisons, where building the model counts):
  building the model (for a formulation solved in stages, its models and its own search
  between them: generating the stages) and compiling it, plus the solver call, on the
  framework's clock.
* ``wall``: the whole run on the framework's clock (build, solver call, decode, check).

A part a record lacks counts as zero, so a table with only ``wall_time`` gives the same
numbers under every measure.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

TIME_MEASURES = ("solver", "build_and_solve", "wall")

_NAMES = {"solver": "solver time", "build_and_solve": "build + solve time", "wall": "wall time"}
_MEANINGS = {
    "solver": "the solver's own reported time (a solver without a clock of its own: its solver call on the "
              "framework's clock)",
    "build_and_solve": "building the model (a staged formulation's own search between its models included) "
                       "plus the solver call, on the framework's clock",
    "wall": "the whole run on the framework's clock (building, the solver call, decoding and checking)",
}

SCORES = ("sgm", "par2", "borda", "solved_by_all")
"""The scores the benchmark suites use (see `pyomo_puzzles.report.scores`)."""


@dataclass(frozen=True)
class Statistics:
    """The settings of every table, figure and score: the configuration's ``statistics:``."""

    time: str = "solver"
    """The time measure, one of `TIME_MEASURES`."""
    shift: float = 1.0
    """Shift s (seconds) of the shifted geometric mean exp(mean(log(t + s))) - s."""
    par: float = 1.0
    """Unsolved runs count at par x their time limit (1: at the limit; 10: PAR10)."""
    scores: tuple[str, ...] = SCORES
    """Which scores the report shows, in this order."""
    trivial_below: float = 0.1
    """An instance every method solves in less than this many seconds cannot rank them."""
    demanding_from: float = 1.0
    """An instance whose best method needs at least this many seconds is counted as one that
    tells methods apart by their solving (the report gives the share)."""
    resamples: int = 2000
    """Bootstrap resamples of the confidence intervals."""
    level: float = 0.95
    """Confidence level of the intervals."""

    def __post_init__(self) -> None:
        if self.time not in TIME_MEASURES:
            raise ValueError(f"statistics.time: unknown measure {self.time!r} (one of {', '.join(TIME_MEASURES)})")
        unknown = [s for s in self.scores if s not in SCORES]
        if unknown:
            raise ValueError(f"statistics.scores: unknown score {unknown[0]!r} (one of {', '.join(SCORES)})")
        object.__setattr__(self, "scores", tuple(self.scores))

    @classmethod
    def from_config(cls, settings: dict | None) -> "Statistics":
        """From the configuration's ``statistics:`` mapping (already checked by the schema)."""
        return cls(**(settings or {}))

    @property
    def name(self) -> str:
        """The measure in a few words: "solver time"."""
        return _NAMES[self.time]

    @property
    def meaning(self) -> str:
        """What the measure is, in a clause."""
        return _MEANINGS[self.time]

    def axis_label(self, what: str = "") -> str:
        """An axis label naming the measure: "Solver time [s]" or "Solver time per instance [s]"."""
        text = self.name + (f" {what}" if what else "")
        return f"{text[0].upper()}{text[1:]} [s]"

    def sentence(self) -> str:
        """The sentence captions and report sections use to say what they rank by."""
        return f"Times are the {self.name}: {self.meaning}."


DEFAULT = Statistics()

BUILDING = ("build_time", "generate_time", "compile_time")
"""The record's parts that make the models a run hands to its solver."""


def _seconds(runs: pd.DataFrame, column: str) -> pd.Series:
    if column not in runs.columns:
        return pd.Series(float("nan"), index=runs.index, dtype=float)
    return pd.to_numeric(runs[column], errors="coerce").astype(float)


def solver_call_time(runs: pd.DataFrame) -> pd.Series:
    """Seconds per run of the solver call on the framework's clock: the record's
    ``call_time``, or where it has none (a reference solver, an older record) the wall time
    less building, decoding and checking (parts it lacks count as zero; never below zero)."""
    parts = sum(_seconds(runs, c).fillna(0.0) for c in BUILDING + ("decode_time", "check_time"))
    derived = (_seconds(runs, "wall_time") - parts).clip(lower=0.0)
    return _seconds(runs, "call_time").fillna(derived)


def without_own_clock(runs: pd.DataFrame) -> pd.Series:
    """Boolean per run: it has a wall time but its solver reported no time of its own."""
    return _seconds(runs, "solver_time").isna() & _seconds(runs, "wall_time").notna()


def measured_time(runs: pd.DataFrame, statistics: Statistics = DEFAULT) -> pd.Series:
    """Seconds per run by the chosen measure, before censoring (NaN where the run has no wall time)."""
    if statistics.time == "wall":
        return _seconds(runs, "wall_time")
    call = solver_call_time(runs)
    if statistics.time == "build_and_solve":
        return call + sum(_seconds(runs, c).fillna(0.0) for c in BUILDING)
    return _seconds(runs, "solver_time").where(~without_own_clock(runs), call)
