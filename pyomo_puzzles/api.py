"""The Python API: what the CLI, the pipeline and a notebook call.

    import pyomo_puzzles as pp

    cube = pp.load("packing/l_tromino_cube")
    record = pp.solve(cube, formulation="placement", solver="highs", time_limit=60)
    record.status, record.checked, record.to_dict()
    record.picture("cube.png")
    pp.count("packing/soma_cube", up_to_symmetry=True).classes
    table = pp.results("results/default")      # one row per run, a pandas DataFrame

An instance is a shipped name (``packing/l_tromino_cube``), a data file's path, or an
`Instance` from `load` (or `from_data`). A formulation is a family's formulation name or
``FILE.py:NAME``. Every solution is checked by the family's independent checker before it is
returned. Mistakes the user can fix raise `pyomo_puzzles.errors.UserError` with a one-line
message.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pyomo_puzzles.core import counting, instances, models, pictures, registry, results as results_folder, solvers
from pyomo_puzzles.core.checking import check_solution
from pyomo_puzzles.core.counting import CountResult
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.records import RunRecord, RunSettings, setting_names
from pyomo_puzzles.core.run import reference_start_up, run
from pyomo_puzzles.errors import UserError

if TYPE_CHECKING:
    import pandas
    import pyomo.environ as pyo

    from pyomo_puzzles.core.registry import Family
    from pyomo_puzzles.core.statistics import ModelStatistics

__all__ = ["CountResult", "Instance", "RunRecord", "RunSettings", "SolvedRun", "build", "check", "count",
           "from_data", "list_families", "list_instances", "list_solvers", "load", "model_statistics", "picture",
           "results", "solve", "solve_model"]


def load(instance: str | Path | Instance) -> Instance:
    """A validated instance from a shipped name or a data file (an `Instance` is returned as is)."""
    if isinstance(instance, Instance):
        return instance
    return instances.load(instance)


def from_data(data: dict[str, Any], name: str = "data.yaml") -> Instance:
    """A validated instance from the contents of a data file (`name` stands for its file in
    messages and names the instance ``<family>/<stem>``)."""
    return instances.from_data(data, Path(name))


class SolvedRun(RunRecord):
    """A run record as `solve` returns it: the record's data (what `to_dict` saves) and the
    instance it was solved on, kept (not saved) to draw its solution."""

    def __init__(self, record: RunRecord, instance: str | Path | Instance) -> None:
        super().__init__(**vars(record))
        self.solved_instance = instance

    def picture(self, path: str | Path) -> Path:
        """Draw the record's solution to `path` (PNG, PDF or SVG by its suffix)."""
        if self.solution is None:
            raise UserError(f"the run of {self.instance} on {self.solver} ({self.status}) holds no solution to draw")
        return picture(self.solved_instance, self.solution, path)


def solve(instance: str | Path | Instance, formulation: str | None = None, solver: str | None = None, *,
          settings: RunSettings | None = None, isolate: bool = True, **options: Any) -> SolvedRun:
    """Build, solve, decode and check one instance; returns its run record.

    How the run is made is a `RunSettings`: `settings`, or its fields as keywords
    (``time_limit=60`` seconds, ``threads=1``, ``seed``, ``permutation``, ``gap``,
    ``memory_limit_mb``; keywords also override fields of `settings`). `solver` None is the
    first registered MIP solver (HiGHS). With `isolate` (the default) the run, loading the
    data file included, happens in a child process that is killed past the time limit plus a
    grace period or past the memory limit, and at once on Ctrl-C
    (`pyomo_puzzles.core.isolation.Interrupted`, carrying the record); the record says so.
    The record's ``picture(path)`` draws its solution."""
    record = run(instance, formulation, solver, isolate=isolate, settings=_settings(settings, options))
    return SolvedRun(record, instance)


def _settings(settings: RunSettings | None, options: dict[str, Any]) -> RunSettings:
    unknown = sorted(set(options) - set(setting_names()))
    if unknown:
        raise UserError(f"unknown run setting {unknown[0]!r} (settings: {', '.join(setting_names())})")
    return (settings or RunSettings()).replace(**options)


def count(instance: str | Path | Instance, formulation: str | None = None, solver: str | None = None, *,
          up_to_symmetry: bool = False, time_limit: float | None = None, threads: int | None = 1,
          limit: int | None = None, keep_solutions: bool = False, split: int | None = None,
          seed: int | None = None, on_found: Callable[[int, int], None] | None = None,
          method: str | None = None, symmetry: bool = True, every_feasible: bool = False) -> CountResult:
    """Enumerate and count the solutions (or, `up_to_symmetry`, the orbits) of an instance.

    `method`: ``nogood`` (no-good cuts: every solver) or ``native`` (the solver's own
    enumeration: see `pyomo-puzzles list`; a reference method such as ``dlx`` only has its
    own); None: ``native`` for a reference method, else ``nogood``. The result names the
    method, the route it took and a digest of the set of solutions found. Counting all
    solutions goes through the instance's orbits where it can (`symmetry=False`: every
    solution enumerated itself). On a model with an objective the count is of its optimal
    solutions (the optimum proved first; ``counted`` and ``optimum`` say so); `every_feasible`
    counts every feasible point, the objective ignored.

    The result's ``complete`` says whether the count is exhaustive; every solution found was
    checked. `keep_solutions` keeps one solution per orbit in ``representatives``. The time
    limit covers loading the instance: a load that outlasts it is stopped (in the main
    thread) and the count is incomplete, saying so. The solver's one-off start-up is paid
    before the count's clock starts and recorded in ``startup_time``."""
    name = solver or solvers.default_name()
    startup = solvers.start_up(name) if solvers.is_known(name) else reference_start_up(name)
    started = time.perf_counter()
    try:
        with counting.deadline(time_limit):
            loaded = load(instance)
    except counting.OutOfTime:
        return CountResult(str(instance), formulation or "", solver or "", up_to_symmetry, seed=seed,
                           message=f"time limit reached while loading the instance "
                                   f"({time.perf_counter() - started:.1f} s)",
                           elapsed=time.perf_counter() - started)
    result = counting.count_solutions(loaded, formulation, solver, up_to_symmetry=up_to_symmetry,
                                      time_limit=time_limit, threads=threads, limit=limit,
                                      keep_solutions=keep_solutions, split=split, seed=seed, on_found=on_found,
                                      started=started, method=method, symmetry=symmetry,
                                      every_feasible=every_feasible)
    result.startup_time = startup
    return result


def check(instance: str | Path | Instance, solution: dict[str, Any]) -> list[str]:
    """What is wrong with `solution` according to the family's independent checker (empty: valid)."""
    return check_solution(load(instance), solution)


def picture(instance: str | Path | Instance, solution: dict[str, Any], path: str | Path) -> Path:
    """Draw `solution` of `instance` to `path` (PNG, PDF or SVG by its suffix)."""
    pictures.check_picture_path(path)
    return pictures.draw(load(instance), solution, path)


def build(instance: str | Path | Instance, formulation: str | None = None) -> pyo.ConcreteModel:
    """The concrete Pyomo model of `formulation` (None: the family's default) for `instance`,
    to inspect, extend (an objective, a cut) and solve with `solve_model`."""
    loaded = load(instance)
    return models.build_model(loaded, models.choose_formulation(loaded, formulation))


def solve_model(model: pyo.ConcreteModel, solver: str | None = None, *, settings: RunSettings | None = None,
                **options: Any) -> solvers.SolveOutcome:
    """Solve a concrete model (from `build`, changed as you like) with a registered solver;
    the solution, if any, is loaded into the model's variables. Settings as for `solve`
    (no time limit unless given)."""
    chosen = _settings(settings or RunSettings(time_limit=None, threads=None), options)
    return solvers.SolverSession(solver or solvers.default_name(), model, chosen).solve()


def model_statistics(instance: str | Path | Instance, formulation: str | None = None, *,
                     lp_solver: str | None = None, time_limit: float = 60.0,
                     optimum_stage: bool = True) -> list[ModelStatistics]:
    """The size of `formulation`'s model of `instance` (variables by type, rows, nonzeros of
    the matrix every solver gets) and its LP relaxation by `lp_solver` (None: the first
    installed MIP solver by rank), with the integrality gap against the known optimum: one
    entry, or one per stage of a formulation solved in stages (`core.statistics`).
    ``entry.row()`` is its row of the pipeline's ``tables/models.csv``. `optimum_stage` False:
    the stage of the known optimum is counted, its parts not built (large staged instances)."""
    from pyomo_puzzles.core import statistics  # numpy and the linear form: only where statistics are asked

    return statistics.model_statistics(load(instance), formulation, lp_solver, time_limit, optimum_stage)


def results(folder: str | Path) -> pandas.DataFrame:
    """The runs table of a results folder: one row per run record under ``FOLDER/runs``,
    the columns of the pipeline's ``tables/runs.csv`` (read from the records, so it also
    covers a pipeline that has not finished)."""
    return results_folder.folder_runs(folder)


def list_families() -> dict[str, Family]:
    """Every registered family (shipped and plugins) by name."""
    return registry.families()


def list_instances() -> list[str]:
    """The names of every shipped instance (plugins' included)."""
    return list(instances.shipped_instances())


def list_solvers() -> dict[str, str]:
    """Every registered solver by name: its version, or why it is missing."""
    return {name: solvers.describe(name).detail for name in solvers.names()}
