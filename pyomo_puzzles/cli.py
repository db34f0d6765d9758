"""Command-line interface: parses arguments and calls the package's public functions."""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
from pathlib import Path

from pyomo_puzzles.core.interrupts import sigterm_as_interrupt
from pyomo_puzzles.errors import TRACEBACK_VARIABLE, DataError, UserError, failure_line, one_line
from pyomo_puzzles.version import __version__

COMPARE_MEASURES = ("solver", "build_and_solve", "wall")
"""`report.measure.TIME_MEASURES`, named here so that `--help` does not import pandas (a test keeps them equal)."""

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_GENERATOR_SOLVER = "highs"
"""The solver `generate` gives a generator that solves, without ``--solver``."""


def _instance(name: str):
    from pyomo_puzzles import api  # see cmd_solve

    return api.load(name)


def cmd_list(args: argparse.Namespace) -> int:
    # yaml and the plugin registry, ~50 ms: `--help` and `--version` do not pay for them
    from pyomo_puzzles.core import instances, registry, solvers
    from pyomo_puzzles.core.records import solver_setting_names

    print("Families and formulations:")
    for name, problem in registry.broken_plugins().items():
        print(f"  BROKEN family plugin {name}: {problem}")
    for fam in registry.families().values():
        print(f"  {fam.name}: {fam.summary}")
        for form in fam.formulations.values():
            default = " (default)" if form.name == fam.default_formulation else ""
            print(f"    - {form.name}{default}: {form.summary}")
            if args.components:
                _print_components(form)
    print("Shipped instances:")
    for name in instances.shipped_instances():
        print(f"  {name}")
    settings = " / ".join(name.replace("_", " ") for name in solver_setting_names())
    print(f"Solvers ({settings}: the solver's own settings; '-': it has none):")
    for name in solvers.names():
        info = solvers.describe(name)
        kind = "" if info.kind == "mip" else f" [{info.kind}: not a MIP solver]"
        print(f"  {name:7s} {'available' if info.available else 'MISSING  '}  {info.detail}{kind}")
        print(f"          {_settings_line(info.options)}")
        native = solvers.adapter(name).enumeration
        print(f"          counting: nogood (no-good cuts){f'; native ({native})' if native else ''}")
    for fam in registry.families().values():
        for ref in fam.reference_solvers.values():
            ok, detail = ref.available()
            print(f"  {ref.name:7s} {'available' if ok else 'MISSING  '}  {detail} "
                  f"(reference for {fam.name}: {ref.summary})")
            if ref.enumerate is not None:
                print(f"          counting: native (its own search, every solution of {fam.name})")
    print("  pyomo:NAME  any other solver Pyomo knows, through a generic adapter that passes no option "
          "(e.g. pyomo:xpress_direct)")
    for name, problem in solvers.broken_plugins().items():
        print(f"  BROKEN solver plugin {name}: {problem}")
    return EXIT_OK


def _files():
    from pyomo_puzzles.core import files  # json and tempfile, 8 ms: `--help` and `--version` do not pay for them

    return files


def _print_components(formulation) -> None:
    from pyomo_puzzles.core import components  # dataclasses and inspect: only `list --components`

    modules = ", ".join(components.hook_modules(formulation))
    print(f"        hooks from {modules}")
    try:
        found = components.model_components(formulation)
    except Exception as error:  # noqa: BLE001 - a plugin's broken model is named, the listing goes on
        print(f"        its build_model() raised {type(error).__name__}: {error}")
        return
    for c in found:
        index = f"[{c.index}]" if c.index else ""
        print(f"        {c.kind:10s} {c.name}{index}" + (f": {c.doc}" if c.doc else ""))


def _settings_line(options) -> str:
    cells = [option for _, option in options.items()]
    line = " / ".join(cell or "-" for cell in cells)
    fixed = getattr(options, "fixed", None)
    line += f"; always {', '.join(f'{name}={value}' for name, value in fixed.items())}" if fixed else ""
    return line + (f"; {options.notes}" if options.notes else "")


def _summary(record) -> str:
    method = f"[{record.formulation}]" if record.formulation else "[formulation not chosen yet]"
    parts = [f"{record.instance} {method} on {record.solver}: {record.status}"]
    if record.wall_time is not None:
        phases = [f"{name} {value:.3f} s" for name, value in
                  (("build", record.build_time), ("stage generation", record.generate_time),
                   ("solver", record.solver_time)) if value is not None]
        parts.append(f"wall {record.wall_time:.3f} s" + (f" ({', '.join(phases)})" if phases else ""))
    objective = _objective_words(record)
    if objective:
        parts.append(objective)
    if record.checked is not None:
        parts.append("solution checked" if record.checked else "SOLUTION FAILED THE CHECK")
    if record.message:
        parts.append(record.message)
    return "; ".join(parts)


def _objective_words(record) -> str:
    """The run's objective and whether it was checked: "objective 17 (checked)", or "objective
    1 (the solver's claim: ...)"; nothing for a run without one or a feasibility model's."""
    if record.objective is None or (record.objective_checked is None and record.progress_source is None):
        return ""  # a model whose objective is a constant keeps no progress trace (core.run)
    if record.objective_checked is True:
        return f"objective {record.objective:g} (checked)"
    if record.objective_checked is False:
        return f"objective {record.objective:g} (WRONG)"
    from pyomo_puzzles.core.known import UNCHECKED_OBJECTIVE  # see cmd_list

    return f"objective {record.objective:g} ({UNCHECKED_OBJECTIVE})"


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before the run, outputs that cannot be written and a picture nobody can draw."""
    if args.output:
        _files().check_writable(args.output)
    if args.picture:
        from pyomo_puzzles.core import instances, pictures, registry  # see cmd_solve

        pictures.check_picture_path(args.picture)
        _files().check_writable(args.picture)
        _, path = instances.resolve(args.instance)
        puzzle = instances.read_data_file(path).get("puzzle")
        family = registry.find(puzzle) if isinstance(puzzle, str) else None
        if family is not None:
            family.drawing()  # a family without a picture hook says so before solving


def _log_progress() -> None:
    """The framework's INFO messages (a run's progress) on stderr, one line each."""
    import logging  # logging and traceback, 5 ms: only `solve --verbose` pays for them

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pyomo-puzzles: %(message)s"))
    logger = logging.getLogger("pyomo_puzzles")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _run_settings(args: argparse.Namespace):
    """The run's settings from the options named as its fields (``--memory-limit`` is
    ``memory_limit_mb``)."""
    from pyomo_puzzles.core.records import RunSettings, setting_names  # see cmd_solve

    return RunSettings(**{name: getattr(args, name) for name in setting_names()})


def cmd_solve(args: argparse.Namespace) -> int:
    # Each command imports what it uses: `--help`, `list` and `check` load no Pyomo run machinery.
    from pyomo_puzzles import api
    from pyomo_puzzles.core.isolation import Interrupted

    _check_outputs(args)
    if args.verbose:
        _log_progress()
    try:  # the data file is loaded inside the run, under its time limit
        record = api.solve(args.instance, args.formulation, args.solver, settings=_run_settings(args))
    except Interrupted as stop:
        if args.output:
            _files().write_json_atomic(args.output, stop.record.to_dict())
        raise
    print(_summary(record))
    contradicts = False
    for line, disagrees in _against_known(args.instance, record):
        print(line)
        contradicts = contradicts or disagrees
    if args.output:
        _files().write_json_atomic(args.output, record.to_dict())
        print(f"run record written to {args.output}")
    if args.picture:
        if record.solution is None:
            print("no solution to draw", file=sys.stderr)
        else:
            record.picture(args.picture)
            print(f"picture written to {args.picture}")
    solved = record.status in ("optimal", "feasible") and record.checked
    return EXIT_OK if (solved or record.status == "infeasible") and not contradicts else EXIT_FAILED


def _known_answer_of(name: str):
    """The instance's known answer (`core.known`): its data file's, and its family's hook's
    where the file states no objective (only then is the instance loaded again); not the
    benchmark library's, whose catalogue check loads every family (the report judges by it).
    None where the file cannot be read now."""
    from pyomo_puzzles.core import instances, known, registry  # see cmd_list

    try:
        path = instances.resolve(name)[1]
        data = instances.read_data_file(path)
        stated = known.stated_answer(data.get("known"), path)
        family = registry.find(data.get("puzzle")) if isinstance(data.get("puzzle"), str) else None
        if stated.objective is not None or family is None or not known.has_objective_hook(family):
            return stated
        return known.known_answer(_instance(name), use_library=False)
    except UserError:  # the run read the file; one changed since is no concern of this run
        return None


def _against_known(name: str, record) -> list[tuple[str, bool]]:
    """Lines on how the run's answer stands to the instance's known answer, each with whether
    the run contradicts it unproven (a wrong answer in the report). A checked solution that
    proves the known answer wrong is a data problem: the run stands. An agreeing run says
    nothing; one without an answer reads nothing."""
    from pyomo_puzzles.core import known  # see cmd_list

    if not (record.checked is True or record.status in ("optimal", "infeasible")):
        return []
    answer = _known_answer_of(name)
    if answer is None:
        return []
    lines = []
    for verdict in known.judge(answer, record.status, record.checked is True, record.objective, record.objective_sense,
                               record.objective_checked is True):
        if verdict.kind == known.CERTIFICATE:
            found = "this run found " + ("a solution the checker passed" if verdict.figure == "solvable" else
                                         known.better_solution(record.objective, record.objective_sense))
            lines.append((f"data problem: {known.against(answer, verdict.figure, found)} (the known answer is "
                          "wrong; the run is solved)", False))
        elif verdict.kind == known.MISMATCH:
            unchecked = verdict.figure == "objective" and record.objective_checked is not True
            claim = f"this run {known.run_claim(record.status, record.objective, not unchecked)}"
            lines.append((f"DISAGREES with the known answer: {known.against(answer, verdict.figure, claim)}", True))
    return lines


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _effort(result) -> str:
    if result.method == "native":
        return f"{result.points} points enumerated"
    cuts = f", {result.cuts} cuts" if result.up_to_symmetry else ""
    return f"{result.solves} solves{cuts}"


def cmd_count(args: argparse.Namespace) -> int:
    from tqdm import tqdm  # tqdm, ~40 ms with importlib.metadata: only count draws a progress bar

    from pyomo_puzzles import api  # see cmd_solve

    unit = "classes" if args.up_to_symmetry else "solutions"
    with tqdm(desc=f"counting {unit}", unit=" found", file=sys.stderr, disable=True if args.quiet else None) as bar:
        result = api.count(  # loads the instance under the time limit
            args.instance, args.formulation, args.solver, up_to_symmetry=args.up_to_symmetry,
            time_limit=args.time_limit, threads=args.threads, limit=args.limit,
            keep_solutions=bool(args.output), split=args.split, seed=args.seed, method=args.method,
            symmetry=not args.plain, every_feasible=args.every_feasible,
            on_found=lambda classes, total: (bar.update(1), bar.set_postfix(total=total)),
        )
    state = "complete" if result.complete else f"INCOMPLETE ({result.message or 'limit reached'})"
    variants = ""
    if result.solutions_with_variants != result.solutions:
        variants = f" ({result.solutions_with_variants} counting variants apart)"
    kind = {"optimal": "optimal solution", "feasible": "feasible solution"}.get(result.counted, "solution")
    if args.up_to_symmetry:
        orbits = f" (orbits of up to {max(result.orbit_sizes)})" if result.orbit_sizes else ""
        print(f"{result.instance}: {_many(result.classes or 0, kind)} up to symmetry{orbits}, "
              f"{result.solutions} in all{variants}; {state}; {_effort(result)}, {result.elapsed:.2f} s")
    else:
        print(f"{result.instance}: {_many(result.solutions, kind)}{variants}; {state}; "
              f"{_effort(result)}, {result.elapsed:.2f} s")
    if result.counted == "optimal" and result.optimum is not None:
        print(f"  counted: the optimal solutions, the objective held at the optimum {result.optimum:g} a first "
              "solve proved (--every-feasible: every feasible point)")
    elif result.counted == "feasible":
        print("  counted: every feasible point, the objective ignored (without --every-feasible: the optimal ones)")
    if not result.message.startswith("error"):  # a failure stays one line
        print(f"  by {result.solver}: {result.route}; set digest {result.digest}")
    verdict = _count_against_known(args.instance, result)
    if verdict.data_problem:
        print(f"data problem: {verdict.data_problem} (the known count is wrong)")
    if verdict.disagreement:
        print(f"DISAGREES with the known count: {verdict.disagreement}")
    if args.output:
        _files().write_json_atomic(args.output, result.to_dict())
    return EXIT_OK if result.complete and not verdict.disagreement else EXIT_FAILED


def _count_against_known(name: str, result):
    """The count against the counts the data file states (`core.known.judge_count`; not the
    benchmark library's: see `_known_answer_of`). Only the data file is read: a count that
    stopped while loading the instance must not load it here."""
    from pyomo_puzzles.core import instances, known  # see cmd_list

    if result.message.startswith("error") or not (result.complete or result.solutions) or result.counted == "feasible":
        return known.CountVerdict()  # a known count is of the solutions (the optimal ones), not of feasible points
    try:
        path = instances.resolve(name)[1]
        stated = instances.read_data_file(path).get("known")
    except UserError:  # the count read the file; one changed since is no concern of this count
        return known.CountVerdict()
    figures = known.stated_count(stated, path, result.up_to_symmetry)
    return known.judge_count(figures, result.complete, result.solutions,
                             result.classes if result.up_to_symmetry else None, "this count")


def _read_solution(path: Path) -> dict:
    from pyomo_puzzles.core import instances  # yaml: see cmd_list

    data = instances.parse_json(instances.read_text(path), path)  # one-line DataError: unreadable, not UTF-8, ...
    if isinstance(data, dict) and "solution" in data:
        if data["solution"] is None:
            raise DataError(path, "solution", "the run record holds no solution")
        return data["solution"]
    return data


def cmd_check(args: argparse.Namespace) -> int:
    from pyomo_puzzles import api  # see cmd_solve

    instance = _instance(args.instance)
    errors = api.check(instance, _read_solution(Path(args.solution)))
    if errors:
        for error in errors:
            print(f"INVALID: {one_line(str(error))}")  # one line each, whatever the solution's strings hold
        return EXIT_FAILED
    print(f"valid solution of {instance.name}")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from pyomo_puzzles.core import export  # pyomo, 0.7 s: see cmd_solve

    formats = ("dat", "lp", "mps") if args.format is None else tuple(f.strip() for f in args.format.split(","))
    unknown = [f for f in formats if f not in ("dat", "lp", "mps")]
    if unknown:
        raise UserError(f"option --format: unknown export format {unknown[0]!r} (choose dat, lp, mps, "
                        "comma-separated)")
    if not args.output_dir.strip():
        raise UserError("option --output-dir: empty (name a folder, e.g. '.')")
    instance = _instance(args.instance)
    out_dir = _folder("--output-dir", args.output_dir)
    try:
        written = export.export(instance, args.formulation, out_dir, formats)
    except UserError:
        raise
    except Exception as error:  # the formulation's code, or Pyomo building or writing its model
        print(f"pyomo-puzzles: error: {instance.name}: the model cannot be built or written: "
              f"{failure_line(error)}", file=sys.stderr)
        return EXIT_FAILED
    for path in written:
        print(path)
    return EXIT_OK


STATISTICS_SHOWN = (("stage", "stage"), ("parts", "parts"), ("settled", "settled"), ("variables", "vars"), ("binary", "bin"),
                    ("integer", "int"), ("continuous", "cont"), ("rows", "rows"), ("nonzeros", "nonzeros"),
                    ("lp_status", "LP"), ("lp_value", "z_LP"), ("lp_infeasible_parts", "LP-infeasible parts"),
                    ("reference_objective", "z*"), ("integrality_gap", "gap"))
"""The columns `statistics` prints: (field of `ModelStatistics.row`, heading)."""


def _statistic(value) -> str:
    if value is None:
        return "-"
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def cmd_statistics(args: argparse.Namespace) -> int:
    from pyomo_puzzles import api  # see cmd_solve
    from pyomo_puzzles.core import models  # Pyomo: see cmd_solve

    instance = _instance(args.instance)
    names = args.formulation or [None]
    left_out = []
    if names == ["all"]:
        names = []
        for name, form in instance.family.formulations.items():
            reason = form.applies_to(instance.spec)
            if reason is None:
                names.append(name)
            else:
                left_out.append(f"{name}: it cannot model {instance.name}: {reason}")
        if not names:
            raise UserError(f"no formulation of family '{instance.family.name}' can model {instance.name} ("
                            + "; ".join(left_out) + ")")
    found = []
    for name in names:
        models.choose_formulation(instance, name)  # an unknown or inapplicable formulation: one line, before any work
    for name in names:
        found += api.model_statistics(instance, name, lp_solver=args.lp_solver, time_limit=args.time_limit)
    rows = [entry.row() for entry in found]
    shown = [(field, heading) for field, heading in STATISTICS_SHOWN
             if any(row[field] is not None for row in rows)]
    table = [["formulation", *(heading for _, heading in shown)]]
    table += [[row["formulation"], *(_statistic(row[field]) for field, _ in shown)] for row in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    print(f"{instance.name}: the matrix every solver gets, and its LP relaxation "
          f"({rows[0]['lp_solver'] or 'no LP solver installed'})")
    for line in table:
        print("  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                        for i, (cell, width) in enumerate(zip(line, widths))))
    if rows[0]["reference_from"]:
        print(f"z*: {rows[0]['reference_from']}")
    for line in left_out:
        print(f"left out: {line}")
    if args.output:
        _files().write_json_atomic(args.output, rows)
        print(f"statistics written to {args.output}")
    return EXIT_OK


def cmd_library(args: argparse.Namespace) -> int:
    from pyomo_puzzles.core import instances, library  # yaml and the registry: see cmd_list

    entries = library.library_entries(args.band, args.family, tuple(args.question or library.QUESTIONS))
    if args.instance:
        import fnmatch  # only with --instance

        entries = [e for e in entries if any(fnmatch.fnmatchcase(e.name, p) for p in args.instance)]
        if not entries:
            raise UserError(f"option --instance: no library instance matches {' or '.join(args.instance)}")
    if args.solu:
        from pyomo_puzzles.core.files import write_text_atomic  # only when writing

        write_text_atomic(Path(args.solu), library.solu_text(entries))
        print(f"wrote {args.solu}: {len(entries)} reference answers")
    if args.export:
        from pyomo_puzzles.core.export import export_library  # pyomo, 0.7 s: see cmd_solve

        written, left_out = export_library(entries, _folder("--export", args.export), __version__)
        for why in left_out:
            print(f"not exported: {why}")
        print(f"wrote {len(written)} files to {args.export} ({len(entries)} instances)")
    if args.solu or args.export:
        return EXIT_OK
    _print_library(entries, instances, library)
    for family, path in library.unwritten_catalogues().items():
        if not args.family or family in args.family:
            print(f"  {family}: its catalogue {path} is not written yet ('pyomo-puzzles calibrate CONFIG --write' "
                  "writes it from a calibration experiment)")
    return EXIT_OK


def _folder(option: str, name: str) -> Path:
    """The folder `name`, made if need be (here, so that a file or an unwritable place in its
    way is one line naming the option)."""
    folder = Path(name)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UserError(f"option {option}: {folder} is a file, not a folder") from None
    except OSError as error:
        raise UserError(f"option {option}: cannot make the folder {folder} ({error.strerror or error})") from None
    return folder


def _print_library(entries: list, instances, library) -> None:
    families = sorted({e.family for e in entries})
    questions = [e for e in entries if e.question == "solve"], [e for e in entries if e.question == "count"]
    print(f"Benchmark library: {len(questions[0])} instances to solve and {len(questions[1])} counting questions; "
          "bands by the virtual best (threads 1, building and solving, or the count's clock): easy < 1 s, medium "
          "1-60 s, hard 60-600 s, beyond: no method within 600 s")
    family_width = max([18, *(len(family) for family in families)])
    print(f"  {'family':{family_width}s} {'question':8s}" + "".join(f"{band:>8s}" for band in library.BANDS))
    for family in families:
        for question in library.QUESTIONS:
            counts = [sum(1 for e in entries if (e.family, e.question, e.band) == (family, question, band))
                      for band in library.BANDS]
            if any(counts):
                print(f"  {family:{family_width}s} {question:8s}" + "".join(f"{n:8d}" for n in counts))
    width = max([len("instance"), *(len(e.label) for e in entries)])
    print(f"\n  {'instance':{width}s} {'band':7s} {'best':>9s} {'method':32s} {'size':>6s}  answer: sources")
    for entry in entries:
        instance = instances.load(entry.name)
        size = instance.family.size_of(instance.spec)
        best = entry.best
        seconds = "-" if best is None else f"{best[1]:.3g} s"
        sources = ", ".join("data file" if s.startswith("the data file") else s.split(" (")[0] for s in entry.sources)
        print(f"  {entry.label:{width}s} {entry.band:7s} {seconds:>9s} {best[0] if best else '-':32s} "
              f"{'-' if size is None else f'{size[0]:g}':>6s}  {entry.answer_text}: {sources}")


def _generator_options(pairs: list[str]) -> list[tuple[str, object]]:
    """``--option KEY=VALUE`` pairs (any generator's own options, a plugin's too); each value
    read as a YAML scalar (``4``, ``true``, ``htm``)."""
    import yaml  # yaml, 30 ms: see cmd_list

    options = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise UserError(f"option --option {pair!r}: expected KEY=VALUE, e.g. --option box=4")
        try:
            options.append((key, yaml.safe_load(value)))
        except yaml.YAMLError:
            raise UserError(f"option --option {pair!r}: the value is not a YAML scalar") from None
    return options


def _check_option_types(generator, options: dict) -> None:
    """Each option's value of the type its parameter's default (or annotation) states, so that
    ``-O cubes=abc`` is one line naming the option, not an error inside the generator."""
    import inspect  # only for generate

    parameters = inspect.signature(generator).parameters
    for key, value in options.items():
        default, annotation = parameters[key].default, str(parameters[key].annotation)
        expected = type(default) if default not in (None, inspect.Parameter.empty) else next(
            (t for t in (bool, int, float, str) if annotation.startswith(t.__name__)), None)
        if expected in (int, float):  # a bool is no number here; a whole number is a float's value too
            fits = isinstance(value, int if expected is int else (int, float)) and not isinstance(value, bool)
        else:
            fits = expected is None or isinstance(value, expected)
        if not fits:
            raise UserError(f"option --{key}: expected {'a whole number' if expected is int else expected.__name__}, "
                            f"not {value!r}")


def cmd_generate(args: argparse.Namespace) -> int:
    from pyomo_puzzles.core import registry  # see cmd_list

    options = {k: v for k, v in (("pegs", args.pegs), ("unknown", args.unknown), ("pieces", args.pieces),
                                 ("cubes", args.cubes), ("unsolvable", args.unsolvable or None),
                                 ("depth", args.depth), ("metric", args.metric), ("size", args.size),
                                 ("order", args.order), ("width", args.width), ("height", args.height),
                                 ("holes", args.holes), ("copies", args.copies))
               if v is not None}
    for key, value in _generator_options(args.option):
        if key in ("seed", "solver"):
            raise UserError(f"option --option {key}=...: give --{key}")
        if key in options:
            raise UserError(f"option --option {key}=... repeats --{key}")
        options[key] = value
    foreign = registry.foreign_generator_options(args.name, options)
    if foreign:
        raise UserError(f"option --{foreign[0]} does not apply to the {args.name} generator")
    _check_option_types(registry.generator(args.name), options)
    solver = _generator_solver(args.name, args.solver)
    try:
        data = registry.generate(args.name, args.seed, options, solver)
    except registry.GeneratorFailed as error:
        print(f"pyomo-puzzles: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    text = _files().data_file_yaml(data)
    if args.output:
        _files().write_text_atomic(args.output, text)
        print(f"instance written to {args.output}" + (f" (generated with {solver})" if solver else ""))
    else:
        print(text, end="")
    return EXIT_OK


def _generator_solver(name: str, chosen: str | None) -> str | None:
    """The solver a generator that solves is given (``--solver``, else highs); None for one
    that solves nothing, for which ``--solver`` is refused rather than ignored."""
    from pyomo_puzzles.core import registry  # see cmd_list

    if registry.generator_takes_solver(name):
        return chosen or DEFAULT_GENERATOR_SOLVER
    if chosen is not None:
        raise UserError(f"option --solver does not apply to the {name} generator (it solves nothing)")
    return None


def cmd_design(args: argparse.Namespace) -> int:
    from pyomo_puzzles.core import registry  # see cmd_list

    fam = registry.family(args.family)
    if fam.design is None:
        raise UserError(f"family '{fam.name}' has no design questions")
    report = fam.design(question=args.question, distinct=args.distinct, solver=args.solver)
    print(f"Question {report['question']}: {report['statement']}"
          f"{' (four different cubes)' if report['distinct_cubes'] else ''}")
    print(f"  answer: {report['answer']} {report['answer_unit']}")
    print(f"  convention: {report['convention']}")
    print("  witness (faces 1..6 of each cube; 1-4 the long sides, 5 bottom, 6 top):")
    for cube in report["witness"]:
        print(f"    {', '.join(cube)}")
    towers = report["witness_towers"]
    print(f"  witness towers: {towers['all_different']} all-different, {towers['all_equal']} all-equal "
          f"(cube order fixed; {towers['all_different'] // 4} and {towers['all_equal'] // 4} up to turning)")
    print(f"  proof: exhaustive census of {report['sets_searched']} sets (up to rotations, order and "
          f"colour names), {report['sets_attaining']} attain the answer; {report['census_seconds']} s")
    for question, got in report["confirmed_by_integer_program"].items():
        print(f"  confirmed by the integer program on {report['solver']}: {got['towers']} {question} towers, "
              f"every one checked ({got['seconds']} s)")
    if args.output:
        _files().write_json_atomic(args.output, report)
        print(f"report written to {args.output}")
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from pyomo_puzzles.report import compare  # pandas, scipy, seaborn, ~3 s: only compare pays for them

    from pyomo_puzzles.report.measure import Statistics  # as above

    stats = Statistics(time=args.time, **({} if args.shift is None else {"shift": args.shift}))
    table = compare.compare_folders(args.results_a, args.results_b, stats)
    print(compare.comparison_text(table))
    for path in compare.write_comparison(table, args.csv, args.latex):
        print(f"comparison written to {path}")
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from pyomo_puzzles.report import calibrate  # pandas, scipy, seaborn, ~3 s: only calibrate pays for them

    command = shlex.join(["pyomo-puzzles", *args.argv])  # recorded in every entry: rerun it as it ran
    writing = args.write or args.write_to is not None
    if args.adopt and not writing:
        raise UserError("option --adopt: it copies the instances of the entries written: give --write or --write-to")
    solvers = calibrate.checked_solvers(args.solvers)
    experiments = [calibrate.read_experiment(configfile) for configfile in args.configs]
    witnesses = [calibrate.read_experiment(configfile, "option --witness") for configfile in args.witness]
    skip = calibrate.checked_skip(args.skip, experiments)
    found = calibrate.calibrate_experiments(experiments, command, witnesses=witnesses, skip=skip,
                                            solvers=solvers, questions=args.question or ("solve", "count"))
    if args.question is None or "solve" in args.question:
        print("\n".join(calibrate.solve_lines(found.solved)))
    if found.counted:
        print("\n" + "\n".join(calibrate.count_lines(found.counted)))
    if writing:
        entries = calibrate.entries_to_write(found, experiments, args.adopt)
        for line in calibrate.write_entries(entries, None if args.write_to is None else Path(args.write_to)):
            print(line)
    return EXIT_OK


def cmd_new_family(args: argparse.Namespace) -> int:
    from pyomo_puzzles import scaffold  # the plugin registry: see cmd_list

    try:
        written = scaffold.write(args.name, Path(args.path))
    except OSError as error:
        raise UserError(f"option --path: cannot write {args.path} ({error.strerror or error})") from None
    root = Path(args.path)
    print(f"wrote the plugin package of family '{args.name}' ({len(written)} files) to {root}")
    print(f"next: pip install -e {root} && pytest {root} && pyomo-puzzles solve {args.name}/knuth_example")
    return EXIT_OK


def _checked(convert, noun: str, accept, requirement: str):
    """An argparse type: `convert` the text, then require `accept(value)`."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(requirement)
        return value
    return parse


_positive_float = _checked(float, "a number", lambda v: 0 < v < math.inf, "must be positive and finite")
_positive_int = _checked(int, "a whole number", lambda v: v > 0, "must be positive")
_natural = _checked(int, "a whole number", lambda v: v >= 0, "must be 0 or more")
_threads = _checked(int, "a whole number", lambda v: 0 < v <= 1024, "must be between 1 and 1024")
_seed = _checked(int, "a whole number", lambda v: 0 <= v <= 2**31 - 1, "must be between 0 and 2147483647")


def _solver_options(parser: argparse.ArgumentParser, time_limit: float | None) -> None:
    parser.add_argument("--formulation", "-f", help="formulation (default: the family's default)")
    parser.add_argument("--solver", "-s", default="highs",
                        help="highs, cbc, glpk, scip, gurobi, cplex, cpsat, pyomo:NAME, or dlx for packing "
                             "(default: highs; 'list' shows which are installed)")
    parser.add_argument("--time-limit", "-t", type=_positive_float, default=time_limit,
                        help=f"seconds (default: {time_limit})")
    parser.add_argument("--threads", type=_threads, default=1, help="solver threads (default: 1)")
    parser.add_argument("--seed", type=_seed, default=None,
                        help="the solver's random seed (default: the solver's own)")


class _OneLineParser(argparse.ArgumentParser):
    """Usage mistakes in one line naming the option (argparse prints the whole usage first)."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser() -> argparse.ArgumentParser:
    main = _OneLineParser(prog="pyomo-puzzles", description=__doc__)
    main.add_argument("--version", action="version", version=f"pyomo-puzzles {__version__}")
    main.add_argument("--traceback", action="store_true",
                      help="an error raised in a family's or formulation's code is still one line, and its "
                           "traceback is printed on stderr too (for the author of that code)")
    sub = main.add_subparsers(dest="command", required=True)

    listing = sub.add_parser("list", help="families, formulations, shipped instances and solvers")
    listing.add_argument("--components", action="store_true",
                         help="also each formulation's Pyomo sets, parameters, variables, constraints and objective "
                              "(the names a variant in a formulation file refers to)")
    listing.set_defaults(func=cmd_list)

    solve = sub.add_parser("solve", help="solve an instance and check the solution")
    solve.add_argument("instance", help="shipped name (e.g. packing/l_tromino_cube) or file path")
    _solver_options(solve, 60.0)
    solve.add_argument("--permutation", type=_natural, default=0,
                       help="hand the solver the model with rows and columns in the N-th reproducible "
                            "random order (default 0: as built)")
    solve.add_argument("--gap", type=_positive_float, default=None,
                       help="relative optimality gap at which the solver may stop (default: the solver's)")
    solve.add_argument("--memory-limit", dest="memory_limit_mb", type=_positive_float, default=None, metavar="MIB",
                       help="stop the run (status memory_limit) past this resident memory, solver "
                            "processes included")
    solve.add_argument("--output", "-o", help="write the run record (JSON) here")
    solve.add_argument("--picture", "-p", help="draw the solution to FILE.png, .pdf or .svg")
    solve.add_argument("--verbose", "-v", action="store_true",
                       help="say on stderr when the data file is read, the instance loaded and a run killed")
    solve.set_defaults(func=cmd_solve)

    count = sub.add_parser("count", help="enumerate and count all solutions (the optimal ones where the model has "
                                          "an objective)")
    count.add_argument("instance")
    _solver_options(count, None)
    count.add_argument("--up-to-symmetry", action="store_true",
                       help="one solution per orbit of the instance's symmetry group")
    count.add_argument("--method", "-m", choices=("nogood", "native"), default=None,
                       help="nogood: no-good cuts, a solve per solution (every solver); native: the solver's own "
                            "enumeration ('list' shows which solvers have one; dlx has only its own). "
                            "Default: native for dlx, else nogood")
    count.add_argument("--plain", action="store_true",
                       help="count all by enumerating every solution itself, on the model as built (default: "
                            "through the instance's orbits where its family states symmetries and the formulation "
                            "restricts the model for counting (prepare_enumeration): each orbit found counts whole)")
    count.add_argument("--every-feasible", action="store_true",
                       help="on a model with an objective, count every feasible point, the objective ignored "
                            "(default: the optimal solutions, the objective held at the optimum a first solve proves)")
    count.add_argument("--limit", type=_positive_int, help="stop after this many solutions (or classes)")
    count.add_argument("--split", type=_natural, default=None,
                       help="split the search on this many partitions (default: automatic; 0: none)")
    count.add_argument("--output", "-o", help="write the count and representatives (JSON) here")
    count.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    count.set_defaults(func=cmd_count)

    check = sub.add_parser("check", help="check a solution file (exit 0 iff valid)")
    check.add_argument("instance")
    check.add_argument("solution", help="a run record or a bare solution (JSON)")
    check.set_defaults(func=cmd_check)

    generate = sub.add_parser("generate", help="generate an instance (a challenge with a unique solution, "
                                                "a random n-cube tower, a set of polyominoes on a board)")
    generate.add_argument("name", help="iq_twist, cube_puzzler, polyominoes, instant_insanity or rubik")
    generate.add_argument("--seed", type=_natural, default=1)
    generate.add_argument("--pegs", type=_natural, help="iq_twist: number of pegs")
    generate.add_argument("--unknown", type=_natural, help="cube_puzzler: face squares to leave unknown")
    generate.add_argument("--pieces", help="cube_puzzler: instance with your own pieces (name or file)")
    generate.add_argument("--cubes", type=_positive_int, help="instant_insanity: number of cubes (default 4)")
    generate.add_argument("--unsolvable", action="store_true",
                          help="instant_insanity: an instance proved to have no tower")
    generate.add_argument("--depth", type=_natural, help="rubik: optimal solution length of the scramble")
    generate.add_argument("--metric", help="rubik: htm or qtm (default htm)")
    generate.add_argument("--size", type=_positive_int, help="rubik: 2 or 3 (default 2; the 3x3x3 up to depth 13)")
    generate.add_argument("--order", type=_positive_int, help="polyominoes: cells per piece (default 5)")
    generate.add_argument("--width", type=_positive_int, help="polyominoes: the board's width (default 10)")
    generate.add_argument("--height", type=_positive_int, help="polyominoes: the board's height (default 6)")
    generate.add_argument("--holes", type=_natural, help="polyominoes: board cells left out at random")
    generate.add_argument("--copies", type=_positive_int, help="polyominoes: sets of the pieces (default 1)")
    generate.add_argument("--option", "-O", action="append", default=[], metavar="KEY=VALUE",
                          help="any option of the generator, a plugin's too (e.g. sudoku: -O box=4 -O givens=100)")
    generate.add_argument("--solver", "-s", help="for a generator that solves (iq_twist, cube_puzzler, "
                          f"instant_insanity): the solver it uses (default {DEFAULT_GENERATOR_SOLVER}); "
                          "refused for the others")
    generate.add_argument("--output", "-o", help="write the instance (YAML) here")
    generate.set_defaults(func=cmd_generate)

    design = sub.add_parser("design", help="answer a puzzle-design question exactly, with proof")
    design.add_argument("family", help="e.g. instant_insanity")
    design.add_argument("--question", type=int, required=True, help="instant_insanity: 2, 3, 4 or 5")
    design.add_argument("--distinct", action="store_true", help="only sets of four different cubes")
    design.add_argument("--solver", "-s", default="highs", help="solver that confirms the witness counts")
    design.add_argument("--output", "-o", help="write the report (JSON) here")
    design.set_defaults(func=cmd_design)

    lib = sub.add_parser("library", help="the benchmark library: instances in difficulty bands with reference "
                                          "answers; its reference file; the whole library as MPS")
    lib.add_argument("--band", action="append", metavar="BAND",
                     help="only this band: easy, medium, hard, beyond (may be given again)")
    lib.add_argument("--family", action="append", metavar="FAMILY", help="only this family (may be given again)")
    lib.add_argument("--question", choices=["solve", "count"], action="append",
                     help="only this question: solve (an optimum or a proof of none) or count (every solution)")
    lib.add_argument("--instance", action="append", metavar="PATTERN",
                     help="only instances whose name matches this pattern (e.g. 'packing/pentominoes/*'; may be "
                          "given again)")
    lib.add_argument("--solu", metavar="FILE", help="write the reference answers (MIPLIB-style .solu) here")
    lib.add_argument("--export", metavar="DIR", help="write every instance as MPS per formulation, with the "
                                                     "reference file, an index and a README, here")
    lib.set_defaults(func=cmd_library)

    stats = sub.add_parser("statistics", help="a formulation's model size (variables by type, rows, nonzeros) and "
                                              "LP relaxation (value, integrality gap; per stage where staged)")
    stats.add_argument("instance")
    stats.add_argument("--formulation", "-f", action="append",
                       help="formulation (may be given again; 'all': every one that applies; default: the family's)")
    stats.add_argument("--lp-solver", help="the MIP solver that solves the LP relaxation (default: the first "
                                           "installed by rank, named in the output)")
    stats.add_argument("--time-limit", "-t", type=_positive_float, default=60.0,
                       help="seconds per LP relaxation (default: 60)")
    stats.add_argument("--output", "-o", help="write the statistics (JSON, one entry per row) here")
    stats.set_defaults(func=cmd_statistics)

    export = sub.add_parser("export", help="write the Pyomo data (.dat) and the model (LP, MPS)")
    export.add_argument("instance")
    export.add_argument("--formulation", "-f")
    export.add_argument("--output-dir", "-d", default=".", help="directory (default: .)")
    export.add_argument("--format", help="comma-separated: dat,lp,mps (default: all)")
    export.set_defaults(func=cmd_export)

    compare = sub.add_parser("compare", help="compare two results folders: time ratio with a bootstrap "
                                              "interval, paired test, changed answers")
    compare.add_argument("results_a", metavar="RESULTS_A", help="results folder A (the baseline)")
    compare.add_argument("results_b", metavar="RESULTS_B", help="results folder B (ratios are B / A)")
    compare.add_argument("--csv", help="also write the comparison as CSV here")
    compare.add_argument("--latex", help="also write it as a booktabs LaTeX table here")
    compare.add_argument("--shift", type=_positive_float, default=None, metavar="SECONDS",
                         help="shift of the shifted geometric mean (default: the summary tables' 1 s)")
    compare.add_argument("--time", choices=COMPARE_MEASURES, default="solver",
                         help="the time measure: the solver's own time (default), build_and_solve (building the "
                              "model counts: formulation comparisons) or wall (the whole run)")
    compare.set_defaults(func=cmd_compare)

    calibrate = sub.add_parser("calibrate", help="benchmark-library entries from calibration experiments: each "
                                                  "instance's band, times, reference answer and sources")
    calibrate.add_argument("configs", nargs="+", metavar="CONFIG",
                           help="the calibration's experiment configurations, run first by the pipeline (snakemake "
                                "--configfile CONFIG); each one's results folder ('results:') is read, and their "
                                "runs are taken together (e.g. a second stage with more solvers)")
    calibrate.add_argument("--witness", action="append", default=[], metavar="CONFIG",
                           help="an experiment of other methods (dancing links, CP-SAT) on the same instances: "
                                "their answers are sources, never times or bands (may be given again)")
    calibrate.add_argument("--skip", action="append", default=[], metavar="INSTANCE",
                           help="an instance of the experiments to leave out (a candidate whose second stage has "
                                "not run; may be given again)")
    calibrate.add_argument("--solvers", metavar="LIST",
                           help="comma-separated: the solvers that must have run on every formulation of an "
                                "instance placed above the easy band (default: highs,scip,cbc,glpk)")
    calibrate.add_argument("--question", choices=["solve", "count"], action="append",
                           help="calibrate only this question: solve (the runs) or count (the count records); "
                                "default: both")
    writing = calibrate.add_mutually_exclusive_group()
    writing.add_argument("--write", action="store_true",
                         help="write the entries into their families' catalogues (Family.library); an entry of "
                              "the same instance and question is replaced")
    writing.add_argument("--write-to", metavar="FILE",
                         help="write them into this catalogue file instead (one family's entries; e.g. the "
                              "catalogue in a plugin's source, where the plugin is installed without -e)")
    calibrate.add_argument("--adopt", action="store_true",
                           help="with --write or --write-to: copy each calibrated generated instance into its "
                                "family's instance folder (library/STEM.yaml) and enter it under that name")
    calibrate.set_defaults(func=cmd_calibrate)

    new_family = sub.add_parser("new-family", help="write an installable plugin package for a new puzzle family")
    new_family.add_argument("name", help="the family's name (lower-case letters, digits, _)")
    new_family.add_argument("--path", required=True, help="an empty or new folder for the package")
    new_family.set_defaults(func=cmd_new_family)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as given: `calibrate` records its command line
    if args.traceback:
        os.environ[TRACEBACK_VARIABLE] = "1"  # the runs' processes inherit it
    with sigterm_as_interrupt():  # a scheduler cancelling the command stops it as Ctrl-C does
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        return args.func(args)
    except UserError as error:
        print(f"pyomo-puzzles: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("pyomo-puzzles: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): nothing more to say
        sys.stderr.close()
        return EXIT_FAILED


if __name__ == "__main__":
    raise SystemExit(main())
