"""A formulation solved in stages (see `registry.Stage`): the parts of each stage solved one
after another, or in parallel processes when the run may use more than one thread.

Each part is built, solved and, if the solver found a solution, decoded where it is solved:
in the run's own process, or in one of `workers` forked processes that take the parts in
order from a queue. Results come back in the order they finish. The caller stops as soon as
a part has a solution or ends other than infeasible; the workers still running are then
killed, with any solver executable they started.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import multiprocessing
import queue
import signal
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from pyomo_puzzles.core import registry
from pyomo_puzzles.core.checking import attach_checked_solution
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.models import instantiate, release
from pyomo_puzzles.core.processes import kill_with_descendants
from pyomo_puzzles.core.records import RunRecord


@dataclass
class PartResult:
    """What solving one part gave (`solution` is decoded, or None)."""

    status: str
    message: str | None = None
    solution: dict | None = None
    solver_time: float | None = 0.0
    """The solver's own clock; None where the solver reports no time of its own."""
    nodes: int = 0
    build_time: float = 0.0
    decode_time: float = 0.0
    call_time: float = 0.0
    compile_time: float = 0.0
    matrix_digest: str | None = None
    solver_clock: str = "solver"
    solved: bool = True  # False: not started, the time limit had run out


def solve_part(form: registry.Formulation, part, solve: Callable, time_left: Callable[[], float | None]) -> PartResult:
    """Build, solve and decode one part; `solve(model, time_left)` returns a solver outcome."""
    remaining = time_left()
    if remaining is not None and remaining <= 0:
        return PartResult("time_limit", "time limit reached between models", solved=False)
    built = time.perf_counter()
    model = instantiate(form, part)
    build_time = time.perf_counter() - built
    outcome = solve(model, time_left)
    decoding = time.perf_counter()
    call_time = decoding - built - build_time - outcome.compile_time
    solution = form.decode(part, model) if outcome.has_solution else None
    decode_time = time.perf_counter() - decoding
    # freeing the model and the collector's pass are time between models, not decoding: on a
    # half-turn-13 proof they were 6.7 s of the 'decode' time, for one solution decoded
    release(model)
    collect_if_due()
    return PartResult(outcome.status, outcome.message, solution, outcome.solver_time, outcome.nodes or 0,
                      build_time, decode_time, call_time, outcome.compile_time,
                      outcome.matrix_digest, outcome.solver_clock)


def solve_in_stages(record: RunRecord, instance: Instance, form: registry.Formulation, solve: Callable,
                    time_left: Callable[[], float | None], workers: int) -> None:
    """Solve the formulation's stages' parts until one has a solution, filling `record`; the
    time limit (`time_left`) covers all of them. `solve(model, time_left)` returns a solver
    outcome; with `workers` above 1 the parts of a stage are solved in that many processes."""
    with collector_paused():
        _solve_in_stages(record, instance, form, solve, time_left, workers)


def _solve_in_stages(record: RunRecord, instance: Instance, form: registry.Formulation, solve: Callable,
                     time_left: Callable[[], float | None], workers: int) -> None:
    def one(part) -> PartResult:
        return solve_part(form, part, solve, time_left)

    solver_time, build_time, decode_time, call_time, nodes, models, settled, objectives = 0.0, 0.0, 0.0, 0.0, 0, 0, 0, []
    compile_time, digests, clocks = 0.0, [], set()
    record.status, found = "infeasible", None
    record.objective_sense = "minimize"  # stages come in increasing objective (`registry.Stage`)
    record.stages = []
    for stage, generate_time in _timed(form.stages(instance.spec)):
        objectives.append(stage.objective)
        settled += stage.settled
        record.bound = stage.objective  # every earlier stage was proved to have no solution
        found = stage.solution
        this = _stage_entry(stage, generate_time)
        record.stages.append(this)
        answers = results(stage.parts if found is None else [], one, workers)
        for answer in answers:
            _add_part(this, answer)
            models += answer.solved
            solver_time = None if solver_time is None or answer.solver_time is None \
                else solver_time + answer.solver_time  # one part without a clock: the run has none
            build_time += answer.build_time
            decode_time += answer.decode_time
            call_time += answer.call_time
            compile_time += answer.compile_time
            if answer.solved:
                digests.append(answer.matrix_digest)
                clocks.add(answer.solver_clock)
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
    record.solver_time, record.build_time, record.decode_time, record.nodes = solver_time, build_time, decode_time, nodes
    record.call_time, record.compile_time, record.models = call_time, compile_time, models
    record.generate_time = sum(stage["generate_time"] for stage in record.stages)
    record.matrix_digest = combined_digest(digests)
    record.solver_clock = None if solver_time is None else ("call" if "call" in clocks else "solver")
    span = f"{objectives[0]:g}..{objectives[-1]:g}" if objectives else "none"
    summary = f"{len(objectives)} stages (objective {span}): {models} models solved, {settled} parts settled without a solver"
    record.message = summary + (f"; {record.message}" if record.message else "")
    if found is not None:
        attach_checked_solution(record, instance, found)


def _timed(stages: Iterator) -> Iterator[tuple]:
    """Each stage with the seconds its generator took to make it: the formulation's own work
    between models (for `rubik/projections`, settling parts by its pattern tables)."""
    stages = iter(stages)
    while True:
        started = time.perf_counter()
        try:
            stage = next(stages)
        except StopIteration:
            return
        yield stage, time.perf_counter() - started


def _stage_entry(stage: registry.Stage, generate_time: float) -> dict:
    """The record's account of one stage (`RunRecord.stages`), its parts' times still to add."""
    return {"objective": stage.objective, "parts": len(stage.parts), "settled": stage.settled, "solved": 0,
            "generate_time": generate_time, "build_time": 0.0, "compile_time": 0.0, "call_time": 0.0,
            "solver_time": 0.0, "nodes": 0}


def _add_part(entry: dict, answer: PartResult) -> None:
    entry["solved"] += answer.solved
    entry["build_time"] += answer.build_time
    entry["compile_time"] += answer.compile_time
    entry["call_time"] += answer.call_time
    entry["nodes"] += answer.nodes
    if entry["solver_time"] is not None:
        entry["solver_time"] = None if answer.solver_time is None else entry["solver_time"] + answer.solver_time


YOUNG_OBJECTS_TO_COLLECT = 200_000
"""Between parts, the young generations are collected once this many objects have been
made (and not freed) since the last collection (`collect_if_due`)."""

_paused_here = False  # whether the collector is off because `collector_paused` switched it off


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while parts are solved.

    A part's model is freed by reference counting (`models.release`), but the collector,
    triggered every 700 new objects, walked each model several times while it was being
    built: a quarter of the build of a small model. `collect_if_due` keeps what else
    becomes cyclic garbage bounded. A collector the caller had switched off stays off and
    is never run here."""
    global _paused_here
    enabled, outer = gc.isenabled(), _paused_here
    gc.disable()
    _paused_here = enabled or outer
    try:
        yield
    finally:
        _paused_here = outer
        if enabled:
            gc.enable()


def collect_if_due() -> None:
    """Collect the young generations if `YOUNG_OBJECTS_TO_COLLECT` objects have piled up while
    `collector_paused` holds the collector off."""
    if _paused_here and not gc.isenabled() and gc.get_count()[0] > YOUNG_OBJECTS_TO_COLLECT:
        gc.collect(1)


def combined_digest(digests: list) -> str | None:
    """One digest for the models of a staged run: of their matrix digests, sorted (parallel
    workers finish parts in any order); None if a model went to the solver without one."""
    if not digests or None in digests:
        return None
    return hashlib.sha256("\n".join(sorted(digests)).encode()).hexdigest()[:16]


def results(parts: list, one: Callable[[object], PartResult], workers: int) -> Iterator[PartResult]:
    """`one(part)` for each part, in turn (workers <= 1) or in `workers` processes; stop
    iterating to stop the rest."""
    if workers <= 1 or len(parts) <= 1:
        for part in parts:
            yield one(part)
        return
    yield from _in_parallel(parts, one, min(workers, len(parts)))


def _in_parallel(parts: list, one: Callable[[object], PartResult], workers: int) -> Iterator[PartResult]:
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
            kill_with_descendants(process.pid)
        for process in processes:
            process.join()
