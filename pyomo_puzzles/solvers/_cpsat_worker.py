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

A request with ``enumerate`` (a model's arrays, `enumerate_all`) asks for every solution:
each one is a line ``<id>+ <nonzero columns>`` as CP-SAT finds it, then the answer line. A
SIGUSR1 asks the worker to stop such a search at its next solution.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
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


STOP = {"asked": False}
"""Set by SIGUSR1: the asker of an enumeration wants no more solutions."""


ENUMERATION_PARAMETERS: dict = {}
"""CP-SAT parameters of the search for all solutions beyond its defaults (see benchmarks/counting.py)."""


def _bound(value: float, cp_model) -> int:
    if value == float("inf"):
        return cp_model.INT_MAX
    if value == -float("inf"):
        return cp_model.INT_MIN
    return int(round(value))


def _add_row(model, cp_model, terms: list, lo: float, hi: float) -> bool:
    """A row as CP-SAT's own constraint where it is one (a sum of binaries equal to one:
    exactly one; at most one), which it propagates as clauses (True); else a linear constraint."""
    ones = all(c == 1 and is_binary for c, _, is_binary in terms)
    if ones and lo == 1 and hi == 1:
        model.add_exactly_one([x for _, x, _ in terms])
    elif ones and lo <= 0 and hi == 1:
        model.add_at_most_one([x for _, x, _ in terms])
    else:
        model.add_linear_constraint(sum(c * x for c, x, _ in terms), _bound(lo, cp_model), _bound(hi, cp_model))
        return False
    return True


def enumerate_all(problem: dict, emit, time_limit: float | None = None, seed: int | None = None,
                  parameters: dict | None = None) -> dict:
    """Every feasible point of the integer program `problem` (a `LinearForm`'s arrays: start,
    index, value, row_lower, row_upper, col_lower, col_upper), the objective ignored, by
    CP-SAT's search for all solutions (one search worker, as that search needs). An exact
    cover (binary columns, every row a sum equal to one, or at most one) is searched as
    dancing links searches it: a fixed search that takes the columns by the first row they
    cover and tries each at one first (the first item still to cover, each of its options;
    4x15 pentominoes up to symmetry: 1.7 s, against 8.4 s by CP-SAT's default search). Each point
    goes to ``emit`` as its nonzero columns ``[[column, value], ...]`` as it is found. The
    answer: status (``complete``, ``stopped``, ``time_limit``), points, seconds."""
    from ortools.sat.python import cp_model  # OR-Tools: only ever in the worker process

    STOP["asked"] = False
    coefficients = problem["value"]
    if any(c != int(c) for c in coefficients) or any(
            v not in (float("inf"), -float("inf")) and v != int(v)
            for v in problem["row_lower"] + problem["row_upper"]):
        raise ValueError("CP-SAT enumerates models with integer coefficients and bounds only")
    model = cp_model.CpModel()
    binary = [lo >= 0 and hi <= 1 for lo, hi in zip(problem["col_lower"], problem["col_upper"])]
    columns = [model.new_bool_var(f"x{j}") if binary[j] else
               model.new_int_var(_bound(lo, cp_model), _bound(hi, cp_model), f"x{j}")
               for j, (lo, hi) in enumerate(zip(problem["col_lower"], problem["col_upper"]))]
    for j, (lo, hi) in enumerate(zip(problem["col_lower"], problem["col_upper"])):
        if binary[j] and lo == hi:  # a binary column fixed by its bounds
            model.add(columns[j] == int(lo))
    rows: list[list] = [[] for _ in problem["row_lower"]]
    start, index = problem["start"], problem["index"]
    for j in range(len(columns)):
        for k in range(start[j], start[j + 1]):
            rows[index[k]].append((int(coefficients[k]), j))
    clauses = [_add_row(model, cp_model, [(c, columns[j], binary[j]) for c, j in terms], lo, hi)
               for terms, lo, hi in zip(rows, problem["row_lower"], problem["row_upper"])]
    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    if time_limit:
        solver.parameters.max_time_in_seconds = time_limit
    if seed is not None:
        solver.parameters.random_seed = int(seed)
    if all(binary) and all(clauses):  # an exact cover: branch as dancing links does
        first_row = [min(index[start[j]:start[j + 1]], default=len(rows)) for j in range(len(columns))]
        order = sorted(range(len(columns)), key=lambda j: first_row[j])
        model.add_decision_strategy([columns[j] for j in order], cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
    for name, value in (parameters or ENUMERATION_PARAMETERS).items():
        setattr(solver.parameters, name, value)

    class Emitter(cp_model.CpSolverSolutionCallback):
        points = 0

        def on_solution_callback(self) -> None:
            values = self.response_proto.solution
            emit([[j, v] for j, v in enumerate(values) if v])
            Emitter.points += 1
            if STOP["asked"]:
                self.stop_search()

    started = time.perf_counter()
    status = solver.solve(model, Emitter())
    seconds = time.perf_counter() - started
    if STOP["asked"]:
        state = "stopped"
    elif status in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        state = "complete"  # enumerating, OPTIMAL means that every solution was found
    elif status in (cp_model.FEASIBLE, cp_model.UNKNOWN):
        state = "time_limit"
    else:
        state = f"error: CP-SAT stopped with {solver.status_name(status)}"
    return {"status": state, "points": Emitter.points, "seconds": seconds}


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
    signal.signal(signal.SIGUSR1, lambda signum, frame: STOP.update(asked=True))
    replies.write("ready\n")
    replies.flush()
    for line in sys.stdin:
        request = json.loads(line)
        asked = request.get("id", "")
        try:
            if "enumerate" in request:
                def emit(point, asked=asked):
                    replies.write(f"{asked}+ {json.dumps(point, separators=(',', ':'))}\n")
                    replies.flush()

                reply = json.dumps(enumerate_all(request["enumerate"], emit, request.get("time_limit"),
                                                 request.get("seed")))
            else:
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
