"""Every run's time in parts: the solver's own clock (none where the solver has none, never
the framework's clock around the call), decoding, checking, and the CPU time of the run's
process and the solver processes it started."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

import pyomo_puzzles as pp
from pyomo_puzzles.core import solvers
from pyomo_puzzles.report.measure import Statistics, measured_time

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


def test_glpk_has_no_clock_of_its_own_and_the_record_says_what_timed_it() -> None:
    """GLPK has no clock of its own: its solve call alone is timed, and the record says so
    (solver_clock 'call'), where a solver with a clock says 'solver'."""
    if not installed("glpk"):
        pytest.skip("glpk not installed")
    record = pp.solve(CUBE, "placement", "glpk", isolate=False)
    assert record.status == "optimal" and record.solver_clock == "call"
    assert 0 < record.solver_time <= record.call_time
    assert pp.solve(CUBE, "placement", "highs", isolate=False).solver_clock == "solver"


def test_cpu_time_counts_the_solver_executable() -> None:
    """CBC solves in an executable of its own: its CPU seconds are the run's too (a run that
    counted only its own process would show almost none)."""
    if not installed("cbc"):
        pytest.skip("cbc not installed")
    record = pp.solve("packing/pentominoes/3x20", "placement", "cbc", threads=1)
    assert record.status == "optimal" and record.solver_time > 0.5
    # CBC's clock is its wall clock, which a busy machine stretches: compare with what the
    # framework's own process could spend (writing the LP and reading the answer: 0.1 s)
    assert record.cpu_time >= 0.5


def test_a_formulation_in_stages_sums_its_decoding() -> None:
    record = pp.solve("rubik/htm_depth_08", "projections", "highs", isolate=False)
    assert record.status == "optimal" and record.checked
    assert record.decode_time > 0 and record.check_time > 0
    assert record.build_time + record.solver_time + record.decode_time + record.check_time <= record.wall_time
    assert record.solver_time <= record.call_time
    assert record.build_time + record.compile_time + record.call_time + record.decode_time + record.check_time \
        <= record.wall_time


def test_the_call_holds_the_solver_and_the_parts_add_up_to_the_wall_time() -> None:
    """One model: build, call (hand-over, the solver's run, read-back), decode and check are
    the run, to within the bookkeeping between them."""
    record = pp.solve(CUBE, "placement", "highs", isolate=False)
    assert record.status == "optimal" and record.checked
    assert 0 < record.solver_time <= record.call_time
    parts = record.build_time + record.compile_time + record.call_time + record.decode_time + record.check_time
    assert parts <= record.wall_time <= parts + 0.05


def test_a_solver_without_a_clock_of_its_own_in_stages_says_what_timed_it() -> None:
    """GLPK's solve calls alone, summed over the parts, and the record says so."""
    if not installed("glpk"):
        pytest.skip("glpk not installed")
    record = pp.solve("rubik/htm_depth_07", "projections", "glpk", isolate=False)
    assert record.status == "optimal" and record.solver_clock == "call"
    assert 0 < record.solver_time <= record.call_time


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


PAID_ONCE = """
import json, sys
import pyomo_puzzles as pp
records = [pp.solve("packing/iq_twist/challenge_40", solver=sys.argv[1], time_limit=60) for _ in range(2)]
print(json.dumps([[r.status, r.startup_time, r.wall_time] for r in records]))
"""


def test_the_one_off_start_up_is_paid_once_per_process() -> None:
    """Two isolated Gurobi runs in a fresh process: the first record carries the start-up, the
    second none, and neither run's own time holds it (Gurobi's Pyomo interface finalised
    Pyomo's deferred scipy import in every forked run: about 1.1 s of each run's wall time)."""
    import json
    import subprocess
    import sys

    if not installed("gurobi"):
        pytest.skip("gurobi not installed")
    done = subprocess.run([sys.executable, "-c", PAID_ONCE, "gurobi"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (status1, startup1, wall1), (status2, startup2, wall2) = json.loads(done.stdout.strip().splitlines()[-1])
    assert status1 == status2 == "optimal"
    assert startup1 > 0.2 and startup2 == 0.0
    assert wall1 < 0.5 and wall2 < 0.5


def test_a_solver_without_a_warm_up_starts_while_each_run_loads() -> None:
    record = pp.solve(CUBE, "placement", "highs")
    assert record.status == "optimal" and record.startup_time is None


def test_a_count_pays_the_solvers_start_up_before_its_clock() -> None:
    """Gurobi declares a one-off start-up: a count records it apart from its elapsed time;
    a solver without one (HiGHS) records none."""
    highs = pp.count("instant_insanity/parker_brothers", "rotations", "highs")
    assert highs.complete and highs.solutions == 8 and highs.startup_time is None
    if not installed("gurobi"):
        pytest.skip("gurobi not installed")
    script = ("import json, pyomo_puzzles as pp; r = pp.count('instant_insanity/parker_brothers', 'rotations', "
              "'gurobi'); print(json.dumps([r.complete, r.solutions, r.startup_time, r.elapsed]))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    complete, solutions, startup, elapsed = json.loads(done.stdout.strip().splitlines()[-1])
    assert complete and solutions == 8
    assert startup > 0.05  # a fresh process pays Gurobi's start-up (about a second here), outside `elapsed`


def test_build_and_solve_counts_a_staged_formulations_own_search() -> None:
    """`rubik/projections` settles most parts by its pattern tables, in Python, between its
    models (about half of this run; the tables themselves are read before the clock, by the
    formulation's warm_up): that is part of what the formulation costs, so the parts
    (generating the stages among them) add up to the wall time and `build_and_solve` is the
    wall time less decoding and checking."""
    record = pp.solve("rubik/cube3_htm_depth_10_1", "projections", "highs", isolate=False)
    assert record.status == "optimal" and record.checked
    parts = record.build_time + record.generate_time + record.compile_time + record.call_time \
        + record.decode_time + record.check_time
    assert parts <= record.wall_time <= parts + 0.05
    assert record.generate_time > record.wall_time / 4
    runs = pd.DataFrame([record.to_dict()])
    build_and_solve = float(measured_time(runs, Statistics(time="build_and_solve")).iloc[0])
    assert build_and_solve >= record.wall_time - record.decode_time - record.check_time - 0.05
