"""The results folder: where each run's record lives, the generated instances' files, the
fingerprint that says whether a record is still current, and the tidy tables read from the
records. The API (`results`), the pipeline and `compare` all read folders through here.

    RESULTS/runs/<instance>/<formulation>/<solver>/[seed<s>-][perm<p>-]repeat<k>.json
    RESULTS/counts/<instance>/<formulation>/<solver>.json
    RESULTS/instances/<generator>/<stem>.yaml          (generated instances)
    RESULTS/batches/batch<n>.json                      (a batch's manifest: its records, its data files)
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import re
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from pyomo_puzzles.core import instances, known, progress, registry, solvers
from pyomo_puzzles.core.records import generate_time, setting_names
from pyomo_puzzles.errors import UserError
from pyomo_puzzles import version

if TYPE_CHECKING:
    import pandas

GENERATED_DIR = "instances"
"""Generated instances are written under RESULTS/instances/<generator>/."""

SETTINGS = tuple(name for name in setting_names() if name not in ("seed", "permutation"))
"""The experiment-wide run settings (seed and permutation are dimensions of the matrix)."""


def is_formulation_file(name: str) -> bool:
    return ":" in name and name.split(":", 1)[0].endswith(".py")


def formulation_label(name: str) -> str:
    """The name a formulation's records carry: NAME for ``FILE.py:NAME``."""
    return name.rsplit(":", 1)[1] if is_formulation_file(name) else name


def is_reference_method(solver: str) -> bool:
    """Whether `solver` names a family's reference method (packing's dlx), not a MIP solver."""
    return any(solver in fam.reference_solvers for fam in registry.families().values())


@dataclass(frozen=True)
class Run:
    """One cell of the matrix: a record file's worth of work."""

    instance: str        # shipped name, generated/<generator>/<stem>, or <family>/<stem> of a data file
    formulation: str
    solver: str
    repeat: int
    seed: int | None = None
    permutation: int = 0
    source: str | None = None
    """The data file of an instance the configuration names by its path (None: shipped or generated)."""

    def record_path(self, results: str) -> str:
        """``runs/<instance>/<formulation>/<solver>/[seed<s>-][perm<p>-]repeat<k>.json`` (a
        formulation file's ``FILE.py:NAME`` is filed under NAME)."""
        stem = "".join([f"seed{self.seed}-" if self.seed is not None else "",
                        f"perm{self.permutation}-" if self.permutation else "", f"repeat{self.repeat}"])
        solver = self.solver.replace(":", "_")  # pyomo:NAME
        return f"{results}/runs/{self.instance}/{formulation_label(self.formulation)}/{solver}/{stem}.json"


def count_record_path(results: str, instance: str, formulation: str, solver: str, method: str = "nogood") -> str:
    return f"{results}/counts/{instance}/{formulation}/{solver}/{method}.json"


def model_record_path(results: str, instance: str, formulation: str) -> str:
    """The statistics of one formulation on one instance (`core.statistics`; a formulation
    file's ``FILE.py:NAME`` is filed under NAME)."""
    return f"{results}/models/{instance}/{formulation_label(formulation)}.json"


def generated_path(name: str, results: str) -> str:
    """The file of the generated instance `name` (generated/<generator>/<stem>)."""
    return f"{results}/{GENERATED_DIR}/{name.removeprefix('generated/')}.yaml"


def run_instance_source(name: str, results: str) -> str:
    """What to load for a run's instance: a shipped name, or a generated instance's file in
    the results folder."""
    return generated_path(name, results) if name.startswith("generated/") else name


def load_run_instance(name: str, results: str, source: str | None = None) -> instances.Instance:
    """A shipped instance, a generated one from its file in the results folder, or the
    instance of a data file the configuration names (`source`)."""
    if source is not None:
        return instances.load(source)
    if name.startswith("generated/"):
        path = Path(generated_path(name, results))
        return instances.from_data(instances.read_data_file(path), path, shipped_name=name)
    return instances.load(name)


# --- fingerprints: is a record still what the run would give now? -------------------------

def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:16]


FAMILY_HOOKS = ("load", "check", "objective", "solution_key", "symmetry_images", "variants", "known_objective")
"""The family's hooks its records depend on: how an instance is read, the checker's verdict,
the checked objective, which solutions are one, their symmetries and variants (counts), the
known optimum. Its
pictures, sizes and descriptions are in no record."""

COUNT_SETTINGS = ("up_to_symmetry", "time_limit", "every_feasible")
"""The experiment-wide settings of the counts (the method is a dimension of the counts)."""


def _defining_file(hook) -> str | None:
    """The source file that defines `hook` (a function, a functools.partial or a callable
    object), or None (a builtin)."""
    target = getattr(hook, "func", hook)
    try:
        return _remembered_defining_file(target)
    except TypeError:  # an unhashable callable object: looked up each time
        return _find_defining_file(target)


@lru_cache(maxsize=None)
def _remembered_defining_file(target) -> str | None:
    """`_find_defining_file`, once per hook: a batch fingerprints every run of the experiment,
    and finding a function's file takes longer than reading it."""
    return _find_defining_file(target)


def _find_defining_file(target) -> str | None:
    for candidate in (target, type(target)):
        try:
            return inspect.getsourcefile(candidate)
        except TypeError:
            continue
    return None


def _source_digest(*functions) -> str:
    """The code of the files that define `functions` (None: no such hook)."""
    files = sorted({_defining_file(f) for f in functions if f is not None} - {None})
    return _files_digest(tuple((f, *_version(f)) for f in files))


def _version(path: str) -> tuple[int, int]:
    stat = os.stat(path)
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=1024)
def _files_digest(versions: tuple[tuple[str, int, int], ...]) -> str:
    """The digest of the files' bytes, computed once per version of the files (as
    `_instance_data_of_version`): a batch fingerprints each of its runs."""
    return _digest(*(Path(path).read_bytes() for path, _, _ in versions))


def _own_hooks(owner, names: tuple[str, ...] | None = None) -> list:
    """The hooks (of `names`, default all) that `owner`, a Formulation, ReferenceSolver or
    Family, sets itself: the contract's defaults are pyomo-puzzles's code, counted by its version."""
    defaults = {f.name: f.default for f in fields(owner)}
    return [hook for name in (names or defaults)
            if callable(hook := getattr(owner, name)) and hook is not defaults[name]]


def _family_digest(family: registry.Family) -> str:
    """The family's own code its records depend on (`FAMILY_HOOKS`), and its schema."""
    schema = json.dumps(family.schema, sort_keys=True, default=repr).encode()
    return _digest(_source_digest(*_own_hooks(family, FAMILY_HOOKS)).encode(), schema)


@lru_cache(maxsize=None)
def plugin_distributions(package: str) -> tuple[metadata.Distribution, ...]:
    """The installed distributions whose family or solver entry points load the top-level
    package `package`, each once (an environment layered on another finds some twice)."""
    found = {}
    for group in (registry.ENTRY_POINT_GROUP, solvers.ENTRY_POINT_GROUP):
        for point in metadata.entry_points(group=group):
            if point.module.split(".")[0] == package and point.dist is not None:
                found.setdefault(point.dist.name, point.dist)
    return tuple(found.values())


def _package_versions(family: registry.Family) -> str:
    """pyomo-puzzles's version, and the version of the distribution a plugin family comes from."""
    top = family.load.__module__.split(".")[0]
    ours = f"pyomo-puzzles {version.__version__}"
    if top == "pyomo_puzzles":
        return ours
    plugin = ", ".join(f"{d.name} {d.version}" for d in plugin_distributions(top)) or top
    return f"{ours}; {plugin}"


def run_fingerprint(item: Run, results: str, settings: dict) -> dict:
    """Everything that determines a run's record: the instance's data (its file and the files
    it is based on), the formulation's and the family's code, the package and solver
    versions, the settings."""
    path = instances.resolve(item.source or run_instance_source(item.instance, results))[1]
    digest, puzzle = _instance_data(path)
    return {"instance": digest, **_method_fingerprint(item, registry.family(puzzle), settings)}


def _instance_data(path: Path) -> tuple[str, str | None]:
    """The digest of an instance's data (`instances.data_digest`) and its family's name."""
    stat = path.stat()
    return _instance_data_of_version(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _instance_data_of_version(path: str, mtime_ns: int, size: int) -> tuple[str, str | None]:
    """Remembered per version of the file: a matrix names an instance once per formulation,
    solver, seed and repeat, and reading it is most of a fingerprint's cost. (An edit of a
    file it is based on, in the same process, can go unseen: the record then carries the
    older digest and is redone next time, never kept stale.)"""
    return instances.data_digest(Path(path)), instances.read_data_file(Path(path)).get("puzzle")


def _method_fingerprint(item: Run, family: registry.Family, settings: dict) -> dict:
    """The part of a run's fingerprint that is not its instance's data."""
    return {**_code_fingerprint(family, item.formulation, item.solver),
            "settings": {**{k: settings.get(k) for k in SETTINGS}, "seed": item.seed,
                         "permutation": item.permutation, **_processes(settings)}}


def _processes(settings: dict) -> dict:
    """How a pipeline makes its runs (``processes``: a batch's runs in one process or each in
    its own), where the settings say: a run's times are measured otherwise, so a change redoes it."""
    return {"processes": settings["processes"]} if "processes" in settings else {}


def _code_fingerprint(family: registry.Family, formulation: str, solver: str | None) -> dict:
    """The code and versions a run or count depends on: the files that define the
    formulation's hooks (a reference method's own) and the family's, the package and solver
    versions."""
    reference = family.reference_solvers.get(solver)
    if reference is not None:
        code, solver_version = _source_digest(*_own_hooks(reference)), reference.available()[1]
    else:
        code = _source_digest(*_own_hooks(registry.formulation(family, formulation)))
        solver_version = solvers.availability(solver)[1] if solver is not None else None
    return {"formulation": code, "family": _family_digest(family), "package": _package_versions(family),
            "solver": f"{solver} {solver_version}"}


def count_fingerprint(instance: str, formulation: str, solver: str, method: str, settings: dict) -> dict:
    """Everything that determines a count's record: what a run's does (`run_fingerprint`:
    instance data, code, versions), the family's benchmark library (its reference counts
    are the known figures where the instance states none) and the count's own settings."""
    digest, puzzle = _instance_data(instances.resolve(instance)[1])
    family = registry.family(puzzle)
    catalogue = _catalogue_digest(family)
    return {"instance": digest, **_code_fingerprint(family, formulation, solver),
            "known": catalogue, "settings": {"method": method, **{k: settings.get(k) for k in COUNT_SETTINGS}}}


def _catalogue_digest(family: registry.Family) -> str | None:
    """The digest of the family's catalogue (None: it names none, or one not written yet)."""
    if family.library is None or not Path(family.library).exists():
        return None
    return _digest(Path(family.library).read_bytes())


def count_digest(instance: str, formulation: str, solver: str, method: str, settings: dict) -> str:
    """The digest of a count's fingerprint, a parameter of its Snakemake job: when anything
    the count depends on changes, plain ``snakemake`` counts again."""
    try:
        parts = count_fingerprint(instance, formulation, solver, method, settings)
    except Exception as error:  # noqa: BLE001 - the count says what is wrong
        parts = {"unreadable": f"{type(error).__name__}: {error}"}
    return _digest(json.dumps(parts, sort_keys=True, default=str).encode())


MODEL_SETTINGS = ("lp_solver", "time_limit", "optimum_stage")
"""The settings of the model statistics (the configuration's ``models`` section)."""


def model_digest(instance: str, formulation: str, source: str | None, results: str, settings: dict) -> str:
    """The digest of what one formulation's statistics on one instance depend on (the
    instance's data, the formulation's and the family's code, the package versions, the LP
    solver's version, the benchmark library that may state the optimum, the settings), a
    parameter of its Snakemake job: a change computes them again. A generated instance counts
    by its name, as in `batch_fingerprint`."""
    try:
        if instance.startswith("generated/"):
            digest, family = instance, _generator_family(instance.split("/")[1])
        else:
            digest, puzzle = _instance_data(instances.resolve(source or instance)[1])
            family = registry.family(puzzle)
        lp_solver = settings.get("lp_solver")
        parts = {"instance": digest, **_code_fingerprint(family, formulation, lp_solver or solvers.default_lp_solver()),
                 "lp_solver": lp_solver, "known": _catalogue_digest(family),
                 "settings": {k: settings.get(k) for k in MODEL_SETTINGS}}
    except Exception as error:  # noqa: BLE001 - the job says what is wrong
        parts = {"unreadable": f"{type(error).__name__}: {error}"}
    return _digest(json.dumps(parts, sort_keys=True, default=str).encode())


def batch_fingerprint(runs: list[dict], results: str, settings: dict) -> str:
    """One digest of the fingerprints of a batch's runs, a parameter of its Snakemake job: when
    a file a run depends on changes (a plugin's formulation, loader, checker or instance, a
    formulation file, a package or solver version), the digest changes, so plain ``snakemake`` runs the batch
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


def why_redo(path: Path, fingerprint: dict | None, forced: bool) -> str | None:
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


# --- the tidy tables ---------------------------------------------------------------------

COLUMNS = ("puzzle", "instance", "formulation", "solver", "seed", "permutation", "repeat", "solver_version",
           "status", "checked", "killed", "wall_time", "load_time", "prepare_time", "startup_time", "build_time", "generate_time",
           "compile_time", "call_time", "solver_time", "solver_clock", "decode_time", "check_time", "cpu_time",
           "nodes", "models", "matrix_digest",
           "presolved_variables", "presolved_rows", "presolved_nonzeros", "objective", "objective_sense",
           "objective_checked", "bound",
           "gap", "root_bound", "root_gap_closed", "progress_source", "primal_dual_integral", "primal_integral",
           "peak_memory_mb", "runs_before_in_process", "time_limit", "threads", "memory_limit_mb", "host", "message", "started_at",
           "size", "size_label", "known_solvable", "known_objective", "known_solvable_from", "known_objective_from")
"""The columns of the runs table (``tables/runs.csv``), one row per run (``known_*_from``: the
file and field the known answer comes from; ``primal_integral``: against the instance's
reference optimum, `reference_objectives`; ``root_gap_closed``: filled by the report job, which
has the LP relaxations, `report.formulations.root_gap_closed`)."""

PROGRESS_COLUMNS = ("instance", "formulation", "solver", "seed", "permutation", "repeat", "seconds", "incumbent",
                    "bound")
"""The columns of ``tables/progress.csv``: one row per point of a run's trace (`core.progress`)."""

COUNT_COLUMNS = ("instance", "formulation", "solver", "method", "counted", "optimum", "complete", "solutions", "classes",
                 "largest_orbit",
                 "known_solutions", "known_classes", "agrees_with_known", "data_problem", "digest", "solves", "points", "elapsed",
                 "startup_time", "route", "message")
"""The columns of the counts table (``tables/counts.csv``), one row per count (``largest_orbit``: the
most distinct solutions one orbit found had; ``counted``: all, optimal or feasible, `core.counting`)."""


def _instance_facts(name: str, results: str, source: str | None = None) -> dict:
    """Size (for scaling plots) and the known answer with where each figure comes from (the
    data file's field, the family's hook, or the benchmark library's entry: `core.known`)."""
    try:
        instance = load_run_instance(name, results, source)
    except Exception:  # noqa: BLE001 - a broken instance still has its (error) runs in the table
        return {}
    size = instance.family.size_of(instance.spec)
    answer = known.known_answer(instance)
    return {"size": math.nan if size is None else size[0], "size_label": None if size is None else size[1],
            "known_solvable": answer.solvable, "known_objective": _or_nan(answer.objective),
            "known_solvable_from": answer.solvable_from, "known_objective_from": answer.objective_from}


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


NOT_APPLICABLE = "not_applicable"
"""The status of a cell the pipeline left out when it ran (`records.STATUSES`): no run, in no table."""


def runs_table(record_paths: list[str], results: str) -> pandas.DataFrame:
    """One row per run (pandas DataFrame, the columns in `COLUMNS`); the records of cells left
    out (a formulation or reference method that cannot answer a generated instance) are no
    runs and have no row, as the cells of shipped instances left out when planned (see
    `left_out`)."""
    import pandas as pd  # 0.3 s: only the commands that make tables pay for it

    rows, traces, facts, sources = [], [], {}, manifest_sources(results)
    for path in record_paths:
        data = json.loads(Path(path).read_text())
        if data.get("status") == NOT_APPLICABLE:
            continue
        name = data["instance"]
        if name not in facts:
            facts[name] = _instance_facts(name, results, sources.get(name))
        row = {k: data.get(k) for k in COLUMNS}
        row["generate_time"] = generate_time(data)
        row["repeat"] = _repeat_of(path)
        row["permutation"] = row["permutation"] or 0
        row.update(facts[name])
        rows.append(row)
        traces.append(data.get("progress"))
    references = reference_objectives(rows)  # once every run's objective is known
    for row, trace in zip(rows, traces):
        reference = references.get(row["instance"])
        row["primal_integral"] = progress.primal_integral(trace, reference) \
            if trace and reference is not None else None
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _repeat_of(record_path: str) -> int:
    """The repeat a run record's file is named for (``...repeat<k>.json``)."""
    return int(re.search(r"repeat(\d+)$", Path(record_path).stem).group(1))


def reference_objectives(rows: list[dict]) -> dict[str, float]:
    """Per instance, the optimum a primal integral is measured against: the known one, else the
    best objective of a checked run that did not end in an error (by the runs' objective
    sense), of the runs whose objective the family's hook confirmed where there are any."""
    found: dict[str, float] = {}
    for row in rows:
        known_objective = row.get("known_objective")
        if known_objective is not None and not (isinstance(known_objective, float) and math.isnan(known_objective)):
            found[row["instance"]] = float(known_objective)
    confirmed = {row["instance"] for row in rows if row.get("objective_checked") is True}
    best: dict[str, float] = {}
    for row in rows:
        name, objective = row["instance"], row.get("objective")
        if (name in found or objective is None or row.get("checked") is not True or row.get("status") == "error"
                or (name in confirmed and row.get("objective_checked") is not True)):
            continue
        better = max if row.get("objective_sense") == "maximize" else min
        best[name] = better(best.get(name, objective), objective)
    return {**best, **found}


def picture_run(records: list[dict]) -> dict | None:
    """The run an instance's picture is drawn from: of the runs whose solution the checker
    passed and that did not end in an error (a wrong objective is one), the one with the best
    objective by its sense, a proven optimum before an unproven one of the same objective, the
    first of equals; None where there is none. `records` are run records or rows of the runs
    table (a record without its ``solution`` cannot be drawn, and is passed over)."""
    usable = [(index, r) for index, r in enumerate(records)
              if r.get("checked") in (True,) and r.get("status") != "error"  # a table's numpy True too
              and ("solution" not in r or r["solution"] is not None)]
    if not usable:
        return None

    def rank(item: tuple[int, dict]) -> tuple:
        index, record = item
        objective = record.get("objective")
        value = math.inf if objective is None or objective != objective else float(objective)
        if record.get("objective_sense") == "maximize" and math.isfinite(value):
            value = -value
        return value, record.get("status") != "optimal", index

    return min(usable, key=rank)[1]


def picture_source(record: dict) -> str:
    """Which run a picture shows, in words: "highs / grid, optimal, objective 25"."""
    words = f"{record.get('solver')} / {record.get('formulation')}, {record.get('status')}"
    objective = record.get("objective")
    if objective is not None and objective == objective and record.get("objective_sense") is not None:
        words += f", objective {float(objective):g}"
    return words


def progress_table(record_paths: list[str]) -> pandas.DataFrame:
    """``tables/progress.csv``: every point of every run's trace of incumbent and bound."""
    import pandas as pd  # see runs_table

    rows = []
    for path in record_paths:
        data = json.loads(Path(path).read_text())
        key = {k: data.get(k) for k in ("instance", "formulation", "solver", "seed")}
        key["permutation"] = data.get("permutation") or 0
        key["repeat"] = _repeat_of(path)
        rows += [{**key, "seconds": seconds, "incumbent": incumbent, "bound": bound}
                 for seconds, incumbent, bound in data.get("progress") or []]
    return pd.DataFrame(rows, columns=list(PROGRESS_COLUMNS))


def left_out(record_paths: list[str]) -> list[str]:
    """The cells left out when they ran, one line each: instance, method and why."""
    lines = []
    for path in record_paths:
        data = json.loads(Path(path).read_text())
        if data.get("status") == NOT_APPLICABLE:
            lines.append(f"{data['solver']} / {data['formulation']}: {data.get('message') or 'does not apply'}")
    return sorted(set(lines))  # one line per cell, not per repeat or seed


def folder_runs(folder: str | Path) -> pandas.DataFrame:
    """The runs table of a results folder: one row per record under ``FOLDER/runs`` (so it
    also covers a pipeline that has not finished)."""
    folder = Path(folder)
    if not (folder / "runs").is_dir():
        raise UserError(f"{folder}: not a results folder (it has no 'runs' folder)")
    paths = sorted(str(p) for p in (folder / "runs").rglob("*.json"))
    return runs_table(paths, str(folder))


def counts_table(paths: list[str]) -> pandas.DataFrame:
    """One row per count record (the columns in `COUNT_COLUMNS`)."""
    import pandas as pd  # see runs_table

    rows = []
    for path in paths:
        record = json.loads(Path(path).read_text())
        record["largest_orbit"] = max(record.get("orbit_sizes") or [], default=None)  # distinct images of a solution
        rows.append({k: record.get(k) for k in COUNT_COLUMNS})
    return pd.DataFrame(rows, columns=list(COUNT_COLUMNS))
