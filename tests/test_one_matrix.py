"""One matrix for every solver (issue 44): each model is compiled once, every solver with a
matrix session gets the identical matrix, the record says which (its digest) and how many
models a run handed over, and the report says when two solvers did not get the same."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from pyomo_puzzles import api
from pyomo_puzzles.core import results, solvers
from pyomo_puzzles.core.linear_form import form_digest, linear_form, permuted
from pyomo_puzzles.report import tables

IQ = "packing/iq_twist/challenge_19"


def matrix_solvers() -> list[str]:
    """The available solvers whose adapter takes the matrix."""
    return [name for name in solvers.names()
            if solvers.availability(name)[0]
            and solvers.takes_the_matrix(solvers.adapter(name))]


@pytest.fixture(scope="module")
def iq_runs() -> dict:
    """Isolated runs of the IQ Twist challenge by every matrix solver from a fresh process:
    as a batch makes them (``on``), and without the tiny model before each run's clock (``off``)."""
    return {prefault: _runs_in_a_fresh_process(IQ, matrix_solvers(), prefault) for prefault in ("on", "off")}


def test_every_matrix_solver_gets_the_same_matrix_and_the_right_answer(iq_runs):
    names = matrix_solvers()
    assert "highs" in names
    records = iq_runs["on"]
    assert all(r["status"] == "optimal" and r["checked"] for r in records.values()), records
    assert {r["matrix_digest"] for r in records.values()} == {form_digest(linear_form(api.build(IQ)))}
    assert all(r["models"] == 1 and r["compile_time"] > 0 for r in records.values())
    # a module imported while a run's clock runs is a one-off start-up counted as hand-over
    # or solver time (numpy.ctypeslib cost CBC's isolated runs 5-6 ms each)
    assert {name: r["imported"] for name, r in records.items()} == {name: [] for name in names}


WATCHED_RUNS = """
import json, sys
from pyomo_puzzles.core import run
timed, imported = run._run_formulation, {}

def watched(instance, form, solver, *args):
    before = set(sys.modules)
    record = timed(instance, form, solver, *args)
    record.message = json.dumps(sorted(set(sys.modules) - before))  # the forked run's own imports
    return record

run._run_formulation = watched
out = {}
for solver in sys.argv[2:]:
    record = run.run(sys.argv[1], None, solver, 60, 1, isolate=True)
    out[solver] = dict(record.to_dict(), imported=json.loads(record.message))
print(json.dumps(out))
"""


def test_the_tiny_solve_before_a_forked_runs_clock_leaves_the_run_as_it_was(iq_runs):
    """A forked run solves a tiny model with its solver before its clock starts (the
    library's first touches, off the clock): the run's own answer, search and matrix are the
    same as without it."""
    kept = ("status", "objective", "checked", "nodes", "models", "matrix_digest")
    with_it, without = iq_runs["on"], iq_runs["off"]
    assert {n: {k: r[k] for k in kept} for n, r in with_it.items()} == \
        {n: {k: r[k] for k in kept} for n, r in without.items()}
    assert all(r["status"] == "optimal" for r in with_it.values())


def _runs_in_a_fresh_process(instance: str, names: list[str], prefault: str = "on") -> dict:
    """Isolated runs of `instance` by each solver, from a process as fresh as a pipeline batch:
    their records, each with the modules imported between the start and the end of the run's
    clock (building, hand-over, solving, checking). The test process has imported too much to
    see them. `prefault` ``off``: no tiny model before the clock (`core.warmup.PREFAULT_SWITCH`)."""
    import json
    import os
    import subprocess
    import sys

    from pyomo_puzzles.core.warmup import PREFAULT_SWITCH
    done = subprocess.run([sys.executable, "-c", WATCHED_RUNS, instance, *names], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, **{PREFAULT_SWITCH: prefault}))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_permutation_is_another_matrix_of_the_same_problem():
    plain, shuffled = (api.run(IQ, None, "highs", time_limit=60, permutation=k) for k in (0, 1))
    assert plain.matrix_digest != shuffled.matrix_digest
    assert plain.status == shuffled.status == "optimal" and shuffled.checked
    form = linear_form(api.build(IQ))
    assert shuffled.matrix_digest == form_digest(permuted(form, 1)[0])


def test_the_digest_covers_every_part_of_the_problem():
    form = linear_form(api.build(IQ))
    base = form_digest(form)
    for field in ("value", "row_lower", "row_upper", "col_lower", "col_upper", "cost"):
        changed = getattr(form, field).copy()
        changed[0] = changed[0] + 1 if math.isfinite(changed[0]) else 0.0
        original, _ = getattr(form, field), setattr(form, field, changed)
        assert form_digest(form) != base, field
        setattr(form, field, original)
    form.integer[0] = not form.integer[0]
    assert form_digest(form) != base
    form.integer[0] = not form.integer[0]
    form.maximise = not form.maximise
    assert form_digest(form) != base


def test_a_staged_run_counts_the_models_it_handed_over():
    record = api.run("rubik/htm_depth_07", None, "highs", time_limit=120)
    assert record.status == "optimal" and record.checked
    solved = int(record.message.split(" models solved")[0].rsplit(" ", 1)[1])
    assert record.models == solved >= 1 and record.matrix_digest


def test_the_report_names_solvers_that_got_different_matrices(tmp_path):
    names = matrix_solvers()[:2]
    if len(names) < 2:
        pytest.skip(f"one solver with a matrix session is available ({names}): nothing to compare")
    records = [api.run(IQ, None, name, time_limit=60) for name in names]
    runs = pd.DataFrame([{k: r.to_dict().get(k) for k in results.COLUMNS} for r in records])
    compared, differing = tables.matrix_disagreements(runs)
    assert (compared, differing) == (1, [])
    runs.loc[1, "matrix_digest"] = "0" * 16  # as if the second solver had been handed another model
    compared, differing = tables.matrix_disagreements(runs)
    assert compared == 1 and len(differing) == 1 and names[1] in differing[0] and IQ in differing[0]


def test_a_released_model_is_freed_without_the_garbage_collector():
    import gc
    import weakref

    from pyomo_puzzles.core.models import release
    model = api.build(IQ)
    gone = weakref.ref(model)
    enabled = gc.isenabled()
    gc.disable()
    try:
        release(model)
        del model
        assert gone() is None, "a model still in a reference cycle after release: Pyomo's blocks changed"
    finally:
        if enabled:
            gc.enable()


def test_a_staged_run_leaves_the_garbage_collector_as_it_found_it():
    import gc
    assert gc.isenabled()
    record = api.run("rubik/htm_depth_05", None, "highs", time_limit=120)
    assert record.status == "optimal" and record.checked and gc.isenabled()
    gc.disable()
    try:
        api.run("rubik/htm_depth_05", None, "highs", time_limit=120)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_runs_only_when_the_staged_run_switched_it_off(monkeypatch):
    import gc

    from pyomo_puzzles.core import parts
    monkeypatch.setattr(parts, "YOUNG_OBJECTS_TO_COLLECT", -1)  # always due
    collections = []
    gc.callbacks.append(collector := lambda phase, info: collections.append(phase) if phase == "start" else None)
    try:
        with parts.collector_paused():
            parts.collect_if_due()
        assert collections, "the paused collector never ran"
        collections.clear()
        gc.disable()
        try:
            with parts.collector_paused():
                parts.collect_if_due()
            assert not collections and not gc.isenabled(), "a collector the caller switched off was run"
        finally:
            gc.enable()
    finally:
        gc.callbacks.remove(collector)


@pytest.mark.parametrize("relation", ["==", "<=", ">=", "range"])
def test_rows_read_directly_have_the_bounds_pyomo_gives(relation):
    import pyomo.environ as pyo

    from pyomo_puzzles.contract.modelling import total
    from pyomo_puzzles.core.linear_form import read_linear_form
    model = pyo.ConcreteModel()
    model.x = pyo.Var([1, 2, 3], bounds=(0, 4))
    body = total(model.x.values())
    model.row = pyo.Constraint(expr={"==": lambda: body == 2, "<=": lambda: body <= 2, ">=": lambda: body >= 2,
                                     "range": lambda: pyo.inequality(1, body, 2)}[relation]())
    form = read_linear_form(model)
    lower, _, upper = model.row.to_bounded_expression(evaluate_bounds=True)
    assert (form.row_lower[0], form.row_upper[0]) == (-math.inf if lower is None else lower,
                                                      math.inf if upper is None else upper)
    assert list(form.value) == [1.0, 1.0, 1.0]


KEPT_BETWEEN_SESSIONS = ("scip", "cplex", "gurobi")
"""Adapters that keep solver objects from one one-off session for the next in a process (SCIP's
instances, CPLEX's problems, Gurobi's environment)."""


@pytest.mark.parametrize("solver", KEPT_BETWEEN_SESSIONS)
def test_one_off_sessions_in_a_row_answer_as_a_fresh_solver_does(solver):
    """A solver object kept from an earlier session leaks nothing into the next: the repainted
    Parker Brothers set's known optimum 3 (its data file), searched the same way before and
    after a Rubik scramble of distance 5 and an IQ Twist challenge solved in between."""
    if not solvers.availability(solver)[0]:
        pytest.skip(f"{solver}: {solvers.availability(solver)[1]}")
    from pyomo_puzzles.core import run

    def solved(instance: str, formulation: str | None):
        return run.run(instance, formulation, solver, 120, 1, isolate=False)

    first = solved("instant_insanity_design/parker_brothers_repainted", "mccormick")
    between = [solved("rubik/qtm_depth_05", "projections"), solved(IQ, None)]
    again = solved("instant_insanity_design/parker_brothers_repainted", "mccormick")
    assert [(r.status, r.checked) for r in (first, *between, again)] == [("optimal", True)] * 4
    assert round(first.objective) == round(again.objective) == 3 and round(between[0].objective) == 5
    assert again.nodes == first.nodes


@pytest.mark.parametrize("route", ["scipy", "numpy"])
def test_the_shared_transpose_gives_each_rows_columns_in_order(route, monkeypatch):
    """`by_rows` (`core.binding`), the one column-to-row transpose of the adapters, by scipy's
    routine where scipy is loaded and by numpy's sort where not: both as scipy's own `tocsr`."""
    import sys

    import scipy.sparse as sp

    from pyomo_puzzles.contract.solvers import by_rows

    if route == "numpy":
        monkeypatch.delitem(sys.modules, "scipy.sparse._sparsetools")
    matrix = sp.random(40, 70, density=0.1, random_state=3, format="csc")
    expected = matrix.tocsr()
    expected.sort_indices()
    start, columns, values = by_rows(matrix.indptr, matrix.indices, matrix.data, 40)
    assert list(start) == list(expected.indptr) and list(columns) == list(expected.indices)
    assert list(values) == list(expected.data)


def test_the_shared_row_senses():
    """`row_senses` (`core.binding`): equal, at most, at least, range, free (at the infinity)."""
    from pyomo_puzzles.contract.solvers import row_senses

    inf = float("inf")
    sense, rhs, span = row_senses([2, -inf, 1, -1, -inf], [2, 5, inf, 3, inf], 1e20)
    assert list(sense) == ["E", "L", "G", "R", "L"]
    assert list(rhs) == [2, 5, 1, -1, 1e20] and list(span) == [0, 0, 0, 4, 0]
