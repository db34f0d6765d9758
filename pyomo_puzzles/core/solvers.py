"""The solver contract: what a solver adapter declares and returns, and the registry of adapters.

`core` names no solver. Each solver is one adapter module (the shipped ones are in
`pyomo_puzzles.solvers`; a plugin registers more through the entry-point group
``pyomo_puzzles.solvers``) that subclasses `Adapter` and registers itself with `register`.
The contract, written down once:

* ``availability()`` -> ``(True, "<Solver> <version>")`` or ``(False, "<why it is missing>")``;
  called once per process (cached), so it may import the solver's package.
* ``session(model, settings, persistent)`` -> an object with ``solve() -> SolveOutcome``
  and a ``settings`` attribute (the run's `RunSettings`, its time limit lowered to what is
  left of the run; enumeration lowers it again between solves). ``persistent=True`` asks for a session that is solved repeatedly while
  constraints are added and variable bounds change between solves (no-good cuts); an
  adapter without an incremental interface re-reads the model at each solve.
* ``matrix_session(form, settings, persistent)`` (optional; the shipped MIP adapters and
  CP-SAT have it) -> a session on the model compiled once into `form`
  (`core.linear_form.LinearForm`: compressed columns, row and column bounds, integrality,
  cost, offset, sense), the same matrix for every solver, handed over through the solver's
  own bulk interface. Its ``solve()`` returns a `SolveOutcome` whose ``values`` are the
  column values in the form's order (the framework loads them into the model, and records
  the matrix's digest). A persistent one also has ``add_rows(rows)`` (`core.linear_form.Rows`,
  compressed rows over the same columns: no-good cuts) and ``set_bounds(columns, lower,
  upper)`` (a variable fixed or freed), called between solves. An adapter without it (the
  default returns None) gets the Pyomo model through ``session``, which every adapter keeps
  for a model that cannot be read as a matrix.
* Settings reach the solver as the adapter's `Adapter.options` says, one entry per solver
  setting of `RunSettings` (time limit, threads, random seed, relative gap); where a solver
  has no such setting the entry is left out and `list` says so.
* `SolveOutcome.status` is one of `SOLVER_STATUSES` (`core.records`): ``optimal`` (proven; for a feasibility model
  a solution found), ``feasible`` (a solution without proof), ``infeasible`` (proven none),
  ``time_limit`` (stopped by the limit), ``licence_limit`` (the solver's licence does not
  cover a model this size; the solver's message in ``message``), ``error`` (anything else).
  A solution is loaded into the model's variables iff ``has_solution``; the framework then
  decodes it and has the family's checker check it.
* An adapter that runs an executable names it in ``executable`` (its path and package are
  recorded with the results).
* ``warm_up()`` (optional) pays a one-off start-up once per process before any run
  (`start_up`); forked runs inherit what it did. If it starts helper processes that solve
  the models of the runs forked afterwards (CP-SAT's worker), ``helpers()`` names them while
  they run. An isolated run (`core.isolation`) counts their memory (against its limit and in
  its peak) and their CPU as its own, and kills them with the run: past its limits, on
  Ctrl-C, or when it ended without a record (they may still be at its work). `start_up`
  then calls ``warm_up()`` again before the next run, which must start what is no longer
  running. A helper serves one run at a time and never hands one run's answer to another.
* ``enumerate(form, settings, found)`` (optional, with ``enumeration`` naming it in words):
  the solver's own enumeration of every feasible point of an integer program (a solution
  pool, a counting mode), for counting with ``--method native``. `form` is the model as a
  `core.linear_form.LinearForm` (every column integer; the objective ignored); the adapter
  calls ``found(values)`` with each point's column values in the form's order, in any order
  and as they come, and stops when it returns False. It honours ``settings.time_limit`` (the
  time left of the whole count) and returns ``(status, message)``: ``complete`` (every point
  given), ``stopped`` (``found`` said so), ``time_limit``, ``licence_limit`` or ``error``.
* ``objective`` and ``bound`` are None where the solver gives none; ``nodes`` is None
  where it does not count them; ``solver_time`` is the solver's own clock, None where it has
  none (never the framework's clock around the call), except that an in-process library
  without a clock (CBC's, GLPK's C interface) may give its solve call alone, timed around
  that call, and say so with ``solver_clock="call"``.

`SolverSession` is what the rest of the framework uses: it looks the adapter up, applies a
permutation of rows and columns (`core.linear_form.permuted`) when one is asked for, and
hands the model to the adapter's session.

Adapters are found through the entry-point group ``pyomo_puzzles.solvers``, the shipped ones
included (declared in pyproject.toml): this module imports none of them.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, ClassVar, Protocol

from pyomo_puzzles.core.records import RunSettings, solver_setting_names
from pyomo_puzzles.errors import SolverUnavailable, UserError

SolverSettings = RunSettings
"""What the framework asks of a solver: the run's settings (`core.records.RunSettings`)."""

ENTRY_POINT_GROUP = "pyomo_puzzles.solvers"


@dataclass
class SolveOutcome:
    """What a solver said, in one vocabulary for all solvers."""

    status: str
    has_solution: bool
    objective: float | None
    bound: float | None
    solver_time: float | None
    """The solver's own clock; None where the solver reports no time of its own (but see
    `solver_clock`)."""
    nodes: int | None
    message: str = ""
    solver_clock: str = "solver"
    """What `solver_time` was measured by: ``solver`` (the solver's own clock), or ``call``
    (an in-process library without a clock of its own: the library's solve call alone, timed
    around it by the adapter, the hand-over of the model and the reading back excluded)."""
    values: Any = None
    """A matrix session's column values (in the form's column order) when it has a solution;
    the framework loads them into the model."""
    matrix_digest: str | None = None
    """`core.linear_form.form_digest` of the matrix the solver received (set by `SolverSession`;
    None where the adapter took the Pyomo model)."""
    compile_time: float = 0.0
    """Seconds `SolverSession` spent compiling the model into its matrix (set by it)."""
    root_bound: float | None = None
    """The dual bound at the end of the root node, where the solver says (`root_bound`)."""
    presolved_size: tuple[int, int, int] | None = None
    """(columns, rows, nonzeros) of the model after the solver's presolve, where the solver says
    (HiGHS for an integer program with an objective, from its log; SCIP at the end of its solve)."""
    progress: list | None = None
    """The incumbent and bound as the solver reported them while it ran, points ``[seconds,
    incumbent, bound]`` on `solver_time`'s clock (None: the adapter reports none; the run's
    trace then has its final point alone, `core.progress`)."""


class Session(Protocol):
    settings: RunSettings

    def solve(self) -> SolveOutcome: ...


class MatrixSession(Protocol):
    """A session on the compiled matrix (`Adapter.matrix_session`). A persistent one also
    takes rows added over the same columns and new column bounds between solves."""

    settings: RunSettings

    def solve(self) -> SolveOutcome: ...

    def add_rows(self, rows) -> None: ...

    def set_bounds(self, columns, lower, upper) -> None: ...


class Options:
    """How each solver setting of `RunSettings` reaches the solver: the solver's own option,
    in words (``Options(time_limit="timelimit", threads="threads", notes="...")``). A setting
    left out is one the solver does not have; a name that is not a setting is refused."""

    def __init__(self, notes: str = "", **settings: str | None) -> None:
        unknown = sorted(set(settings) - set(solver_setting_names()))
        if unknown:
            raise TypeError(f"Options: {unknown[0]!r} is not a solver setting (settings: "
                            f"{', '.join(solver_setting_names())})")
        self.notes = notes
        self._settings = settings

    def __getattr__(self, name: str) -> str | None:
        if name.startswith("_") or name not in solver_setting_names():
            raise AttributeError(name)
        return self._settings.get(name)

    def items(self) -> list[tuple[str, str | None]]:
        """(setting, the solver's option or None) for every solver setting, in order."""
        return [(name, self._settings.get(name)) for name in solver_setting_names()]

    def __repr__(self) -> str:
        return f"Options({', '.join(f'{k}={v!r}' for k, v in self.items())}, notes={self.notes!r})"


class Adapter(ABC):
    """One solver behind the contract in this module's docstring."""

    name: ClassVar[str]
    """The name users give (``--solver NAME``)."""
    summary: ClassVar[str]
    options: ClassVar[Options]
    kind: ClassVar[str] = "mip"
    """``mip``, or ``peer`` for a solver of another kind that takes the same model (CP-SAT)."""
    rank: ClassVar[int] = 100
    """Listing order (smaller first)."""
    enumeration: ClassVar[str | None] = None
    """The solver's own enumeration of all solutions, in words (e.g. "solution pool"), where
    `enumerate` is defined; None: it counts by no-good cuts only."""
    executable: ClassVar[str | None] = None
    """The program the adapter runs, looked up on PATH, if it runs one: a results folder's
    environment record names its path and, where the distribution installed it, its package
    and the package's version."""

    @abstractmethod
    def availability(self) -> tuple[bool, str]:
        """(True, version string) or (False, the reason the solver cannot be used)."""

    @abstractmethod
    def session(self, model, settings: RunSettings, persistent: bool = False) -> Session:
        """A session that solves `model` (see the module docstring)."""

    def matrix_session(self, form, settings: RunSettings, persistent: bool = False) -> MatrixSession | None:
        """A session on the model compiled once into `form` (`core.linear_form.LinearForm`),
        handed over through the solver's own bulk interface; None (the default): the adapter
        takes the Pyomo model through `session`. See the module docstring."""
        return None

    def warm_up(self) -> None:
        """What the solver needs once per process beyond `availability` (which imports its
        package and checks its licence), e.g. a deferred import of its Pyomo interface that
        would otherwise land in every run's clock; done once before any run (`start_up`) and
        inherited by forked runs. An adapter that defines it gets its availability checked
        then too. It may start helper processes (`helpers`); it is called again when one of
        them ended (killed with a run) and must then start it anew. Default: nothing (the
        check happens while each run loads)."""

    def enumerate(self, form, settings: RunSettings, found: Callable[[Any], bool]) -> tuple[str, str]:
        """Every feasible point of the integer program `form` by the solver's own enumeration
        (see the module docstring); only where `enumeration` names one."""
        raise NotImplementedError(f"solver '{self.name}' has no enumeration of its own")

    def helpers(self) -> tuple[int, ...]:
        """The process ids of the helper processes `warm_up` started in this process, while
        they run: processes outside a run's process group that solve its models (CP-SAT's
        worker). `core.isolation` watches their memory and CPU as the run's and kills them
        with a run it kills or that ended without a record (see the module docstring).
        Default: none."""
        return ()


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


def takes_the_matrix(found: Adapter) -> bool:
    """Whether an adapter has a matrix session (`Adapter.matrix_session`); the others get Pyomo models."""
    return type(found).matrix_session is not Adapter.matrix_session


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


NO_VALUE = 1e30
"""Solvers print 1e50 or inf for 'no value'; anything this large is treated as none."""


def worth_tracing(form) -> bool:
    """Whether a solve of the matrix `form` (`LinearForm`) keeps a progress trace: only an
    integer program with an objective has a gap that closes over time."""
    return bool(form.integer.any() and form.cost.any())


def record_progress(outcome: "SolveOutcome", events: list) -> None:
    """`outcome.progress` ([seconds, incumbent, bound]) and `outcome.root_bound` from a
    solver's reports ``[seconds, incumbent, bound, nodes]``; its status and bound set first."""
    outcome.progress = [event[:3] for event in events]
    outcome.root_bound = root_bound(events, outcome.status, outcome.bound)


def root_bound(events: list, status: str, final_bound: float | None, last_root_node: int = 1) -> float | None:
    """The dual bound at the end of the root node from a solver's reports ``[seconds,
    incumbent, bound, nodes]``: its last bound reported while the node count was at most
    `last_root_node`, once the search has gone past it; the final bound of a search that ended
    there (if proved); None for a root not finished (a limit hit there). One node: a solver
    that counts the root as node 1 while it works on it (SCIP) has it done when the count
    passes 1; one that counts nodes finished (HiGHS, Gurobi, CPLEX) is at 1 from the root's end
    until a second node is done, and its bound moves only when a node is done. (Its reports at
    0 alone would miss the root's last cut rounds where no report came after them: HiGHS gave a
    bound of 0 there on `rubik/pieces` models its root solved.)"""
    if not any(event[3] > last_root_node for event in events):
        return final_bound if status == "optimal" else None
    at_root = [finite(event[2]) for event in events if event[3] <= last_root_node]
    at_root = [bound for bound in at_root if bound is not None]
    return at_root[-1] if at_root else None


def finite(value) -> float | None:
    """A float, or None for missing, infinite and 'no value' numbers."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) and abs(value) < NO_VALUE else None


def relative_gap(objective: float | None, bound: float | None) -> float | None:
    """|objective - bound| / max(|objective|, 1e-10), 0 when they agree (None without both)."""
    if objective is None or bound is None:
        return None
    difference = abs(objective - bound)
    return 0.0 if difference <= 1e-9 else difference / max(abs(objective), 1e-10)


def outcome_without_columns(form) -> SolveOutcome:
    """A model with no variables left: feasible exactly when every row admits 0 (HiGHS calls
    such a model "Empty" and does not look at the rows)."""
    import numpy as np  # see _permuted_model

    feasible = bool(np.all(form.row_lower <= 1e-9) and np.all(form.row_upper >= -1e-9))
    if not feasible:
        return SolveOutcome("infeasible", False, None, None, 0.0, 0)
    return SolveOutcome("optimal", True, form.offset, form.offset, 0.0, 0)


@dataclass
class _Permuted:
    """A model rebuilt from its matrix with rows and columns permuted (see `core.linear_form`)."""

    form: Any
    model: Any


def _permuted_model(model, number: int) -> _Permuted:
    """A concrete model of the same problem: variables ``x[j]`` declared in the permuted
    column order, rows in the permuted row order, each row's terms in column order."""
    import pyomo.environ as pyo  # this module loads no Pyomo or numpy: `list` and `--help` stay fast
    from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression

    from pyomo_puzzles.core.linear_form import linear_form, permuted  # numpy, Pyomo: as above

    form, _, _ = permuted(linear_form(model), number)
    copy = pyo.ConcreteModel(name=f"{model.name} (permutation {number})")
    n_cols = len(form.columns)
    copy.x = pyo.Var(range(n_cols), domain=pyo.Reals)
    for j, var in enumerate(copy.x.values()):
        if form.integer[j]:
            var.domain = pyo.Integers
        var.setlb(None if math.isinf(form.col_lower[j]) else float(form.col_lower[j]))
        var.setub(None if math.isinf(form.col_upper[j]) else float(form.col_upper[j]))
    rows: list[list] = [[] for _ in range(len(form.row_lower))]
    for j in range(n_cols):
        for k in range(form.start[j], form.start[j + 1]):
            rows[form.index[k]].append(MonomialTermExpression((float(form.value[k]), copy.x[j])))

    def bound(value: float):
        return None if math.isinf(value) else float(value)

    copy.rows = pyo.Constraint(range(len(rows)), rule=lambda m, i: (
        bound(form.row_lower[i]), LinearExpression(rows[i]), bound(form.row_upper[i])))
    objective = LinearExpression([MonomialTermExpression((float(c), copy.x[j]))
                                  for j, c in enumerate(form.cost) if c]) + form.offset
    copy.objective = pyo.Objective(expr=objective, sense=pyo.maximize if form.maximise else pyo.minimize)
    return _Permuted(form, copy)


class _MatrixRoute:
    """A model compiled once into a `LinearForm` and handed to the adapter's matrix session;
    the solver's column values are loaded back into the model's variables. A persistent
    route follows the model between solves: constraints added since (no-good cuts) go to the
    solver as rows, changed variable bounds (fixing, unfixing) as bounds; anything else (a
    constraint removed, a new variable) compiles the model again into a new session."""

    def __init__(self, found: Adapter, model, settings: RunSettings, persistent: bool, form) -> None:
        self.found, self.model, self.persistent = found, model, persistent
        self._settings = settings
        self.compile_time = 0.0  # seconds compiling the model and digesting its matrix, not loading it
        self._open(form)

    @classmethod
    def open(cls, found: Adapter, model, settings: RunSettings, persistent: bool) -> "_MatrixRoute | None":
        """The route, or None where the adapter takes Pyomo models only (or a persistent
        session meets a model that is not flat linear sums)."""
        if not takes_the_matrix(found):
            return None
        compiling = time.perf_counter()
        form = cls._compile(model, settings, persistent)
        if form is None:
            return None
        compiled = time.perf_counter() - compiling
        route = cls(found, model, settings, persistent, form)
        route.compile_time += compiled
        return route if route.session is not None or route.empty else None

    @staticmethod
    def _compile(model, settings: RunSettings, persistent: bool):
        from pyomo_puzzles.core.linear_form import linear_form, permuted, read_linear_form  # numpy, Pyomo: as above

        if persistent:
            return read_linear_form(model, keep_fixed=True)
        form = linear_form(model)
        return permuted(form, settings.permutation)[0] if settings.permutation else form

    def _open(self, form) -> None:
        import pyomo.environ as pyo  # see _permuted_model

        from pyomo_puzzles.core.linear_form import form_digest  # numpy: as above

        digesting = time.perf_counter()
        self.form, self.digest = form, form_digest(form)
        self.compile_time += time.perf_counter() - digesting
        self.empty = not form.columns  # decided here: HiGHS calls such a model "Empty", others fail
        self.session = None if self.empty else self.found.matrix_session(form, self._settings, self.persistent)
        if self.persistent:
            self.column_of = {id(var): j for j, var in enumerate(form.columns)}
            self.compiled = {id(con) for con in self.model.component_data_objects(pyo.Constraint, active=True)}
            self.lower, self.upper = form.col_lower.copy(), form.col_upper.copy()

    @property
    def settings(self) -> RunSettings:
        return self._settings

    @settings.setter
    def settings(self, value: RunSettings) -> None:
        self._settings = value
        if self.session is not None:
            self.session.settings = value

    def solve(self) -> SolveOutcome:
        from pyomo_puzzles.core.linear_form import load_values  # numpy, Pyomo: see _permuted_model

        if self.persistent:
            self._follow_the_model()
        if self.empty:
            outcome = outcome_without_columns(self.form)
        else:
            outcome = self.session.solve()
            if outcome.has_solution and outcome.values is not None:
                load_values(self.form, outcome.values)
        outcome.values, outcome.matrix_digest = None, self.digest
        return outcome

    def _follow_the_model(self) -> None:
        import pyomo.environ as pyo  # see _permuted_model

        from pyomo_puzzles.core.linear_form import column_bounds, rows_of  # numpy: as above

        active = list(self.model.component_data_objects(pyo.Constraint, active=True))
        added = [con for con in active if id(con) not in self.compiled]
        rows = rows_of(added, self.column_of) if added else None
        if len(active) - len(added) != len(self.compiled) or (added and rows is None) or self.empty:
            self._reopen()
            return
        if rows is not None:
            self.session.add_rows(rows)
            self.compiled.update(id(con) for con in added)
        lower, upper = column_bounds(self.form.columns)
        changed = (lower != self.lower) | (upper != self.upper)
        if changed.any():
            where = changed.nonzero()[0]
            self.session.set_bounds(where, lower[where], upper[where])
            self.lower, self.upper = lower, upper

    def _reopen(self) -> None:
        form = self._compile(self.model, self._settings, True)
        if form is None:
            raise RuntimeError("the model is no longer flat linear sums: it cannot be handed over as a matrix")
        self._open(form)


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
        self._matrix = _MatrixRoute.open(adapter(name), model, settings, persistent)
        # the compilation alone: the adapter loading the matrix into its solver is the hand-over
        self.compile_time = self._matrix.compile_time if self._matrix is not None else 0.0
        self._permuted = None
        if self._matrix is None:
            self._permuted = _permuted_model(model, settings.permutation) if settings.permutation else None
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
            from pyomo_puzzles.core.linear_form import load_values  # numpy, Pyomo: see _permuted_model

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
    """What `list` and the README say about one solver."""
    found = adapter(name)
    ok, detail = availability(name)
    return SolverInfo(name, ok, detail, found.kind, found.summary, found.options)
