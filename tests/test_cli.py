"""The command line as a user calls it: exit codes, files written, one-line errors."""

from __future__ import annotations

import json

import jsonschema
import pyomo.environ as pyo
import pytest

from conftest import INSTALLED, run_cli
from pyomo_puzzles.core.records import RUN_RECORD_SCHEMA
from pyomo_puzzles.families.packing import model_placement

CUBE = "packing/l_tromino_cube"


def test_list_names_families_instances_and_solvers():
    result = run_cli("list")
    assert result.returncode == 0
    for word in ("packing", "placement", "cell_assignment", CUBE, "highs", "cbc", "glpk"):
        assert word in result.stdout


@pytest.mark.parametrize("solver", INSTALLED)
def test_solve_writes_a_valid_record_and_picture(tmp_path, solver):
    record_path, picture = tmp_path / "run.json", tmp_path / "cube.png"
    result = run_cli("solve", CUBE, "--solver", solver, "--time-limit", "60",
                     "--output", record_path, "--picture", picture)
    assert result.returncode == 0, result.stderr
    record = json.loads(record_path.read_text())
    jsonschema.validate(record, RUN_RECORD_SCHEMA)
    assert (record["solver"], record["status"], record["checked"]) == (solver, "optimal", True)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_picture_formats(tmp_path):
    for suffix, magic in ((".pdf", b"%PDF"), (".svg", b"<?xml")):
        path = tmp_path / f"cube{suffix}"
        assert run_cli("solve", CUBE, "--picture", path).returncode == 0
        assert path.read_bytes().startswith(magic)


def test_check_accepts_a_record_and_rejects_a_tampered_one(tmp_path):
    record_path = tmp_path / "run.json"
    assert run_cli("solve", CUBE, "-o", record_path).returncode == 0
    ok = run_cli("check", CUBE, record_path)
    assert ok.returncode == 0 and "valid" in ok.stdout
    record = json.loads(record_path.read_text())
    record["solution"]["pieces"][0]["cells"][0] = record["solution"]["pieces"][1]["cells"][0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record["solution"]))
    result = run_cli("check", CUBE, bad)
    assert result.returncode == 1 and "INVALID" in result.stdout


def test_count_up_to_symmetry_from_the_command_line():
    result = run_cli("count", CUBE, "--up-to-symmetry", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "111 solutions up to symmetry" in result.stdout and "5328 in all" in result.stdout


def test_count_with_a_limit_is_incomplete():
    result = run_cli("count", CUBE, "--limit", "2", "--quiet")
    assert result.returncode == 1 and "2 solutions" in result.stdout and "INCOMPLETE" in result.stdout


def test_export_round_trip(tmp_path):
    result = run_cli("export", CUBE, "--formulation", "placement", "--output-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    dat, lp, mps = (tmp_path / f"packing__l_tromino_cube.placement.{s}" for s in ("dat", "lp", "mps"))
    assert lp.read_text().count("each_cell_covered_once") == 27
    assert "COLUMNS" in mps.read_text()
    # The .dat file alone rebuilds the model: 27 cells + 1 piece type, 144 placements.
    model = model_placement.build_model().create_instance(str(dat))
    assert len(model.each_cell_covered_once) == 27 and len(model.x) == 144
    assert pyo.value(model.COPIES["L"]) == 9


def test_export_cell_assignment_dat_loads(tmp_path):
    from pyomo_puzzles.families.packing import model_cell_assignment

    assert run_cli("export", CUBE, "-f", "cell_assignment", "-d", tmp_path, "--format", "dat").returncode == 0
    model = model_cell_assignment.build_model().create_instance(
        str(tmp_path / "packing__l_tromino_cube.cell_assignment.dat"))
    assert len(model.P) == 9 * 27 and len(model.ADJACENT) == 54 and len(model.LINES) == 27


def test_every_family_is_found_after_one_was_imported_directly():
    import subprocess
    import sys

    code = ("import pyomo_puzzles.families.rubik\n"
            "from pyomo_puzzles.core import registry\n"
            "print(sorted(registry.families()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['instant_insanity', 'instant_insanity_design', 'packing', 'rubik']"


def test_a_formulation_takes_its_hooks_from_its_module_and_keywords_replace_them():
    from pyomo_puzzles.core.registry import Formulation
    from pyomo_puzzles.families.packing import model_coordinates, model_placement

    placement = Formulation.from_module("p", "s", model_placement)
    assert placement.decode is model_placement.decode and placement.partitions is model_placement.partitions
    assert placement.stages is None and placement.prepare_enumeration is None  # the module has neither
    tight = Formulation.from_module("t", "s", model_coordinates, build_model=model_coordinates.build_model_tight)
    assert tight.build_model is model_coordinates.build_model_tight
    assert tight.model_data is model_coordinates.model_data and tight.applies_to is model_coordinates.applies_to


def test_one_version_string():
    from importlib.metadata import version

    import pyomo_puzzles

    done = run_cli("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"pyomo-puzzles {pyomo_puzzles.__version__}" == f"pyomo-puzzles {version('pyomo-puzzles')}"


def test_short_option_q_means_quiet_only():
    assert run_cli("design", "instant_insanity", "-q", "3").returncode == 2  # --question has no short form
    counted = run_cli("count", "instant_insanity/parker_brothers", "-q")
    assert counted.returncode == 0 and "8 solutions" in counted.stdout and "counting" not in counted.stderr
