"""One run: instance + formulation + solver -> checked run record."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
import multiprocessing
import os
import resource
import signal
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

import pyomo.environ as pyo

from pyomo_puzzles import __version__
from pyomo_puzzles.core import registry, solvers
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.records import RunRecord
from pyomo_puzzles.errors import UserError, failure_line

GRACE_SECONDS = 10.0
"""How long a run may overrun its time limit before its process group is killed (the
solver's own limit is soft, and Pyomo's build and hand-over are not covered by it)."""

MEMORY_POLL_SECONDS = 0.1
"""How often an isolated run's resident memory is measured (for its peak and its limit)."""

_log = logging.getLogger(__name__)
"""An isolated run's progress at INFO (`pyomo-puzzles solve --verbose` shows it)."""


@dataclass(frozen=True)
class RunOptions:
    """How one run is made: limits, and the knobs of performance variability.

    seed: the solver's random seed (None: the solver's default); permutation: 0 for the
    model as built, k >= 1 for the k-th reproducible permutation of its rows and columns;
    gap: relative optimality gap at which the solver may stop (None: its default);
    memory_limit_mb: resident memory of the run (solver processes included) past which it
    is stopped with status ``memory_limit``; only for isolated runs; threads: the solver's
    threads, or, for a formulation solved in stages, how many parts are solved at once (in
    forked processes, one solver thread each; `core.parts`)."""

    time_limit: float | None = 60.0
    threads: int | None = 1
    seed: int | None = None
    permutation: int = 0
    gap: float | None = None
    memory_limit_mb: float | None = None


def choose_formulation(instance: Instance, name: str | None) -> registry.Formulation:
    form = registry.formulation(instance.family, name)
    reason = form.applies_to(instance.spec)
    if reason:
        raise UserError(f"formulation '{form.name}' cannot model {instance.name}: {reason}")
    return form


@lru_cache(maxsize=None)
def abstract_model(form: registry.Formulation) -> pyo.AbstractModel:
    """The formulation's AbstractModel, declared once per process (`create_instance`
    works on a clone, so one declaration serves every instance)."""
    return form.build_model()


def instantiate(form: registry.Formulation, spec) -> pyo.ConcreteModel:
    """The formulation's AbstractModel instantiated from the data of `spec` (an instance's
    spec, or one part of a stage, see `registry.Stage`). A rule that fails raises, and the
    caller reports it in one line: Pyomo's own multi-line log of it is held back."""
    with pyomo_build_log_held():
        return abstract_model(form).create_instance(data=form.model_data(spec))


def _below_error(record: logging.LogRecord) -> bool:
    return record.levelno < logging.ERROR


@contextlib.contextmanager
def pyomo_build_log_held():
    """Pyomo's ERROR log of a failing rule (several lines, with the rule's source) off while
    a model is built: the exception it comes with is reported instead. Warnings stay."""
    pyomo_log = logging.getLogger("pyomo.core")
    pyomo_log.addFilter(_below_error)
    try:
        yield
    finally:
        pyomo_log.removeFilter(_below_error)


def build_model(instance: Instance, form: registry.Formulation) -> pyo.ConcreteModel:
    """Instantiate the formulation's AbstractModel from the instance's data."""
    return instantiate(form, instance.spec)


def new_record(instance: Instance, formulation: str, solver: str, options: RunOptions) -> RunRecord:
    """A record of a run about to start (status ``error`` until it says otherwise)."""
    return _blank_record(instance.puzzle, instance.name, formulation, solver, options)


def _blank_record(puzzle: str, name: str, formulation: str, solver: str, options: RunOptions) -> RunRecord:
    return RunRecord(
        puzzle=puzzle, instance=name, formulation=formulation, solver=solver,
        time_limit=options.time_limit, threads=options.threads, gap_limit=options.gap, seed=options.seed,
        permutation=options.permutation, memory_limit_mb=options.memory_limit_mb,
        framework_version=__version__, host=socket.gethostname(),
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def _session(solver: str, model: pyo.ConcreteModel, options: RunOptions,
             time_limit: float | None) -> solvers.SolverSession:
    return solvers.SolverSession(solver, model, time_limit, options.threads, seed=options.seed,
                                 gap=options.gap, permutation=options.permutation)


def check_solution(instance: Instance, solution: dict) -> list[str]:
    """Run the family's independent checker; a crash of the checker is a failed check (the
    solution is malformed, or the checker has a bug: `--traceback` shows which)."""
    try:
        return list(instance.family.check(instance.spec, solution))
    except Exception as error:  # a malformed solution must not crash the caller
        return [f"the checker raised {failure_line(error)} (a malformed solution, or a fault in the checker)"]


def attach_checked_solution(record: RunRecord, instance: Instance, solution: dict) -> None:
    """Put `solution` on the record with the independent checker's verdict; a solution that
    fails the check turns the run into an error."""
    record.solution = solution
    record.check_errors = check_solution(instance, solution)
    record.checked = not record.check_errors
    if not record.checked:
        record.status = "error"
        record.message = "solution failed the independent check: " + record.check_errors[0]


def _left(options: RunOptions, started: float) -> float | None:
    """What is left of the run's time limit (None: no limit)."""
    return None if options.time_limit is None else options.time_limit - (time.perf_counter() - started)


class _OutOfTime(Exception):
    """The time limit ran out before the solver could be started."""


def _run_in_process(instance: Instance, form: registry.Formulation, solver: str,
                    options: RunOptions, started: float | None = None) -> RunRecord:
    """The run itself; the time limit counts from `started` (the start of loading, for an
    isolated run) and covers building the model: the solver gets what is left."""
    record = new_record(instance, form.name, solver, options)
    try:
        abstract_model(form)  # declared once per process: load_time holds it, not wall_time
    except Exception:  # noqa: BLE001 - raised again, and recorded, where the run builds its model
        pass
    began = time.perf_counter()
    started = began if started is None else started
    record.load_time = began - started
    try:
        record.solver_version = solvers.require(solver)
        if form.stages is not None:
            _solve_in_stages(record, instance, form, solver, options, started)
        else:
            model = build_model(instance, form)
            record.build_time = time.perf_counter() - began
            left = _left(options, started)
            if left is not None and left <= 0:
                raise _OutOfTime("time limit reached while building the model")
            outcome = _session(solver, model, options, left).solve()
            record.status, record.message = outcome.status, outcome.message
            record.objective, record.bound = outcome.objective, outcome.bound
            record.solver_time, record.nodes = outcome.solver_time, outcome.nodes
            if outcome.has_solution:
                attach_checked_solution(record, instance, form.decode(instance.spec, model))
    except UserError:
        raise
    except _OutOfTime as why:
        record.status, record.message = "time_limit", str(why)
    except MemoryError:
        record.status = "memory_limit" if options.memory_limit_mb else "error"
        record.message = "MemoryError: the run ran out of memory"
    except Exception as error:
        record.status = "error"
        record.message = failure_line(error)
    record.wall_time = time.perf_counter() - began
    record.gap = solvers.relative_gap(record.objective, record.bound)
    return record


def _solve_in_stages(record: RunRecord, instance: Instance, form: registry.Formulation, solver: str,
                     options: RunOptions, started: float) -> None:
    """Solve the formulation's stages' parts until one has a solution (see `registry.Stage`);
    the time limit covers all of them. With ``threads`` above 1 the parts of a stage are
    solved in that many processes at once, each solver on one thread (`core.parts`)."""
    from pyomo_puzzles.core import parts

    workers = options.threads or 1
    per_part = options if workers <= 1 else dataclasses.replace(options, threads=1)

    def one(part) -> parts.PartResult:
        return parts.solve_part(form, part, lambda model, left: _session(solver, model, per_part, left).solve(),
                                lambda: _left(options, started))

    solver_time, build_time, nodes, models, settled, objectives = 0.0, 0.0, 0, 0, 0, []
    record.status, found = "infeasible", None
    for stage in form.stages(instance.spec):
        objectives.append(stage.objective)
        settled += stage.settled
        record.bound = stage.objective  # every earlier stage was proved to have no solution
        found = stage.solution
        answers = parts.results(stage.parts if found is None else [], one, workers)
        for answer in answers:
            models += answer.solved
            solver_time += answer.solver_time
            build_time += answer.build_time
            nodes += answer.nodes
            if answer.solution is not None:
                found = answer.solution
                break
            if answer.status != "infeasible":
                record.status = answer.status if answer.status in ("time_limit", "licence_limit", "error") else "error"
                record.message = answer.message or f"a part ended {answer.status}"
                break
        answers.close()  # stops the parts still being solved
        if found is not None:
            record.status, record.objective = "optimal", stage.objective
            break
        if record.status != "infeasible":
            break
    if record.status == "infeasible":
        record.bound = None
    record.solver_time, record.build_time, record.nodes = solver_time, build_time, nodes
    span = f"{objectives[0]:g}..{objectives[-1]:g}" if objectives else "none"
    summary = f"{len(objectives)} stages (objective {span}): {models} models solved, {settled} parts settled without a solver"
    record.message = summary + (f"; {record.message}" if record.message else "")
    if found is not None:
        attach_checked_solution(record, instance, found)


def _own_peak_memory_mb() -> float:
    """This process's peak resident memory plus the largest peak of the processes it started
    and waited for (solver executables), plus the peak of any helper process of its group
    still running (the CP-SAT worker)."""
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    helpers_kb = sum(_peak_kb(pid) for pid in _group_members(os.getpgrp()) if pid != os.getpid())
    return (self_kb + children_kb + helpers_kb) / 1024


def process_stats() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/pid/stat after the command name: state, ppid, pgrp, ...) of
    every live process (none where there is no /proc)."""
    try:
        entries = os.scandir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        yield int(entry.name), stat[stat.rfind(b")") + 2:].split()


def _group_members(group: int) -> list[int]:
    """The live processes of a process group (a scan of /proc; empty where there is none)."""
    return [pid for pid, fields in process_stats() if int(fields[2]) == group]


def _status_kb(pid: int, key: bytes) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _peak_kb(pid: int) -> int:
    return _status_kb(pid, b"VmHWM:")


def _group_rss_mb(group: int) -> float:
    """Resident memory of a process group now, in MiB."""
    return sum(_status_kb(pid, b"VmRSS:") for pid in _group_members(group)) / 1024


class Interrupted(KeyboardInterrupt):
    """An isolated run stopped by Ctrl-C (or SIGTERM): its process group was killed, and
    `record` says ``interrupted``."""

    def __init__(self, record: RunRecord) -> None:
        super().__init__("interrupted")
        self.record = record


def _load(source: Instance | str | Path, announce: Callable[[dict], None]) -> Instance:
    """The instance; `announce` hears its family and name as soon as the file is read
    (before the family's loader, which may be the slow part)."""
    from pyomo_puzzles.core import instances

    if isinstance(source, Instance):
        return source
    shipped, path = instances.resolve(source)
    data = instances.read_data_file(path)
    puzzle = data.get("puzzle") if isinstance(data.get("puzzle"), str) else "?"
    family = registry.find(puzzle)
    announce({"puzzle": puzzle, "instance": shipped or f"{puzzle}/{path.stem}",
              "formulation": family.default_formulation if family else ""})
    return instances.from_data(data, path, shipped)


def _prepare(source: Instance | str | Path, formulation: str | None, solver: str,
             announce: Callable[[dict], None] = lambda facts: None):
    """The loaded instance and what solves it: a family's reference solver by that name,
    or the formulation (checked to apply) for the MIP solver `solver`."""
    instance = _load(source, announce)
    reference = instance.family.reference_solvers.get(solver)
    if reference is not None:
        ok, detail = reference.available()
        if not ok:
            raise UserError(f"solver '{solver}' is not available: {detail}")
        return instance, reference
    if not solvers.is_known(solver) and ":" not in solver:
        known = ", ".join(solvers.names() + tuple(instance.family.reference_solvers))
        raise UserError(f"unknown solver '{solver}' (choose from {known}, pyomo:NAME)")
    solvers.require(solver)
    return instance, choose_formulation(instance, formulation)


def _execute(instance: Instance, method, solver: str, options: RunOptions, started: float) -> RunRecord:
    if isinstance(method, registry.ReferenceSolver):
        left = _left(options, started)
        load_time = time.perf_counter() - started
        record = method.run(instance, None if left is None else max(left, 0.01))
        record.host, record.load_time = socket.gethostname(), load_time
        return record
    return _run_in_process(instance, method, solver, options, started)


@lru_cache(maxsize=1)
def _prepared_process():
    """What a run needs once per process, done before any run's clock starts and inherited by
    forked runs: the BLAS libraries numpy loaded (finding them walks every shared library,
    20 ms), numpy's lazily imported parts (its first `unique` imports numpy.ma: 20 ms), and
    Pyomo's per-process dispatch tables, filled by building a tiny model (the first model of
    a process otherwise builds about 4 ms slower). Returns the BLAS controller."""
    import numpy
    from threadpoolctl import ThreadpoolController

    numpy.unique(numpy.ones(2, dtype=numpy.float32) @ numpy.ones((2, 2), dtype=numpy.float32))
    _tiny_model().create_instance(data={None: {"I": {None: [1, 2]}, "c": {1: 1, 2: 2}}})
    return ThreadpoolController()


def _tiny_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel()
    model.I = pyo.Set()
    model.c = pyo.Param(model.I, within=pyo.NonNegativeIntegers)
    model.x = pyo.Var(model.I, domain=pyo.Binary)
    model.one = pyo.Constraint(rule=lambda m: sum(m.x[i] for i in m.I) == 1)
    model.cost = pyo.Objective(rule=lambda m: sum(m.c[i] * m.x[i] for i in m.I))
    return model


def _blas_threads(options: RunOptions, blas) -> contextlib.AbstractContextManager:
    """numpy's BLAS (packing's lookahead) would run on every core: a run uses its `threads`."""
    return contextlib.nullcontext() if options.threads is None else blas.limit(limits=options.threads, user_api="blas")


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _child(conn, source, formulation, solver, options: RunOptions, blas) -> None:
    os.setpgrp()  # so that a kill reaches the solver executables this run starts
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked by the parent around the fork
    _blas_threads(options, blas).__enter__()  # for the rest of this process
    started = time.perf_counter()
    try:
        instance, method = _prepare(source, formulation, solver, lambda facts: conn.send({"__read__": facts}))
        conn.send({"__loaded__": {"puzzle": instance.puzzle, "instance": instance.name, "formulation": method.name}})
        # Everything so far (imports, the instance) lives as long as this process: without
        # this, the run's first full collection walks all of it (80 ms in a pipeline job).
        gc.freeze()
        record = _execute(instance, method, solver, options, started)
        record.peak_memory_mb = round(_own_peak_memory_mb(), 1)
        conn.send(record.to_dict())
    except UserError as error:
        conn.send({"__user_error__": error})
    except BaseException as error:  # report, never leave the parent without a record
        conn.send({"__error__": f"{type(error).__name__}: {error}"})
    finally:
        conn.close()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


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


def _watch(receiver, child, options: RunOptions, loaded: dict) -> tuple[dict | None, str | None, float]:
    """Wait for the child's record, measuring its group's memory; kill it past the hard
    deadline or the memory limit. Returns (the child's last word or None, why it was
    killed, peak MiB); `loaded` receives what the child says once the instance is loaded."""
    started = time.perf_counter()
    deadline = None if options.time_limit is None else options.time_limit + GRACE_SECONDS
    peak = 0.0
    while True:
        left = None if deadline is None else deadline - (time.perf_counter() - started)
        wait = MEMORY_POLL_SECONDS if left is None else max(0.0, min(MEMORY_POLL_SECONDS, left))
        if receiver.poll(wait):
            try:
                payload = receiver.recv()
            except EOFError:  # the child died without a word
                return None, None, peak
            if "__read__" in payload:
                loaded.update(payload["__read__"])
                _log.info("%s: data file read, loading the instance", loaded["instance"])
                continue
            if "__loaded__" in payload:
                loaded.update(payload["__loaded__"], ready=True)
                _log.info("%s: loaded, solving (formulation %s)", loaded["instance"], loaded["formulation"])
                continue
            return payload, None, peak
        resident = _group_rss_mb(child.pid)
        peak = max(peak, resident)
        reason = None
        if options.memory_limit_mb is not None and resident > options.memory_limit_mb:
            reason = "memory_limit"
        elif left is not None and left <= 0:
            reason = "time_limit"
        if reason is not None:
            _kill_group(child.pid)
            _log.info("%s: killed past its %s", loaded.get("instance", "the run"),
                      "time limit and grace" if reason == "time_limit" else "memory limit")
            return None, reason, peak


def _placeholder(source, loaded: dict, formulation: str | None, solver: str, options: RunOptions) -> RunRecord:
    """The record of an isolated run that sent none (killed, crashed or interrupted)."""
    if isinstance(source, Instance):
        name, puzzle = source.name, source.puzzle
    else:
        name = loaded.get("instance") or str(source)
        puzzle = loaded.get("puzzle") or (name.split("/")[0] if "/" in name else "")
    return _blank_record(puzzle, name, formulation or loaded.get("formulation") or "", solver, options)


def _run_isolated(source, formulation: str | None, solver: str, options: RunOptions) -> RunRecord:
    """Load, build and solve in a forked child (the time limit covers all of it); kill its
    whole process group past the hard deadline, the memory limit, or on Ctrl-C."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, source, formulation, solver, options, _prepared_process()))
    started = time.perf_counter()
    loaded: dict = {}
    try:
        with _stop_signals_held():
            _start_in_own_group(child)
            sender.close()
        payload, killed_for, peak = _watch(receiver, child, options, loaded)
    except KeyboardInterrupt:
        if child.pid is not None:  # None: stopped before the child was forked
            _kill_group(child.pid)
            child.join()
        record = _placeholder(source, loaded, formulation, solver, options)
        record.status, record.killed = "interrupted", True
        record.wall_time = time.perf_counter() - started
        record.message = f"interrupted after {record.wall_time:.1f} s: the run's processes were killed"
        raise Interrupted(record) from None
    child.join()
    if payload is not None and "__user_error__" in payload:
        raise payload["__user_error__"]
    if payload is not None and "__error__" not in payload:
        record = RunRecord.from_dict(payload)
        record.peak_memory_mb = round(max(record.peak_memory_mb or 0.0, peak), 1)
        return record
    record = _placeholder(source, loaded, formulation, solver, options)
    record.solver_version = solvers.availability(solver)[1] if solvers.is_known(solver) else None
    record.wall_time = time.perf_counter() - started
    record.peak_memory_mb = round(peak, 1) if peak else None
    stage = "" if loaded.get("ready") else " while loading the instance"
    if killed_for == "time_limit":
        record.status, record.killed = "time_limit", True
        record.message = (f"run killed{stage} after {options.time_limit + GRACE_SECONDS:g} s "
                          f"(time limit {options.time_limit:g} s + grace)")
    elif killed_for == "memory_limit":
        record.status, record.killed = "memory_limit", True
        record.message = (f"run killed{stage} at {peak:.0f} MiB resident memory "
                          f"(memory limit {options.memory_limit_mb:g} MiB)")
    elif payload is not None:
        record.message = payload["__error__"].splitlines()[0]
    else:
        record.message = f"run crashed{stage} ({_exit_reason(child.exitcode)})"
    return record


def _exit_reason(code: int | None) -> str:
    if code is not None and code < 0:
        return f"killed by signal {signal.Signals(-code).name}"
    return f"exit code {code}"


def run(instance: Instance | str | Path, formulation: str | None = None, solver: str | None = None,
        time_limit: float | None = 60.0, threads: int | None = 1,
        isolate: bool = True, *, seed: int | None = None, permutation: int = 0,
        gap: float | None = None, memory_limit_mb: float | None = None) -> RunRecord:
    """Load, build, solve, decode and check one instance; always returns a record.

    `instance` is an `Instance`, a shipped name or a data file. With ``isolate`` the run
    happens in a forked process, loading included, that is killed if it overruns
    ``time_limit`` by more than the grace period (the record then says ``time_limit``) or
    its resident memory exceeds ``memory_limit_mb`` (``memory_limit``); its peak memory is
    recorded. Ctrl-C kills it at once and raises `Interrupted` carrying its record. See
    `RunOptions` for the other settings. Errors the user can fix (bad data file, unknown
    solver, solver missing, formulation that does not apply) raise `UserError` instead. A
    family's reference solver (e.g. ``dlx`` for packing) is run instead of the integer
    program when named as `solver`; no `solver` means `solvers.default_name()`.
    """
    options = RunOptions(time_limit, threads, seed, permutation, gap, memory_limit_mb)
    solver = solver or solvers.default_name()
    if memory_limit_mb is not None and not isolate:
        raise UserError("a memory limit needs an isolated run")
    if isolate:
        return _run_isolated(instance, formulation, solver, options)
    started = time.perf_counter()
    with _blas_threads(options, _prepared_process()):
        loaded, method = _prepare(instance, formulation, solver)
        return _execute(loaded, method, solver, options, started)
