"""A wrong answer (a claim that contradicts the instance's known answer or a solution another
run found and the checker passed) is unsolved in every statistic, counted apart in the
tables and listed in the report."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pyomo_puzzles import api
from pyomo_puzzles.core.files import write_json_atomic
from pyomo_puzzles.core.results import Run, folder_runs
from pyomo_puzzles.report import html, page, tables

LIMIT = 10.0


def row(instance: str, solver: str, status: str, checked=None, **extra) -> dict:
    base = {"puzzle": "x", "instance": instance, "formulation": "f", "solver": solver, "repeat": 1,
            "status": status, "checked": checked, "wall_time": 1.0, "objective": np.nan, "time_limit": LIMIT,
            "known_solvable": None, "known_objective": np.nan}
    return {**base, **extra}


def test_an_infeasible_claim_against_a_checked_solution_is_wrong() -> None:
    frame = pd.DataFrame([
        row("x/a", "good", "optimal", True),
        row("x/a", "bad", "infeasible"),                          # another run's solution passed the checker
        row("x/b", "bad", "infeasible"),                          # nothing contradicts it
        row("x/c", "bad", "infeasible", known_solvable=True),     # the instance is known to be solvable
        row("x/d", "bad", "optimal", True, known_objective=5.0, objective=6.0),  # not the known optimum
        row("x/e", "bad", "time_limit"),                          # no answer, nothing to judge
    ])
    reasons = tables.wrong_answers(frame).tolist()
    assert reasons[0] is None and reasons[2] is None and reasons[5] is None
    assert reasons[1] == "says infeasible, but good / f found a solution the checker passed"
    assert reasons[3] == reasons[4] == "contradicts the instance's known answer"
    assert tables.solved(frame).tolist() == [True, False, True, False, False, False]
    assert tables.censored_time(frame).tolist() == [1.0, LIMIT, 1.0, LIMIT, LIMIT, LIMIT]
    summary = tables.summary(frame).set_index("solver")
    assert summary.loc["bad", "wrong_answers"] == 3 and summary.loc["good", "wrong_answers"] == 0
    assert summary.loc["bad", "solved"] == 1  # x/b only
    assert math.isclose(summary.loc["bad", "median_time"], LIMIT)


def test_a_wrong_answer_injected_into_a_results_folder_shows_in_the_tables_and_the_report(tmp_path) -> None:
    """A real run of the L-tromino cube (5,328 tilings are known) and a record beside it that
    claims the cube cannot be tiled."""
    results = tmp_path / "results"
    record = api.solve("packing/l_tromino_cube", "placement", "highs", isolate=False)
    assert record.status == "optimal" and record.checked
    write_json_atomic(Run("packing/l_tromino_cube", "placement", "highs", 1).record_path(str(results)),
                      record.to_dict())
    claim = {**record.to_dict(), "solver": "cbc", "status": "infeasible", "solution": None, "checked": None,
             "objective": None}
    write_json_atomic(Run("packing/l_tromino_cube", "placement", "cbc", 1).record_path(str(results)), claim)

    runs = folder_runs(results)
    summary = tables.summary(runs).set_index("solver")
    assert summary.loc["cbc", "wrong_answers"] == 1 and summary.loc["cbc", "solved"] == 0
    assert summary.loc["highs", "wrong_answers"] == 0 and summary.loc["highs", "solved"] == 1
    assert "Wrong answers" in tables.formatted_summary(tables.summary(runs)).columns

    report = page.write_report(results, runs, tables.summary(runs), [], {}, tmp_path / "report.md")
    text = report.read_text()
    assert "**1 wrong answer**" in text
    assert "- packing/l_tromino_cube: cbc / placement says infeasible: contradicts the instance's known answer" in text
    page_html = html.render_html(results, runs, tables.summary(runs), [], {}, tmp_path)
    assert "1 wrong answer" in page_html and "cbc / placement says infeasible" in page_html


def test_an_optimum_worse_than_a_checked_solution_of_the_same_formulation_is_wrong() -> None:
    """Minimising: "good" found a checked solution of 4; "bad" claims 5 is optimal. A claim
    within the tolerance, another formulation's objective and a maximised one are judged by
    their own sense and formulation."""
    frame = pd.DataFrame([
        row("x/a", "good", "optimal", True, objective=4.0, objective_sense="minimize"),
        row("x/a", "bad", "optimal", True, objective=5.0, objective_sense="minimize"),
        row("x/a", "close", "optimal", True, objective=4.0 + 1e-7, objective_sense="minimize"),
        row("x/a", "other", "optimal", True, objective=9.0, objective_sense="minimize", formulation="g"),
        row("x/b", "good", "optimal", True, objective=7.0, objective_sense="maximize"),
        row("x/b", "bad", "optimal", None, objective=6.0, objective_sense="maximize"),
        row("x/b", "stopped", "time_limit", True, objective=6.0, objective_sense="maximize"),  # claims no optimum
    ])
    reasons = tables.wrong_answers(frame).tolist()
    assert reasons[1] == "claims the optimum 5, but good / f found a checked solution with objective 4"
    assert reasons[5] == "claims the optimum 6, but good / f found a checked solution with objective 7"
    assert [reasons[k] for k in (0, 2, 3, 4, 6)] == [None] * 5
    assert tables.summary(frame).set_index("solver").loc["bad", "wrong_answers"] == 2


def test_runs_record_the_sense_of_their_objective() -> None:
    """Rubik's cubes in stages minimise the number of moves (increasing stages)."""
    record = api.solve("rubik/htm_depth_07", "projections", "highs", isolate=False)
    assert record.status == "optimal" and record.objective_sense == "minimize"
