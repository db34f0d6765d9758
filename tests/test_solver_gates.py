"""Every solver library called through a hand-written binding (CBC's C interface, GLPK's
``glp_iocp`` structure, SCIP's C API) is used only in a version its binding was written and
tested for: another is unavailable, in one line naming the version found and the tested
ones, never used blind; and the C results that can fail are checked (issue 57)."""

from __future__ import annotations

import ctypes

import pytest

from conftest import solver_params
from pyomo_puzzles import cli
from pyomo_puzzles.core import solvers
from pyomo_puzzles.solvers import _scip_c, cbc, glpk

GATED = {"cbc": (cbc, "cbcbox 2.935"), "glpk": (glpk, "GLPK 5.0"), "scip": (_scip_c, "SCIP 10.0")}


@pytest.fixture
def untested(monkeypatch, request):
    """The binding of `request.param` told it was tested with another version only."""
    module, _ = GATED[request.param]
    module.library.cache_clear()
    solvers.availability.cache_clear()
    monkeypatch.setattr(module, "TESTED", ("0.0",))
    yield request.param
    monkeypatch.undo()
    module.library.cache_clear()
    solvers.availability.cache_clear()


@pytest.mark.parametrize("untested", [p.values[0] for p in solver_params(tuple(GATED)) if not p.marks],
                         indirect=True)
def test_an_untested_library_version_is_unavailable_in_one_line(untested, capsys):
    ok, detail = solvers.adapter(untested).availability()
    found = GATED[untested][1]
    assert not ok and detail.startswith(f"{found} is not a version this binding was written and tested for (0.0)")
    assert "\n" not in detail
    assert cli.main(["solve", "instant_insanity/parker_brothers", "-s", untested]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and found in err


@pytest.mark.parametrize("solver", solver_params(tuple(GATED)))
def test_the_installed_libraries_are_the_tested_ones(solver):
    """The lock's versions pass their gates (the suite would otherwise skip every test of them)."""
    ok, detail = solvers.adapter(solver).availability()
    assert ok, detail


@pytest.mark.skipif(not solvers.availability("cbc")[0], reason="cbc not installed")
def test_cbc_refuses_a_model_it_did_not_make_and_a_freed_one():
    """A NULL from Cbc_newModel or Cbc_clone is an error naming the call; a one-off session's
    model, freed by its solve, is not touched again (3f1b691 kept the freed pointer)."""
    import numpy as np

    from pyomo_puzzles.core.linear_form import Rows, read_linear_form
    from pyomo_puzzles.core.records import RunSettings
    from pyomo_puzzles.core.solvers import SolverSession

    with pytest.raises(RuntimeError, match="Cbc_newModel returned no model"):
        cbc._made(ctypes.c_void_p(None).value, "Cbc_newModel")
    import pyomo.environ as pyo

    model = pyo.ConcreteModel()
    model.x = pyo.Var([0, 1], domain=pyo.Binary)
    model.one = pyo.Constraint(expr=model.x[0] + model.x[1] == 1)
    model.cost = pyo.Objective(expr=model.x[0] + 2 * model.x[1])
    session = cbc.MatrixSession(read_linear_form(model), RunSettings(time_limit=10))
    assert session.solve().status == "optimal"
    rows = Rows(np.array([0, 1]), np.array([0]), np.array([1.0]), np.array([0.0]), np.array([0.0]))
    with pytest.raises(RuntimeError, match="freed by its solve"):
        session.add_rows(rows)
    with pytest.raises(RuntimeError, match="freed by its solve"):
        session.set_bounds([0], np.array([0.0]), np.array([0.0]))
    assert SolverSession("cbc", model, time_limit=10).solve().status == "optimal"


def test_a_library_that_cannot_be_loaded_and_a_missing_package_are_one_line_each():
    """The availability rules every binding shares (`core.binding`, offered to plugins): a
    loader that fails names the library's source and the failure; an untested version keeps
    its own line; a package not installed names the package and how to install it."""
    from pyomo_puzzles.contract.solvers import UntestedVersion, library_availability, missing_package

    def broken():
        raise OSError("libexample.so: cannot open shared object file")

    def untested():
        raise UntestedVersion("Example 9.9 is not a version this binding was written and tested for (1.0)")

    assert library_availability(broken, str, "Example's library from example-wheel") == (
        False, "Example's library from example-wheel cannot be loaded (OSError: libexample.so: cannot open shared "
               "object file)")
    assert library_availability(untested, str, "Example") == (
        False, "Example 9.9 is not a version this binding was written and tested for (1.0)")
    assert library_availability(lambda: 42, lambda found: f"Example {found}", "Example") == (True, "Example 42")
    assert missing_package("pyomo_puzzles_no_such_package", "pip install example") == \
        "Python package 'pyomo_puzzles_no_such_package' not installed (pip install example)"
    assert missing_package("numpy", "pip install numpy") is None
