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

Native enumeration (``method="native"``): the solver's own (`Adapter.enumerate`: a solution
pool, SCIP's counter, CP-SAT's search for all solutions) or a reference method's (a family's
exact cover search, `ReferenceSolver.enumerate`) gives every solution of the model at once,
cutting off none. Up to symmetry it cannot cut off images, so it enumerates the model the
formulation restricted (or every solution) and reduces what it found to orbits afterwards.

Counting through orbits is the only use of the formulation's restriction
(`prepare_enumeration`): a plain enumeration (``symmetry=False``, a `limit`, a family without
symmetry images) never calls it, so that a hook that keeps one solution per orbit cannot make
a plain count of all solutions short.

On a model with an objective a count is of the optimal solutions (``counted: optimal``): the
model is first solved to its optimum, then its objective is held at that optimum by a row
and replaced by a constant, and every solution found must have that objective by the
family's objective hook where it gives one. ``every_feasible`` counts every feasible point
instead (``counted: feasible``); a feasibility model's count is of all its solutions
(``counted: all``).

Either way every solution is checked by the family's checker, and the result carries a
digest of the set found: each solution reduced to the least key text of its orbit (where the
family states symmetries; else its own key text), with the number of the orbit's solutions
found, sorted, hashed. So a count of every solution and a count up to symmetry of one instance
give one digest when both are complete, and two methods that agree on the number but not on
the set give different digests.

A method's word that its enumeration is complete is not taken once the framework has told it
to stop (a solution the checker refused, a limit, a hook that raised): a method that ends its
search before it hears the stop, or goes on regardless, still gives an incomplete count.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import itertools
import json
import math
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

import pyomo.environ as pyo

from pyomo_puzzles.core import solvers
from pyomo_puzzles.core.checking import check_solution, objectives_agree, solution_objective
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.models import build_model, choose_formulation, has_objective, objective_sense
from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.errors import NotApplicable, UserError, failure_line

COUNTED = ("all", "optimal", "feasible")
"""What a count counts (`CountResult.counted`)."""

METHODS = ("nogood", "native")
"""Counting methods: no-good cuts and a solve per solution (every solver), or the solver's or
reference method's own enumeration (where it has one)."""


@dataclass
class CountResult:
    instance: str
    formulation: str
    solver: str
    up_to_symmetry: bool
    method: str = "nogood"
    """``nogood`` or ``native`` (`METHODS`)."""
    route: str = ""
    """How the count was made, in words (the method, the restriction, the reduction to orbits)."""
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
    images_per_solution: int | None = None
    """How many images the family's symmetry hook gives of a solution (the group's order where it
    gives one per symmetry; the orbits, `orbit_sizes`, count the distinct ones)."""
    orbit_sizes: list[int] = field(default_factory=list)
    representatives: list[dict] = field(default_factory=list)
    points: int | None = None
    """Native enumeration: the points the solver gave (a point may repeat a solution: mark
    variants of one covering, or an orbit met again in a restricted model)."""
    digest: str | None = None
    """SHA-256 (16 hex digits) of the set found: see the module docstring."""
    counted: str = "all"
    """What was counted (`COUNTED`): ``all`` the solutions of a feasibility model (a reference
    method's: every solution it enumerates), ``optimal`` the optimal solutions of a model with
    an objective (its objective held at the proven `optimum`), ``feasible`` every feasible
    point of such a model, its objective ignored (asked for: ``every_feasible``)."""
    optimum: float | None = None
    """The proven optimum the optimal solutions were counted at (``counted: optimal``)."""
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


def key_text(key) -> str:
    """A solution key (`Family.solution_key`) as text that sorts and hashes alike in every process."""
    return json.dumps(key, sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(value):
    return sorted(value, key=key_text) if isinstance(value, (set, frozenset)) else str(value)


def set_digest(keys) -> str:
    """SHA-256 (16 hex digits) of a set of key texts, sorted."""
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:16]


class _Collector:
    """The solutions of one count as they come: each checked by the family's checker, one met
    before (an image of a counted orbit, a mark variant of a counted covering) dropped, each
    orbit's least key text and its solutions found kept for the digest."""

    def __init__(self, instance: Instance, result: CountResult, limit: int | None, keep_solutions: bool,
                 on_found: Callable[[int, int], None] | None, orbits: bool) -> None:
        self.instance, self.result, self.limit = instance, result, limit
        self.keep_solutions, self.on_found = keep_solutions, on_found
        self.family = instance.family
        self.symmetry = self.family.symmetry() if orbits else None  # each solution counted with its orbit
        self.seen: set[str] = set()  # every counted solution, images included
        self.given: set[str] = set()  # the distinct solutions the method gave
        self.orbits: dict[str, int] = {}  # least key text of each orbit met -> its solutions counted
        self.orbit_of: dict[str, str] = {}  # a plain count: key text of every image met -> its orbit's least
        self.stopped: str | None = None
        """Why the framework told the method to stop (None: it did not)."""

    def found(self) -> int:
        return self.result.classes if self.result.up_to_symmetry else self.result.solutions

    def full(self) -> bool:
        """The limit is reached (the message says so)."""
        if self.limit is not None and self.found() >= self.limit:
            self.result.message = "limit reached"
            return True
        return False

    def add(self, solution: dict) -> dict | None:
        """The distinct images (key text -> solution) of a new solution's orbit (the solution
        alone, not up to symmetry); {} for one counted before; None if the checker refuses it
        (the message says why)."""
        result, spec = self.result, self.instance.spec
        errors = check_solution(self.instance, solution)
        if errors:
            result.message = f"solution {self.found() + 1} failed the independent check: {errors[0]}"
            return None
        if self.result.optimum is not None and not self._at_the_optimum(solution):
            return None
        key = key_text(self.family.solution_key(solution))
        self.given.add(key)
        if key in self.seen:
            return {}
        if self.symmetry is None:
            distinct = {key: solution}
            representative = self._representative(solution, key)
            self.orbits[representative] = self.orbits.get(representative, 0) + 1
        else:
            images = self.symmetry(spec, solution)
            distinct = {key_text(self.family.solution_key(image)): image for image in images}
            if key not in distinct:
                result.message = "the family's symmetry images of a solution leave out the solution itself"
                return None
            if result.optimum is not None and not all(self._at_the_optimum(image, "an image of")
                                                      for image in distinct.values()):
                return None
            result.images_per_solution = len(images)
            if result.up_to_symmetry:
                result.classes += 1
            result.orbit_sizes.append(len(distinct))
            self.orbits[min(distinct)] = len(distinct)
        self.seen.update(distinct)
        result.solutions += len(distinct)
        result.solutions_with_variants += len(distinct) * self.family.variants(spec, solution)
        if self.keep_solutions:
            result.representatives.append(solution)
        if self.on_found:
            self.on_found(self.found(), result.solutions)
        return distinct

    def _at_the_optimum(self, solution: dict, what: str = "") -> bool:
        """Whether a solution of an optimal count has the optimum by the family's objective hook
        (True without the hook: the row holding the objective is then the only guarantee); the
        message says why not."""
        try:
            value = solution_objective(self.instance, solution)
        except ValueError as error:
            self.result.message = f"solution {self.found() + 1}: {error}"
            return False
        if value is None or objectives_agree(self.result.optimum, value):
            return True
        self.result.message = (f"{what} solution {self.found() + 1}".strip() + f" has the objective {value:g} by "
                               f"the family's objective hook, not the optimum {self.result.optimum:g} counted"
                               + (" (the family's symmetry images do not keep the objective: count without "
                                  "symmetry)" if what else ""))
        return False

    def _representative(self, solution: dict, key: str) -> str:
        """The least key text of the solution's orbit where the family states symmetries (a
        plain count does not cut off images, but its digest names orbits as every count's
        does), else the solution's own."""
        images = self.family.symmetry_images
        if images is None:
            return key
        if key not in self.orbit_of:  # the orbit's images once, not once per solution of it (48 per tiling)
            keys = {key_text(self.family.solution_key(image)) for image in images(self.instance.spec, solution)}
            least = min(keys | {key})
            self.orbit_of.update(dict.fromkeys(keys | {key}, least))
        return self.orbit_of[key]

    def offer(self, solution_of: Callable[[], dict]) -> bool:
        """Collect a method's next solution (`solution_of()` makes it); False: the method must
        stop (`stopped` says why). Once told to stop, every later solution is dropped unseen."""
        if self.stopped is not None:
            return False
        try:
            distinct = self.add(solution_of())
        except Exception as error:  # a formulation's decode, the family's symmetry or key hooks
            self.stopped = f"error: {failure_line(error)}"
            return False
        if distinct is None:
            self.stopped = self.result.message
        elif self.full():
            self.stopped = self.result.message
        return self.stopped is None

    def finish(self) -> None:
        self.result.digest = set_digest(f"{orbit}\t{found}" for orbit, found in self.orbits.items())


def count_solutions(instance: Instance, formulation: str | None = None, solver: str | None = None,
                    up_to_symmetry: bool = False, time_limit: float | None = None,
                    threads: int | None = 1, limit: int | None = None,
                    keep_solutions: bool = False, restrict: bool = True, split: int | None = None,
                    on_found: Callable[[int, int], None] | None = None,
                    seed: int | None = None, started: float | None = None,
                    method: str | None = None, symmetry: bool = True, every_feasible: bool = False) -> CountResult:
    """Enumerate solutions (or orbits) until none is left, `limit` is reached or time runs out.

    `method`: ``nogood`` (no-good cuts, a solve per solution or orbit: every solver) or
    ``native`` (the solver's own enumeration, `Adapter.enumerate`, or a reference method's,
    `ReferenceSolver.enumerate`); None: ``native`` for a reference method, else ``nogood``.
    `time_limit` bounds the whole enumeration; `on_found(found, solutions)` is called after
    each new solution or orbit (for progress bars). `restrict=False` skips the
    formulation's symmetry restriction (every image is then cut off explicitly). `split`
    is the number of partitions to split the search on (0: none; None: as many as keep
    the number of parts at most `MAX_PARTS`; no-good cuts only). `seed` is the solver's random seed. The time
    limit counts from `started` (default: now; `api.count` passes the start of loading).
    A hook or model that raises, or a solution the checker refuses, ends the count
    incomplete, its ``message`` saying why in one line.

    Counting all solutions of a family with symmetry images on a formulation that restricts
    the model for counting (`prepare_enumeration`), the count goes through the orbits too (each
    orbit found counts with all its images: far fewer solutions to find); `symmetry=False`, or
    a `limit`, enumerates every solution itself, on the model as built (the restriction is for
    counting through orbits only).

    A model with an objective counts its optimal solutions (its optimum proved first, within
    the time limit); `every_feasible` counts every feasible point instead (``counted``).
    """
    solver = solver or solvers.default_name()
    reference = instance.family.reference_solvers.get(solver)
    method = method or ("native" if reference is not None else "nogood")
    if method not in METHODS:
        raise UserError(f"option --method: unknown counting method '{method}' (choose from {', '.join(METHODS)})")
    if reference is not None:
        return _count_by_reference(instance, reference, method, up_to_symmetry, time_limit, limit,
                                   keep_solutions, on_found, seed, started)
    form = choose_formulation(instance, formulation)
    if form.solution_vars is None:  # the formulation's declaration that its solutions are the puzzle's, one each
        able = [f.name for f in instance.family.formulations.values() if f.solution_vars is not None]
        hint = f"use {', '.join(able)}" if able else f"no formulation of family '{instance.family.name}' can"
        raise UserError(f"formulation '{form.name}' cannot enumerate solutions (it has no 'solution_vars' hook); {hint}")
    if method == "native" and solvers.adapter(solver).enumeration is None:
        offering = [name for name in solvers.names() if solvers.adapter(name).enumeration is not None]
        raise UserError(f"solver '{solver}' has no enumeration of its own: count with --method nogood, or "
                        f"--method native with {', '.join(offering) or 'a solver that has one'}")
    if up_to_symmetry:
        instance.family.symmetry()  # a family without symmetry images says so before any solve
    started = time.perf_counter() if started is None else started
    result = CountResult(instance.name, form.name, solver, up_to_symmetry, method=method, seed=seed,
                         classes=0 if up_to_symmetry else None)
    result.counted = "feasible" if every_feasible else "optimal"  # settled by the model (`_model_to_count`)
    orbits = up_to_symmetry or (symmetry and limit is None and restrict and form.prepare_enumeration is not None
                                and instance.family.symmetry_images is not None)  # a limit counts solutions one by one
    collector = _Collector(instance, result, limit, keep_solutions, on_found, orbits)
    try:
        if method == "nogood":
            _count(instance, form, solver, result, collector, started, orbits, time_limit, threads,
                   restrict, split, seed)
        else:
            _count_native(instance, form, solver, result, collector, started, time_limit, threads, restrict, seed)
    except UserError:
        raise
    except Exception as error:  # a formulation's or family's hook, or Pyomo building the model
        result.complete, result.message = False, f"error: {failure_line(error)}"
    collector.finish()
    result.elapsed = time.perf_counter() - started
    return result


def restrict_for_orbits(form, spec, model) -> None:
    """Apply the formulation's restriction for counting through orbits: ``prepare_enumeration(spec,
    model)``; a hook written for the earlier contract, ``(spec, model, up_to_symmetry)``, is told
    True (it is only ever called for a count through orbits)."""
    hook = form.prepare_enumeration
    try:
        inspect.signature(hook).bind(spec, model)
    except TypeError:
        hook(spec, model, True)
    except ValueError:  # a builtin without a signature: the contract's form
        hook(spec, model)
    else:
        hook(spec, model)


def _count(instance: Instance, form, solver: str, result: CountResult, collector: _Collector, started: float,
           orbits: bool, time_limit: float | None, threads: int | None, restrict: bool,
           split: int | None, seed: int | None) -> None:
    """The enumeration by no-good cuts of `count_solutions`, filling `result`."""
    model = _model_to_count(instance, form, solver, result, started, time_limit, threads, seed)
    if model is None:
        return
    if restrict and orbits and form.prepare_enumeration is not None:
        restrict_for_orbits(form, instance.spec, model)
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
        finished = _enumerate_part(instance, form, model, session, result, collector, started, time_limit,
                                   restricted)
        fixing.undo()
        if not finished:
            break
    result.complete = finished
    what = "one solve per solution"
    if orbits:
        what = "one solve per orbit, every image cut off" + ("" if result.up_to_symmetry else ", each counted whole")
    result.route = (f"no-good cuts ({what}){', the formulation restricting the model' if restricted else ''}, "
                    f"{result.parts} part{'s' if result.parts != 1 else ''}")


def _enumerate_part(instance, form, model, session, result: CountResult, collector: _Collector, started: float,
                    time_limit: float | None, restricted: set[int]) -> bool:
    """Enumerate one part; False if stopped early (limit, time, solver trouble)."""
    while True:
        if collector.full():
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
            out_of_time = outcome.status == "time_limit" or (
                time_limit is not None and time.perf_counter() - started >= time_limit)  # a solver that says less
            result.message = ("time limit reached" if out_of_time else
                              f"solver stopped: {outcome.status} {outcome.message}".strip())
            return False
        distinct = collector.add(form.decode(instance.spec, model))
        if distinct is None:
            return False
        if not distinct:  # cut off before, yet found again: the cuts do not cut what they should
            result.message = "a solution cut off before was found again: the formulation's solution_vars are wrong"
            return False
        for image in distinct.values():
            groups = form.solution_vars(instance.spec, model, image)
            if _excluded(groups, restricted):
                continue
            model.no_good_cuts.add(_nogood(groups))
            result.cuts += 1


def _model_to_count(instance: Instance, form, solver: str, result: CountResult, started: float,
                    time_limit: float | None, threads: int | None, seed: int | None) -> pyo.ConcreteModel | None:
    """The model whose solutions the count enumerates: the formulation's, and for an optimal
    count of a model with an objective, that model with its objective held at the optimum a
    first solve proves (a row, ``at_the_optimum``) and a constant objective in its place. None
    where the count ends here: the model has no solution (a complete count of none), or the
    optimum was not proved (the message says why); ``counted`` is settled."""
    model = build_model(instance, form)
    if not has_objective(model):
        result.counted = "all"
        return model
    if result.counted == "feasible":
        return model
    left = None if time_limit is None else time_limit - (time.perf_counter() - started)
    if left is not None and left <= 0:
        result.message = "time limit reached"
        return None
    outcome = solvers.SolverSession(solver, model, RunSettings(time_limit=left, threads=threads, seed=seed)).solve()
    result.solves += 1
    if outcome.status == "infeasible":
        result.complete, result.route = True, "a solve proving that the model has no solution"
        return None
    if outcome.status != "optimal" or outcome.objective is None:
        result.message = ("time limit reached while proving the optimum" if outcome.status == "time_limit" else
                          f"the optimum was not proved: {outcome.status} {outcome.message}".strip())
        return None
    _hold_the_objective(model, outcome.objective, result)
    return model


def _hold_the_objective(model: pyo.ConcreteModel, optimum: float, result: CountResult) -> None:
    """Keep the model's objective at `optimum` (a row: at most the optimum when minimising, at
    least it when maximising; exactly its integral value where the objective takes whole values
    at every integer point, else within 1e-6 relative) and make it a feasibility model."""
    from pyomo_puzzles.core.linear_form import read_linear_form  # numpy: see build_model

    objective = next(model.component_data_objects(pyo.Objective, active=True))
    form = read_linear_form(model)
    used = form.cost != 0 if form is not None else None
    whole = (form is not None and bool(form.integer[used].all()) and bool((form.cost == form.cost.round()).all())
             and float(form.offset).is_integer())
    if whole:  # exact: CP-SAT's enumeration takes integer bounds only
        optimum, slack = float(round(optimum)), 0.0
    else:
        slack = 1e-6 * max(1.0, abs(optimum))
    expression = objective.expr
    model.at_the_optimum = pyo.Constraint(
        expr=expression <= optimum + slack if objective_sense(model) == "minimize" else expression >= optimum - slack)
    objective.deactivate()
    model.counting_feasibility = pyo.Objective(expr=0)
    result.optimum = optimum


def _count_native(instance: Instance, form, solver: str, result: CountResult, collector: _Collector,
                  started: float, time_limit: float | None, threads: int | None, restrict: bool,
                  seed: int | None) -> None:
    """The solver's own enumeration of the (restricted) model, every point decoded and collected."""
    from pyomo_puzzles.core.linear_form import linear_form, load_values  # numpy: see build_model

    adapter = solvers.adapter(solver)
    model = _model_to_count(instance, form, solver, result, started, time_limit, threads, seed)
    if model is None:
        return
    orbits = collector.symmetry is not None
    restricting = restrict and orbits and form.prepare_enumeration is not None
    if restricting:
        restrict_for_orbits(form, instance.spec, model)
    restricted = restricting and any(v.fixed for v in model.component_data_objects(pyo.Var))
    columns = linear_form(model)
    if not columns.integer.all():
        raise UserError(f"formulation '{form.name}' has continuous variables, whose points a solver cannot "
                        "enumerate: count it with --method nogood")
    result.points = 0

    def decoded(values) -> dict:
        load_values(columns, values)
        return form.decode(instance.spec, model)

    def found(values) -> bool:
        result.points += collector.stopped is None
        return collector.offer(lambda: decoded(values))

    left = None if time_limit is None else time_limit - (time.perf_counter() - started)
    if left is not None and left <= 0:
        result.message = "time limit reached"
        return
    reduction = ((", reduced to orbits afterwards" if result.up_to_symmetry else ", each orbit counted whole")
                 if orbits else "")
    restriction = " of the model the formulation restricted" if restricted else ""
    result.route = f"{adapter.enumeration}{restriction}{reduction}"
    status, message = adapter.enumerate(columns, RunSettings(time_limit=left, threads=threads, seed=seed), found)
    result.solves = 1
    _settle(result, collector, status, message, restricted)


def _count_by_reference(instance: Instance, reference, method: str, up_to_symmetry: bool,
                        time_limit: float | None, limit: int | None, keep_solutions: bool,
                        on_found, seed: int | None, started: float | None) -> CountResult:
    """A reference method's own enumeration (`ReferenceSolver.enumerate`), collected."""
    if reference.enumerate is None or method != "native":
        why = "cannot enumerate" if reference.enumerate is None else "counts only by its own enumeration"
        raise UserError(f"solver '{reference.name}' {why} (option --method: "
                        f"{'native' if reference.enumerate else 'none'})")
    reason = reference.applies_to(instance.spec)
    if reason:
        raise NotApplicable(f"solver '{reference.name}' cannot count {instance.name}: {reason}")
    if up_to_symmetry:
        instance.family.symmetry()
    started = time.perf_counter() if started is None else started
    result = CountResult(instance.name, reference.formulation or reference.name,
                         reference.name, up_to_symmetry, method=method, seed=seed,
                         classes=0 if up_to_symmetry else None)
    collector = _Collector(instance, result, limit, keep_solutions, on_found, up_to_symmetry)
    result.points = 0

    def found(solution) -> bool:
        result.points += collector.stopped is None
        return collector.offer(lambda: solution)

    result.route = f"{reference.summary}{', reduced to orbits afterwards' if up_to_symmetry else ''}"
    left = None if time_limit is None else time_limit - (time.perf_counter() - started)
    try:
        with deadline(left):
            status, message = reference.enumerate(instance, found)
    except OutOfTime:
        status, message = "time_limit", ""
    except UserError:
        raise
    except Exception as error:  # the reference method itself
        status, message = "error", f"error: {failure_line(error)}"
    result.solves = 1
    _settle(result, collector, status, message, restricted=False)
    collector.finish()
    result.elapsed = time.perf_counter() - started
    return result


def _settle(result: CountResult, collector: _Collector, status: str, message: str, restricted: bool) -> None:
    """The count's completeness and message from how the enumeration ended. A method told to
    stop gives an incomplete count whatever it says: a search that ended before the stop
    reached it (CP-SAT's worker, which hears it by a signal) reports ``complete``."""
    if collector.stopped is not None:
        result.complete, result.message = False, collector.stopped
    elif message.startswith("error: ") or status == "error":
        result.complete, result.message = False, message if message.startswith("error") else f"error: {message}"
    elif status == "complete":
        result.complete = True
        if collector.symmetry is not None and not restricted and len(collector.given) != result.solutions:
            result.complete = False
            result.message = (f"the enumeration gave {len(collector.given)} distinct solutions, but the orbits of "
                              f"those have {result.solutions}: the family's symmetry images and the method disagree")
    elif status == "stopped":
        result.complete = False  # the collector's message: the limit, or a solution the checker refused
    elif status == "time_limit":
        result.complete, result.message = False, "time limit reached"
    else:
        result.complete, result.message = False, f"solver stopped: {status} {message}".strip()
