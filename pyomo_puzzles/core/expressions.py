"""Small helpers for building Pyomo expressions quickly."""

from __future__ import annotations

import weakref
from typing import Iterable

from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

_MEMBERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def total(variables: Iterable) -> LinearExpression:
    """Σ v over `variables`, built in one step (Python's sum() adds term by term, which is
    a quarter of the build time of an IQ Twist challenge)."""
    return LinearExpression(list(variables))


def difference(plus: Iterable, minus: Iterable) -> LinearExpression:
    """Σ plus - Σ minus over two lists of variables, built in one step (a flow's out minus in)."""
    return LinearExpression([*plus, *[MonomialTermExpression((-1, v)) for v in minus]])


def sum_over(var, keys: Iterable) -> LinearExpression:
    """Σ_{k ∈ keys} var[k] for an indexed variable, built in one step.

    Indexing a Pyomo component costs about 0.2 µs a time; the members are looked up in a
    plain dict of the (constructed) component instead, taken once per component, which
    makes an IQ Twist challenge's build a fifth faster.
    """
    members = _MEMBERS.get(var)
    if members is None or len(members) != len(var):
        members = _MEMBERS[var] = dict(var.items())
    try:
        return LinearExpression(list(map(members.__getitem__, keys)))
    except KeyError:  # not constructed yet (a sparse Var): let the component build it
        return LinearExpression([members[k] if k in members else var[k] for k in keys])
