"""Enumerate and count solutions with no-good cuts, optionally one per symmetry orbit.

Plain counting cuts off each solution found and solves again until the model is
infeasible. A solution is given by k groups of 0/1 variables, each summing to one in it
(a placed piece and its mark variants); the cut is Σ_groups Σ_{v ∈ group} v ≤ k - 1.

Counting up to symmetry cuts off every symmetric image of each solution found, so each
solve yields a new orbit; the total number of solutions is the sum of the orbit sizes (the
number of distinct images). A formulation may first restrict the model to a region that
still meets every orbit (packing fixes the non-canonical placements on one anchor), which
keeps the number of cuts small.

Splitting: when the formulation names partitions (groups of variables of which exactly one
is one in every solution, e.g. the placements covering a cell), the search space is split
into disjoint parts by fixing the variable chosen in the smallest partitions, and each part
is enumerated on its own. Each part is a much smaller problem (presolve removes the fixed
columns and every cut that mentions them), so solves stay fast as cuts pile up.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import pyomo.environ as pyo

from pyomo_puzzles.core import solvers
from pyomo_puzzles.core.checking import check_solution
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.models import build_model, choose_formulation
from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.errors import UserError, failure_line


@dataclass
class CountResult:
    instance: str
    formulation: str
    solver: str
    up_to_symmetry: bool
    seed: int | None = None
    complete: bool = False
    solutions: int = 0
    classes: int | None = None
    solves: int = 0
    cuts: int = 0
    elapsed: float = 0.0
    startup_time: float | None = None
    """The solver's one-off start-up, paid before the count's clock (None: it declares none)."""
    solutions_with_variants: int = 0
    parts: int = 1
    group_order: int | None = None
    orbit_sizes: list[int] = field(default_factory=list)
    representatives: list[dict] = field(default_factory=list)
    message: str = ""

    def to_dict(self) -> dict:
        return dict(vars(self))


class OutOfTime(BaseException):
    """The time limit ran out (see `deadline`). Not an `Exception`, so that a loader's own
    ``except Exception`` does not take it for a fault of the data file."""


@contextlib.contextmanager
def deadline(seconds: float | None):
    """Raise `OutOfTime` in the block once `seconds` have passed (a timer signal; only in
    the main thread, where Python handles signals: elsewhere, and without a limit, nothing
    changes). Python code, a family's loader, is stopped at once; C code when it returns."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise OutOfTime

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _nogood(groups: list[list]) -> pyo.Expression:
    return sum(v for group in groups for v in group) <= len(groups) - 1


def _excluded(groups: list[list], restricted: set[int]) -> bool:
    """True if the restriction fixed every variable of some group to zero."""
    return any(all(id(v) in restricted for v in group) for group in groups)


def _parts(partitions: list[list], depth: int) -> Iterator[list]:
    """Disjoint parts of the search space: lists of variables to fix to one.

    Splits on the `depth` smallest partitions, skipping variables already fixed to zero.
    Parts whose chosen variables cannot hold together are left to the solver to refute.
    """
    if depth <= 0 or not partitions:
        yield []
        return
    chosen = sorted(partitions, key=lambda group: sum(not v.fixed for v in group))[:depth]
    options = [[v for v in group if not v.fixed] for group in chosen]
    for combination in itertools.product(*options):
        if _consistent(combination, chosen):
            yield list({id(v): v for v in combination}.values())


def _consistent(combination, chosen) -> bool:
    """A variable chosen in one partition that also lies in another chosen partition
    must be the one chosen there too (otherwise that partition would have two ones)."""
    for i, v in enumerate(combination):
        for j, group in enumerate(chosen):
            if i != j and any(v is u for u in group) and combination[j] is not v:
                return False
    return True


MAX_PARTS = 1000
"""The most parts the automatic split makes."""

MAX_SPLIT_PARTS = 1_000_000
"""The most parts (before pruning) a split asked for may make: walking the combinations
alone would otherwise outlast any time limit (a split of 1000 on the L-tromino cube makes
16^27 of them)."""


def _refuse_too_many_parts(partitions: list[list], split: int) -> None:
    sizes = sorted(sum(not v.fixed for v in group) for group in partitions)[:split]
    parts = math.prod(max(size, 1) for size in sizes)
    if parts > MAX_SPLIT_PARTS:
        raise UserError(f"option --split: {split} partitions make {parts:.3g} parts, more than the "
                        f"{MAX_SPLIT_PARTS:,} this framework walks (automatic: {automatic_split(partitions)})")


def automatic_split(partitions: list[list]) -> int:
    """The largest split depth whose number of parts (before pruning) stays <= MAX_PARTS."""
    sizes = sorted(sum(not v.fixed for v in group) for group in partitions)
    depth, parts = 0, 1
    while depth < len(sizes) and parts * max(sizes[depth], 1) <= MAX_PARTS:
        parts *= max(sizes[depth], 1)
        depth += 1
    return depth


class _Fixing:
    """Bound the chosen variables to one and the rest of their partitions to zero; undo.

    Bounds, not `fix()`: a persistent solver interface substitutes fixed variables, and a
    part that is infeasible by its fixings alone then becomes a row without variables
    that HiGHS rejects as an error instead of proving infeasibility."""

    def __init__(self, partitions: list[list]) -> None:
        self.member_of = {}
        for group in partitions:
            for v in group:
                self.member_of.setdefault(id(v), []).append(group)
        self.changed: list = []

    def apply(self, chosen: list) -> bool:
        """Bound the variables; False (and nothing changed) if the choice contradicts itself."""
        ones = {id(v) for v in chosen}
        zeros = {id(u) for v in chosen for group in self.member_of[id(v)] for u in group if u is not v}
        if ones & zeros:
            return False
        for v in chosen:
            for group in self.member_of[id(v)]:
                for u in group:
                    if not u.fixed:
                        self.changed.append((u, u.lb, u.ub))
                        u.setlb(1) if u is v else u.setub(0)
        return True

    def undo(self) -> None:
        for u, lb, ub in reversed(self.changed):
            u.setlb(lb)
            u.setub(ub)
        self.changed = []


def count_solutions(instance: Instance, formulation: str | None = None, solver: str | None = None,
                    up_to_symmetry: bool = False, time_limit: float | None = None,
                    threads: int | None = 1, limit: int | None = None,
                    keep_solutions: bool = False, restrict: bool = True, split: int | None = None,
                    on_found: Callable[[int, int], None] | None = None,
                    seed: int | None = None, started: float | None = None) -> CountResult:
    """Enumerate solutions (or orbits) until none is left, `limit` is reached or time runs out.

    `time_limit` bounds the whole enumeration; `on_found(found, solutions)` is called after
    each new solution or orbit (for progress bars). `restrict=False` skips the
    formulation's symmetry restriction (every image is then cut off explicitly). `split`
    is the number of partitions to split the search on (0: none; None: as many as keep
    the number of parts at most `MAX_PARTS`). `seed` is the solver's random seed. The time
    limit counts from `started` (default: now; `api.count` passes the start of loading).
    A hook or model that raises, or a solution the checker refuses, ends the count
    incomplete, its ``message`` saying why in one line.
    """
    solver = solver or solvers.default_name()
    form = choose_formulation(instance, formulation)
    if form.solution_vars is None:
        able = [f.name for f in instance.family.formulations.values() if f.solution_vars is not None]
        hint = f"use {', '.join(able)}" if able else f"no formulation of family '{instance.family.name}' can"
        raise UserError(f"formulation '{form.name}' cannot enumerate solutions (it has no 'solution_vars' hook); {hint}")
    if up_to_symmetry:
        instance.family.symmetry()  # a family without symmetry images says so before any solve
    started = time.perf_counter() if started is None else started
    result = CountResult(instance.name, form.name, solver, up_to_symmetry, seed=seed,
                         classes=0 if up_to_symmetry else None)
    try:
        _count(instance, form, solver, result, started, up_to_symmetry, time_limit, threads, limit,
               keep_solutions, restrict, split, on_found, seed)
    except UserError:
        raise
    except Exception as error:  # a formulation's or family's hook, or Pyomo building the model
        result.complete, result.message = False, f"error: {failure_line(error)}"
    result.elapsed = time.perf_counter() - started
    return result


def _count(instance: Instance, form, solver: str, result: CountResult, started: float, up_to_symmetry: bool,
           time_limit: float | None, threads: int | None, limit: int | None, keep_solutions: bool,
           restrict: bool, split: int | None, on_found, seed: int | None) -> None:
    """The enumeration of `count_solutions`, filling `result`."""
    model = build_model(instance, form)
    if restrict and form.prepare_enumeration is not None:
        form.prepare_enumeration(instance.spec, model, up_to_symmetry)
    model.no_good_cuts = pyo.ConstraintList()
    restricted = {id(v) for v in model.component_data_objects(pyo.Var) if v.fixed and v.value == 0}
    partitions = form.partitions(instance.spec, model) if split != 0 and form.partitions else []
    if split is None:
        split = automatic_split(partitions)
    _refuse_too_many_parts(partitions, split)
    session = solvers.SolverSession(solver, model, RunSettings(time_limit=None, threads=threads, seed=seed),
                                    persistent=True)
    fixing = _Fixing(partitions)
    result.parts = 0
    finished = True
    for chosen in _parts(partitions, split):
        if not fixing.apply(chosen):
            continue  # two chosen variables exclude each other: an empty part
        result.parts += 1
        finished = _enumerate_part(instance, form, model, session, result, started, time_limit,
                                   limit, keep_solutions, up_to_symmetry, restricted, on_found)
        fixing.undo()
        if not finished:
            break
    result.complete = finished


def _enumerate_part(instance, form, model, session, result: CountResult, started: float,
                    time_limit: float | None, limit: int | None, keep_solutions: bool,
                    up_to_symmetry: bool, restricted: set[int], on_found) -> bool:
    """Enumerate one part; False if stopped early (limit, time, solver trouble)."""
    family = instance.family
    while True:
        found = result.classes if up_to_symmetry else result.solutions
        if limit is not None and found >= limit:
            result.message = "limit reached"
            return False
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - started)
            if left <= 0:
                result.message = "time limit reached"
                return False
            session.time_limit = left
        outcome = session.solve()
        result.solves += 1
        if outcome.status == "infeasible":
            return True
        if not outcome.has_solution:
            result.message = f"solver stopped: {outcome.status} {outcome.message}".strip()
            return False
        solution = form.decode(instance.spec, model)
        errors = check_solution(instance, solution)
        if errors:
            result.message = f"solution {found + 1} failed the independent check: {errors[0]}"
            return False
        images = family.symmetry()(instance.spec, solution) if up_to_symmetry else [solution]
        distinct = {family.solution_key(s): s for s in images}
        if up_to_symmetry:
            result.group_order = len(images)
        for image in distinct.values():
            groups = form.solution_vars(instance.spec, model, image)
            if _excluded(groups, restricted):
                continue
            model.no_good_cuts.add(_nogood(groups))
            result.cuts += 1
        result.solutions += len(distinct)
        result.solutions_with_variants += len(distinct) * family.variants(instance.spec, solution)
        if up_to_symmetry:
            result.classes += 1
            result.orbit_sizes.append(len(distinct))
        if keep_solutions:
            result.representatives.append(solution)
        if on_found:
            on_found(result.classes if up_to_symmetry else result.solutions, result.solutions)
