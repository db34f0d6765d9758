"""Dancing links for any family whose puzzle is an exact cover: a plugin states its options
and gets a reference method that solves (`solve -s dlx`, the pipeline) and counts (`count -s
dlx`, the pipeline's ``counts:``), as the packing family's dancing links does::

    from pyomo_puzzles.contract import exact_cover

    DLX = exact_cover.reference_solver(options=my_options, decode=my_decode)
    FAMILY = register(Family(..., reference_solvers={"dlx": DLX}))

``options(spec)`` maps each option (any hashable name) to the items it covers; a solution
covers every item exactly once. ``decode(spec, chosen)`` turns the chosen option names into
the family's `Solution`, which the framework checks with the family's checker like any other.
Two optional hooks: ``secondary(spec)`` names the items to cover *at most* once (Knuth's
secondary items: the diagonals of n queens, which a placement need not fill), and
``applies_to(spec)`` says why the method cannot answer an instance (None: it can), as a
formulation's hook of that name does: such a run or count is left out with the reason.
The search is Knuth's Algorithm X by the PyPI library ``xcover`` (an optional dependency:
``pip install 'pyomo-puzzles[dlx]'``).
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import time
import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

from pyomo_puzzles.core.checking import attach_checked_solution
from pyomo_puzzles.core.processes import cpu_seconds
from pyomo_puzzles.core.records import RunRecord, RunSettings, new_record
from pyomo_puzzles.core.registry import ReferenceSolver, Solution
from pyomo_puzzles.errors import UserError

Options = Callable[[Any], dict[Hashable, list[Hashable]]]
Decode = Callable[[Any, list[Hashable]], Solution]
Secondary = Callable[[Any], "Iterable[Hashable]"]


def available() -> tuple[bool, str]:
    if importlib.util.find_spec("xcover") is None:
        return False, "Python package 'xcover' not installed (pip install 'pyomo-puzzles[dlx]')"
    from importlib.metadata import version  # 20 ms: only when asked

    return True, f"xcover {version('xcover')}"


def warm_up() -> None:
    """Import xcover, whose search numba compiles at import (0.5 s from its cache)."""
    xcover_module()


def xcover_module():
    """The xcover library, its own numba compiler's type-safety warnings held back for good
    (on a cold numba cache xcover's Algorithm Z warns of an unsafe cast in its own memo table:
    nothing a user of pyomo-puzzles can act on, and it reached the terminal)."""
    warnings.filterwarnings("ignore", message="unsafe cast from uint64 to uint32")
    import xcover  # xcover and numba: only a dancing-links search pays for them

    return xcover


def covers(options: dict[Hashable, list[Hashable]], secondary: Iterable[Hashable] = ()) -> Iterator[list[Hashable]]:
    """Every exact cover of `options` (option -> items), as lists of option names: every item
    covered exactly once, but the `secondary` ones, which are covered at most once."""
    import numpy as np  # numpy and xcover: only a search pays for them

    xcover = xcover_module()

    names = list(options)
    optional = set(secondary)
    items = sorted({item for covered in options.values() for item in covered} - optional, key=repr)
    if not items:
        yield []
        return
    if not names:
        return
    if optional:
        yield from _covers_with_secondary(options, names, items, optional)
        return
    column = {item: j for j, item in enumerate(items)}
    matrix = np.zeros((len(names), len(items)), dtype=bool)
    for row, name in enumerate(names):
        matrix[row, [column[item] for item in options[name]]] = True
    for rows in xcover.covers_bool(matrix):
        yield [names[int(r)] for r in rows]


def _covers_with_secondary(options: dict, names: list, items: list, optional: set) -> Iterator[list[Hashable]]:
    """`covers` with secondary items, by xcover's search over numbered items."""
    xcover = xcover_module()
    extra = sorted(optional, key=repr)
    number = {item: j for j, item in enumerate(items + extra)}
    rows = [[number[item] for item in options[name] if item in number] for name in names]
    for chosen in xcover.covers(rows, primary=list(range(len(items))),
                                secondary=list(range(len(items), len(items) + len(extra)))):
        yield [names[int(r)] for r in chosen]


def _secondary_items(spec, secondary: Secondary | None) -> list[Hashable]:
    return [] if secondary is None else list(secondary(spec))


def _first(spec, options: Options, decode: Decode, secondary: Secondary | None = None
           ) -> tuple[Solution | None, float, float]:
    started = time.perf_counter()
    offered = options(spec)
    optional = _secondary_items(spec, secondary)
    built = time.perf_counter()
    chosen = next(covers(offered, optional), None)
    searched = time.perf_counter()
    return (None if chosen is None else decode(spec, chosen)), built - started, searched - built


def _child(conn, function: Callable, args: tuple) -> None:
    try:
        conn.send(("ok", function(*args)))
    except BaseException as error:  # report, never leave the parent without an answer
        conn.send(("error", error if isinstance(error, UserError) else f"{type(error).__name__}: {error}"))
    finally:
        conn.close()


def within(function: Callable, args: tuple, time_limit: float):
    """``function(*args)`` in a forked child killed after `time_limit` s (an exact cover search in
    xcover cannot be interrupted): its value, or None if it was killed. A `UserError` it raised
    is raised again here; any other failure as RuntimeError with its one line."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, function, args))
    child.start()
    sender.close()
    ready = receiver.poll(time_limit)
    try:
        payload = receiver.recv() if ready else None
    except EOFError:
        payload = ("error", f"the search process died (exit code {child.exitcode})")
    if not ready:
        child.kill()
    child.join()
    if payload is None:
        return None
    kind, value = payload
    if kind == "ok":
        return value
    if isinstance(value, UserError):
        raise value
    raise RuntimeError(value)


def reference_solver(options: Options, decode: Decode, name: str = "dlx",
                     summary: str = "exact cover by dancing links (xcover)",
                     formulation: str = "exact_cover", secondary: Secondary | None = None,
                     applies_to: Callable[[Any], str | None] | None = None) -> ReferenceSolver:
    """The reference method of a family whose puzzle is the exact cover `options(spec)`, with
    the items `secondary(spec)` covered at most once; `applies_to(spec)`: why it cannot answer
    an instance, or None."""

    def run(instance, time_limit: float | None) -> RunRecord:
        from importlib.metadata import version  # 20 ms: only a run pays for it

        warm_up()  # the import compiles the search: not the run's time (nor the forked child's)
        record = new_record(instance.puzzle, instance.name, formulation, name,
                            RunSettings(time_limit=time_limit, threads=1), solver_version=f"xcover {version('xcover')}")
        started, cpu = time.perf_counter(), cpu_seconds()
        try:
            found = (_first(instance.spec, options, decode, secondary) if time_limit is None
                     else within(_first, (instance.spec, options, decode, secondary), time_limit))
            if found is None:
                record.status, record.killed = "time_limit", True
                record.message = f"search killed after the time limit of {time_limit:g} s"
            else:
                solution, record.build_time, record.solver_time = found
                record.status = "infeasible" if solution is None else "optimal"
                if solution is not None:
                    record.objective = 0.0  # a feasibility question: its objective is 0
                    attach_checked_solution(record, instance, solution)
        except Exception as error:  # noqa: BLE001 - a failed search is a record saying so
            record.status, record.message = "error", f"{type(error).__name__}: {error}".splitlines()[0]
        record.wall_time = time.perf_counter() - started
        record.cpu_time = cpu_seconds() - cpu
        return record

    def enumerate_solutions(instance, found: Callable[[Solution], bool]) -> tuple[str, str]:
        for chosen in covers(options(instance.spec), _secondary_items(instance.spec, secondary)):
            if not found(decode(instance.spec, chosen)):
                return "stopped", ""
        return "complete", ""

    return ReferenceSolver(name, summary, run, available, enumerate=enumerate_solutions, warm_up=warm_up,
                           formulation=formulation, applies_to=applies_to or (lambda spec: None))
