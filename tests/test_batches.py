"""Batches: how many runs a job takes (``batch: auto``), and the instances a batch loads once."""

from __future__ import annotations

import pytest

from pyomo_puzzles import experiment, jobs
from pyomo_puzzles.core.instances import Instance


@pytest.mark.parametrize(("runs", "size"), [(3, 8), (128, 8), (129, 9), (342, 22), (1500, 94), (15000, 250)])
def test_auto_batches_split_an_experiment_into_about_sixteen_jobs(runs, size):
    assert experiment.batch_size("auto", runs) == size


def test_a_configured_batch_size_is_kept():
    assert experiment.batch_size(16, 1500) == 16


def test_the_1500_run_experiment_makes_eighteen_jobs_of_one_solver_each():
    runs = [experiment.Run(instance=f"packing/iq_twist/challenge_{i}", formulation="placement", solver=solver, repeat=1,
                           seed=seed)
            for i in range(19, 69) for solver in ("highs", "scip", "cbc") for seed in range(1, 11)]
    made = experiment.batches(runs, experiment.batch_size("auto", len(runs)))
    assert len(made) == 18 and all(len({run.solver for run in batch}) == 1 for batch in made)
    assert sorted(len(batch) for batch in made) == [83] * 12 + [84] * 6
    assert sum(map(len, made)) == 1500


def test_a_batch_loads_each_instance_once_and_leaves_a_broken_one_to_its_run(tmp_path):
    loaded = jobs.BatchInstances()
    first = loaded.get("packing/l_tromino_cube")
    assert isinstance(first, Instance) and loaded.get("packing/l_tromino_cube") is first
    broken = tmp_path / "broken.yaml"
    broken.write_text("puzzle: packing\nboard: [\n")
    assert loaded.get(str(broken)) == str(broken)  # the run reads it again and records why it fails
