"""The loops of C calls compiled once per process (`pyomo_puzzles.solvers._c_loops`), through
which GLPK and SCIP take the matrix: the same answers as the Python loops they replace, on
one-off and persistent sessions, and arrays the compiled code would misread refused."""

from __future__ import annotations

import importlib.util

import numpy as np
import pyomo.environ as pyo
import pytest

from conftest import solver_params
from pyomo_puzzles.core import solvers
from pyomo_puzzles.solvers import _c_loops
from test_solver_contract import cycle_independent_set, ranges_offset_and_constants

HAS_LLVMLITE = importlib.util.find_spec("llvmlite") is not None
LOOP_SOLVERS = solver_params(("glpk", "scip"))


@pytest.fixture(params=["compiled", "python"])
def loops(request, monkeypatch):
    """The compiled loops, or (``python``) none: the adapters then call from Python."""
    if request.param == "python":
        monkeypatch.setenv(_c_loops.SWITCH, "off")
    elif not HAS_LLVMLITE:
        pytest.skip("llvmlite is not installed: the adapters loop in Python")
    else:
        monkeypatch.delenv(_c_loops.SWITCH, raising=False)
    _c_loops.loops.cache_clear()
    yield _c_loops.loops()
    _c_loops.loops.cache_clear()


@pytest.fixture
def compiled(monkeypatch):
    """The compiled loops, whatever the switch says in the environment of the tests."""
    if not HAS_LLVMLITE:
        pytest.skip("llvmlite is not installed")
    monkeypatch.delenv(_c_loops.SWITCH, raising=False)
    _c_loops.loops.cache_clear()
    yield _c_loops.loops()
    _c_loops.loops.cache_clear()


def test_the_loops_compile_where_llvmlite_is_installed(compiled):
    assert compiled is not None


def test_the_switch_turns_them_off(loops, request):
    assert (loops is None) == (request.node.callspec.params["loops"] == "python")


@pytest.mark.parametrize("solver", LOOP_SOLVERS)
def test_rows_columns_offset_and_sense_reach_the_solver(solver, loops):
    """Ranged, equality and one-sided rows, free and bounded columns, integer and continuous,
    the objective's constant, a maximisation (`ranges_offset_and_constants`): x = 4, y = 1,
    z = 1.5, objective 29.5; and a violated row without variables proven infeasible."""
    model = ranges_offset_and_constants(0.0)
    outcome = solvers.SolverSession(solver, model, time_limit=60).solve()
    assert outcome.status == "optimal" and outcome.objective == pytest.approx(29.5), outcome.message
    assert (pyo.value(model.x), pyo.value(model.y), pyo.value(model.z)) == pytest.approx((4, 1, 1.5))
    infeasible = solvers.SolverSession(solver, ranges_offset_and_constants(-1.0), time_limit=60).solve()
    assert infeasible.status == "infeasible", infeasible.message


@pytest.mark.parametrize("solver", LOOP_SOLVERS)
def test_a_persistent_session_takes_rows_and_bounds(solver, loops):
    model = cycle_independent_set(31)
    session = solvers.SolverSession(solver, model, persistent=True, time_limit=60)
    assert session.solve().objective == pytest.approx(15)
    model.cap = pyo.Constraint(expr=sum(model.x[i] for i in range(1, 11)) <= 3)
    assert session.solve().objective == pytest.approx(14)
    model.x[12].fix(1)
    model.x[13].fix(1)
    assert session.solve().status == "infeasible"
    model.x[13].unfix()
    assert session.solve().objective == pytest.approx(13)
    chosen = {i for i in model.I if pyo.value(model.x[i]) > 0.5}
    assert len(chosen) == 13 and 12 in chosen and len(chosen & set(range(1, 11))) <= 3
    assert not any(i % 31 + 1 in chosen for i in chosen)


@pytest.mark.parametrize("arrays", [
    (np.arange(3, dtype=np.int64), np.zeros(3)),  # a C int is 32 bits
    (np.arange(3, dtype=np.int32), np.zeros(6)[::2]),  # not contiguous
    (np.arange(3, dtype=np.int32), np.zeros(2)),  # shorter than the first
    (np.zeros(3), np.arange(3, dtype=np.int32)),  # no loop of that signature
], ids=["int64", "strided", "short", "signature"])
def test_a_loop_refuses_arrays_it_would_misread(arrays, compiled):
    never_called = _c_loops.ctypes.CFUNCTYPE(None)(lambda: None)
    with pytest.raises(TypeError):
        compiled.each(never_called, None, *arrays)
