"""The Sudoku plugin in `examples/sudoku`, installed with pip into an environment layered on
the project's, gets every feature a shipped family gets: list, solve with the independent
check, count, its own tests with the conformance kit, and the pipeline (records, tables,
pictures and report)."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from plugin_env import PluginEnv

ROOT = Path(__file__).resolve().parents[1]
SUDOKU = ROOT / "examples" / "sudoku"
ROYLE17_1 = "693784512487512936125963874932651487568247391741398625319475268856129743274836159"  # Royle's list


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    env = PluginEnv(tmp_path_factory.mktemp("sudoku") / "env")
    env.install(SUDOKU)
    return env


def test_list_solve_and_count(env, tmp_path):
    listing = env.cli("list")
    assert listing.returncode == 0
    assert "  sudoku: fill the grid" in listing.stdout and "sudoku/royle17_1" in listing.stdout
    assert "BROKEN" not in listing.stdout
    record = tmp_path / "r.json"
    solved = env.cli("solve", "sudoku/royle17_1", "-f", "candidates", "-s", "highs", "-o", str(record))
    assert solved.returncode == 0 and "solution checked" in solved.stdout, solved.stderr
    assert "".join(json.loads(record.read_text())["solution"]["grid"]) == ROYLE17_1
    counted = env.cli("count", "sudoku/royle17_1", "-q")
    assert counted.returncode == 0 and "sudoku/royle17_1: 1 solution; complete" in counted.stdout
    infeasible = env.cli("solve", "sudoku/wikipedia_no_solution")
    assert infeasible.returncode == 0 and ": infeasible" in infeasible.stdout


def test_dancing_links_from_the_contract_solves_and_counts_it(env):
    """The plugin states Sudoku as an exact cover (`contract.exact_cover`) and gets `dlx`: the
    empty 4x4 grid has 288 completions (OEIS A107739), the same set as no-good cuts on HiGHS."""
    by_dlx = env.cli("count", "sudoku/shidoku_empty", "-s", "dlx", "-q")
    by_highs = env.cli("count", "sudoku/shidoku_empty", "-f", "three_index", "-s", "highs", "-q")
    assert by_dlx.returncode == 0 and "sudoku/shidoku_empty: 288 solutions; complete" in by_dlx.stdout, by_dlx.stderr
    assert by_highs.returncode == 0 and "288 solutions; complete" in by_highs.stdout
    digest = by_dlx.stdout.split("set digest ")[1].split()[0]
    assert f"set digest {digest}" in by_highs.stdout
    solved = env.cli("solve", "sudoku/royle17_1", "-s", "dlx")
    assert solved.returncode == 0 and "solution checked" in solved.stdout, solved.stderr
    none = env.cli("solve", "sudoku/wikipedia_no_solution", "-s", "dlx")
    assert none.returncode == 0 and ": infeasible" in none.stdout


def test_its_own_tests_and_the_conformance_kit_pass(env):
    result = env.run("-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=SUDOKU, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_the_pipeline_runs_it_beside_a_shipped_family(env, tmp_path):
    config = tmp_path / "sudoku.yaml"
    config.write_text(textwrap.dedent(f"""\
        results: {tmp_path / 'results'}
        instances: [sudoku/royle17_1, sudoku/inkala_2012, sudoku/wikipedia_no_solution, packing/l_tromino_cube]
        formulations: [three_index, candidates, placement]
        solvers: [highs]
        repeats: 1
        time_limit: 30
        batch: 4
        counts:
          instances: [sudoku/royle17_1]
          formulations: [candidates]
          solvers: [highs, dlx]
          time_limit: 60
        """))
    path = f"{env.python.parent}{os.pathsep}{os.environ['PATH']}"
    done = env.run("-m", "snakemake", "--cores", "2", "--configfile", str(config), cwd=ROOT, timeout=900,
                   extra_env={"PATH": path})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "family 'sudoku' states no symmetries" in done.stderr  # counted plainly, and said so
    results = tmp_path / "results"
    runs = pd.read_csv(results / "tables" / "runs.csv")
    sudoku = runs[runs["puzzle"] == "sudoku"]
    assert sorted(set(zip(sudoku["instance"], sudoku["formulation"]))) == [
        ("sudoku/inkala_2012", "candidates"), ("sudoku/inkala_2012", "three_index"),
        ("sudoku/royle17_1", "candidates"), ("sudoku/royle17_1", "three_index"),
        ("sudoku/wikipedia_no_solution", "candidates"), ("sudoku/wikipedia_no_solution", "three_index")]
    solvable = sudoku[sudoku["instance"] != "sudoku/wikipedia_no_solution"]
    assert (solvable["status"] == "optimal").all() and solvable["checked"].all()
    assert (sudoku[sudoku["instance"] == "sudoku/wikipedia_no_solution"]["status"] == "infeasible").all()
    assert (runs["puzzle"] == "packing").sum() == 1
    count = json.loads((results / "counts" / "sudoku" / "royle17_1" / "candidates" / "highs" / "nogood.json")
                       .read_text())
    assert count["complete"] and count["solutions"] == 1 and count["agrees_with_known"] is True
    by_dlx = json.loads((results / "counts" / "sudoku" / "royle17_1" / "exact_cover" / "dlx" / "native.json")
                        .read_text())
    assert by_dlx["complete"] and by_dlx["solutions"] == 1 and by_dlx["digest"] == count["digest"]
    assert (results / "pictures" / "sudoku" / "royle17_1.png").read_bytes()[:4] == b"\x89PNG"
    # an instance without a solution gets a picture that says so, and does not stop the pipeline
    assert (results / "pictures" / "sudoku" / "wikipedia_no_solution.png").read_bytes()[:4] == b"\x89PNG"
    assert "sudoku/royle17_1" in (results / "report.md").read_text()


def test_its_benchmark_library_is_listed_with_reference_answers_a_fresh_run_agrees_with(env, tmp_path):
    """The plugin's catalogue (`Family.library`) gets what a shipped family's gets: the listing by
    band, the reference file, and a fresh run of its quickest medium grid by its best method
    agreeing with the reference answer (a planted completion: solvable)."""
    import yaml

    items = yaml.safe_load((SUDOKU / "pyomo_puzzles_sudoku" / "library.yaml").read_text())["instances"]
    questions = {q: [i for i in items if i.get("question", "solve") == q] for q in ("solve", "count")}
    medium = [item for item in questions["solve"] if item["band"] == "medium" and item["answer"]["status"] == "optimal"]
    assert len(medium) >= 1 and questions["count"]
    listing = env.cli("library", "--family", "sudoku")
    assert listing.returncode == 0, listing.stderr
    for question, catalogue in questions.items():
        bands = next(line.split() for line in listing.stdout.splitlines() if line.split()[:2] == ["sudoku", question])
        assert [int(n) for n in bands[2:]] == [sum(i["band"] == b for i in catalogue)
                                               for b in ("easy", "medium", "hard", "beyond")]
    solu = tmp_path / "sudoku.solu"
    assert env.cli("library", "--family", "sudoku", "--solu", str(solu)).returncode == 0
    lines = [line for line in solu.read_text().splitlines() if line and not line.startswith("#")]
    assert sorted(lines) == sorted([f"=opt= {item['name']} 0" if item["answer"]["status"] == "optimal"
                                    else f"=inf= {item['name']}" for item in questions["solve"]]
                                   + [f"=count= {item['name']} {item['answer']['solutions']}"
                                      for item in questions["count"]])
    quickest = min(medium, key=lambda i: min(t for t in i["times"].values() if t is not None))
    method = min((t, m) for m, t in quickest["times"].items() if t is not None)[1]
    solver, formulation = method.split("/")
    grid = yaml.safe_load((SUDOKU / "pyomo_puzzles_sudoku" / "instances" /
                           (quickest["name"].removeprefix("sudoku/") + ".yaml")).read_text())
    assert grid["known"]["solvable"] is True and grid["box"] == 5
    record = tmp_path / "run.json"
    solved = env.cli("solve", quickest["name"], "-f", formulation, "-s", solver, "-t", "120", "-o", str(record))
    assert solved.returncode == 0 and "solution checked" in solved.stdout, solved.stdout + solved.stderr
    assert json.loads(record.read_text())["objective"] == 0
