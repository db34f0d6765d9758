"""The registry of solver adapters and the session the framework solves through.

The contract an adapter implements is written down once, in `core.solver_contract`; `core`
names no solver: each one is an adapter module (the shipped ones are in
`pyomo_puzzles.solvers`; a plugin registers more through the entry-point group
``pyomo_puzzles.solvers``, declared in pyproject.toml for the shipped ones too) that
registers itself with `register`. This module imports none of them.

`SolverSession` is what the rest of the framework uses: it looks the adapter up, applies a
permutation of rows and columns (`core.linear_form.permuted`) when one is asked for, and
hands the model to the adapter's session (`core.matrix_route`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from pyomo_puzzles.core.matrix_route import MatrixRoute, permuted_model, takes_the_matrix
from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.core.solver_contract import ENTRY_POINT_GROUP, Adapter, Options, SolveOutcome
from pyomo_puzzles.errors import SolverUnavailable, UserError

_ADAPTERS: dict[str, Adapter] = {}
_PREFIXES: dict[str, Callable[[str], Adapter]] = {}
_BROKEN: dict[str, str] = {}


def register(adapter_class: type[Adapter]) -> type[Adapter]:
    """Class decorator: register one instance of the adapter under its name."""
    _ADAPTERS[adapter_class.name] = adapter_class()
    return adapter_class


def register_prefix(prefix: str, factory: Callable[[str], Adapter]) -> None:
    """Solvers named ``PREFIX:NAME`` are made on demand by ``factory(NAME)`` (the generic
    adapter for any Pyomo solver registers ``pyomo``)."""
    _PREFIXES[prefix] = factory


@lru_cache(maxsize=None)
def _discover() -> None:
    """Import every adapter of the entry-point group, the shipped ones included (a broken
    plugin is noted in `broken_plugins` and does not stop the others)."""
    from importlib.metadata import entry_points  # 20 ms: paid by the first command that names a solver

    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            point.load()
        except Exception as error:  # noqa: BLE001 - one broken plugin must not stop the rest
            _BROKEN[point.name] = f"{point.value}: {type(error).__name__}: {error}".splitlines()[0]


def broken_plugins() -> dict[str, str]:
    """Solver plugins that failed to load: entry-point name -> what went wrong."""
    _discover()
    return dict(_BROKEN)


def names() -> tuple[str, ...]:
    """The registered solvers, MIP solvers first, in listing order."""
    _discover()
    ordered = sorted(_ADAPTERS.values(), key=lambda a: (a.kind != "mip", a.rank, a.name))
    return tuple(a.name for a in ordered)


def default_name() -> str:
    """The solver used when none is named: the registered MIP solver listed first."""
    return names()[0]


def solves_lp_relaxations(found: Adapter) -> bool:
    """Whether an adapter can solve a matrix's LP relaxation: a MIP solver with a matrix session."""
    return found.kind == "mip" and takes_the_matrix(found)


def default_lp_solver() -> str | None:
    """The LP solver of the model statistics when none is named: the installed MIP adapter with
    a matrix session that ranks first (None: there is none)."""
    _discover()
    for found in sorted(_ADAPTERS.values(), key=lambda found: (found.rank, found.name)):
        if solves_lp_relaxations(found) and availability(found.name)[0]:
            return found.name
    return None


def is_known(name: str) -> bool:
    _discover()
    return name in _ADAPTERS or (":" in name and name.split(":", 1)[0] in _PREFIXES)


@lru_cache(maxsize=None)
def adapter(name: str) -> Adapter:
    """The adapter of solver `name` (``PREFIX:NAME`` for a prefix's solvers)."""
    _discover()
    if name in _ADAPTERS:
        return _ADAPTERS[name]
    prefix, _, rest = name.partition(":")
    if rest and prefix in _PREFIXES:
        return _PREFIXES[prefix](rest)
    hint = "".join(f", {p}:NAME" for p in sorted(_PREFIXES))
    raise UserError(f"unknown solver '{name}' (choose from {', '.join(names())}{hint})")


def check_solver_name(name: str) -> str:
    adapter(name)
    return name


@lru_cache(maxsize=None)
def availability(name: str) -> tuple[bool, str]:
    """(available, version string or the reason it is not available)."""
    try:
        return adapter(name).availability()
    except UserError:
        raise
    except Exception as error:  # noqa: BLE001 - a broken installation is "missing", with why
        return False, f"{type(error).__name__}: {error}".splitlines()[0]


def require(name: str) -> str:
    """The solver's version string; raises SolverUnavailable with the reason if missing."""
    ok, detail = availability(name)
    if not ok:
        raise SolverUnavailable(f"solver '{name}' is not available: {detail}")
    return detail


_STARTED: dict[str, tuple[int, ...]] = {}
"""The solvers started in this process, with the helper processes their warm-up left running."""


def start_up(name: str) -> float | None:
    """Pay solver `name`'s one-off start-up in this process, for an adapter that declares one
    (`Adapter.warm_up`): its availability check (imports, licence) and its warm-up. Returns
    the seconds it took now, 0.0 when this process paid it before (forked runs inherit it),
    None for an adapter without a warm-up or a solver that is not available (the run says
    why). A helper process of the warm-up that ended since (`Adapter.helpers`: killed with a
    run) is started again now, and its seconds returned. Without a warm-up the availability
    check stays in each run's loading, where it costs less: a library loaded before the fork
    makes the forked run's first touches of its pages copy-on-write faults inside the run's
    clock (HiGHS: 5 ms a run, `benchmarks/startup.py`)."""
    found = adapter(name)
    if name in _STARTED:
        if tuple(found.helpers()) == _STARTED[name]:
            return 0.0
    elif type(found).warm_up is Adapter.warm_up:
        return None
    started = time.perf_counter()
    if not availability(name)[0]:
        return None
    found.warm_up()
    _STARTED[name] = tuple(found.helpers())
    return time.perf_counter() - started


def first_touch(name: str, model) -> None:
    """Solve the tiny `model` with solver `name` through its matrix session, the answer
    dropped, in a run forked from a batch process before the run's clock starts. A forked
    run's first solve otherwise pays, inside its hand-over, the copy-on-write faults of the
    solver library's pages and its per-process set-up (Gurobi's environment: a forked run
    makes its own): 0.3 to 4 ms of hand-over a run by adapter (`benchmarks/prefault.py`). Nothing for a
    solver without a matrix session (`pyomo:NAME` starts an executable per solve); a
    failure here is left for the run itself to meet and record."""
    if not takes_the_matrix(adapter(name)):
        return
    try:
        SolverSession(name, model, RunSettings(time_limit=10.0, threads=1)).solve()
    except Exception:  # noqa: BLE001 - the run's own solve reports what is wrong
        pass


def helpers(name: str) -> tuple[int, ...]:
    """The helper processes solver `name`'s warm-up left running in this process (none
    before `start_up`, or for a solver without them)."""
    return tuple(adapter(name).helpers()) if name in _STARTED else ()


class SolverSession:
    """Solves one concrete model, possibly repeatedly (constraints may be added in between).

    An adapter with a matrix session (`Adapter.matrix_session`) gets the model compiled once
    into one sparse matrix (`core.linear_form`), the same for every such solver; the others
    get the Pyomo model. `permutation` (>= 1) hands the solver the same problem with rows and
    columns in a reproducible random order; it applies to one-off solves, not to persistent
    sessions. `compile_time` is the seconds spent compiling the matrix (0 on Pyomo's path)."""

    def __init__(self, name: str, model, settings: RunSettings | None = None, persistent: bool = False,
                 **overrides: Any) -> None:
        """`settings` (default: no time limit, the solver's own threads), with `overrides`
        of its fields (``time_limit=60``)."""
        settings = (settings or RunSettings(time_limit=None, threads=None)).replace(**overrides)
        self.name = name
        self.version = require(name)
        self.model = model
        if settings.permutation and persistent:
            raise UserError("a permutation applies to one-off solves, not to enumeration")
        self._matrix = MatrixRoute.open(adapter(name), model, settings, persistent)
        # the compilation alone: the adapter loading the matrix into its solver is the hand-over
        self.compile_time = self._matrix.compile_time if self._matrix is not None else 0.0
        self._permuted = None
        if self._matrix is None:
            self._permuted = permuted_model(model, settings.permutation) if settings.permutation else None
            solved = self._permuted.model if self._permuted else model
            self._session = adapter(name).session(solved, settings, persistent)

    @property
    def _holder(self):
        return self._matrix if self._matrix is not None else self._session

    @property
    def time_limit(self) -> float | None:
        return self._holder.settings.time_limit

    @time_limit.setter
    def time_limit(self, seconds: float | None) -> None:
        self._holder.settings = self._holder.settings.replace(time_limit=seconds)

    @property
    def matrix_digest(self) -> str | None:
        """The digest of the matrix the solver was given (None on Pyomo's path)."""
        return self._matrix.digest if self._matrix is not None else None

    def solve(self) -> SolveOutcome:
        if self._matrix is not None:
            outcome = self._matrix.solve()
            outcome.compile_time, self.compile_time = self.compile_time, 0.0  # paid once, by the first solve
            return outcome
        outcome = self._session.solve()
        if outcome.has_solution and self._permuted is not None:
            from pyomo_puzzles.core.linear_form import load_values  # numpy, Pyomo: see permuted_model

            load_values(self._permuted.form, [v.value for v in self._permuted.model.x.values()])
        return outcome


def solve_within(name: str, model, settings: RunSettings, time_left: Callable[[], float | None]) -> SolveOutcome:
    """One solve of `model` whose solver gets what is left of a run's time limit when it
    starts (`time_left()`: seconds, None for no limit), compiling the matrix included: the
    limit bounds the whole run. A limit that compiling used up is a ``time_limit`` outcome
    with no solve (its `compile_time` kept)."""
    session = SolverSession(name, model, settings.replace(time_limit=time_left()))
    left = time_left()
    if left is not None and left <= 0:
        return SolveOutcome("time_limit", False, None, None, None, None, "time limit reached while compiling the model",
                            matrix_digest=session.matrix_digest, compile_time=session.compile_time)
    if left is not None:
        session.time_limit = left
    return session.solve()


@dataclass
class SolverInfo:
    """One line of `list`: name, availability, version or reason, and how settings pass."""

    name: str
    available: bool
    detail: str
    kind: str
    summary: str
    options: Options | None = None
    extra: dict = field(default_factory=dict)


def describe(name: str) -> SolverInfo:
    """What `list` and the documentation say about one solver."""
    found = adapter(name)
    ok, detail = availability(name)
    return SolverInfo(name, ok, detail, found.kind, found.summary, found.options)
