"""The run record and what it is made from: one status vocabulary, one settings object, one
function that builds a record, the record's JSON schema, and atomic JSON writes.

Plain data: nothing here imports the rest of the framework, so every layer can use it.
"""

from __future__ import annotations

import dataclasses
import socket
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from pyomo_puzzles.core.files import write_json_atomic
from pyomo_puzzles.version import __version__

SOLVER_STATUSES = ("optimal", "feasible", "infeasible", "time_limit", "licence_limit", "error")
"""What a solver can say (`core.solver_contract.SolveOutcome.status`)."""

STATUSES = (*SOLVER_STATUSES[:-1], "memory_limit", "interrupted", "not_applicable", "error")
"""What a run record can say: a solver's statuses, and the framework's own ``memory_limit``
(its memory limit stopped the run), ``interrupted`` (Ctrl-C or SIGTERM) and
``not_applicable`` (the formulation or reference method cannot answer the instance, a
generated one found so only when it is made: the pipeline's record of a cell it leaves out,
which is no run and in no table)."""


_FRAMEWORK = {"applied_by": "framework"}
"""Marks a setting the framework applies itself; the others reach the solver (`Adapter.options`)."""


@dataclass(frozen=True)
class RunSettings:
    """How a run is made: limits and the knobs of performance variability. One object from
    the command line, the API and the pipeline down to the solver adapter (which gets it with
    `time_limit` lowered to what is left of the run's limit).

    time_limit: seconds for the whole run (None: none); threads: the solver's threads, or,
    for a formulation solved in stages, how many parts are solved at once (`core.parts`);
    seed: the solver's random seed (None: its default); permutation: 0 for the model as
    built, k >= 1 for the k-th reproducible permutation of its rows and columns; gap:
    relative optimality gap at which the solver may stop (None: its default);
    memory_limit_mb: resident memory of the run (solver processes included) past which it
    is stopped with status ``memory_limit`` (isolated runs only)."""

    time_limit: float | None = 60
    threads: int | None = 1
    seed: int | None = None
    permutation: int = field(default=0, metadata=_FRAMEWORK)
    gap: float | None = None
    memory_limit_mb: float | None = field(default=None, metadata=_FRAMEWORK)

    def replace(self, **changes: Any) -> "RunSettings":
        return dataclasses.replace(self, **changes)


def setting_names() -> tuple[str, ...]:
    """The names of the run settings (the options of `api.solve`, the pipeline's keys)."""
    return tuple(f.name for f in dataclasses.fields(RunSettings))


def solver_setting_names() -> tuple[str, ...]:
    """The settings that reach the solver through its adapter (`core.solver_contract.Options`)."""
    return tuple(f.name for f in dataclasses.fields(RunSettings) if f.metadata != _FRAMEWORK)


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
    objective_sense: str | None = None
    objective_checked: bool | None = None
    bound: float | None = None
    wall_time: float | None = None
    load_time: float | None = None
    prepare_time: float | None = None
    startup_time: float | None = None
    build_time: float | None = None
    generate_time: float | None = None
    compile_time: float | None = None
    call_time: float | None = None
    solver_time: float | None = None
    solver_clock: str | None = None
    decode_time: float | None = None
    check_time: float | None = None
    cpu_time: float | None = None
    nodes: int | None = None
    models: int | None = None
    stages: list | None = None
    matrix_digest: str | None = None
    root_bound: float | None = None
    presolved_variables: int | None = None
    presolved_rows: int | None = None
    presolved_nonzeros: int | None = None
    progress: list | None = None
    progress_source: str | None = None
    primal_dual_integral: float | None = None
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
    runs_before_in_process: int | None = None
    message: str = ""
    check_errors: list[str] = field(default_factory=list)
    killed: bool = False
    framework_version: str = ""
    host: str = ""
    started_at: str = ""
    fingerprint: dict | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunRecord":
        names = {f.name for f in dataclasses.fields(RunRecord)} - {"generate_time"}
        return cls(**{k: v for k, v in data.items() if k in names}, generate_time=generate_time(data))


def generate_time(record: dict[str, Any]) -> float | None:
    """A record's ``generate_time``; for one written before that field, its stages' sum."""
    if record.get("generate_time") is not None or not record.get("stages"):
        return record.get("generate_time")
    return sum(stage["generate_time"] for stage in record["stages"])


def new_record(puzzle: str, instance: str, formulation: str, solver: str, settings: RunSettings,
               **facts: Any) -> RunRecord:
    """The record of a run about to start (status ``error`` until it says otherwise): its
    names, its settings, the framework's version, the host and the start time; `facts` set
    further fields (``solver_version="xcover 0.2.6"``)."""
    record = RunRecord(
        puzzle=puzzle, instance=instance, formulation=formulation, solver=solver,
        time_limit=settings.time_limit, threads=settings.threads, gap_limit=settings.gap, seed=settings.seed,
        permutation=settings.permutation, memory_limit_mb=settings.memory_limit_mb,
        framework_version=__version__, host=socket.gethostname(),
        started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
    for name, value in facts.items():
        setattr(record, name, value)
    return record


RUN_RECORD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "pyomo-puzzles run record",
    "type": "object",
    "additionalProperties": False,
    "required": ["puzzle", "instance", "formulation", "solver", "status", "checked"],
    "properties": {
        "puzzle": {"type": "string", "description": "puzzle family, e.g. packing"},
        "instance": {"type": "string", "description": "instance name, e.g. packing/l_tromino_cube"},
        "formulation": {"type": "string", "description": "the family's formulation (a registered name, or "
                        "FILE.py:NAME for one in a plain Python file)"},
        "solver": {"type": "string", "description": "a registered solver (highs, cbc, glpk, scip, gurobi, cplex, "
                   "cpsat, pyomo:NAME) or a family's reference solver (dlx)"},
        "solver_version": {"type": ["string", "null"], "description": "the solver's own version as its library "
                           "reports it, with its binding and hand-over path (null: unknown)"},
        "status": {
            "enum": list(STATUSES),
            "description": "optimal: proven optimal (or, for a pure feasibility model, a solution "
            "found); feasible: a solution without proof; infeasible: proven to have none; "
            "time_limit: stopped by the time limit (a solution may be attached); "
            "licence_limit: the solver's licence does not cover a model this size (its message in "
            "'message'); memory_limit: stopped by the run's memory limit; interrupted: stopped by "
            "Ctrl-C or SIGTERM (its processes were killed; a pipeline redoes it); not_applicable: the "
            "formulation or reference method cannot answer this instance ('message' says why; the "
            "pipeline leaves such a cell out of every table); error: the solver failed "
            "or its solution failed the check",
        },
        "objective": {"type": ["number", "null"], "description": "the incumbent's objective: recomputed from the "
                      "checked solution by the family's objective hook where it has one (objective_checked), "
                      "else the solver's claim (null: no solution, or a feasibility model)"},
        "objective_sense": {"enum": ["minimize", "maximize", None],
                            "description": "whether the model minimises or maximises its objective (null: the "
                            "run built no model); a claimed optimum worse than another run's checked solution of "
                            "the same formulation is a wrong answer"},
        "objective_checked": {
            "type": ["boolean", "null"],
            "description": "true: the family's objective hook, applied to the checked solution alone, gives "
            "'objective' (within core.checking.OBJECTIVE_CHECK_TOLERANCE); false: it does not, and the run is an "
            "error naming both values; null: not checked (no solution, or a family without an objective hook: "
            "'objective' is then the solver's claim, and no known answer or other run is judged by it)"},
        "bound": {"type": ["number", "null"], "description": "best proven objective bound"},
        "wall_time": {"type": ["number", "null"], "description": "whole run: build, solve, decode, check"},
        "load_time": {"type": ["number", "null"],
                      "description": "reading and validating the data file (in a pipeline's batch: the batch's "
                      "process reads it once, and its forked runs inherit it) and declaring the formulation's "
                      "AbstractModel (once per process), before wall_time starts (the time limit covers it)"},
        "prepare_time": {"type": ["number", "null"],
                         "description": "a forked (isolated) run's process preparing itself after loading and "
                         "before the run's clock and limit: a tiny model built and solved by the run's solver, so "
                         "that the copy-on-write faults of the shared libraries' pages and the solver's per-process "
                         "set-up are paid here and not in the run's build and solve (core.warmup.prepared_child); "
                         "null for a run made in the caller's process"},
        "startup_time": {"type": ["number", "null"],
                         "description": "the solver's one-off start-up (imports, licence check, deferred imports "
                         "of its interface) paid by this run's process before the run's clock started: its "
                         "seconds on the first run of a process, 0 on the runs after it (they inherit it), its "
                         "seconds again on the run after one its helper processes were killed with (the CP-SAT "
                         "worker), null for a solver that declares none (its imports happen while the run loads, "
                         "in load_time) and for a reference solver"},
        "build_time": {"type": ["number", "null"], "description": "Pyomo: data to concrete model"},
        "generate_time": {"type": ["number", "null"],
                          "description": "a formulation solved in stages: its own work between its models "
                          "(generating the stages, settling parts without a solver), summed over the stages; "
                          "null for one model"},
        "compile_time": {"type": ["number", "null"],
                         "description": "the concrete model compiled into the one sparse matrix every matrix "
                         "solver is handed (core.linear_form); 0 where the adapter takes the Pyomo model"},
        "call_time": {"type": ["number", "null"],
                      "description": "the solver call on the framework's clock: handing the model to the solver, "
                      "the solver's run (solver_time, where it reports one) and reading the answer back"},
        "solver_time": {"type": ["number", "null"],
                        "description": "the solver's own clock (null where the solver reports no time of its own), "
                        "or, where solver_clock is 'call', its library's solve call alone on the framework's clock"},
        "solver_clock": {"enum": ["solver", "call", None],
                         "description": "what solver_time was measured by: 'solver', the solver's own clock; 'call', "
                         "an in-process library without a clock of its own (CBC, GLPK), its solve call timed around "
                         "it (the hand-over of the model and reading back excluded); null where solver_time is null"},
        "decode_time": {"type": ["number", "null"],
                        "description": "reading the solved model into the puzzle's terms (the formulation's decode)"},
        "check_time": {"type": ["number", "null"], "description": "the independent checker"},
        "cpu_time": {"type": ["number", "null"],
                     "description": "CPU seconds (user and system) over wall_time, of the run's process, the "
                     "solver processes it started and the solver's helper processes while they worked for it"},
        "nodes": {"type": ["integer", "null"], "description": "branch-and-bound nodes, null if the solver does not say"},
        "models": {"type": ["integer", "null"], "minimum": 0,
                   "description": "the models handed to the solver (a staged formulation solves one per part); "
                   "null for a reference method"},
        "stages": {"type": ["array", "null"],
                   "items": {"type": "object",
                             "required": ["objective", "parts", "settled", "solved", "generate_time", "build_time",
                                          "compile_time", "call_time", "solver_time", "nodes"]},
                   "description": "a formulation solved in stages (iterative deepening): per stage its objective, "
                   "its parts, those settled without a model, the models solved, and the seconds its generation took "
                   "(the formulation's own work between models), building its models, compiling them into matrices, the "
                   "solver calls and the "
                   "solver's own clock (null: a solver without one), and nodes; null for one model"},
        "matrix_digest": {"type": ["string", "null"],
                          "description": "SHA-256 (16 hex digits) of the matrix the solver received (rows, columns, "
                          "bounds, integrality, coefficients, objective; of the sorted digests of every model for "
                          "a staged formulation): every solver of one instance, formulation and permutation given "
                          "the same models shows the same digest; null where the adapter takes the Pyomo model"},
        "root_bound": {"type": ["number", "null"],
                       "description": "the dual bound at the end of the root node (its cuts and heuristics done), "
                       "where the solver reports its progress (HiGHS, SCIP, Gurobi, CPLEX: its last bound reported before a second "
                       "node was done, `core.solver_contract.root_bound`); null otherwise and "
                       "for a model without an objective"},
        **{f"presolved_{what}": {"type": ["integer", "null"], "minimum": 0,
                                 "description": f"the {what} of the model after the solver's presolve (SCIP: at "
                                 "the end of its solve, after any restart; HiGHS: from its log, for an integer "
                                 "program with an objective); null where the solver does not say and for a "
                                 "formulation solved in stages"}
           for what in ("variables", "rows", "nonzeros")},
        "progress": {"type": ["array", "null"],
                     "items": {"type": "array", "minItems": 3, "maxItems": 3,
                               "prefixItems": [{"type": "number", "minimum": 0}, {"type": ["number", "null"]},
                                               {"type": ["number", "null"]}]},
                     "description": "[seconds, incumbent, bound] whenever either changed (the solver's own time; "
                     "null: none yet), the last point the run's end (`core.progress`); null for a model without "
                     "an objective and for a formulation solved in stages"},
        "progress_source": {"type": ["string", "null"], "enum": ["solver", "final", None],
                            "description": "solver: the solver reported its incumbents and bounds as they came; "
                            "final: it reports only the end, the trace has that point alone"},
        "primal_dual_integral": {"type": ["number", "null"], "minimum": 0,
                                 "description": "seconds-weighted gap between incumbent and bound over the run "
                                 "(Berthold 2013; `core.progress`), the same computation for every solver"},
        "checked": {
            "type": ["boolean", "null"],
            "description": "true: the solution passed the independent checker; false: it failed; "
            "null: there was no solution to check",
        },
        "solution": {"type": ["object", "null"], "description": "decoded solution in the puzzle's terms"},
        "gap": {"type": ["number", "null"], "minimum": 0,
                "description": "relative gap |objective - bound| / |objective| at the end (0: proven optimal)"},
        "time_limit": {"type": ["number", "null"], "description": "the solver's time limit in seconds (null: none)"},
        "threads": {"type": ["integer", "null"], "description": "the solver's threads (or parts solved at once; "
                    "null: its default)"},
        "gap_limit": {"type": ["number", "null"],
                      "description": "relative gap at which the solver was allowed to stop (null: its default)"},
        "seed": {"type": ["integer", "null"], "description": "the solver's random seed (null: its default)"},
        "permutation": {"type": "integer", "minimum": 0,
                        "description": "0: rows and columns as built; k: the k-th reproducible permutation"},
        "memory_limit_mb": {"type": ["number", "null"], "description": "the run's memory limit (MiB), if any"},
        "peak_memory_mb": {"type": ["number", "null"],
                           "description": "peak resident memory of the run's process plus its solver processes "
                           "and the solver's helper processes working for it (MiB); null for runs that were not "
                           "isolated"},
        "runs_before_in_process": {"type": ["integer", "null"], "minimum": 0,
                                   "description": "how many runs the process that made this one had made before it "
                                   "(a pipeline's batch makes its runs one after another in one forked process, "
                                   "replaced after a run that was killed or crashed, unless the experiment says "
                                   "processes: per_run): 0 for a run in a process of its own or the first of its "
                                   "process; each run builds its own model and pays its own hand-over whatever "
                                   "its process made before; null for a run made in the caller's process"},
        "message": {"type": "string", "description": "why a run failed or was killed"},
        "check_errors": {"type": "array", "items": {"type": "string"},
                         "description": "what the independent checker found wrong with the solution (empty: valid)"},
        "killed": {"type": "boolean",
                   "description": "killed by the framework: hard deadline (time limit + grace) or memory limit"},
        "framework_version": {"type": "string", "description": "the pyomo-puzzles version that made the record"},
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


__all__ = ["RUN_RECORD_SCHEMA", "STATUSES", "SOLVER_STATUSES", "RunRecord", "RunSettings", "new_record",
           "setting_names", "solver_setting_names", "write_json_atomic"]
