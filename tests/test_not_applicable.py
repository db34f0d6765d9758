"""A formulation or reference method that cannot answer an instance leaves the cell out, with
the reason, wherever the instance comes from: a shipped one when the experiment is planned, a
generated one (known only once made) when its run starts. Such a cell is no failed run: it is
in no table, statistic or score, and the report lists it. A reference method says so with its
`applies_to`, as a formulation does.

The queens test plugin's dancing links refuse weighted boards (an exact cover has no weights);
a formulation file of the test refuses them too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import queens_env, run_cli
from pyomo_puzzles import experiment, jobs
from pyomo_puzzles.core import registry
from pyomo_puzzles.core.files import data_file_yaml, write_json_atomic, write_text_atomic
from pyomo_puzzles.core.results import Run, generated_path, left_out, runs_table
from pyomo_puzzles.report import html, page, scores, tables

UNWEIGHTED_ONLY = '''\
"""n queens, for unweighted boards only."""
from pyomo_puzzles_queens import build_model, decode, model_data, solution_vars  # noqa: F401

FAMILY = "queens"


def applies_to(board):
    return "this model ignores the weights" if board.weights else None
'''

SETTINGS = {"time_limit": 60, "threads": 1, "gap": None, "memory_limit_mb": None}


def test_a_reference_method_that_does_not_apply_is_one_line_on_the_command_line():
    for command in ("solve", "count"):
        done = run_cli(command, "queens/five_weighted", "-s", "dlx", env=queens_env())
        assert done.returncode == 2, done.stdout + done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "cannot" in lines[0] and "queens/five_weighted" in lines[0]
        assert "weighted boards ask for a maximum" in lines[0]


def test_a_shipped_instance_a_method_cannot_answer_is_left_out_when_planned(queens):
    said = []
    config = {"instances": ["queens/five_weighted", "queens/six"], "formulations": ["rows"],
              "solvers": ["highs", "dlx"], "repeats": 1}
    runs, _ = experiment.matrix(config, report=said.append)
    assert sorted((r.instance, r.solver) for r in runs) == [
        ("queens/five_weighted", "highs"), ("queens/six", "dlx"), ("queens/six", "highs")]
    assert "[pyomo-puzzles] solver dlx does not apply to 1 of the instances; no runs there" in said
    counts = experiment.count_jobs({"counts": {"instances": ["queens/five_weighted", "queens/six"],
                                               "formulations": ["rows"], "solvers": ["dlx"]}})
    assert [(job.instance, job.solver) for job in counts] == [("queens/six", "dlx")]


@pytest.fixture
def generated_runs(queens, tmp_path):
    """A generated weighted board (the plugin's generator) run by HiGHS on the plugin's model, by
    dancing links and by the unweighted-only formulation file, as a batch runs them."""
    results = tmp_path / "results"
    name = "generated/queens/n5_weightedTrue_seed1"
    data = registry.generator("queens")(seed=1, n=5, weighted=True)
    write_text_atomic(generated_path(name, str(results)), data_file_yaml(data))
    formulation_file = tmp_path / "unweighted.py"
    formulation_file.write_text(UNWEIGHTED_ONLY)
    cells = [Run(name, "rows", "highs", 1), Run(name, "exact_cover", "dlx", 1),
             Run(name, f"{formulation_file}:unweighted", "highs", 1)]
    paths = []
    for cell in cells:
        record = jobs.run_one(cell, str(results), SETTINGS)
        paths.append(cell.record_path(str(results)))
        write_json_atomic(paths[-1], record.to_dict())
    return name, paths, data


def test_a_generated_instance_a_method_cannot_answer_is_left_out_not_failed(generated_runs):
    _, paths, _ = generated_runs
    statuses = [json.loads(Path(p).read_text())["status"] for p in paths]
    assert statuses == ["optimal", "not_applicable", "not_applicable"]
    runs = runs_table(paths, str(Path(paths[0]).parents[4]))
    assert runs[["solver", "formulation"]].values.tolist() == [["highs", "rows"]]
    assert tables.summary(runs)["errors"].sum() == 0
    lines = left_out(paths)
    assert len(lines) == 2
    assert any(line.startswith("dlx / exact_cover: solver 'dlx' cannot answer ") for line in lines)
    assert any("unweighted: formulation 'unweighted' cannot model" in line and "ignores the weights" in line
               for line in lines)


def test_a_method_left_out_of_some_instances_is_scored_on_the_others(queens, tmp_path):
    """Dancing links answer the unweighted boards only; HiGHS answers all. The scores compare
    them where both have runs, or leave dancing links out with a note: never as failing where
    it does not apply."""
    results = tmp_path / "results"
    paths = []
    for instance, solver, formulation in [("queens/four", "highs", "rows"), ("queens/six", "highs", "rows"),
                                          ("queens/five_weighted", "highs", "rows"),
                                          ("queens/four", "dlx", "exact_cover"), ("queens/six", "dlx", "exact_cover"),
                                          ("queens/five_weighted", "dlx", "exact_cover")]:
        cell = Run(instance, formulation, solver, 1)
        write_json_atomic(cell.record_path(str(results)), jobs.run_one(cell, str(results), SETTINGS).to_dict())
        paths.append(cell.record_path(str(results)))
    runs = runs_table(paths, str(results))
    assert len(runs) == 5 and tables.solved(runs).all()
    table, notes = scores.score_table(runs)
    dlx = table[table["solver"] == "dlx"]
    assert dlx.empty or (dlx["solved"] == dlx["instances"]).all()


def test_the_report_lists_the_cells_left_out(generated_runs, tmp_path):
    _, paths, _ = generated_runs
    results = Path(paths[0]).parents[4]
    runs = runs_table(paths, str(results))
    summary = tables.summary(runs)
    markdown = page.write_report(results, runs, summary, [], {}, tmp_path / "report.md",
                                 left_out=left_out(paths)).read_text()
    assert "**Left out** (2 cells of the matrix" in markdown
    assert "dlx / exact_cover: solver 'dlx' cannot answer" in markdown
    page_html = html.write_html(results, runs, summary, [], {}, tmp_path / "report.html",
                                left_out=left_out(paths)).read_text()
    assert "<strong>Left out</strong> (2 cells" in page_html and "ignores the weights" in page_html
