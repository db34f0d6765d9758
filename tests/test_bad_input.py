"""A wrong data file or argument gets one line naming the file and field, and exit code 2."""

from __future__ import annotations

import pytest

from conftest import run_cli

GOOD = """\
puzzle: packing
board:
  size: [3, 3, 3]
pieces:
  - name: L
    cells: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    count: 9
"""


@pytest.mark.parametrize("text, field, words", [
    (GOOD + "colour: red\n", "colour", "unknown field"),
    (GOOD.replace("cells:", "cell:"), "pieces[0].cell", "unknown field"),
    (GOOD.replace("size: [3, 3, 3]", "size: [3, 3, 3]\n  holes: [[3, 0, 0]]").replace("count: 9", "count: 9"),
     "board.holes[0]", "off the board"),
    (GOOD.replace("[0, 1, 0]]", "[0, 1]]"), "pieces[0].cells[2]", "coordinates"),
    (GOOD.replace("count: 9", "count: 8"), "pieces", "24 cells"),
    (GOOD.replace("count: 9", "count: nine"), "pieces[0].count", "not of type"),
    (GOOD.replace("puzzle: packing", "puzzle: pakcing"), "puzzle", "must be one of"),
    (GOOD.replace("size: [3, 3, 3]", "size: [3, 3, 3, 3]"), "board.size", "too long"),
    (GOOD.replace("[0, 1, 0]]", "[0, 2, 0]]"), "pieces[0].cells", "not connected"),
    (GOOD.replace("- name: L", "- name: L\n    count: 1").replace("    count: 9\n", ""), "pieces", ""),
    (GOOD.replace("pieces:", "pieces: [\n"), "<file>", "not valid YAML"),
])
def test_bad_data_file_gives_one_line_error(write_instance, text, field, words):
    path = write_instance(text)
    result = run_cli("solve", path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(path) in lines[0] and f"'{field}'" in lines[0] and words in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["solve", "packing/l_tromino_cube", "--solver", "cplx"], "unknown solver 'cplx'"),
    (["solve", "packing/l_tromino_cub"], "no instance 'packing/l_tromino_cub'"),
    (["solve", "packing/l_tromino_cube", "--formulation", "cells"], "unknown formulation 'cells'"),
    (["count", "packing/l_tromino_cube", "-f", "cell_assignment"], "cannot enumerate"),
    (["export", "packing/l_tromino_cube", "--format", "xls"], "unknown export format"),
    (["solve", "packing/l_tromino_cube", "--solver", "pyomo:nosuch"], "Pyomo has no solver named 'nosuch'"),
    (["count", "packing/l_tromino_cube", "--solver", "scipp"], "unknown solver 'scipp'"),
])
def test_bad_arguments_give_one_line_error(args, words):
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr


def test_bad_time_limit_is_rejected_by_the_parser():
    result = run_cli("solve", "packing/l_tromino_cube", "--time-limit", "-3")
    assert result.returncode == 2 and "must be positive" in result.stderr


@pytest.mark.parametrize("option, value, words", [
    ("--threads", "0", "argument --threads: must be positive"),
    ("--seed", "-1", "argument --seed: must be 0 or more"),
    ("--permutation", "two", "argument --permutation: not a whole number: 'two'"),
    ("--memory-limit", "0", "argument --memory-limit: must be positive"),
    ("--gap", "-0.1", "argument --gap: must be positive"),
])
def test_impossible_numbers_are_rejected_naming_the_option(option, value, words):
    result = run_cli("solve", "packing/l_tromino_cube", option, value)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["solve", "packing/l_tromino_cube", "-t", "0"], "argument --time-limit/-t: must be positive"),
    (["solve", "packing/l_tromino_cube", "-t", "nan"], "argument --time-limit/-t: must be positive"),
    (["count", "packing/l_tromino_cube", "--limit", "-1"], "argument --limit: must be positive"),
    (["count", "packing/l_tromino_cube", "--limit", "0"], "argument --limit: must be positive"),
    (["count", "packing/l_tromino_cube", "--split", "-2"], "argument --split: must be 0 or more"),
    (["count", "packing/l_tromino_cube", "--threads", "0"], "argument --threads: must be positive"),
    (["generate", "instant_insanity", "--cubes", "0"], "argument --cubes: must be positive"),
    (["generate", "iq_twist", "--pegs", "-1"], "argument --pegs: must be 0 or more"),
    (["generate", "rubik", "--depth", "-2"], "argument --depth: must be 0 or more"),
    (["solve"], "the following arguments are required: instance"),
    (["solve", "packing/l_tromino_cube", "--frobnicate"], "unrecognized arguments: --frobnicate"),
])
def test_numeric_options_are_checked_where_they_are_parsed(capsys, args, words):
    from pyomo_puzzles import cli

    with pytest.raises(SystemExit) as stop:
        cli.main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and words in err, err


def test_check_with_broken_solution_file(tmp_path):
    bad = tmp_path / "solution.json"
    bad.write_text("{not json")
    result = run_cli("check", "packing/l_tromino_cube", bad)
    assert result.returncode == 2 and str(bad) in result.stderr and "not valid JSON" in result.stderr
