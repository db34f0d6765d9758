"""Every run's time in parts: the solver's own clock (none where the solver has none, never
the framework's clock around the call), decoding, checking, and the CPU time of the run's
process and the solver processes it started."""

from __future__ import annotations

import pytest

import pyomo_puzzles as pp
from pyomo_puzzles.core import solvers

CUBE = "packing/l_tromino_cube"


def installed(name: str) -> bool:
    return solvers.is_known(name) and solvers.availability(name)[0]


@pytest.mark.parametrize("solver", ["highs", "cbc", "glpk", "scip", "cplex"])
def test_the_parts_of_a_run_fit_in_its_wall_time(solver) -> None:
    if not installed(solver):
        pytest.skip(f"{solver} not installed")
    record = pp.solve(CUBE, "placement", solver, isolate=False)
    assert record.status == "optimal" and record.checked
    assert record.decode_time > 0 and record.check_time > 0 and record.cpu_time > 0
    parts = record.build_time + (record.solver_time or 0.0) + record.decode_time + record.check_time
    assert parts <= record.wall_time


def test_glpk_reports_no_clock_of_its_own_and_the_record_says_so() -> None:
    """Pyomo's GLPK interface reads no solve time from glpsol: the record leaves it empty
    instead of copying the framework's clock."""
    if not installed("glpk"):
        pytest.skip("glpk not installed")
    record = pp.solve(CUBE, "placement", "glpk", isolate=False)
    assert record.status == "optimal" and record.solver_time is None


def test_cpu_time_counts_the_solver_executable() -> None:
    """CBC solves in an executable of its own: its CPU seconds are the run's too (a run that
    counted only its own process would show almost none)."""
    if not installed("cbc"):
        pytest.skip("cbc not installed")
    record = pp.solve("packing/pentominoes/3x20", "placement", "cbc", threads=1)
    assert record.status == "optimal" and record.solver_time > 0.5
    assert record.cpu_time >= 0.8 * record.solver_time


def test_a_formulation_in_stages_sums_its_decoding() -> None:
    record = pp.solve("rubik/htm_depth_08", "projections", "highs", isolate=False)
    assert record.status == "optimal" and record.checked
    assert record.decode_time > 0 and record.check_time > 0
    assert record.build_time + record.solver_time + record.decode_time + record.check_time <= record.wall_time


def test_a_reference_solver_records_the_limit_it_was_given() -> None:
    """The time limit given, not what was left of it once the instance was loaded."""
    if not installed_dlx():
        pytest.skip("xcover not installed")
    record = pp.solve(CUBE, solver="dlx", time_limit=30)
    assert record.status == "optimal" and record.checked
    assert record.time_limit == 30
    assert record.cpu_time > 0 and record.check_time > 0


def installed_dlx() -> bool:
    return pp.load(CUBE).family.reference_solvers["dlx"].available()[0]
