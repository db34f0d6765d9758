"""What the pipeline's Snakemake jobs run (`workflows/scripts/*.py` call one function each):
thin wrappers around the API and the results folder (`core.results`).

Runs are done in batches (one Python start-up per batch, see `experiment.batches`), whose
runs are made one after another in one forked process (`runs_in_turn`; a new process after
a run that was killed or crashed), or with ``processes: per_run`` each in a process of its
own (`run_one`). A batch writes each run's record atomically as soon as the run ends, and
keeps a record that already exists when its fingerprint (`run_fingerprint`: instance data,
the formulation's and the family's code, package and solver versions, settings) is the one
the run would have now, so an interrupted pipeline resumes without redoing finished runs and
a changed input is never served stale. Snakemake's rerun flags (``--forceall``, ``--forcerun
solve_batch``, ``--forcerun``/``-f`` on a batch's manifest) redo the runs
(`experiment.FORCE_VARIABLE`). The batch's manifest (its Snakemake output) is written last.

A count is one job: its record carries its fingerprint (`count_fingerprint`), and the
fingerprint's digest is the job's parameter, so Snakemake counts again exactly when it
changes (and when ``--forceall`` or ``--forcerun count`` says so).

Every job writes to its ``log:`` (what it did, and the error if it failed).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from pyomo_puzzles import api
from pyomo_puzzles.core import instances, known, registry
from pyomo_puzzles.core.files import data_file_yaml, remove_temporaries, write_atomic, write_json_atomic, write_text_atomic
from pyomo_puzzles.core.interrupts import sigterm_as_interrupt
from pyomo_puzzles.core.isolation import GRACE_SECONDS, Interrupted, call_isolated
from pyomo_puzzles.core.pictures import draw_no_solution
from pyomo_puzzles.core.records import RunRecord, RunSettings, new_record
from pyomo_puzzles.core.run import RunRequest, run_in_turn
from pyomo_puzzles.core.statistics import models_table
from pyomo_puzzles.core.results import (
    COUNT_SETTINGS,
    SETTINGS,
    Run,
    batch_fingerprint,
    count_digest,
    count_fingerprint,
    counts_table,
    formulation_label,
    generators_digest,
    is_reference_method,
    left_out,
    load_run_instance,
    model_digest,
    picture_run,
    picture_source,
    progress_table,
    run_fingerprint,
    run_instance_source,
    runs_table,
    why_redo,
)
from pyomo_puzzles.errors import NotApplicable, UserError
from pyomo_puzzles.experiment import FORCE_VARIABLE, environment, host_facts

__all__ = ["COUNT_SETTINGS", "SETTINGS", "batch_fingerprint", "count_digest", "count_to_record", "draw_instances",
           "generate_instances", "generators_digest", "model_digest", "model_statistics_to_record", "results_folder_of",
           "solve_batch",
           "write_environment", "write_report", "write_report_page"]

def _forced(manifest: str) -> bool:
    """Whether Snakemake was told to rerun this batch (see `FORCE_VARIABLE`)."""
    force = os.environ.get(FORCE_VARIABLE, "")
    return force == "all" or os.path.abspath(manifest) in force.split(os.pathsep)


class BatchInstances:
    """The instances of a batch, each loaded once by the batch's process (its data file read
    and validated) and inherited by the runs it forks: a run's ``load_time`` is then what the
    run itself loads (its formulation's model, its solver's first touches), not a file read
    every run of the batch repeats. An instance that does not load is left to the run, whose
    record says what is wrong with it."""

    def __init__(self) -> None:
        self._loaded: dict[str, object] = {}

    def get(self, source: str):
        """The loaded instance of `source` (a shipped name or a data file), else `source`."""
        if source not in self._loaded:
            try:
                self._loaded[source] = api.load(source)
            except Exception:  # noqa: BLE001 - the run loads it again and records why it fails
                self._loaded[source] = None
        return self._loaded[source] or source


def run_one(item: Run, results: str, settings: dict, instances: BatchInstances | None = None) -> RunRecord:
    """One run in a process forked for it alone, whatever happens: a formulation or solver
    problem becomes an error record; a formulation or reference method that cannot answer the
    instance (a generated one, found only now) a ``not_applicable`` record, which leaves the
    cell out of every table (Ctrl-C or SIGTERM raises `Interrupted`, carrying the record).
    `instances`: the batch's loaded instances (None: the run loads its own)."""
    try:
        request = _request(item, results, settings, instances)
        record = api.solve(request.instance, request.formulation, request.solver, settings=request.settings,
                           isolate=True)
    except Exception as error:  # noqa: BLE001 - a record must be written for every run
        record = _failed(item, settings, error)
    return _named(record, item)


def runs_one_by_one(items: list[Run], results: str, settings: dict,
                    instances: BatchInstances | None) -> Iterator[RunRecord]:
    """The records of `items` made by `run_one`, in order; Ctrl-C or SIGTERM: the last is the
    record of the run it stopped (status ``interrupted``)."""
    for item in items:
        try:
            record = run_one(item, results, settings, instances)
        except Interrupted as stop:
            yield _named(stop.record, item)
            return
        yield record


def runs_in_turn(items: list[Run], results: str, settings: dict,
                 instances: BatchInstances) -> Iterator[RunRecord]:
    """The records of `items`, in order, as `run_one` makes them, but made one after another
    in one forked process (`core.run.run_in_turn`: a new one after a run that was killed or
    crashed). The batch's instances are all loaded first, so that every process inherits them.
    Ctrl-C or SIGTERM: the last is the record of the run it stopped (status ``interrupted``)."""
    prepared: list[RunRequest | RunRecord] = []
    for item in items:
        try:
            prepared.append(_request(item, results, settings, instances))
        except Exception as error:  # noqa: BLE001 - a record must be written for every run
            prepared.append(_failed(item, settings, error))
    outcomes = run_in_turn([p for p in prepared if isinstance(p, RunRequest)])
    for position, (item, request) in enumerate(zip(items, prepared)):
        if isinstance(request, RunRecord):
            yield _named(request, item)
            continue
        try:
            outcome = next(outcomes)
        except Interrupted as stop:
            yield _named(stop.record, item)
            return
        except Exception as error:  # noqa: BLE001 - the framework failed outside the runs: the rest one by one
            yield _named(_failed(item, settings, error), item)
            yield from runs_one_by_one(items[position + 1:], results, settings, instances)
            return
        yield _named(_failed(item, settings, outcome) if isinstance(outcome, UserError) else outcome, item)


def _request(item: Run, results: str, settings: dict, instances: BatchInstances | None) -> RunRequest:
    """What the run of `item` is asked to do, its instance loaded by the batch where it can be."""
    instance = item.source or run_instance_source(item.instance, results)
    if instances is not None:
        instance = instances.get(str(instance))
    formulation = None if is_reference_method(item.solver) else item.formulation
    return RunRequest(instance, formulation, item.solver, _run_settings(item, settings))


def _run_settings(item: Run, settings: dict) -> RunSettings:
    return RunSettings(**{k: settings.get(k) for k in SETTINGS}, seed=item.seed, permutation=item.permutation)


def _failed(item: Run, settings: dict, error: Exception) -> RunRecord:
    """The record of a run that could not be made: why, in one line."""
    record = new_record(item.instance.split("/")[0], item.instance, formulation_label(item.formulation),
                        item.solver, _run_settings(item, settings), message=str(error).splitlines()[0])
    if isinstance(error, NotApplicable):
        record.status = "not_applicable"
    return record


def _named(record: RunRecord, item: Run) -> RunRecord:
    record.instance, record.formulation = item.instance, formulation_label(item.formulation)  # the cell's names
    return record


def write_host(results: str) -> Path:
    """``hosts/<host>.json``: CPU, cores, memory and OS of the machine this process runs on,
    written once per host (under SLURM the runs of one experiment land on several nodes)."""
    path = Path(results) / "hosts" / f"{socket.gethostname()}.json"
    if not path.exists():
        write_json_atomic(path, host_facts())
    return path


@contextlib.contextmanager
def job_log(smk: Any):
    """Run a Snakemake job with its output going to its ``log:`` file, which says when the
    job started and ended; a `UserError` (a disk full, a broken file) ends the job with one
    line, in the log and on stderr, and exit code 1. SIGTERM (Snakemake or SLURM cancelling
    the job) stops it as Ctrl-C does."""
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
    """The batch's runs: each kept where its record is current, else made (`runs_in_turn`, or
    with ``processes: per_run`` `run_one`) and its record written as soon as it ends."""
    results, settings = smk.params.results, dict(smk.params.settings)
    forced = _forced(smk.output.manifest)
    done, todo, instances = [], [], BatchInstances()
    with job_log(smk):
        write_host(results)
        for entry in smk.params.runs:
            item = Run(**entry)
            path = Path(item.record_path(results))
            try:
                fingerprint = run_fingerprint(item, results, settings)
            except Exception:  # noqa: BLE001 - the run itself will say what is wrong
                fingerprint = None
            why = why_redo(path, fingerprint, forced)
            if why is None:
                print(f"{path}: kept (finished earlier, nothing it depends on has changed)")
            else:
                todo.append((item, path, fingerprint, why))
            done.append(str(path))
        items = [item for item, *_ in todo]
        if settings.get("processes", "per_batch") == "per_run":
            records = runs_one_by_one(items, results, settings, instances)
        else:
            records = runs_in_turn(items, results, settings, instances)
        started: set[str] = set()
        for (item, path, fingerprint, why), record in zip(todo, records):
            _write_record(path, record, fingerprint)
            if record.status == "interrupted":  # the last: Ctrl-C or SIGTERM stopped it
                print(f"{path}: {record.message}", flush=True)
                raise Interrupted(record)
            _say_start_up(item.solver, record, started)
            print(f"{path}: {' '.join(filter(None, [record.status, record.message]))} ({why})", flush=True)
        sources = {entry["instance"]: entry["source"] for entry in smk.params.runs if entry.get("source")}
        write_json_atomic(smk.output.manifest, {"records": done, "sources": sources})


def _say_start_up(solver: str, record: RunRecord, started: set[str]) -> None:
    """A line in the job's log where the run's process paid its solver's one-off start-up."""
    if record.startup_time and solver in started:
        print(f"{solver}: start-up paid again ({record.startup_time:.2f} s) before this run's clock: "
              "its helper processes were killed with an earlier run (the record of this run says so)", flush=True)
    elif record.startup_time:
        print(f"{solver}: one-off start-up {record.startup_time:.2f} s, paid once by this batch's "
              "process before its runs' clocks (the record of this run says so)", flush=True)
    if record.startup_time is not None:
        started.add(solver)


def _write_record(path: Path, record: RunRecord, fingerprint: dict | None) -> None:
    """Write the record atomically, removing what a killed batch left of an earlier attempt."""
    record.fingerprint = fingerprint
    remove_temporaries(path)
    write_json_atomic(path, record.to_dict())


def count_to_record(smk: Any) -> None:
    """Enumerate and count one instance's solutions; the record says whether the count is
    complete, whether it agrees with the instance's known figure, and what it depends on
    (`count_fingerprint`; its digest is the job's parameter, so a change counts again)."""
    w, p = smk.wildcards, smk.params
    with job_log(smk):
        fingerprint = _count_fingerprint(w, p)
        instance = instances.load(w.instance)
        up_to_symmetry = p.up_to_symmetry and instance.family.symmetry_images is not None  # count_jobs said so
        reference = w.solver in instance.family.reference_solvers
        # in a forked child, as a run: a solver library's crash (CBC's SIGABRT) leaves this record
        result, failure = call_isolated(
            lambda: api.count(instance, None if reference else w.formulation, w.solver,
                              up_to_symmetry=up_to_symmetry, time_limit=p.time_limit, method=w.method,
                              every_feasible=bool(p.every_feasible)).to_dict(),
            deadline=None if p.time_limit is None else p.time_limit + GRACE_SECONDS)
        if failure is not None:  # a record is written for every count
            crashed = failure.startswith(("crashed", "killed"))
            result = {"instance": w.instance, "formulation": w.formulation, "solver": w.solver, "method": w.method,
                      "complete": False, "message": f"count {failure}" if crashed else failure}
        counted = {"optimal": " optimal", "feasible": " feasible"}.get(result.get("counted"), "")
        print(f"{w.instance} [{w.formulation}] on {w.solver} ({w.method}): {result.get('solutions')}{counted} solutions, "
              f"complete: {result.get('complete')}, set digest {result.get('digest')} "
              f"{result.get('message') or ''}".rstrip())
        if result.get("startup_time"):
            print(f"{w.solver}: one-off start-up {result['startup_time']:.2f} s, paid before the count's clock")
        result["fingerprint"] = fingerprint
        _finish_count(smk, instance, result, up_to_symmetry)


def _count_fingerprint(w: Any, p: Any) -> dict | None:
    settings = {"up_to_symmetry": p.up_to_symmetry, "time_limit": p.time_limit, "every_feasible": p.every_feasible}
    try:
        return count_fingerprint(w.instance, w.formulation, w.solver, w.method, settings)
    except Exception:  # noqa: BLE001 - the count itself will say what is wrong
        return None


def _finish_count(smk: Any, instance, result: dict, up_to_symmetry: bool) -> None:
    """Write the count's record with the known figures (the data file's, else the benchmark
    library's reference count), whether the count agrees with them, and the data problem
    where it found more checked solutions than known (`core.known.judge_count`)."""
    result.pop("representatives", None)
    if result.get("counted") == "feasible":  # a known count is of the solutions (the optimal ones), not of feasible points
        result["known_solutions"] = result["known_classes"] = result["agrees_with_known"] = result["data_problem"] = None
        write_json_atomic(smk.output.record, result)
        return
    known_figures = known.known_count(instance, up_to_symmetry)
    result["known_solutions"], result["known_classes"] = known_figures.solutions, known_figures.classes
    who = f"{result['solver']} / {result['formulation']} / {result['method']}"
    verdict = known.judge_count(known_figures, bool(result.get("complete")), result.get("solutions") or 0,
                                result.get("classes") if up_to_symmetry else None, who)
    result["agrees_with_known"], result["data_problem"] = verdict.agrees, verdict.data_problem
    write_json_atomic(smk.output.record, result)


def results_folder_of(record: str, instance: str, kind: str) -> Path:
    """The results folder of a record filed as ``<results>/<kind>/<instance>/<file>``."""
    path = Path(record)
    folder = path.parents[len(instance.split("/")) + 1]
    if path.parent.relative_to(folder) != Path(kind, instance):
        raise ValueError(f"{record} is not filed under {kind}/{instance}")
    return folder


def model_statistics_to_record(smk: Any) -> None:
    """One formulation's statistics on one instance (`core.statistics`): its rows of
    ``tables/models.csv`` with what they depend on (the job's ``fingerprint`` parameter); a
    statistic that cannot be computed leaves a record saying why, and no rows."""
    p = smk.params
    with job_log(smk):
        job, settings = p.job, p.settings
        record = {"instance": job["instance"], "formulation": job["formulation"], "rows": [], "message": None,
                  "fingerprint": p.fingerprint}
        started = time.perf_counter()

        def statistics() -> list[dict]:
            instance = load_run_instance(job["instance"], p.results, job["source"])
            found = api.model_statistics(instance, job["formulation"], lp_solver=settings["lp_solver"],
                                         time_limit=settings["time_limit"], optimum_stage=settings["optimum_stage"])
            return [{**entry.row(), "instance": job["instance"]} for entry in found]

        # in a forked child, as a run: a crash of the LP solver's library leaves this record saying so
        rows, failure = call_isolated(statistics)
        if failure is None:
            record["rows"] = rows
        else:  # a record is written for every statistic
            record["message"] = f"statistics {failure}" if failure.startswith(("crashed", "killed")) else failure
        record["seconds"] = time.perf_counter() - started
        for row in record["rows"]:
            where = f"{row['instance']} [{row['formulation']}]" + (f" stage {row['stage']:g}" if row["stage"] is not None
                                                                   else "")
            if row["variables"] is None:
                print(f"{where}: {row['parts']} parts, counted only")
                continue
            print(f"{where}: {row['variables']} variables, {row['rows']} rows, {row['nonzeros']} nonzeros; "
                  f"LP ({row['lp_solver']}) {row['lp_status']} {row['lp_value']}")
        if record["message"]:
            print(f"{job['instance']} [{job['formulation']}]: no statistics: {record['message']}")
        write_json_atomic(smk.output.record, record)


def generate_instances(smk: Any) -> None:
    """Every generated instance of the experiment, in one job (one Python start-up)."""
    with job_log(smk):
        for path, made in zip(smk.output, smk.params.generated):
            data = registry.generate(made["generator"], made["seed"], dict(made["options"]))  # its own default solver
            write_text_atomic(path, data_file_yaml(data))
            print(f"generated {path} ({made['generator']}, seed {made['seed']}, options {dict(made['options'])})")


def write_environment(smk: Any) -> None:
    with job_log(smk):
        write_json_atomic(smk.output.environment, environment(dict(smk.params.config), Path.cwd()))
        print(f"wrote {smk.output.environment}")


def draw_instances(smk: Any) -> None:
    """Draw each shipped instance of the experiment from the best checked solution its runs
    found (`core.results.picture_run`: the best objective, a proof first; no solve of its
    own: a hard instance is not solved again for its picture), or a picture saying why there
    is none, in one job (one start-up of Python, Pyomo and matplotlib). The report names the
    run each picture shows."""
    with job_log(smk):
        records = _records_by_instance(smk.input.manifests)
        for path, name in zip(smk.output, smk.params.instances):
            runs = records.get(name, [])
            chosen = picture_run(runs)
            if chosen is None:
                why = ", ".join(sorted({f"{r['status']} on {r['solver']}" for r in runs})) or "no run"
                draw_no_solution(name, f"no run found a checked solution: {why}", path)
                print(f"{name}: no checked solution ({why})")
            else:
                api.picture(name, chosen["solution"], path)
                print(f"drew {path} from the best checked run: {picture_source(chosen)}")


def _record_paths(manifests: list[str]) -> list[str]:
    """The record files the batches' manifests list, in the manifests' order."""
    return [p for manifest in manifests for p in json.loads(Path(manifest).read_text())["records"]]


def _records_by_instance(manifests: list[str]) -> dict[str, list[dict]]:
    """The records the batches' manifests list, by instance, in the manifests' order."""
    found: dict[str, list[dict]] = {}
    for path in _record_paths(manifests):
        record = json.loads(Path(path).read_text())
        found.setdefault(record["instance"], []).append(record)
    return found


def _write_table(table, path: str, writer: str) -> None:
    write_atomic(path, lambda tmp: getattr(table, writer)(tmp, index=False))


# --- tables, figures, report (pyomo_puzzles.report does the work) ------------------------

def write_report(smk: Any) -> None:
    """The tidy runs table, summary tables, figures, the Markdown report and the LaTeX chapter,
    in one job; the HTML page, which embeds the solution pictures, is `write_report_page`'s
    (so that the pictures are drawn beside this job, not before it)."""
    with job_log(smk):
        drawn = _write_report(smk)
        print(f"wrote {smk.output.report}, the tables, {len(drawn)} figures and {smk.output.chapter}")


def write_report_page(smk: Any) -> None:
    """``report.html``: the report's results, figures and solution pictures in one page."""
    with job_log(smk):
        _write_report_page(smk)
        print(f"wrote {smk.output.html}")


class _ReportInputs:
    """What the report and its page both read from the results folder: the runs table (from
    the records, with each run's wrong answer judged over the whole experiment and its root
    gap closed), the statistics of the models, the counts, the cells left out, the
    environment and the configured statistics."""

    def __init__(self, smk: Any) -> None:
        from pyomo_puzzles.report import formulations, tables  # pandas: report jobs only
        from pyomo_puzzles.report.measure import Statistics  # as above

        self.records = _record_paths(smk.input.manifests)
        runs = runs_table(self.records, smk.params.results)
        self.models = models_table(list(smk.input.models))
        runs["root_gap_closed"] = formulations.root_gap_closed(runs, self.models)
        self.runs = tables.with_wrong_answers(runs)
        self.left = sorted(set(left_out(self.records)) | set(getattr(smk.params, "left_out", None) or []))  # run and planned
        self.stats = Statistics.from_config(smk.params.statistics)
        self.counts = counts_table(list(smk.input.counts))
        self.environment = json.loads(Path(smk.input.environment).read_text())


def _write_report(smk: Any) -> list[Path]:
    """Writes the report job's outputs; returns the figures drawn."""
    from pyomo_puzzles.report import (  # pandas, matplotlib: report job only
        catalogue, chapter, family_tables, figures, formulations, page, progress_figure, scores, size_figure, tables)

    found = _ReportInputs(smk)
    runs, models, stats = found.runs, found.models, found.stats
    if "parquet" in smk.output.keys():
        _write_table(runs, smk.output.parquet, "to_parquet")
    _write_table(runs, smk.output.csv, "to_csv")
    summary = tables.summary(runs, stats)
    tables.write_summary(summary, smk.output.summary_csv, smk.output.summary_tex, statistics=stats)
    labels = dict(smk.params.style).get("labels") or {}
    table_dir = Path(smk.output.summary_csv).parent
    family_tables.write_family_tables(runs, table_dir, stats, labels)
    family_tables.write_variability(runs, table_dir, stats)
    scores.write_scores(runs, table_dir, stats)
    _comparison(smk.params.compare_with, smk.params.results, stats, table_dir)
    timed = runs[runs["status"] != "licence_limit"]  # a refused licence says nothing about speed
    configured = figures.FigureStyle(**dict(smk.params.style))
    style = figures.resolved_style(timed, configured)  # one view for every figure and caption
    out = Path(smk.output.figures)
    out.mkdir(parents=True, exist_ok=True)  # a directory output: Snakemake removed it before this job
    drawn = []
    for name, draw in catalogue.FIGURES:  # each leaves out the runs a licence refused, the profile saying so
        drawn += [Path(p) for p in draw(runs, style, out / name, stats)]
    traces = progress_table(found.records)
    _write_table(traces, smk.output.progress, "to_csv")
    drawn += [Path(p) for p in progress_figure.progress_over_time(timed, traces, style, out / "progress", stats)]
    drawn += [Path(p) for p in size_figure.size_against_time(timed, models, style, out / "size_time", stats)]
    write_json_atomic(smk.output.figure_list, {"figures": [str(p) for p in drawn], "view": style.view,
                                           "view_configured": configured.view,
                                           "view_description": figures.view_sentence(style.view)})
    counts = found.counts
    _write_table(counts, smk.output.counts, "to_csv")
    formulations.write_models(models, smk.output.models, smk.output.models_tex)
    page.write_report(Path(smk.params.results), runs, summary, drawn, found.environment, Path(smk.output.report),
                      counts=counts if len(counts) else None, stats=stats, left_out=found.left,
                      models=models if len(models) else None, view=style.view)
    chapter.write_chapter(Path(smk.params.results), runs, drawn, stats, style.view, style.text_width_pt)
    return drawn


def _write_report_page(smk: Any) -> None:
    from pyomo_puzzles.report import compare, family_tables, html  # pandas: report jobs only

    found = _ReportInputs(smk)
    runs, models, counts, stats = found.runs, found.models, found.counts, found.stats
    drawn = json.loads(Path(smk.input.figure_list).read_text())
    comparison = (compare.compare_folders(smk.params.compare_with, smk.params.results, stats)
                  if smk.params.compare_with else None)
    pictures = [Path(p) for p in smk.input.pictures]  # this experiment's, not every file in the folder
    html.write_html(Path(smk.params.results), runs, family_tables.family_summary(runs, stats),
                    [Path(p) for p in drawn["figures"]], found.environment, Path(smk.output.html),
                    counts=counts if len(counts) else None, comparison=comparison, pictures=pictures, stats=stats,
                    left_out=found.left, models=models if len(models) else None, view=drawn["view"])


def compile_chapter(smk: Any) -> None:
    """``latex/experiment.pdf`` from the chapter the report job wrote (latexmk)."""
    from pyomo_puzzles.report import chapter  # pandas: report jobs only

    with job_log(smk):
        print(f"wrote {chapter.compile_chapter(Path(smk.input.document))}")


def _comparison(other: str | None, results: str, stats, table_dir: Path) -> None:
    """With `compare_with` configured: this experiment against that results folder, written
    to tables/comparison.csv and .tex."""
    if not other:
        return
    from pyomo_puzzles.report import compare  # as in _write_report

    compare.write_comparison(compare.compare_folders(other, results, stats), table_dir / "comparison.csv",
                             table_dir / "comparison.tex")
