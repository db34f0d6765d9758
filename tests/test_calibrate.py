"""`pyomo-puzzles calibrate`: the installed command turns a calibration experiment into
benchmark-library entries that `core.library` loads, each naming the command line that made
it; bad options are one line and exit 2.

Ground truth (independent of the calibration): the L-tromino cube has tilings (111 up to
symmetry), so its feasibility model's optimum is 0; the 3x20 pentomino board has 2 tilings up to
its 4 symmetries, 8 in all (../shared/data/ground_truth.md).
"""

from __future__ import annotations

import shlex

import pytest
import yaml

from conftest import ROOT, run_cli
from pyomo_puzzles import cli
from pyomo_puzzles.core import library


@pytest.fixture
def smoke_config(smoke_results, tmp_path):
    """The smoke experiment's configuration, naming the folder it was run into (the session's)."""
    config = yaml.safe_load((ROOT / "workflows/config/smoke.yaml").read_text())
    path = tmp_path / "smoke.yaml"
    path.write_text(yaml.safe_dump({**config, "results": str(smoke_results)}))
    return path


def test_the_installed_command_writes_entries_that_load_and_name_the_command_that_ran(smoke_config, tmp_path):
    catalogue = tmp_path / "library.yaml"
    args = ["calibrate", str(smoke_config), "--solvers", "highs", "--skip", "instant_insanity/parker_brothers",
            "--write-to", str(catalogue)]
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    entries = {entry.key: entry for entry in library.read_catalogue("packing", catalogue)}
    assert set(entries) == {("packing/l_tromino_cube", "solve", False), ("packing/pentominoes/3x20", "count", True)}
    solve, count = entries["packing/l_tromino_cube", "solve", False], entries["packing/pentominoes/3x20", "count", True]
    assert (solve.answer.status, solve.answer.objective) == ("optimal", 0)
    assert (count.answer.solutions, count.answer.classes) == (8, 2)
    # was: a template naming benchmarks/calibrate.py and the results folders, without the options given
    assert {entry.calibration["command"] for entry in entries.values()} == {shlex.join(["pyomo-puzzles", *args])}


def _main(capsys, *args: str) -> tuple[int, str]:
    try:
        code = cli.main(list(args))
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize("args, words", [
    (["{tmp}/none.yaml"], "configuration {tmp}/none.yaml: cannot be read"),
    (["{tmp}/unrun.yaml"], "configuration {tmp}/unrun.yaml: its results folder {tmp}/unrun has no "
                           "tables/runs.parquet: run the experiment first"),
    (["{tmp}"], "configuration {tmp} is a folder: give the experiment's configuration file"),
    (["{tmp}/unrun.yaml", "--solvers", "highs,hihgs"], "option --solvers: unknown solver 'hihgs'"),
    (["{tmp}/unrun.yaml", "--write", "--write-to", "{tmp}/x.yaml"], "argument --write-to: not allowed with "
                                                                    "argument --write"),
    (["{tmp}/unrun.yaml", "--question", "both"], "argument --question: invalid choice: 'both'"),
    (["{tmp}/unrun.yaml", "--adopt"], "option --adopt: it copies the instances of the entries written"),
])
def test_bad_options_are_one_line_naming_the_option(tmp_path, capsys, args, words):
    (tmp_path / "unrun.yaml").write_text(f"results: {tmp_path / 'unrun'}\ninstances: [packing/l_tromino_cube]\n")
    code, err = _main(capsys, "calibrate", *(a.replace("{tmp}", str(tmp_path)) for a in args))
    assert code == 2 and err.count("\n") == 1 and words.replace("{tmp}", str(tmp_path)) in err, err


@pytest.mark.parametrize("args, words", [
    (["--witness", "{tmp}/none.yaml"], "option --witness: configuration {tmp}/none.yaml: cannot be read"),
    (["--question", "solve", "--write-to", "{tmp}/library.yaml"],
     "option --write-to: the entries are of the families instant_insanity, packing"),
    (["--skip", "instant_insanity/parker_brothers", "--write-to", "/proc/x/library.yaml"],
     "option --write-to: cannot write /proc/x/library.yaml"),
    (["--skip", "instant_insanity/parker_brothers", "--write-to", "{tmp}/other.yaml"],
     "option --write-to: {tmp}/other.yaml: field 'size': unknown field"),
])
def test_options_the_calibration_cannot_follow_are_one_line_and_write_nothing(smoke_config, tmp_path, capsys,
                                                                             args, words):
    (tmp_path / "other.yaml").write_text("size: 3\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, err = _main(capsys, "calibrate", str(smoke_config), "--solvers", "highs", *args)
    assert code == 2 and err.count("\n") == 1 and words.replace("{tmp}", str(tmp_path)) in err, err
    assert not (tmp_path / "library.yaml").exists() and (tmp_path / "other.yaml").read_text() == "size: 3\n"
