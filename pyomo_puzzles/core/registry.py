"""The registry of puzzle families.

`core` never imports a family: every family, the shipped ones included (declared in
pyproject.toml), is found through the entry-point group ``pyomo_puzzles.families`` and
registers a `Family` object, so adding a family means adding a folder (and, for a shipped
one, its line in pyproject.toml) and nothing else.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import math
import re
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable

from pyomo_puzzles.core import cache
from pyomo_puzzles.errors import UserError, failure_line, shortened

if TYPE_CHECKING:
    import pyomo.environ as pyo

Solution = dict[str, Any]
"""A decoded solution in the puzzle's own terms (pieces and cells), JSON-serialisable."""


@dataclass(frozen=True)
class Stage:
    """One step of a formulation solved as a sequence of models (e.g. iterative deepening).

    Every solution of the stage's models has objective `objective`, and the stages come in
    increasing objective, so the first solution found is optimal once every earlier
    stage's parts were infeasible. `parts` are specs for `model_data` and `decode`;
    `settled` counts parts the formulation proved empty without a solver; `solution`, if
    given, answers the stage without any model (e.g. a cube that is solved already). Parts
    must be independent: a run with threads > 1 solves several at once (`core.parts`)."""

    objective: float
    parts: list
    settled: int = 0
    solution: Solution | None = None


@dataclass(frozen=True)
class Formulation:
    """One integer-programming formulation of a family.

    build_model:  returns the formulation's `pyo.AbstractModel`.
    model_data:   the Pyomo data dictionary (``{None: {...}}``) for a loaded instance.
    decode:       reads a solved concrete model and returns a `Solution`.
    solution_vars: for a given solution, groups of binary variables: each group sums to
                  one in that solution (e.g. the variants of one placed piece). Used for
                  no-good cuts; None if the formulation cannot enumerate.
    applies_to:   None if the formulation can model the instance, else the reason.
    """

    name: str
    summary: str
    build_model: Callable[[], pyo.AbstractModel]
    model_data: Callable[[Any], dict]
    decode: Callable[[Any, pyo.ConcreteModel], Solution]
    solution_vars: Callable[[Any, pyo.ConcreteModel, Solution], list[list]] | None = None
    applies_to: Callable[[Any], str | None] = lambda spec: None
    partitions: Callable[[Any, pyo.ConcreteModel], list[list]] | None = None
    """Optional: groups of binary variables of which exactly one is one in every solution
    (packing: the placements covering a cell). Enumeration may split the search on them."""
    prepare_enumeration: Callable[[Any, pyo.ConcreteModel], None] | None = None
    """Optional: restrict the model for a count through orbits, keeping at least one solution
    of every orbit, e.g. by fixing variables that only symmetric copies of solutions use. Only
    a count through orbits calls it (`core.counting`), never a plain enumeration. A hook of the
    earlier form ``(spec, model, up_to_symmetry)`` is still taken and told True."""
    stages: Callable[[Any], Iterable[Stage]] | None = None
    """Optional: solve the instance as a sequence of models (see `Stage`) instead of one;
    `model_data` and `decode` then take a stage's parts, not the instance's spec."""
    warm_up: Callable[[Any], None] | None = None
    """Optional: load what this formulation's runs of the instance read and may keep for the
    process (tables, caches: Rubik's pattern tables), once per instance and process, before
    any run's clock; a process that forks several runs calls it before the first fork, and
    the runs inherit what it loaded (`core.run.warm_up_formulation`)."""

    def __repr__(self) -> str:
        return f"<Formulation {self.name}: {self.summary}>"

    @classmethod
    def from_module(cls, name: str, summary: str, module: Any, **hooks: Callable) -> "Formulation":
        """The formulation whose hooks (build_model, model_data, decode, ...) are the module's
        functions of those names; keyword arguments add hooks or replace the module's."""
        names = [f.name for f in fields(cls) if f.name not in ("name", "summary")]
        found = {hook: getattr(module, hook) for hook in names if hasattr(module, hook)}
        return cls(name=name, summary=summary, **{**found, **hooks})


@dataclass(frozen=True)
class ReferenceSolver:
    """A method other than integer programming, run on the same instance.

    run(instance, time_limit) -> RunRecord; available() -> (ok, version or reason).
    enumerate(instance, found) (optional): every solution of the instance by this method,
    each passed to ``found(solution)`` as it comes (a `Solution` in the family's format; the
    framework checks, counts and reduces them to orbits), stopping when it returns False;
    returns (status, message) as `Adapter.enumerate` (``complete``, ``stopped``, ``error``).
    The framework stops it at the count's time limit between two solutions; `warm_up`, if
    given, is paid before the count's clock (`CountResult.startup_time`)."""

    name: str
    summary: str
    run: Callable[[Any, float | None], Any]
    available: Callable[[], tuple[bool, str]]
    enumerate: Callable[[Any, Callable[[Solution], bool]], tuple[str, str]] | None = None
    warm_up: Callable[[], None] | None = None
    """Optional: its one-off start-up (imports, compilation), paid before a count's clock."""
    formulation: str | None = None
    """What its runs and counts name as their formulation (None: its own name)."""
    applies_to: Callable[[Any], str | None] = lambda spec: None
    """None if the method can answer the instance, else the reason (its runs and counts are
    then left out with it, as a formulation's that does not apply)."""


def _solution_key(solution: Solution) -> Hashable:
    """Two solutions are the same when their JSON texts (keys sorted) are."""
    return json.dumps(solution, sort_keys=True, default=str)


@dataclass(frozen=True)
class Family:
    """A puzzle family. The contract, hook by hook, is `docs/contract.md`.

    Required: name, summary, schema, load, formulations, check. Everything else has a
    default, and a feature that needs a missing hook says so in one line."""

    name: str
    summary: str
    schema: dict
    load: Callable[[dict, Path], Any]
    formulations: dict[str, Formulation]
    check: Callable[[Any, Solution], list[str]]
    default_formulation: str | None = None
    """None: the first of `formulations`."""
    solution_key: Callable[[Solution], Hashable] = _solution_key
    symmetry_images: Callable[[Any, Solution], list[Solution]] | None = None
    draw: Callable[[Any, Solution, Path], None] | None = None
    instances_dir: Path | None = None
    library: Path | None = None
    """The family's benchmark-library catalogue (YAML; see `core.library`), or None."""
    describe: Callable[[Any], str] = field(default=lambda spec: "")
    generators: dict[str, Callable[..., dict]] = field(default_factory=dict)
    """Challenge generators by name: generator(seed=..., **options) -> instance data."""
    reference_solvers: dict[str, "ReferenceSolver"] = field(default_factory=dict)
    """Non-IP methods people would otherwise use (packing: dancing links), by solver name."""
    size: Callable[[Any], tuple[float, str] | None] | None = None
    """An instance's size for scaling plots, with its unit, e.g. (8, "cubes"); None for an
    instance that has no size (read it through `size_of`)."""
    known_objective: Callable[[Any], float | None] = lambda spec: None
    """The instance's optimal objective if its data file states one under another name
    (rubik: the scramble's distance), for the reports' known-answer check."""
    objective: Callable[[Any, Solution], float] | None = None
    """The puzzle's objective of a solution, computed from the solution alone (plain Python,
    as the checker): every run's objective is checked against it (`core.checking`). None: a
    run's objective is the solver's claim, and no known answer or other run is judged by it."""
    design: Callable[..., dict] | None = None
    """Puzzle-design questions: design(question=..., distinct=..., solver=...) -> report."""
    variants: Callable[[Any, Solution], int] = field(default=lambda spec, solution: 1)
    """How many solutions a found solution stands for when variants that enumeration
    identifies (packing: where a symmetric piece's rings fall) are counted apart."""
    corruptions: Callable[[Any, Solution], dict[str, Solution]] | None = None
    """Wrong solutions made from a right one, by what was done to it ("moved", "dropped",
    "duplicated"), for the conformance kit; None: generic edits of the solution's lists."""

    def __post_init__(self) -> None:
        if self.default_formulation is None and isinstance(self.formulations, dict) and self.formulations:
            object.__setattr__(self, "default_formulation", next(iter(self.formulations)))

    def __repr__(self) -> str:
        return f"<Family {self.name}: {self.summary}; formulations {', '.join(self.formulations)}>"

    def drawing(self) -> Callable[[Any, Solution, Path], None]:
        """The picture hook, or a one-line UserError if the family has none."""
        if self.draw is None:
            raise UserError(f"family '{self.name}' draws no pictures (its Family has no 'draw' hook)")
        return self.draw

    def size_of(self, spec: Any) -> tuple[float, str] | None:
        """The instance's size and its unit, or None where the family gives none: no `size`
        hook, or the hook returns None for this instance. Anything but None or a pair of a
        number and a text (or a hook that raises) is a one-line UserError naming the family."""
        if self.size is None:
            return None
        try:
            size = self.size(spec)
        except Exception as error:  # noqa: BLE001 - the family's own code: one line naming it
            raise UserError(f"family '{self.name}': its size hook raised {failure_line(error)}") from None
        if size is None:
            return None
        if not _is_size(size):
            raise UserError(f"family '{self.name}': its size hook returned {shortened(repr(size), 80)}, not None "
                            "or (number, unit)")
        return size[0], size[1]

    def symmetry(self) -> Callable[[Any, Solution], list[Solution]]:
        """The symmetry-image hook, or a one-line UserError if the family has none."""
        if self.symmetry_images is None:
            raise UserError(f"family '{self.name}' states no symmetries (its Family has no 'symmetry_images' "
                            "hook): count without --up-to-symmetry")
        return self.symmetry_images


_FAMILIES: dict[str, Family] = {}
_BROKEN: dict[str, str] = {}
ENTRY_POINT_GROUP = "pyomo_puzzles.families"
"""Installed distributions add families through this entry-point group: the entry point is
a module that calls `register` when imported, or a `Family` object."""


class NameClash(UserError):
    """A family registered under a name another family already has."""


class PluginError(UserError):
    """A family (or formulation file) that breaks the contract in `docs/contract.md`."""


_FAMILY_HOOKS = {"load": 2, "check": 2, "solution_key": 1, "symmetry_images": 2, "draw": 3, "describe": 1,
                 "size": 1, "known_objective": 1, "objective": 2, "variants": 2, "corruptions": 2}
"""Each hook and the number of positional arguments it is called with."""
_FORMULATION_HOOKS = {"build_model": 0, "model_data": 1, "decode": 2, "solution_vars": 3, "applies_to": 1,
                      "partitions": 2, "prepare_enumeration": (2, 3), "stages": 1, "warm_up": 1}
"""A tuple: any of these numbers (``prepare_enumeration`` of the earlier contract took a third)."""
_REQUIRED = ("load", "check", "build_model", "model_data", "decode")


def _is_size(size: Any) -> bool:
    """A pair of a finite number (not a bool) and a text, as `size` hooks return."""
    return (isinstance(size, (tuple, list)) and len(size) == 2 and isinstance(size[1], str)
            and isinstance(size[0], (int, float)) and not isinstance(size[0], bool) and math.isfinite(size[0]))


def _arity_problem(hook: Any, arguments: int | tuple[int, ...]) -> str | None:
    """Why `hook` cannot be called with `arguments` positional arguments (or with one of the
    numbers of a tuple), or None."""
    if not callable(hook):
        return f"is {type(hook).__name__}, not a function"
    allowed = arguments if isinstance(arguments, tuple) else (arguments,)
    for number in allowed:
        try:
            inspect.signature(hook).bind(*range(number))
        except TypeError:
            continue
        except ValueError:  # a builtin without a signature: trust it
            return None
        return None
    return f"must take {allowed[0]} argument{'s' if allowed[0] != 1 else ''}"


def _hook_problems(owner: Any, hooks: dict[str, int]) -> list[str]:
    problems = []
    for hook, arguments in hooks.items():
        value = getattr(owner, hook)
        if value is None:
            if hook in _REQUIRED:
                problems.append(f"hook '{hook}' is missing")
            continue
        problem = _arity_problem(value, arguments)
        if problem:
            problems.append(f"hook '{hook}' {problem}")
    return problems


def _schema_problem(schema: dict) -> str | None:
    """Why `schema` is not a valid draft 2020-12 JSON Schema, or None. A schema found valid
    is remembered in the disk cache: the check costs 12 ms per family in every process."""
    def check() -> None:
        import jsonschema  # jsonschema: only when the disk cache has not seen this schema

        jsonschema.Draft202012Validator.check_schema(schema)

    try:
        cache.once("schema-checked", (json.dumps(schema, sort_keys=True, default=repr), "draft 2020-12"), check)
    except Exception as error:  # jsonschema.SchemaError, or a schema json cannot even write
        return getattr(error, "message", None) or str(error).splitlines()[0]
    return None


def contract_problems(family: Any) -> list[str]:
    """What is wrong with `family` against the contract (empty: nothing)."""
    if not isinstance(family, Family):
        return [f"is {type(family).__name__}, not pyomo_puzzles.core.registry.Family"]
    problems = []
    if not isinstance(family.name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", family.name):
        problems.append(f"name {family.name!r} is not lower-case letters, digits and _")
    if not isinstance(family.schema, dict):
        problems.append("schema is not a mapping (a JSON Schema)")
    else:
        invalid = _schema_problem(family.schema)
        if invalid:
            problems.append(f"schema is not a valid JSON Schema: {invalid}")
        if family.schema.get("additionalProperties") is not False:
            problems.append("schema must set additionalProperties: false (a misspelt field must be an error)")
        if "puzzle" not in family.schema.get("properties", {}):
            problems.append("schema has no property 'puzzle' (every data file names its family)")
    problems += _hook_problems(family, _FAMILY_HOOKS)
    if not isinstance(family.formulations, dict) or not family.formulations:
        problems.append("formulations must be a non-empty mapping of name to Formulation")
        return problems
    for key, form in family.formulations.items():
        if not isinstance(form, Formulation):
            problems.append(f"formulation '{key}' is {type(form).__name__}, not Formulation")
            continue
        if form.name != key:
            problems.append(f"formulation '{key}' is named '{form.name}'")
        problems += [f"formulation '{key}': {p}" for p in _hook_problems(form, _FORMULATION_HOOKS)]
    if family.default_formulation not in family.formulations:
        problems.append(f"default_formulation {family.default_formulation!r} is not one of its formulations")
    return problems


def register(family: Family) -> Family:
    """Add a family to the registry after checking it against the contract."""
    problems = contract_problems(family)
    if problems:
        name = getattr(family, "name", "?")
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise PluginError(f"family '{name}': {problems[0]}{more}")
    known = _FAMILIES.get(family.name)
    if known is not None and known is not family:
        raise NameClash(f"a family named '{family.name}' is registered already")
    _FAMILIES[family.name] = family
    return family


@lru_cache(maxsize=None)
def _discover() -> None:
    """Load every family of the entry-point group once (a family imported directly before
    this registers itself, but the others must still be found); a broken plugin is noted in
    `broken_plugins` and does not stop the others."""
    for point in _entry_points():
        _load(point)


def _entry_points(name: str | None = None) -> tuple:
    from importlib.metadata import entry_points  # 20 ms: `--help` does not pay for it

    found = entry_points(group=ENTRY_POINT_GROUP)
    return tuple(found if name is None else found.select(name=name))


def _load(point) -> None:
    """Load one entry point: a module that calls `register`, or a `Family` object."""
    if point.name in _BROKEN:
        return
    try:
        loaded = point.load()
        if isinstance(loaded, Family):
            register(loaded)
    except Exception as error:  # noqa: BLE001 - one broken plugin must not stop the rest
        where = getattr(point.dist, "name", None) or point.value
        kind = "" if isinstance(error, UserError) else f"{type(error).__name__}: "
        _BROKEN[point.name] = f"{where} ({point.value}): {kind}{error}".splitlines()[0]


def broken_plugins() -> dict[str, str]:
    """Family plugins that failed to load: entry-point name -> what went wrong, in one line."""
    _discover()
    return dict(_BROKEN)


def families() -> dict[str, Family]:
    _discover()
    return dict(sorted(_FAMILIES.items()))


def find(name: str) -> Family | None:
    """The family called `name`, or None. A family whose entry point has that name is found
    by loading that entry point only (a run needs one family; loading them all costs a solve
    40 ms); any other name is looked up among every family and plugin."""
    if name not in _FAMILIES and isinstance(name, str):
        for point in _entry_points(name):
            _load(point)
    return _FAMILIES.get(name) or families().get(name)


def family(name: str) -> Family:
    found = find(name) if isinstance(name, str) else None
    if found is None:
        broken = broken_plugins().get(name) if isinstance(name, str) else None
        if broken:
            raise UserError(f"the family plugin '{name}' is broken: {broken}")
        raise UserError(f"unknown puzzle family '{name}' (known: {', '.join(families())})")
    return found


def generator(name: str) -> Callable[..., dict]:
    """A challenge generator by name, from whichever family offers it."""
    offered = {g: fam.generators[g] for fam in families().values() for g in fam.generators}
    if name not in offered:
        raise UserError(f"no generator '{name}' (known: {', '.join(sorted(offered))})")
    return offered[name]


def foreign_generator_options(name: str, options) -> list[str]:
    """Options that the generator `name` does not take (seed and solver are set apart)."""
    accepted = inspect.signature(generator(name)).parameters
    return [o for o in options if o not in accepted or o in ("seed", "solver")]


def generator_takes_solver(name: str) -> bool:
    """Whether the generator `name` names a `solver` parameter: a generator that solves (e.g. to
    prove that its challenge has one solution). A ``**options`` catch-all does not count."""
    return "solver" in inspect.signature(generator(name)).parameters


class GeneratorFailed(UserError):
    """A generator raised something other than a `UserError`, or returned no mapping: a fault
    in its code, not in the options it was given."""


def generate(name: str, seed: int, options: dict[str, Any], solver: str | None = None) -> dict:
    """The instance data the generator `name` makes from `seed` and `options`; `solver` is
    passed only when given (to a generator that takes one: `generator_takes_solver`)."""
    make = generator(name)
    chosen = {} if solver is None else {"solver": solver}
    try:
        data = make(seed=seed, **chosen, **options)
    except UserError:
        raise
    except Exception as error:  # noqa: BLE001 - the generator's own code: one line naming it
        raise GeneratorFailed(f"the {name} generator raised {failure_line(error)}") from None
    if not isinstance(data, dict):
        raise GeneratorFailed(f"the {name} generator returned {type(data).__name__}, not the instance's "
                              "data (a mapping)")
    return data


def formulation(fam: Family, name: str | None) -> Formulation:
    """A formulation of `fam` by name, or from a Python file: ``path/to/file.py:NAME``."""
    name = name or fam.default_formulation
    if ":" in name and name.split(":", 1)[0].endswith(".py"):
        return formulation_from_file(name, fam)
    if name not in fam.formulations:
        raise UserError(
            f"unknown formulation '{name}' for {fam.name} "
            f"(known: {', '.join(fam.formulations)}, or FILE.py:NAME)"
        )
    return fam.formulations[name]


REQUIRED_FILE_HOOKS = ("build_model", "model_data", "decode")


@lru_cache(maxsize=None)
def _formulation_module(path: str):
    """Import a formulation file once per process (its AbstractModel is then declared once)."""
    spec = importlib.util.spec_from_file_location(f"pyomo_puzzles_user_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the user's file: one line, not a traceback
        raise UserError(f"{path}: cannot be imported: {type(error).__name__}: {error}".splitlines()[0]) from None
    return module


def formulation_from_file(reference: str, fam: Family) -> Formulation:
    """``FILE.py:NAME``: a formulation written in a plain Python file for the family `fam`.

    The file defines the hooks of `Formulation` as functions (at least build_model,
    model_data and decode; see the `Formulation` docstring); its solutions go through the
    family's own checker like every other formulation's, so a wrong model is caught as a
    failed check. A file may state ``FAMILY = "name"``; it is then refused for other
    families."""
    path_text, name = reference.rsplit(":", 1)
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise UserError(f"formulation file {path_text}: no such file")
    if not name.isidentifier():
        raise UserError(f"formulation file {path_text}: {name!r} is not a formulation name (letters, digits, _)")
    module = _formulation_module(str(path))
    missing = [hook for hook in REQUIRED_FILE_HOOKS if not callable(getattr(module, hook, None))]
    if missing:
        raise PluginError(f"formulation file {path_text}: no function '{missing[0]}' "
                        f"(a formulation file defines {', '.join(REQUIRED_FILE_HOOKS)})")
    family_name = getattr(module, "FAMILY", fam.name)
    if family_name != fam.name:
        raise UserError(f"formulation file {path_text}: FAMILY is {family_name!r}, the instance is {fam.name}")
    summary = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else f"from {path.name}"
    form = _file_formulation(str(path), name, summary)
    problems = _hook_problems(form, _FORMULATION_HOOKS)
    if problems:
        raise PluginError(f"formulation file {path_text}: {problems[0]}")
    return form


@lru_cache(maxsize=None)
def _file_formulation(path: str, name: str, summary: str) -> Formulation:
    """One Formulation object per file and name (so the run's AbstractModel cache holds)."""
    return Formulation.from_module(name, summary, _formulation_module(path))
