"""`pyomo-puzzles new-family NAME --path DIR`: an installable plugin package to start from.

The template (`template/`, `string.Template` files) is a complete family, exact cover, that
passes its own tests and the conformance kit as written; its README says what to change."""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

from pyomo_puzzles.core import registry
from pyomo_puzzles.errors import UserError
from pyomo_puzzles.version import __version__

TEMPLATE = Path(__file__).parent / "template"


def _check_name(name: str) -> None:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise UserError(f"new-family: NAME {name!r} must be lower-case letters, digits and _ (a Python name)")
    if name in registry.families():
        raise UserError(f"new-family: a family named '{name}' exists already")


def _target(path: Path) -> Path:
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise UserError(f"new-family: --path {path} exists and is not an empty folder")
    return path


def write(name: str, path: str | Path) -> list[Path]:
    """Write the plugin package for family `name` into the folder `path`; returns the files."""
    _check_name(name)
    root = _target(Path(path))
    package = f"pyomo_puzzles_{name}"
    values = {"name": name, "package": package, "title": name.replace("_", " ").capitalize(),
              "framework_version": __version__}
    written = []
    for source in sorted(TEMPLATE.rglob("*.tmpl")):
        relative = source.relative_to(TEMPLATE).with_suffix("")  # drop .tmpl
        parts = [package if part == "package" else part for part in relative.parts]
        if parts[-1] == "test_family.py":
            parts[-1] = f"test_{name}.py"
        target = root.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(Template(source.read_text(encoding="utf-8")).substitute(values), encoding="utf-8")
        written.append(target)
    return written
