"""The ``calibrate`` command: a calibration's experiments in, benchmark-library entries out.

A calibration is one or more ordinary experiments (pipeline configurations) over candidate
instances, the open-source MIP solvers and the family's formulations, threads 1. This module
reads each configuration's results folder (its ``results:``), makes the entries by the rules
of `report.calibration` (band, times, reference answer, sources), words what it found, copies
adopted generated instances into their family's instance folder and writes the entries into
the catalogues. Each entry's ``calibration.command`` is the command line that made it.
The catalogue's fields: docs/library.md.

Runs of methods outside the calibration (``witnesses``: dancing links, CP-SAT) give answers
further sources, never times or bands. Counting questions come from the folders' count records
(an experiment's ``counts:`` section, `calibrate_counts`).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from pyomo_puzzles.core import instances, library, registry
from pyomo_puzzles.core import solvers as solvers_module
from pyomo_puzzles.core.files import OutputError, data_file_yaml, write_text_atomic
from pyomo_puzzles.errors import DataError, UserError
from pyomo_puzzles.report.calibration import Calibrated, calibrate, calibrate_counts
from pyomo_puzzles.version import __version__

RUNS_TABLE = "tables/runs.parquet"
"""Where a finished experiment keeps its runs table (the pipeline's report job writes it)."""

HEADER = """\
# The {family} family's instances in the pyomo-puzzles benchmark library.
# Each entry: its band by the virtual best of the calibration (easy < 1 s, medium 1-60 s,
# hard 60-600 s, beyond: no method within 600 s), each calibrated method's time (building
# the model and solving it, seconds; null: not solved within the limit), how it was measured
# (calibration.command: the command that wrote the entry), the reference answer and the
# independent methods that gave it. Written by `pyomo-puzzles calibrate`; the fields are
# described in pyomo-puzzles' docs/library.md.
"""


@dataclass(frozen=True)
class Experiment:
    """One experiment of a calibration: its configuration file as named, its results folder
    and that folder's environment record."""

    configfile: str
    results: Path
    environment: dict


@dataclass(frozen=True)
class Calibration:
    """What a calibration found: one `Calibrated` per solve question and per counting question."""

    solved: list[Calibrated]
    counted: list[Calibrated]


def read_experiment(configfile: str, option: str = "") -> Experiment:
    """The experiment of the configuration `configfile`, whose results folder must hold the
    runs table of a finished pipeline; `option` names the option it was given with, for messages."""
    where = f"{option + ': ' if option else ''}configuration {configfile}"
    if Path(configfile).is_dir():  # the results folder itself, as benchmarks/calibrate.py took it
        raise UserError(f"{where} is a folder: give the experiment's configuration file (its 'results:' names "
                        "the folder to read)")
    try:
        config = instances.read_data_file(Path(configfile))
    except DataError as error:
        raise UserError(f"{where}: {error.message}") from None
    results = config.get("results", "results")  # the pipeline's default folder
    if not isinstance(results, str) or not results.strip():
        raise UserError(f"{where}: 'results' names no results folder")
    folder = Path(results)
    if not (folder / RUNS_TABLE).is_file() or not (folder / "environment.json").is_file():
        raise UserError(f"{where}: its results folder {results} has no {RUNS_TABLE}: run the experiment "
                        f"first (snakemake --configfile {configfile}, with pyomo-puzzles[parquet] installed)")
    return Experiment(configfile, folder, json.loads((folder / "environment.json").read_text()))


def checked_solvers(names: str | None) -> tuple[str, ...]:
    """The comma-separated solvers of ``--solvers`` (None: the library's), each registered."""
    if names is None:
        return library.CALIBRATION_SOLVERS
    chosen = tuple(name.strip() for name in names.split(",") if name.strip())
    if not chosen:
        raise UserError("option --solvers: names no solver")
    for name in chosen:
        try:
            solvers_module.adapter(name)
        except UserError as error:
            raise UserError(f"option --solvers: {error}") from None
    return chosen


def calibrate_experiments(experiments: Sequence[Experiment], command: str, *, witnesses: Sequence[Experiment] = (),
                          skip: Collection[str] = (), solvers: Collection[str] = library.CALIBRATION_SOLVERS,
                          questions: Collection[str] = library.QUESTIONS) -> Calibration:
    """The calibration of the experiments' runs (``solve``) and count records (``count``), the
    instances of `skip` left out; `command` is recorded in every entry. Above ``easy`` every
    solver of `solvers` must have run (or counted) on every formulation that ran on an instance."""
    solved = _solve_questions(experiments, command, witnesses, skip, solvers) if "solve" in questions else []
    counted = _count_questions(experiments, command, skip, solvers) if "count" in questions else []
    return Calibration(solved, counted)


def _runs(experiment: Experiment) -> pd.DataFrame:
    try:
        return pd.read_parquet(experiment.results / RUNS_TABLE)
    except ImportError:
        raise UserError(f"configuration {experiment.configfile}: reading {RUNS_TABLE} needs pyarrow: "
                        "pip install 'pyomo-puzzles[parquet]'") from None


def latest_day(runs: pd.DataFrame) -> str:
    """The day (ISO date) of the latest run of a runs table."""
    return max(str(moment) for moment in runs["started_at"].dropna())[:10]


def calibration_facts(experiments: Sequence[Experiment], day: str, command: str) -> dict:
    """An entry's ``calibration``: the command, and the facts of the experiments that ran its
    instance (machine, the solvers they used, threads, their longest limit); `day`: its date."""
    environments = [e.environment for e in experiments]
    first = environments[0]
    used = {name for env in environments for name in env["config"]["solvers"]}
    versions = {name: version for env in environments for name, version in env["solvers"].items() if name in used}
    return {"command": command,
            "machine": f"{first['cpu']}, {first['cores']} cores, {first['memory_gib']} GiB, {first['os']}",
            "solvers": dict(sorted(versions.items())),
            "threads": int(first["config"]["threads"]),
            "time_limit": float(max(env["config"]["time_limit"] for env in environments)),
            "measure": "build_and_solve", "date": day, "framework_version": __version__}


def _solve_questions(experiments: Sequence[Experiment], command: str, witnesses: Sequence[Experiment],
                     skip: Collection[str], solvers: Collection[str]) -> list[Calibrated]:
    """The solve questions of the experiments' runs: banded and timed by the runs of `solvers`
    (the integer programs on the calibration's solvers); the runs of any other method in them
    (dancing links, CP-SAT) are witnesses, as those of ``--witness`` experiments: they add
    sources to an answer, never a time or a band."""
    tables = [_runs(e) for e in experiments]
    days = [latest_day(table) for table in tables]
    tables = [table[~table["instance"].isin(skip)] for table in tables]
    everything = pd.concat(tables, ignore_index=True)
    calibrating = everything["solver"].isin(solvers)
    runs, others = everything[calibrating], everything[~calibrating]
    facts = {}
    for name in runs["instance"].unique():
        ran = [i for i, table in enumerate(tables) if (table["instance"] == name).any()]
        facts[name] = calibration_facts([experiments[i] for i in ran], max(days[i] for i in ran), command)
    witnessed = pd.concat([others, *(_runs(w) for w in witnesses)], ignore_index=True)
    return calibrate(runs, facts, witnesses=witnessed if len(witnessed) else None, solvers=solvers)


def count_records(results: Path) -> pd.DataFrame:
    """The count records of a results folder (``counts/**.json``), one row each, with the limit
    its configuration gave every count and the day the record was written."""
    limit = json.loads((results / "environment.json").read_text())["config"].get("counts", {}).get("time_limit")
    rows = []
    for path in sorted((results / "counts").rglob("*.json")):
        record = json.loads(path.read_text())
        rows.append({key: record.get(key) for key in ("instance", "formulation", "solver", "method",
                                                      "up_to_symmetry", "complete", "solutions", "classes",
                                                      "digest", "elapsed", "known_solutions", "known_classes")})
        rows[-1]["day"] = datetime.date.fromtimestamp(path.stat().st_mtime).isoformat()
        rows[-1]["time_limit"] = limit
    return pd.DataFrame(rows)


def _count_questions(experiments: Sequence[Experiment], command: str, skip: Collection[str],
                     solvers: Collection[str]) -> list[Calibrated]:
    """The counting questions of the experiments' count records: banded by the complete counts of
    `solvers` by every method each has (no-good cuts; its own enumeration where it has one)."""
    tables = {e.configfile: count_records(e.results) for e in experiments}
    tables = {name: table for name, table in tables.items() if len(table)}
    if not tables:
        return []
    counts = pd.concat(tables.values(), ignore_index=True)
    counts = counts[~counts["instance"].isin(skip)]
    facts = {}
    for name in counts["instance"].unique():
        ran = [e for e in experiments if e.configfile in tables and (tables[e.configfile]["instance"] == name).any()]
        day = max(tables[e.configfile]["day"].max() for e in ran)
        used = {solver for e in ran for solver in e.environment["config"]["counts"]["solvers"]}
        versions = {solver: version for e in ran for solver, version in e.environment["solvers"].items()
                    if solver in used}
        facts[name] = dict(calibration_facts(ran, day, command), solvers=dict(sorted(versions.items())),
                           time_limit=float(max(e.environment["config"]["counts"]["time_limit"] for e in ran)))
    methods_of = {name: ("nogood", "native") if solvers_module.adapter(name).enumeration is not None else ("nogood",)
                  for name in solvers}
    return calibrate_counts(counts, facts, methods_of)


def solve_lines(found: list[Calibrated]) -> list[str]:
    """A table of the solve questions: band, the virtual best and its method, the answer (or why none)."""
    lines = [f"{'instance':42s} {'band':7s} {'best':>9s}  {'method':26s} answer / why not"]
    for item in found:
        if item.entry is None:
            lines.append(f"{item.instance:42s} {'-':7s} {'':>9s}  {'':26s} not calibrated: {item.skipped}")
            continue
        entry, best = item.entry, _best(item.entry)
        answer = entry["answer"]["status"] + (f" {entry['answer']['objective']:g}" if "objective" in entry["answer"]
                                              else "")
        lines.append(f"{item.instance:42s} {entry['band']:7s} {best[0] if best else float('nan'):9.3f}  "
                     f"{best[1] if best else '-':26s} {answer} ({len(entry['sources'])} sources)")
    return lines


def count_lines(found: list[Calibrated]) -> list[str]:
    """A table of the counting questions, as `solve_lines`."""
    lines = [f"{'counting question':42s} {'band':7s} {'best':>9s}  {'method':32s} answer / why not"]
    for item in found:
        if item.entry is None:
            lines.append(f"{item.instance:42s} {'-':7s} {'':>9s}  {'':32s} not calibrated: {item.skipped}")
            continue
        entry, best = item.entry, _best(item.entry)
        answer = entry["answer"]
        classes = f", {answer['classes']} up to symmetry" if "classes" in answer else ""
        lines.append(f"{item.instance:42s} {entry['band']:7s} {best[0]:9.3f}  {best[1]:32s} "
                     f"{answer['solutions']} solutions{classes} ({len(entry['sources'])} sources)")
    return lines


def _best(entry: dict) -> tuple[float, str] | None:
    return min(((t, m) for m, t in entry["times"].items() if t is not None), default=None)


def entries_to_write(calibration: Calibration, experiments: Sequence[Experiment], adopt: bool,
                     said: Callable[[str], None] = print) -> list[dict]:
    """The catalogue entries of a calibration: those of shipped instances, and where `adopt`,
    those of generated instances, each first copied into its family's instance folder
    (`adopt_instance`). An entry left out is `said` with why (a catalogue names shipped
    instances: a data file outside the family's instance folder is not one)."""
    shipped = instances.shipped_instances()
    entries = []
    for item in calibration.solved:
        if item.entry is None:
            continue
        if item.instance.startswith("generated/"):
            if not adopt:
                said(f"not written: {item.instance}: a generated instance (--adopt copies it into its family's "
                     "instance folder and writes its entry)")
                continue
            item.entry["name"] = adopt_instance(item.instance, experiments)
        elif item.instance not in shipped:
            said(f"not written: {item.instance}: a data file outside its family's instance folder (a catalogue "
                 "names shipped instances: copy the file into the family's instances_dir and calibrate again)")
            continue
        entries.append(item.entry)
    return entries + [item.entry for item in calibration.counted if item.entry is not None]


def checked_skip(names: Sequence[str], experiments: Sequence[Experiment]) -> list[str]:
    """The instances of ``--skip``, each one the experiments ran or counted (a misspelt name is
    one line naming the option, not an instance silently calibrated)."""
    ran = set()
    for experiment in experiments:
        ran.update(_runs(experiment)["instance"].astype(str))
        counts = count_records(experiment.results)
        if len(counts):
            ran.update(counts["instance"].astype(str))
    for name in names:
        if name not in ran:
            raise UserError(f"option --skip: {name!r} is no instance of the calibration's experiments")
    return list(names)


def adopt_instance(name: str, experiments: Sequence[Experiment]) -> str:
    """Copy the generated instance `name` (``generated/<generator>/<stem>``) from the results
    folder that made it into its family's ``library/`` folder, its ``source`` naming the framework
    version (the library holds data files, never generators to run again); its new name."""
    _, generator, stem = name.split("/", 2)
    source = next(p for p in (e.results / "instances" / generator / f"{stem}.yaml" for e in experiments)
                  if p.exists())
    data = yaml.safe_load(source.read_text())
    family = data["puzzle"]
    new_stem = stem if generator == family else f"{generator}_{stem}"
    folder = registry.family(family).instances_dir
    if folder is None:
        raise UserError(f"option --adopt: family '{family}' has no instance folder (Family.instances_dir) to "
                        f"adopt {name} into")
    target = folder / "library" / f"{new_stem}.yaml"
    data["source"] = f"{data.get('source', 'generated')} (pyomo-puzzles {__version__})"
    try:
        write_text_atomic(target, data_file_yaml(data))
    except OutputError as error:
        raise UserError(f"option --adopt: {error}") from None
    return f"{family}/library/{new_stem}"


def write_entries(entries: list[dict], catalogue: Path | None = None) -> list[str]:
    """Merge the entries into their families' catalogues (`Family.library`), or into the file
    `catalogue` (one family's entries only); an entry of the same instance and question is
    replaced. Every catalogue is read before any is written. One line per file written."""
    if not entries:
        return ["no entries to write"]
    by_family: dict[str, list[dict]] = {}
    for entry in entries:
        by_family.setdefault(entry["name"].split("/", 1)[0], []).append(entry)
    option = "--write" if catalogue is None else "--write-to"
    merged = {family: (path, _merged(path, new, option), len(new))
              for family, (path, new) in _targets(by_family, catalogue).items()}
    written = []
    for family, (path, items, new) in merged.items():
        text = HEADER.format(family=family) + yaml.safe_dump({"instances": items}, sort_keys=False, width=100)
        try:
            write_text_atomic(path, text)
        except OutputError as error:
            raise UserError(f"option {option}: {error}") from None
        written.append(f"wrote {new} entries into {path} ({len(items)} in all)")
    return written


def _merged(path: Path, new: list[dict], option: str) -> list[dict]:
    """The catalogue `path`'s entries with the `new` ones, which replace those of the same key."""
    keys = {_key(e) for e in new}
    old = _catalogue_items(path, option) if path.exists() else []
    return sorted([e for e in old if _key(e) not in keys] + new,
                  key=lambda e: (e.get("question", "solve") != "solve", library.BANDS.index(e["band"]), e["name"]))


def _targets(by_family: dict[str, list[dict]], catalogue: Path | None) -> dict[str, tuple[Path, list[dict]]]:
    """Each family's catalogue file and its new entries, checked before anything is written."""
    if catalogue is not None:
        if len(by_family) > 1:
            raise UserError(f"option --write-to: the entries are of the families {', '.join(sorted(by_family))}, "
                            "and a catalogue holds one family's: calibrate one family at a time")
        return {family: (catalogue, new) for family, new in by_family.items()}
    targets = {}
    for family, new in by_family.items():
        path = registry.family(family).library
        if path is None:
            raise UserError(f"option --write: family '{family}' names no catalogue (Family.library): give it one, "
                            "or write the entries with --write-to FILE")
        targets[family] = (path, new)
    return targets


def _catalogue_items(path: Path, option: str) -> list[dict]:
    """The entries of an existing catalogue file, read through its schema (a file that is not
    a catalogue is a one-line error naming the `option`, and is left as it is)."""
    try:
        data = instances.read_data_file(path)
        instances.validate(data, library.SCHEMA, path)
    except DataError as error:
        raise UserError(f"option {option}: {error}") from None
    return data["instances"]


def _key(entry: dict) -> tuple:
    """An entry's instance and question: an entry of the same key is replaced."""
    return entry["name"], entry.get("question", "solve"), bool(entry.get("up_to_symmetry", False))
