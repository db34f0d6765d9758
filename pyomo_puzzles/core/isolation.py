"""A run in a forked child process of its own process group (`run_isolated`), or runs made
one after another in one such process (`run_in_turn`, a pipeline's batch): the time, memory
and Ctrl-C of each run are watched from outside, and the whole group (the solver
executables and workers it started included) is killed past a run's hard deadline, past its
memory limit, or at once on Ctrl-C; the runs after a run that took its process down get a
new one. Whatever happens, the caller gets a record of every run.

A solver's helper processes that this process started before the fork and that solve the
run's models (`Adapter.helpers`: the CP-SAT worker of a batch) are outside that group; they
count as the run's all the same: their memory is watched with the group's (the limit, the
peak), their CPU over the run is added to its ``cpu_time``, and they are killed with the
run, and whenever the run ended without a record (they may still be at its work; the
caller's next `start_up` starts them again)."""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from pyomo_puzzles.core.processes import (
    cpu_seconds_of,
    group_rss_mb,
    kill_and_wait,
    kill_group,
    own_peak_memory_mb,
    peak_mb,
    reset_own_peak,
    reset_peaks,
    rss_mb,
)
from pyomo_puzzles.core.records import RunRecord, RunSettings
from pyomo_puzzles.core.warmup import blas_threads_for_forked_runs, prepared_child
from pyomo_puzzles.errors import UserError, failure_line

GRACE_SECONDS = 10.0
"""How long a run may overrun its time limit before its process group is killed (the
solver's own limit is soft, and Pyomo's build and hand-over are not covered by it)."""

MEMORY_POLL_SECONDS = 0.1
"""How often an isolated run's resident memory is measured (for its peak and its limit)."""

_log = logging.getLogger(__name__)
"""An isolated run's progress at INFO (`pyomo-puzzles solve --verbose` shows it)."""

Say = Callable[[str, dict], float]
"""How the work in the child reports progress: ``say("read", {"puzzle", "instance",
"formulation"})`` once the data file is read, ``say("loaded", {...})`` once the instance is
loaded and the run is about to build and solve. Returns the seconds the child then spent
preparing itself for the run (`core.warmup.prepared_child`; 0 for "read"), which are not the
run's."""


class Interrupted(KeyboardInterrupt):
    """An isolated run stopped by Ctrl-C (or SIGTERM): its process group was killed, and
    `record` says ``interrupted``."""

    def __init__(self, record: RunRecord) -> None:
        super().__init__("interrupted")
        self.record = record


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@dataclass(frozen=True)
class IsolatedRun:
    """One run to be made in a forked process: ``work(say)`` makes its record there;
    `placeholder(loaded)` makes the record of a run that sent none (killed, crashed or
    interrupted) from what it said before; `helpers()` are the solver's helper processes that
    work for it from outside its process group (see the module docstring), read just before
    its process is forked; `solver`, a registered adapter's name, solves a tiny model in the
    process before the run's clock (`core.warmup.prepared_child`)."""

    work: Callable[[Say], RunRecord]
    settings: RunSettings
    placeholder: Callable[[dict], RunRecord]
    helpers: Callable[[], tuple[int, ...]] = tuple
    solver: str | None = None


def _own_group_and_signals() -> None:
    os.setpgrp()  # so that a kill reaches the solver executables this run starts
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked by the parent around the fork


RETIRE_MB = 8.0
"""A process that makes runs in turn ends after a run (the next run gets a new one) once it
holds this much more resident memory, its garbage collected, than its preparation left it
with: what it keeps from the runs before (freed memory the C allocator keeps, a solver's
memory pools: SCIP's after one large IQ Twist model, about 50 MiB) is counted in the peak
memory of every run after them (`benchmarks/shared_process.py`)."""


class _Prepared:
    """What a run's process has prepared itself for (`core.warmup.prepared_child`, once per
    solver), and the resident memory that preparing left it with (MiB)."""

    def __init__(self) -> None:
        self.solvers: set[str | None] = set()
        self.resident_mb = 0.0

    def prepare(self, solver: str | None) -> None:
        if solver in self.solvers:
            return
        before = rss_mb((os.getpid(),))
        prepared_child(solver)
        after = rss_mb((os.getpid(),))
        self.resident_mb = after if not self.solvers else self.resident_mb + after - before
        self.solvers.add(solver)

    def holds_too_much(self) -> bool:
        """Whether this process keeps more than `RETIRE_MB` from the runs it made."""
        return rss_mb((os.getpid(),)) > self.resident_mb + RETIRE_MB


def _serve(conn, run: IsolatedRun, prepared: _Prepared, runs_before: int) -> None:
    """Make `run` in this process and send its record (or why there is none)."""

    def say(kind: str, facts: dict) -> float:
        conn.send({f"__{kind}__": facts})  # first: a solver that crashes in the warm-up below crashed after loading
        if kind != "loaded":
            return 0.0
        started = time.perf_counter()
        # Everything so far (imports, the instance) lives as long as this process: without
        # this, the run's first full collection walks all of it (80 ms in a pipeline job).
        gc.freeze()
        prepared.prepare(run.solver)
        return time.perf_counter() - started

    reset = reset_own_peak()  # the peak of the runs before is not this run's
    try:
        record = run.work(say)
        record.peak_memory_mb = round(own_peak_memory_mb(since_reset=reset), 1)
        record.runs_before_in_process = runs_before
        conn.send(record.to_dict())
    except UserError as error:
        conn.send({"__user_error__": error})
    except BaseException as error:  # report, never leave the parent without a record
        conn.send({"__error__": f"{type(error).__name__}: {error}"})


def _worker(conn, runs: Sequence[IsolatedRun], first: int) -> None:
    """A process that makes ``runs[first:]`` one after another, each announced before it
    starts, until it holds too much from the runs it made (`RETIRE_MB`)."""
    _own_group_and_signals()
    prepared = _Prepared()
    try:
        for index in range(first, len(runs)):
            conn.send({"__start__": index})
            _serve(conn, runs[index], prepared, runs_before=index - first)
            if index + 1 == len(runs):
                break
            gc.collect()  # the run's garbage, between runs: not in the next run's clock
            if prepared.holds_too_much():
                break
    finally:
        conn.close()


class _Forked:
    """A child process forked from this one that runs ``target(*args)`` and exits with
    `os._exit`: what `multiprocessing`'s fork context does, less its bookkeeping (1.5 to 2.5 ms
    a run, `benchmarks/isolation.py`). The child's standard streams are flushed before it
    exits; it never returns into the caller's code."""

    def __init__(self, target: Callable, args: tuple) -> None:
        self._target, self._args = target, args
        self.pid: int | None = None
        self.exitcode: int | None = None

    def start(self) -> None:
        pid = os.fork()
        if pid == 0:  # the child
            code = 1
            try:
                self._target(*self._args)
                code = 0
            finally:
                for stream in (sys.stdout, sys.stderr):
                    with contextlib.suppress(Exception):
                        stream.flush()
                os._exit(code)
        self.pid = pid

    def _reap(self, flags: int) -> bool:
        """Collect the child's exit status if it ended (True once it has)."""
        if self.exitcode is not None:
            return True
        try:
            pid, status = os.waitpid(self.pid, flags)
        except ChildProcessError:  # reaped elsewhere: its status is lost
            self.exitcode = -1
            return True
        if pid == 0:
            return False
        self.exitcode = os.waitstatus_to_exitcode(status)
        return True

    def join(self) -> None:
        if self.pid is not None:
            self._reap(0)

    def is_alive(self) -> bool:
        return self.pid is not None and not self._reap(os.WNOHANG)


@contextlib.contextmanager
def _stop_signals_held():
    """Ctrl-C and SIGTERM held back (delivered when the block ends) while a run's child is
    forked and put into its own process group: a stop that came in between would otherwise
    leave a child that no kill of its group reaches, running on after its parent is gone.
    Outside the main thread, where Python handles no signal, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _start_in_own_group(child) -> None:
    """Start `child` and make it the leader of its own process group from this side too
    (the child does the same; whichever comes first, the group exists once this returns)."""
    child.start()
    try:
        os.setpgid(child.pid, child.pid)
    except (ProcessLookupError, PermissionError):  # it already ended, or already set it
        pass


def _kill(child, helpers: tuple[int, ...]) -> None:
    """Kill the child's process group and the helpers working for it."""
    kill_group(child.pid)
    kill_and_wait(helpers)  # ended before the next run's start-up looks whether they run


def _watch(receiver, child, settings: RunSettings, loaded: dict,
           helpers: tuple[int, ...]) -> tuple[dict | None, str | None, float]:
    """Wait for the child's record, measuring the memory of its group and its helpers; kill
    them past the hard deadline or the memory limit. Returns (the child's last word or None,
    why it was killed, peak MiB); `loaded` receives what the child says about the instance."""
    started = time.perf_counter()
    deadline = None if settings.time_limit is None else settings.time_limit + GRACE_SECONDS
    peak = 0.0
    while True:
        left = None if deadline is None else deadline - (time.perf_counter() - started)
        wait = MEMORY_POLL_SECONDS if left is None else max(0.0, min(MEMORY_POLL_SECONDS, left))
        if receiver.poll(wait):
            try:
                payload = receiver.recv()
            except EOFError:  # the child died without a word
                return None, None, peak
            if "__start__" in payload:
                loaded["started"] = True
                continue
            if "__read__" in payload:
                loaded.update(payload["__read__"])
                _log.info("%s: data file read, loading the instance", loaded["instance"])
                continue
            if "__loaded__" in payload:
                loaded.update(payload["__loaded__"], ready=True)
                _log.info("%s: loaded, solving (formulation %s)", loaded["instance"], loaded["formulation"])
                continue
            return payload, None, peak
        resident = group_rss_mb(child.pid) + rss_mb(helpers)
        peak = max(peak, resident)
        reason = None
        if settings.memory_limit_mb is not None and resident > settings.memory_limit_mb:
            reason = "memory_limit"
        elif left is not None and left <= 0:
            reason = "time_limit"
        if reason is not None:
            _kill(child, helpers)
            _log.info("%s: killed past its %s", loaded.get("instance", "the run"),
                      "time limit and grace" if reason == "time_limit" else "memory limit")
            return None, reason, peak


def run_isolated(run: IsolatedRun, blas) -> RunRecord:
    """The run in a forked child of its own (`run_in_turn` of this one run: the time limit
    covers all of it, loading included), returning its record. Ctrl-C kills the child's group
    and raises `Interrupted`; a `UserError` in the child is raised here."""
    (outcome,) = run_in_turn([run], blas)
    if isinstance(outcome, UserError):
        raise outcome
    return outcome


def run_in_turn(runs: Sequence[IsolatedRun], blas,
                before_fork: Callable[[int], None] = lambda first: None) -> Iterator[RunRecord | UserError]:
    """The `runs` made one after another in one forked process of its own group, watched as
    `run_isolated` watches one: each run's record (or the `UserError` that stopped it), in
    order. A run that was killed (time or memory limit) or crashed takes its process with it
    and gets its record from outside; the runs after it get a new process. A process prepares
    itself once per solver (`IsolatedRun.solver`), and collects a run's garbage after the run,
    outside any clock; each record says how many runs its process made before it
    (``runs_before_in_process``). `before_fork(first)` is called before the process that
    makes ``runs[first:]`` is forked (a solver's start-up again where its helpers were killed).
    Ctrl-C kills the process's group and raises `Interrupted` with the record of the run it
    stopped."""
    first = 0
    while first < len(runs):
        first = yield from _one_process(runs, first, blas, before_fork)


def _one_process(runs: Sequence[IsolatedRun], first: int, blas,
                 before_fork: Callable[[int], None]) -> Iterator[RunRecord | UserError]:
    """Runs from ``runs[first]`` on in one forked process, until all are made or the process
    ends; returns the index of the first run it did not make."""
    before_fork(first)
    helpers = [run.helpers() for run in runs[first:]]  # what the process inherits works for its runs
    receiver, sender = multiprocessing.Pipe(duplex=False)
    blas_threads_for_forked_runs(runs[first].settings, blas)  # inherited by the process
    child = _Forked(_worker, (sender, runs, first))
    index, watch = first, _RunWatch(runs[first], helpers[0])  # the first run's watch starts before the fork
    try:
        while index < len(runs):
            try:
                if index == first:  # Ctrl-C while the process starts stops the first run
                    with _stop_signals_held():
                        _start_in_own_group(child)
                        sender.close()
                payload, killed_for, peak = _watch(receiver, child, watch.run.settings, watch.loaded, watch.helpers)
            except KeyboardInterrupt:
                raise watch.interrupted(child) from None
            if payload is None and not watch.loaded.get("started") and index > first:
                child.join()  # it ended between two runs (`RETIRE_MB`): the next one gets a new process
                break
            ended = payload is None or killed_for is not None
            if ended:
                child.join()
            outcome = watch.outcome(payload, killed_for, peak, child.exitcode, index - first)
            index += 1
            yield outcome
            if ended:
                break
            if index < len(runs):
                watch = _RunWatch(runs[index], helpers[index - first])
    finally:
        if child.pid is not None and child.is_alive() and index < len(runs):  # left before its runs were made
            _kill(child, tuple(set().union(*helpers)))
        child.join()
    return index


class _RunWatch:
    """This process's side of one isolated run: what it measures of the run's helpers from
    outside, and what the run's process said about its instance (`loaded`)."""

    def __init__(self, run: IsolatedRun, helpers: tuple[int, ...]) -> None:
        self.run, self.helpers = run, helpers
        self.peaks_reset = reset_peaks(helpers)  # a helper's peak since now is this run's
        self.helper_cpu = cpu_seconds_of(helpers)
        self.started = time.perf_counter()
        self.loaded: dict = {}

    def outcome(self, payload: dict | None, killed_for: str | None, peak: float,
                exitcode: int | None, runs_before: int = 0) -> RunRecord | UserError:
        """The run's record from what its process sent (None: nothing) and why it was killed;
        `runs_before`: the runs its process made before it."""
        if payload is not None and "__user_error__" in payload:
            return payload["__user_error__"]
        if payload is not None and "__error__" not in payload:
            return self._completed(RunRecord.from_dict(payload), peak)
        if killed_for is None:  # a helper may still be at the work of a process that sent no record
            kill_and_wait(self.helpers)
        record = self.run.placeholder(self.loaded)
        record.runs_before_in_process = runs_before
        record.wall_time = time.perf_counter() - self.started
        record.peak_memory_mb = round(peak, 1) if peak else None
        record.status, record.killed, record.message = _why_no_record(payload, killed_for, self.loaded, peak,
                                                                      self.run.settings, exitcode)
        return record

    def _completed(self, record: RunRecord, peak: float) -> RunRecord:
        """A run's own record with its helpers' memory and CPU added."""
        helper_peak = peak_mb(self.helpers) if self.peaks_reset else 0.0  # else: sampled only, in `peak`
        record.peak_memory_mb = round(max((record.peak_memory_mb or 0.0) + helper_peak, peak), 1)
        if record.cpu_time is not None:
            after = cpu_seconds_of(self.helpers)
            record.cpu_time += sum(after[pid] - self.helper_cpu[pid] for pid in after if pid in self.helper_cpu)
        return record

    def interrupted(self, child) -> Interrupted:
        """Ctrl-C: the run's processes killed, and its record saying so."""
        if child.pid is not None:  # None: stopped before the child was forked
            _kill(child, self.helpers)
            child.join()
        record = self.run.placeholder(self.loaded)
        record.status, record.killed = "interrupted", True
        record.wall_time = time.perf_counter() - self.started
        record.message = f"interrupted after {record.wall_time:.1f} s: the run's processes were killed"
        return Interrupted(record)


def _why_no_record(payload: dict | None, killed_for: str | None, loaded: dict, peak: float,
                   settings: RunSettings, exitcode: int | None) -> tuple[str, bool, str]:
    """(status, killed, message) of a child that sent no record."""
    stage = "" if loaded.get("ready") else " while loading the instance"
    if killed_for == "time_limit":
        return "time_limit", True, (f"run killed{stage} after {settings.time_limit + GRACE_SECONDS:g} s "
                                    f"(time limit {settings.time_limit:g} s + grace)")
    if killed_for == "memory_limit":
        return "memory_limit", True, (f"run killed{stage} at {peak:.0f} MiB resident memory "
                                      f"(memory limit {settings.memory_limit_mb:g} MiB)")
    if payload is not None:
        return "error", False, payload["__error__"].splitlines()[0]
    return "error", False, f"run crashed{stage} ({_exit_reason(exitcode)})"


def _exit_reason(code: int | None) -> str:
    if code is not None and code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def call_isolated(work: Callable[[], object], deadline: float | None = None) -> tuple[object, str | None]:
    """``work()`` in a forked child of its own process group, for the jobs that solve outside a
    run (counts, LP relaxations): its result (picklable), or None and why there is none, in one
    line: the exception it raised, "crashed (killed by signal SIGABRT)" for a solver library
    that took the process down, or "killed after N s" past `deadline` seconds (None: no
    deadline), its whole group killed. Ctrl-C (SIGINT, or SIGTERM from a scheduler) kills the
    group and is raised here as `KeyboardInterrupt`."""
    receiver, sender = multiprocessing.Pipe(duplex=False)
    child = _Forked(_call_child, (sender, work))
    started = time.perf_counter()
    try:
        with _stop_signals_held():
            _start_in_own_group(child)
            sender.close()
        while True:
            left = None if deadline is None else deadline - (time.perf_counter() - started)
            if left is not None and left <= 0:
                kill_group(child.pid)
                child.join()
                return None, f"killed after {deadline:g} s"
            if receiver.poll(1.0 if left is None else min(1.0, left)):
                try:
                    kind, value = receiver.recv()
                except EOFError:  # the child died without a word
                    break
                child.join()
                return (value, None) if kind == "result" else (None, value)
            if not child.is_alive() and not receiver.poll(0):
                break
    except KeyboardInterrupt:
        if child.pid is not None:
            kill_group(child.pid)
            child.join()
        raise
    child.join()
    return None, f"crashed ({_exit_reason(child.exitcode)})"


def _call_child(conn, work: Callable[[], object]) -> None:
    _own_group_and_signals()
    try:
        conn.send(("result", work()))
    except UserError as error:  # the user's to fix: its own words, as a run's
        conn.send(("error", str(error).splitlines()[0] if str(error) else type(error).__name__))
    except BaseException as error:  # noqa: BLE001 - one line for the parent, never a silent exit
        conn.send(("error", failure_line(error)))
    finally:
        conn.close()
