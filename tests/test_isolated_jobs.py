"""Counts and LP relaxations (the statistics job) run in a forked child, as runs do: a solver
library that takes its process down with a signal (CBC 2.935 aborts now and then) leaves a
record saying so, and the job, and the pipeline, go on (issue 57)."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT, plugin_env
from pyomo_puzzles import jobs
from pyomo_puzzles.core.isolation import call_isolated
from pyomo_puzzles.solvers import highs


def _abort(*args, **kwargs):
    faulthandler.disable()  # the child dies quietly, as a C library's abort leaves it
    os.kill(os.getpid(), signal.SIGABRT)  # a real signal, raised inside the adapter's call


def test_an_isolated_call_gives_its_result_its_exception_or_how_it_died() -> None:
    assert call_isolated(lambda: {"solutions": 4}) == ({"solutions": 4}, None)
    assert call_isolated(lambda: 1 / 0) == (None, "ZeroDivisionError: division by zero")
    assert call_isolated(lambda: (faulthandler.disable(), os.kill(os.getpid(), signal.SIGSEGV))) == (
        None, "crashed (killed by signal SIGSEGV)")
    result, failure = call_isolated(lambda: signal.pause(), deadline=0.5)
    assert result is None and failure == "killed after 0.5 s"


def _count_job(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(rule="count", wildcards=SimpleNamespace(instance="instant_insanity/parker_brothers",
                                                                   formulation="rotations", solver="highs",
                                                                   method="nogood"),
                           params=SimpleNamespace(up_to_symmetry=True, time_limit=60, every_feasible=False),
                           output=SimpleNamespace(record=str(tmp_path / "count.json")),
                           log=[str(tmp_path / "count.log")])


def test_a_count_whose_solver_aborts_leaves_a_record_saying_so(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(highs.MatrixSession, "solve", _abort)
    jobs.count_to_record(_count_job(tmp_path))  # this process goes on
    record = json.loads((tmp_path / "count.json").read_text())
    assert record["complete"] is False and record["message"] == "count crashed (killed by signal SIGABRT)"
    assert "killed by signal SIGABRT" in (tmp_path / "count.log").read_text()


def test_the_same_count_without_the_crash_is_complete(tmp_path) -> None:
    """The Parker Brothers cubes: 8 stacks, 2 up to turning the tower (ground truth)."""
    jobs.count_to_record(_count_job(tmp_path))
    record = json.loads((tmp_path / "count.json").read_text())
    assert (record["complete"], record["solutions"], record["classes"]) == (True, 8, 2)


def test_statistics_whose_lp_solver_aborts_leave_a_record_saying_so(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(highs.MatrixSession, "solve", _abort)
    job = SimpleNamespace(rule="model_statistics",
                          params=SimpleNamespace(job={"instance": "packing/l_tromino_cube", "formulation": "placement",
                                                      "source": None},
                                                 settings={"lp_solver": "highs", "time_limit": 60,
                                                           "optimum_stage": True},
                                                 results=str(tmp_path), fingerprint=None),
                          output=SimpleNamespace(record=str(tmp_path / "statistics.json")),
                          log=[str(tmp_path / "statistics.log")])
    jobs.model_statistics_to_record(job)
    record = json.loads((tmp_path / "statistics.json").read_text())
    assert record["rows"] == [] and record["message"] == "statistics crashed (killed by signal SIGABRT)"


@pytest.fixture(autouse=True)
def _no_core_files():
    """The aborting children leave no core dump behind."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    yield
    resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


ABORTING = ROOT / "tests" / "plugins" / "aborting_solver"
"""A solver plugin whose every solve raises SIGABRT."""


def test_a_pipeline_whose_count_and_lp_solver_abort_finishes_and_says_so(tmp_path) -> None:
    """The aborting solver counts beside HiGHS and solves the LP relaxations: Snakemake finishes
    every job, the report included; the two crashed jobs leave records saying how they died;
    HiGHS's count is the known one (8 stacks, 2 up to turning the tower)."""
    config = tmp_path / "config.yaml"
    config.write_text(textwrap.dedent(f"""\
        results: {tmp_path / "results"}
        instances: [instant_insanity/parker_brothers]
        formulations: [rotations]
        solvers: [highs]
        repeats: 1
        time_limit: 20
        models: {{lp_solver: aborting}}
        counts: {{instances: [instant_insanity/parker_brothers], formulations: [rotations], solvers: [aborting, highs],
                  up_to_symmetry: true, time_limit: 60}}
        """))
    done = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, env=plugin_env(ABORTING))
    assert done.returncode == 0, done.stderr[-3000:]
    results = tmp_path / "results"
    counts = {json.loads(p.read_text())["solver"]: json.loads(p.read_text()) for p in (results / "counts").rglob("*.json")}
    assert counts["aborting"]["complete"] is False
    assert counts["aborting"]["message"] == "count crashed (killed by signal SIGABRT)"
    assert (counts["highs"]["complete"], counts["highs"]["solutions"], counts["highs"]["classes"]) == (True, 8, 2)
    statistics = json.loads(next((results / "models").rglob("*.json")).read_text())
    assert statistics["message"] == "statistics crashed (killed by signal SIGABRT)"
    assert (results / "report.html").is_file() and "count crashed (killed by signal SIGABRT)" in (
        results / "tables" / "counts.csv").read_text()
