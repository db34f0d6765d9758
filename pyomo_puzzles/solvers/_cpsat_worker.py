"""The CP-SAT worker: ``python -m pyomo_puzzles.solvers._cpsat_worker`` imports OR-Tools,
writes ``ready``, then answers requests (a JSON line, the arrays it frames as raw bytes after
it) with a line ``<id> <answer>`` (a solve's column values after it as float64 bytes) or
``<id> error: <reason>``, until its input closes. ``solve`` fills OR-Tools' linear model from
the arrays and solves it with CP-SAT; ``enumerate`` sends each solution as a line
``<id>+ <nonzero columns>``, and SIGUSR1 stops it. The protocol in full: docs/solver_bindings.md.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time

import numpy as np


STATUSES = {"OPTIMAL": "optimal", "FEASIBLE": "feasible", "INFEASIBLE": "infeasible"}

SPENT: list = []  # the last solve's model and solver, freed once its answer is written


def read_frame(stream, frame: list) -> dict:
    """The arrays a request's ``frame`` lists, read in one go into one buffer, each a view of it."""
    kinds = [(name, np.dtype(dtype), int(length)) for name, dtype, length in frame]
    data = np.empty(sum(kind.itemsize * length for _, kind, length in kinds), dtype=np.uint8)
    if stream.readinto(data) != len(data):
        raise EOFError("the request's arrays ended early")
    arrays, start = {}, 0
    for name, kind, length in kinds:
        end = start + kind.itemsize * length
        arrays[name] = data[start:end].view(kind)
        start = end
    return arrays


def matrix(arrays: dict):
    """The constraint matrix by rows (scipy's) with the cuts after; arrays that do not fit
    together are refused (ValueError) before any native code reads past them."""
    import scipy.sparse as sp  # imported at start (`serve`)

    rows, columns = len(arrays["row_lower"]), len(arrays["col_lower"])
    cuts = len(arrays.get("cut_lower", ()))
    for name, length in (("row_upper", rows), ("col_upper", columns), ("cost", columns), ("integer", columns),
                         ("cut_upper", cuts)):
        if len(arrays.get(name, ())) != length:
            raise ValueError(f"{name} has {len(arrays.get(name, ()))} entries, not {length}")
    try:
        parts = [sp.csc_matrix((arrays["value"], arrays["index"], arrays["start"]), shape=(rows, columns))]
        if cuts:
            parts.append(sp.csr_matrix((arrays["cut_value"], arrays["cut_index"], arrays["cut_start"]),
                                       shape=(cuts, columns)))
        for part in parts:
            part.check_format(full_check=True)  # indices in range, starts that do not decrease
    except ValueError as error:
        raise ValueError(f"the matrix's arrays do not fit together ({error})") from None
    return sp.vstack(parts, format="csr") if cuts else parts[0].tocsr()


def linear_model(arrays: dict, offset: float = 0.0, maximise: bool = False):
    """OR-Tools' linear model (model_builder's) of the arrays."""
    from ortools.linear_solver.python import model_builder_helper  # OR-Tools: only ever in the worker process

    lower, upper = arrays["row_lower"], arrays["row_upper"]
    if "cut_lower" in arrays:
        lower, upper = np.concatenate([lower, arrays["cut_lower"]]), np.concatenate([upper, arrays["cut_upper"]])
    model = model_builder_helper.ModelBuilderHelper()
    model.fill_model_from_sparse_data(arrays["col_lower"], arrays["col_upper"], arrays["cost"], lower, upper,
                                      matrix(arrays))
    for column in np.flatnonzero(arrays["integer"]).tolist():
        model.set_var_integrality(column, True)
    model.set_objective_offset(float(offset))
    model.set_maximize(bool(maximise))
    return model


def solve(arrays: dict, offset: float = 0.0, maximise: bool = False, parameters: dict | None = None) -> dict:
    """Solve the arrays' integer program with CP-SAT's `parameters` (its own names): the answer."""
    from ortools.linear_solver.python import model_builder_helper  # see linear_model

    model = linear_model(arrays, offset, maximise)
    solver = model_builder_helper.ModelSolverHelper("sat")
    solver.set_solver_specific_parameters(" ".join(f"{name}: {value}" for name, value in (parameters or {}).items()))
    started = time.perf_counter()
    solver.solve(model)
    seconds = time.perf_counter() - started
    status = model_builder_helper.SolveStatus(solver.status())
    found = status in (model_builder_helper.SolveStatus.OPTIMAL, model_builder_helper.SolveStatus.FEASIBLE)
    values = np.ascontiguousarray(solver.variable_values(), dtype="<f8") if found else np.zeros(0)
    SPENT.extend((model, solver))
    return {
        "status": STATUSES.get(status.name, status.name.lower()),
        "objective": solver.objective_value() if found else None,
        "bound": solver.best_objective_bound() if found else None,
        "seconds": seconds,
        "values": values,
    }


STOP = {"asked": False}  # set by SIGUSR1: the asker of an enumeration wants no more solutions
ENUMERATION_PARAMETERS: dict = {}  # CP-SAT's beyond its defaults for all solutions (see benchmarks/counting.py)


def _bound(value: float, cp_model) -> int:
    return cp_model.INT_MAX if value == float("inf") else cp_model.INT_MIN if value == -float("inf") else round(value)


def _add_row(model, cp_model, terms: list, lo: float, hi: float) -> bool:
    """A row as CP-SAT's exactly-one or at-most-one of binaries where it is one (True), else linear."""
    ones = all(c == 1 and is_binary for c, _, is_binary in terms)
    if ones and lo == 1 and hi == 1:
        model.add_exactly_one([x for _, x, _ in terms])
    elif ones and lo <= 0 and hi == 1:
        model.add_at_most_one([x for _, x, _ in terms])
    else:
        model.add_linear_constraint(sum(c * x for c, x, _ in terms), _bound(lo, cp_model), _bound(hi, cp_model))
        return False
    return True


def enumerate_all(problem: dict, emit, parameters: dict | None = None) -> dict:
    """Every feasible point of the integer program `problem` (a `LinearForm`'s arrays), the
    objective ignored, by CP-SAT's search for all solutions, one search worker; an exact cover
    searched as dancing links searches it. Each point goes to ``emit`` as its nonzero columns
    ``[[column, value], ...]``. The answer: status (``complete``, ``stopped``, ``time_limit``),
    points, seconds."""
    from ortools.sat.python import cp_model  # OR-Tools: only ever in the worker process

    STOP["asked"] = False
    problem = {name: array.tolist() for name, array in problem.items()}
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
    if all(binary) and all(clauses):  # an exact cover: branch as dancing links does
        first_row = [min(index[start[j]:start[j + 1]], default=len(rows)) for j in range(len(columns))]
        order = sorted(range(len(columns)), key=lambda j: first_row[j])
        model.add_decision_strategy([columns[j] for j in order], cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
    for name, value in {**(parameters or {}), **ENUMERATION_PARAMETERS}.items():
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


KEPT_MEMORY = 8 * 2**20
"""Resident memory beyond what the worker held when ready that it may keep after an answer;
past it, it gives memory back (docs/solver_bindings.md: why 8 MiB)."""


def _memory_returner():
    """glibc's ``malloc_trim``, or nothing where the C library has none."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return lambda pad: 0


def _resident_bytes() -> int:
    """This process's resident memory (0 where there is no /proc to ask: always give back)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def serve() -> None:
    """Say ``ready`` once OR-Tools is imported, then answer requests until standard input closes."""
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the solver prints goes to standard error, not into the replies
    import scipy.sparse  # noqa: F401 - the matrix's form for OR-Tools: before the first request, not in its time

    from ortools.linear_solver.python import model_builder_helper  # noqa: F401 - OR-Tools: likewise

    trim, ready = _memory_returner(), _resident_bytes()
    signal.signal(signal.SIGUSR1, lambda signum, frame: STOP.update(asked=True))
    replies.write(b"ready\n")
    replies.flush()
    while line := requests.readline():
        request = json.loads(line)
        asked = request.get("id", "")
        try:
            reply, values = framed_reply(answer(request, read_frame(requests, request.get("frame", [])), replies))
        except EOFError:  # the asker died while sending: nobody waits for an answer
            break
        except Exception as error:  # report and go on: the next model may be fine
            reply, values = f"error: {type(error).__name__}: {error}".splitlines()[0], b""
        replies.write(f"{asked} {reply}\n".encode() + values)  # one write: the asker wakes once
        replies.flush()
        SPENT.clear()
        if _resident_bytes() > ready + KEPT_MEMORY or not ready:
            trim(0)


def framed_reply(answered: dict) -> tuple[str, bytes]:
    """The answer's line, the column values' number in their place, and their raw bytes."""
    if "values" not in answered:
        return json.dumps(answered), b""
    values = np.ascontiguousarray(answered["values"], dtype="<f8")
    return json.dumps(dict(answered, values=len(values))), values.tobytes()


def answer(request: dict, arrays: dict, replies) -> dict:
    """The answer to one request: a solve, or an enumeration writing its points to `replies`."""
    asked = request.get("id", "")
    if "enumerate" in request:
        def emit(point, asked=asked):
            replies.write(f"{asked}+ {json.dumps(point, separators=(',', ':'))}\n".encode())
            replies.flush()

        return enumerate_all(arrays, emit, request.get("parameters"))
    asked_for = request["solve"]
    return solve(arrays, asked_for.get("offset", 0.0), asked_for.get("maximise", False), request.get("parameters"))


if __name__ == "__main__":
    serve()
