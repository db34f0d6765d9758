"""Find instances by name or path, read them, and validate them before Pyomo sees them."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from pyomo_puzzles.core import registry
from pyomo_puzzles.errors import DataError, UserError

DATA_SUFFIXES = (".yaml", ".yml", ".json")
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it


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
        if fam.instances_dir is None:
            continue
        for path in sorted(fam.instances_dir.rglob("*")):
            if path.suffix in DATA_SUFFIXES:
                stem = path.relative_to(fam.instances_dir).with_suffix("").as_posix()
                found[f"{fam.name}/{stem}"] = path
    return found


def resolve(name_or_path: str | Path) -> tuple[str | None, Path]:
    """Return (shipped name or None, file path) for a name like ``packing/x`` or a path."""
    path = Path(name_or_path)
    if path.is_file():
        return None, path
    shipped = _shipped_instances()
    key = str(name_or_path).removesuffix(path.suffix) if path.suffix in DATA_SUFFIXES else str(name_or_path)
    if key in shipped:
        return key, shipped[key]
    raise UserError(
        f"no instance '{name_or_path}': not a file and not a shipped instance "
        "(run 'pyomo-puzzles list' to see them)"
    )


def read_data_file(path: Path) -> dict:
    """Parse a YAML or JSON file into a dict; any syntax error is a one-line DataError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise DataError(path, "<file>", f"cannot be read ({error.strerror})") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.load(text, Loader=_YAML_LOADER)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        where = getattr(error, "problem_mark", None)
        line = f" at line {where.line + 1}" if where else f" at line {getattr(error, 'lineno', '?')}"
        raise DataError(path, "<file>", f"is not valid {path.suffix[1:].upper()}{line}") from None
    if not isinstance(data, dict):
        raise DataError(path, "<file>", "must be a mapping of fields at the top level")
    return data


def field_path(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def schema_error(path: Path, error: jsonschema.ValidationError) -> DataError:
    """Turn a jsonschema error into a DataError naming the offending field."""
    parts = list(error.absolute_path)
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return DataError(path, field_path(parts + extra[:1]), "unknown field")
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return DataError(path, field_path(parts + [missing]), "required field is missing")
    message = error.message.splitlines()[0]
    if len(message) > 160:
        message = message[:157] + "..."
    return DataError(path, field_path(parts), message)


def validate(data: dict, schema: dict, path: Path) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(data), key=lambda e: (len(e.absolute_path), e.path))
    if errors:
        deepest_first = jsonschema.exceptions.best_match(errors)
        raise schema_error(path, deepest_first)


def merge_base(data: dict, path: Path, schema: dict) -> dict:
    """Resolve a data file's `base` (another instance, shipped or a path relative to this
    file): the base's fields, overridden by this file's. The base's `known` figures are
    dropped: they do not hold for a variant of it."""
    if "base" not in data:
        return data
    relative = path.parent / data["base"]
    try:
        _, base_path = resolve(relative if relative.is_file() else data["base"])
    except Exception:
        raise DataError(path, "base", f"no shipped instance or file {data['base']!r}") from None
    base = _resolved_base(base_path, schema)
    base.pop("known", None)
    return {**base, **{k: v for k, v in data.items() if k != "base"}}


_BASES: dict[tuple, dict] = {}


def _resolved_base(path: Path, schema: dict) -> dict:
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
        base = merge_base(base, path, schema)
        if key is None:
            return base
        _BASES[key] = base
    return copy.deepcopy(_BASES[key])


def load(name_or_path: str | Path) -> Instance:
    """Load and validate an instance; raises DataError or UserError on any problem."""
    shipped_name, path = resolve(name_or_path)
    return from_data(read_data_file(path), path, shipped_name)


def from_data(data: dict, path: Path, shipped_name: str | None = None) -> Instance:
    """Validate and load instance data already in memory (`path` names it in errors and
    anchors relative references such as `base`)."""
    path = Path(path)
    puzzle = data.get("puzzle")
    known = registry.families()
    if puzzle not in known:
        broken = registry.broken_plugins().get(puzzle) if isinstance(puzzle, str) else None
        if broken:
            raise DataError(path, "puzzle", f"the family plugin '{puzzle}' is broken: {broken}")
        raise DataError(path, "puzzle", f"must be one of {', '.join(known)}, got {puzzle!r}")
    fam = known[puzzle]
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
