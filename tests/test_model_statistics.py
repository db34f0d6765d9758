"""Model statistics (issue 45): sizes and LP relaxations of every shipped formulation, checked
against what a reader gets without this package's matrix: the MPS file Pyomo's own writer
exports (`pyomo-puzzles export --format mps`), read and relaxed by highspy."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pyomo_puzzles import api
from pyomo_puzzles.core import export, registry, solvers
from pyomo_puzzles.families.packing import model_placement, reduction
from tests.conftest import run_cli

if not solvers.availability("highs")[0]:
    pytest.skip(f"HiGHS is the LP solver of these tests: {solvers.availability('highs')[1]}", allow_module_level=True)

SMALL_POCKET_CUBES = {
    "pocket cube, htm, 4 steps": {"puzzle": "rubik", "size": 2, "metric": "htm", "scramble": "R F2 R2", "steps": 4},
    "pocket cube, qtm, 3 steps": {"puzzle": "rubik", "size": 2, "metric": "qtm", "scramble": "R U", "steps": 3},
}
"""2x2x2 scrambles with small step bounds, so that the one-model Rubik formulations stay small."""

ONE_MODEL_CASES = [
    ("packing/iq_twist/challenge_25", "placement"),
    ("packing/iq_twist/challenge_25", "placement_unreduced"),
    ("packing/iq_twist/challenge_25", "coordinates"),
    ("packing/iq_twist/challenge_25", "coordinates_tight"),
    ("packing/l_tromino_cube", "cell_assignment"),
    ("instant_insanity/parker_brothers", "rotations"),
    ("instant_insanity/parker_brothers", "opposite_pairs"),
    ("instant_insanity_design/parker_brothers_repainted", "rlt"),
    ("instant_insanity_design/parker_brothers_repainted", "mccormick"),
    ("pocket cube, htm, 4 steps", "pieces"),
    ("pocket cube, qtm, 3 steps", "seed"),
]
"""One small instance for every shipped formulation solved as one model (the test below that
lists the families fails when a formulation is added without a case here)."""


def _instance(name: str):
    if name in SMALL_POCKET_CUBES:
        return api.from_data(SMALL_POCKET_CUBES[name], name.replace(", ", "_").replace(" ", "_") + ".yaml")
    return api.load(name)


def _read_mps(path) -> dict:
    """Sizes and LP relaxation of an MPS file, by highspy alone; Pyomo's writer adds a column
    ONE_VAR_CONSTANT (fixed at 1 by a row of its own) where the objective has a constant
    term or none: that placeholder is left out."""
    import highspy

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    assert highs.readModel(str(path)) != highspy.HighsStatus.kError
    lp = highs.getLp()
    names = list(lp.col_names_)
    placeholder = [j for j, name in enumerate(names) if name == "ONE_VAR_CONSTANT"]
    start, index = np.array(lp.a_matrix_.start_), np.array(lp.a_matrix_.index_)
    placeholder_rows = set()
    for j in placeholder:
        rows_of_j = index[start[j]:start[j + 1]]
        entries_per_row = np.bincount(index, minlength=lp.num_row_)
        placeholder_rows |= {int(r) for r in rows_of_j if entries_per_row[r] == 1}
    keep = np.array([j not in placeholder for j in range(lp.num_col_)], dtype=bool)
    integrality = np.array([int(v) for v in lp.integrality_]) if len(lp.integrality_) else np.zeros(lp.num_col_)
    integer = (integrality == 1) & keep
    lower, upper = np.array(lp.col_lower_), np.array(lp.col_upper_)
    binary = integer & (lower >= 0) & (upper <= 1)
    n = lp.num_col_
    highs.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.zeros(n, dtype=np.uint8))
    highs.run()
    status = highs.getModelStatus()
    return {"variables": int(keep.sum()), "binary": int(binary.sum()), "integer": int((integer & ~binary).sum()),
            "continuous": int((~integer & keep).sum()), "rows": lp.num_row_ - len(placeholder_rows),
            "nonzeros": len(index) - sum(int(start[j + 1] - start[j]) for j in placeholder),
            "lp_optimal": status == highspy.HighsModelStatus.kOptimal,
            "lp_infeasible": status == highspy.HighsModelStatus.kInfeasible,
            "lp_value": highs.getInfo().objective_function_value}


def test_every_formulation_solved_as_one_model_has_a_case():
    cased = {(_instance(name).family.name, formulation) for name, formulation in ONE_MODEL_CASES}
    shipped = {(family.name, name) for family in registry.families().values()
               for name, form in family.formulations.items()
               if form.stages is None and form.build_model.__module__.startswith("pyomo_puzzles.families.")}
    assert shipped <= cased, f"no case for {sorted(shipped - cased)}"


@pytest.mark.parametrize("name, formulation", ONE_MODEL_CASES, ids=[f"{n}:{f}" for n, f in ONE_MODEL_CASES])
def test_sizes_and_lp_value_agree_with_the_exported_mps(name, formulation, tmp_path):
    instance = _instance(name)
    [found] = api.model_statistics(instance, formulation, lp_solver="highs")
    [mps] = export.export(instance, formulation, tmp_path, ("mps",))
    reader = _read_mps(mps)
    sizes = {key: getattr(found.size, key) for key in ("variables", "binary", "integer", "continuous", "rows",
                                                        "nonzeros")}
    assert sizes == {key: reader[key] for key in sizes}
    assert found.size.variables > 0 and found.size.rows > 0
    assert found.lp_solver == "highs"
    solved = "optimal" if found.lp_value is not None else "feasible"  # a model without an objective: feasible
    assert found.lp_status == (solved if reader["lp_optimal"] else "infeasible" if reader["lp_infeasible"]
                               else found.lp_status + " (highspy's reading: neither)")
    if found.lp_value is not None:  # an optimisation model: the relaxation's value
        assert found.lp_value == pytest.approx(reader["lp_value"], abs=1e-6)


def test_rlt_is_at_least_as_strong_as_mccormick_on_the_repainted_set():
    """Repainting is minimised: the stronger relaxation has the larger value. The optimum, 3
    faces, is the census's (the instance file's `known.objective`)."""
    rlt, mccormick = (api.model_statistics("instant_insanity_design/parker_brothers_repainted", name)[0]
                      for name in ("rlt", "mccormick"))
    assert rlt.reference_objective == mccormick.reference_objective == 3
    assert rlt.lp_value is not None and mccormick.lp_value is not None
    assert rlt.lp_value >= mccormick.lp_value - 1e-9
    assert rlt.lp_value <= 3 + 1e-9 and mccormick.lp_value <= 3 + 1e-9  # a relaxation bounds a minimum from below
    for entry in (rlt, mccormick):
        assert entry.integrality_gap == pytest.approx(abs(3 - entry.lp_value) / 3)


def test_the_lookahead_removes_exactly_the_columns_and_entries_that_separate_the_two_placement_models():
    instance = api.load("packing/iq_twist/challenge_25")
    reduced, unreduced = (api.model_statistics(instance, name)[0] for name in ("placement", "placement_unreduced"))
    data = model_placement.model_data_unreduced(instance.spec)[None]
    exactly_one = [*data["PLACEMENTS_COVERING"].values(),
                   *(members for t, members in data["PLACEMENTS_OF"].items() if data["COPIES"][t] == 1),
                   *data["PLACEMENTS_MEETING"].values(), *data["PLACEMENTS_AS_GIVEN"].values()]
    alive = reduction.lookahead(exactly_one, len(instance.spec.placements))
    removed = set(np.flatnonzero(~alive).tolist())
    assert removed, "the lookahead removes placements on this challenge"
    entries_removed = sum(p in removed for group in ("PLACEMENTS_COVERING", "PLACEMENTS_OF", "PLACEMENTS_MEETING",
                                                     "PLACEMENTS_AS_GIVEN")
                          for members in data[group].values() for p in members)
    assert unreduced.size.variables - reduced.size.variables == len(removed)
    assert unreduced.size.rows == reduced.size.rows
    assert unreduced.size.nonzeros - reduced.size.nonzeros == entries_removed


def test_a_staged_formulation_is_reported_per_stage_up_to_the_optimum():
    """A 2x2x2 three half turns from solved (the instance's `known.distance`, from the
    breadth-first table of all 3,674,160 states)."""
    stages = api.model_statistics("rubik/htm_depth_03", "projections")
    assert [entry.stage for entry in stages][-1] == 3
    assert [entry.stage for entry in stages] == sorted(entry.stage for entry in stages)
    last = stages[-1]
    assert last.reference_objective == 3
    assert last.parts >= 1 and last.lp_status == "feasible"  # a solution of 3 moves is in some part: its LP too
    assert 0 <= last.lp_infeasible_parts < last.parts
    for entry in stages:
        assert entry.size.variables == entry.size.binary + entry.size.integer + entry.size.continuous
        assert (entry.parts == 0) == (entry.size.variables == 0)
        assert entry.parts + entry.settled > 0


def test_the_cli_prints_and_writes_the_statistics(tmp_path):
    out = tmp_path / "stats.json"
    done = run_cli("statistics", "instant_insanity_design/parker_brothers_repainted", "-f", "all", "-o", out)
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())
    assert [row["formulation"] for row in rows] == ["rlt", "mccormick"]
    assert all(row["lp_solver"] == "highs" and row["reference_objective"] == 3 for row in rows)
    assert "rlt" in done.stdout and "mccormick" in done.stdout and "highs" in done.stdout


@pytest.mark.parametrize("args, option", [
    (("--lp-solver", "cpsat"), "--lp-solver"),
    (("--time-limit", "-1"), "--time-limit"),
])
def test_bad_options_are_one_line_and_exit_2(args, option):
    done = run_cli("statistics", "instant_insanity/parker_brothers", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0], done.stderr


def test_the_size_figure_reads_one_size_per_instance_and_formulation():
    """A staged formulation's size is the sum over the stages whose parts were built (a stage
    only counted has no size); a one-model formulation's is its model's."""
    import pandas as pd

    from pyomo_puzzles.report.size_figure import model_nonzeros

    models = pd.DataFrame([
        {"instance": "a", "formulation": "one", "stage": None, "nonzeros": 120},
        {"instance": "a", "formulation": "staged", "stage": 3, "nonzeros": 40},
        {"instance": "a", "formulation": "staged", "stage": 4, "nonzeros": 60},
        {"instance": "a", "formulation": "staged", "stage": 5, "nonzeros": None},  # counted, not built
        {"instance": "b", "formulation": "one", "stage": None, "nonzeros": None},  # failed: no size
    ])
    sizes = model_nonzeros(models).set_index(["instance", "formulation"])["nonzeros"].to_dict()
    assert sizes == {("a", "one"): 120, ("a", "staged"): 100}
