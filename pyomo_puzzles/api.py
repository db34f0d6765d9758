"""The Python API: what the CLI, the pipeline and a notebook call.

    import pyomo_puzzles as pp

    cube = pp.load("packing/l_tromino_cube")
    record = pp.solve(cube, formulation="placement", solver="highs", time_limit=60)
    record.status, record.checked, record.to_dict()
    record.picture("cube.png")
    pp.count("packing/soma_cube", up_to_symmetry=True).classes
    table = pp.results("results/default")      # one row per run, a pandas DataFrame

An instance is a shipped name (``packing/l_tromino_cube``), a data file's path, or an
`Instance` from `load`. A formulation is a family's formulation name or ``FILE.py:NAME``.
Every solution is checked by the family's independent checker before it is returned.
Mistakes the user can fix raise `pyomo_puzzles.errors.UserError` with a one-line message.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import pandas

    from pyomo_puzzles.core.enumerate import CountResult
    from pyomo_puzzles.core.instances import Instance
    from pyomo_puzzles.core.records import RunRecord
    from pyomo_puzzles.core.registry import Family

def load(instance: str | Path | Instance) -> Instance:
    """A validated instance from a shipped name or a data file (an `Instance` is returned as is)."""
    from pyomo_puzzles.core import instances

    if isinstance(instance, instances.Instance):
        return instance
    return instances.load(instance)


def solve(instance: str | Path | Instance, formulation: str | None = None, solver: str | None = None, *,
          time_limit: float | None = 60.0, threads: int | None = 1, seed: int | None = None,
          permutation: int = 0, gap: float | None = None, memory_limit_mb: float | None = None,
          isolate: bool = True) -> RunRecord:
    """Build, solve, decode and check one instance; returns its run record.

    `solver` None is the first registered MIP solver (HiGHS). With `isolate` (the default)
    the run, loading the data file included, happens in a child process that is killed past
    `time_limit` plus a grace period or past `memory_limit_mb`, and at once on Ctrl-C
    (`pyomo_puzzles.core.run.Interrupted`, carrying the record); the record says so. The
    record's ``picture(path)`` draws its solution."""
    from pyomo_puzzles.core import run

    record = run.run(instance, formulation, solver, time_limit, threads, isolate=isolate, seed=seed,
                     permutation=permutation, gap=gap, memory_limit_mb=memory_limit_mb)
    record.attach(instance)
    return record


def count(instance: str | Path | Instance, formulation: str | None = None, solver: str | None = None, *,
          up_to_symmetry: bool = False, time_limit: float | None = None, threads: int | None = 1,
          limit: int | None = None, keep_solutions: bool = False, split: int | None = None,
          seed: int | None = None, on_found: Callable[[int, int], None] | None = None) -> CountResult:
    """Enumerate and count the solutions (or, `up_to_symmetry`, the orbits) of an instance.

    The result's ``complete`` says whether the count is exhaustive; every solution found was
    checked. `keep_solutions` keeps one solution per orbit in ``representatives``. The time
    limit covers loading the instance: a load that outlasts it is stopped (in the main
    thread) and the count is incomplete, saying so."""
    import time

    from pyomo_puzzles.core import enumerate as enumeration

    started = time.perf_counter()
    try:
        with enumeration.deadline(time_limit):
            loaded = load(instance)
    except enumeration.OutOfTime:
        return enumeration.CountResult(str(instance), formulation or "", solver or "", up_to_symmetry, seed=seed,
                                       message=f"time limit reached while loading the instance "
                                               f"({time.perf_counter() - started:.1f} s)",
                                       elapsed=time.perf_counter() - started)
    return enumeration.count_solutions(loaded, formulation, solver, up_to_symmetry=up_to_symmetry,
                                       time_limit=time_limit, threads=threads, limit=limit,
                                       keep_solutions=keep_solutions, split=split, seed=seed, on_found=on_found,
                                       started=started)


def check(instance: str | Path | Instance, solution: dict[str, Any]) -> list[str]:
    """What is wrong with `solution` according to the family's independent checker (empty: valid)."""
    from pyomo_puzzles.core.run import check_solution

    return check_solution(load(instance), solution)


def picture(instance: str | Path | Instance, solution: dict[str, Any], path: str | Path) -> Path:
    """Draw `solution` of `instance` to `path` (PNG, PDF or SVG by its suffix)."""
    from pyomo_puzzles.core.files import write_atomic

    check_picture_path(path)
    loaded = load(instance)
    draw = loaded.family.drawing()
    return write_atomic(path, lambda tmp: draw(loaded.spec, solution, tmp))


def check_picture_path(path: str | Path) -> None:
    """A picture's file name must end in a format matplotlib writes (UserError otherwise)."""
    from matplotlib.backend_bases import FigureCanvasBase

    from pyomo_puzzles.errors import UserError

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise UserError(f"picture {path}: unsupported format {suffix or '(no suffix)'!r} "
                        f"(choose {', '.join(sorted(formats))})")


def results(folder: str | Path) -> pandas.DataFrame:
    """The runs table of a results folder: one row per run record under ``FOLDER/runs``,
    the columns of the pipeline's ``tables/runs.csv`` (read from the records, so it also
    covers a pipeline that has not finished)."""
    from pyomo_puzzles.errors import UserError
    from pyomo_puzzles.workflow import runs_table

    folder = Path(folder)
    if not (folder / "runs").is_dir():
        raise UserError(f"{folder}: not a results folder (it has no 'runs' folder)")
    paths = sorted(str(p) for p in (folder / "runs").rglob("*.json"))
    return runs_table(paths, str(folder))


def list_families() -> dict[str, Family]:
    """Every registered family (shipped and plugins) by name."""
    from pyomo_puzzles.core import registry

    return registry.families()


def list_instances() -> list[str]:
    """The names of every shipped instance (plugins' included)."""
    from pyomo_puzzles.core import instances as found

    return list(found.shipped_instances())


def list_solvers() -> dict[str, str]:
    """Every registered solver by name: its version, or why it is missing."""
    from pyomo_puzzles.core import solvers as registered

    return {name: registered.describe(name).detail for name in registered.names()}
