"""The runs of a batch come in a random order drawn from a recorded seed (issue 28,
measurement hygiene), while each batch keeps the runs it is dealt."""

from __future__ import annotations

from pathlib import Path

import yaml

from pyomo_puzzles import experiment
from pyomo_puzzles.core.results import Run

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflows/schemas/config.schema.yaml"


def matrix_runs() -> list[Run]:
    return [Run(f"packing/i{i}", "placement", solver, 1) for i in range(6)
            for solver in ("highs", "cbc", "glpk", "scip")]


def test_each_batch_keeps_its_runs_in_an_order_from_the_seed() -> None:
    runs = matrix_runs()
    shuffled = experiment.batches(runs, 4, order_seed=1)
    assert experiment.batches(runs, 4, order_seed=1) == shuffled  # reproducible
    assert experiment.batches(runs, 4, order_seed=2) != shuffled
    highs = [r for r in runs if r.solver == "highs"]
    dealt = [highs[0::2], highs[1::2]]  # six runs of one solver, at most four a batch: two batches, in turn
    assert [sorted(map(str, b)) for b in shuffled if b[0].solver == "highs"] == [sorted(map(str, b)) for b in dealt]
    assert [b for b in shuffled if b[0].solver == "highs"] != dealt  # not in the matrix's order


def test_a_batch_holds_one_solver_and_every_run_once() -> None:
    """So that a solver's one-off start-up is paid once per batch of its runs: 6 runs of each
    of 4 solvers, at most 4 a batch: 2 batches a solver, the solvers alternating."""
    runs = matrix_runs()
    dealt = experiment.batches(runs, 4)
    assert sorted(map(str, (r for b in dealt for r in b))) == sorted(map(str, runs))
    assert all(len({r.solver for r in b}) == 1 and len(b) <= 4 for b in dealt)
    assert [b[0].solver for b in dealt] == ["highs", "cbc", "glpk", "scip"] * 2


def test_the_order_seed_is_a_checked_configuration_key_and_is_recorded() -> None:
    config = yaml.safe_load((ROOT / "workflows/config/smoke.yaml").read_text())
    checked = experiment.validate_config(dict(config), SCHEMA)
    assert checked["order_seed"] == 1  # the default
    assert experiment.environment(checked, ROOT)["config"]["order_seed"] == 1
    try:
        experiment.validate_config({**config, "order_seed": -1}, SCHEMA)
    except experiment.ConfigError as error:
        assert "order_seed" in str(error)
    else:
        raise AssertionError("a negative order_seed was accepted")
