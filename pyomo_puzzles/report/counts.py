"""Counts in the report: the counts table as shown, and whether the methods that counted one
instance agree on the number and on the set of solutions (its digest, `core.counting`)."""

from __future__ import annotations

import pandas as pd

from pyomo_puzzles.report.tables import format_seconds

INTRO = ("Solutions enumerated (classes: up to the instance's symmetry), each checked by the family's checker, "
         "against the instance's known figures where it has them. Counted: all (a model without an objective), "
         "optimal (the optimal solutions, the objective held at the proven optimum) or feasible (every feasible "
         "point, asked for). Method: nogood (no-good cuts, a solve per solution or orbit) or native (the solver's "
         "own enumeration; route: how). Largest orbit: the most distinct solutions one orbit had. Digest: of the "
         "set of solutions found, each reduced to its orbit's representative. Seconds: the count's own clock.")
SHOWN = ["instance", "formulation", "solver", "method", "counted", "optimum", "complete", "solutions", "classes",
         "largest_orbit", "known_solutions", "known_classes", "agrees_with_known", "digest", "elapsed", "startup_time"]
WHOLE = ("solutions", "classes", "largest_orbit", "known_solutions", "known_classes")
SECONDS = ("elapsed", "startup_time")


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and pd.isna(value))


def _method(row) -> str:
    return f"{row['solver']}/{row['formulation']}/{row['method']}"


def agreement(counts: pd.DataFrame) -> pd.DataFrame:
    """One row per instance counted by more than one method: how many counts are complete,
    and whether the complete ones agree on solutions, classes and the set's digest."""
    rows = []
    for instance, group in counts.groupby("instance", sort=True):
        if len(group) < 2:
            continue
        complete = group[group["complete"] == True]  # noqa: E712 - a column of True, False and None
        answers = {}
        for _, row in complete.iterrows():
            answer = tuple(row[k] if _present(row[k]) else None for k in ("solutions", "classes", "digest"))
            answers.setdefault(answer, []).append(_method(row))
        if len(answers) > 1:
            verdict = "NO: " + "; ".join(f"{a[0]} solutions, {a[1]} classes, digest {a[2]} by {', '.join(m)}"
                                        for a, m in answers.items())
        elif answers:
            verdict = "yes" if len(complete) > 1 else "one complete count only"
        else:
            verdict = "no complete count"
        rows.append({"instance": instance, "counts": len(group), "complete": len(complete), "agree": verdict})
    return pd.DataFrame(rows, columns=["instance", "counts", "complete", "agree"])


DATA_PROBLEMS_NOTE = ("a count found more checked solutions than the instance's known count states: the known "
                      "count is wrong")


def data_problems(counts: pd.DataFrame) -> pd.DataFrame:
    """The instances whose known count a count proves wrong (its record names a data problem,
    `core.known.judge_count`): one row per instance, ``instance`` and ``problem`` (the file and
    field of the known count, what the count that found the most found, and the other counts
    that found more than known too)."""
    if "data_problem" not in counts.columns:
        return pd.DataFrame(columns=["instance", "problem"])
    named = counts[counts["data_problem"].map(lambda text: isinstance(text, str) and bool(text))]
    rows = []
    for instance, group in named.groupby("instance", sort=True):  # one line per instance, however many counted
        group = group.sort_values("solutions", ascending=False, kind="stable")
        problem = group["data_problem"].iloc[0]
        others = [f"{_method(row).replace('/', ' / ')} ({int(row['solutions'])})" for _, row in group.iloc[1:].iterrows()]
        if others:
            problem += f"; so did {', '.join(others)}"
        rows.append({"instance": instance, "problem": problem})
    return pd.DataFrame(rows, columns=["instance", "problem"])


def shown(counts: pd.DataFrame) -> pd.DataFrame:
    """The counts table's columns the report shows, as text (the route and message, and every
    figure at full precision, are in the CSV): counts as whole numbers, seconds to three
    significant digits, nothing as ``-``."""
    columns = [c for c in SHOWN if c in counts.columns and (c not in ("counted", "optimum")
                                                            or counts[c].map(_present).any())]
    return counts[columns].apply(lambda column: column.map(lambda value: _text(column.name, value)))


def _text(column: str, value) -> str:
    if not _present(value):
        return "-"
    if column in WHOLE:
        return f"{int(value):,}"
    if column in SECONDS:
        return format_seconds(float(value))
    if column == "optimum":
        return f"{float(value):g}"
    if isinstance(value, bool) or (hasattr(value, "dtype") and value.dtype == bool):
        return "yes" if value else "no"
    return str(value)
