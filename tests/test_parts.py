"""A staged formulation's parts solved in parallel processes (a run's threads > 1)."""

from __future__ import annotations

import os

import pytest

from pyomo_puzzles.core import instances, parts, processes, run
from pyomo_puzzles.families.rubik import checker, model_projections


@pytest.fixture
def new_descendants():
    """The processes below this one that the test started and left behind (a process an
    earlier test of this worker started, e.g. a solver's worker, is not the test's)."""
    before = set(processes.descendants(os.getpid()))
    return lambda: sorted(set(processes.descendants(os.getpid())) - before)


@pytest.mark.parametrize("name, distance", [("rubik/htm_depth_08", 8), ("rubik/cube3_qtm_depth_08", 8)])
def test_parallel_parts_prove_the_known_distance(name, distance, new_descendants):
    instance = instances.load(name)
    record = run.run(instance, "projections", "highs", time_limit=120, threads=2, isolate=False)
    assert record.status == "optimal" and record.checked, record.message
    assert record.objective == distance == checker.length(record.solution["moves"], instance.spec.metric)
    assert record.bound == distance
    assert new_descendants() == []  # the workers still solving when the answer came were killed


def test_parallel_and_serial_runs_settle_the_same_parts():
    instance = instances.load("rubik/htm_depth_07")
    serial = run.run(instance, "projections", "highs", time_limit=120, threads=1, isolate=False)
    parallel = run.run(instance, "projections", "highs", time_limit=120, threads=2, isolate=False)
    assert serial.objective == parallel.objective == 7
    settled = [record.message.split(", ")[1] for record in (serial, parallel)]
    assert settled[0] == settled[1]  # "N parts settled without a solver": the same stages were reached
    assert [(s["objective"], s["parts"], s["settled"]) for s in serial.stages] == \
        [(s["objective"], s["parts"], s["settled"]) for s in parallel.stages]


def test_a_staged_record_accounts_for_each_stage():
    """The 3x3x3 scramble at half-turn distance 10 (the data file's known distance, by meeting in
    the middle): one entry per stage, depths rising to 10; the stages' models, settled parts and
    building times add up to the run's."""
    record = run.run(instances.load("rubik/cube3_htm_depth_10_1"), "projections", "highs", time_limit=120,
                     threads=1, isolate=False)
    assert record.status == "optimal" and record.objective == 10
    depths = [stage["objective"] for stage in record.stages]
    assert depths == sorted(set(depths)) and depths[-1] == 10
    assert sum(stage["solved"] for stage in record.stages) == record.models
    settled = int(record.message.split(", ")[1].split()[0])  # "... N parts settled without a solver"
    assert sum(stage["settled"] for stage in record.stages) == settled
    assert sum(stage["build_time"] for stage in record.stages) == pytest.approx(record.build_time)
    assert sum(stage["compile_time"] for stage in record.stages) == pytest.approx(record.compile_time)
    assert sum(stage["solver_time"] for stage in record.stages) == pytest.approx(record.solver_time)
    assert all(stage["solved"] <= stage["parts"] and stage["generate_time"] >= 0 for stage in record.stages)


def test_parallel_parts_stop_at_the_time_limit():
    instance = instances.load("rubik/qtm_depth_14")  # 38 models, about 2 s on two cores
    model_projections.patterns(instance.spec)  # the pattern tables, into the disk cache before the clock starts
    record = run.run(instance, "projections", "highs", time_limit=1, threads=2)
    assert record.status == "time_limit", record.message
    assert record.wall_time < 1 + run.GRACE_SECONDS


@pytest.mark.timeout(120)
def test_a_stage_of_many_parts_is_solved_in_parallel():
    """Thousands of parts (a 3x3x3 horizon of 12 half turns has up to about 4,000): every
    one is solved once, whatever the size of the stage."""
    answers = list(parts.results(list(range(20_000)), lambda part: parts.PartResult("infeasible", nodes=part), workers=2))
    assert sorted(answer.nodes for answer in answers) == list(range(20_000))


def test_a_part_that_raises_is_reported_not_hung(new_descendants):
    def one(part):
        if part == 2:
            raise ValueError("broken part")
        return parts.PartResult("infeasible")

    answers = list(parts.results([1, 2, 3], one, workers=2))
    assert sorted(a.status for a in answers) == ["error", "infeasible", "infeasible"]
    assert any("ValueError: broken part" in (a.message or "") for a in answers)
    assert new_descendants() == []
