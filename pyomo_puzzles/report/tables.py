"""Summary tables of solver runs: solved runs, censored times, shifted geometric means.

Conventions (used by the figures and the report page too):

* A run is *solved* iff its status is ``optimal`` and its solution passed the independent
  checker (``checked is True``), or its status is ``infeasible`` (a proof that there is none),
  and its answer is not a *wrong answer* (see `wrong_answers`: a claim that contradicts the
  instance's known answer or a solution another run found and the checker passed). A wrong
  answer is unsolved in every statistic and figure, counted apart and listed in the report.
* A checked solution that contradicts the known answer (a solution where none is known, one
  better than the known optimum) proves the known answer wrong: a *data problem*
  (`data_problems`, listed in the report with the file and field), not a wrong answer; that
  known figure then judges no run of the instance.
* A run's time for statistics is its time by the configured measure
  (`pyomo_puzzles.report.measure`: the solver's own time by default, or build + solve, or
  the whole run's wall time) if it was solved, else its time limit (the time is *censored*
  at the limit: timeouts, errors and unchecked solutions all count at the limit). A run
  without a time limit of its own uses the largest limit in the table.
* A run with status ``licence_limit`` (a commercial solver's size-limited licence refused the
  model) says nothing about the solver's speed: it is counted apart and left out of the
  time statistics. ``memory_limit`` runs are unsolved and count at the time limit.
* The shifted geometric mean of times ``t_1..t_n`` with shift ``s = SHIFT_SECONDS = 1 s`` is
  ``exp(mean(log(t_i + s))) - s``; the shift keeps sub-second runs from dominating the mean.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from pyomo_puzzles.core import known as known_answers
from pyomo_puzzles.core.files import write_text_atomic
from pyomo_puzzles.report.measure import DEFAULT, Statistics, measured_time

SHIFT_SECONDS = DEFAULT.shift
"""Shift s (seconds) of the shifted geometric mean exp(mean(log(t + s))) - s, by default."""

OBJECTIVE_TOLERANCE = known_answers.OBJECTIVE_TOLERANCE
"""A run's objective agrees with the known one if |objective - known| <= 1e-6 * max(1, |known|)."""

SUMMARY_COLUMNS = ("solver", "formulation", "runs", "instances", "solved", "timeouts", "errors",
                   "licence_limits", "memory_limits", "sgm_time", "median_time", "known_checked", "known_mismatch",
                   "wrong_answers")

_HEADERS = {"solver": "Solver", "formulation": "Formulation", "runs": "Runs", "instances": "Instances",
            "solved": "Solved", "timeouts": "Timeouts", "errors": "Errors",
            "licence_limits": "Licence limit", "memory_limits": "Memory limit", "known_checked": "Known ok", "known_mismatch": "Known mismatch",
            "wrong_answers": "Wrong answers"}
_TIME_COLUMNS = ("sgm_time", "median_time")


# --- cell helpers --------------------------------------------------------------------------

def _column(runs: pd.DataFrame, name: str, default=None) -> pd.Series:
    """A column of `runs`, or a column of `default` if the table does not have it."""
    if name in runs.columns:
        return runs[name]
    return pd.Series([default] * len(runs), index=runs.index, dtype=object)


def _is_true(value) -> bool:
    """True only for a real boolean True (None, NaN, pd.NA and strings are not True)."""
    return isinstance(value, (bool, np.bool_)) and bool(value)


def _number(value) -> float:
    """A float, NaN for None / NA / anything that is not a number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return math.nan
    return number


# --- per-run definitions -------------------------------------------------------------------

def solved(runs: pd.DataFrame) -> pd.Series:
    """Boolean per run: (status optimal and checked is True) or status infeasible, and not a
    wrong answer (`wrong_answers`)."""
    return _answered(runs) & wrong_answers(runs).isna()


def _answered(runs: pd.DataFrame) -> pd.Series:
    """Boolean per run: status optimal and checked is True, or status infeasible."""
    status = _column(runs, "status").astype(object)
    checked = _column(runs, "checked").map(_is_true).astype(bool)
    return ((status == "optimal") & checked) | (status == "infeasible")


def _censored(runs: pd.DataFrame, is_solved: pd.Series, statistics: Statistics) -> pd.Series:
    return measured_time(runs, statistics).where(is_solved, statistics.par * time_limits(runs))


def time_limits(runs: pd.DataFrame) -> pd.Series:
    """Each run's time limit; a run without one gets the largest limit in the table (or NaN)."""
    limits = pd.to_numeric(_column(runs, "time_limit"), errors="coerce").astype(float)
    largest = limits.max()
    return limits.fillna(largest) if pd.notna(largest) else limits


def censored_time(runs: pd.DataFrame, statistics: Statistics = DEFAULT) -> pd.Series:
    """Seconds per run for statistics: its time by `statistics.time` if the run was solved,
    else `statistics.par` times its time limit (1: at the limit; 10: PAR10, as SAT
    competitions count unsolved runs)."""
    return _censored(runs, solved(runs), statistics)


def unsolved_treatment(par: float = 1.0) -> str:
    """How unsolved runs are counted, in words for captions."""
    if par == 1:
        return "runs not solved count at the time limit"
    return f"runs not solved count at {par:g} times the time limit (PAR{par:g})"


def shifted_geometric_mean(times: Iterable[float], shift: float = SHIFT_SECONDS) -> float:
    """exp(mean(log(t + shift))) - shift, with shift = SHIFT_SECONDS = 1 s by default.

    NaN if there are no times or any time is NaN (a missing time is not silently dropped).
    """
    values = np.asarray(list(times), dtype=float)
    if values.size == 0 or np.isnan(values).any():
        return math.nan
    return float(np.exp(np.mean(np.log(values + shift))) - shift)


_KNOWN_COLUMNS = ("instance", "solver", "formulation", "status", "checked", "objective", "objective_sense",
                  "objective_checked", "known_solvable", "known_objective", "known_solvable_from", "known_objective_from")


def _known_rows(runs: pd.DataFrame) -> list[dict]:
    """Per run, what judging it against the known answer needs (missing columns as None)."""
    return pd.DataFrame({c: _column(runs, c) for c in _KNOWN_COLUMNS}, index=runs.index).to_dict("records")


def _known(row: dict) -> known_answers.Known:
    """The known answer a row carries, with the file and field of each figure where the table has them."""
    solvable = row["known_solvable"]
    return known_answers.Known(bool(solvable) if isinstance(solvable, (bool, np.bool_)) else None,
                               _text(row["known_solvable_from"]), _number(row["known_objective"]),
                               _text(row["known_objective_from"]))


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _judge(row: dict) -> list[known_answers.Verdict]:
    return known_answers.judge(_known(row), row["status"], _is_true(row["checked"]), row["objective"],
                               row["objective_sense"], _is_true(row["objective_checked"]))


def _instance_key(row: dict, index) -> object:
    """The instance a row's known answer belongs to (a row without an instance name stands alone)."""
    return row["instance"] if isinstance(row["instance"], str) else ("row", index)


def _disproved(runs: pd.DataFrame, rows: list[dict]) -> dict[object, dict[str, dict]]:
    """Per instance, the known figures that a checked solution proves wrong, each with the
    row of its best evidence (for the objective: the best checked objective)."""
    found: dict[object, dict[str, dict]] = {}
    for index, row in zip(runs.index, rows):
        for verdict in _judge(row):
            if verdict.kind != known_answers.CERTIFICATE:
                continue
            figures = found.setdefault(_instance_key(row, index), {})
            best = figures.get(verdict.figure)
            if best is None or (verdict.figure == "objective" and known_answers.better(
                    _number(row["objective"]), _number(best["objective"]), row["objective_sense"])):
                figures[verdict.figure] = row
    return found


def _trusted_verdicts(runs: pd.DataFrame) -> list[tuple[dict, list[known_answers.Verdict]]]:
    """Per run, its row and its verdicts on the known figures no checked solution of its
    instance proves wrong (`core.known.judge`)."""
    rows = _known_rows(runs)
    disproved = _disproved(runs, rows)
    return [(row, [v for v in _judge(row) if v.figure not in disproved.get(_instance_key(row, index), {})])
            for index, row in zip(runs.index, rows)]


DATA_PROBLEMS_NOTE = ("a checked solution proves the instance's known answer wrong: its runs stay solved, and that "
                      "known answer judges none of them")
"""What a data problem means, for the report pages."""


def data_problems(runs: pd.DataFrame) -> pd.DataFrame:
    """The instances whose known answer a checked solution proves wrong, one row per known
    figure: ``instance``, ``known`` (the file and field it comes from) and ``problem`` (one
    line: what it states, and which run found what). Their runs are judged without it."""
    rows = []
    for figures in _disproved(runs, _known_rows(runs)).values():
        for figure, row in sorted(figures.items()):
            found = f"{row['solver']} / {row['formulation']} found "
            found += ("a solution the checker passed" if figure == "solvable" else
                      known_answers.better_solution(row["objective"], row["objective_sense"]))
            known = _known(row)
            rows.append({"instance": row["instance"], "known": known_answers.source(known, figure),
                         "problem": known_answers.against(known, figure, found)})
    return pd.DataFrame(rows, columns=["instance", "known", "problem"])


FAILED_STATUSES = ("error", "memory_limit")
"""Runs that failed rather than ran out of time: their message says why (`failed_runs`)."""

FAILURES_SHOWN = 40
"""The failed runs a report lists one by one; the rest are counted (all are in tables/runs.csv)."""


def failed_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs that ended in an error or at the memory limit, each with its message (a failed
    check's reason, a wrong objective's values, the solver's words): ``instance``, ``solver``,
    ``formulation``, ``status``, ``message``, by instance and method."""
    columns = ["instance", "solver", "formulation", "status", "message"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    failed = runs[_column(runs, "status").isin(FAILED_STATUSES)]
    frame = pd.DataFrame({c: _column(failed, c) for c in columns}, index=failed.index)
    frame["message"] = frame["message"].map(lambda text: text if isinstance(text, str) and text else "(no message)")
    return frame.sort_values(["instance", "solver", "formulation"], kind="stable").reset_index(drop=True)


def known_agreement(runs: pd.DataFrame) -> pd.Series:
    """Per run: "agree", "mismatch", or None (no known answer, or the run gave no answer).

    Only runs that gave an answer are judged: status ``optimal`` (claims a solution, or the
    optimum) or ``infeasible`` (claims there is none). Mismatch: known solvable but the run
    says infeasible; known unsolvable but the run says optimal; a known objective and the
    run says infeasible, or it is optimal with an objective farther than 1e-6 (relative to
    max(1, |known|)) from the known one. An optimal run without an objective value is judged
    on solvability only. A known figure that a checked solution of the instance proves wrong
    (`data_problems`) judges no run.
    """
    return pd.Series([_agreement(verdicts) for _, verdicts in _trusted_verdicts(runs)], index=runs.index,
                     dtype=object)


def _agreement(verdicts: list[known_answers.Verdict]) -> str | None:
    if not verdicts:
        return None
    return "agree" if all(v.kind == known_answers.AGREE for v in verdicts) else "mismatch"


def _contradictions(runs: pd.DataFrame) -> pd.Series:
    """Per run whose answer contradicts a known figure (that no checked solution proves
    wrong): where that figure comes from ("" where the table does not say); else None."""
    found = []
    for row, verdicts in _trusted_verdicts(runs):
        figure = next((v.figure for v in verdicts if v.kind == known_answers.MISMATCH), None)
        found.append(None if figure is None else _text(row[f"known_{figure}_from"]) or "")
    return pd.Series(found, index=runs.index, dtype=object)


def _best_checked(runs: pd.DataFrame, checked: pd.Series) -> dict[object, tuple[float, str]]:
    """Per instance: the best objective of a checked solution whose objective the family's
    hook recomputed (`objective_checked`: the puzzle's objective, whatever the formulation),
    by the runs' objective sense, and the run that found it. An objective nobody checked is
    no evidence against another run."""
    best: dict[object, tuple[float, str]] = {}
    verified = checked & _column(runs, "objective_checked").map(_is_true).astype(bool)
    frame = pd.DataFrame({"instance": _column(runs, "instance"), "formulation": _column(runs, "formulation"),
                          "solver": _column(runs, "solver"), "objective": _column(runs, "objective").map(_number),
                          "sense": _column(runs, "objective_sense")}, index=runs.index)[verified]
    for row in frame.itertuples():
        if row.sense not in ("minimize", "maximize") or math.isnan(row.objective):
            continue
        better = row.instance not in best or (row.objective < best[row.instance][0] if row.sense == "minimize"
                                              else row.objective > best[row.instance][0])
        if better:
            best[row.instance] = (row.objective, f"{row.solver} / {row.formulation}")
    return best


def _worse(objective: float, than: float, sense) -> bool:
    """Whether `objective` is worse than `than` by more than the tolerance, for the sense."""
    tolerance = OBJECTIVE_TOLERANCE * max(1.0, abs(than))
    return objective > than + tolerance if sense == "minimize" else objective < than - tolerance


WRONG_ANSWER_COLUMN = "wrong_answer"
"""The column of ``tables/runs.csv`` that holds `wrong_answers` of the whole experiment (the report job adds it,
`with_wrong_answers`)."""


def with_wrong_answers(runs: pd.DataFrame) -> pd.DataFrame:
    """`runs` with the column ``wrong_answer``: why each run's answer is wrong, judged against
    every run of the table (`wrong_answers`), or empty. The figures, tables and pages then
    read each run's verdict from it: a selection of runs (one solver's, a view's) is judged
    by the evidence of the whole experiment, and the table is judged once, not once per
    figure (15,000 runs: 0.4 s a judgement)."""
    return runs.assign(**{WRONG_ANSWER_COLUMN: _judged_wrong_answers(runs)})


def wrong_answers(runs: pd.DataFrame) -> pd.Series:
    """Per run: why its answer is wrong, or None: read from the column ``wrong_answer`` where
    the table has it (`with_wrong_answers`: the verdicts of the whole experiment the rows come
    from), else judged within `runs`."""
    if WRONG_ANSWER_COLUMN in runs.columns:
        return pd.Series([reason if isinstance(reason, str) and reason else None for reason in runs[WRONG_ANSWER_COLUMN]],
                         index=runs.index, dtype=object)
    return _judged_wrong_answers(runs)


def _judged_wrong_answers(runs: pd.DataFrame) -> pd.Series:
    """Per run: why its answer is wrong, or None. A run answers when it says ``optimal`` or
    ``infeasible``; the answer is wrong when it contradicts the instance's known answer
    (`known_agreement` says "mismatch"; the reason names the file and field of the known
    figure), when it says ``infeasible`` for an instance on which another run found a
    solution that passed the independent checker, or when it claims an optimum worse (by
    its ``objective_sense``, beyond 1e-6 relative) than the checked objective of a solution
    another run found (`objective_checked`: the family's objective hook recomputed it, so
    runs of every formulation of the instance are compared). A known figure that a checked
    solution proves wrong judges no run (`data_problems`): the run with that solution is right."""
    status = _column(runs, "status").astype(object)
    checked = _column(runs, "checked").map(_is_true).astype(bool)
    instance = _column(runs, "instance").astype(object)
    formulation = _column(runs, "formulation").astype(object)
    objective = _column(runs, "objective").map(_number)
    sense = _column(runs, "objective_sense")
    finders: dict[str, str] = {}
    found = checked & instance.notna()  # a table without instance names has no cross-run check
    for name, solver, form in zip(instance[found], _column(runs, "solver")[found], formulation[found]):
        finders.setdefault(name, f"{solver} / {form}")
    best = _best_checked(runs, found)
    contradicted = _contradictions(runs)
    reasons = []
    for index in runs.index:
        better = best.get(instance[index])
        if contradicted[index] is not None:
            where = f" ({contradicted[index]})" if contradicted[index] else ""
            reasons.append(f"contradicts the instance's known answer{where}")
        elif status[index] == "infeasible" and instance[index] in finders:
            reasons.append(f"says infeasible, but {finders[instance[index]]} found a solution the checker passed")
        elif (status[index] == "optimal" and better is not None and not math.isnan(objective[index])
              and _worse(objective[index], better[0], sense[index])):
            reasons.append(f"claims the optimum {objective[index]:g}, but {better[1]} found a solution whose "
                           f"checked objective is {better[0]:g}")
        else:
            reasons.append(None)
    return pd.Series(reasons, index=runs.index, dtype=object)


# --- summary -------------------------------------------------------------------------------

def summary(runs: pd.DataFrame, statistics: Statistics = DEFAULT) -> pd.DataFrame:
    """One row per (solver, formulation), sorted by solver then formulation.

    Columns: ``runs`` (rows, all repeats), ``instances`` (distinct instances), ``solved``
    (runs solved, see `solved`), ``timeouts`` (runs with status time_limit), ``errors``
    (runs with status error), ``licence_limits`` / ``memory_limits`` (runs with those
    statuses), ``sgm_time`` (shifted geometric mean, `statistics.shift`, of the censored time over
    runs, licence-limited runs left out), ``median_time`` (median censored time, likewise),
    ``known_checked`` / ``known_mismatch`` (runs whose answer agreed / disagreed with the
    instance's known answer, see `known_agreement`), ``wrong_answers`` (runs whose answer
    is wrong, see `wrong_answers`; they are not solved).
    """
    status = _column(runs, "status")
    agreement = known_agreement(runs)
    wrong = wrong_answers(runs).notna()
    is_solved = _answered(runs) & ~wrong  # `solved`, the wrong answers found once
    table = pd.DataFrame({
        "solver": _column(runs, "solver").astype(str), "formulation": _column(runs, "formulation").astype(str),
        "instance": _column(runs, "instance"), "solved": is_solved,
        "timeout": status == "time_limit", "error": status == "error",
        "licence": status == "licence_limit", "memory": status == "memory_limit",
        "time": _censored(runs, is_solved, statistics),
        "agree": agreement == "agree", "mismatch": agreement == "mismatch", "wrong": wrong,
    }, index=runs.index)
    rows = []
    for (solver, formulation), group in table.groupby(["solver", "formulation"], sort=True):
        timed = group.loc[~group["licence"], "time"]
        rows.append({
            "solver": solver, "formulation": formulation, "runs": len(group),
            "instances": group["instance"].nunique(), "solved": int(group["solved"].sum()),
            "timeouts": int(group["timeout"].sum()), "errors": int(group["error"].sum()),
            "licence_limits": int(group["licence"].sum()), "memory_limits": int(group["memory"].sum()),
            "sgm_time": shifted_geometric_mean(timed, statistics.shift), "median_time": float(timed.median()),
            "known_checked": int(group["agree"].sum()), "known_mismatch": int(group["mismatch"].sum()),
            "wrong_answers": int(group["wrong"].sum()),
        })
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))


# --- formatting and writing ----------------------------------------------------------------

def format_seconds(seconds: float) -> str:
    """Seconds for a table cell: about three significant digits, '--' for NaN."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "--"
    if seconds >= 100:
        return f"{seconds:.0f}"
    if seconds >= 10:
        return f"{seconds:.1f}"
    if seconds >= 1:
        return f"{seconds:.2f}"
    if seconds >= 0.01:
        return f"{seconds:.3f}"
    return f"{seconds:.2g}"


def _time_header(column: str, statistics: Statistics) -> str:
    """"SGM solver time [s]": the header of a time column names the measure."""
    return {"sgm_time": "SGM ", "median_time": "Median "}[column] + statistics.name + " [s]"


def formatted_summary(summary_df: pd.DataFrame, statistics: Statistics = DEFAULT) -> pd.DataFrame:
    """The summary as strings with readable headers (times rounded, counts as integers; the
    time columns' headers name the measure)."""
    cells = {}
    for column in summary_df.columns:
        values = summary_df[column]
        if column in _TIME_COLUMNS:
            cells[_time_header(column, statistics)] = [format_seconds(_number(v)) for v in values]
        elif pd.api.types.is_numeric_dtype(values):
            cells[_HEADERS.get(column, column)] = ["--" if pd.isna(v) else f"{int(v)}" for v in values]
        else:
            cells[_HEADERS.get(column, column)] = [str(v) for v in values]
    return pd.DataFrame(cells, index=summary_df.index)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters (underscores in solver / formulation names, ...)."""
    return "".join(_LATEX_SPECIAL.get(char, char) for char in str(text))


def definitions(statistics: Statistics = DEFAULT) -> str:
    """What solved, the times and the SGM mean, in plain text, for the report pages."""
    return ("A run is solved if it is optimal with a solution that passed the independent checker, or proven "
            "infeasible, and its answer is not wrong (a wrong answer contradicts the instance's known answer or "
            "a solution another run found and the checker passed; a checked solution that contradicts the known "
            "answer is a data problem, and that known answer judges no run). "
            f"{statistics.sentence()} Times are seconds; "
            f"{unsolved_treatment(statistics.par)}. SGM is the shifted geometric mean exp(mean(ln(t + s))) - s "
            f"with s = {statistics.shift:g} s.")


def sgm_definition(shift: float = SHIFT_SECONDS) -> str:
    """The shifted geometric mean, in LaTeX, for captions."""
    return (r"SGM: shifted geometric mean $\exp\bigl(\frac{1}{n}\sum_i \ln(t_i + s)\bigr) - s$ with shift "
            rf"$s = {shift:g}$\,s.")


def summary_caption(statistics: Statistics = DEFAULT) -> str:
    """The LaTeX caption: what solved means, the time measure, the treatment of unsolved runs,
    and the shift."""
    return (
        "Runs per solver and formulation. Solved: optimal with a checked solution, or proven "
        f"infeasible. {latex_escape(statistics.sentence())} Times are seconds per run; "
        f"{unsolved_treatment(statistics.par)} (timeouts, errors, memory limit); runs refused by a size-limited "
        f"licence are counted apart and left out of the times. {sgm_definition(statistics.shift)} Known answer: "
        "runs whose answer agreed with / differed from the instance's known answer."
    )


_LATEX_LAYOUT = (  # column: (group heading, column heading); grouped columns share a heading
    ("solver", ("", "Solver")), ("formulation", ("", "Formulation")), ("instances", ("", "Instances")),
    ("runs", ("Runs", "all")), ("solved", ("Runs", "solved")), ("timeouts", ("Runs", "timeout")),
    ("errors", ("Runs", "error")), ("licence_limits", ("Runs", "licence")),
    ("memory_limits", ("Runs", "memory")), ("sgm_time", ("Time [s]", "SGM")), ("median_time", ("Time [s]", "median")),
    ("known_checked", ("Known answer", "agree")), ("known_mismatch", ("Known answer", "differ")),
    ("wrong_answers", ("", "Wrong")),
)


def _latex_header(columns: list[str], statistics: Statistics) -> list[str]:
    """Two header rows: group headings over \\cmidrule's, then the column headings."""
    time_group = f"{statistics.name.capitalize()} [s]"
    layout = {c: ((time_group, head[1]) if c in _TIME_COLUMNS else head) for c, head in _LATEX_LAYOUT}
    heads = [layout.get(c, ("", _HEADERS.get(c, c))) for c in columns]
    top, rules, start = [], [], 0
    while start < len(heads):
        end = start
        while end + 1 < len(heads) and heads[end + 1][0] == heads[start][0]:
            end += 1
        group = heads[start][0]
        if group:
            top.append(f"\\multicolumn{{{end - start + 1}}}{{c}}{{{latex_escape(group)}}}")
            rules.append(f"\\cmidrule(lr){{{start + 1}-{end + 1}}}")
        else:
            top += [""] * (end - start + 1)
        start = end + 1
    lines = ["    " + " & ".join(top) + " \\\\"] if rules else []
    if rules:
        lines.append("    " + " ".join(rules))
    lines.append("    " + " & ".join(latex_escape(h[1]) for h in heads) + " \\\\")
    return lines


def summary_latex(summary_df: pd.DataFrame, caption: str | None = None,
                  label: str = "tab:solver-summary", statistics: Statistics = DEFAULT) -> str:
    """A booktabs ``table`` (\\toprule, \\midrule, \\bottomrule) ready to ``\\input``.

    Needs ``\\usepackage{booktabs}`` in the preamble. Columns are grouped under headings
    (Runs, the time measure, Known answer) to fit a thesis text width; text columns are
    left-aligned and escaped, numbers right-aligned. The CSV keeps the full precision.
    """
    order = [c for c, _ in _LATEX_LAYOUT if c in summary_df.columns]
    columns = order + [c for c in summary_df.columns if c not in order]
    frame = summary_df[columns]
    cells = formatted_summary(frame, statistics)
    spec = "".join("r" if pd.api.types.is_numeric_dtype(frame[c]) else "l" for c in columns)
    lines = [
        "% requires \\usepackage{booktabs}",
        "\\begin{table}[htbp]",
        "  \\centering",
        "  \\small",
        "  \\setlength{\\tabcolsep}{4pt}",
        f"  \\caption{{{caption if caption is not None else summary_caption(statistics)}}}",
        f"  \\label{{{label}}}",
        f"  \\begin{{tabular}}{{{spec}}}",
        "    \\toprule",
        *_latex_header(columns, statistics),
        "    \\midrule",
    ]
    for _, row in cells.iterrows():
        lines.append("    " + " & ".join(latex_escape(v) for v in row) + " \\\\")
    lines += ["    \\bottomrule", "  \\end{tabular}", "\\end{table}", ""]
    return fit_to_width("\n".join(lines))


def fit_to_width(latex: str) -> str:
    """The table's tabular set in a box and scaled down to the line width only if it is wider
    (a thesis page is narrower than a table of many solvers); needs graphicx and booktabs."""
    lines = latex.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("\\begin{tabular}"))
    end = next(i for i, line in enumerate(lines) if line.lstrip().startswith("\\end{tabular}"))
    box = ["  \\ifdefined\\pptablebox\\else\\newsavebox{\\pptablebox}\\fi", "  \\sbox{\\pptablebox}{%"]
    show = ["  \\ifdim\\wd\\pptablebox>\\linewidth\\resizebox{\\linewidth}{!}{\\usebox{\\pptablebox}}%",
            "  \\else\\usebox{\\pptablebox}\\fi"]
    lines = lines[:start] + box + lines[start:end] + [lines[end] + "}%"] + show + lines[end + 1:]
    return "\n".join(line.replace("% requires \\usepackage{booktabs}", "% requires \\usepackage{booktabs,graphicx}")
                     for line in lines) + ("\n" if latex.endswith("\n") else "")


def _write_text(path: Path, text: str) -> None:
    """Write atomically with the umask's mode (see `core.files`)."""
    write_text_atomic(path, text)


def write_summary(summary_df: pd.DataFrame, csv_path: str | Path, tex_path: str | Path,
                  caption: str | None = None, label: str = "tab:solver-summary",
                  statistics: Statistics = DEFAULT) -> tuple[Path, Path]:
    """Write the summary as CSV (full precision) and as a booktabs LaTeX table; return both paths."""
    csv_path, tex_path = Path(csv_path), Path(tex_path)
    _write_text(csv_path, summary_df.to_csv(index=False))
    _write_text(tex_path, summary_latex(summary_df, caption, label, statistics))
    return csv_path, tex_path


MATRIX_NOTE = ("every matrix solver of one instance, formulation and permutation is given the same "
               "matrix (the runs' matrix_digest; for a staged formulation compared between runs that "
               "solved as many models)")


def matrix_disagreements(runs: pd.DataFrame) -> tuple[int, list[str]]:
    """(the groups of runs compared, one line per group whose solvers got different matrices).
    Runs are grouped by instance, formulation, permutation and models solved; runs without a
    digest (Pyomo's path, a reference method) are not compared."""
    if runs.empty or "matrix_digest" not in runs or runs["matrix_digest"].isna().all():
        return 0, []
    given = runs[runs["matrix_digest"].notna()]
    keys = ["instance", "formulation", "permutation", "models"]
    compared, lines = 0, []
    for (instance, formulation, permutation, models), group in given.groupby(keys, dropna=False):
        if group["solver"].nunique() < 2:
            continue
        compared += 1
        digests = group.groupby("matrix_digest")["solver"].agg(lambda s: ", ".join(sorted(set(s))))
        if len(digests) > 1:
            which = "; ".join(f"{solvers}: {digest}" for digest, solvers in digests.items())
            permuted = f" (permutation {permutation})" if permutation else ""
            lines.append(f"{instance} / {formulation}{permuted}, {models:g} models: {which}")
    return compared, lines
