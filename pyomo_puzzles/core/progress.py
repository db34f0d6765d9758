"""A run's progress over time: its incumbent and bound whenever either changed, and the
primal and primal-dual integrals computed from them the same way for every solver.

A trace is a list of points ``[seconds, incumbent, bound]`` in the solver's own time (None:
no incumbent yet, no finite bound yet), each holding until the next; the last point is the
run's end. The gap of an incumbent x against a value z (Berthold, "Measuring the impact of
primal heuristics", Oper. Res. Lett. 41(6), 2013) is 0 if |x| = |z| = 0, 1 if either is
missing or they differ in sign, else |x - z| / max(|x|, |z|). The primal integral is the
integral of the incumbent's gap against the optimum over the run, the primal-dual integral
that of the incumbent's gap against the bound: both in seconds, 0 for a run that knew the
optimum at once, the run's whole time for one that never had an incumbent. A solver's own
integral (SCIP's, Gurobi's) counts differently and is not comparable across solvers.
"""

from __future__ import annotations

import math

Point = list  # [seconds, incumbent | None, bound | None]


def _finite(value) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def gap(incumbent: float | None, against: float | None) -> float:
    """Berthold's gap of `incumbent` against `against` (see the module docstring), in [0, 1]."""
    incumbent, against = _finite(incumbent), _finite(against)
    if incumbent is None or against is None:
        return 1.0
    if abs(incumbent) <= 1e-9 and abs(against) <= 1e-9:
        return 0.0
    if incumbent * against < 0:
        return 1.0
    return min(1.0, abs(incumbent - against) / max(abs(incumbent), abs(against)))


def trace(events: list, end: float, incumbent: float | None, bound: float | None) -> list[Point]:
    """The run's trace: the solver's `events` (points, in any order) up to `end`, each kept only
    where the incumbent or the bound changed, and the run's final incumbent and bound at `end`."""
    points: list[Point] = []
    for seconds, found, proved in sorted(events, key=lambda point: point[0]):
        point = [min(max(float(seconds), 0.0), end), _finite(found), _finite(proved)]
        if points and point[1:] == points[-1][1:]:
            continue
        points.append(point)
    final = [float(end), _finite(incumbent), _finite(bound)]
    if points and points[-1][0] >= end:
        points.pop()
    points.append(final)
    return points


def integral(points: list[Point], value) -> float:
    """∫ value(incumbent, bound) dt over the trace: each point's value holds from its time to the
    next point's; before the first point there is no incumbent and no bound."""
    total, since, current = 0.0, 0.0, value(None, None)
    for seconds, incumbent, bound in points:
        total += current * max(0.0, seconds - since)
        since, current = seconds, value(incumbent, bound)
    return total


def primal_dual_integral(points: list[Point]) -> float:
    """Seconds-weighted gap between incumbent and bound over the run (see the module docstring)."""
    return integral(points, gap)


def primal_integral(points: list[Point], optimum: float) -> float:
    """Seconds-weighted gap between the incumbent and the optimum over the run."""
    return integral(points, lambda incumbent, bound: gap(incumbent, optimum))
