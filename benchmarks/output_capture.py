"""Does any solver stall on the pipe its output is captured on? Every installed adapter, one-off
and persistent (as `count` uses it), on a long run that fills a pipe.

Pyomo captures a solver's output on a pipe that a Python thread drains; an in-process solver
that holds the GIL while it writes (SCIP through PySCIPOpt, before its log was switched off)
blocks once the pipe is full, until the run's hard kill. Here every pipe the solving process
opens holds one page (4 KB instead of 64 KB), so a run of seconds shows what a run of minutes
would. The model is a market split instance (`tests/test_solver_contract.py`): tiny (under
every size-limited licence) and hard, so every solver runs to its time limit.

The last row is the control: SCIP with its log on, as before the fix, which must stall.
For each solver and mode: the status, the solver's own time, the wall time of the solve, and
wall / limit. A solver that stalls is killed at the limit + 30 s and shown as "stalled".

    .venv/bin/python benchmarks/output_capture.py [--time-limit 15] [--rows 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

F_SETPIPE_SZ = 1031  # Linux fcntl.F_SETPIPE_SZ
KILL_AFTER = 30.0


def _one_page_pipes() -> None:
    import fcntl

    real_pipe = os.pipe

    def one_page_pipe():
        read, write = real_pipe()
        fcntl.fcntl(write, F_SETPIPE_SZ, 4096)
        return read, write

    os.pipe = one_page_pipe


def _solve(conn, solver: str, persistent: bool, limit: float, rows: int, log_on: bool = False) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_solver_contract import market_split

    from pyomo_puzzles.core import solvers

    if log_on:  # as before the fix: SCIP's own log, captured by Pyomo
        from pyomo_puzzles.solvers import scip

        scip.QUIET = {}
    _one_page_pipes()
    session = solvers.SolverSession(solver, market_split(rows), time_limit=limit, persistent=persistent)
    started = time.perf_counter()
    outcome = session.solve()
    conn.send({"status": outcome.status, "solver": outcome.solver_time, "wall": time.perf_counter() - started})


def measure(solver: str, persistent: bool, limit: float, rows: int, log_on: bool = False) -> dict:
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_solve, args=(sender, solver, persistent, limit, rows, log_on))
    started = time.perf_counter()
    child.start()
    sender.close()
    if receiver.poll(limit + KILL_AFTER):
        try:
            result = receiver.recv()
        except EOFError:
            result = {"status": f"crashed ({child.exitcode})", "solver": None, "wall": time.perf_counter() - started}
    else:
        os.kill(child.pid, 9)
        result = {"status": "stalled (killed)", "solver": None, "wall": time.perf_counter() - started}
    child.join()
    return result


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--time-limit", type=float, default=15.0)
    options.add_argument("--rows", type=int, default=5, help="market split rows (10 (rows - 1) binaries)")
    args = options.parse_args()
    from pyomo_puzzles.core import solvers

    print(f"market split, {args.rows} rows; time limit {args.time_limit:g} s; pipes of 4 KB")
    print(f"{'solver':8} {'mode':11} {'status':18} {'solver s':>9} {'wall s':>8} {'wall / limit':>13}")
    for solver in solvers.names():
        ok, why = solvers.availability(solver)
        if not ok:
            print(f"{solver:8} skipped: {why}")
            continue
        for persistent in (False, True):
            row = measure(solver, persistent, args.time_limit, args.rows)
            own = "-" if row["solver"] is None else f"{row['solver']:.1f}"
            print(f"{solver:8} {'persistent' if persistent else 'one-off':11} {row['status']:18} {own:>9} "
                  f"{row['wall']:8.1f} {row['wall'] / args.time_limit:13.2f}", flush=True)
    if solvers.availability("scip")[0]:  # the control: the trap this looks for, as it was
        row = measure("scip", False, args.time_limit, args.rows, log_on=True)
        print(f"{'scip':8} {'log on':11} {row['status']:18} {'-':>9} {row['wall']:8.1f} "
              f"{row['wall'] / args.time_limit:13.2f}   (SCIP's log captured, as before the fix)", flush=True)


if __name__ == "__main__":
    main()
