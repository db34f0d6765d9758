"""The Snakemake pipeline on small configurations: records, tables, figures, report,
resumption after a hard kill, configuration errors and missing solvers."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from pyomo_puzzles.core import solvers
from pyomo_puzzles.core.records import RUN_RECORD_SCHEMA

SNAKEMAKE = Path(sys.executable).parent / "snakemake"


def snakemake(results: Path, *extra: str, configfile: str = "workflows/config/smoke.yaml",
              env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", "--configfile", configfile, "--config", f"results={results}", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)


@pytest.fixture
def smoke(smoke_results):
    return smoke_results


def test_smoke_records_one_per_run(smoke):
    installed = sorted(s for s in ("highs", "glpk") if solvers.availability(s)[0])
    expected = {("packing/l_tromino_cube", "placement"), ("instant_insanity/parker_brothers", "rotations"),
                ("generated/instant_insanity/cubes5_seed1", "rotations")}
    found = set()
    for path in smoke.glob("runs/**/repeat1.json"):
        record = json.loads(path.read_text())
        jsonschema.validate(record, RUN_RECORD_SCHEMA)
        assert record["status"] == "optimal" and record["checked"] is True, record["message"]
        found.add((record["instance"], record["formulation"], record["solver"]))
    assert found == {(i, f, s) for i, f in expected for s in installed}


def test_smoke_tables_are_tidy(smoke):
    runs = pd.read_parquet(smoke / "tables/runs.parquet")
    assert len(runs) == len(pd.read_csv(smoke / "tables/runs.csv")) == len(list(smoke.glob("runs/**/*.json")))
    assert not runs.duplicated(["instance", "formulation", "solver", "repeat"]).any()
    assert set(runs.loc[runs.puzzle == "instant_insanity", "size_label"]) == {"cubes"}
    tex = (smoke / "tables/summary.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex


def test_smoke_counts_agree_with_known_figures(smoke):
    counts = pd.read_csv(smoke / "tables/counts.csv")
    row = counts.set_index(["instance", "formulation", "solver", "method"]).loc[
        ("instant_insanity/parker_brothers", "rotations", "highs", "nogood")]
    # ground truth: 8 stacks, 2 up to turning the tower
    assert (row.complete, row.solutions, row.classes, row.agrees_with_known) == (True, 8, 2, True)
    assert "## Counts" in (smoke / "report.md").read_text()


def test_smoke_counts_by_every_method_agree_on_the_set_of_solutions(smoke):
    """3x20 pentominoes (ground truth: 2 tilings up to the board's 4 symmetries, 8 in all) by
    no-good cuts on HiGHS and SCIP, SCIP's own counter and dancing links: four counts, one set;
    HiGHS has no enumeration of its own, so no native count of it is planned."""
    counts = pd.read_csv(smoke / "tables/counts.csv")
    board = counts[counts["instance"] == "packing/pentominoes/3x20"]
    methods = set(zip(board["solver"], board["formulation"], board["method"]))
    assert methods == {("highs", "placement", "nogood"), ("scip", "placement", "nogood"),
                       ("scip", "placement", "native"), ("dlx", "exact_cover", "native")}
    assert board["complete"].all() and set(board["classes"]) == {2} and set(board["solutions"]) == {8}
    assert board["digest"].nunique() == 1 and board["agrees_with_known"].all()
    report = (smoke / "report.md").read_text()
    agreement = next(line for line in report.splitlines() if line.startswith("| packing/pentominoes/3x20 | 4 |"))
    assert "| 4 | yes |" in agreement


def test_smoke_figures_report_and_environment(smoke):
    figures = json.loads((smoke / "figures.json").read_text())["figures"]
    assert {Path(f).suffix for f in figures} == {".pdf", ".png"}
    assert all(Path(f).stat().st_size > 1000 for f in figures)
    report = (smoke / "report.md").read_text()
    assert "performance_profile.png" in report
    env = json.loads((smoke / "environment.json").read_text())
    assert env["packages"]["pyomo"] and env["cores"] >= 1 and env["config"]["time_limit"] == 20
    assert (smoke / "pictures/instant_insanity/parker_brothers.png").stat().st_size > 1000
    # drawn from a checked solution of the experiment's runs, not from a solve of its own
    log = (smoke / "logs/pictures.log").read_text()
    assert "parker_brothers.png from the best checked run: highs / rotations, optimal" in log or \
        "parker_brothers.png from the best checked run: glpk / rotations, optimal" in log, log


def test_smoke_has_the_statistics_of_each_formulation_once(smoke):
    """One row per instance and formulation the MIP solvers ran (whatever solvers ran it),
    from the matrix of a solver's run; the LP relaxation of a puzzle with solutions (the
    L-tromino cube has 5,328 tilings; the Parker Brothers set 8 stacks) is feasible."""
    runs = pd.read_csv(smoke / "tables/runs.csv")
    models = pd.read_csv(smoke / "tables/models.csv")
    mip = runs[runs["solver"].isin(["highs", "glpk"])]
    assert sorted(zip(models["instance"], models["formulation"])) == \
        sorted(set(zip(mip["instance"], mip["formulation"])))
    assert set(models["lp_solver"]) == {solvers.default_lp_solver()}
    solvable = models.set_index("instance").loc[["packing/l_tromino_cube", "instant_insanity/parker_brothers"]]
    assert set(solvable["lp_status"]) == {"feasible"}
    assert (models["variables"] == models["binary"] + models["integer"] + models["continuous"]).all()
    assert (models["nonzeros"] > 0).all() and models["message"].isna().all()
    digests = runs.dropna(subset=["matrix_digest"]).groupby(["instance", "formulation"])["matrix_digest"].nunique()
    assert (digests == 1).all()  # the statistics describe the one matrix every solver got
    report = (smoke / "report.md").read_text()
    assert "## Formulations" in report and f"solved by {solvers.default_lp_solver()}" in report
    assert "size_time.png" in report and (smoke / "figures/size_time.png").stat().st_size > 1000
    assert "\\toprule" in (smoke / "tables/models.tex").read_text()


def _solver_measure(record: dict) -> float:
    """The default measure, from a record by hand: the solver's own clock, else its call (the
    record's call_time, or for a record without one the wall time less the framework's parts)."""
    if record["solver_time"] is not None:
        return record["solver_time"]
    if record.get("call_time") is not None:
        return record["call_time"]
    return record["wall_time"] - sum(record[part] or 0.0 for part in ("build_time", "decode_time", "check_time"))


def test_smoke_ranks_by_the_solver_time_and_says_so(smoke):
    """The default experiment's tables, figures and report rank by the solver's own time
    (GLPK, without a clock of its own, by its solver call) and name it; the scores and the
    where-the-time-goes figure are there."""
    records = [json.loads(p.read_text()) for p in smoke.glob("runs/**/*.json")]
    summary = pd.read_csv(smoke / "tables/summary.csv").set_index(["solver", "formulation"])
    for (solver, formulation), row in summary.iterrows():
        times = [_solver_measure(r) for r in records if (r["solver"], r["formulation"]) == (solver, formulation)]
        assert row.sgm_time == pytest.approx(np.exp(np.mean(np.log(np.asarray(times) + 1.0))) - 1.0)
    assert "SGM) of the solver time" in (smoke / "tables/family_packing.tex").read_text()
    assert "Solver time [s]" in (smoke / "tables/summary.tex").read_text()
    report = (smoke / "report.md").read_text()
    assert "Ranked by solver time" in report and "## Scores" in report and "PAR-2" in report
    if solvers.availability("glpk")[0]:
        assert any(r["solver"] == "glpk" and r["solver_clock"] == "call" for r in records)
        assert "No clock of their own in glpk" in report
    scores = pd.read_csv(smoke / "tables/scores.csv")
    assert {"sgm_scaled", "par2", "borda", "solved_by_all_scaled"} <= set(scores.columns)
    assert (scores.loc[scores.method != "virtual best"].groupby("puzzle")["sgm_scaled"].min() == 1).all()
    figures = json.loads((smoke / "figures.json").read_text())["figures"]
    assert any(Path(f).name == "where_the_time_goes.png" for f in figures)


def test_smoke_second_run_has_nothing_to_do(smoke):
    again = snakemake(smoke)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


SLOW_CONFIG = """\
instances: [packing/iq_twist/challenge_45, packing/iq_twist/challenge_46, packing/iq_twist/challenge_47]
formulations: [coordinates]
solvers: [highs]
repeats: 1
time_limit: 3
threads: 1
batch: 10
"""


def test_killed_pipeline_resumes_without_redoing_finished_runs(tmp_path):
    # the faithful coordinate model does not solve these challenges in 3 s: 3 timeouts in one batch
    config = tmp_path / "slow.yaml"
    config.write_text(SLOW_CONFIG)
    results = tmp_path / "results"
    command = [str(SNAKEMAKE), "--cores", "1", "--configfile", str(config), "--config", f"results={results}",
               "--", str(results / "tables/runs.parquet")]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.time() + 300
    while time.time() < deadline and not list(results.glob("runs/**/repeat1.json")):
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGKILL)  # as a power cut or a cluster pre-emption would
    process.wait()
    first = list(results.glob("runs/**/repeat1.json"))
    assert len(first) >= 1
    before = {p: p.stat().st_mtime_ns for p in first}
    assert subprocess.run([*command[:-2], "--unlock"], cwd=ROOT, capture_output=True).returncode == 0
    resumed = subprocess.run([*command[:-2], "--rerun-incomplete", *command[-2:]], cwd=ROOT,
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert {p: p.stat().st_mtime_ns for p in first} == before
    log = (results / "logs/batches/batch0.log").read_text()
    assert log.count(": kept (finished earlier") == len(first)
    statuses = [json.loads(p.read_text())["status"] for p in results.glob("runs/**/repeat1.json")]
    assert statuses == ["time_limit"] * 3


CONFIGURATION_TYPOS = [
    (["time_limt=5"], "time_limt"),
    (["solvers=[higs]"], "solvers[0]"),
    (["formulations=[placment]"], "formulations[0]"),
    (["instances=[packing/no_such_board]"], "instances[0]"),
    (["counts={instances: [instant_insanity/parker_brothers], formulations: [rotatons], solvers: [highs]}"],
     "counts.formulations[0]"),
    (["seeds=[-1]"], "seeds.0"),
    (["permutations=[1, 1]"], "permutations"),
    (["memory_limit_mb=0"], "memory_limit_mb"),
    (["solvers=[pyomo:nosuch]"], "solvers[0]"),
    (["counts={instances: [instant_insanity/parker_brothers], formulations: [rotations], solvers: [pyomo:glpk]}"],
     "counts.solvers[0]"),
    (["formulations=[placement, rotations, placement]"], "formulations[2]"),
    (["models={lp_solver: cpsat}"], "models.lp_solver"),
    (["models={lp_solver: nosuch}"], "models.lp_solver"),
    (["models={lp_solvr: highs}"], "models.lp_solvr"),
    (["models={time_limit: 0}"], "models.time_limit"),
]
"""Bad `--config` entries on top of the smoke configuration, and the key each must be named by."""

THROUGH_SNAKEMAKE = [0, 1, 3, 4]
"""The typos also run through real Snakemake, one for each part of the check that can refuse a
configuration (`experiment.validate_config`: the schema, the formulation and solver names, the
instances, the counts): the Snakefile turns every refusal of the check the same way into one
line and exit 2 (workflows/rules/common.smk), so the others are asked of the check directly."""


def smoke_configuration_with(*entries: str) -> dict:
    """The configuration Snakemake hands the Snakefile for `--configfile smoke.yaml --config
    ENTRIES`: the file, with the entries parsed and merged onto it by Snakemake's own functions."""
    from snakemake.cli import parse_config
    from snakemake.common.configfile import load_configfile
    from snakemake.utils import update_config

    config: dict = {}
    update_config(config, load_configfile(str(ROOT / "workflows/config/smoke.yaml")))
    update_config(config, parse_config(list(entries)))
    return config


@pytest.mark.parametrize("extra, key", CONFIGURATION_TYPOS)
def test_configuration_typos_are_refused_in_one_line_naming_the_key(tmp_path, extra, key):
    from pyomo_puzzles import experiment
    from pyomo_puzzles.errors import UserError

    config = smoke_configuration_with(f"results={tmp_path / 'results'}", *extra)
    with pytest.raises(experiment.ConfigError) as refused:
        experiment.validate_config(config, ROOT / "workflows/schemas/config.schema.yaml")
    assert isinstance(refused.value, UserError)  # what the Snakefile turns into one line and exit 2
    assert len(str(refused.value).splitlines()) == 1 and f"configuration key '{key}'" in str(refused.value)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("extra, key", [CONFIGURATION_TYPOS[i] for i in THROUGH_SNAKEMAKE])
def test_configuration_typos_stop_before_anything_runs(tmp_path, extra, key):
    done = snakemake(tmp_path / "results", *extra)  # one --config: the results folder and the typo
    assert done.returncode == 2
    ours = [line for line in done.stderr.splitlines() if line.startswith("pyomo-puzzles")]
    assert len(ours) == 1 and f"configuration key '{key}'" in ours[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "results").exists()


def dry_run(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(SNAKEMAKE), "-n", "--cores", "1", "--configfile", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def planned_jobs(done: subprocess.CompletedProcess) -> dict[str, int]:
    """The job counts of a dry run's summary table (rule name -> jobs)."""
    table = done.stdout.split("job ")[1].split("total")[0]
    return {rule: int(count) for rule, count in re.findall(r"^(\w+)\s+(\d+)$", table, re.M)}


@pytest.mark.parametrize("counts", ["", "counts: {}\n", "counts: null\n"])
def test_a_configuration_file_is_the_whole_configuration(tmp_path, counts):
    # was: merged onto the shipped default, so a configuration without counts ran the
    # default's four count jobs, and counts: {} did not clear them
    config = tmp_path / "mine.yaml"
    config.write_text(f"results: {tmp_path / 'results'}\ninstances: [packing/l_tromino_cube]\n"
                      f"formulations: [placement]\nsolvers: [highs]\n{counts}")
    done = dry_run(config)
    assert done.returncode == 0, done.stderr[-2000:]
    jobs = planned_jobs(done)
    assert "count" not in jobs and jobs["solve_batch"] == 1, jobs


def test_without_a_configuration_file_the_shipped_default_runs(tmp_path):
    default = subprocess.run([str(SNAKEMAKE), "-n", "--cores", "1", "--config", f"results={tmp_path / 'default'}"],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert planned_jobs(default)["count"] == 4  # the shipped default's four counts


def test_a_configuration_leaving_out_settings_gets_the_documented_defaults(tmp_path):
    from pyomo_puzzles import experiment

    config = experiment.validate_config({"instances": ["packing/l_tromino_cube"], "formulations": ["placement"],
                                         "solvers": ["highs"]}, ROOT / "workflows/schemas/config.schema.yaml")
    assert (config["repeats"], config["time_limit"], config["threads"]) == (1, 60, 1)
    assert "counts" not in config


def test_two_formulations_with_one_label_are_refused_naming_both(tmp_path):
    # was: the file model's records replaced the shipped formulation's, and the report
    # showed the shipped one failing, with no warning
    variant = tmp_path / "my_placement.py"
    variant.write_text((ROOT / "pyomo_puzzles/families/packing/model_placement.py").read_text())
    done = snakemake(tmp_path / "results", "--config", f"formulations=[placement, rotations, '{variant}:placement']")
    assert done.returncode == 2, done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("pyomo-puzzles")]
    assert len(ours) == 1 and "configuration key 'formulations[2]'" in ours[0], done.stderr
    assert f"'{variant}:placement'" in ours[0] and "formulations[0] 'placement'" in ours[0], ours[0]
    assert not (tmp_path / "results").exists()


def test_missing_solver_is_reported_and_skipped(tmp_path):
    """A solver of the configuration that cannot be loaded (CBC, with cbcbox told to load a
    build it does not have) is named and skipped; the others run."""
    config = tmp_path / "smoke.yaml"
    config.write_text((ROOT / "workflows/config/smoke.yaml").read_text().replace("  - glpk\n", "  - cbc\n"))
    env = {**os.environ, "CBCBOX_BUILD": "no-such-build"}
    done = snakemake(tmp_path / "results", "-n", configfile=str(config), env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "solver cbc is not installed, skipped" in done.stderr
    # smoke: 3 runs per solver in batches of 4; without CBC the 3 HiGHS runs make one batch
    assert re.search(r"solve_batch\s+1\n", done.stdout), done.stdout[-1500:]


VARIABILITY = """\
instances: [packing/l_tromino_cube]
formulations: [placement]
solvers: [highs, glpk]
seeds: [1, 2]
permutations: [0, 3]
repeats: 1
time_limit: 20
threads: 1
batch: 8
memory_limit_mb: 4000
"""


def test_seeds_and_permutations_are_dimensions_of_the_matrix(tmp_path):
    config = tmp_path / "variability.yaml"
    config.write_text(VARIABILITY)
    results = tmp_path / "results"
    done = snakemake(results, configfile=str(config))
    assert done.returncode == 0, done.stderr[-3000:]
    installed = [s for s in ("highs", "glpk") if solvers.availability(s)[0]]
    records = [json.loads(p.read_text()) for p in results.glob("runs/**/*.json")]
    cells = {(r["solver"], r["seed"], r["permutation"]) for r in records}
    assert cells == {(s, seed, perm) for s in installed for seed in (1, 2) for perm in (0, 3)}
    for record in records:
        jsonschema.validate(record, RUN_RECORD_SCHEMA)
        assert record["status"] == "optimal" and record["checked"] is True, record["message"]
        assert record["host"] and record["memory_limit_mb"] == 4000 and record["peak_memory_mb"] > 10
    assert (results / "runs/packing/l_tromino_cube/placement/highs/seed2-perm3-repeat1.json").exists()
    hosts = [json.loads(p.read_text()) for p in results.glob("hosts/*.json")]
    assert [h["host"] for h in hosts] == [records[0]["host"]] and hosts[0]["cores"] >= 1
    runs = pd.read_parquet(results / "tables/runs.parquet")
    assert sorted(zip(runs.solver, runs.seed, runs.permutation)) == sorted(cells)
    again = snakemake(results, "--forcerun", "solve_batch", configfile=str(config))  # Snakemake's flag is obeyed
    assert again.returncode == 0, again.stderr[-3000:]
    logs = "".join(p.read_text() for p in (results / "logs/batches").glob("batch*.log"))  # a batch per solver
    assert logs.count("(rerun forced)") == len(cells) and "kept" not in logs


def test_a_formulation_file_runs_in_the_pipeline(tmp_path):
    models = tmp_path / "my_models.py"
    models.write_text('"""Placement, from a file."""\n'
                      "from pyomo_puzzles.families.packing.model_placement import build_model, decode, model_data\n"
                      'FAMILY = "packing"\n')
    config = tmp_path / "mine.yaml"
    config.write_text(f"instances: [packing/l_tromino_cube, instant_insanity/parker_brothers]\n"
                      f"formulations: [placement, rotations, '{models}:placement_copy']\n"
                      "solvers: [highs]\nrepeats: 1\ntime_limit: 20\nthreads: 1\n")
    results = tmp_path / "results"
    done = snakemake(results, configfile=str(config))
    assert done.returncode == 0, done.stderr[-3000:]
    records = {(r["instance"], r["formulation"]): r for r in
               (json.loads(p.read_text()) for p in results.glob("runs/**/repeat1.json"))}
    assert set(records) == {("packing/l_tromino_cube", "placement"), ("packing/l_tromino_cube", "placement_copy"),
                            ("instant_insanity/parker_brothers", "rotations")}
    assert all(r["checked"] is True for r in records.values())
    assert "placement_copy" in set(pd.read_parquet(results / "tables/runs.parquet").formulation)
    missing = snakemake(tmp_path / "r2", "--config", f"formulations=[{tmp_path}/nope.py:x]", configfile=str(config))
    assert missing.returncode != 0 and "configuration key 'formulations[0]'" in missing.stderr
    assert "no such file" in missing.stderr and "Traceback" not in missing.stderr


def test_data_files_named_by_path_run_in_the_pipeline_and_rerun_when_edited(tmp_path):
    """Instances given as data files (a glob of paths) run as `<family>/<stem>`, their known
    answers reach the runs table, and an edit to one file re-runs that file's runs only."""
    shipped = (ROOT / "pyomo_puzzles/families/packing/instances/l_tromino_cube.yaml").read_text()
    boxes = tmp_path / "boxes"
    boxes.mkdir()
    for stem in ("cube_a", "cube_b"):
        (boxes / f"{stem}.yaml").write_text(shipped)
    config = tmp_path / "mine.yaml"
    config.write_text(f"instances: ['{boxes}/*.yaml']\nformulations: [placement]\nsolvers: [highs]\n"
                      "repeats: 1\ntime_limit: 30\nthreads: 1\n")
    results = tmp_path / "results"

    def records() -> dict[str, int]:
        found = {}
        for path in results.glob("runs/**/repeat1.json"):
            record = json.loads(path.read_text())
            assert record["status"] == "optimal" and record["checked"] is True, record
            found[record["instance"]] = path.stat().st_mtime_ns
        return found

    done = snakemake(results, configfile=str(config))
    assert done.returncode == 0, done.stderr[-3000:]
    before = records()
    assert set(before) == {"packing/cube_a", "packing/cube_b"}
    table = pd.read_parquet(results / "tables/runs.parquet")
    assert set(table.instance) == set(before) and table.known_solvable.tolist() == [True, True]
    (boxes / "cube_b.yaml").write_text(shipped + "# an edit\n")
    again = snakemake(results, configfile=str(config))
    assert again.returncode == 0, again.stderr[-3000:]
    after = records()
    assert after["packing/cube_a"] == before["packing/cube_a"] and after["packing/cube_b"] != before["packing/cube_b"]


def test_data_files_that_would_share_a_name_are_refused_naming_both(tmp_path):
    shipped = (ROOT / "pyomo_puzzles/families/packing/instances/l_tromino_cube.yaml").read_text()
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "cube.yaml").write_text(shipped)
    config = tmp_path / "mine.yaml"
    config.write_text(f"results: {tmp_path / 'results'}\ninstances: ['{tmp_path}/a/cube.yaml', '{tmp_path}/b/cube.yaml']\n"
                      "formulations: [placement]\nsolvers: [highs]\n")
    done = dry_run(config)
    assert done.returncode == 2, done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("pyomo-puzzles")]
    assert len(ours) == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert all(part in ours[0] for part in ["instances[1]", f"{tmp_path}/a/cube.yaml", f"{tmp_path}/b/cube.yaml"])


def test_a_data_file_named_as_a_shipped_instance_or_counted_is_refused(tmp_path):
    from pyomo_puzzles import experiment

    for stem in ("l_tromino_cube", "cube"):
        (tmp_path / f"{stem}.yaml").write_text(
            (ROOT / "pyomo_puzzles/families/packing/instances/l_tromino_cube.yaml").read_text())
    with pytest.raises(experiment.ConfigError) as clash:
        experiment.expand_instances([str(tmp_path / "l_tromino_cube.yaml")], {})
    assert clash.value.key == "instances[0]" and "packing/l_tromino_cube" in clash.value.message
    counts = {"instances": [str(tmp_path / "cube.yaml")], "formulations": ["placement"],
              "solvers": ["highs"]}
    with pytest.raises(experiment.ConfigError) as counted:
        experiment.count_jobs({"counts": counts})
    assert counted.value.key == "counts.instances"


STATISTICS = """\
instances: [packing/l_tromino_cube, packing/iq_twist/challenge_19, packing/iq_twist/challenge_20]
formulations: [placement]
solvers: [highs]
seeds: [1, 2, 3]
repeats: 1
time_limit: 20
threads: 1
statistics: {time: wall, shift: 0.1, par: 10, resamples: 500}
"""


def test_seeds_give_the_variability_figure_intervals_and_a_comparison(smoke, tmp_path):
    """Three seeds on three instances: the variability figure and table (the SGM by hand from
    the records, with shift 0.1 s, inside its bootstrap interval), the family table with the
    configured shift and PAR10, and the comparison with the smoke experiment in the report."""
    config = tmp_path / "statistics.yaml"
    config.write_text(STATISTICS)
    results = tmp_path / "results"
    done = snakemake(results, f"compare_with={smoke}", configfile=str(config))
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads((results / "figures.json").read_text())["figures"]
    assert any(Path(f).name == "variability.png" for f in figures)
    records = [json.loads(p.read_text()) for p in results.glob("runs/**/*.json")]
    assert len(records) == 9 and all(r["status"] == "optimal" and r["checked"] for r in records)
    by_hand = np.exp(np.mean([np.log(r["wall_time"] + 0.1) for r in records])) - 0.1
    row = pd.read_csv(results / "tables/variability.csv").iloc[0]
    assert (row.puzzle, row.formulation, row.solver, row.instances, row.runs) == ("packing", "placement", "highs", 3, 9)
    assert row.sgm_time == pytest.approx(by_hand) and row.sgm_low <= row.sgm_time <= row.sgm_high
    family = (results / "tables/family_packing.tex").read_text()
    assert "PAR10" in family and "$s = 0.1$" in family and "\\textbf{" in family
    assert "SGM) of the wall time" in family  # the configured measure, named
    comparison = pd.read_csv(results / "tables/comparison.csv")
    paired = comparison.set_index(["puzzle", "formulation", "solver"]).loc[("packing", "placement", "highs")]
    assert paired.instances == 1  # l_tromino_cube is in both experiments
    assert "Comparison" in (results / "report.html").read_text()


def test_smoke_outputs_are_readable_by_the_group_and_whole(smoke):
    """Records, tables, figures, pictures and reports carry the umask's mode (the tests run
    under the caller's umask), and no temporary file is left behind."""
    mask = os.umask(0o022)
    os.umask(mask)
    outputs = [p for p in smoke.rglob("*") if p.is_file() and "logs" not in p.parts and ".snakemake" not in p.parts]
    assert len(outputs) > 20
    wrong = [(str(p.relative_to(smoke)), oct(p.stat().st_mode & 0o777)) for p in outputs
             if p.stat().st_mode & 0o777 != 0o666 & ~mask]
    assert wrong == []
    assert not [p for p in outputs if ".tmp" in p.name]


def test_every_job_writes_its_log(smoke):
    rules = {"solve_batch": "batches", "generate_instances": "instances", "pictures": "pictures",
             "count": "counts", "environment": "environment", "report": "report"}
    for rule, where in rules.items():
        logs = list((smoke / "logs").glob(f"{where}/**/*.log")) + list((smoke / "logs").glob(f"{where}.log"))
        assert logs, f"rule {rule} left no log"
        for log in logs:
            lines = log.read_text().splitlines()
            assert lines[0].startswith(f"{rule} job on ") and lines[-1].startswith("done in "), (log, lines)
            assert len(lines) >= 3, f"{log} says nothing about what the job did"


def test_the_default_experiment_compares_formulations_on_every_family_it_runs():
    """What the shipped default promises (workflows/config/default.yaml, issue 45): on every
    family it runs, at least two formulations solved by the MIP solvers, each on the same six
    or more instances, and every solver the configuration names on each instance it applies
    to (an uninstalled one is left out with its reason, so the configuration is read with all
    named). The design family's strong and weak linearisations are both among them."""
    import yaml

    from pyomo_puzzles import experiment

    config = yaml.safe_load((ROOT / "workflows/config/default.yaml").read_text())
    config = {**config, "results": "unused"}
    experiment.validate_config(config, ROOT / "workflows/schemas/config.schema.yaml")
    runs, _ = experiment.matrix(config, report=lambda line: None)
    table = pd.DataFrame([{"instance": r.instance, "formulation": r.formulation, "solver": r.solver} for r in runs])
    table["family"] = [name.split("/")[1] if name.startswith("generated/") else name.split("/")[0]
                       for name in table["instance"]]
    mip = table[table["solver"] != "dlx"]
    assert set(table["family"]) == {"packing", "instant_insanity", "instant_insanity_design", "rubik"}
    for family, rows in mip.groupby("family"):
        per_formulation = rows.groupby("formulation")["instance"].apply(frozenset)
        assert len(per_formulation) >= 2, family
        common = frozenset.intersection(*per_formulation)
        assert len(common) >= 6, (family, sorted(common))
        installed = set(rows["solver"])
        assert installed == set(experiment.available_solvers(config, lambda line: None)) - {"dlx"}, family
    assert {"rlt", "mccormick"} <= set(mip["formulation"])
