"""The experiment matrix: a configuration checked before anything runs, expanded into runs
and batches of runs, and the environment record of a results folder.

A configuration (YAML, checked against `workflows/schemas/config.schema.yaml` by
Snakemake, and here against the registry) names:
  instances     shipped names (``packing/l_tromino_cube``), globs over shipped names
                (``packing/iq_twist/challenge_1*``), generators with seeds
                (``{generator: instant_insanity, seeds: [1, 2], options: {cubes: 8}}``),
                or the benchmark library's instances of a band
                (``{library: medium, families: [packing]}``, see `core.library`);
  formulations  names, or ``FILE.py:NAME`` for a formulation in a file of yours (the file
                states its ``FAMILY``; the path is relative to where Snakemake runs);
                each is used for the instances of the families that have it (and only where
                it applies, e.g. the coordinate models only for 2D boards);
  solvers       registered solvers (highs, cbc, glpk, scip, gurobi, cplex, cpsat,
                pyomo:NAME) and reference methods (``dlx`` for packing), each used where it
                exists; missing ones are reported and skipped;
  seeds         the solvers' random seeds (a dimension of the matrix; default: the solvers'
                own), permutations (0: the model as built; k: its k-th permutation of rows
                and columns), repeats;
  time_limit (seconds), threads, gap, memory_limit_mb, batch (runs per job).
Every name is checked here, so a typo stops the workflow with one line naming the key.
"""

from __future__ import annotations

import fcntl
import fnmatch
import glob
import hashlib
import importlib.util
import itertools
import json
import math
import os
import platform
import random
import re
import shutil
import socket
import sys
from dataclasses import dataclass, fields
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from pyomo_puzzles import provenance
from pyomo_puzzles.core import instances, library, registry, solvers
from pyomo_puzzles.core.records import RunSettings
from pyomo_puzzles.core.results import (
    SETTINGS,
    Run,
    count_record_path,
    formulation_label,
    is_reference_method,
    model_record_path,
    generated_path,
    is_formulation_file,
    plugin_distributions,
)
from pyomo_puzzles.errors import UserError, quoted, shortened
from pyomo_puzzles.version import __version__


class ConfigError(UserError):
    def __init__(self, key: str, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"configuration key {quoted(key)}: {message}")


@dataclass(frozen=True)
class Generated:
    """An instance the workflow generates: its name, file and how to make it."""

    name: str
    generator: str
    seed: int
    options: tuple[tuple[str, Any], ...]

    def path(self, results: str) -> str:
        return generated_path(self.name, results)


FORCE_VARIABLE = "PYOMO_PUZZLES_FORCE"
"""Set by the Snakefile's main process from Snakemake's rerun flags (`forced_batches`) and
inherited by the jobs (local jobs, and SLURM jobs, which get the submitting environment):
``all``, or the manifests of the batches to redo, separated by ``os.pathsep``."""

_MANIFEST = re.compile(r"batches/batch[0-9]+\.json$")


def forced_batches(dag_settings: Any) -> str:
    """What Snakemake's rerun flags ask of the batches (see `FORCE_VARIABLE`): ``--forceall``
    or ``--forcerun solve_batch`` redo every run, ``--forcerun``/``-f`` on a batch's
    manifest redo that batch's runs."""
    if dag_settings.forceall or "solve_batch" in dag_settings.forcerun:
        return "all"
    named = set(dag_settings.forcerun) | (set(dag_settings.targets) if dag_settings.forcetargets else set())
    return os.pathsep.join(sorted(os.path.abspath(t) for t in named if _MANIFEST.search(str(t))))


def lock_results(results: str):
    """Hold an exclusive lock on the results folder for this process's lifetime (return the
    open lock file; keep it). Another pipeline writing there is refused in one line."""
    folder = Path(results)
    folder.mkdir(parents=True, exist_ok=True)
    handle = open(folder / ".pipeline.lock", "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise UserError(f"the results folder {results} is in use by another pipeline ({holder}); "
                        "wait for it to end, or set another 'results' folder") from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()} on {socket.gethostname()} since "
                 f"{datetime.now().isoformat(timespec='seconds')}\n")
    handle.flush()
    return handle


DEFAULTS = {"batch": "auto", "processes": "per_batch", "order_seed": 1, "results": "results", "figures": {}, "statistics": {}, "seeds": [None], "permutations": [0],
            "repeats": 1, **{f.name: f.default for f in fields(RunSettings) if f.name in SETTINGS}}
"""What a configuration that leaves a key out gets (the schema states the same defaults; the
run settings' defaults are `RunSettings`'s)."""
FIGURE_DEFAULTS = {"text_width_pt": 418.25, "latex": False, "font_size": 9, "view": "auto"}
STATISTICS_DEFAULTS = {"time": "solver", "shift": 1.0, "par": 1.0, "scores": ["sgm", "par2", "borda", "solved_by_all"],
                       "trivial_below": 0.1, "demanding_from": 1.0, "resamples": 2000, "level": 0.95}
"""`report.measure.Statistics`'s defaults, named here because the report is not imported by the
experiment (a test keeps them equal)."""


def validate_config(config: dict, schema_path: str | Path) -> dict:
    """Check the configuration against its schema and the registry; fill in defaults.

    Raises ConfigError naming the offending key (e.g. ``time_limt``) before anything runs."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    if isinstance(config, dict) and "counts" in config and config["counts"] in (None, {}):  # said: no counts
        config = {key: value for key, value in config.items() if key != "counts"}
    error = instances.first_schema_error(config, schema)  # whole numbers as written, finite numbers
    if error is not None:
        raise _schema_error(error)
    config = {**DEFAULTS, **config}
    config["figures"] = {**FIGURE_DEFAULTS, **config["figures"]}
    config["statistics"] = {**STATISTICS_DEFAULTS, **config["statistics"]}
    _refuse_too_many_runs_per_cell(config)
    check_names(config)
    expand_instances(config["instances"])
    _check_lp_solver(config)
    if "counts" in config:
        config["counts"] = {"up_to_symmetry": True, "time_limit": 600, "every_feasible": False, **config["counts"]}
        count_jobs(config)  # checks its names too
    return config


def _check_lp_solver(config: dict) -> None:
    """A named LP solver of the model statistics must be an installed MIP solver that takes the matrix."""
    name = model_settings(config)["lp_solver"]
    if name is None or config.get("models") is False:
        return
    if not solvers.is_known(name):
        raise ConfigError("models.lp_solver", f"unknown solver {name!r} (choose from {', '.join(solvers.names())})")
    if not solvers.solves_lp_relaxations(solvers.adapter(name)):
        raise ConfigError("models.lp_solver", f"{name!r} is not a MIP solver taking the matrix, which an LP "
                                              "relaxation needs")
    if not solvers.availability(name)[0]:
        raise ConfigError("models.lp_solver", f"{name!r} is not installed: {solvers.availability(name)[1]}")


def _schema_error(error) -> ConfigError:
    """The configuration's first schema error as a ConfigError naming the key."""
    where = [str(p) for p in error.absolute_path]
    if error.validator == "additionalProperties":
        extra = sorted(str(key) for key in set(error.instance) - set(error.schema.get("properties", {})))
        return ConfigError(".".join(where + extra[:1]), "unknown key")
    if error.validator == "required":
        return ConfigError(".".join(where + [error.message.split("'")[1]]), "required key is missing")
    if error.validator == "type" and isinstance(error.instance, float) and not math.isfinite(error.instance):
        return ConfigError(".".join(where), f"must be a finite number, not {error.instance}")
    return ConfigError(".".join(where) or "<top level>", shortened(error.message.splitlines()[0]))


MAX_RUNS_PER_CELL = 10_000
"""The most runs of one instance, formulation and solver (seeds x permutations x repeats):
past it the matrix alone would take minutes and gigabytes to write down."""


def _refuse_too_many_runs_per_cell(config: dict) -> None:
    sizes = {"seeds": len(config["seeds"]), "permutations": len(config["permutations"]), "repeats": config["repeats"]}
    if sizes["seeds"] * sizes["permutations"] * sizes["repeats"] > MAX_RUNS_PER_CELL:
        largest = max(sizes, key=sizes.get)
        raise ConfigError(largest, f"{sizes['seeds']} seeds x {sizes['permutations']} permutations x "
                          f"{sizes['repeats']} repeats is more than {MAX_RUNS_PER_CELL:,} runs of each instance, "
                          "formulation and solver")


@dataclass(frozen=True)
class CountJob:
    """Enumerate and count the solutions of one instance with one formulation, solver and
    counting method (`core.counting.METHODS`)."""

    instance: str
    formulation: str
    solver: str
    method: str = "nogood"

    def record_path(self, results: str) -> str:
        return count_record_path(results, self.instance, self.formulation, self.solver, self.method)


@dataclass(frozen=True)
class ModelJob:
    """The statistics of one formulation on one instance (`core.statistics`): its size and
    LP relaxation, once, whatever solvers run it."""

    instance: str
    formulation: str
    source: str | None = None

    def record_path(self, results: str) -> str:
        return model_record_path(results, self.instance, self.formulation)


MODEL_DEFAULTS = {"lp_solver": None, "time_limit": 60.0, "optimum_stage": True}
"""The configuration's ``models`` section when it leaves a key out (``models: false``: none)."""


def model_jobs(config: dict, runs: list[Run]) -> list[ModelJob]:
    """One job per (instance, formulation) the runs of the integer program make (none with
    ``models: false``), in the runs' order."""
    if config.get("models") is False:
        return []
    found: dict[tuple[str, str], ModelJob] = {}
    for run in runs:
        if not is_reference_method(run.solver):
            found.setdefault((run.instance, formulation_label(run.formulation)),
                             ModelJob(run.instance, run.formulation, run.source))
    return list(found.values())


def model_settings(config: dict) -> dict:
    """The ``models`` section with its defaults."""
    section = config.get("models")
    return {**MODEL_DEFAULTS, **(section if isinstance(section, dict) else {})}


def count_jobs(config: dict, report=print) -> list[CountJob]:
    """The counting part of the experiment (none without a `counts` section)."""
    section = config.get("counts")
    if not section:
        return []
    try:
        check_names({"formulations": section["formulations"], "solvers": section["solvers"]})
        for i, name in enumerate(section["formulations"]):
            if is_formulation_file(name):
                raise ConfigError(f"formulations[{i}]", "counting takes the families' own formulations "
                                  "(count a formulation file with 'pyomo-puzzles count -f FILE.py:NAME')")
        files: dict[str, instances.Instance] = {}
        names, generated = expand_instances(section["instances"], files, counted=bool(section.get("up_to_symmetry")))
    except ConfigError as error:
        raise ConfigError("counts." + error.key, error.message) from None
    if files:
        raise ConfigError("counts.instances", "counting takes shipped instances (names or globs), not data files")
    references = {s: ref for fam in registry.families().values() for s, ref in fam.reference_solvers.items()}
    for i, name in enumerate(section["solvers"]):
        if name in references and references[name].enumerate is not None:
            continue
        if not solvers.is_known(name) or ":" in name:
            raise ConfigError(f"counts.solvers[{i}]", f"{name!r} cannot count (counting takes a registered "
                              "solver of the integer program or a reference method that enumerates, e.g. dlx; "
                              "not pyomo:NAME)")
    if generated:
        raise ConfigError("counts.instances", "counting takes shipped instances (names or globs)")
    methods = section.get("methods", ["nogood"])
    chosen = available_solvers({"solvers": section["solvers"]}, report)
    for solver in chosen:
        if solver not in references and "native" in methods and solvers.adapter(solver).enumeration is None:
            report(f"counts: solver '{solver}' has no enumeration of its own: it counts by no-good cuts only")
    jobs, plain, unable = [], set(), {}
    for name in names:
        fam = registry.family(name.split("/", 1)[0])
        spec = instances.load(name).spec
        if section.get("up_to_symmetry") and fam.symmetry_images is None and fam.name not in plain:
            plain.add(fam.name)
            report(f"counts: family '{fam.name}' states no symmetries (no 'symmetry_images' hook): "
                   "its instances are counted without up_to_symmetry")
        unable.update(_unable_to_count(fam, section["formulations"]))
        for solver in chosen:
            jobs += _count_jobs_of(name, fam, spec, solver, section["formulations"], methods)
    if unable and not jobs:
        raise ConfigError("counts.formulations", f"nothing to count: {'; '.join(unable.values())}")
    for why in unable.values():
        report(f"counts: {why}")
    return jobs


def _unable_to_count(fam, formulations: list[str]) -> dict[tuple[str, str], str]:
    """The formulations of `fam` among `formulations` that cannot enumerate (no `solution_vars`
    hook), each with why and which can, as `count` says it."""
    able = [f.name for f in fam.formulations.values() if f.solution_vars is not None]
    unable = {}
    for formulation in formulations:
        form = family_formulation(fam, formulation)
        if form is not None and form.solution_vars is None:
            hint = f"use {', '.join(able)}" if able else f"no formulation of family '{fam.name}' can"
            unable[fam.name, formulation] = (f"formulation '{formulation}' of family '{fam.name}' cannot enumerate "
                                             f"solutions (it has no 'solution_vars' hook): it counts nothing; {hint}")
    return unable


def _count_jobs_of(name: str, fam, spec, solver: str, formulations: list[str], methods: list[str]) -> list[CountJob]:
    """The counts of instance `name` by one solver: a reference method of its family (its own
    enumeration, once), or a solver of the integer program on each formulation that can
    enumerate, by each of `methods` the solver has."""
    if solver in fam.reference_solvers:
        reference = fam.reference_solvers[solver]
        counts = reference.enumerate is not None and not reference.applies_to(spec)
        return [CountJob(name, reference.formulation or solver, solver, "native")] if counts else []
    if any(solver in f.reference_solvers for f in registry.families().values()):
        return []  # another family's reference method
    offered = [m for m in methods if m == "nogood" or solvers.adapter(solver).enumeration is not None]
    jobs = []
    for formulation in formulations:
        form = family_formulation(fam, formulation)
        if form is None or form.solution_vars is None or form.applies_to(spec):
            continue
        jobs += [CountJob(name, formulation, solver, method) for method in offered]
    return jobs


def _slug(options: dict) -> str:
    return "_".join(f"{k}{v}" for k, v in sorted(options.items())) or "default"


def expand_instances(entries: list, files: dict[str, instances.Instance] | None = None, counted: bool | None = None
                     ) -> tuple[list[str], list[Generated]]:
    """Instance names in configuration order (globs expanded), and the generated ones. Data
    files named by their path (or a glob of paths) are named ``<family>/<stem>`` and go,
    loaded, into `files` (by name); two files of one name, or a file named as a shipped
    instance, are refused (their records would overwrite each other). With `counted` given, a
    library selection is of the library's counting questions (`_library_instances`)."""
    shipped = list(instances.shipped_instances())
    names: list[str] = []
    generated: list[Generated] = []
    files = {} if files is None else files
    for i, entry in enumerate(entries):
        key = f"instances[{i}]"
        if isinstance(entry, dict) and "library" in entry:
            names += _library_instances(entry, key, counted)
        elif isinstance(entry, dict):
            for g in _generated(entry, key):
                generated.append(g)
                names.append(g.name)
        elif Path(entry).suffix in instances.DATA_SUFFIXES:
            names += _data_files(entry, key, files, shipped)
        elif any(ch in entry for ch in "*?["):
            matched = [n for n in shipped if fnmatch.fnmatchcase(n, entry)]
            if not matched:
                raise ConfigError(key, f"the pattern {entry!r} matches no shipped instance")
            names += matched
        elif entry in shipped:
            names.append(entry)
        else:
            raise ConfigError(key, f"no shipped instance {entry!r} (run 'pyomo-puzzles list')")
    return list(dict.fromkeys(names)), generated


def _library_instances(entry: dict, key: str, counted: bool | None = None) -> list[str]:
    """The benchmark library's instances of the entry's band(s) and families (all where none
    are named): its questions to solve, or where `counted` is given its counting questions
    (up to symmetry where `counted` is True)."""
    bands = [entry["library"]] if isinstance(entry["library"], str) else list(entry["library"])
    try:
        chosen = library.library_entries(bands, entry.get("families"), ("solve",) if counted is None else ("count",))
    except UserError as error:
        raise ConfigError(key, str(error)) from None
    what = "instance"
    if counted is not None:  # a family without symmetries is counted plainly even where the section says up to them
        chosen = [e for e in chosen if e.up_to_symmetry == (counted and registry.family(e.family).symmetry_images
                                                            is not None)]
        what = "counting question" + (" up to symmetry" if counted else " of all solutions")
    if not chosen:
        raise ConfigError(key, f"the library has no {' or '.join(bands)} {what}"
                               + (f" of {', '.join(entry['families'])}" if entry.get("families") else ""))
    return [e.name for e in chosen]


def _data_files(entry: str, key: str, files: dict[str, instances.Instance], shipped: list[str]) -> list[str]:
    """The instances of a data file's path, or of a glob of paths (relative to where
    Snakemake runs), as ``<family>/<stem>`` names; `files` takes name -> loaded instance."""
    paths = sorted(glob.glob(entry)) if any(ch in entry for ch in "*?[") else [entry]
    if not paths or not all(Path(p).is_file() for p in paths):
        missing = entry if not paths else next(p for p in paths if not Path(p).is_file())
        raise ConfigError(key, f"no data file {missing!r} (a path relative to where Snakemake runs)")
    names = []
    for path in paths:
        try:
            loaded = instances.load(path)
        except UserError as error:
            raise ConfigError(key, str(error)) from None
        name, where = loaded.name, _absolute(loaded)
        if name in shipped:
            raise ConfigError(key, f"the data file {path} would be named {name!r}, as a shipped instance: rename it")
        if name in files and _absolute(files[name]) != where:
            raise ConfigError(key, f"the data files {_absolute(files[name])} and {where} would both be named "
                                   f"{name!r}: rename one")
        files[name] = loaded
        names.append(name)
    return names


def _absolute(instance: instances.Instance) -> str:
    return str(Path(instance.path).resolve())


def _generated(entry: dict, key: str) -> list[Generated]:
    name = entry["generator"]
    options = dict(entry.get("options", {}))
    try:
        foreign = registry.foreign_generator_options(name, options)
    except UserError as error:
        raise ConfigError(f"{key}.generator", str(error)) from None
    if foreign:
        raise ConfigError(f"{key}.options.{foreign[0]}", f"not an option of the {name} generator")
    return [Generated(f"generated/{name}/{_slug(options)}_seed{seed}", name, seed, tuple(sorted(options.items())))
            for seed in entry["seeds"]]


def family_formulation(fam: registry.Family, name: str) -> registry.Formulation | None:
    """The formulation `name` of `fam` (a formulation file only for the family it states)."""
    if is_formulation_file(name):
        module_family = _file_family(name)
        return registry.formulation(fam, name) if module_family == fam.name else None
    return fam.formulations.get(name)


def _file_family(name: str) -> str:
    """The FAMILY a formulation file states (it must state one to be used in an experiment)."""
    path = name.rsplit(":", 1)[0]
    if not Path(path).is_file():
        raise UserError(f"formulation file {path}: no such file")
    module = registry._formulation_module(str(Path(path).expanduser().resolve()))
    family = getattr(module, "FAMILY", None)
    if family not in registry.families():
        raise UserError(f"formulation file {path}: FAMILY must name a family for an experiment, got {family!r}")
    return family


def _refuse_one_label_for_two(formulations: list[str]) -> None:
    """Records are filed under a formulation's label (NAME for ``FILE.py:NAME``): two entries
    with one label would overwrite each other's records."""
    first: dict[str, int] = {}
    for j, name in enumerate(formulations):
        i = first.setdefault(formulation_label(name), j)
        if i == j:
            continue
        if formulations[i] == name:
            raise ConfigError(f"formulations[{j}]", f"{name!r} is listed twice (formulations[{i}] too)")
        raise ConfigError(f"formulations[{j}]", f"{name!r} and formulations[{i}] {formulations[i]!r} are both "
                          f"labelled {formulation_label(name)!r}, so their records would overwrite each other "
                          "(NAME in FILE.py:NAME is the label: choose another)")


def check_names(config: dict) -> None:
    """Formulations and solvers must exist somewhere (a typo is an error, not a skip)."""
    families = registry.families().values()
    known_forms = {f for fam in families for f in fam.formulations}
    _refuse_one_label_for_two(config["formulations"])
    for i, name in enumerate(config["formulations"]):
        if is_formulation_file(name):
            try:
                registry.formulation(registry.family(_file_family(name)), name)
            except UserError as error:
                raise ConfigError(f"formulations[{i}]", str(error)) from None
        elif name not in known_forms:
            raise ConfigError(f"formulations[{i}]", f"no formulation {name!r} (known: {', '.join(sorted(known_forms))})")
    references = {s for fam in families for s in fam.reference_solvers}
    for i, name in enumerate(config["solvers"]):
        if name in references:
            continue
        try:
            solvers.check_solver_name(name)
        except UserError:
            known = ", ".join(sorted(set(solvers.names()) | references))
            raise ConfigError(f"solvers[{i}]", f"no solver {name!r} (known: {known}, pyomo:NAME)") from None


def solver_status(name: str) -> tuple[bool, str]:
    """(installed, version or the reason it is missing) of a MIP solver or reference method."""
    if solvers.is_known(name):
        return solvers.availability(name)
    ref = next(fam.reference_solvers[name] for fam in registry.families().values()
               if name in fam.reference_solvers)
    return ref.available()


def available_solvers(config: dict, report=print) -> list[str]:
    """The configured solvers that are installed; each missing one is reported once."""
    chosen = []
    for name in config["solvers"]:
        ok, detail = solver_status(name)
        if ok:
            chosen.append(name)
        else:
            report(f"[pyomo-puzzles] solver {name} is not installed, skipped: {detail}")
    return chosen


def _family_of(name: str, generated: dict[str, Generated]) -> registry.Family:
    if name in generated:
        return registry.family(next(fam.name for fam in registry.families().values()
                                    if generated[name].generator in fam.generators))
    return registry.family(name.split("/", 1)[0])


def matrix(config: dict, report=print, left_out: list[str] | None = None) -> tuple[list[Run], list[Generated]]:
    """Every run of the experiment, instance by instance, and the instances to generate; each
    cell of a shipped instance or data file that a formulation or reference method cannot
    answer is appended to `left_out`, one line with why (the report lists them; a generated
    instance's are found when it is made, `core.results.left_out`)."""
    left_out = [] if left_out is None else left_out
    check_names(config)
    files: dict[str, instances.Instance] = {}  # the data files, loaded once
    names, generated = expand_instances(config["instances"], files)
    by_name = {g.name: g for g in generated}
    chosen = available_solvers(config, report)
    runs = []
    not_applicable: dict[str, int] = {}
    for name in names:
        fam = _family_of(name, by_name)
        source = _absolute(files[name]) if name in files else None
        spec = None if name in by_name else (files[name] if name in files else instances.load(name)).spec
        for formulation in config["formulations"]:
            form = family_formulation(fam, formulation)
            if form is None:
                continue  # a formulation of another family
            reason = form.applies_to(spec) if spec is not None else None
            if reason:
                not_applicable[formulation] = not_applicable.get(formulation, 0) + 1
                left_out.append(f"every solver / {formulation_label(formulation)}: formulation "
                                f"'{formulation_label(formulation)}' cannot model {name}: {reason}")
                continue
            for solver in chosen:
                if solver not in fam.reference_solvers and solvers.is_known(solver):
                    runs += _cells(config, name, formulation, solver, source)
        for solver in chosen:
            reference = fam.reference_solvers.get(solver)
            if reference is None:
                continue
            reason = reference.applies_to(spec) if spec is not None else None
            if reason:
                not_applicable[f"solver {solver}"] = not_applicable.get(f"solver {solver}", 0) + 1
                left_out.append(f"{solver} / {reference.formulation or solver}: solver '{solver}' cannot answer "
                                f"{name}: {reason}")
                continue
            runs += [Run(name, reference.formulation or solver, solver, r, source=source)
                     for r in range(1, config["repeats"] + 1)]
    for method, count in not_applicable.items():
        what = method if method.startswith("solver ") else f"formulation {method}"
        report(f"[pyomo-puzzles] {what} does not apply to {count} of the instances; no runs there")
    return runs, generated


def _cells(config: dict, instance: str, formulation: str, solver: str, source: str | None) -> list[Run]:
    """Seeds x permutations x repeats of one (instance, formulation, solver)."""
    return [Run(instance, formulation, solver, repeat, seed, permutation, source)
            for seed in config.get("seeds", [None]) for permutation in config.get("permutations", [0])
            for repeat in range(1, config["repeats"] + 1)]


def drawable_instances(runs: list[Run]) -> list[str]:
    """The shipped instances of the runs whose family draws pictures, in run order."""
    shipped = dict.fromkeys(r.instance for r in runs if not r.instance.startswith("generated/") and not r.source)
    return [name for name in shipped if registry.family(name.split("/", 1)[0]).draw is not None]


AUTO_BATCHES, AUTO_BATCH_RUNS = 16, (8, 250)
"""``batch: auto``: the runs in about this many jobs, each of at least and at most this many runs."""


def batch_size(setting: int | str, runs: int) -> int:
    """Runs per batch: `setting`, or for ``auto`` the experiment's runs over `AUTO_BATCHES`
    jobs, within `AUTO_BATCH_RUNS`. It depends on the experiment alone, not on the cores of
    this invocation: a pipeline resumed with other ``--cores``, a dry run and ``--report``
    see the same batches. Each job pays a Python start-up and its solvers' warm-up (about
    1.5 s), so a 1,500-run experiment in batches of 8 spent more on starting its 189 jobs
    than on its runs; 16 jobs keep 2 to 16 cores busy, the runs of a solver dealt out over its
    jobs so that the last job ends soon after the others (`benchmarks/scale.py`)."""
    if setting != "auto":
        return int(setting)
    low, high = AUTO_BATCH_RUNS
    return min(max(-(-runs // AUTO_BATCHES), low), high)


def batches(runs: list[Run], size: int, order_seed: int = 1) -> list[list[Run]]:
    """The runs in groups of at most `size`, each group the runs of one solver, so that a
    solver's one-off start-up (Gurobi's environment, CP-SAT's worker and OR-Tools: a second
    or more each, paid once per batch process) is paid once per batch of its own runs, not
    in every batch. A solver's runs are dealt out in turn over its batches (run i to batch
    i mod the number of its batches): consecutive runs are other instances, so a slow
    instance (a 3x3x3 cube, a big tower) is spread over many batches instead of filling one
    batch that then runs alone at the end while the other cores wait. The batches of the
    solvers alternate, so that jobs running side by side are other solvers.

    Within a batch the runs come in a random order drawn from `order_seed` (the
    configuration's ``order_seed``, recorded with it in ``environment.json``), so that warm
    caches and the machine's thermal state favour no instance or formulation by where it
    comes in the matrix; the same seed gives the same order."""
    by_solver: dict[str, list[Run]] = {}
    for run in runs:
        by_solver.setdefault(run.solver, []).append(run)
    per_solver = []
    for own in by_solver.values():
        count = -(-len(own) // size)
        per_solver.append([own[i::count] for i in range(count)])
    dealt = [batch for turn in itertools.zip_longest(*per_solver) for batch in turn if batch is not None]
    return [random.Random(f"{order_seed}:{i}").sample(batch, len(batch)) for i, batch in enumerate(dealt)]


def parquet_available(report=print) -> bool:
    """Whether runs.parquet can be written (pyarrow); if not, say so once."""
    if importlib.util.find_spec("pyarrow") is not None:
        return True
    report("pyomo-puzzles: Python package 'pyarrow' not installed: tables/runs.parquet is not written "
           "(tables/runs.csv holds the same table; pip install 'pyomo-puzzles[parquet]')")
    return False


def tex_missing() -> str | None:
    """Why the experiment's LaTeX chapter cannot be compiled here (None: it can)."""
    missing = [name for name in ("latexmk", "pdflatex") if shutil.which(name) is None]
    if not missing:
        return None
    return f"{' and '.join(missing)} not installed (Debian: latexmk, texlive-latex-recommended)"


def chapter_pdf(config: dict, report=print) -> bool:
    """Whether the pipeline compiles ``latex/experiment.pdf`` (config ``chapter.pdf``: ``auto``
    where TeX is installed, saying so once where it is not; ``true`` requires it)."""
    wanted = (config.get("chapter") or {}).get("pdf", "auto")
    if wanted is False:
        return False
    missing = tex_missing()
    if missing is None:
        return True
    if wanted is True:
        raise UserError(f"chapter.pdf: true, but {missing}")
    report(f"pyomo-puzzles: the LaTeX chapter (latex/chapter.tex) is written but not compiled: {missing}")
    return False


# --- environment -------------------------------------------------------------------------

PACKAGES = ("pyomo-puzzles", "pyomo", "highspy", "pyscipopt", "gurobipy", "cplex", "cbcbox", "swiglpk", "numpy",
            "scipy", "pandas", "pyarrow", "matplotlib", "seaborn", "snakemake", "xcover", "ortools")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2 ** 20, 1)
    except OSError:
        pass
    return None


def host_facts() -> dict:
    """The machine this process runs on: host name, CPU, cores, memory, operating system."""
    return {"host": socket.gethostname(), "cpu": _cpu_model(), "cores": os.cpu_count(),
            "memory_gib": _memory_gib(), "os": platform.platform(), "python": sys.version.split()[0]}


def _solver_executables(names) -> dict:
    """The executables of the configured solvers that run one: path, Debian package, version."""
    found = {}
    for name in names:
        command = solvers.adapter(name).executable if solvers.is_known(name) else None
        facts = provenance.executable_facts(command) if command else None
        if facts is not None:
            found[name] = facts
    return found


def plugins() -> list[dict]:
    """Every package other than pyomo-puzzles that registers a family or a solver adapter:
    its distribution and version, its families and solvers, where pip installed it from,
    and where its code is imported from a git work tree (an editable install, a folder on
    PYTHONPATH), the commit and whether files under its folder have uncommitted changes."""
    owners: dict[str, dict[str, list[str]]] = {}
    for name, fam in registry.families().items():
        owners.setdefault(fam.load.__module__.split(".")[0], {"families": [], "solvers": []})["families"].append(name)
    for name in solvers.names():
        top = type(solvers.adapter(name)).__module__.split(".")[0]
        owners.setdefault(top, {"families": [], "solvers": []})["solvers"].append(name)
    owners.pop("pyomo_puzzles", None)
    return [_plugin_facts(package, owned) for package, owned in sorted(owners.items())]


def _plugin_facts(package: str, owned: dict[str, list[str]]) -> dict:
    found = plugin_distributions(package)
    facts = {"distribution": found[0].name if found else None, "version": found[0].version if found else None,
             "package": package, **owned, "installed_from": None, "editable": None, "commit": None,
             "folder": None, "uncommitted_changes": None}
    if found:
        facts.update(provenance.installed_from(found[0]))
    module = sys.modules.get(package)
    if getattr(module, "__file__", None):
        folder = Path(module.__file__).parent
        git = provenance.git_facts(folder)
        facts.update(folder=str(folder), commit=git["commit"] or facts["commit"],
                     uncommitted_changes=git["uncommitted_changes"])
    return facts


def environment(config: dict, root: Path) -> dict:
    """Package and solver versions, the lock the packages were installed from (its digest and
    whether the installed packages are the locked ones), the solver executables' packages,
    the plugins (`plugins`), pyomo-puzzles itself (`framework`: version, folder, git commit
    and uncommitted changes, where it was installed from), the folder the pipeline ran from
    (`working_folder`: the user's, with its own commit where it is a git work tree), machine,
    operating system, host, config."""
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    solver_versions = {}
    counting = (config.get("counts") or {}).get("solvers", [])
    for name in dict.fromkeys([*config["solvers"], *counting]):  # a solver that only counts is recorded too
        ok, detail = solver_status(name)
        solver_versions[name] = detail if ok else f"not installed ({detail})"
    return {
        "python": sys.version.split()[0],
        "packages": versions,
        "lock": provenance.lock_facts(),
        "solvers": solver_versions,
        "solver_executables": _solver_executables(config["solvers"]),
        "plugins": plugins(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "os": platform.platform(),
        "host": socket.gethostname(),
        "framework": provenance.framework_facts(__version__),
        "working_folder": {"path": str(root), **provenance.git_facts(root)},
        "config": config,
        "config_sha256": hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16],
    }
