"""OR-Tools CP-SAT on the same integer program, a peer that is not a MIP solver. OR-Tools
and highspy cannot share a process, so the matrix goes as raw arrays to a worker process
(`_cpsat_worker`) that a batch starts before it forks its runs, and each run borrows. How the
worker is shared, and why: docs/solver_bindings.md.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable

import numpy as np

from pyomo_puzzles.contract.solvers import (Adapter, LinearForm, Native, Options, RunSettings, SolveOutcome, finite,
                                            missing_package, register_solver, running)

_PIPE_BYTES = 1 << 20  # the worker's input pipe: a model's arrays in one write
_NOTHING_ASKED, _ASKED = b"0", b"1"  # the worker's state file: a request under way or not


class _Busy(Exception):
    """The worker cannot answer now: another process is using it, or its last asker died."""


class _Worker:
    """The CP-SAT worker of this process, or the one a forked run borrows from its parent (who
    may use it, and how a dead asker is told from a busy one: docs/solver_bindings.md)."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._owner: int | None = None
        self._errors = None
        self._state = None
        self._asked = itertools.count(1)
        self._guard = threading.Lock()  # the threads of one process, one request at a time
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        self._guard = threading.Lock()  # a thread of the parent may have held it

    def start(self) -> None:
        """Have a worker of this process running, OR-Tools imported (`Cpsat.warm_up`)."""
        with self._guard:
            if not self._running_here():
                self._start()

    def pids(self) -> tuple[int, ...]:
        """The worker this process started, while it runs."""
        return (self._process.pid,) if self._running_here() else ()

    def solve(self, request: dict, arrays: dict | None = None,
              on_point: Callable[[str], bool] | None = None) -> tuple[dict | None, str | None]:
        """Send one request with its `arrays`: (the answer, None) or (None, why there is none). An
        enumeration's points go to `on_point` until it returns False (the worker is then stopped)."""
        line, payload = _framed(request, arrays or {})
        with self._guard:
            if not self._usable():
                self._start()
            try:
                return self._ask(line, payload, on_point)
            except _Busy:
                self._start()
                return self._ask(line, payload, on_point)

    def _running_here(self) -> bool:
        return self._process is not None and self._owner == os.getpid() and self._process.poll() is None

    def _usable(self) -> bool:
        if self._process is None:
            return False
        if self._owner == os.getpid():
            return self._process.poll() is None
        # a run forked by the owner into a process group of its own (`core.isolation`, which
        # kills the worker with a run it kills), not any other child
        return self._owner == os.getppid() and os.getpgrp() == os.getpid() and running(self._process.pid)

    def _ask(self, request: dict, payload: list,
             on_point: Callable[[str], bool] | None = None) -> tuple[dict | None, str | None]:
        process, state, mine = self._process, self._state.fileno(), self._owner == os.getpid()
        try:  # the owner waits for a run that uses its worker; a run does not wait
            fcntl.lockf(state, fcntl.LOCK_EX if mine else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise _Busy from None
        try:
            if os.pread(state, 1, 0) == _ASKED:
                self._kill()
                raise _Busy
            os.pwrite(state, _ASKED, 0)
            asker = f"{os.getpid()}.{next(self._asked)}"
            try:
                reply = self._exchange(process, dict(request, id=asker), payload, asker, on_point)
            except BaseException:  # interrupted: the answer would find nobody, or the wrong reader
                self._kill()
                raise
            if reply is not None:
                os.pwrite(state, _NOTHING_ASKED, 0)
        finally:
            fcntl.lockf(state, fcntl.LOCK_UN)
        if isinstance(reply, dict):
            return reply, None
        if reply:
            return None, reply.removeprefix("error: ")
        if not mine:
            return None, f"the worker died: {self._last_error_line()}"
        process.wait()
        self._process = None
        return None, f"the worker died (exit code {process.returncode}): {self._last_error_line()}"

    @staticmethod
    def _exchange(process: subprocess.Popen, request: dict, payload: list, asker: str,
                  on_point: Callable[[str], bool] | None = None) -> dict | str | None:
        """Write the request and its arrays, read its answer (None if the worker died first)."""
        point, wanted = f"{asker}+", on_point is not None
        try:
            _write_all(process.stdin.fileno(), [json.dumps(request).encode() + b"\n", *payload])
            while line := process.stdout.readline():
                answered, _, reply = line.decode().strip().partition(" ")
                if answered == point:
                    if wanted and not on_point(reply):
                        wanted = False
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(process.pid, signal.SIGUSR1)
                    continue
                answer = _answer(reply, process.stdout)
                if answered == asker:
                    return answer if answer is not None else reply
                # an answer to a process that died before reading it (the state file keeps
                # this from happening; should it, the answer is not taken for this one)
        except (BrokenPipeError, OSError, EOFError):
            pass
        return None

    def _start(self) -> None:
        """Start a worker owned by this process; wait until it is ready (or dead, found at its first request)."""
        self._errors = tempfile.TemporaryFile(mode="w+", prefix="pyomo-puzzles-cpsat-")
        self._state = tempfile.TemporaryFile(prefix="pyomo-puzzles-cpsat-state-")
        os.pwrite(self._state.fileno(), _NOTHING_ASKED, 0)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "pyomo_puzzles.solvers._cpsat_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._errors)
        self._owner = os.getpid()
        with contextlib.suppress(AttributeError, OSError):  # Linux: a model's arrays in one write, not in 64 KiB turns
            fcntl.fcntl(self._process.stdin.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        atexit.register(self._stop, self._process)
        with contextlib.suppress(OSError):
            self._process.stdout.readline()  # "ready"; nothing if it died

    def _kill(self) -> None:
        """Kill the worker (it is solving a model nobody waits for); the owner waits for it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self._process.pid, signal.SIGKILL)
        if self._owner == os.getpid():
            self._process.wait()
            self._process = None

    @staticmethod
    def _stop(process) -> None:
        """Close the worker's input (it then ends) and wait for it, briefly."""
        if process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=5)
            except Exception:
                process.kill()

    def _last_error_line(self) -> str:
        errors = self._errors.fileno()  # read without moving the offset the worker writes at
        lines = os.pread(errors, os.fstat(errors).st_size, 0).decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no message"


WORKER = _Worker()

_DTYPES = {"start": "<i4", "index": "<i4", "integer": "|u1", "cut_start": "<i4", "cut_index": "<i4"}  # else float64


def _framed(request: dict, arrays: dict) -> tuple[dict, list]:
    """The request naming its arrays (``frame``: name, dtype, length) and the arrays to send
    after its line, uncopied where they have the pipe's type, the wider types first."""
    typed = [(name, np.ascontiguousarray(array, dtype=_DTYPES.get(name, "<f8"))) for name, array in arrays.items()]
    typed.sort(key=lambda named: -named[1].itemsize)
    frame = [[name, array.dtype.str, len(array)] for name, array in typed]
    return (dict(request, frame=frame) if frame else request), [array for _, array in typed]


def _write_all(fd: int, chunks: list) -> None:
    """Write the chunks (bytes, arrays: a request's few) to `fd` in one system call, copying none."""
    views = [memoryview(chunk).cast("B") for chunk in chunks]
    left = sum(view.nbytes for view in views) - os.writev(fd, views)
    if left:  # a write cut short (by a signal): the rest
        rest = memoryview(b"".join(views))[-left:]
        while rest:
            rest = rest[os.write(fd, rest):]


def _answer(reply: str, stream) -> dict | None:
    """The worker's answer on a line (None: its error text), with the column values after it."""
    if not reply.startswith("{"):
        return None
    answer = json.loads(reply)
    if "values" in answer:
        data = stream.read(8 * answer["values"])
        if len(data) != 8 * answer["values"]:
            raise EOFError("the worker died while sending the values")
        answer["values"] = np.frombuffer(data, dtype="<f8")
    return answer


def _matrix_arrays(form: LinearForm) -> dict:
    """A form's arrays as the worker takes them."""
    return {"start": form.start, "index": form.index, "value": form.value,
            "row_lower": form.row_lower, "row_upper": form.row_upper,
            "col_lower": form.col_lower, "col_upper": form.col_upper}


class MatrixSession:
    """The model's matrix, sent to the worker at each solve (CP-SAT has no incremental
    interface: a persistent session keeps the new rows and bounds here)."""

    def __init__(self, form: LinearForm, settings: RunSettings) -> None:
        self.form, self.settings = form, settings
        self._arrays = dict(_matrix_arrays(form), cost=form.cost, integer=form.integer)
        self._arrays["col_lower"], self._arrays["col_upper"] = form.col_lower.copy(), form.col_upper.copy()
        self._cuts: list = []

    def add_rows(self, rows) -> None:
        self._cuts.append(rows)

    def set_bounds(self, columns, lower, upper) -> None:
        self._arrays["col_lower"][columns], self._arrays["col_upper"][columns] = lower, upper

    def solve(self) -> SolveOutcome:
        started = time.perf_counter()
        settings = self.settings
        answer, failure = WORKER.solve(
            {"solve": {"offset": self.form.offset, "maximise": bool(self.form.maximise)},
             "parameters": Cpsat.options.native(settings)},
            dict(self._arrays, **self._cut_arrays()))
        if answer is None:
            return SolveOutcome("error", False, None, None, time.perf_counter() - started, None,
                                f"CP-SAT failed: {failure}")
        return _outcome(answer, settings.time_limit)

    def _cut_arrays(self) -> dict:
        """The rows added since the form, as one compressed-row matrix."""
        if not self._cuts:
            return {}
        cuts = {f"cut_{part}": np.concatenate([getattr(rows, part) for rows in self._cuts])
                for part in ("index", "value", "lower", "upper")}
        lengths = np.concatenate([np.diff(rows.start) for rows in self._cuts])
        return dict(cuts, cut_start=np.concatenate([[0], np.cumsum(lengths)]))


STOPPED_SHORT = ("feasible", "not_solved")  # no proof, with or without a solution: only the time limit stops it


def _outcome(answer: dict, limit: float | None) -> SolveOutcome:
    """The worker's answer in the contract's words: `STOPPED_SHORT` with a time limit set is
    ``time_limit``; any other answer that is no proof is an error naming CP-SAT's word."""
    values = answer["values"]
    status = answer["status"]
    if status in STOPPED_SHORT and limit is not None:
        status = "time_limit"
    if status not in ("optimal", "feasible", "infeasible", "time_limit"):
        status = "error"
    return SolveOutcome(status, len(values) > 0, finite(answer["objective"]), finite(answer["bound"]),
                        answer["seconds"], None,
                        "" if status != "error" else f"CP-SAT stopped with {answer['status']}",
                        values=values if len(values) else None)


@register_solver
class Cpsat(Adapter):
    name = "cpsat"
    summary = "OR-Tools CP-SAT on the same model (its matrix, in a worker process of its own)"
    kind = "peer"
    rank = 10
    options = Options(  # CP-SAT's parameters, by their names in its parameter text
        time_limit=Native("max_time_in_seconds", lambda seconds: max(float(seconds), 0.0)),
        threads=Native("num_workers", lambda threads: max(int(threads), 1), unset=1),
        seed=Native("random_seed", int), gap=Native("relative_gap_limit", float), notes="no node count")

    def availability(self) -> tuple[bool, str]:
        from importlib.metadata import version  # 20 ms: only when asked whether OR-Tools is installed

        missing = missing_package("ortools", "pip install 'pyomo-puzzles[cpsat]'")
        return (False, missing) if missing else (True, f"OR-Tools CP-SAT {version('ortools')}")

    def warm_up(self) -> None:
        """Start the worker (importing OR-Tools: about 0.9 s) before a batch forks its runs, which
        borrow it, and solve a model of one variable the whole way once, off every run's clock."""
        import pyomo.environ as pyo  # Pyomo: adapters are imported by `list`

        WORKER.start()
        model = pyo.ConcreteModel()
        model.x = pyo.Var(domain=pyo.Binary)
        model.row = pyo.Constraint(expr=model.x <= 1)
        model.objective = pyo.Objective(expr=model.x, sense=pyo.maximize)
        self.session(model, RunSettings(time_limit=10, threads=1)).solve()

    enumeration = ("CP-SAT's search for all solutions (enumerate_all_solutions, one search worker; where the "
                   "model is an exact cover, a fixed first-item search as dancing links search)")

    def enumerate(self, form, settings: RunSettings, found: Callable) -> tuple[str, str]:
        """Every point of `form` by CP-SAT's search for all solutions; each goes to `found` as it is found."""
        empty = np.zeros(len(form.columns))

        def on_point(text: str) -> bool:
            values = empty.copy()
            for column, value in json.loads(text):
                values[column] = value
            return found(values)

        parameters = Cpsat.options.native(settings, "time_limit", "seed")  # one search worker: the enumeration's own
        answer, failure = WORKER.solve({"enumerate": {}, "parameters": parameters}, _matrix_arrays(form), on_point)
        if answer is None:
            return "error", f"CP-SAT failed: {failure}"
        status = answer["status"]
        return ("error", status.removeprefix("error: ")) if status.startswith("error") else (status, "")

    def helpers(self) -> tuple[int, ...]:
        return WORKER.pids()

    def matrix_session(self, form: LinearForm, settings: RunSettings, persistent: bool = False) -> MatrixSession:
        return MatrixSession(form, settings)
