"""Soak: thousands of solves per adapter in one process, and what they leave behind (issue 57).

Each solver solves one small model many times in this one process, without isolation, as
the API's `solve_model` or a count would: one-off sessions (each a session of its own: the
native problem or model made and released every time) and a persistent session (one native
model taking a no-good row and a bound change before each solve, as enumeration does). Printed
per solver and mode: the resident memory of this process (and of the solver's helper
processes: CP-SAT's worker) after a warm-up of 50 solves and after all of them, their
difference, and the median seconds per solve. A binding that leaks a problem, a model, an
environment or a callback per solve grows by its size times the solves; the goal is flat
within a few MB.

The model: a weighted set packing of 40 binaries and 30 rows (seeded), which every adapter
solves in milliseconds. In the persistent mode the rows added accumulate (a cut per solve
that bars the previous optimum, dropped and the model made anew every 100 solves so that it
stays solvable): what grows there by design is the model, not a leak, and the warm-up runs one
whole such cycle (SCIP's block memory grows to its largest problem and stays there: +52 MiB
over 2,000 solves measured after 50, +1.4 over 1,600 after 400, with two SCIP instances alive
throughout).

Per solve: the whole solve's median milliseconds, and the median of the solver's own clock
(the record's ``solver_time``: the library call for CBC and GLPK). Memory is read after the warm-up and after each quarter of the solves: a leak grows at every
reading, a library's pool grows to its high-water mark and stops.

Run:  python benchmarks/soak.py [--solves 2000] [--solvers highs,cbc,...]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pyomo.environ as pyo  # noqa: E402

from pyomo_puzzles.core import solvers  # noqa: E402
from pyomo_puzzles.core.processes import rss_mb  # noqa: E402

SOLVERS = ("highs", "cbc", "glpk", "scip", "gurobi", "cplex", "cpsat")
WARM_UP = 100
"""Solves before the first reading: a persistent session's whole cycle (`REFRESH`), so that the
largest model of the mode, and the libraries' own memory pools grown to it, are in it."""
REFRESH = 100


def packing(seed: int = 1) -> pyo.ConcreteModel:
    """Maximise the weight of chosen sets, each of 30 elements covered at most once."""
    draw = random.Random(seed)
    sets = [draw.sample(range(30), 3) for _ in range(40)]
    model = pyo.ConcreteModel()
    model.x = pyo.Var(range(40), domain=pyo.Binary)
    model.once = pyo.Constraint(range(30), rule=lambda m, e: sum(m.x[i] for i, s in enumerate(sets) if e in s) <= 1)
    model.cuts = pyo.ConstraintList()
    model.weight = pyo.Objective(expr=sum(draw.randint(1, 9) * model.x[i] for i in range(40)), sense=pyo.maximize)
    return model


def resident(name: str) -> float:
    """MiB resident in this process and the solver's helper processes."""
    return rss_mb((os.getpid(), *solvers.helpers(name)))


def one_off(name: str, solves: int) -> list[tuple[float, float]]:
    model, seconds = packing(), []
    for _ in range(solves):
        started = time.perf_counter()
        outcome = solvers.SolverSession(name, model, time_limit=30, threads=1).solve()
        seconds.append((time.perf_counter() - started, outcome.solver_time or 0.0))
        assert outcome.status == "optimal", outcome.message
    return seconds


def persistent(name: str, solves: int) -> list[tuple[float, float]]:
    seconds: list[tuple[float, float]] = []
    model = session = None
    for k in range(solves):
        if k % REFRESH == 0:  # a fresh model and session: the cuts would otherwise make it infeasible
            model = packing()
            session = solvers.SolverSession(name, model, time_limit=30, threads=1, persistent=True)
        column = k % 40
        model.x[column].setub(0 if k % 2 else 1)  # a bound changed between solves
        started = time.perf_counter()
        outcome = session.solve()
        seconds.append((time.perf_counter() - started, outcome.solver_time or 0.0))
        assert outcome.status in ("optimal", "infeasible"), outcome.message
        if outcome.status == "optimal":
            chosen = [i for i in range(40) if (model.x[i].value or 0) > 0.5]
            model.cuts.add(sum(model.x[i] for i in chosen) <= len(chosen) - 1)  # a no-good row
        model.x[column].setub(1)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solves", type=int, default=2000, help="solves per solver and mode (default 2000)")
    parser.add_argument("--solvers", default=",".join(SOLVERS))
    args = parser.parse_args()
    print(f"# command: python benchmarks/soak.py {' '.join(sys.argv[1:])}")
    print(f"# one process, no isolation; {args.solves} solves per solver and mode after {WARM_UP} to warm up "
          f"(a persistent session made anew every {REFRESH} solves); "
          "resident MiB of this process and the solver's helpers")
    print(f"{'solver':8s} {'mode':10s} {'MiB after warm-up':>17s} {'at 1/4':>7s} {'at 1/2':>7s} {'at 3/4':>7s} "
          f"{'MiB after':>10s} {'growth':>8s} {'ms / solve':>10s} {'solver ms':>9s}")
    for name in args.solvers.split(","):
        ok, detail = solvers.availability(name)
        if not ok:
            print(f"{name:8s} not available: {detail}")
            continue
        solvers.start_up(name)
        for mode, soak in (("one-off", one_off), ("persistent", persistent)):
            soak(name, WARM_UP)
            before, readings, seconds = resident(name), [], []
            for quarter in range(4):  # a leak grows at every reading; a pool's high-water mark stops
                seconds += soak(name, args.solves * (quarter + 1) // 4 - args.solves * quarter // 4)
                readings.append(resident(name))
            print(f"{name:8s} {mode:10s} {before:17.1f} {readings[0]:7.1f} {readings[1]:7.1f} {readings[2]:7.1f} "
                  f"{readings[3]:10.1f} {readings[3] - before:+8.1f} "
                  f"{1000 * statistics.median(s for s, _ in seconds):10.2f} "
                  f"{1000 * statistics.median(s for _, s in seconds):9.2f}", flush=True)


if __name__ == "__main__":
    main()
