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
