"""The solver contract: what a solver adapter declares and returns (the registry of adapters is
`core.solvers`).

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
  default returns None) gets the Pyomo model through ``session``. An adapter with a matrix
  session need not define ``session``: its default compiles the model at every solve and
  hands it to a one-off matrix session (`RecompilingSession`), the path of a persistent model
  that cannot be read as flat linear sums.
* Settings reach the solver as the adapter's `Adapter.options` says, one entry per solver
  setting of `RunSettings` (time limit, threads, random seed, relative gap): the solver's own
  option, with its conversion (`Native`); the adapter applies `options.native(settings)`, so
  what `list` shows is what the solver gets. Where a solver has no such setting the entry is
  left out and `list` says so.
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

* Native objects an adapter keeps between sessions (an instance with its plugins, an
  environment) go in a `Kept` of its own, whose flag says whether a forked run may use what
  its parent kept or must make its own.

`core.solvers.SolverSession` is what the rest of the framework uses: it looks the adapter up,
applies a permutation of rows and columns (`core.linear_form.permuted`) when one is asked for,
and hands the model to the adapter's session. Adapters are found through the entry-point group
``pyomo_puzzles.solvers``, the shipped ones included (declared in pyproject.toml): `core`
imports none of them.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Protocol

from pyomo_puzzles.core.records import RunSettings, solver_setting_names

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


@dataclass(frozen=True)
class Native:
    """The solver's own option a setting of `RunSettings` becomes: its `name`, the value the
    solver takes for the framework's (`convert`; a conversion that gives None passes nothing),
    the value given where the setting is unset (`unset`; None: nothing given, the solver's
    default), and words for `list` (`note`)."""

    name: str
    convert: Callable[[Any], Any] | None = None
    unset: Any = None
    note: str = ""

    def value(self, setting: Any) -> Any:
        if setting is None:
            return self.unset
        return self.convert(setting) if self.convert is not None else setting

    def __str__(self) -> str:
        return f"{self.name} ({self.note})" if self.note else self.name


class Options:
    """How each solver setting of `RunSettings` reaches the solver, declared once: what `list`
    shows and what the adapter applies (`native`). Each setting is the solver's own option, a
    name (the value passed as it is) or a `Native`
    (``Options(time_limit=Native("timelimit", lambda t: max(t, 0.01)), threads="threads")``);
    a setting left out is one the solver does not have; `fixed` options are passed at every
    solve; a name that is not a setting is refused."""

    def __init__(self, notes: str = "", fixed: dict[str, Any] | None = None, **settings: "str | Native | None") -> None:
        unknown = sorted(set(settings) - set(solver_setting_names()))
        if unknown:
            raise TypeError(f"Options: {unknown[0]!r} is not a solver setting (settings: "
                            f"{', '.join(solver_setting_names())})")
        self.notes = notes
        self.fixed = dict(fixed or {})
        self._settings = {name: Native(option) if isinstance(option, str) else option
                          for name, option in settings.items() if option is not None}

    def __getattr__(self, name: str) -> str | None:
        if name.startswith("_") or name not in solver_setting_names():
            raise AttributeError(name)
        option = self._settings.get(name)
        return None if option is None else str(option)

    def items(self) -> list[tuple[str, str | None]]:
        """(setting, the solver's option in words, or None) for every solver setting, in order."""
        return [(name, getattr(self, name)) for name in solver_setting_names()]

    def native(self, settings: RunSettings, *only: str) -> dict[str, Any]:
        """The solver's options and values for `settings` (the `fixed` ones first; `only`:
        those of these settings alone), to be applied as they are."""
        chosen = only or tuple(self._settings)
        given = {} if only else dict(self.fixed)
        for name in chosen:
            option = self._settings.get(name)
            if option is not None and (value := option.value(getattr(settings, name))) is not None:
                given[option.name] = value
        return given

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

    def session(self, model, settings: RunSettings, persistent: bool = False) -> Session:
        """A session that solves the Pyomo `model` (see the module docstring). Default, for an
        adapter with a matrix session: the model compiled at every solve and handed to a one-off
        matrix session (`RecompilingSession`), the path of a persistent model that is not flat
        linear sums; an adapter without a matrix session must define it."""
        if type(self).matrix_session is Adapter.matrix_session:
            raise NotImplementedError(f"solver '{self.name}' defines neither session nor matrix_session")
        return RecompilingSession(model, settings, lambda form, given: self.matrix_session(form, given, False))

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
    """``|objective - bound| / max(|objective|, 1e-10)``, 0 when they agree (None without both)."""
    if objective is None or bound is None:
        return None
    difference = abs(objective - bound)
    return 0.0 if difference <= 1e-9 else difference / max(abs(objective), 1e-10)


class Kept:
    """Native objects a process keeps between sessions because making them costs more than a
    small model's solve (a SCIP instance with its plugins, a CPLEX problem, a Gurobi
    environment): a session `take`s one (made by `make` when none is kept) and may `give_back`
    what it is done with; `one` is a single object kept for every session (an environment).

    `survives_fork` is the fork policy, stated by each user: True where a run forked from the
    process may use what the process kept (plain memory, copied with it: SCIP's instances,
    made by a batch's warm-up for every run it forks); False where a forked child must make its
    own (an object bound to the threads, sockets or licence token of the process that made it:
    CPLEX's problems, Gurobi's environment), which keeping them per process id ensures.

    `end`, where given, releases what this process keeps when it exits, while Python and the
    solver's module still stand (a SCIP instance with a Python plugin freed later, at the
    interpreter's teardown, crashed it)."""

    def __init__(self, make, survives_fork: bool, end: Callable[[Any], None] | None = None) -> None:
        self._make, self.survives_fork, self._end = make, survives_fork, end
        self._kept: dict[int, list] = {}
        if end is not None:
            atexit.register(self.end_all)

    def end_all(self) -> None:
        """Release everything this process keeps (`end`); a thing that cannot be ended is dropped."""
        kept = self._here()
        while kept:
            with contextlib.suppress(Exception):
                self._end(kept.pop())

    def _here(self) -> list:
        return self._kept.setdefault(0 if self.survives_fork else os.getpid(), [])

    def take(self):
        kept = self._here()
        return kept.pop() if kept else self._make()

    def give_back(self, thing) -> None:
        self._here().append(thing)

    def one(self):
        """The one object kept for every session of this process (made at the first call)."""
        kept = self._here()
        if not kept:
            kept.append(self._make())
        return kept[0]

    def __len__(self) -> int:
        return len(self._here())


class RecompilingSession:
    """Pyomo's path of an adapter that takes matrices only (`Adapter.session`'s default): the
    model is compiled (`linear_form`, Pyomo's compiler where the fast reader cannot read it) at
    every solve and handed to a one-off matrix session, and the answer loaded back into it."""

    def __init__(self, model, settings: RunSettings, open_session: Callable[[Any, RunSettings], Any]) -> None:
        self.model, self.settings, self._open = model, settings, open_session

    def solve(self) -> SolveOutcome:
        from pyomo_puzzles.core.linear_form import linear_form, load_values  # numpy, Pyomo: see outcome_without_columns

        form = linear_form(self.model)
        if not form.columns:
            return outcome_without_columns(form)
        outcome = self._open(form, self.settings).solve()
        if outcome.has_solution and outcome.values is not None:
            load_values(form, outcome.values)
        outcome.values = None
        return outcome


def outcome_without_columns(form) -> SolveOutcome:
    """A model with no variables left: feasible exactly when every row admits 0 (HiGHS calls
    such a model "Empty" and does not look at the rows)."""
    import numpy as np  # this module loads no numpy: `list` and `--help` stay fast

    feasible = bool(np.all(form.row_lower <= 1e-9) and np.all(form.row_upper >= -1e-9))
    if not feasible:
        return SolveOutcome("infeasible", False, None, None, 0.0, 0)
    return SolveOutcome("optimal", True, form.offset, form.offset, 0.0, 0)


