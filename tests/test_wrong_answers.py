"""A wrong answer (a claim that contradicts the instance's known answer or a solution another
run found and the checker passed) is unsolved in every statistic, counted apart in the
tables and listed in the report."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pyomo_puzzles import api, cli, jobs
from pyomo_puzzles.core.files import write_json_atomic
from pyomo_puzzles.core.results import Run, counts_table, folder_runs
from pyomo_puzzles.report import html, page, tables

LIMIT = 10.0

# Five queens on weighted cells: the heaviest placement weighs 20 (brute force over the 5! orders,
# the plugin's five_weighted instance); KNOWN_OBJECTIVE is filled in per test.
WEIGHTED_FIVE = """\
puzzle: queens
n: 5
weights: [[0, 0, 3], [1, 3, 5], [2, 1, 4], [3, 4, 2], [4, 2, 6], [0, 4, 7], [2, 2, 9]]
known: {{objective: {known}}}
"""


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


def test_a_selection_of_runs_is_judged_by_the_evidence_of_the_whole_experiment() -> None:
    """The report judges its table once (the column ``wrong_answer`` of tables/runs.csv): a
    figure or table of one solver's runs still counts a run that said infeasible, where another
    solver found a checked solution, as wrong; within that selection alone nothing shows it."""
    frame = pd.DataFrame([row("x/a", "good", "optimal", True), row("x/a", "bad", "infeasible"),
                          row("x/b", "bad", "infeasible")])
    judged = tables.with_wrong_answers(frame)
    assert tables.wrong_answers(judged).tolist() == [None, "says infeasible, but good / f found a solution the "
                                                     "checker passed", None]
    bad = judged[judged["solver"] == "bad"]
    assert tables.solved(bad).tolist() == [False, True]
    assert tables.summary(bad).set_index("solver").loc["bad", "wrong_answers"] == 1
    assert tables.solved(frame[frame["solver"] == "bad"]).tolist() == [True, True]  # no column: the selection alone
    read_back = judged.assign(wrong_answer=judged["wrong_answer"].fillna(np.nan))  # as runs.csv reads back
    assert tables.wrong_answers(read_back).tolist() == tables.wrong_answers(judged).tolist()


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


def test_an_optimum_worse_than_a_checked_objective_of_any_formulation_is_wrong() -> None:
    """Minimising: "good" found a solution whose objective the family's hook recomputed (4);
    "bad" claims 5 is optimal, and "other" claims 9 on another formulation (the hook's value is
    the puzzle's objective, whatever the formulation). A claim within the tolerance is right; a
    maximised instance is judged by its sense. An objective nobody checked (x/c: a family
    without the hook) is no evidence against another run."""
    frame = pd.DataFrame([
        row("x/a", "good", "optimal", True, objective=4.0, objective_sense="minimize", objective_checked=True),
        row("x/a", "bad", "optimal", True, objective=5.0, objective_sense="minimize", objective_checked=True),
        row("x/a", "close", "optimal", True, objective=4.0 + 1e-7, objective_sense="minimize", objective_checked=True),
        row("x/a", "other", "optimal", True, objective=9.0, objective_sense="minimize", formulation="g",
            objective_checked=True),
        row("x/b", "good", "optimal", True, objective=7.0, objective_sense="maximize", objective_checked=True),
        row("x/b", "bad", "optimal", None, objective=6.0, objective_sense="maximize"),
        row("x/b", "stopped", "time_limit", True, objective=6.0, objective_sense="maximize",
            objective_checked=True),  # claims no optimum
        row("x/c", "claims", "optimal", True, objective=3.0, objective_sense="minimize", objective_checked=None),
        row("x/c", "other", "optimal", True, objective=5.0, objective_sense="minimize", objective_checked=None),
    ])
    reasons = tables.wrong_answers(frame).tolist()
    assert reasons[1] == "claims the optimum 5, but good / f found a solution whose checked objective is 4"
    assert reasons[3] == "claims the optimum 9, but good / f found a solution whose checked objective is 4"
    assert reasons[5] == "claims the optimum 6, but good / f found a solution whose checked objective is 7"
    assert [reasons[k] for k in (0, 2, 4, 6, 7, 8)] == [None] * 6
    assert tables.summary(frame).set_index("solver").loc["bad", "wrong_answers"] == 2


def test_runs_record_the_sense_of_their_objective() -> None:
    """Rubik's cubes in stages minimise the number of moves (increasing stages)."""
    record = api.solve("rubik/htm_depth_07", "projections", "highs", isolate=False)
    assert record.status == "optimal" and record.objective_sense == "minimize"


# --- a known answer that a checked solution proves wrong is a data problem ---------------------

def _data_file(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(text)
    return path


def _runs_of(data: Path, records: list[dict], results: Path) -> pd.DataFrame:
    """The runs table of a results folder holding `records`, run on the data file `data` (the
    batch manifest names the file, as the pipeline writes it)."""
    for record in records:
        write_json_atomic(Run(record["instance"], record["formulation"], record["solver"], 1).record_path(str(results)),
                          record)
    write_json_atomic(results / "batches" / "batch0.json", {"records": [], "sources": {records[0]["instance"]: str(data)}})
    runs = folder_runs(results)
    return runs.set_axis(runs["solver"].tolist())  # rows by solver


def test_a_solution_on_a_board_known_to_have_none_is_a_data_problem_and_stays_solved(queens, tmp_path) -> None:
    """Eight queens have 92 placements; a data file that says there is none is wrong, and the
    run that found one (the checker passed it) is right. A run that says infeasible is wrong."""
    data = _data_file(tmp_path, "wrong_eight", "puzzle: queens\nn: 8\nknown: {solvable: false}\n")
    record = api.solve(str(data), "rows", "highs", isolate=False).to_dict()
    assert record["status"] == "optimal" and record["checked"] is True
    claim = {**record, "solver": "cbc", "status": "infeasible", "solution": None, "checked": None, "objective": None}
    runs = _runs_of(data, [record, claim], tmp_path / "results")

    assert tables.solved(runs).to_dict() == {"cbc": False, "highs": True}
    assert tables.wrong_answers(runs).to_dict() == {
        "cbc": "says infeasible, but highs / rows found a solution the checker passed", "highs": None}
    problem = f"{data}: field 'known.solvable' states no solution, but highs / rows found a solution the checker passed"
    assert tables.data_problems(runs)[["instance", "problem"]].values.tolist() == [["queens/wrong_eight", problem]]
    summary = tables.summary(runs).set_index("solver")
    assert summary.loc["highs", ["solved", "wrong_answers", "known_mismatch"]].tolist() == [1, 0, 0]
    assert summary.loc["cbc", ["solved", "wrong_answers"]].tolist() == [0, 1]

    text = page.write_report(tmp_path, runs, tables.summary(runs), [], {}, tmp_path / "report.md").read_text()
    assert f"**1 data problem** ({tables.DATA_PROBLEMS_NOTE}):\n\n- queens/wrong_eight: {problem}\n" in text
    assert "**1 wrong answer**" in text and "highs / rows says" not in text
    page_html = html.render_html(tmp_path, runs, tables.summary(runs), [], {}, tmp_path)
    assert "1 data problem" in page_html and "field &#x27;known.solvable&#x27; states no solution" in page_html


def test_a_checked_placement_heavier_than_the_known_maximum_is_a_data_problem(queens, tmp_path) -> None:
    """The heaviest placement weighs 20; a data file stating 15 is wrong, and a run claiming
    15 is optimal is a wrong answer against the checked 20 (before: the other way round)."""
    data = _data_file(tmp_path, "low_five", WEIGHTED_FIVE.format(known=15))
    record = api.solve(str(data), "rows", "highs", isolate=False).to_dict()
    assert (record["status"], record["objective"], record["checked"]) == ("optimal", 20, True)
    claim = {**record, "solver": "cbc", "objective": 15.0, "solution": None, "checked": None}
    runs = _runs_of(data, [record, claim], tmp_path / "results")

    assert tables.solved(runs).to_dict() == {"cbc": False, "highs": True}
    assert tables.known_agreement(runs).to_dict() == {"cbc": None, "highs": None}  # the known optimum judges no run
    assert tables.wrong_answers(runs).to_dict() == {
        "cbc": "claims the optimum 15, but highs / rows found a solution whose checked objective is 20", "highs": None}
    assert tables.data_problems(runs)["problem"].tolist() == [
        f"{data}: field 'known.objective' states the optimum 15, but highs / rows found a checked solution with the "
        "larger objective 20"]


def test_a_known_maximum_no_run_reaches_still_makes_the_run_a_wrong_answer(queens, tmp_path) -> None:
    """A data file stating 25 is wrong too, but no solution proves it: the run that says 20 is
    optimal contradicts it, and the reason names the file and field it contradicts."""
    data = _data_file(tmp_path, "high_five", WEIGHTED_FIVE.format(known=25))
    record = api.solve(str(data), "rows", "highs", isolate=False).to_dict()
    assert (record["status"], record["objective"]) == ("optimal", 20)
    runs = _runs_of(data, [record], tmp_path / "results")
    assert tables.wrong_answers(runs).to_dict() == {
        "highs": f"contradicts the instance's known answer ({data}: field 'known.objective')"}
    assert not tables.solved(runs)["highs"]
    assert tables.data_problems(runs).empty


def test_a_count_above_the_known_count_is_a_data_problem_in_its_record_and_the_report(queens, tmp_path) -> None:
    data = _data_file(tmp_path, "few_five", "puzzle: queens\nn: 5\nknown: {solutions: 9}\n")
    instance = api.load(str(data))
    result = api.count(instance, None, "highs", up_to_symmetry=True, split=0).to_dict()
    assert result["complete"] and (result["solutions"], result["classes"]) == (10, 2)  # OEIS A000170, A002562
    record = tmp_path / "count.json"
    jobs._finish_count(SimpleNamespace(output=SimpleNamespace(record=str(record))), instance, result, True)
    counts = counts_table([str(record)])
    problem = f"{data}: field 'known.solutions' states 9 solutions, but highs / rows / nogood found 10"
    assert counts[["agrees_with_known", "data_problem"]].values.tolist() == [[False, problem]]
    text = page.write_report(tmp_path, pd.DataFrame(), pd.DataFrame(), [], {}, tmp_path / "report.md",
                             counts=counts).read_text()
    assert f"- queens/few_five: {problem}" in text


@pytest.mark.parametrize("known, argv, code, line", [
    ("{solvable: false}", ["solve"], 0,
     "data problem: {data}: field 'known.solvable' states no solution, but this run found a solution the checker "
     "passed (the known answer is wrong; the run is solved)"),
    ("{solutions: 9}", ["count"], 0,
     "data problem: {data}: field 'known.solutions' states 9 solutions, but this count found 10 (the known count is "
     "wrong)"),
    ("{solutions: 1}", ["count", "--limit", "2"], 1,
     "data problem: {data}: field 'known.solutions' states 1 solution, but this count found 2 before it stopped "
     "(the known count is wrong)"),
    ("{solutions: 11}", ["count"], 1,
     "DISAGREES with the known count: {data}: field 'known.solutions' states 11 solutions, but this count finished "
     "with 10"),
    ("{solutions: 10, solutions_up_to_symmetry: 3}", ["count", "--up-to-symmetry"], 1,
     "DISAGREES with the known count: {data}: field 'known.solutions_up_to_symmetry' states 3 solutions up to "
     "symmetry, but this count finished with 2"),
    ("{solutions: 10, solutions_up_to_symmetry: 2}", ["count", "--up-to-symmetry"], 0, None),
], ids=["solve-unsolvable", "count-more", "count-more-incomplete", "count-fewer", "classes-fewer", "count-agrees"])
def test_solve_and_count_say_how_they_stand_to_the_known_answer(queens, tmp_path, capsys, known, argv, code,
                                                                line) -> None:
    """Five queens: 10 placements, 2 up to the square's symmetries (OEIS A000170, A002562)."""
    data = _data_file(tmp_path, "five", f"puzzle: queens\nn: 5\nknown: {known}\n")
    counting = ["-q", "--split", "0"] if argv[0] == "count" else []
    assert cli.main([argv[0], str(data), *argv[1:], *counting]) == code
    out = capsys.readouterr().out
    if line is None:
        assert "data problem" not in out and "DISAGREES" not in out
    else:
        assert line.format(data=data) in out.splitlines()


@pytest.mark.parametrize("known, code, line", [
    (15, 0, "data problem: {data}: field 'known.objective' states the optimum 15, but this run found a checked "
            "solution with the larger objective 20 (the known answer is wrong; the run is solved)"),
    (25, 1, "DISAGREES with the known answer: {data}: field 'known.objective' states the optimum 25, but this run "
            "claims the optimum 20"),
    (20, 0, None),
], ids=["too-low", "too-high", "right"])
def test_solve_says_how_a_maximum_stands_to_the_known_one(queens, tmp_path, capsys, known, code, line) -> None:
    data = _data_file(tmp_path, "five", WEIGHTED_FIVE.format(known=known))
    assert cli.main(["solve", str(data)]) == code
    out = capsys.readouterr().out
    assert len(out.splitlines()) == (1 if line is None else 2)
    if line is not None:
        assert out.splitlines()[1] == line.format(data=data)
