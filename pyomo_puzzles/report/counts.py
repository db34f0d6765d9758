"""Counts in the report: the counts table as shown, and whether the methods that counted one
instance agree on the number and on the set of solutions (its digest, `core.counting`)."""

from __future__ import annotations

import pandas as pd

INTRO = ("Solutions enumerated (classes: up to the instance's symmetry), each checked by the family's checker, "
         "against the instance's known figures where it has them. Method: nogood (no-good cuts, a solve per "
         "solution or orbit) or native (the solver's own enumeration; route: how). Digest: of the set of "
         "solutions found, each reduced to its orbit's representative.")
SHOWN = ["instance", "formulation", "solver", "method", "complete", "solutions", "classes", "group_order",
         "known_solutions", "known_classes", "agrees_with_known", "digest", "elapsed", "startup_time"]


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
    """The counts whose record names a data problem (`core.known.judge_count`): ``instance``
    and ``problem`` (the file and field of the known count, and what the count found)."""
    if "data_problem" not in counts.columns:
        return pd.DataFrame(columns=["instance", "problem"])
    named = counts[counts["data_problem"].map(lambda text: isinstance(text, str) and bool(text))]
    return pd.DataFrame({"instance": named["instance"], "problem": named["data_problem"]}).reset_index(drop=True)


def shown(counts: pd.DataFrame) -> pd.DataFrame:
    """The counts table's columns the report shows (the route and message are in the CSV)."""
    return counts[[c for c in SHOWN if c in counts.columns]]
