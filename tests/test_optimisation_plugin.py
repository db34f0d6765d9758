"""A formulation comparison on an optimisation puzzle written as a plugin (issue 56): the
Golomb-ruler test plugin (`tests/plugins/golomb`), its two formulations, and formulation
files a user could write beside them.

Ground truth, independent of integer programming (OEIS A003022 and A036501, and the brute
force `optimal_rulers` below): the shortest Golomb ruler with 4 marks has length 6, with 5
marks 11, with 6 marks 17; the optimal rulers of 5 marks are [0, 1, 4, 9, 11] and
[0, 2, 7, 8, 11] and their mirror images (4 in all, 2 up to mirror).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest

from conftest import GOLOMB_PLUGIN, QUEENS_PLUGIN, golomb_env, plugin_env, run_cli, solver_params
from pyomo_puzzles import api, cli, jobs
from pyomo_puzzles.core import registry, solvers
from pyomo_puzzles.core.linear_form import compiled_linear_form, form_digest, read_linear_form
from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.core.files import write_json_atomic
from pyomo_puzzles.core.results import Run, folder_runs
from pyomo_puzzles.report import tables

DETACHED = f"{GOLOMB_PLUGIN / 'detached_length.py'}:detached"
"""A formulation file whose objective only has to reach the first half of the ruler's marks."""

SHORTEST = {4: 6, 5: 11, 6: 17}
"""The shortest Golomb ruler by number of marks (OEIS A003022)."""

GAPS_OF_TWO = '''\
"""Golomb rulers by positions, over-restricted: no two marks one apart (a modelling slip that
loses every optimal ruler of 5 marks, whose objective is still the ruler's length)."""
import pyomo.environ as pyo
from pyomo_puzzles_golomb import positions_data as model_data, positions_decode as decode, positions_model

FAMILY = "golomb"


def build_model():
    model = positions_model()

    @model.Constraint(model.MARK)
    def gaps_of_two(m, i):
        return m.x[i] >= m.x[i - 1] + 2 if i > 1 else pyo.Constraint.Skip

    return model
'''


def ruler_length(solution: dict) -> int:
    """The test's own length of a ruler (not the plugin's hook)."""
    return max(solution["marks"]) - min(solution["marks"])


def is_golomb_ruler(marks: list[int]) -> bool:
    differences = [b - a for a, b in combinations(sorted(marks), 2)]
    return len(set(marks)) == len(marks) and len(set(differences)) == len(differences)


def optimal_rulers(marks: int, longest: int) -> list[tuple[int, ...]]:
    """Every shortest Golomb ruler with `marks` marks (0 first), by brute force over rulers of
    increasing length."""
    for length in range(marks - 1, longest + 1):
        found = [(0, *middle, length) for middle in combinations(range(1, length), marks - 2)
                 if is_golomb_ruler([0, *middle, length])]
        if found:
            return found
    return []


def test_the_brute_force_agrees_with_the_published_figures() -> None:
    assert {n: len(optimal_rulers(n, 20)[0]) - 1 for n in (4, 5, 6)} == {4: 4 - 1, 5: 5 - 1, 6: 6 - 1}
    assert {n: optimal_rulers(n, 20)[0][-1] for n in (4, 5, 6)} == SHORTEST
    assert sorted(optimal_rulers(5, 20)) == [(0, 1, 4, 9, 11), (0, 2, 7, 8, 11), (0, 2, 7, 10, 11),
                                             (0, 3, 4, 9, 11)]


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.fixture
def hookless(golomb, monkeypatch):
    """The Golomb family as a user would have written it without an objective hook."""
    family = dataclasses.replace(golomb.FAMILY, objective=None)
    monkeypatch.setitem(registry._FAMILIES, "golomb", family)
    return family


# --- 1. the objective of a checked solution is checked ---------------------------------------------

@pytest.mark.parametrize("solver", solver_params(solvers.names()))
def test_a_wrong_objective_is_an_error_naming_both_values_on_every_solver(golomb, solver) -> None:
    record = api.solve("golomb/marks_05", DETACHED, solver, isolate=False)
    assert record.checked is True and is_golomb_ruler(record.solution["marks"])  # a feasible ruler ...
    length = ruler_length(record.solution)
    assert length >= SHORTEST[5] and record.objective < length  # ... whose objective is not its length
    assert record.status == "error" and record.objective_checked is False
    assert f"objective {record.objective:g}" in record.message and f"gives {length}" in record.message


def test_a_right_objective_is_checked(golomb) -> None:
    for formulation in ("positions", "grid"):
        record = api.solve("golomb/marks_05", formulation, "highs", isolate=False)
        assert (record.status, record.objective, record.objective_checked) == ("optimal", SHORTEST[5], True)
        assert ruler_length(record.solution) == SHORTEST[5]


def test_the_shipped_families_with_objectives_check_them() -> None:
    """Rubik: the moves in the metric (the scramble's distance, 7 half turns); Instant Insanity
    design: the faces repainted (the Parker Brothers set needs 3 to stack both towers)."""
    rubik = api.solve("rubik/htm_depth_07", "projections", "highs", isolate=False)
    assert (rubik.status, rubik.objective, rubik.objective_checked) == ("optimal", 7, True)
    assert len(rubik.solution["moves"]) == 7
    name = "instant_insanity_design/parker_brothers_repainted"
    design = api.solve(name, None, "highs", isolate=False)
    assert (design.status, design.objective_checked) == ("optimal", True) and design.objective == pytest.approx(3)
    start = api.load(name).raw["cubes"]
    assert sum(a != b for cube, given in zip(design.solution["cubes"], start) for a, b in zip(cube, given)) == 3


def test_a_wrong_objective_is_an_error_in_the_pipeline_and_judges_no_other_run(golomb, tmp_path) -> None:
    """The runs as the pipeline's batch makes them: the wrong objective is an error, no data
    problem is declared, and the right formulations agree with the known optimum."""
    results = str(tmp_path / "results")
    settings = {"time_limit": 60, "threads": 1}
    for formulation in ("grid", "positions", DETACHED):
        cell = Run("golomb/marks_05", formulation, "highs", 1)
        write_json_atomic(cell.record_path(results), jobs.run_one(cell, results, settings).to_dict())
    runs = folder_runs(tmp_path / "results").set_index("formulation")
    assert runs.loc["detached", "status"] == "error" and not runs.loc["detached", "objective_checked"]
    assert tables.data_problems(runs.reset_index()).empty
    agreement = tables.known_agreement(runs.reset_index()).set_axis(runs.index)
    assert agreement["grid"] == agreement["positions"] == "agree"
    assert tables.solved(runs.reset_index()).set_axis(runs.index).to_dict() == {
        "grid": True, "positions": True, "detached": False}
    # 12: the report lists the failed run with its reason (on 3f1b691: "Errors 1" and nothing more)
    from html import escape

    from pyomo_puzzles.report import html, page

    table = runs.reset_index()
    message = runs.loc["detached", "message"]
    assert message.startswith("the solver's objective")
    text = page.write_report(tmp_path, table, tables.summary(table), [], {}, tmp_path / "report.md").read_text()
    assert f"- golomb/marks_05: highs / detached, error: {message}" in text.splitlines()
    assert "1 failed run" in text
    assert escape(message) in html.render_html(tmp_path, table, tables.summary(table), [], {}, tmp_path)


def test_without_the_hook_an_objective_is_the_solvers_claim_and_proves_nothing(hookless, tmp_path, capsys) -> None:
    """On 3f1b691 this declared a data problem ("the known answer 11 is wrong"), exit 0."""
    record = api.solve("golomb/marks_05", DETACHED, "highs", isolate=False)
    assert record.status == "optimal" and record.objective_checked is None and record.objective < SHORTEST[5]
    assert cli.main(["solve", "golomb/marks_05", "-f", DETACHED, "-s", "highs"]) == 1
    out = capsys.readouterr().out
    assert "data problem" not in out
    assert f"objective {record.objective:g} (the solver's claim" in out
    assert "DISAGREES with the known answer" in out and "(the solver's claim" in out.splitlines()[1]

    results = str(tmp_path / "results")
    for formulation in ("grid", DETACHED):
        cell = Run("golomb/marks_05", formulation, "highs", 1)
        write_json_atomic(cell.record_path(results), jobs.run_one(cell, results, {"time_limit": 60}).to_dict())
    runs = folder_runs(tmp_path / "results")
    by_formulation = dict(zip(runs["formulation"], tables.wrong_answers(runs)))
    assert tables.data_problems(runs).empty
    assert by_formulation["grid"] is None
    assert by_formulation["detached"].startswith("contradicts the instance's known answer")
    assert dict(zip(runs["formulation"], tables.solved(runs))) == {"grid": True, "detached": False}


def test_wrong_answers_are_compared_across_formulations_on_the_checked_objective(golomb, tmp_path) -> None:
    """No known answer: the over-restricted formulation's optimum (a ruler with no gap of one,
    longer than 11) is wrong against grid's checked 11. On 3f1b691 the two were different
    formulations, compared with nothing."""
    data = _write(tmp_path, "five.yaml", "puzzle: golomb\nmarks: 5\nmax_length: 16\n")
    restricted = f"{_write(tmp_path, 'gaps_of_two.py', GAPS_OF_TWO)}:gaps_of_two"
    results = tmp_path / "results"
    for formulation in ("grid", restricted):
        cell = Run("golomb/five", formulation, "highs", 1, source=str(data))
        write_json_atomic(cell.record_path(str(results)), jobs.run_one(cell, str(results), {"time_limit": 60}).to_dict())
    write_json_atomic(results / "batches" / "batch0.json", {"records": [], "sources": {"golomb/five": str(data)}})
    runs = folder_runs(results)
    claims = dict(zip(runs["formulation"], runs["objective"]))
    assert claims["grid"] == SHORTEST[5] and claims["gaps_of_two"] > SHORTEST[5]
    reasons = dict(zip(runs["formulation"], tables.wrong_answers(runs)))
    assert reasons == {"grid": None, "gaps_of_two": f"claims the optimum {claims['gaps_of_two']:g}, but highs / grid "
                                                    f"found a solution whose checked objective is {SHORTEST[5]}"}


# --- 2. a one-off cost of the process is paid before the run's clock -----------------------------

FIRST_RUNS = """
import json
from pyomo_puzzles.core import run
print(json.dumps([run.run("golomb/marks_05", "positions", "highs", 60, 1, isolate=True).compile_time
                  for _ in range(2)]))
"""


def test_a_nested_expression_model_compiles_in_milliseconds_in_a_fresh_process(tmp_path) -> None:
    """Two forked runs from a fresh process, as a pipeline batch makes them. On 3f1b691 each
    took 0.55 s to compile (Pyomo's compiler, whose first use in a process imports scipy
    through Pyomo's deferred imports; a forked run never inherited it): 83-93 % of a small
    run's ranked time. Now a few milliseconds (benchmarks/first_model.py)."""
    done = subprocess.run([sys.executable, "-c", FIRST_RUNS], env=golomb_env(), cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = json.loads(done.stdout.splitlines()[-1])
    assert first < 0.1 and second < 0.1


def test_the_nested_rows_are_read_as_pyomos_compiler_reads_them(golomb) -> None:
    model = api.build("golomb/marks_06", "positions")
    fast = read_linear_form(model)
    assert fast is not None and form_digest(fast) == form_digest(compiled_linear_form(model))


# --- 6. the time limit bounds the whole run -------------------------------------------------------

def test_a_limit_used_up_by_compiling_leaves_the_solver_nothing(golomb) -> None:
    left = iter([60.0, 0.0])  # what is left of the run's limit before and after compiling
    outcome = solvers.solve_within("highs", api.build("golomb/marks_05", "positions"), RunSettings(),
                                   lambda: next(left))
    assert outcome.status == "time_limit" and not outcome.has_solution and "compiling" in outcome.message


def test_the_solver_gets_what_compiling_left(golomb) -> None:
    """Seven marks by positions take HiGHS about 2 s: a solver given 0.5 s of a run's 60 stops
    at its limit."""
    left = iter([60.0, 0.5])
    outcome = solvers.solve_within("highs", api.build("golomb/marks_07", "positions"),
                                   RunSettings(threads=1), lambda: next(left))
    assert outcome.status == "time_limit" and outcome.solver_time < 1.0


def test_the_time_limit_of_a_fresh_process_bounds_its_run(tmp_path) -> None:
    """On 3f1b691 the limit did not cover compiling: -t 1 gave a run of 1.6 s (compile 0.55 s)."""
    done = run_cli("solve", "golomb/marks_07", "-f", "positions", "-s", "highs", "-t", "1", "-o", tmp_path / "run.json",
                   env=golomb_env())
    record = json.loads((tmp_path / "run.json").read_text())
    assert done.returncode == 1 and record["status"] == "time_limit"
    assert record["load_time"] + record["wall_time"] < 1.0 + 0.3


# --- 4. a catalogue answer that contradicts the data file is refused -------------------------------

def _catalogue_entry(objective: float) -> dict:
    return {"name": "golomb/marks_05", "band": "easy", "times": {"highs/grid": 0.05},
            "calibration": {"command": "by hand", "machine": "here", "solvers": {"highs": "HiGHS"}, "threads": 1,
                            "time_limit": 60.0, "measure": "build_and_solve", "date": "2026-12-07"},
            "answer": {"status": "optimal", "objective": objective}, "sources": ["highs/grid"]}


@pytest.mark.parametrize("objective, refused", [(10, True), (11, False)])
def test_a_catalogue_answer_against_the_data_files_known_answer_is_refused(golomb, monkeypatch, tmp_path, capsys,
                                                                           objective, refused) -> None:
    """marks_05's data file states the optimum 11; a catalogue stating 10 was accepted and
    exported to the .solu file on 3f1b691."""
    import yaml

    catalogue = _write(tmp_path, "library.yaml", yaml.safe_dump({"instances": [_catalogue_entry(objective)]}))
    monkeypatch.setitem(registry._FAMILIES, "golomb", dataclasses.replace(golomb.FAMILY, library=catalogue))
    solu = tmp_path / "golomb.solu"
    code = cli.main(["library", "--family", "golomb", "--solu", str(solu)])
    captured = capsys.readouterr()
    if not refused:
        assert code == 0 and "=opt= golomb/marks_05 11" in solu.read_text()
        return
    assert code == 2 and not solu.exists()
    line = captured.err.strip()
    assert "\n" not in line and str(catalogue) in line and "instances[0].answer.objective" in line
    assert "marks_05.yaml: field 'known.objective' states 11" in line


# --- 5. a count on an instance with an objective counts its optimal solutions ---------------------

def golomb_rulers(marks: int, longest: int) -> list[tuple[int, ...]]:
    """Every Golomb ruler with `marks` marks, the first at 0, none past `longest` (brute force)."""
    return [(0, *rest) for rest in combinations(range(1, longest + 1), marks - 1) if is_golomb_ruler([0, *rest])]


def test_count_gives_the_optimal_rulers_by_default_and_says_so(tmp_path) -> None:
    """On 3f1b691: every feasible ruler of the model, "complete", without a word of the objective."""
    record = tmp_path / "count.json"
    done = run_cli("count", "golomb/marks_05", "-f", "grid", "-q", "-o", record, env=golomb_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith(f"golomb/marks_05: {len(optimal_rulers(5, 20))} optimal solutions;")
    assert "the objective held at the optimum 11" in done.stdout
    result = json.loads(record.read_text())
    assert (result["counted"], result["optimum"], result["solutions"], result["complete"]) == ("optimal", 11, 4, True)
    mirrored = run_cli("count", "golomb/marks_05", "-f", "grid", "-q", "--up-to-symmetry", env=golomb_env())
    assert mirrored.stdout.startswith("golomb/marks_05: 2 optimal solutions up to symmetry (orbits of up to 2), 4 in all")


def test_every_feasible_point_is_counted_when_asked(tmp_path) -> None:
    data = _write(tmp_path, "four.yaml", "puzzle: golomb\nmarks: 4\nmax_length: 9\nknown: {solutions: 2}\n")
    done = run_cli("count", data, "-f", "grid", "-q", "--every-feasible", env=golomb_env())
    expected = len(golomb_rulers(4, 9))
    assert expected > 2 and done.stdout.startswith(f"golomb/four: {expected} feasible solutions; complete")
    assert "every feasible point, the objective ignored" in done.stdout
    assert "DISAGREES" not in done.stdout and "data problem" not in done.stdout  # the known 2 are the optimal ones
    optimal = run_cli("count", data, "-f", "grid", "-q", env=golomb_env())
    assert optimal.returncode == 0 and optimal.stdout.startswith("golomb/four: 2 optimal solutions; complete")


WEIGHTED_SIX = [[r, c, w] for r, c, w in [
    (0, 0, 3), (0, 1, 1), (0, 2, 2), (0, 3, 2), (0, 4, 1), (0, 5, 1), (1, 0, 1), (1, 1, 3), (1, 2, 3), (1, 3, 2),
    (1, 4, 3), (1, 5, 2), (2, 0, 2), (2, 1, 1), (2, 2, 2), (2, 3, 2), (2, 4, 1), (2, 5, 3), (3, 0, 2), (3, 1, 3),
    (3, 2, 3), (3, 3, 3), (3, 4, 1), (3, 5, 1), (4, 0, 3), (4, 1, 3), (4, 2, 3), (4, 3, 3), (4, 4, 2), (4, 5, 3),
    (5, 0, 3), (5, 1, 3), (5, 2, 1), (5, 3, 2), (5, 4, 2), (5, 5, 1)]]
"""Six queens on a board weighted 1 to 3: two placements weigh the most, 13 (the brute force below)."""


def heaviest_placements(n: int, weights: list) -> tuple[int, int]:
    """The heaviest weight of n queens and how many placements have it (brute force over n! orders)."""
    from itertools import permutations

    weight = {(r, c): w for r, c, w in weights}
    totals = [sum(weight.get((r, p[r]), 0) for r in range(n)) for p in permutations(range(n))
              if all(abs(p[i] - p[j]) != j - i for i in range(n) for j in range(i + 1, n))]
    return max(totals), totals.count(max(totals))


@pytest.mark.parametrize("solver, method", [
    *[pytest.param(p.values[0], "native", marks=p.marks, id=f"{p.values[0]}-native")
      for p in solver_params(("scip", "cpsat", "gurobi", "cplex"))],
    *[pytest.param(p.values[0], "nogood", marks=p.marks, id=f"{p.values[0]}-nogood")
      for p in solver_params(("highs", "glpk"))]])
def test_the_optimal_placements_of_a_weighted_board_are_counted_by_every_route(queens, tmp_path, solver,
                                                                               method) -> None:
    import yaml

    best, ties = heaviest_placements(6, WEIGHTED_SIX)
    assert (best, ties) == (13, 2)
    data = _write(tmp_path, "six.yaml", yaml.safe_dump({"puzzle": "queens", "n": 6, "weights": WEIGHTED_SIX}))
    result = api.count(str(data), None, solver, method=method)
    assert (result.counted, result.optimum, result.solutions, result.complete) == ("optimal", best, ties, True), \
        result.message
    everything = api.count(str(data), None, solver, method=method, every_feasible=True)
    assert (everything.counted, everything.solutions, everything.complete) == ("feasible", 4, True)  # OEIS A000170


# --- 7. the environment record names the framework's own commit ----------------------------------

def test_the_environment_names_the_frameworks_commit_not_only_the_working_folders(tmp_path) -> None:
    """On 3f1b691 `git_commit` was the commit of the folder Snakemake ran from (the user's, here
    none) and the framework's appeared nowhere."""
    from pyomo_puzzles import experiment

    root = Path(__file__).resolve().parents[1]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("the project is not a git work tree here")
    changes = subprocess.run(["git", "status", "--porcelain", "--", "pyomo_puzzles"], cwd=root, capture_output=True,
                             text=True).stdout.strip()
    record = experiment.environment({"solvers": ["highs"]}, tmp_path)
    framework = record["framework"]
    assert framework["commit"] == head.stdout.strip() and framework["uncommitted_changes"] is bool(changes)
    assert framework["folder"] == str(root / "pyomo_puzzles") and framework["version"]
    assert record["working_folder"] == {"path": str(tmp_path), "commit": None, "uncommitted_changes": None}


def _environment_folder(folder: Path, commit: str, not_in_lock: dict) -> Path:
    folder.mkdir()
    environment = {"lock": {"sha256": "ab" * 32, "installed_as_locked": not not_in_lock, "not_as_locked": {},
                            "not_in_lock": not_in_lock},
                   "framework": {"version": "0.1.0", "commit": commit, "uncommitted_changes": False},
                   "packages": {"pyomo": "6.10.1"}, "python": "3.11.7"}
    write_json_atomic(folder / "environment.json", environment)
    return folder


def test_compare_names_a_framework_commit_that_differs_and_not_plugins_both_folders_have(tmp_path) -> None:
    """13: on 3f1b691 two folders with the same plugin outside the lock were "Versions differ"."""
    import pandas as pd

    from pyomo_puzzles.report import compare

    plugin = {"pyomo-puzzles-golomb": "1.0"}
    a = _environment_folder(tmp_path / "a", "1" * 40, plugin)
    b = _environment_folder(tmp_path / "b", "1" * 40, plugin)
    c = _environment_folder(tmp_path / "c", "2" * 40, plugin)
    d = _environment_folder(tmp_path / "d", "1" * 40, {})
    runs = pd.DataFrame({"solver": pd.Series([], dtype=object), "solver_version": pd.Series([], dtype=object)})
    assert compare.version_differences(a, b, runs, runs) == []
    assert compare.version_differences(a, c, runs, runs) == [
        f"pyomo-puzzles: 0.1.0 at {'1' * 12} in A, 0.1.0 at {'2' * 12} in B"]
    assert compare.version_differences(a, d, runs, runs) == [
        "A's packages are not all the locked ones: pyomo-puzzles-golomb 1.0 (not in the lock)"]


# --- 11. an instance's picture comes from its best checked run ------------------------------------

def test_an_instance_is_drawn_from_its_best_checked_run_and_the_report_says_which(golomb, tmp_path, capsys) -> None:
    """The wrong-objective run's ruler passes the checker but is longer than 11 (on 3f1b691 its
    run was 'optimal' and, first in the batch, the one drawn); a run stopped by its limit is no
    better than a proven optimum."""
    from types import SimpleNamespace

    from pyomo_puzzles.core.results import picture_run
    from pyomo_puzzles.report import html

    results = str(tmp_path / "results")
    cells = [Run("golomb/marks_05", DETACHED, "highs", 1), Run("golomb/marks_05", "positions", "cbc", 1),
             Run("golomb/marks_05", "grid", "highs", 1)]
    records = [jobs.run_one(cell, results, {"time_limit": 60}).to_dict() for cell in cells]
    records[1] = {**records[1], "status": "time_limit"}  # the same ruler, unproven
    assert records[0]["checked"] and ruler_length(records[0]["solution"]) > SHORTEST[5]
    chosen = picture_run(records)
    assert (chosen["solver"], chosen["formulation"], chosen["status"]) == ("highs", "grid", "optimal")

    manifest = tmp_path / "batch0.json"
    paths = []
    for cell, record in zip(cells, records):
        write_json_atomic(cell.record_path(results), record)
        paths.append(cell.record_path(results))
    write_json_atomic(manifest, {"records": paths})
    picture = tmp_path / "results" / "pictures" / "golomb" / "marks_05.png"
    picture.parent.mkdir(parents=True)
    smk = SimpleNamespace(input=SimpleNamespace(manifests=[str(manifest)]), output=[str(picture)],
                          params=SimpleNamespace(instances=["golomb/marks_05"]), log=[str(tmp_path / "pictures.log")],
                          rule="pictures")
    jobs.draw_instances(smk)
    assert picture.read_bytes().startswith(b"\x89PNG")
    assert "from the best checked run: highs / grid, optimal, objective 11" in (tmp_path / "pictures.log").read_text()
    runs = folder_runs(tmp_path / "results")
    page = html.pictures_html([picture], tmp_path / "results", runs)
    assert "golomb/marks_05<br>from highs / grid, optimal, objective 11" in page


# --- 12. what a configuration cannot count is said; errors are listed with their reasons ---------

def test_a_counts_formulation_that_cannot_enumerate_is_named_by_the_configuration_check(golomb) -> None:
    """On 3f1b691 `positions` (no solution_vars) was dropped from the counts without a word."""
    from pyomo_puzzles import experiment

    said: list[str] = []
    config = {"counts": {"instances": ["golomb/marks_05"], "formulations": ["grid", "positions"], "solvers": ["highs"],
                         "up_to_symmetry": True}}
    jobs_planned = experiment.count_jobs(config, report=said.append)
    assert [(j.formulation, j.solver) for j in jobs_planned] == [("grid", "highs")]
    assert said == ["counts: formulation 'positions' of family 'golomb' cannot enumerate solutions (it has no "
                    "'solution_vars' hook): it counts nothing; use grid"]
    config["counts"]["formulations"] = ["positions"]
    with pytest.raises(experiment.ConfigError) as refused:
        experiment.count_jobs(config, report=said.append)
    assert refused.value.key == "counts.formulations" and "nothing to count" in str(refused.value)


# --- 9. the formulation comparison per solver, with the gap left at the root ----------------------

def test_the_formulation_comparison_gives_each_solver_its_own_root_gap_and_nodes(golomb, tmp_path) -> None:
    """On 3f1b691 one row per formulation pooled the medians of every solver's nodes and root
    bounds; and only the share of the LP gap closed was shown, not the gap left."""
    from pyomo_puzzles.core.statistics import COLUMNS
    from pyomo_puzzles.report import formulations

    results = str(tmp_path / "results")
    cells = [Run("golomb/marks_06", f, s, 1) for f in ("positions", "grid") for s in ("highs", "scip")]
    for cell in cells:
        write_json_atomic(cell.record_path(results), jobs.run_one(cell, results, {"time_limit": 60}).to_dict())
    runs = folder_runs(tmp_path / "results")
    rows = [{**entry.row(), "instance": "golomb/marks_06", "message": None}
            for f in ("positions", "grid") for entry in api.model_statistics("golomb/marks_06", f)]
    models = pd.DataFrame(rows, columns=[*COLUMNS, "message"])
    runs["root_gap_closed"] = formulations.root_gap_closed(runs, models)
    by_solver = formulations.solver_comparison(models, runs).set_index(["formulation", "solver"])
    assert sorted(by_solver.index) == [("grid", "highs"), ("grid", "scip"), ("positions", "highs"),
                                       ("positions", "scip")]
    for row in runs.itertuples():
        expected = abs(SHORTEST[6] - row.root_bound) / SHORTEST[6]  # the gap left at the root, by hand
        assert by_solver.loc[(row.formulation, row.solver), "root_gap"] == pytest.approx(expected)
        assert by_solver.loc[(row.formulation, row.solver), "nodes"] == row.nodes
    pooled = formulations.comparison(models, runs)
    assert "nodes" not in pooled and "gap_closed" not in pooled and len(pooled) == 2


# --- 8. an SGM over fewer instances is marked, not bolded, and the runs left out are named ---------

@pytest.mark.parametrize("solver", solver_params(("cplex",)))
def test_a_licence_refused_run_leaves_its_solver_out_of_the_bold_and_is_named(golomb, tmp_path, solver) -> None:
    """CPLEX's Community Edition refuses a model over 1,000 variables: eight marks on a grid of
    49 points has 1,226. On 3f1b691 CPLEX's SGM over the two small rulers alone was bolded as
    the row's best."""
    from pyomo_puzzles.report import family_tables

    big = _write(tmp_path, "eight.yaml", "puzzle: golomb\nmarks: 8\nmax_length: 48\n")
    results = tmp_path / "results"
    cells = [Run(name, "grid", s, 1, source=src) for name, src in (("golomb/marks_04", None), ("golomb/marks_05", None),
                                                                   ("golomb/eight", str(big)))
             for s in ("highs", solver)]
    for cell in cells:  # three seconds: HiGHS need not prove eight marks optimal here, a time-out is a time too
        write_json_atomic(cell.record_path(str(results)), jobs.run_one(cell, str(results), {"time_limit": 3}).to_dict())
    write_json_atomic(results / "batches" / "batch0.json", {"records": [], "sources": {"golomb/eight": str(big)}})
    runs = folder_runs(results)
    assert dict(zip(runs["solver"] + "/" + runs["instance"], runs["status"]))[f"{solver}/golomb/eight"] == \
        "licence_limit"
    table = family_tables.family_summary(runs)
    latex = family_tables.family_latex(table, "golomb", left_out=family_tables.licence_refusals(runs, "golomb"))
    row = next(line for line in latex.splitlines() if line.strip().startswith("grid &"))
    cplex_sgm = table[(table["solver"] == solver) & (table["scope"] == "common")]["sgm_time"].iloc[0]
    assert f"{family_tables.tables.format_seconds(cplex_sgm)}{family_tables.LEFT_OUT_MARK}" in row
    assert row.count("\\textbf") == 1 and "textbf{" + family_tables.tables.format_seconds(
        table[(table["solver"] == "highs") & (table["scope"] == "common")]["sgm_time"].iloc[0]) in row
    assert f"{solver} / grid on eight" in latex
    # the performance profile says why CPLEX's curve is over two of the three instances
    from matplotlib.figure import Figure

    from pyomo_puzzles.report import figures

    shown = runs[runs["status"] != "licence_limit"]
    profile = figures.performance_profile_data(shown, view=figures.METHODS)
    ax = Figure().add_subplot()
    figures._note_partial_formulations(ax, figures.FigureStyle(), profile, "golomb",
                                       figures.licence_refused(runs, figures.METHODS))
    assert [text.get_text() for text in ax.texts] == [f"{solver} / grid: 2 of 3, a licence refused 1"]


# --- 13 and the counts table: what it says, and said once -----------------------------------------

def test_the_counts_table_says_what_it_counted_in_plain_numbers_and_a_wrong_known_count_once(golomb, tmp_path) -> None:
    """On 3f1b691: raw floats (4.0, nan, 0.08102470700001163), a "group order" that was the number
    of images of one solution, and one data-problem line per count of the instance."""
    from types import SimpleNamespace

    from pyomo_puzzles.core.results import counts_table
    from pyomo_puzzles.report import counts as count_report

    data = _write(tmp_path, "five.yaml", "puzzle: golomb\nmarks: 5\nmax_length: 16\nknown: {solutions: 3}\n")
    instance = api.load(str(data))
    paths = []
    for solver in ("highs", "glpk"):
        result = api.count(instance, "grid", solver, up_to_symmetry=True).to_dict()
        path = tmp_path / f"{solver}.json"
        jobs._finish_count(SimpleNamespace(output=SimpleNamespace(record=str(path))), instance, result, True)
        paths.append(str(path))
    counts = counts_table(paths)
    cells = count_report.shown(counts)
    assert cells[["counted", "optimum", "solutions", "classes", "largest_orbit"]].values.tolist() == [
        ["optimal", "11", "4", "2", "2"]] * 2
    assert all(len(text) <= 5 for text in cells["elapsed"]) and "nan" not in cells.to_string()
    problems = count_report.data_problems(counts)
    assert len(problems) == 1
    assert problems["problem"][0].endswith("so did glpk / grid / nogood (4)") and "states 3 solutions" in \
        problems["problem"][0]


def test_a_catalogue_not_written_yet_is_said_not_a_failure(tmp_path) -> None:
    """The Golomb plugin names its catalogue before any calibration wrote it: on 3f1b691
    `library` and `statistics` failed reading it."""
    assert not (GOLOMB_PLUGIN / "pyomo_puzzles_golomb" / "library.yaml").exists()
    listed = run_cli("library", "--family", "golomb", env=golomb_env())
    assert listed.returncode == 0, listed.stderr
    assert "golomb: its catalogue" in listed.stdout and "is not written yet" in listed.stdout
    measured = run_cli("statistics", "golomb/marks_05", "-f", "all", env=golomb_env())
    assert measured.returncode == 0, measured.stderr
    assert [line.split()[0] for line in measured.stdout.splitlines()[2:4]] == ["positions", "grid"]


def test_statistics_of_all_formulations_says_which_it_left_out_and_why() -> None:
    """The published Rubik model has quarter turns only: on 3f1b691 `-f all` on a half-turn
    scramble left it out without a word."""
    done = run_cli("statistics", "rubik/htm_depth_01", "-f", "all")
    assert done.returncode == 0, done.stderr
    assert ("left out: seed: it cannot model rubik/htm_depth_01: the published model has quarter turns only"
            in done.stdout)


# --- from the n-queens trial: calibrate with a reference method among the solvers ------------------

def _calibration_folder(tmp_path: Path, cells: list, sources: dict) -> Path:
    """A results folder as a finished pipeline leaves it for `calibrate`: the records, the runs
    table (parquet) and the environment record, and the configuration naming the folder."""
    from pyomo_puzzles import experiment

    results = tmp_path / "results"
    for cell in cells:
        write_json_atomic(cell.record_path(str(results)), jobs.run_one(cell, str(results), {"time_limit": 60}).to_dict())
    write_json_atomic(results / "batches" / "batch0.json", {"records": [], "sources": sources})
    (results / "tables").mkdir()
    folder_runs(results).to_parquet(results / "tables" / "runs.parquet")
    config = {"results": str(results), "solvers": sorted({c.solver for c in cells}), "threads": 1, "time_limit": 60,
              "instances": sorted({c.instance for c in cells}), "formulations": ["rows"]}
    write_json_atomic(results / "environment.json", experiment.environment(config, tmp_path))
    path = tmp_path / "calibration.yaml"
    path.write_text(f"results: {results}\n")
    return path


def test_calibrate_takes_dancing_links_as_a_witness_not_a_method_and_says_what_it_does_not_write(
        queens, tmp_path, capsys) -> None:
    """On 3f1b691 dlx was timed like a MIP method, set the bands as the 'best', and then left the
    instances uncalibrated ("run every method"); a data-file instance shown with a band was
    dropped from --write without a word; --skip took a misspelt name."""
    import yaml

    five = _write(tmp_path, "five.yaml", "puzzle: queens\nn: 5\nknown: {solutions: 10}\n")
    cells = [Run(name, formulation, solver, 1, source=source)
             for name, source in (("queens/six", None), ("queens/eight", None), ("queens/five", str(five)))
             for solver, formulation in (("highs", "rows"), ("glpk", "rows"), ("dlx", "exact_cover"))]
    config = _calibration_folder(tmp_path, cells, {"queens/five": str(five)})
    catalogue = tmp_path / "library.yaml"
    assert cli.main(["calibrate", str(config), "--solvers", "highs,glpk", "--write-to", str(catalogue)]) == 0
    out = capsys.readouterr().out
    assert "not calibrated" not in out
    assert ("not written: queens/five: a data file outside its family's instance folder" in out)
    entries = yaml.safe_load(catalogue.read_text())["instances"]
    assert sorted(e["name"] for e in entries) == ["queens/eight", "queens/six"]
    for entry in entries:
        assert set(entry["times"]) == {"highs/rows", "glpk/rows"}  # the calibration's methods only
        assert any(source.startswith("dlx/exact_cover") for source in entry["sources"])  # a witness
    assert cli.main(["calibrate", str(config), "--solvers", "highs,glpk", "--skip", "queens/sixx"]) == 2
    assert "option --skip: 'queens/sixx' is no instance" in capsys.readouterr().err



def test_the_cells_of_a_named_instance_a_method_cannot_answer_are_listed_with_why(queens) -> None:
    """Dancing links refuse the weighted board: on 3f1b691 the report's Left out listed only
    generated instances' cells, never a shipped instance's left out when the matrix was planned."""
    from pyomo_puzzles import experiment

    left: list[str] = []
    config = {"instances": ["queens/five_weighted", "queens/six"], "formulations": ["rows"],
              "solvers": ["highs", "dlx"], "repeats": 1}
    runs, _ = experiment.matrix(config, report=lambda line: None, left_out=left)
    assert {(r.instance, r.solver) for r in runs} == {("queens/five_weighted", "highs"), ("queens/six", "highs"),
                                                      ("queens/six", "dlx")}
    assert left == ["dlx / exact_cover: solver 'dlx' cannot answer queens/five_weighted: weighted boards ask for a "
                    "maximum, which an exact cover cannot weigh"]


# --- found by the last round's review: CP-SAT stopped at its limit on a loaded machine ------------

@pytest.mark.parametrize("word, limit, expected", [
    ("not_solved", 6.0, "time_limit"), ("feasible", 6.0, "time_limit"), ("not_solved", None, "error"),
    ("feasible", None, "feasible"), ("optimal", 6.0, "optimal"), ("model_invalid", 6.0, "error")])
def test_cpsat_stopped_short_with_a_time_limit_is_the_limit_whatever_its_own_seconds(word, limit, expected) -> None:
    """The worker's answer of a run CP-SAT stopped at its 6 s limit on a loaded machine, which
    its own clock measured as 5.9 s: 3f1b691 recorded an error ("CP-SAT stopped with not_solved")
    because 5.9 < 0.99 x 6."""
    import numpy as np

    from pyomo_puzzles.solvers import cpsat

    found = word in ("feasible", "optimal")
    answer = {"status": word, "objective": 3.0 if found else None, "bound": 2.0 if found else None, "seconds": 5.9,
              "values": np.ones(2) if found else np.zeros(0)}
    outcome = cpsat._outcome(answer, limit)
    assert outcome.status == expected and outcome.has_solution is found
    assert ("not_solved" in outcome.message or "model_invalid" in outcome.message) is (expected == "error")


# --- the conformance kit on an optimisation plugin ------------------------------------------------

KIT = """
import json, sys
from pyomo_puzzles.testing import conformance_cases, run_case
forms = sys.argv[1:] or None
cases = conformance_cases("golomb", instances=["golomb/marks_04", "golomb/marks_05"], solvers=["highs"],
                          formulations=forms)
print(json.dumps({case.id: run_case(case) for case in cases if forms is None or case.id.startswith("solve-")}))
"""


@pytest.mark.parametrize("formulations", [[], [DETACHED]], ids=["plugin", "wrong-objective"])
def test_the_conformance_kit_passes_the_plugin_and_fails_a_wrong_objective(tmp_path, formulations) -> None:
    """Every check of the kit passes (or does not apply) on the plugin's own formulations; its
    solve check fails a formulation whose objective is not the ruler's length."""
    done = subprocess.run([sys.executable, "-c", KIT, *formulations], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path, env=golomb_env())
    assert done.returncode == 0, done.stderr
    verdicts = json.loads(done.stdout)
    failed = {case: why for case, why in verdicts.items() if why and not why.startswith("skipped")}
    if not formulations:
        assert not failed and {"solve-golomb/marks_05-positions-highs", "solve-golomb/marks_05-grid-highs"} <= set(
            verdicts), verdicts
    else:
        assert len(failed) == 2 and all("is not the objective of its solution" in why for why in failed.values())
