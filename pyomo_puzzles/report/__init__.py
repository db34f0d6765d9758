"""Reports of solver runs: summary tables (CSV, LaTeX), thesis-ready figures, a Markdown page.

Input is the tidy table of runs (one row per run, see `pyomo_puzzles.core.results.COLUMNS`).
A run is solved iff it is optimal with a checked solution, or infeasible; unsolved runs
count at their time limit; times are the configured measure (`measure.Statistics`: the
solver's own time by default); means are shifted geometric means with a shift of 1 s.
"""

from __future__ import annotations

from pyomo_puzzles.report.catalogue import all_figures
from pyomo_puzzles.report.figures import (
    FigureStyle,
    cactus,
    cactus_data,
    formulation_times,
    instance_times,
    performance_profile,
    performance_profile_data,
    performance_ratios,
    resolve_view,
    runtime_per_instance,
    scaling,
)
from pyomo_puzzles.report.measure import TIME_MEASURES, Statistics
from pyomo_puzzles.report.page import build_report, write_report
from pyomo_puzzles.report.scores import noise, score_table, trivial_instances
from pyomo_puzzles.report.time_parts import time_parts_table, where_the_time_goes
from pyomo_puzzles.report.tables import (
    SHIFT_SECONDS,
    censored_time,
    known_agreement,
    shifted_geometric_mean,
    solved,
    summary,
    summary_latex,
    with_wrong_answers,
    write_summary,
    wrong_answers,
)

__all__ = [
    "SHIFT_SECONDS", "TIME_MEASURES", "FigureStyle", "Statistics", "all_figures", "build_report", "cactus", "cactus_data", "censored_time",
    "formulation_times", "instance_times", "known_agreement", "performance_profile", "performance_profile_data", "performance_ratios",
    "resolve_view", "runtime_per_instance", "scaling", "shifted_geometric_mean", "solved", "summary", "summary_latex",
    "with_wrong_answers", "write_report", "write_summary", "wrong_answers", "noise", "score_table", "trivial_instances", "time_parts_table",
    "where_the_time_goes",
]
