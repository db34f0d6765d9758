"""Progress over time (issue 45): each run's trace of incumbent and bound, and the primal and
primal-dual integrals (Berthold 2013) computed from it the same way for every solver."""

from __future__ import annotations

import pytest

from pyomo_puzzles import api
from pyomo_puzzles.core import progress, solvers
from tests.conftest import solver_params

REPAINTED = "instant_insanity_design/parker_brothers_repainted"
FEWEST_REPAINTS = 3
"""The census of all sets of four cubes: the repainted Parker Brothers set needs 3 repaints."""


def test_the_gap_function_by_its_definition():
    assert progress.gap(None, 4.0) == progress.gap(4.0, None) == 1.0
    assert progress.gap(0.0, 0.0) == 0.0
    assert progress.gap(3.0, -1.0) == 1.0  # opposite signs
    assert progress.gap(4.0, 2.0) == 0.5 and progress.gap(2.0, 4.0) == 0.5
    assert progress.gap(float("inf"), 2.0) == 1.0


def test_integrals_of_a_trace_worked_by_hand():
    points = [[1.0, 8.0, 4.0], [3.0, 5.0, 5.0]]
    # [0, 1): nothing yet, gap 1; [1, 3): |8 - 4| / 8 = 0.5 against the bound, |8 - 5| / 8 against 5
    assert progress.primal_dual_integral(points) == pytest.approx(1.0 + 2 * 0.5)
    assert progress.primal_integral(points, 5.0) == pytest.approx(1.0 + 2 * 0.375)
    assert progress.primal_integral([[2.0, 5.0, 5.0]], 5.0) == pytest.approx(2.0)  # the optimum only at the end


def test_a_trace_keeps_changes_only_and_ends_at_the_run_end():
    events = [[0.5, None, 1.0], [0.2, None, 1.0], [0.7, None, 1.0], [1.5, 9.0, 2.0], [9.0, 7.0, 2.0]]
    points = progress.trace(events, 2.0, 7.0, 3.0)
    assert points == [[0.2, None, 1.0], [1.5, 9.0, 2.0], [2.0, 7.0, 3.0]]  # a late event is the run's end


def _hand_integral(points: list) -> float:
    """The primal-dual integral of a trace, written out here: each point's gap holds until the next."""
    total, since, current = 0.0, 0.0, 1.0
    for seconds, incumbent, bound in points:
        total += current * (seconds - since)
        since = seconds
        if incumbent is None or bound is None:
            current = 1.0
        elif incumbent == bound == 0:
            current = 0.0
        else:
            current = abs(incumbent - bound) / max(abs(incumbent), abs(bound))
    return total


REPORTING = ("highs", "scip", "gurobi", "cplex")
"""The solvers whose adapters follow the incumbent and bound as the solver reports them."""


@pytest.mark.parametrize("solver", solver_params(("highs", "scip", "glpk", "cbc")))
def test_a_run_stopped_by_its_time_limit_has_its_trace_and_integral(solver):
    """The repainting model (rlt) is not proved within 0.5 s by any of these solvers here; its
    trace ends with the run's final incumbent and bound, every incumbent is at least the
    census's optimum and every bound at most it (a minimum), the bound never falls and the
    incumbent never rises, and the integral is the trace's."""
    record = api.solve(REPAINTED, "rlt", solver, time_limit=0.5)
    if record.status == "optimal":
        pytest.skip(f"{solver} proved the optimum within 0.5 s: no time-limited run to look at")
    assert record.status == "time_limit", record.message
    points = record.progress
    assert points, "a trace"
    end = record.solver_time if record.solver_time is not None else record.call_time
    assert points[-1] == [pytest.approx(end), record.objective, record.bound]
    times = [p[0] for p in points]
    assert times == sorted(times) and times[-1] <= 0.5 * 1.5 + 0.1
    incumbents = [p[1] for p in points if p[1] is not None]
    bounds = [p[2] for p in points if p[2] is not None]
    assert all(value >= FEWEST_REPAINTS - 1e-6 for value in incumbents)
    assert all(value <= FEWEST_REPAINTS + 1e-6 for value in bounds)
    assert incumbents == sorted(incumbents, reverse=True) and bounds == sorted(bounds)
    assert record.primal_dual_integral == pytest.approx(_hand_integral(points))
    assert 0 < record.primal_dual_integral <= end + 1e-9
    reported = solver in REPORTING
    assert record.progress_source == ("solver" if reported else "final")
    if not reported:
        assert len(points) == 1


def test_a_feasibility_model_has_no_trace():
    record = api.solve("packing/iq_twist/challenge_25", None, "highs", time_limit=30)
    assert record.status == "optimal" and record.progress is None and record.primal_dual_integral is None


@pytest.mark.parametrize("solver", solver_params(REPORTING))
def test_an_optimum_found_and_proved_gives_a_trace_that_ends_closed(solver):
    """The weak linearisation of the repainting model (432 columns, 936 rows: within the
    size-limited Gurobi and CPLEX wheels): its LP relaxation's value is 0 (test_model_statistics
    reads it from the exported MPS), so every bound reported lies in [0, 3] and never falls,
    every incumbent is at least 3 and never rises, and the trace ends closed at the optimum."""
    record = api.solve(REPAINTED, "mccormick", solver, time_limit=60)
    assert record.status == "optimal" and record.objective == pytest.approx(FEWEST_REPAINTS)
    assert record.progress[-1][1] == pytest.approx(record.progress[-1][2])
    assert record.progress_source == "solver" and len(record.progress) > 2
    bounds = [p[2] for p in record.progress if p[2] is not None]
    incumbents = [p[1] for p in record.progress if p[1] is not None]
    assert all(-1e-6 <= b <= FEWEST_REPAINTS + 1e-6 for b in bounds)
    assert all(i >= FEWEST_REPAINTS - 1e-6 for i in incumbents)
    assert all(later >= earlier - 1e-6 for earlier, later in zip(bounds, bounds[1:]))
    assert all(later <= earlier + 1e-6 for earlier, later in zip(incumbents, incumbents[1:]))
    assert record.root_bound is not None and -1e-6 <= record.root_bound <= FEWEST_REPAINTS + 1e-6


@pytest.mark.parametrize("solver", solver_params(("highs", "scip")))
def test_the_root_bound_lies_between_the_lp_relaxation_and_the_optimum(solver, tmp_path):
    """Repainting is minimised: the root node's bound (its cuts done) is at least the LP
    relaxation's value (0.5 for rlt, checked against highspy reading the exported MPS in
    test_model_statistics) and at most the census's optimum; the share of the gap it closed is
    then in [0, 1], as the runs table computes it. The same run's size after presolve: HiGHS's
    is what highspy's own presolve makes of the exported MPS file; SCIP's is a reduction of the
    model's size."""
    import pandas as pd

    from pyomo_puzzles.report.formulations import root_gap_closed

    [statistics] = api.model_statistics(REPAINTED, "rlt", lp_solver="highs")
    record = api.solve(REPAINTED, "rlt", solver, time_limit=60)
    assert record.status == "optimal" and record.root_bound is not None
    assert statistics.lp_value - 1e-6 <= record.root_bound <= FEWEST_REPAINTS + 1e-6
    runs = pd.DataFrame([{**record.to_dict(), "known_objective": FEWEST_REPAINTS}])
    models = pd.DataFrame([statistics.row()])
    closed = root_gap_closed(runs, models).iloc[0]
    assert closed == pytest.approx((record.root_bound - statistics.lp_value) / (FEWEST_REPAINTS - statistics.lp_value))
    assert -1e-6 <= closed <= 1 + 1e-6
    presolved = (record.presolved_variables, record.presolved_rows, record.presolved_nonzeros)
    if solver == "highs":
        assert presolved == _presolved_by_highspy(tmp_path)
    original = (statistics.size.variables, statistics.size.rows, statistics.size.nonzeros)
    assert all(0 < after <= before for after, before in zip(presolved, original)), (presolved, original)
    assert presolved != original  # the repainting model has rows and columns that presolve removes


def _presolved_by_highspy(folder) -> tuple[int, int, int]:
    """(columns, rows, nonzeros) of the repainting model (rlt) after highspy's presolve, read
    from the MPS file `pyomo-puzzles export` writes: the framework's matrix not involved."""
    import highspy

    from pyomo_puzzles.core import export

    [mps] = export.export(api.load(REPAINTED), "rlt", folder, ("mps",))
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(mps))
    highs.presolve()
    reduced = highs.getPresolvedLp()
    return reduced.num_col_, reduced.num_row_, len(reduced.a_matrix_.index_)


@pytest.mark.parametrize("solver", solver_params(("scip",)))
def test_a_run_stopped_before_any_bound_records_none_not_the_solvers_infinity(solver):
    """SCIP's 'no bound yet' is its infinity, 1e20: the pieces model of a 2x2x2 scramble of
    five quarter turns, stopped after 2.5 s (about 1 s of it building), has no dual bound worth the name, and its record
    says none, or a bound a minimum of five moves allows (between 0 and 5)."""
    record = api.solve("rubik/qtm_depth_05", "pieces", solver, time_limit=2.5)
    assert record.status in ("time_limit", "optimal")
    for value in [record.bound, *(point[2] for point in record.progress or [])]:
        assert value is None or -1e-6 <= value <= 5 + 1e-6, value


@pytest.mark.parametrize("solver", solver_params(("cplex",)))
def test_a_model_the_licence_refuses_has_no_trace(solver):
    """The Community Edition takes at most 1,000 columns; the repainting model (rlt) has 1,584.
    A refused model was never searched: no trace, no integral (with a full licence: skipped)."""
    record = api.solve(REPAINTED, "rlt", solver, time_limit=30)
    if record.status != "licence_limit":
        pytest.skip(f"{solver}'s licence took the model")
    assert record.progress is None and record.primal_dual_integral is None and record.root_bound is None
