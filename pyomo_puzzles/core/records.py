"""The run record: one dataclass, its JSON schema, and atomic JSON writes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

STATUSES = ("optimal", "feasible", "infeasible", "time_limit", "licence_limit", "memory_limit", "interrupted", "error")


@dataclass
class RunRecord:
    """What one run of a formulation on a solver did. Times are seconds."""

    puzzle: str
    instance: str
    formulation: str
    solver: str
    solver_version: str | None = None
    status: str = "error"
    objective: float | None = None
    bound: float | None = None
    wall_time: float | None = None
    load_time: float | None = None
    build_time: float | None = None
    solver_time: float | None = None
    nodes: int | None = None
    checked: bool | None = None
    solution: dict | None = None
    gap: float | None = None
    time_limit: float | None = None
    threads: int | None = None
    gap_limit: float | None = None
    seed: int | None = None
    permutation: int = 0
    memory_limit_mb: float | None = None
    peak_memory_mb: float | None = None
    message: str = ""
    check_errors: list[str] = field(default_factory=list)
    killed: bool = False
    framework_version: str = ""
    host: str = ""
    started_at: str = ""
    fingerprint: dict | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def attach(self, instance: Any) -> None:
        """Keep the instance the record belongs to, loaded or its name or file (for
        `picture`; not serialised)."""
        self._instance = instance

    def picture(self, path: str | Path) -> Path:
        """Draw the record's solution to `path` (PNG, PDF or SVG by its suffix)."""
        from pyomo_puzzles.errors import UserError

        if self.solution is None:
            raise UserError(f"the run of {self.instance} on {self.solver} ({self.status}) holds no solution to draw")
        from pyomo_puzzles.api import picture

        return picture(getattr(self, "_instance", None) or self.instance, self.solution, path)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunRecord":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


RUN_RECORD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles run record",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle", "instance", "formulation", "solver", "status", "checked"],
    "properties": {
        "puzzle": {"type": "string", "description": "puzzle family, e.g. packing"},
        "instance": {"type": "string", "description": "instance name, e.g. packing/l_tromino_cube"},
        "formulation": {"type": "string"},
        "solver": {"type": "string", "description": "a registered solver (highs, cbc, glpk, scip, gurobi, cplex, "
                   "cpsat, pyomo:NAME) or a family's reference solver (dlx)"},
        "solver_version": {"type": ["string", "null"]},
        "status": {
            "enum": list(STATUSES),
            "description": "optimal: proven optimal (or, for a pure feasibility model, a solution "
            "found); feasible: a solution without proof; infeasible: proven to have none; "
            "time_limit: stopped by the time limit (a solution may be attached); "
            "licence_limit: the solver's licence does not cover a model this size (its message in "
            "'message'); memory_limit: stopped by the run's memory limit; interrupted: stopped by "
            "Ctrl-C or SIGTERM (its processes were killed; a pipeline redoes it); error: the solver failed "
            "or its solution failed the check",
        },
        "objective": {"type": ["number", "null"]},
        "bound": {"type": ["number", "null"], "description": "best proven objective bound"},
        "wall_time": {"type": ["number", "null"], "description": "whole run: build, solve, decode, check"},
        "load_time": {"type": ["number", "null"],
                      "description": "reading and validating the data file and declaring the formulation's "
                      "AbstractModel (once per process), before wall_time starts (the time limit covers it)"},
        "build_time": {"type": ["number", "null"], "description": "Pyomo: data to concrete model"},
        "solver_time": {"type": ["number", "null"], "description": "as reported by the solver interface"},
        "nodes": {"type": ["integer", "null"], "description": "branch-and-bound nodes, null if the solver does not say"},
        "checked": {
            "type": ["boolean", "null"],
            "description": "true: the solution passed the independent checker; false: it failed; "
            "null: there was no solution to check",
        },
        "solution": {"type": ["object", "null"], "description": "decoded solution in the puzzle's terms"},
        "gap": {"type": ["number", "null"], "minimum": 0,
                "description": "relative gap |objective - bound| / |objective| at the end (0: proven optimal)"},
        "time_limit": {"type": ["number", "null"]},
        "threads": {"type": ["integer", "null"]},
        "gap_limit": {"type": ["number", "null"],
                      "description": "relative gap at which the solver was allowed to stop (null: its default)"},
        "seed": {"type": ["integer", "null"], "description": "the solver's random seed (null: its default)"},
        "permutation": {"type": "integer", "minimum": 0,
                        "description": "0: rows and columns as built; k: the k-th reproducible permutation"},
        "memory_limit_mb": {"type": ["number", "null"], "description": "the run's memory limit (MiB), if any"},
        "peak_memory_mb": {"type": ["number", "null"],
                           "description": "peak resident memory of the run's process plus its solver processes "
                           "(MiB); null for runs that were not isolated"},
        "message": {"type": "string", "description": "why a run failed or was killed"},
        "check_errors": {"type": "array", "items": {"type": "string"}},
        "killed": {"type": "boolean",
                   "description": "killed by the framework: hard deadline (time limit + grace) or memory limit"},
        "framework_version": {"type": "string"},
        "host": {"type": "string", "description": "the machine the run ran on (host name)"},
        "started_at": {"type": "string", "description": "UTC, ISO 8601"},
        "fingerprint": {
            "type": ["object", "null"],
            "description": "a pipeline run's inputs: digests of the instance data and the formulation's "
            "code, the package and solver versions and the settings; the record is reused only while "
            "they are unchanged (null outside the pipeline)",
        },
    },
}


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write JSON so that readers see either the old file or the whole new one, with the
    umask's mode (see `core.files`)."""
    from pyomo_puzzles.core.files import write_json_atomic as write

    write(path, data)
