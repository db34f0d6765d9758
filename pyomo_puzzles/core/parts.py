"""The parts of a stage (see `registry.Stage`) solved one after another, or in parallel
processes when the run may use more than one thread.

Each part is built, solved and, if the solver found a solution, decoded where it is solved:
in the run's own process, or in one of `workers` forked processes that take the parts in
order from a queue. Results come back in the order they finish. The caller stops as soon as
a part has a solution or ends other than infeasible; the workers still running are then
killed, with any solver executable they started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from pyomo_puzzles.core import registry


@dataclass
class PartResult:
    """What solving one part gave (`solution` is decoded, or None)."""

    status: str
    message: str | None = None
    solution: dict | None = None
    solver_time: float = 0.0
    nodes: int = 0
    build_time: float = 0.0
    solved: bool = True  # False: not started, the time limit had run out


def solve_part(form: registry.Formulation, part, solve: Callable, time_left: Callable[[], float | None]) -> PartResult:
    """Build, solve and decode one part; `solve(model, time_limit)` returns a solver outcome."""
    from pyomo_puzzles.core import run

    remaining = time_left()
    if remaining is not None and remaining <= 0:
        return PartResult("time_limit", "time limit reached between models", solved=False)
    built = time.perf_counter()
    model = run.instantiate(form, part)
    build_time = time.perf_counter() - built
    outcome = solve(model, time_left())
    solution = form.decode(part, model) if outcome.has_solution else None
    return PartResult(outcome.status, outcome.message, solution, outcome.solver_time or 0.0, outcome.nodes or 0,
                      build_time)


def results(parts: list, one: Callable[[object], PartResult], workers: int) -> Iterator[PartResult]:
    """`one(part)` for each part, in turn (workers <= 1) or in `workers` processes; stop
    iterating to stop the rest."""
    if workers <= 1 or len(parts) <= 1:
        for part in parts:
            yield one(part)
        return
    yield from _in_parallel(parts, one, min(workers, len(parts)))


def _in_parallel(parts: list, one: Callable[[object], PartResult], workers: int) -> Iterator[PartResult]:
    import multiprocessing
    import queue

    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    # the next part to take, shared by the workers: a queue of every index would be a pipe,
    # and a stage of thousands of parts would fill it before any worker reads
    next_part = context.Value("q", 0)

    def take() -> int | None:
        with next_part.get_lock():
            index = next_part.value
            next_part.value += 1
        return index if index < len(parts) else None

    def work() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        while (index := take()) is not None:
            try:
                answers.put(one(parts[index]))
            except BaseException as error:  # reported as the part's outcome, never a hang
                answers.put(PartResult("error", f"{type(error).__name__}: {error}".splitlines()[0]))

    processes = [context.Process(target=work, daemon=True) for _ in range(workers)]
    for process in processes:
        process.start()
    try:
        received = 0
        while received < len(parts):
            try:
                answer = answers.get(timeout=0.5)
            except queue.Empty:
                if not any(process.is_alive() for process in processes):
                    yield PartResult("error", "a process solving parts ended without an answer (killed?)")
                    return
                continue
            received += 1
            yield answer
    finally:
        for process in processes:
            _kill_with_descendants(process.pid)
        for process in processes:
            process.join()


def _kill_with_descendants(pid: int | None) -> None:
    """SIGKILL a worker and every process it started (a solver executable would outlive it)."""
    if pid is None:
        return
    for victim in [pid, *_descendants(pid)]:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(victim, signal.SIGKILL)


def _descendants(pid: int) -> list[int]:
    from pyomo_puzzles.core.run import process_stats

    children: dict[int, list[int]] = {}
    for child, fields in process_stats():
        children.setdefault(int(fields[1]), []).append(child)
    found, frontier = [], [pid]
    while frontier:
        frontier = [child for p in frontier for child in children.get(p, [])]
        found += frontier
    return found
