"""What the Snakemake scripts call: thin wrappers around the package's public functions.

Runs are done in batches (one Python start-up per batch, see `experiment.batches`). A
batch writes each run's record atomically as soon as the run ends, and keeps a record that
already exists when its fingerprint (`run_fingerprint`: instance data, formulation code,
package and solver versions, settings) is the one the run would have now, so an
interrupted pipeline resumes without redoing finished runs and a changed input is never
served stale. Snakemake's rerun flags (``--forceall``, ``--forcerun solve_batch``,
``--forcerun``/``-f`` on a batch's manifest) redo the runs (`experiment.FORCE_VARIABLE`). The batch's
manifest (its Snakemake output) is written last.

Every job writes to its ``log:`` (what it did, and the error if it failed).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import socket
from pathlib import Path
from typing import Any

import yaml

from pyomo_puzzles import api
from pyomo_puzzles.core import instances, records, registry
from pyomo_puzzles.experiment import FORCE_VARIABLE, Run, environment, generated_path, solver_formulation


SETTINGS = ("time_limit", "threads", "gap", "memory_limit_mb")
"""The experiment's run settings (the Snakemake rule's ``params.settings``)."""

def _digest(*parts: bytes) -> str:
    import hashlib

    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:16]


def _source_digest(*functions) -> str:
    """The code of the files that define `functions` (a formulation's model, data and decoding)."""
    import inspect

    files = sorted({inspect.getsourcefile(f) for f in functions if f is not None})
    return _digest(*(Path(f).read_bytes() for f in files))


def _package_versions(family: registry.Family) -> str:
    """pyomo-puzzles's version, and the version of the distribution a plugin family comes from."""
    from importlib import metadata

    from pyomo_puzzles import __version__

    top = family.load.__module__.split(".")[0]
    if top == "pyomo_puzzles":
        return f"pyomo-puzzles {__version__}"
    dists = metadata.packages_distributions().get(top, [])
    plugin = ", ".join(f"{d} {metadata.version(d)}" for d in dists) or top
    return f"pyomo-puzzles {__version__}; {plugin}"


def run_instance_source(name: str, results: str) -> str:
    """What to load for a run's instance: a shipped name, or a generated instance's file in
    the results folder."""
    return generated_path(name, results) if name.startswith("generated/") else name


def run_fingerprint(item: Run, results: str, settings: dict) -> dict:
    """Everything that determines a run's record: the instance's data (its file and the files
    it is based on), the formulation's code, the package and solver versions, the settings."""
    path = instances.resolve(item.source or run_instance_source(item.instance, results))[1]
    family = registry.family(instances.read_data_file(path).get("puzzle"))
    return {"instance": instances.data_digest(path), **_method_fingerprint(item, family, settings)}


def _method_fingerprint(item: Run, family: registry.Family, settings: dict) -> dict:
    """The part of a run's fingerprint that is not its instance's data."""
    from pyomo_puzzles.core import solvers

    reference = family.reference_solvers.get(item.solver)
    if reference is not None:
        code, version = _source_digest(reference.run), reference.available()[1]
    else:
        form = registry.formulation(family, item.formulation)
        code = _source_digest(form.build_model, form.model_data, form.decode, form.stages)
        version = solvers.availability(item.solver)[1]
    return {"formulation": code, "package": _package_versions(family), "solver": f"{item.solver} {version}",
            "settings": {**{k: settings.get(k) for k in SETTINGS}, "seed": item.seed,
                         "permutation": item.permutation}}


def batch_fingerprint(runs: list[dict], results: str, settings: dict) -> str:
    """One digest of the fingerprints of a batch's runs, a parameter of its Snakemake job: when
    a file a run depends on changes (a plugin's formulation or instance, a formulation file,
    a package or solver version), the digest changes, so plain ``snakemake`` runs the batch
    again, and the batch redoes the changed runs and keeps the others. A generated instance
    counts by its name (generator, options, seed) here: its file is the job's input, made by
    the generate_instances job, whose parameters hold the generators' code."""
    parts = []
    for entry in runs:
        item = Run(**entry)
        try:
            if item.instance.startswith("generated/"):
                family = _generator_family(item.instance.split("/")[1])
                parts.append({"instance": item.instance, **_method_fingerprint(item, family, settings)})
            else:
                parts.append(run_fingerprint(item, results, settings))
        except Exception as error:  # noqa: BLE001 - the batch says what is wrong, run by run
            parts.append({"run": entry, "unreadable": f"{type(error).__name__}: {error}"})
    return _digest(json.dumps(parts, sort_keys=True, default=str).encode())


def _generator_family(generator: str) -> registry.Family:
    return next(fam for fam in registry.families().values() if generator in fam.generators)


def generators_digest(generated: list[dict]) -> str:
    """A digest of the code of the files that define the experiment's generators (a
    parameter of the generate_instances job: an edited generator makes its instances again)."""
    return _source_digest(*(registry.generator(name) for name in sorted({g["generator"] for g in generated})))


def _why_redo(path: Path, fingerprint: dict | None, forced: bool) -> str | None:
    """Why the run must be (re)done, or None to keep the record at `path`."""
    if forced:
        return "rerun forced"
    try:
        old = json.loads(path.read_text())
    except FileNotFoundError:
        return "new"
    except (OSError, json.JSONDecodeError):
        return "the old record is unreadable"
    if old.get("status") == "interrupted":
        return "it was interrupted"
    if fingerprint is None:
        return "its inputs cannot be read"
    before = old.get("fingerprint") or {}
    changed = [key for key in fingerprint if before.get(key) != fingerprint[key]]
    return f"changed since the record: {', '.join(changed)}" if changed else None


def _forced(manifest: str) -> bool:
    """Whether Snakemake was told to rerun this batch (see `FORCE_VARIABLE`)."""
    force = os.environ.get(FORCE_VARIABLE, "")
    return force == "all" or os.path.abspath(manifest) in force.split(os.pathsep)


def load_run_instance(name: str, results: str, source: str | None = None):
    """A shipped instance, a generated one from its file in the results folder, or the
    instance of a data file the configuration names (`source`)."""
    if source is not None:
        return instances.load(source)
    if name.startswith("generated/"):
        path = Path(generated_path(name, results))
        return instances.from_data(instances.read_data_file(path), path, shipped_name=name)
    return instances.load(name)


def run_one(item: Run, results: str, settings: dict) -> records.RunRecord:
    """One run, whatever happens: a formulation or solver problem becomes an error record
    (Ctrl-C or SIGTERM raises `run.Interrupted`, carrying the record)."""
    options = {k: settings.get(k) for k in SETTINGS}
    try:
        instance = item.source or run_instance_source(item.instance, results)
        formulation = None if item.formulation == solver_formulation(item.solver) else item.formulation
        record = api.solve(instance, formulation, item.solver, time_limit=options["time_limit"],
                           threads=options["threads"], isolate=True, seed=item.seed, permutation=item.permutation,
                           gap=options["gap"], memory_limit_mb=options["memory_limit_mb"])
    except Exception as error:  # noqa: BLE001 - a record must be written for every run
        record = records.RunRecord(puzzle=item.instance.split("/")[0], instance=item.instance,
                                   formulation=item.formulation, solver=item.solver, status="error",
                                   message=str(error).splitlines()[0], time_limit=options["time_limit"],
                                   threads=options["threads"], gap_limit=options["gap"], seed=item.seed,
                                   permutation=item.permutation, memory_limit_mb=options["memory_limit_mb"],
                                   host=socket.gethostname())
    record.instance = item.instance
    return record


def write_host(results: str) -> Path:
    """``hosts/<host>.json``: CPU, cores, memory and OS of the machine this process runs on,
    written once per host (under SLURM the runs of one experiment land on several nodes)."""
    from pyomo_puzzles.experiment import host_facts

    path = Path(results) / "hosts" / f"{socket.gethostname()}.json"
    if not path.exists():
        records.write_json_atomic(path, host_facts())
    return path


@contextlib.contextmanager
def job_log(smk: Any):
    """Run a Snakemake job with its output going to its ``log:`` file, which says when the
    job started and ended; a `UserError` (a disk full, a broken file) ends the job with one
    line, in the log and on stderr, and exit code 1. SIGTERM (Snakemake or SLURM cancelling
    the job) stops it as Ctrl-C does."""
    import sys
    import time

    from pyomo_puzzles.core.interrupts import sigterm_as_interrupt
    from pyomo_puzzles.errors import UserError

    started = time.perf_counter()
    with sigterm_as_interrupt(), _log_file(smk.log[0]) as log:
        _say(log, f"{smk.rule} job on {socket.gethostname()}, pid {os.getpid()}")
        try:
            with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
                yield
        except (UserError, OSError) as error:  # OSError: the log itself cannot be written (disk full)
            line = f"pyomo-puzzles: error: {error if isinstance(error, UserError) else _os_error(error)}"
            _say(log, line)
            print(line, file=sys.stderr)
            raise SystemExit(1) from None
        except KeyboardInterrupt:
            _say(log, f"interrupted after {time.perf_counter() - started:.1f} s")
            raise
        _say(log, f"done in {time.perf_counter() - started:.1f} s")


@contextlib.contextmanager
def _log_file(path: str):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    log = open(path, "w", buffering=1, encoding="utf-8")
    try:
        yield log
    finally:
        with contextlib.suppress(OSError):
            log.close()


def _say(log, line: str) -> None:
    """A line in the job's log; a log that cannot take it (disk full) does not end the job."""
    with contextlib.suppress(OSError):
        print(line, file=log)


def _os_error(error: OSError) -> str:
    return f"cannot write {error.filename or 'the job log'}: {error.strerror or error}"


def solve_batch(smk: Any) -> None:
    from pyomo_puzzles.core.run import Interrupted

    results, settings = smk.params.results, dict(smk.params.settings)
    forced = _forced(smk.output.manifest)
    done = []
    with job_log(smk):
        write_host(results)
        for entry in smk.params.runs:
            item = Run(**entry)
            path = Path(item.record_path(results))
            try:
                fingerprint = run_fingerprint(item, results, settings)
            except Exception:  # noqa: BLE001 - the run itself will say what is wrong
                fingerprint = None
            why = _why_redo(path, fingerprint, forced)
            if why is None:
                print(f"{path}: kept (finished earlier, nothing it depends on has changed)")
            else:
                try:
                    record = run_one(item, results, settings)
                except Interrupted as stop:
                    stop.record.instance = item.instance
                    _write_record(path, stop.record, fingerprint)
                    print(f"{path}: {stop.record.message}", flush=True)
                    raise
                _write_record(path, record, fingerprint)
                print(f"{path}: {' '.join(filter(None, [record.status, record.message]))} ({why})", flush=True)
            done.append(str(path))
        sources = {entry["instance"]: entry["source"] for entry in smk.params.runs if entry.get("source")}
        records.write_json_atomic(smk.output.manifest, {"records": done, "sources": sources})


def _write_record(path: Path, record: records.RunRecord, fingerprint: dict | None) -> None:
    """Write the record atomically, removing what a killed batch left of an earlier attempt."""
    from pyomo_puzzles.core.files import remove_temporaries

    record.fingerprint = fingerprint
    remove_temporaries(path)
    records.write_json_atomic(path, record.to_dict())


def count_to_record(smk: Any) -> None:
    """Enumerate and count one instance's solutions; the record says whether the count is
    complete and whether it agrees with the instance's known figure."""
    w, p = smk.wildcards, smk.params
    with job_log(smk):
        instance = instances.load(w.instance)
        up_to_symmetry = p.up_to_symmetry and instance.family.symmetry_images is not None  # count_jobs said so
        try:
            result = api.count(instance, w.formulation, w.solver, up_to_symmetry=up_to_symmetry,
                               time_limit=p.time_limit).to_dict()
        except Exception as error:  # noqa: BLE001 - a record must be written for every count
            result = {"instance": w.instance, "formulation": w.formulation, "solver": w.solver,
                      "complete": False, "message": str(error).splitlines()[0]}
        print(f"{w.instance} [{w.formulation}] on {w.solver}: {result.get('solutions')} solutions, "
              f"complete: {result.get('complete')} {result.get('message') or ''}".rstrip())
        _finish_count(smk, instance, result, up_to_symmetry)


def _finish_count(smk: Any, instance, result: dict, up_to_symmetry: bool) -> None:
    known = instance.raw.get("known", {}) or {}
    result.pop("representatives", None)
    result["known_solutions"] = known.get("solutions")
    result["known_classes"] = known.get("solutions_up_to_symmetry") if up_to_symmetry else None
    agree = None
    if result.get("complete") and result["known_solutions"] is not None:
        agree = result["solutions"] == result["known_solutions"] and (
            result["known_classes"] is None or result.get("classes") == result["known_classes"])
    result["agrees_with_known"] = agree
    records.write_json_atomic(smk.output.record, result)


def counts_table(paths: list[str]):
    import pandas as pd

    columns = ["instance", "formulation", "solver", "complete", "solutions", "classes", "group_order",
               "known_solutions", "known_classes", "agrees_with_known", "solves", "elapsed", "message"]
    rows = [{k: json.loads(Path(p).read_text()).get(k) for k in columns} for p in paths]
    return pd.DataFrame(rows, columns=columns)


def generate_instances(smk: Any) -> None:
    """Every generated instance of the experiment, in one job (one Python start-up)."""
    from pyomo_puzzles.core.files import write_text_atomic

    with job_log(smk):
        for path, made in zip(smk.output, smk.params.generated):
            data = registry.generator(made["generator"])(seed=made["seed"], **dict(made["options"]))
            write_text_atomic(path, yaml.safe_dump(data, sort_keys=False, default_flow_style=None))
            print(f"generated {path} ({made['generator']}, seed {made['seed']}, options {dict(made['options'])})")


def write_environment(smk: Any) -> None:
    with job_log(smk):
        records.write_json_atomic(smk.output.environment, environment(dict(smk.params.config), Path.cwd()))
        print(f"wrote {smk.output.environment}")


def draw_instances(smk: Any) -> None:
    """Solve each shipped instance of the experiment and draw its checked solution, in one
    job (one start-up of Python, Pyomo and matplotlib for all the pictures)."""
    with job_log(smk):
        for path, name in zip(smk.output, smk.params.instances):
            instance = instances.load(name)
            record = api.solve(instance, None, smk.params.solver, time_limit=60, isolate=False)
            print(f"{instance.name} on {record.solver}: {record.status} {record.message}".rstrip())
            if record.solution is None or not record.checked:
                _no_solution_picture(instance.name, f"{record.status} on {record.solver} {record.message}".strip(),
                                     Path(path))
            else:
                record.picture(path)
            print(f"drew {path}")


def _no_solution_picture(name: str, why: str, path: Path) -> None:
    """In place of a solution's picture, one that says why there is none (an infeasible
    instance must not stop the pipeline)."""
    from pyomo_puzzles.core.drawing import new_figure

    figure = new_figure(figsize=(4.5, 0.8))
    figure.text(0.5, 0.5, f"{name}: no solution to draw\n({why})", ha="center", va="center", fontsize=9)
    from pyomo_puzzles.core.files import write_atomic

    write_atomic(path, lambda tmp: figure.savefig(tmp, dpi=150))


# --- the tidy table of runs --------------------------------------------------------------

COLUMNS = ("puzzle", "instance", "formulation", "solver", "seed", "permutation", "repeat", "solver_version",
           "status", "checked", "killed", "wall_time", "build_time", "solver_time", "nodes", "objective", "bound",
           "gap", "peak_memory_mb", "time_limit", "threads", "memory_limit_mb", "host", "message", "started_at",
           "size", "size_label", "known_solvable", "known_objective")


def _instance_facts(name: str, results: str, source: str | None = None) -> dict:
    """Size (for scaling plots) and the known answer, if the instance file has one."""
    try:
        instance = load_run_instance(name, results, source)
    except Exception:  # noqa: BLE001 - a broken instance still has its (error) runs in the table
        return {}
    size = instance.family.size(instance.spec) if instance.family.size else None
    known = instance.raw.get("known", {}) or {}
    solvable = known.get("solvable")
    if solvable is None and "solutions" in known:
        solvable = known["solutions"] > 0
    return {"size": size[0] if size else math.nan, "size_label": size[1] if size else None,
            "known_solvable": solvable,
            "known_objective": known.get("objective", _or_nan(instance.family.known_objective(instance.spec)))}


def _or_nan(value: float | None) -> float:
    return math.nan if value is None else value


def manifest_sources(results: str) -> dict[str, str]:
    """The data files the configuration named by path, by instance name, from the batches'
    manifests of a results folder."""
    sources: dict[str, str] = {}
    for manifest in sorted((Path(results) / "batches").glob("*.json")):
        try:
            sources.update(json.loads(manifest.read_text()).get("sources") or {})
        except (OSError, ValueError, AttributeError):
            continue
    return sources


def runs_table(record_paths: list[str], results: str):
    """One row per run (pandas DataFrame, the columns in `COLUMNS`)."""
    import pandas as pd

    rows, facts, sources = [], {}, manifest_sources(results)
    for path in record_paths:
        data = json.loads(Path(path).read_text())
        name = data["instance"]
        if name not in facts:
            facts[name] = _instance_facts(name, results, sources.get(name))
        row = {k: data.get(k) for k in COLUMNS}
        row["repeat"] = int(re.search(r"repeat(\d+)$", Path(path).stem).group(1))
        row["permutation"] = row["permutation"] or 0
        row.update(facts[name])
        rows.append(row)
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _write_table(table, path: str, writer: str) -> None:
    from pyomo_puzzles.core.files import write_atomic

    write_atomic(path, lambda tmp: getattr(table, writer)(tmp, index=False))


# --- tables, figures, report (pyomo_puzzles.report does the work) ------------------------

def write_report(smk: Any) -> None:
    """The tidy runs table, summary tables, figures and the report pages (Markdown, HTML), in one job."""
    with job_log(smk):
        _write_report(smk)
        print(f"wrote {smk.output.report} and {smk.output.html}")


def _write_report(smk: Any) -> None:
    from pyomo_puzzles.report import family_tables, figures, html, page, tables

    paths = [p for manifest in smk.input.manifests for p in json.loads(Path(manifest).read_text())["records"]]
    runs = runs_table(paths, smk.params.results)
    if "parquet" in smk.output.keys():
        _write_table(runs, smk.output.parquet, "to_parquet")
    _write_table(runs, smk.output.csv, "to_csv")
    stats = dict(smk.params.statistics)
    shift, par = stats["shift"], stats["par"]
    summary = tables.summary(runs, shift, par)
    tables.write_summary(summary, smk.output.summary_csv, smk.output.summary_tex,
                         caption=tables.summary_caption(shift, par))
    labels = dict(smk.params.style).get("labels") or {}
    table_dir = Path(smk.output.summary_csv).parent
    family_tables.write_family_tables(runs, table_dir, shift, par, labels)
    family_tables.write_variability(runs, table_dir, shift, par, stats["resamples"], stats["level"])
    comparison = _comparison(smk.params.compare_with, smk.params.results, shift, table_dir)
    style = figures.FigureStyle(**dict(smk.params.style))
    out = Path(smk.output.figures).parent
    drawn = []
    timed = runs[runs["status"] != "licence_limit"]  # a refused licence says nothing about speed
    for name, draw in figures.FIGURES:
        drawn += [Path(p) for p in draw(timed, style, out / name)]
    records.write_json_atomic(smk.output.figures, {"figures": [str(p) for p in drawn]})
    counts = counts_table(list(smk.input.counts))
    _write_table(counts, smk.output.counts, "to_csv")
    env = json.loads(Path(smk.input.environment).read_text())
    page.write_report(Path(smk.params.results), runs, summary, drawn, env, Path(smk.output.report),
                      counts=counts if len(counts) else None, shift=shift, par=par)
    pictures = [Path(p) for p in smk.input.pictures]  # this experiment's, not every file in the folder
    html.write_html(Path(smk.params.results), runs, family_tables.family_summary(runs, shift, par), drawn, env,
                    Path(smk.output.html), counts=counts if len(counts) else None, comparison=comparison,
                    pictures=pictures, shift=shift, par=par)


def _comparison(other: str | None, results: str, shift: float, table_dir: Path):
    """With `compare_with` configured: this experiment against that results folder, written
    to tables/comparison.csv and .tex (None without it)."""
    if not other:
        return None
    from pyomo_puzzles.report import compare

    table = compare.compare_folders(other, results, shift=shift)
    compare.write_comparison(table, table_dir / "comparison.csv", table_dir / "comparison.tex")
    return table
