"""What the Snakemake scripts call: thin wrappers around the public run functions."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from pyomo_puzzles.core import instances, records, run


def solve_to_record(smk: Any) -> None:
    """Run one (instance, formulation, solver) and write its record, whatever happens.

    A formulation that does not apply to the instance is recorded as an error with the
    reason, so the results table shows it rather than silently missing it.
    """
    w = smk.wildcards
    name = f"{w.puzzle}/{w.name}"
    with open(smk.log[0], "w") as log, contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        instance = instances.load(name)
        try:
            record = run.run(instance, w.formulation, w.solver, smk.params.time_limit,
                             smk.params.threads, isolate=True)
        except Exception as error:  # noqa: BLE001 - a record must be written for every run
            record = records.RunRecord(puzzle=w.puzzle, instance=name, formulation=w.formulation,
                                       solver=w.solver, status="error", message=str(error))
        print(f"{name} {w.formulation} {w.solver}: {record.status} {record.message}")
    records.write_json_atomic(smk.output.record, record.to_dict())


def draw_instance(smk: Any) -> None:
    w = smk.wildcards
    instance = instances.load(f"{w.puzzle}/{w.name}")
    record = run.run(instance, None, smk.params.solver, time_limit=60, isolate=False)
    if record.solution is None or not record.checked:
        raise RuntimeError(f"no checked solution to draw: {record.status} {record.message}")
    instance.family.draw(instance.spec, record.solution, Path(smk.output.picture))


def records_table(paths: list[str]) -> str:
    """A Markdown table, one row per run record."""
    rows = ["| instance | formulation | solver | status | checked | wall s | solver s | nodes |",
            "|---|---|---|---|---|---|---|---|"]
    for path in paths:
        r = records.RunRecord.from_dict(json.loads(Path(path).read_text()))
        wall = f"{r.wall_time:.3f}" if r.wall_time is not None else "-"
        solver_time = f"{r.solver_time:.3f}" if r.solver_time is not None else "-"
        rows.append(f"| {r.instance} | {r.formulation} | {r.solver_version or r.solver} | {r.status} | "
                    f"{r.checked} | {wall} | {solver_time} | {r.nodes if r.nodes is not None else '-'} |")
    return "\n".join(rows) + "\n"


def summarise_records(smk: Any) -> None:
    table = records_table(list(smk.input.records))
    Path(smk.output.table).write_text(table, encoding="utf-8")
