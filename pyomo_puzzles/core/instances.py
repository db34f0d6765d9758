"""Find instances by name or path, read them, and validate them before Pyomo sees them."""

from __future__ import annotations

import copy
import hashlib
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from pyomo_puzzles.core import quick_schema, registry
from pyomo_puzzles.errors import DataError, UserError, shortened

DATA_SUFFIXES = (".yaml", ".yml", ".json")
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it
MAX_NESTING = 64
"""The deepest a data file may nest lists and mappings (the shipped ones nest 5 deep;
libyaml's composer crashes the interpreter somewhere past 10,000)."""
MAX_VALUES = 1_000_000
"""The most values (scalars, lists, mappings) a data file may hold once YAML's aliases are
expanded: a few lines of anchors can stand for billions (an "alias bomb")."""


@dataclass(frozen=True)
class Instance:
    """A validated puzzle instance: its family, name, file, raw data and loaded spec."""

    family: registry.Family
    name: str
    path: Path
    raw: dict
    spec: Any

    @property
    def puzzle(self) -> str:
        return self.family.name


def shipped_instances() -> dict[str, Path]:
    """Every instance shipped in the package, by name ``family/stem``."""
    return dict(_shipped_instances())


@lru_cache(maxsize=1)
def _shipped_instances() -> dict[str, Path]:
    """The package's instance folders, scanned once per process."""
    found = {}
    for fam in registry.families().values():
        found.update(_family_instances(fam.name, fam.instances_dir))
    return found


@lru_cache(maxsize=None)
def _family_instances(name: str, folder: Path | None) -> dict[str, Path]:
    """One family's shipped instances by name ``family/stem`` (its folder, scanned once)."""
    found = {}
    if folder is not None:
        for path in sorted(folder.rglob("*")):
            if path.suffix in DATA_SUFFIXES:
                found[f"{name}/{path.relative_to(folder).with_suffix('').as_posix()}"] = path
    return found


def _shipped_file(key: str) -> Path | None:
    """The file of the shipped instance `key` (``family/stem``), looked up in its own
    family's folder only (without importing every family), or None."""
    family_name, _, stem = key.partition("/")
    fam = registry.find(family_name) if family_name.isidentifier() else None
    if fam is None or fam.instances_dir is None or not stem or Path(stem).is_absolute() or ".." in Path(stem).parts:
        return None
    # the name is the file's path in the folder: found by looking, not by scanning the folder
    return next((path for suffix in DATA_SUFFIXES if is_file(path := fam.instances_dir / f"{stem}{suffix}")), None)


def is_file(path: Path) -> bool:
    """`Path.is_file`, False also where the name is too long or a folder is unreadable."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def resolve(name_or_path: str | Path) -> tuple[str | None, Path]:
    """Return (shipped name or None, file path) for a name like ``packing/x`` or a path."""
    path = Path(name_or_path)
    if is_file(path):
        return None, path
    key = str(name_or_path).removesuffix(path.suffix) if path.suffix in DATA_SUFFIXES else str(name_or_path)
    found = _shipped_file(key)
    if found is not None:
        return key, found
    broken = registry.broken_plugins().get(key.split("/", 1)[0]) if "/" in key else None
    if broken:
        raise UserError(f"no instance '{name_or_path}': the family plugin '{key.split('/', 1)[0]}' is broken: {broken}")
    raise UserError(
        f"no instance '{name_or_path}': not a file and not a shipped instance "
        "(run 'pyomo-puzzles list' to see them)"
    )


def read_data_file(path: Path) -> dict:
    """Parse a YAML or JSON file into a dict; anything wrong with the file as a whole
    (unreadable, not UTF-8, a syntax error, nested or aliased past the limits, not a
    mapping) is a one-line DataError. The values are the caller's own (a copy)."""
    raw = _read_bytes(path)
    if len(raw) > _PARSES_KEPT_BYTES:
        return _parse(raw, path.suffix == ".json", str(path))
    return copy.deepcopy(_parsed(raw, path.suffix == ".json", str(path)))


_PARSES_KEPT_BYTES = 256 * 1024
"""Data files up to this size are parsed once per content (`_parsed`); larger ones each time they are read."""


@lru_cache(maxsize=256)
def _parsed(raw: bytes, is_json: bool, path: str) -> dict:
    """A data file's values, parsed once per content and name: a batch of runs reads an
    instance's file for its fingerprint, its digest and its loading, and a challenge's base
    file for each challenge (four parses of 1.4 ms each, per instance and batch). Kept by
    the bytes themselves, so an edited file is parsed again however soon it was written."""
    return _parse(raw, is_json, path)


def _parse(raw: bytes, is_json: bool, path: str) -> dict:
    text = _decoded(raw, Path(path))
    data = parse_json(text, Path(path)) if is_json else parse_yaml(text, Path(path))
    if not isinstance(data, dict):
        raise DataError(Path(path), "<file>", "must be a mapping of fields at the top level")
    return data


def read_text(path: Path) -> str:
    """The file's text (UTF-8), or a one-line DataError."""
    return _decoded(_read_bytes(path), path)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise DataError(path, "<file>", f"cannot be read ({error.strerror or error})") from None


def _decoded(raw: bytes, path: Path) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DataError(path, "<file>", f"is not UTF-8 text (byte 0x{raw[error.start]:02x} at offset "
                        f"{error.start})") from None


def parse_json(text: str, path: Path) -> Any:
    """JSON text as Python values, or a one-line DataError (syntax, nesting)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(path, "<file>", f"is not valid JSON at line {error.lineno}") from None
    except RecursionError:
        data = None
        depth = MAX_NESTING + 1
    else:
        depth = nesting(data)
    if depth > MAX_NESTING:
        raise DataError(path, "<file>", f"nests lists and mappings more than {MAX_NESTING} deep")
    return data


def nesting(value: Any) -> int:
    """How deep lists and mappings nest in `value` (0 for a scalar); stops counting past
    MAX_NESTING."""
    deepest, todo = 0, [(value, 0)]
    while todo and deepest <= MAX_NESTING:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, depth + 1)
            todo += [(item, depth + 1) for item in (value.values() if isinstance(value, dict) else value)]
    return deepest


def parse_yaml(text: str, path: Path) -> Any:
    """YAML text as Python values (safe loader), or a one-line DataError: a syntax error, a
    value YAML cannot construct (``2020-13-45``, ``!!int abc``), nesting or aliases past
    the limits."""
    try:
        _refuse_deep_or_aliased(text, path)
        return yaml.load(text, Loader=_YAML_LOADER)
    except yaml.YAMLError as error:
        raise DataError(path, "<file>", f"is not valid YAML{_yaml_where(error)}") from None
    except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as error:  # a tagged value PyYAML cannot build
        raise DataError(path, "<file>", f"is not valid YAML: a value cannot be read "
                        f"({type(error).__name__}: {str(error)[:80]})") from None


def _yaml_where(error: yaml.YAMLError) -> str:
    """Where the YAML parser stopped and, in its words, why (first line, shortened)."""
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        problem = str(getattr(error, "problem", None) or "").strip().splitlines()
        return f" at line {mark.line + 1}" + (f" ({shortened(problem[0], 80)})" if problem else "")
    if isinstance(error, yaml.reader.ReaderError):  # the character comes as a code (libyaml) or a str
        code = error.character if isinstance(error.character, int) else ord(error.character[:1] or "\0")
        return f": character #x{code:04x} at offset {error.position} is not allowed"
    return ""


def _refuse_deep_or_aliased(text: str, path: Path) -> None:
    """Walk the YAML events (no values built yet): refuse nesting past MAX_NESTING and more
    than MAX_VALUES values with aliases expanded."""
    opened: list[tuple[str | None, int]] = []  # (anchor, values counted before it)
    sizes: dict[str, int] = {}
    values = 0
    for item in yaml.parse(text, Loader=_YAML_LOADER):
        if isinstance(item, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            opened.append((item.anchor, values))
            values += 1
            if len(opened) > MAX_NESTING:
                raise DataError(path, "<file>", f"nests lists and mappings more than {MAX_NESTING} deep")
        elif isinstance(item, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, before = opened.pop()
            if anchor:
                sizes[anchor] = values - before
        elif isinstance(item, yaml.ScalarEvent):
            values += 1
            if item.anchor:
                sizes[item.anchor] = 1
        elif isinstance(item, yaml.AliasEvent):
            values += sizes.get(item.anchor, 1)
        if values > MAX_VALUES:
            raise DataError(path, "<file>", f"holds more than {MAX_VALUES:,} values (with its aliases expanded)")


def field_path(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def schema_error(path: Path, error) -> DataError:
    """Turn a jsonschema error into a DataError naming the offending field."""
    parts = list(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(str(key) for key in set(error.instance) - set(error.schema.get("properties", {})))
        return DataError(path, field_path(parts + extra[:1]), "unknown field")
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return DataError(path, field_path(parts + [missing]), "required field is missing")
    return DataError(path, field_path(parts), shortened(error.message.splitlines()[0]))


def _is_integer(checker, value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(checker, value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@lru_cache(maxsize=1)
def validator_class():
    """Draft 2020-12 where an integer is a whole number as an int (``3``; a ``3.0`` in a data
    file is made one first, `validate`: the loaders count with it) and a number is finite (not
    ``.nan`` or ``.inf``)."""
    import jsonschema  # jsonschema: only for a file quick_schema cannot vouch for

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
            {"integer": _is_integer, "number": _is_number}))


def first_schema_error(data: Any, schema: dict):
    """The jsonschema error to report for `data` (the deepest first), or None if it
    conforms. A file that `quick_schema` finds valid does not import jsonschema at all."""
    if quick_schema.conforms(data, schema):
        return None
    import jsonschema  # see validator_class

    errors = sorted(validator_class()(schema).iter_errors(data),
                    key=lambda e: (len(e.absolute_path), [str(p) for p in e.path]))
    return jsonschema.exceptions.best_match(errors) if errors else None


def validate(data: dict, schema: dict, path: Path) -> None:
    """Check `data` against `schema` (a `DataError` naming the file and the first wrong field);
    a whole number written with a decimal point where the schema asks for an integer
    (``n: 8.0``) is that integer, as JSON Schema counts it, and becomes an `int` in `data`
    first, so that no loader counts with a float."""
    error = first_schema_error(data, schema)
    if error is not None and _whole_numbers_made_integers(data, schema):
        error = first_schema_error(data, schema)
    if error is not None:
        raise schema_error(path, error)


def _whole_numbers_made_integers(data: dict, schema: dict) -> bool:
    """Turn each float with a whole value that stands where `schema` asks for an integer into
    an int, in place (jsonschema finds where, nested choices of a schema included); whether it
    changed anything."""
    changed = False
    for _ in range(100):  # each pass settles the places one level of nesting hides
        found = [e for e in _all_errors(validator_class()(schema).iter_errors(data))
                 if e.validator == "type" and "integer" in ([e.validator_value] if isinstance(e.validator_value, str)
                                                            else e.validator_value)
                 and isinstance(e.instance, float) and math.isfinite(e.instance) and e.instance.is_integer()]
        if not found:
            return changed
        for error in found:
            _put(data, list(error.absolute_path), int(error.instance))
        changed = True
    return changed


def _all_errors(errors):
    """Every error and the errors inside them (a `oneOf` keeps its branches' in `context`)."""
    for error in errors:
        yield error
        yield from _all_errors(error.context or [])


def _put(data, where: list, value) -> None:
    for key in where[:-1]:
        data = data[key]
    if where:
        data[where[-1]] = value


def merge_base(data: dict, path: Path, schema: dict, within: tuple[Path, ...] = ()) -> dict:
    """Resolve a data file's `base` (another instance, shipped or a path relative to this
    file): the base's fields, overridden by this file's. The base's `known` figures are
    dropped: they do not hold for a variant of it. `within`: the files whose bases led
    here (a file that is its own base, directly or not, is refused)."""
    if "base" not in data:
        return data
    try:
        base_path = base_file(path, data["base"])
    except Exception:
        raise DataError(path, "base", f"no shipped instance or file {data['base']!r}") from None
    chain = within + (path.resolve(),)
    if base_path.resolve() in chain:
        raise DataError(path, "base", f"{data['base']!r} leads back to this file (a cycle of bases)")
    try:
        base = _resolved_base(base_path, schema, chain)
    except DataError as error:  # name the file the user gave, and the base that is wrong
        raise DataError(path, "base", f"the base is not valid: {error}") from None
    base.pop("known", None)
    return {**base, **{k: v for k, v in data.items() if k != "base"}}


def base_file(path: Path, base: str) -> Path:
    """The file a data file's `base` names: a path relative to the data file, or a shipped
    instance (UserError if neither)."""
    relative = path.parent / base
    return relative if is_file(relative) else resolve(base)[1]


_BASES: dict[tuple, dict] = {}


def _resolved_base(path: Path, schema: dict, within: tuple[Path, ...] = ()) -> dict:
    """A base file read, validated and resolved (a fresh copy). Kept while the file is
    unchanged: the booklet challenges of a puzzle share one base."""
    try:
        stat = path.stat()
        key = (path.resolve(), stat.st_mtime_ns, stat.st_size, id(schema))
    except OSError:
        key = None
    if key not in _BASES:
        base = read_data_file(path)
        validate(base, schema, path)
        base = merge_base(base, path, schema, within)
        if key is None:
            return base
        _BASES[key] = base
    return copy.deepcopy(_BASES[key])


def data_digest(path: Path, _seen: frozenset = frozenset()) -> str:
    """A digest of a data file's bytes and of the files it is based on (`base`, followed as
    `merge_base` does): it changes whenever the instance's data does."""
    path = Path(path)
    if path.resolve() in _seen:
        raise DataError(path, "base", "the bases of this file lead back to it")
    digest = hashlib.sha256(path.read_bytes())
    base = read_data_file(path).get("base")
    if isinstance(base, str):
        digest.update(data_digest(base_file(path, base), _seen | {path.resolve()}).encode())
    return digest.hexdigest()[:16]


def load(name_or_path: str | Path) -> Instance:
    """Load and validate an instance; raises DataError or UserError on any problem."""
    shipped_name, path = resolve(name_or_path)
    return from_data(read_data_file(path), path, shipped_name)


def from_data(data: dict, path: Path, shipped_name: str | None = None) -> Instance:
    """Validate and load instance data already in memory (`path` names it in errors and
    anchors relative references such as `base`)."""
    path = Path(path)
    puzzle = data.get("puzzle")
    fam = registry.find(puzzle) if isinstance(puzzle, str) else None
    if fam is None:
        broken = registry.broken_plugins().get(puzzle) if isinstance(puzzle, str) else None
        if broken:
            raise DataError(path, "puzzle", f"the family plugin '{puzzle}' is broken: {broken}")
        raise DataError(path, "puzzle", f"must be one of {', '.join(registry.families())}, "
                        f"got {shortened(repr(puzzle), 60)}")
    validate(data, fam.schema, path)
    try:
        spec = fam.load(data, path)
    except UserError:
        raise
    except Exception as error:  # noqa: BLE001 - a loader's bug is reported in one line, naming the file
        raise DataError(path, "<file>", f"the {fam.name} loader failed: {type(error).__name__}: "
                        f"{str(error).splitlines()[0] if str(error) else ''}") from None
    name = shipped_name or f"{fam.name}/{path.stem}"
    return Instance(family=fam, name=name, path=path, raw=data, spec=spec)
