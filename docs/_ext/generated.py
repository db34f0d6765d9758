"""Reference sections generated from the code, so that they cannot drift from it:

- ``{cli-reference}``: every subcommand's ``--help`` (the argument parser of `pyomo_puzzles.cli`);
- ``{config-reference}``: every key of ``workflows/schemas/config.schema.yaml`` with its type,
  default and description;
- ``{record-fields}``: every field of the run record (`pyomo_puzzles.core.records.RUN_RECORD_SCHEMA`).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList

ROOT = Path(__file__).resolve().parents[2]


def _parse(directive: Directive, text: str) -> list:
    """`text` as the directive's nodes (Markdown: MyST parses what a directive nests)."""
    container = nodes.container()
    directive.state.nested_parse(StringList(text.splitlines(), source="generated"), directive.content_offset,
                                 container)
    return container.children


class CliReference(Directive):
    def run(self) -> list:
        from pyomo_puzzles import cli

        parser = cli.parser()
        blocks = [("pyomo-puzzles", parser.format_help())]
        for action in parser._subparsers._group_actions:  # argparse keeps its subcommands here
            blocks += [(f"pyomo-puzzles {name}", sub.format_help()) for name, sub in action.choices.items()]
        return _parse(self, "\n".join(f"**`{title}`**\n\n```text\n{text.rstrip()}\n```\n" for title, text in blocks))


def _type(spec: dict) -> str:
    if "enum" in spec:
        return " | ".join(json.dumps(v) for v in spec["enum"])
    if "oneOf" in spec:
        return " or ".join(_type(s) for s in spec["oneOf"])
    kind = spec.get("type", "")
    return " or ".join(kind) if isinstance(kind, list) else kind


def _config_rows(properties: dict, prefix: str = "") -> list[tuple[str, str, str, str]]:
    rows = []
    for key, spec in properties.items():
        name = f"{prefix}{key}"
        default = json.dumps(spec["default"]) if "default" in spec else ""
        description = " ".join(str(spec.get("description", "")).split())
        rows.append((name, _type(spec), default, description))
        if spec.get("type") == "object" and "properties" in spec:
            rows += _config_rows(spec["properties"], f"{name}.")
    return rows


def _table(header: tuple, rows: list[tuple]) -> str:
    """A Markdown table."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ") or " "

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


class ConfigReference(Directive):
    def run(self) -> list:
        schema = yaml.safe_load((ROOT / "workflows/schemas/config.schema.yaml").read_text())
        rows = [(f"`{n}`", f"`{t}`" if t else "", f"`{d}`" if d else "", text)
                for n, t, d, text in _config_rows(schema["properties"])]
        required = ", ".join(f"`{k}`" for k in schema.get("required", []))
        return _parse(self, f"Required: {required}.\n\n" + _table(("key", "type", "default", "meaning"), rows))


class RecordFields(Directive):
    def run(self) -> list:
        from pyomo_puzzles.core.records import RUN_RECORD_SCHEMA

        properties = RUN_RECORD_SCHEMA["properties"]
        required = set(RUN_RECORD_SCHEMA.get("required", []))
        rows = [(f"`{name}`", f"`{_type(spec)}`" if _type(spec) else "", "yes" if name in required else "",
                 " ".join(str(spec.get("description", "")).split()))
                for name, spec in properties.items()]
        return _parse(self, _table(("field", "type", "always", "meaning"), rows))


def setup(app) -> dict:
    app.add_directive("cli-reference", CliReference)
    app.add_directive("config-reference", ConfigReference)
    app.add_directive("record-fields", RecordFields)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
