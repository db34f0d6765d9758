"""Enumerate and count solutions with no-good cuts, optionally one per symmetry orbit.

Plain counting cuts off each solution found and solves again until the model is
infeasible. A solution is given by k groups of 0/1 variables, each summing to one in it
(a placed piece and its mark variants); the cut is Σ_groups Σ_{v ∈ group} v ≤ k - 1. Counting up to
symmetry cuts off every symmetric image of each solution found, so each solve yields a
new orbit; the total number of solutions is the sum of the orbit sizes (the number of
distinct images). A formulation may first restrict the model to a region that still
meets every orbit (packing fixes non-canonical placements on one cell), which keeps the
number of cuts and the final infeasibility proof small.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import pyomo.environ as pyo

from pyomo_puzzles.core import solvers
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.run import build_model, check_solution, choose_formulation
from pyomo_puzzles.errors import UserError


@dataclass
class CountResult:
    instance: str
    formulation: str
    solver: str
    up_to_symmetry: bool
    complete: bool
    solutions: int
    classes: int | None
    solves: int
    cuts: int
    elapsed: float
    solutions_with_variants: int = 0
    group_order: int | None = None
    orbit_sizes: list[int] = field(default_factory=list)
    representatives: list[dict] = field(default_factory=list)
    message: str = ""


def _nogood(groups: list[list]) -> pyo.Expression:
    return sum(v for group in groups for v in group) <= len(groups) - 1


def _excluded(groups: list[list]) -> bool:
    """True if the restriction already fixed every variable of some group to zero."""
    return any(all(v.fixed and v.value == 0 for v in group) for group in groups)


def count_solutions(instance: Instance, formulation: str | None = None, solver: str = "highs",
                    up_to_symmetry: bool = False, time_limit: float | None = None,
                    threads: int | None = 1, limit: int | None = None,
                    keep_solutions: bool = False, restrict: bool = True,
                    on_found: Callable[[int, int], None] | None = None) -> CountResult:
    """Enumerate solutions (or orbits) until none is left, `limit` is reached or time runs out.

    `time_limit` bounds the whole enumeration; `on_found(classes, solutions)` is called
    after each new solution or orbit (for progress bars). `restrict=False` skips the
    formulation's symmetry restriction (every image is then cut off explicitly).
    """
    form = choose_formulation(instance, formulation)
    if form.solution_vars is None:
        raise UserError(f"formulation '{form.name}' cannot enumerate solutions "
                        "(its solutions are not identified by 0/1 variables); use another")
    started = time.perf_counter()
    model = build_model(instance, form)
    if restrict and form.prepare_enumeration is not None:
        form.prepare_enumeration(instance.spec, model, up_to_symmetry)
    model.no_good_cuts = pyo.ConstraintList()
    session = solvers.SolverSession(solver, model, None, threads)
    family = instance.family
    result = CountResult(instance.name, form.name, solver, up_to_symmetry, False, 0,
                         0 if up_to_symmetry else None, 0, 0, 0.0)
    found = 0
    while limit is None or found < limit:
        if time_limit is not None:
            left = time_limit - (time.perf_counter() - started)
            if left <= 0:
                result.message = "time limit reached"
                break
            session.time_limit = left
        outcome = session.solve()
        result.solves += 1
        if outcome.status == "infeasible":
            result.complete = True
            break
        if not outcome.has_solution:
            result.message = f"solver stopped: {outcome.status} {outcome.message}".strip()
            break
        solution = form.decode(instance.spec, model)
        errors = check_solution(instance, solution)
        if errors:
            raise RuntimeError(f"solution {found + 1} failed the independent check: {errors[0]}")
        images = family.symmetry_images(instance.spec, solution) if up_to_symmetry else [solution]
        distinct = {family.solution_key(s): s for s in images}
        if up_to_symmetry:
            result.group_order = len(images)
        for image in distinct.values():
            groups = form.solution_vars(instance.spec, model, image)
            if _excluded(groups):
                continue
            model.no_good_cuts.add(_nogood(groups))
            result.cuts += 1
        found += 1
        result.solutions += len(distinct)
        result.solutions_with_variants += len(distinct) * family.variants(instance.spec, solution)
        if up_to_symmetry:
            result.classes += 1
            result.orbit_sizes.append(len(distinct))
        if keep_solutions:
            result.representatives.append(solution)
        if on_found:
            on_found(found, result.solutions)
    result.elapsed = time.perf_counter() - started
    return result
