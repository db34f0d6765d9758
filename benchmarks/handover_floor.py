"""How much of a solver's hand-over is the solver library's own work, on the models of the
3x3x3 Rubik scrambles that are left to a solver (``projections``: 2,000 to 6,300 columns).

The models are compiled once (`core.linear_form`, as every run does) from the parts of the
scrambles a HiGHS run solves, then handed to each solver in this process, one session per
model (taken, solved, dropped), a few rounds. Printed per solver, medians in ms per model:

- ``hand-over``: session made, solved and dropped, less the solver's own clock (what the run
  record calls hand-over);
- ``library``: what of it is the solver library's own work, where it can be timed apart.
  SCIP: the C calls that create its variables and rows (made in compiled loops, no Python
  between them: SCIP's own work) and its freeing of the solved problem (`_scip_c`). CP-SAT:
  the worker turning the arrays into OR-Tools' linear model (`_cpsat_worker.linear_model`:
  the rows by scipy's routine, then OR-Tools filling its model in one call; timed here in a
  separate process, since OR-Tools and highspy cannot share one); the rest of its hand-over
  is the round trip to the worker;
- ``framework``: hand-over less library (SCIP: the median of the differences, session by
  session; CP-SAT: the difference of the medians).

Run:  python benchmarks/handover_floor.py [--solvers scip,cpsat] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyomo_puzzles.core import run, solvers  # noqa: E402
from pyomo_puzzles.core.records import RunSettings  # noqa: E402

SCRAMBLES = ("rubik/cube3_htm_depth_12_1", "rubik/cube3_htm_depth_12_2")
SETTINGS = RunSettings(time_limit=120, threads=1)


def forms_solved_by_highs() -> list:
    """The matrices of the models HiGHS is handed on the scrambles (parts of over 1,000 columns)."""
    highs = type(solvers.adapter("highs"))
    session, got = highs.matrix_session, []

    def keep(self, form, settings, persistent=False):
        got.append(form)
        return session(self, form, settings, persistent)

    highs.matrix_session = keep
    try:
        for name in SCRAMBLES:
            run.run(name, None, "highs", 120, 1, isolate=False)
    finally:
        highs.matrix_session = session
    return [form for form in got if len(form.columns) > 1000]


def scip_library_time(rounds: int, forms: list) -> tuple[list, list]:
    """(hand-over, SCIP's own creation and freeing) per session, seconds."""
    from pyomo_puzzles.solvers import _scip_c

    spent: list = []
    made, freed = _scip_c.Problem._add_variables, _scip_c.give_back
    rows = _scip_c.Problem._add_rows

    def timed(function):
        def call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[-1] += time.perf_counter() - started
        return call

    _scip_c.Problem._add_variables, _scip_c.Problem._add_rows = timed(made), timed(rows)
    _scip_c.give_back = timed(freed)
    try:
        handover = sessions("scip", rounds, forms, before=lambda: spent.append(0.0))
    finally:
        _scip_c.Problem._add_variables, _scip_c.Problem._add_rows, _scip_c.give_back = made, rows, freed
    return handover, spent


BETWEEN_SECONDS = 0.02
"""The pause between two sessions: about what a staged run spends building its next model
(17 to 30 ms on these parts). Back to back, a solver's work after its answer (the CP-SAT
worker freeing the solved model, 1 ms) would land in the next session's hand-over."""


def sessions(solver: str, rounds: int, forms: list, before=lambda: None) -> list:
    found = solvers.adapter(solver)
    times = []
    for _ in range(rounds):
        for form in forms:
            time.sleep(BETWEEN_SECONDS)
            before()
            started = time.perf_counter()
            session = found.matrix_session(form, SETTINGS)
            outcome = session.solve()
            del session
            times.append(time.perf_counter() - started - (outcome.solver_time or 0.0))
    return times


FILL = """
import pickle, statistics, sys, time
import numpy as np
from pyomo_puzzles.solvers import _cpsat_worker
arrays, rounds = pickle.load(open(sys.argv[1], "rb")), int(sys.argv[2])
times = []
for _ in range(rounds):
    for one in arrays:
        one = {k: np.asarray(v) for k, v in one.items()}
        started = time.perf_counter()
        _cpsat_worker.linear_model(one)
        times.append(time.perf_counter() - started)
print(" ".join(map(str, times)))
"""


def cpsat_fill_time(rounds: int, forms: list) -> list:
    from pyomo_puzzles.solvers.cpsat import _matrix_arrays

    arrays = [dict(_matrix_arrays(form), cost=form.cost, integer=form.integer) for form in forms]
    with tempfile.NamedTemporaryFile(suffix=".pkl") as handle:
        pickle.dump(arrays, handle)
        handle.flush()
        done = subprocess.run([sys.executable, "-c", FILL, handle.name, str(rounds)], capture_output=True, text=True,
                              check=True, env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])))
    return [float(v) for v in done.stdout.split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", default="scip,cpsat", help="comma-separated (default: the two whose hand-over is above 2 ms)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    forms = forms_solved_by_highs()
    sizes = sorted(len(form.columns) for form in forms)
    print(f"# command: python benchmarks/handover_floor.py {' '.join(sys.argv[1:])}")
    print(f"# {len(forms)} models ({sizes[0]:,} to {sizes[-1]:,} columns) of {', '.join(SCRAMBLES)}; "
          f"{args.rounds} rounds, in this process; medians in ms per model")
    print(f"{'solver':8s} {'hand-over':>10s} {'library':>10s} {'framework':>10s}  library: what")
    for solver in args.solvers.split(","):
        if not solvers.availability(solver)[0]:
            print(f"{solver:8s} not available")
            continue
        solvers.start_up(solver)
        if solver == "scip":
            handover, library = scip_library_time(args.rounds, forms)
            what = "SCIP creating variables and rows, freeing the solved problem"
        elif solver == "cpsat":
            handover, library = sessions(solver, args.rounds, forms), cpsat_fill_time(args.rounds, forms)
            what = "the worker making OR-Tools' linear model of the arrays"
        else:
            handover, library, what = sessions(solver, args.rounds, forms), None, "not timed apart"
        h = 1000 * statistics.median(handover)
        if library is None:
            print(f"{solver:8s} {h:10.2f} {'-':>10s} {'-':>10s}  {what}")
            continue
        lib = 1000 * statistics.median(library)
        # paired by session where both were timed in the same one (SCIP), else medians apart
        rest = 1000 * (statistics.median(a - b for a, b in zip(handover, library)) if solver == "scip" else
                       statistics.median(handover) - statistics.median(library))
        print(f"{solver:8s} {h:10.2f} {lib:10.2f} {rest:10.2f}  {what}")


if __name__ == "__main__":
    main()
