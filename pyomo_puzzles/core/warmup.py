"""What a run needs once per process, done before any run's clock starts, and the BLAS
thread limit of a run."""

from __future__ import annotations

import contextlib
import os
import sys
from functools import lru_cache

import pyomo.environ as pyo

from pyomo_puzzles.core import solvers
from pyomo_puzzles.core.records import RunSettings


@lru_cache(maxsize=1)
def prepared_process():
    """Done once per process and inherited by forked runs: the BLAS libraries numpy loaded
    (finding them walks every shared library, 20 ms), numpy's lazily imported parts (its
    first `unique` imports numpy.ma: 20 ms), and Pyomo's per-process dispatch tables, filled
    by building a tiny model (the first model of a process otherwise builds about 4 ms
    slower). Returns the BLAS controller."""
    import numpy  # numpy and threadpoolctl: only when a run is made, not for `list` or `--help`
    from threadpoolctl import ThreadpoolController

    numpy.unique(numpy.ones(2, dtype=numpy.float32) @ numpy.ones((2, 2), dtype=numpy.float32))
    _read_matrix(_build_tiny_model())
    return ThreadpoolController()


def _read_matrix(model) -> None:
    """The tiny model read into its matrix (`core.linear_form`): its rows take every route of
    the reader (flat sums, a constant times a difference of differences, a named expression,
    Pyomo's linear walker for a product with a fixed variable), so that what any of them does
    once per process (numpy's sorting, Pyomo's walker tables: 1 to 25 ms) is paid here, before
    any run's clock, and inherited by forked runs."""
    from pyomo_puzzles.core.linear_form import read_linear_form  # numpy: only when a run is made

    read_linear_form(model)


def prepared_child(solver: str | None = None) -> None:
    """Done in a forked run's process before its clock starts: a tiny model built, which
    makes the copy-on-write faults of Pyomo's shared pages (its classes, functions and tables,
    touched by any build) here rather than in the run's build, and solved by the run's
    `solver` (`core.solvers.first_touch`: the same for the solver library's pages and its
    per-process set-up). A forked child's first IQ Twist build took 13.4 ms (1,615 faults)
    against 6.9 ms (1,057) after the tiny build; per isolated run, where loading the instance
    already touches most of those pages, the time outside the solver's clock is 3 to 5 %
    lower; with the tiny solve too, 0.65 to 0.85 of the time without either, for each of the
    seven matrix solvers (`benchmarks/prefault.py`)."""
    switch = os.environ.get(PREFAULT_SWITCH, "").lower()
    if switch == "off":
        return
    model = _build_tiny_model()
    if solver is not None and switch != "build":
        solvers.first_touch(solver, model)


PREFAULT_SWITCH = "PYOMO_PUZZLES_PREFAULT"
"""``off``: a forked run builds and solves no tiny model first; ``build``: it builds one but does not solve it
(to measure what `prepared_child` saves)."""


def _build_tiny_model():
    model = _tiny_model().create_instance(data={None: {"I": {None: [1, 2, 3]}, "c": {1: 1, 2: 2, 3: 3}}})
    model.x[3].fix(1)  # the product x[3] * x[1] is then linear (Pyomo's walker reads it)
    return model


def _tiny_model() -> pyo.AbstractModel:
    model = pyo.AbstractModel()
    model.I = pyo.Set()
    model.c = pyo.Param(model.I, within=pyo.NonNegativeIntegers)
    model.x = pyo.Var(model.I, domain=pyo.Binary)
    model.one = pyo.Constraint(rule=lambda m: sum(m.x[i] for i in m.I) == 1)
    model.gap = pyo.Expression(rule=lambda m: m.x[1] - m.x[2])
    model.nested = pyo.Constraint(rule=lambda m: (m.x[1] - m.x[2]) - (m.x[2] - m.x[3]) >= -m.c[3] * (1 - m.gap))
    model.walked = pyo.Constraint(rule=lambda m: m.x[3] * m.x[1] <= 1)  # linear once x[3] is fixed
    model.cost = pyo.Objective(rule=lambda m: sum(m.c[i] * m.x[i] for i in m.I))
    return model


def blas_threads(settings: RunSettings, blas) -> contextlib.AbstractContextManager:
    """numpy's BLAS (packing's lookahead) would run on every core: a run made in this process
    uses its `threads` (restored afterwards)."""
    blas = _current(blas)
    if settings.threads is None or _at_limit(settings.threads, blas):
        return contextlib.nullcontext()
    return blas.limit(limits=settings.threads, user_api="blas")


def _at_limit(threads: int, blas) -> bool:
    """Whether numpy's BLAS libraries already use `threads`: then nothing is set (in a forked
    process, setting it starts OpenBLAS's thread pool, see `blas_threads_for_forked_runs`)."""
    return all(library.num_threads == threads for library in blas.select(user_api="blas").lib_controllers)


_CONTROLLER: list = []
"""[(how many modules were imported when it was made, the BLAS controller of this process)]."""


def _current(blas):
    """`blas`, or a controller made again where modules were imported since it was made: a
    library imported later (scipy brings a BLAS of its own) is limited too. Finding the
    libraries walks every shared library (20 ms), so only then."""
    imported = len(sys.modules)
    if not _CONTROLLER:
        _CONTROLLER.append((imported, blas))
    elif _CONTROLLER[0][0] != imported:
        from threadpoolctl import ThreadpoolController  # as in prepared_process

        _CONTROLLER[0] = (imported, ThreadpoolController())
    return _CONTROLLER[0][1]


def blas_threads_for_forked_runs(settings: RunSettings, blas) -> None:
    """numpy's BLAS in this process set to the run's `threads` before the run's process is
    forked from it, and kept: the run inherits the limit and sets nothing. Setting it in the
    forked process starts OpenBLAS's thread pool there, whose worker spins for about 100 ms
    beside the run: a second core's worth of CPU for a run of that length, which on a
    2-core machine running two batches slowed every run measured; restoring it here after
    each fork does the same in this process (`benchmarks/blas_spin.py`). So a process that
    makes isolated runs keeps its BLAS at their threads (numpy's own matrix products in it
    included); nothing is set when it is there already."""
    blas = _current(blas)
    if settings.threads is None or _at_limit(settings.threads, blas):
        return
    blas.limit(limits=settings.threads, user_api="blas")  # not a context: kept for the runs to come
