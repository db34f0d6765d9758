"""A wrong data file or argument gets one line naming the file and field, and exit code 2."""

from __future__ import annotations

import time

import pytest

from conftest import run_cli
from pyomo_puzzles.core import instances

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
    ("--threads", "0", "argument --threads: must be between 1 and 1024"),
    ("--seed", "-1", "argument --seed: must be between 0 and 2147483647"),
    ("--permutation", "two", "argument --permutation: not a whole number: 'two'"),
    ("--memory-limit", "0", "argument --memory-limit: must be positive"),
    ("--gap", "-0.1", "argument --gap: must be positive"),
])
def test_impossible_numbers_are_rejected_naming_the_option(option, value, words):
    result = run_cli("solve", "packing/l_tromino_cube", option, value)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("args, words", [
    (["solve", "packing/l_tromino_cube", "-t", "0"], "argument --time-limit/-t: must be positive and finite"),
    (["solve", "packing/l_tromino_cube", "-t", "nan"], "argument --time-limit/-t: must be positive"),
    (["count", "packing/l_tromino_cube", "--limit", "-1"], "argument --limit: must be positive"),
    (["count", "packing/l_tromino_cube", "--limit", "0"], "argument --limit: must be positive"),
    (["count", "packing/l_tromino_cube", "--split", "-2"], "argument --split: must be 0 or more"),
    (["count", "packing/l_tromino_cube", "--threads", "0"], "argument --threads: must be between 1 and 1024"),
    (["generate", "instant_insanity", "--cubes", "0"], "argument --cubes: must be positive"),
    (["generate", "iq_twist", "--pegs", "-1"], "argument --pegs: must be 0 or more"),
    (["generate", "rubik", "--depth", "-2"], "argument --depth: must be 0 or more"),
    (["solve", "packing/l_tromino_cube", "-t", "inf"], "argument --time-limit/-t: must be positive and finite"),
    (["solve", "packing/l_tromino_cube", "--gap", "inf"], "argument --gap: must be positive and finite"),
    (["solve", "packing/l_tromino_cube", "--threads", "1000000000"], "argument --threads: must be between 1 and 1024"),
    (["count", "packing/l_tromino_cube", "--seed", "2147483648"], "argument --seed: must be between 0 and 2147483647"),
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


# --- defects found by the fuzz tests (tests/test_fuzz.py), one regression test each ---------

def _main(capsys, *args) -> tuple[int, str, str]:
    """`pyomo-puzzles ARGS` in this process: (exit code, stdout, stderr)."""
    from pyomo_puzzles import cli

    try:
        code = cli.main([str(a) for a in args])
    except SystemExit as stop:
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(capsys, path, field: str, words: str = "", *args) -> str:
    """Check PATH (with a dummy solution) and require one line naming it and `field`."""
    dummy = path.parent / "dummy_solution.json"
    dummy.write_text("{}")
    code, _, err = _main(capsys, *(args or ("check", path, dummy)))
    assert code == 2 and err.count("\n") == 1, err
    assert str(path) in err and f"field '{field}'" in err and words in err, err
    return err


def test_data_file_that_is_not_utf8_is_one_line_error(tmp_path, capsys):
    path = tmp_path / "instance.yaml"
    path.write_bytes(GOOD.encode("utf-16"))  # was: UnicodeDecodeError traceback
    _refused(capsys, path, "<file>", "not UTF-8")


@pytest.mark.parametrize("raw", ["2020-13-45", "!!int abc", "!!float x", "!!timestamp x", "!!bool maybe"])
def test_yaml_values_pyyaml_cannot_build_are_one_line_errors(tmp_path, capsys, raw):
    path = tmp_path / "instance.yaml"
    path.write_text(GOOD + f"title: {raw}\n")  # was: ValueError/KeyError/AttributeError traceback
    _refused(capsys, path, "<file>", "not valid YAML")


@pytest.mark.parametrize("name, text", [
    ("deep.yaml", "[" * 100 + "]" * 100),
    ("deep.json", "[" * 100 + "]" * 100),
    ("deep_mappings.yaml", "{a: " * 100 + "1" + "}" * 100),
    ("deep_blocks.yaml", "".join(" " * k + "- \n" for k in range(0, 200, 2)) + " " * 200 + "- 1\n"),
])
def test_data_file_nested_past_the_limit_is_refused(tmp_path, capsys, name, text):
    path = tmp_path / name
    path.write_text(text)
    _refused(capsys, path, "<file>", "more than 64 deep")


@pytest.mark.parametrize("name", ["deep.yaml", "deep.json"])
def test_data_file_nested_beyond_what_parsers_take_is_one_line_error(tmp_path, capsys, name):
    # 100,000 deep: was a segmentation fault (YAML) and a RecursionError traceback (JSON).
    # The parser may refuse such a file before the project's own limit is reached (libyaml
    # in PyYAML 6.0.4 does, past 1,000): whichever says no, the answer is one line naming
    # the file, exit 2, no traceback; its wording is the parser's, so it is not pinned here.
    path = tmp_path / name
    path.write_text("[" * 100_000 + "]" * 100_000)
    err = _refused(capsys, path, "<file>")
    assert "Traceback" not in err


def test_yaml_alias_bomb_is_refused_at_once(tmp_path, capsys):
    lines = ["puzzle: packing", 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi")]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines + ["pieces: [{name: L, cells: *i}]", ""]))  # was: hung (9^9 values)
    _refused(capsys, path, "<file>", "more than 1,000,000 values")


@pytest.mark.parametrize("value", ["[packing]", "{a: 1}"])
def test_puzzle_field_of_the_wrong_type_is_one_line_error(write_instance, capsys, value):
    path = write_instance(GOOD.replace("puzzle: packing", f"puzzle: {value}"))  # was: TypeError (unhashable)
    _refused(capsys, path, "puzzle", "must be one of")


@pytest.mark.parametrize("text, field", [
    (GOOD.replace("size: [3, 3, 3]", "size: [3.5, 3, 3]"), "board.size[0]"),
    (GOOD.replace("count: 9", "count: 9.5"), "pieces[0].count"),
    ("puzzle: rubik\nsize: 2.5\nmetric: htm\nscramble: R\n", "size"),
])
def test_a_fraction_where_an_integer_belongs_is_refused(write_instance, capsys, text, field):
    _refused(capsys, write_instance(text), field, "integer")  # the rest of the sentence is jsonschema's


@pytest.mark.parametrize("text, field, value", [
    (GOOD.replace("size: [3, 3, 3]", "size: [3.0, 3, 3]"), ("board", "size"), [3, 3, 3]),
    (GOOD.replace("count: 9", "count: 9.0"), ("pieces", 0, "count"), 9),
    ("puzzle: rubik\nsize: 2.0\nmetric: htm\nscramble: R\n", ("size",), 2),
])
def test_a_whole_number_written_with_a_decimal_point_is_that_integer(write_instance, text, field, value):
    """JSON Schema counts 9.0 as an integer; so does the framework, and the loader gets the int
    (before: refused, and before that "the packing loader failed" counting with a float)."""
    instance = instances.load(write_instance(text))
    found = instance.raw
    for key in field:
        found = found[key]
    assert found == value and all(type(v) is int for v in (found if isinstance(found, list) else [found]))


@pytest.mark.parametrize("extra, field", [
    ("1: x\n~: y\n", "1"),  # was: TypeError sorting the unknown keys
    ("", "pieces[0].marks"),
])
def test_keys_that_are_not_strings_are_one_line_errors(write_instance, capsys, extra, field):
    text = GOOD + extra if extra else GOOD.replace("count: 9", "count: 9\n    marks: {1: [[0, 0, 0]], ring: [[1, 0, 0]]}")
    _refused(capsys, write_instance(text), field)  # the marks: was "the packing loader failed: TypeError"


def test_a_file_that_is_its_own_base_is_refused(write_instance, capsys):
    path = write_instance(GOOD + "base: instance.yaml\n")  # was: "the packing loader failed: RecursionError"
    _refused(capsys, path, "base", "cycle of bases")


def test_an_invalid_base_is_reported_on_the_users_file(write_instance, capsys):
    path = write_instance("puzzle: packing\nbase: instant_insanity/parker_brothers\n")
    err = _refused(capsys, path, "base", "parker_brothers.yaml")  # was: named only the shipped file
    assert "field 'colours': unknown field" in err


@pytest.mark.parametrize("text", [
    GOOD + '"a\\nb": 1\n',  # a misspelt field with a newline in its name: was two lines
    'puzzle: instant_insanity\ncolours: ["a\\nb", c]\ncubes: [[a, a, a, a, a, a], [c, c, c, c, c, c]]\n'
    "question: all_different\n",  # a colour with a newline, echoed in the message: was two lines
])
def test_names_with_newlines_stay_on_one_line(write_instance, capsys, text):
    dummy = write_instance("{}", "solution.json")
    code, _, err = _main(capsys, "check", write_instance(text), dummy)
    assert code == 2 and err.count("\n") == 1 and "a\\nb" in err, err


def test_instance_argument_too_long_for_a_file_name(capsys):
    code, _, err = _main(capsys, "check", "a" * 300, "solution.json")  # was: OSError traceback
    assert code == 2 and err.count("\n") == 1 and "no instance" in err, err


@pytest.mark.parametrize("content, words", [
    ('{"pieces": []}'.encode("utf-16"), "not UTF-8"),  # was: UnicodeDecodeError traceback
    (b"[" * 100_000 + b"]" * 100_000, "more than 64 deep"),  # was: RecursionError traceback
])
def test_solution_file_not_utf8_or_nested_too_deep(tmp_path, capsys, content, words):
    path = tmp_path / "solution.json"
    path.write_bytes(content)
    code, _, err = _main(capsys, "check", "packing/l_tromino_cube", path)
    assert code == 2 and err.count("\n") == 1 and str(path) in err and words in err, err


@pytest.mark.parametrize("instance, solution, words", [
    ("packing/l_tromino_cube", {"pieces": [{"piece": ["L"], "cells": []}]}, "unknown piece ['L']"),
    ("packing/l_tromino_cube", {"pieces": [{"piece": "L", "cells": [[[0], 0, 0]]}]}, "cells must be"),
    ("packing/l_tromino_cube", {"pieces": [{"piece": "L", "cells": []}]}, "cells must be a non-empty list"),
    ("packing/iq_twist/challenge_19", {"pieces": [{"piece": "red1", "cells": [[0, 0], [1, 0], [1, 1], [2, 1]],
                                                   "marks": [1]}]}, "marks must map"),
    ("instant_insanity/parker_brothers",
     {"stack": [{"cube": k, "faces": [1, 2, "x", 4, 5, 6]} for k in range(1, 5)]}, "is not a rotation"),
    ("instant_insanity/parker_brothers",
     {"stack": [{"cube": k, "faces": "a\nb"} for k in range(1, 5)]}, "faces 'a\\nb' is not a rotation"),
    ("instant_insanity/parker_brothers",
     {"stack": [{"cube": k, "faces": [1, 2, 3, 4, 5, 6], "sides": 3} for k in range(1, 5)]}, "sides 3 are not"),
    ("rubik/htm_depth_03", {"moves": ["R2", "F2", "R'\n"]}, "unknown move"),  # was accepted as R'
])
def test_checkers_read_malformed_solutions(tmp_path, capsys, instance, solution, words):
    import json

    path = tmp_path / "solution.json"
    path.write_text(json.dumps(solution))  # each was: "INVALID: checker could not read the solution: ...Error"
    code, out, _ = _main(capsys, "check", instance, path)
    lines = out.splitlines()
    assert code == 1 and all(line.startswith("INVALID: ") for line in lines) and words in out, out
    assert "checker could not read" not in out


@pytest.mark.parametrize("args, words", [
    (["-d", "{tmp}/a_file"], "option --output-dir: {tmp}/a_file is a file"),  # was: FileExistsError traceback
    (["-d", ""], "option --output-dir: empty"),  # was: wrote the files into the working folder
    (["--format", ""], "option --format: unknown export format ''"),  # was: wrote every format
    (["-d", "/proc/x"], "option --output-dir: cannot make the folder /proc/x"),
])
def test_export_options_that_cannot_work(tmp_path, capsys, args, words):
    (tmp_path / "a_file").write_text("")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err = _main(capsys, "export", "packing/l_tromino_cube", "--format", "dat", *args)
    assert code == 2 and err.count("\n") == 1 and words.replace("{tmp}", str(tmp_path)) in err, err


def test_generate_refuses_more_cubes_than_an_instance_may_hold(capsys):
    code, _, err = _main(capsys, "generate", "instant_insanity", "--cubes", "1000000000")  # was: ran out of memory
    assert code == 2 and err.count("\n") == 1 and "--cubes must be at most 1,000" in err, err


@pytest.mark.parametrize("change, key", [
    ({"time_limit": float("inf")}, "time_limit"),
    ({"gap": float("nan")}, "gap"),
    ({"batch": 2.0}, "batch"),  # was: TypeError in experiment.batches
    ({"processes": "per_job"}, "processes"),  # per_batch or per_run
    ({"repeats": 1.0}, "repeats"),  # was: TypeError in experiment.matrix
    ({"repeats": 10 ** 7}, "repeats"),  # was: matrix ran out of memory
    ({"results": ""}, "results"),  # was accepted: records would go to /runs/...
    ({"threads": 10 ** 9}, "threads"),
    ({"seeds": [2 ** 64]}, "seeds.0"),
    ({"figures": {"text_width_pt": float("inf")}}, "figures.text_width_pt"),
    ({"figures": {"view": "formulation"}}, "figures.view"),  # auto, formulations or methods
    ({"statistics": {"resamples": 10 ** 12}}, "statistics.resamples"),
    ({"instances": [{"generator": "instant_insanity", "seeds": [1], "options": {"cubes": "x"}}]},
     "instances.0.options.cubes"),
    ({"instances": [{"generator": "instant_insanity", "seeds": [-5]}]}, "instances.0.seeds.0"),
    ({1: "x", None: "y"}, "1"),  # was: TypeError sorting the unknown keys
])
def test_configuration_nonsense_is_refused_naming_the_key(change, key):
    import yaml

    from conftest import ROOT
    from pyomo_puzzles import experiment

    config = {**yaml.safe_load((ROOT / "workflows/config/smoke.yaml").read_text()), **change}
    with pytest.raises(experiment.ConfigError) as refused:
        experiment.validate_config(config, ROOT / "workflows/schemas/config.schema.yaml")
    assert f"configuration key '{key}'" in str(refused.value) and "\n" not in str(refused.value)


def test_a_field_name_with_a_quote_is_escaped(write_instance, capsys):
    path = write_instance(GOOD + "\"'\": 1\n")  # was: field ''': the name could not be told from the quotes
    _refused(capsys, path, "\\'", "unknown field")


def test_a_split_too_fine_to_walk_is_refused_at_once(capsys):
    # found by the long fuzz run: --split 1000 walked 16^27 combinations and never ended
    from pyomo_puzzles import cli

    started = time.perf_counter()
    assert cli.main(["count", "packing/l_tromino_cube", "--split", "1000", "-q", "-t", "5"]) == 2
    err = capsys.readouterr().err
    assert time.perf_counter() - started < 10
    assert err.count("\n") == 1 and "option --split: 1000 partitions make" in err, err


@pytest.mark.parametrize("args, words", [
    (["new-family", "tiles", "--path", "/proc/x"], "option --path: cannot write /proc/x"),
    (["solve", "packing/l_tromino_cube", "-o", "a" * 300 + ".json"], "File name too long"),
])
def test_outputs_that_cannot_be_written_are_one_line_errors(tmp_path, monkeypatch, capsys, args, words):
    # found by the fuzz tests: both ended in an OSError traceback
    from pyomo_puzzles import cli

    monkeypatch.chdir(tmp_path)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_a_board_too_large_for_memory_is_refused_even_when_nothing_fits(write_instance, capsys):
    # found by the fuzz tests: 0 placements passed the placement bound, then a 10^9-cell board was built
    path = write_instance(GOOD.replace("size: [3, 3, 3]", "size: [1000000000, 1, 1]"))
    _refused(capsys, path, "board.size", "1,000,000,000 cells")


def test_the_cli_leaves_the_sigterm_handler_as_it_found_it():
    import signal

    from pyomo_puzzles import cli

    before = signal.getsignal(signal.SIGTERM)
    assert cli.main(["check", "packing/l_tromino_cube", "/nonexistent.json"]) == 2
    assert signal.getsignal(signal.SIGTERM) is before
