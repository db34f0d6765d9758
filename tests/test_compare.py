"""Comparing two results folders, on folders made of real runs; every expected number is
worked out here from the run records, independently of the package's tables.

Folder A and folder B hold the same matrix (IQ Twist challenges 19-24, placement, HiGHS and
GLPK, two repeats), and differ where an experiment can differ:
- challenge_49 with HiGHS: solved in A; in B run with a 0.001 s limit (HiGHS needs about
  0.15 s), so B does not solve it;
- generated/instant_insanity/tower: the generator made a solvable tower in A and, asked for
  an unsolvable one, a tower without a solution in B (optimal against infeasible);
- generated/rubik/scramble: the instance file was a two-move scramble in A and a three-move
  one in B (objectives 2 and 3);
- CPLEX (where installed): three challenges, and pentominoes/6x10, which its Community
  Edition refuses (licence_limit) in both folders;
- only in B: l_tromino_cube with placement (an unpaired instance) and with cell_assignment
  (a formulation A never ran).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import yaml

from conftest import run_cli
from pyomo_puzzles import api
from pyomo_puzzles.core import instances, registry, solvers
from pyomo_puzzles.core.records import write_json_atomic
from pyomo_puzzles.errors import UserError
from pyomo_puzzles.experiment import Run
from pyomo_puzzles.report import compare
from pyomo_puzzles.report.measure import Statistics
from pyomo_puzzles.core.results import load_run_instance

CHALLENGES = [f"packing/iq_twist/challenge_{n}" for n in range(19, 25)]
HARD = "packing/iq_twist/challenge_49"
TOWER, SCRAMBLE = "generated/instant_insanity/tower", "generated/rubik/scramble"
REFUSED = "packing/pentominoes/6x10"  # past the CPLEX Community Edition's size limit
SHIFT = 1.0


def solve_into(folder: Path, instance: str, formulation: str, solver: str, repeat: int = 1,
               time_limit: float = 60.0) -> dict:
    """Solve for real and file the record where the pipeline would."""
    record = api.solve(load_run_instance(instance, str(folder)), formulation, solver, time_limit=time_limit,
                       isolate=False)
    record.instance = instance
    write_json_atomic(Run(instance, formulation, solver, repeat).record_path(str(folder)), record.to_dict())
    return record.to_dict()


def write_generated(folder: Path, name: str, data: dict) -> None:
    path = folder / "instances" / f"{name.removeprefix('generated/')}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


CPLEX = solvers.availability("cplex")[0]


def build_folder(folder: Path, side: str) -> None:
    for instance in CHALLENGES:
        for solver in ("highs", "glpk"):
            for repeat in (1, 2):
                solve_into(folder, instance, "placement", solver, repeat)
    solve_into(folder, HARD, "placement", "highs", time_limit=60.0 if side == "a" else 0.001)
    write_generated(folder, TOWER, registry.generator("instant_insanity")(
        seed=1, cubes=6, **({} if side == "a" else {"unsolvable": True})))
    (folder / "instances" / "rubik").mkdir(parents=True, exist_ok=True)
    shutil.copy(instances.load("rubik/htm_depth_02" if side == "a" else "rubik/htm_depth_03").path,
                folder / "instances" / "rubik" / "scramble.yaml")
    for solver in ("highs", "glpk"):
        solve_into(folder, TOWER, "rotations", solver)
    solve_into(folder, SCRAMBLE, "projections", "highs")
    if CPLEX:
        for instance in CHALLENGES[:3] + [REFUSED]:
            solve_into(folder, instance, "placement", "cplex")
    if side == "b":
        solve_into(folder, "packing/l_tromino_cube", "placement", "highs")
        solve_into(folder, "packing/l_tromino_cube", "cell_assignment", "highs")


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    made = {side: root / side for side in ("a", "b", "disjoint", "other_instances")}
    build_folder(made["a"], "a")
    build_folder(made["b"], "b")
    solve_into(made["disjoint"], "packing/l_tromino_cube", "cell_assignment", "glpk")
    solve_into(made["other_instances"], "packing/l_tromino_cube", "placement", "highs")
    return made


# --- ground truth from the records ---------------------------------------------------------

def records(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((folder / "runs").rglob("*.json"))]


def solver_measure(record: dict) -> float:
    """The default measure: the solver's own clock, else its call (the record's call_time, or for
    a record without one the wall time less the framework's parts)."""
    if record.get("solver_time") is not None:
        return record["solver_time"]
    if record.get("call_time") is not None:
        return record["call_time"]
    return record["wall_time"] - sum(record.get(part) or 0.0 for part in ("build_time", "decode_time", "check_time"))


def censored(record: dict) -> float:
    solved = (record["status"] == "optimal" and record["checked"] is True) or record["status"] == "infeasible"
    return solver_measure(record) if solved else record["time_limit"]


def sgm(times, shift: float = SHIFT) -> float:
    return float(np.exp(np.mean(np.log(np.asarray(times, dtype=float) + shift))) - shift)


def per_instance(folder: Path, shift: float = SHIFT) -> dict[tuple, dict[str, float]]:
    """(puzzle, formulation, solver) -> instance -> SGM of its censored times, licence runs left out."""
    times: dict[tuple, dict[str, list]] = {}
    for record in records(folder):
        if record["status"] != "licence_limit":
            group = (record["puzzle"], record["formulation"], record["solver"])
            times.setdefault(group, {}).setdefault(record["instance"], []).append(censored(record))
    return {group: {name: sgm(ts, shift) for name, ts in by_name.items()} for group, by_name in times.items()}


def row(table: pd.DataFrame, puzzle: str, formulation: str, solver: str) -> pd.Series:
    rows = table[(table["puzzle"] == puzzle) & (table["formulation"] == formulation) & (table["solver"] == solver)]
    assert len(rows) == 1, table
    return rows.iloc[0]


@pytest.fixture(scope="module")
def table(folders) -> pd.DataFrame:
    return compare.compare_folders(folders["a"], folders["b"])


# --- the comparison ------------------------------------------------------------------------

def test_the_runs_are_what_the_comparison_needs(folders):
    """The folders really differ where the test says they do (else the tests below prove nothing)."""
    by_key = {side: {(r["instance"], r["solver"]): r for r in records(folders[side])} for side in ("a", "b")}
    assert by_key["a"][(HARD, "highs")]["status"] == "optimal"
    assert by_key["b"][(HARD, "highs")]["status"] == "time_limit"
    assert (by_key["a"][(TOWER, "highs")]["status"], by_key["b"][(TOWER, "highs")]["status"]) == ("optimal",
                                                                                                  "infeasible")
    assert (by_key["a"][(SCRAMBLE, "highs")]["objective"], by_key["b"][(SCRAMBLE, "highs")]["objective"]) == \
        pytest.approx((2, 3))


def test_one_row_per_formulation_and_solver_in_both_folders(table):
    assert tuple(table.columns) == compare.COLUMNS
    expected = {("packing", "placement", "highs"), ("packing", "placement", "glpk"),
                ("instant_insanity", "rotations", "highs"), ("instant_insanity", "rotations", "glpk"),
                ("rubik", "projections", "highs")}
    if CPLEX:
        expected.add(("packing", "placement", "cplex"))
    assert set(table[["puzzle", "formulation", "solver"]].itertuples(index=False, name=None)) == expected
    assert list(table["puzzle"]) == sorted(table["puzzle"])


def test_times_ratios_and_tests_from_the_records(folders, table):
    times_a, times_b = per_instance(folders["a"]), per_instance(folders["b"])
    for _, got in table.iterrows():
        group = (got["puzzle"], got["formulation"], got["solver"])
        common = sorted(set(times_a[group]) & set(times_b[group]))
        a = [times_a[group][name] for name in common]
        b = [times_b[group][name] for name in common]
        assert got["instances"] == len(common)
        assert got["sgm_a"] == pytest.approx(sgm(a), rel=1e-9)
        assert got["sgm_b"] == pytest.approx(sgm(b), rel=1e-9)
        assert got["ratio"] == pytest.approx(sgm(b) / sgm(a), rel=1e-9)
        if len(common) >= 2:
            assert got["ratio_low"] <= got["ratio"] <= got["ratio_high"]
            assert got["wilcoxon_p"] == pytest.approx(scipy.stats.wilcoxon(a, b).pvalue, rel=1e-9)
        else:
            assert math.isnan(got["ratio_low"]) and math.isnan(got["wilcoxon_p"])


def test_paired_instances_only(table):
    """l_tromino_cube is only in B: not a pair. The challenge cut off in B is a pair."""
    assert row(table, "packing", "placement", "highs")["instances"] == len(CHALLENGES) + 1
    assert row(table, "packing", "placement", "glpk")["instances"] == len(CHALLENGES)


@pytest.mark.skipif(not CPLEX, reason="CPLEX not installed")
def test_runs_a_licence_refused_are_left_out(folders, table):
    refused = [r for r in records(folders["a"]) if r["instance"] == REFUSED]
    if refused[0]["status"] != "licence_limit":
        pytest.skip("this CPLEX has a licence that covers the model")
    cplex = row(table, "packing", "placement", "cplex")
    assert cplex["instances"] == 3
    times = per_instance(folders["a"])[("packing", "placement", "cplex")]
    assert cplex["sgm_a"] == pytest.approx(sgm([times[name] for name in CHALLENGES[:3]]), rel=1e-9)


def test_changed_answers_and_instances_solved_in_one_folder_only(table):
    counts = {tuple(r[["puzzle", "formulation", "solver"]]): tuple(r[["answer_changed", "solved_only_a",
                                                                       "solved_only_b"]])
              for _, r in table.iterrows()}
    assert counts[("packing", "placement", "highs")] == (0, 1, 0)  # challenge_49 cut off in B
    assert counts[("packing", "placement", "glpk")] == (0, 0, 0)
    assert counts[("instant_insanity", "rotations", "highs")] == (1, 0, 0)  # a tower, then none
    assert counts[("instant_insanity", "rotations", "glpk")] == (1, 0, 0)
    assert counts[("rubik", "projections", "highs")] == (1, 0, 0)  # 2 moves, then 3


def test_a_folder_against_itself(folders):
    same = compare.compare_folders(folders["a"], folders["a"])
    assert (same["ratio"] == 1).all() and (same["ratio_low"][same["instances"] >= 2] == 1).all()
    assert same["wilcoxon_p"].isna().all()
    assert (same[["answer_changed", "solved_only_a", "solved_only_b"]] == 0).all().all()


def test_the_shift_is_used(folders):
    shifted = compare.compare_folders(folders["a"], folders["b"], Statistics(shift=0.01))
    times_a = per_instance(folders["a"], shift=0.01)[("packing", "placement", "glpk")]
    got = row(shifted, "packing", "placement", "glpk")
    assert got["sgm_a"] == pytest.approx(sgm(list(times_a.values()), shift=0.01), rel=1e-9)
    assert shifted.attrs["shift"] == 0.01


def test_not_a_results_folder_and_nothing_in_common(folders, tmp_path):
    with pytest.raises(UserError, match="not a results folder"):
        compare.compare_folders(tmp_path, folders["a"])
    (tmp_path / "runs").mkdir()
    with pytest.raises(UserError, match="no run records"):
        compare.compare_folders(folders["a"], tmp_path)
    with pytest.raises(UserError, match="no puzzle, formulation and solver in common"):
        compare.compare_folders(folders["a"], folders["disjoint"])
    with pytest.raises(UserError, match="no instance run with the same formulation and solver"):
        compare.compare_folders(folders["a"], folders["other_instances"])


# --- writers -------------------------------------------------------------------------------

def test_terminal_table_is_aligned_and_says_the_direction(folders, table):
    lines = compare.comparison_text(table).splitlines()
    assert lines[0] == f"A: {folders['a']}   B: {folders['b']}"
    grid = lines[1:1 + 1 + len(table)]
    assert grid[0].split()[:3] == ["Puzzle", "Formulation", "Solver"]
    assert len({len(line) for line in grid}) == 1  # the last column right-aligned to one edge
    formulation_starts, instances_ends = grid[0].index("Formulation"), grid[0].index("Instances") + len("Instances")
    for (_, r), line in zip(table.iterrows(), grid[1:]):
        assert line.split()[:4] == [r["puzzle"], r["formulation"], r["solver"], str(r["instances"])]
        assert line[formulation_starts:].startswith(r["formulation"])  # text left-aligned
        assert line[:instances_ends].endswith(f" {r['instances']}")  # numbers right-aligned
    assert "above 1: B slower" in lines[-1] and "2000 resamples" in lines[-1]


def latex_rows(tex: str) -> list[str]:
    return tex.split("\\midrule")[1].split("\\bottomrule")[0].strip().splitlines()


def test_write_csv_and_latex_atomically(table, tmp_path):
    out = tmp_path / "out"
    written = compare.write_comparison(table, out / "comparison.csv", out / "comparison.tex")
    assert written == [out / "comparison.csv", out / "comparison.tex"]
    assert sorted(p.name for p in out.iterdir()) == ["comparison.csv", "comparison.tex"]  # no temporary left
    back = pd.read_csv(out / "comparison.csv")
    assert list(back.columns) == list(compare.COLUMNS)
    np.testing.assert_allclose(back["ratio"], table["ratio"], rtol=1e-12)
    tex = (out / "comparison.tex").read_text()
    for needed in ("\\toprule", "\\midrule", "\\bottomrule", "SGM of B over SGM of A", "above 1: B is slower",
                   "$s = 1$", "2000 resamples of the instances", "95\\,\\%", "Wilcoxon signed-rank",
                   "instant\\_insanity"):
        assert needed in tex, needed
    body = latex_rows(tex)
    assert len(body) == len(table)
    spec = tex.split("\\begin{tabular}{")[1].split("}")[0]
    assert all(line.count("&") == len(spec) - 1 for line in body)
    compare.write_comparison(table.head(1), latex_path=out / "comparison.tex")  # replaces the old file
    assert len(latex_rows((out / "comparison.tex").read_text())) == 1


# --- command line --------------------------------------------------------------------------

def test_cli_prints_the_table_and_writes_files(folders, tmp_path):
    csv_path, tex_path = tmp_path / "c.csv", tmp_path / "c.tex"
    result = run_cli("compare", folders["a"], folders["b"], "--csv", csv_path, "--latex", tex_path,
                     "--shift", "0.5")
    assert result.returncode == 0, result.stderr
    assert "Puzzle" in result.stdout and "instant_insanity" in result.stdout and "B/A" in result.stdout
    got = pd.read_csv(csv_path)
    times_a = per_instance(folders["a"], shift=0.5)[("rubik", "projections", "highs")]
    assert got.loc[got["puzzle"] == "rubik", "sgm_a"].item() == pytest.approx(sgm(list(times_a.values()), 0.5))
    assert "$s = 0.5$" in tex_path.read_text()


@pytest.mark.parametrize("case", ["not_results", "nothing_in_common"])
def test_cli_errors_are_one_line_and_exit_2(folders, tmp_path, case):
    other = tmp_path if case == "not_results" else folders["disjoint"]
    result = run_cli("compare", folders["a"], other)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pyomo-puzzles: error: ")
    assert ("not a results folder" if case == "not_results" else "in common") in lines[0]
