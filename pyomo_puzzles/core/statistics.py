"""What a formulation is, in the figures a formulation paper prints: its size and the
strength of its LP relaxation, per instance.

Sizes are read off the matrix every solver is given (`core.linear_form`: the columns the
rows and the objective use, a fixed variable being a constant), so they are the model's
size as the solvers see it before their presolve: variables (binary: integer within
[0, 1]; integer; continuous), rows and nonzeros.

The LP relaxation is that matrix with every integrality dropped, solved by one LP solver:
a MIP adapter with a matrix session (the first by rank among the installed ones unless
named; the table names it). Against the instance's known optimum z* (`core.known`: its data
file, its family, the benchmark library) the integrality gap is
``|z* - z_LP| / max(|z*|, 1)``. A feasibility model (no objective) has no gap; what its LP
tells is whether it alone proves the instance infeasible.

A formulation solved as a sequence of models (`registry.Stage`: iterative deepening, each
horizon split into parts) is reported per stage, from the first to the stage of the known
optimum (the first only where no optimum is known): sizes summed over the stage's parts,
and how many parts the LP relaxation alone proves infeasible. Each stage below the optimum
is a proof of infeasibility the solver has to make part by part, so the share of parts the
LP settles is that formulation's LP strength; a single LP value would mean nothing there.
A run searches the optimum's stage only until a part has a solution, and on large instances
that stage holds most of the parts (468 of the 3x3x3 depth-12 scramble's): with
``optimum_stage=False`` (the pipeline's ``models.optimum_stage``) its parts are counted, not
built or relaxed.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pyomo_puzzles.core import known, models, solvers
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.core.solver_contract import outcome_without_columns
from pyomo_puzzles.errors import UserError

if TYPE_CHECKING:
    import pandas

LP_TIME_LIMIT = 60.0
"""Seconds the LP solver gets for one relaxation by default."""

COLUMNS = ("instance", "formulation", "stage", "parts", "settled", "variables", "binary", "integer", "continuous", "rows",
           "nonzeros", "lp_solver", "lp_status", "lp_value", "lp_infeasible_parts", "reference_objective",
           "reference_from", "integrality_gap")
"""The columns of ``tables/models.csv``, in order (one row per `ModelStatistics`; the table adds
``message``: why a formulation's statistics are missing)."""


@dataclass(frozen=True)
class Size:
    """A matrix's size: variables by type, rows, nonzeros."""

    variables: int = 0
    binary: int = 0
    integer: int = 0
    continuous: int = 0
    rows: int = 0
    nonzeros: int = 0

    def __add__(self, other: "Size") -> "Size":
        return Size(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other))))


@dataclass(frozen=True)
class ModelStatistics:
    """One formulation of one instance (one stage of a staged formulation)."""

    instance: str
    formulation: str
    size: Size | None
    """None: the stage's parts were counted only (`model_statistics`' ``optimum_stage``)."""
    stage: float | None = None
    """The stage's objective (a staged formulation), None for a formulation solved in one model."""
    parts: int = 1
    """Models in it: 1, or the stage's parts that needed a model."""
    settled: int | None = None
    """A stage: its parts the formulation settled without a model (None: one model)."""
    lp_solver: str | None = None
    lp_status: str | None = None
    """``optimal``, ``infeasible``, ... (the run record's words; ``feasible`` for a model without
    an objective whose LP relaxation has a solution); a stage: ``infeasible`` when the
    LP relaxation proves every part infeasible, else ``feasible``; None: no LP solved (no LP
    solver, or a stage without models)."""
    lp_value: float | None = None
    lp_infeasible_parts: int | None = None
    """A stage: the parts whose LP relaxation is infeasible (a one-model formulation: None)."""
    reference_objective: float | None = None
    reference_from: str | None = None
    integrality_gap: float | None = None

    def row(self) -> dict:
        """The statistics as one row of ``tables/models.csv`` (`COLUMNS`)."""
        sizes = dataclasses.asdict(self.size) if self.size is not None else dict.fromkeys(
            field.name for field in dataclasses.fields(Size))
        fields = {**dataclasses.asdict(self), **sizes}
        return {column: fields[column] for column in COLUMNS}


def matrix_size(form) -> Size:
    """The size of a `LinearForm`."""
    integer = form.integer.astype(bool)
    binary = integer & (form.col_lower >= 0) & (form.col_upper <= 1)
    return Size(variables=len(form.columns), binary=int(binary.sum()), integer=int((integer & ~binary).sum()),
                continuous=int((~integer).sum()), rows=len(form.row_lower), nonzeros=len(form.value))


def lp_solver_named(name: str | None) -> str | None:
    """The LP solver to use: `name` (checked: a MIP adapter with a matrix session, installed)
    or the default one."""
    if name is None:
        return solvers.default_lp_solver()
    if not solvers.solves_lp_relaxations(solvers.adapter(name)):
        raise UserError(f"option --lp-solver: '{name}' is not a MIP solver taking the matrix, which an LP "
                        f"relaxation needs (choose one such as {solvers.default_lp_solver() or 'highs'})")
    solvers.require(name)
    return name


def relaxation(form, lp_solver: str, time_limit: float = LP_TIME_LIMIT) -> tuple[str, float | None]:
    """(status, objective) of the LP relaxation of `form` by `lp_solver`."""
    import numpy as np  # numpy: loaded with the model's matrix already

    relaxed = dataclasses.replace(form, integer=np.zeros(len(form.columns), dtype=bool))
    if not relaxed.columns:
        outcome = outcome_without_columns(relaxed)
    else:
        settings = RunSettings(time_limit=time_limit, threads=1)
        outcome = solvers.adapter(lp_solver).matrix_session(relaxed, settings).solve()
    return outcome.status, (outcome.objective if outcome.status == "optimal" else None)


def integrality_gap(reference: float | None, lp_value: float | None) -> float | None:
    """|z* - z_LP| / max(|z*|, 1); None without both; 0 within the LP solver's rounding (1e-9)."""
    if reference is None or lp_value is None:
        return None
    gap = abs(reference - lp_value) / max(abs(reference), 1.0)
    return 0.0 if gap <= 1e-9 else gap


def model_statistics(instance: Instance, formulation: str | None = None, lp_solver: str | None = None,
                     time_limit: float = LP_TIME_LIMIT, optimum_stage: bool = True) -> list[ModelStatistics]:
    """The statistics of `formulation` on `instance`: one entry, or one per stage of a staged
    formulation (see the module docstring; `optimum_stage` False: the stage of the known
    optimum only counted, its parts neither built nor relaxed). `lp_solver` None:
    `default_lp_solver` (no LP solved where none is installed)."""
    form = models.choose_formulation(instance, formulation)
    lp_solver = lp_solver_named(lp_solver)
    answer = known.known_answer(instance)
    common = {"instance": instance.name, "formulation": form.name, "lp_solver": lp_solver,
              "reference_objective": answer.objective, "reference_from": answer.objective_from}
    if form.stages is None:
        return [_one_model(models.build_model(instance, form), common, lp_solver, time_limit)]
    return _per_stage(instance, form, common, lp_solver, time_limit, answer.objective, optimum_stage)


def _compiled(model):
    from pyomo_puzzles.core.linear_form import linear_form  # numpy: only where a matrix is read

    return linear_form(model)


def _one_model(model, common: dict, lp_solver: str | None, time_limit: float) -> ModelStatistics:
    form = _compiled(model)
    status, value = relaxation(form, lp_solver, time_limit) if lp_solver else (None, None)
    if not models.has_objective(model):  # a feasibility model: the runs keep no trace of it either
        common = {**common, "reference_objective": None, "reference_from": None}
        status, value = ("feasible" if status == "optimal" else status), None
    gap = integrality_gap(common["reference_objective"], value)
    return ModelStatistics(size=matrix_size(form), lp_status=status, lp_value=value, integrality_gap=gap, **common)


def _per_stage(instance: Instance, form, common: dict, lp_solver: str | None, time_limit: float,
               optimum: float | None, optimum_stage: bool) -> list[ModelStatistics]:
    found = []
    for stage in form.stages(instance.spec):
        at_optimum = optimum is not None and stage.objective >= optimum - 1e-9
        if at_optimum and not optimum_stage:
            found.append(ModelStatistics(size=None, stage=stage.objective, parts=len(stage.parts),
                                         settled=stage.settled, **common))
            break
        size, infeasible = Size(), 0
        for part in stage.parts:
            model = models.instantiate(form, part)
            compiled = _compiled(model)
            size += matrix_size(compiled)
            if lp_solver and relaxation(compiled, lp_solver, time_limit)[0] == "infeasible":
                infeasible += 1
            models.release(model)
        solved = lp_solver is not None and bool(stage.parts)
        found.append(ModelStatistics(
            size=size, stage=stage.objective, parts=len(stage.parts), settled=stage.settled,
            lp_status=None if not solved else "infeasible" if infeasible == len(stage.parts) else "feasible",
            lp_infeasible_parts=infeasible if solved else None, **common))
        if optimum is None or at_optimum or stage.solution is not None:
            break
    return found


def models_table(paths: list[str]) -> "pandas.DataFrame":
    """``tables/models.csv`` from the pipeline's statistics records (`jobs.model_statistics_to_record`):
    their rows, and for a record without any, one row naming the instance and formulation with its message."""
    import pandas as pd  # pandas: the report job only

    rows = []
    for path in paths:
        record = json.loads(Path(path).read_text())
        if record.get("rows"):
            rows += [{**row, "message": None} for row in record["rows"]]
        else:
            rows.append({"instance": record.get("instance"), "formulation": record.get("formulation"),
                         "message": record.get("message") or "no statistics"})
    return pd.DataFrame(rows, columns=[*COLUMNS, "message"])
