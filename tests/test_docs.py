"""The documented run-record schema is the one the code uses."""

import json
from pathlib import Path

from pyomo_puzzles.core.records import RUN_RECORD_SCHEMA, RunRecord

ROOT = Path(__file__).resolve().parents[1]


def test_documented_schema_is_current():
    documented = json.loads((ROOT / "docs" / "run_record.schema.json").read_text())
    assert documented == RUN_RECORD_SCHEMA


def test_schema_lists_every_record_field():
    fields = set(RunRecord.__dataclass_fields__)
    assert fields == set(RUN_RECORD_SCHEMA["properties"])


def _formulations_doc():
    import importlib.util

    spec = importlib.util.spec_from_file_location("write_formulations_doc", ROOT / "tools" / "write_formulations_doc.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_formulations_components_document_is_current():
    # a renamed set, variable or constraint of a shipped model must show in the docs
    assert (ROOT / "docs" / "formulations.md").read_text() == _formulations_doc().text(), \
        "run: .venv/bin/python tools/write_formulations_doc.py"


def test_the_documented_variant_of_a_shipped_formulation_solves_and_is_checked(tmp_path):
    import re

    from conftest import run_cli

    text = (ROOT / "docs" / "formulations.md").read_text()
    code = re.search(r"```python\n# file: placement_at_most\.py.*?\n(.*?)```", text, re.S).group(1)
    (tmp_path / "placement_at_most.py").write_text(code)
    done = run_cli("solve", "packing/l_tromino_cube", "-f", f"{tmp_path / 'placement_at_most.py'}:any_label",
                   "-o", str(tmp_path / "record.json"))
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "record.json").read_text())
    assert (record["formulation"], record["status"], record["checked"]) == ("any_label", "optimal", True)


def test_families_and_formulations_print_as_one_line_each():
    import pyomo_puzzles as pp

    packing = pp.list_families()["packing"]
    assert repr(packing).count("\n") == 0 and len(repr(packing)) < 300
    assert "packing" in repr(packing) and "placement" in repr(packing)
    assert repr(packing.formulations["placement"]).startswith("<Formulation placement: ")


def test_the_documentation_explains_every_record_field():
    """The run record's reference page is generated from the schema (docs/_ext/generated.py):
    every field must have a description there to explain it."""
    assert "```{record-fields}" in (ROOT / "docs" / "reference" / "run_record.md").read_text()
    undescribed = [name for name in RunRecord.__dataclass_fields__
                   if len(RUN_RECORD_SCHEMA["properties"][name].get("description", "").split()) < 3]
    assert undescribed == []


def _documented_catalogue_fields() -> set[str]:
    """The fields the tables of docs/library.md describe (a row per field: | `field` | ...)."""
    import re

    return set(re.findall(r"^\| `([a-z_.]+)` \|", (ROOT / "docs" / "library.md").read_text(), re.M))


def _schema_fields(schema: dict, prefix: str = "") -> set[str]:
    """The fields a JSON Schema names, nested ones as ``outer.inner``."""
    fields = set()
    for name, inner in schema.get("properties", {}).items():
        fields |= {prefix + name} | _schema_fields(inner, f"{prefix}{name}.")
    return fields


def test_every_field_of_the_library_catalogue_is_documented_and_nothing_else():
    from pyomo_puzzles.core.library import SCHEMA

    entry = SCHEMA["properties"]["instances"]["items"]
    assert _documented_catalogue_fields() == {"instances"} | _schema_fields(entry)


def test_the_documented_catalogue_example_is_a_catalogue_the_library_reads(tmp_path):
    import re

    from pyomo_puzzles.core import library

    text = (ROOT / "docs" / "library.md").read_text()
    example = re.search(r"```yaml\n# file: library\.yaml\n(.*?)```", text, re.S).group(1)
    (tmp_path / "library.yaml").write_text(example)
    entries = library.read_catalogue("packing", tmp_path / "library.yaml")
    assert [entry.label for entry in entries] == ["packing/l_tromino_cube",
                                                  "packing/pentominoes/3x20 (count up to symmetry)"]
