"""Reports of solver runs: summary tables (CSV, LaTeX), thesis-ready figures, a Markdown page.

Input is the tidy table of runs (one row per run, see `pyomo_puzzles.core.results.COLUMNS`).
A run is solved iff it is optimal with a checked solution, or infeasible; unsolved runs
count at their time limit; means are shifted geometric means with a shift of 1 s.
"""

from __future__ import annotations

from pyomo_puzzles.report.figures import (
    FigureStyle,
    all_figures,
    cactus,
    cactus_data,
    instance_times,
    performance_profile,
    performance_profile_data,
    performance_ratios,
    runtime_per_instance,
    scaling,
)
from pyomo_puzzles.report.page import build_report, write_report
from pyomo_puzzles.report.tables import (
    SHIFT_SECONDS,
    censored_time,
    known_agreement,
    shifted_geometric_mean,
    solved,
    summary,
    summary_latex,
    write_summary,
    wrong_answers,
)

__all__ = [
    "SHIFT_SECONDS", "FigureStyle", "all_figures", "build_report", "cactus", "cactus_data", "censored_time",
    "instance_times", "known_agreement", "performance_profile", "performance_profile_data", "performance_ratios",
    "runtime_per_instance", "scaling", "shifted_geometric_mean", "solved", "summary", "summary_latex",
    "write_report", "write_summary", "wrong_answers",
]
