"""Time limits, the hard kill, missing solvers and the run record on real solvers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import INSTALLED, run_cli
from pyomo_puzzles.core import instances, records, run, solvers
from pyomo_puzzles.solvers.cpsat import WORKER

# The 12 pentominoes on 6x10 take HiGHS several seconds: hard enough to hit a 1 s limit.
PENTOMINOES_6X10 = """\
puzzle: packing
title: pentominoes 6x10
board: {size: [6, 10]}
pieces:
  - {name: F, cells: [[0, 1], [0, 2], [1, 0], [1, 1], [2, 1]]}
  - {name: I, cells: [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]}
  - {name: L, cells: [[0, 0], [1, 0], [2, 0], [3, 0], [3, 1]]}
  - {name: N, cells: [[0, 1], [1, 1], [2, 0], [2, 1], [3, 0]]}
  - {name: P, cells: [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0]]}
  - {name: T, cells: [[0, 0], [0, 1], [0, 2], [1, 1], [2, 1]]}
  - {name: U, cells: [[0, 0], [0, 2], [1, 0], [1, 1], [1, 2]]}
  - {name: V, cells: [[0, 0], [1, 0], [2, 0], [2, 1], [2, 2]]}
  - {name: W, cells: [[0, 0], [1, 0], [1, 1], [2, 1], [2, 2]]}
  - {name: X, cells: [[0, 1], [1, 0], [1, 1], [1, 2], [2, 1]]}
  - {name: Y, cells: [[0, 1], [1, 0], [1, 1], [2, 1], [3, 1]]}
  - {name: Z, cells: [[0, 0], [0, 1], [1, 1], [2, 1], [2, 2]]}
"""


@pytest.fixture
def pentominoes(write_instance):
    return instances.load(write_instance(PENTOMINOES_6X10, "pentominoes.yaml"))


def test_pentomino_data_loads(pentominoes):
    assert len(pentominoes.spec.symmetries) == 4 and len(pentominoes.spec.pieces) == 12


@pytest.mark.parametrize("solver", INSTALLED)
def test_time_limit_is_honoured(pentominoes, solver):
    record = run.run(pentominoes, "placement", solver, time_limit=1.0, isolate=True)
    if record.status == "optimal":  # a lucky solver may finish: then it must be a checked tiling
        assert record.checked
    else:
        assert record.status == "time_limit", record.message
    assert record.wall_time < 1.0 + run.GRACE_SECONDS


def test_overrunning_run_is_killed_and_recorded(pentominoes, monkeypatch):
    # GLPK's own limit has whole seconds only (--tmlim 1); a 0.3 s deadline without grace
    # must kill it. HiGHS and CBC would stop themselves.
    if "glpk" not in [p.values[0] for p in INSTALLED if not p.marks]:
        pytest.skip("glpk not installed")
    monkeypatch.setattr(run, "GRACE_SECONDS", 0.0)
    record = run.run(pentominoes, "placement", "glpk", time_limit=0.3, isolate=True)
    assert record.status == "time_limit" and record.killed
    assert "killed" in record.message and record.wall_time < 2.0


def test_missing_solver_is_a_clear_message(tmp_path):
    env = dict(os.environ, PATH=str(Path(sys.executable).parent))  # no /usr/bin: no cbc or glpsol
    result = run_cli("solve", "packing/l_tromino_cube", "--solver", "cbc", env=env)
    assert result.returncode == 2
    assert "solver 'cbc' is not available" in result.stderr and "Traceback" not in result.stderr
    listing = run_cli("list", env=env)
    assert listing.returncode == 0 and "MISSING" in listing.stdout


def test_atomic_write_leaves_only_the_file(tmp_path):
    record = records.RunRecord(puzzle="packing", instance="x", formulation="placement", solver="highs")
    target = tmp_path / "runs" / "r.json"
    records.write_json_atomic(target, record.to_dict())
    records.write_json_atomic(target, record.to_dict())
    assert [p.name for p in target.parent.iterdir()] == ["r.json"]
    assert records.RunRecord.from_dict(json.loads(target.read_text())) == record


def test_crashing_run_still_leaves_a_record(write_instance, monkeypatch):
    """A run whose process dies (here: exits hard while decoding) is recorded as an error."""
    import dataclasses

    instance = instances.load("packing/l_tromino_cube")
    form = instance.family.formulations["placement"]
    dying = dataclasses.replace(form, decode=lambda spec, model: os._exit(3))
    monkeypatch.setitem(instance.family.formulations, "placement", dying)
    record = run.run(instance, "placement", "highs", time_limit=30, isolate=True)
    assert record.status == "error" and record.message == "run crashed (exit code 3)"
    assert record.solution is None and not record.killed


@pytest.mark.skipif(not solvers.availability("cpsat")[0], reason="ortools not installed")
@pytest.mark.parametrize("name, formulation, expected", [
    ("instant_insanity/parker_brothers", "rotations", "optimal"),
    ("instant_insanity/parker_brothers_all_equal", "rotations", "infeasible"),
    ("packing/l_tromino_cube", "cell_assignment", "optimal"),
])
def test_cpsat_peer_solves_the_same_model_in_its_own_process(name, formulation, expected):
    record = run.run(instances.load(name), formulation, "cpsat", time_limit=60, isolate=False)
    assert record.status == expected, record.message
    assert record.checked is (True if expected == "optimal" else None)
    assert record.solver_version.startswith("OR-Tools CP-SAT")
    assert "ortools" not in sys.modules  # never imported beside highspy


@pytest.mark.skipif(not solvers.availability("cpsat")[0], reason="ortools not installed")
def test_cpsat_worker_is_reused_replaced_when_dead_and_reports_bad_models(tmp_path):
    instance = instances.load("instant_insanity/parker_brothers")
    first = run.run(instance, "rotations", "cpsat", time_limit=60, isolate=False)
    worker = WORKER._process
    second = run.run(instance, "rotations", "cpsat", time_limit=60, isolate=False)
    assert first.checked and second.checked
    assert WORKER._process is worker  # one worker served both runs
    worker.kill()
    worker.wait()
    third = run.run(instance, "rotations", "cpsat", time_limit=60, isolate=False)
    assert third.checked and WORKER._process is not worker
    broken = tmp_path / "broken.mps"
    broken.write_text("this is not MPS\n")
    failure = WORKER.solve({"mps": str(broken), "result": str(tmp_path / "r.json")})
    assert failure and "cannot read" in failure
    assert WORKER._process.poll() is None  # a bad model does not end the worker


@pytest.mark.parametrize("solver", INSTALLED)
@pytest.mark.parametrize("right_hand_side, expected", [(1, "optimal"), (2, "infeasible")])
def test_a_model_with_every_variable_fixed(solver, right_hand_side, expected):
    """No columns left (HiGHS itself would answer "Empty" without looking at the rows)."""
    import pyomo.environ as pyo

    model = pyo.ConcreteModel()
    model.x = pyo.Var(domain=pyo.Binary)
    model.x.fix(1)
    model.row = pyo.Constraint(expr=model.x == right_hand_side)
    model.objective = pyo.Objective(expr=0)
    outcome = solvers.SolverSession(solver, model, time_limit=30).solve()
    assert outcome.status == expected
    assert outcome.has_solution == (expected == "optimal")
