"""The documentation site builds with Sphinx with warnings as errors (a broken link, a page
left out of the contents, a docstring that does not parse), and its reference pages hold
what the code has: every subcommand, every configuration key, every run-record field."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pyomo_puzzles import cli
from pyomo_puzzles.core.records import RUN_RECORD_SCHEMA

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           "-d", str(out / ".doctrees"), str(ROOT / "docs"), str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stderr.strip() == "", done.stderr[-4000:]
    return out


def _text(page: Path) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
    return text.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')  # Sphinx's smart quotes


def test_every_page_is_built(site):
    sources = {path.relative_to(ROOT / "docs").with_suffix(".html")
               for path in (ROOT / "docs").rglob("*.md") if "_build" not in path.parts}
    assert sources and all((site / page).is_file() for page in sources), sources


def test_the_command_line_reference_has_every_subcommand(site):
    page = (site / "reference" / "cli.html").read_text()
    blocks = [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in re.findall(r"<pre>(.*?)</pre>", page, re.S)]
    parser = cli.parser()
    names = [name for action in parser._subparsers._group_actions for name in action.choices]
    for name in names:  # each subcommand's --help as a code block of its own
        assert any(block.startswith(f"usage: pyomo-puzzles {name} ") for block in blocks), name


def test_the_configuration_reference_has_every_key(site):
    text = _text(site / "reference" / "configuration.html")
    schema = yaml.safe_load((ROOT / "workflows" / "schemas" / "config.schema.yaml").read_text())
    keys = list(schema["properties"]) + [f"figures.{key}" for key in schema["properties"]["figures"]["properties"]]
    assert all(key in text for key in keys), [key for key in keys if key not in text]
    rows = re.findall(r"<tr", (site / "reference" / "configuration.html").read_text())
    assert len(rows) >= 1 + len(keys)  # a table row per key (nested keys included), and the header


def test_the_run_record_reference_has_every_field_with_its_description(site):
    text = _text(site / "reference" / "run_record.html")
    assert len(re.findall(r"<tr", (site / "reference" / "run_record.html").read_text())) == 1 + len(
        RUN_RECORD_SCHEMA["properties"])
    for name, spec in RUN_RECORD_SCHEMA["properties"].items():
        assert name in text
        assert " ".join(spec["description"].split())[:40] in " ".join(text.split()), name


def test_the_api_reference_documents_the_public_functions(site):
    text = _text(site / "reference" / "api.html")
    for name in ("solve", "count", "check", "results", "register", "Family", "Adapter", "SolveOutcome"):
        assert name in text, name
