"""Solve MPS files with OR-Tools CP-SAT, in a process of its own.

OR-Tools and highspy bundle incompatible native libraries, so the framework never imports
OR-Tools itself: the `cpsat` adapter writes the Pyomo model as MPS and hands it to a
worker process started as ``python -m pyomo_puzzles.solvers._cpsat_worker``. The worker
imports OR-Tools, writes ``ready`` on its standard output, then answers one request per line
on its standard input (JSON: id, mps, time_limit, threads, seed, gap) with one line on its
standard output, ``<id> <answer>`` or ``<id> error: <reason>``, and stops when its input
closes. Importing OR-Tools takes most of a second, so one worker serves all the models of a
process (a staged run solves up to a hundred) and, started by a batch process before it
forks its runs, all the runs of the batch (`cpsat._Worker`).

The answer, in JSON: status, objective, bound, solve seconds and the value of every
variable by its MPS name.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time


def solve(mps: str, time_limit: float | None = None, threads: int = 1,
          seed: int | None = None, gap: float | None = None) -> dict:
    """Solve the MPS file: the answer."""
    from ortools.linear_solver.python import model_builder  # OR-Tools: only ever in the worker process

    model = model_builder.Model()
    if not model.import_from_mps_file(mps):
        raise ValueError(f"CP-SAT: cannot read {mps}")
    solver = model_builder.Solver("sat")
    if time_limit:
        solver.set_time_limit_in_seconds(time_limit)
    parameters = [f"num_workers: {max(1, threads)}"]
    if seed is not None:
        parameters.append(f"random_seed: {int(seed)}")
    if gap is not None:
        parameters.append(f"relative_gap_limit: {float(gap)}")
    solver.set_solver_specific_parameters(" ".join(parameters))
    started = time.perf_counter()
    status = solver.solve(model)
    seconds = time.perf_counter() - started
    names = {
        model_builder.SolveStatus.OPTIMAL: "optimal",
        model_builder.SolveStatus.FEASIBLE: "feasible",
        model_builder.SolveStatus.INFEASIBLE: "infeasible",
    }
    found = status in (model_builder.SolveStatus.OPTIMAL, model_builder.SolveStatus.FEASIBLE)
    return {
        "status": names.get(status, str(status.name).lower()),
        "objective": solver.objective_value if found else None,
        "bound": solver.best_objective_bound if found else None,
        "seconds": seconds,
        "values": {v.name: solver.value(v) for v in model.get_variables()} if found else {},
    }


def _memory_returner():
    """glibc's ``malloc_trim``, or nothing where the C library has none."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return lambda pad: 0


def serve() -> None:
    """Say ``ready`` once OR-Tools is imported, then answer requests, one JSON line each on
    standard input, until it closes."""
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever the solver prints goes to standard error, not into the replies
    from ortools.linear_solver.python import model_builder  # noqa: F401 - OR-Tools: before the first request, not in its time

    trim = _memory_returner()
    replies.write("ready\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        asked = request.get("id", "")
        try:
            reply = json.dumps(solve(request["mps"], request.get("time_limit"), request.get("threads", 1),
                                     request.get("seed"), request.get("gap")))
        except Exception as error:  # report and go on: the next model may be fine
            reply = f"error: {type(error).__name__}: {error}".splitlines()[0]
        replies.write(f"{asked} {reply}\n")
        replies.flush()
        # The memory the model took back to the system: a worker that serves a batch's runs
        # would otherwise keep tens of MiB of a large model, and each later run's memory
        # (its peak, its limit) would count them.
        trim(0)


if __name__ == "__main__":
    serve()
