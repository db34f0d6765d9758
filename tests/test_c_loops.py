"""The loops of C calls compiled once per process (`pyomo_puzzles.solvers._c_loops`), through
which GLPK and SCIP take the matrix: the same answers as the Python loops they replace, on
one-off and persistent sessions, and arrays the compiled code would misread refused."""

from __future__ import annotations

import ctypes
import importlib.util
import os
import subprocess
import sys

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
    """The compiled loops, or (``python``) the Python ones."""
    if request.param == "python":
        monkeypatch.setenv(_c_loops.SWITCH, "off")
    elif not HAS_LLVMLITE:
        pytest.skip("llvmlite is not installed: the adapters loop in Python")
    else:
        monkeypatch.delenv(_c_loops.SWITCH, raising=False)
    _c_loops._compiled.cache_clear()
    yield _c_loops.loops()
    _c_loops._compiled.cache_clear()


@pytest.fixture
def compiled(monkeypatch):
    """The compiled loops, whatever the switch says in the environment of the tests."""
    if not HAS_LLVMLITE:
        pytest.skip("llvmlite is not installed")
    monkeypatch.delenv(_c_loops.SWITCH, raising=False)
    _c_loops._compiled.cache_clear()
    yield _c_loops.loops()
    _c_loops._compiled.cache_clear()


def test_the_loops_compile_where_llvmlite_is_installed(compiled):
    assert isinstance(compiled, _c_loops.Loops)


def test_the_switch_turns_them_off(loops, request):
    assert isinstance(loops, _c_loops.PythonLoops) == (request.node.callspec.params["loops"] == "python")


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
    never_called = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_double)(lambda *_: None)
    with pytest.raises(TypeError, match="array|arguments"):
        compiled.each(never_called, None, *arrays)


def test_a_function_declared_otherwise_than_its_loop_calls_it_is_refused(compiled):
    """The loops' C prototypes are checked against the library's ctypes declarations at each
    call: ``abs(int) -> int`` is not what ``each_id`` calls (void f(handle, int, double))."""
    libc = ctypes.CDLL(None)
    absolute = libc.abs
    absolute.restype, absolute.argtypes = ctypes.c_int, [ctypes.c_int]
    with pytest.raises(TypeError, match="abs is declared as .* each_id calls it as"):
        compiled.each(absolute, None, np.arange(3, dtype=np.int32), np.zeros(3))
    with pytest.raises(TypeError, match="gather_double"):
        compiled.gather_double(absolute, None, 0, 3)


@pytest.mark.skipif(not HAS_LLVMLITE, reason="llvmlite is not installed")
@pytest.mark.parametrize("switch", ["on", "off"])
@pytest.mark.parametrize("solver", LOOP_SOLVERS)
def test_the_record_says_which_loops_handed_the_model_over(solver, switch):
    """GLPK's and SCIP's version in a record name the hand-over's path: the compiled loops and
    llvmlite's release, or the Python loops and why."""
    shown = subprocess.run([sys.executable, "-c", "from pyomo_puzzles.core import instances, run\n"
                            "record = run.run(instances.load('packing/l_tromino_cube'), 'placement', "
                            f"{solver!r}, time_limit=60, isolate=False)\n"
                            "print(record.status, record.solver_version)"],
                           capture_output=True, text=True, env={**os.environ, _c_loops.SWITCH: switch}, timeout=300)
    assert shown.returncode == 0, shown.stderr[-2000:]
    expected = "hand-over: compiled loops (llvmlite 0.50" if switch == "on" else \
        f"hand-over: Python loops ({_c_loops.SWITCH}=off)"
    assert shown.stdout.startswith("optimal ") and expected in shown.stdout, shown.stdout


def test_an_untested_llvmlite_is_not_used(monkeypatch):
    llvmlite = pytest.importorskip("llvmlite", reason="llvmlite is not installed")
    monkeypatch.delenv(_c_loops.SWITCH, raising=False)
    monkeypatch.setattr(llvmlite, "__version__", "0.49.1")
    _c_loops._compiled.cache_clear()
    try:
        assert isinstance(_c_loops.loops(), _c_loops.PythonLoops)
        assert _c_loops.path() == "Python loops (llvmlite 0.49.1 is not a tested release: 0.50)"
    finally:
        _c_loops._compiled.cache_clear()
