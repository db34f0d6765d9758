"""Generators: a challenge with a unique covering, proved independently of the generator."""

from __future__ import annotations

import os

import pytest
import yaml

from conftest import ROOT, run_cli
from pyomo_puzzles import cli
from pyomo_puzzles.core import instances
from pyomo_puzzles.families.packing import dancing_links
from test_plugins import KNAPSACK, install_plugin, plugin_env


def _unique(path) -> bool:
    """Checked by dancing links, independently of the solver that generated it."""
    return dancing_links.count(instances.load(path).spec)["solutions"] == 1


def test_generate_iq_twist_challenge(tmp_path):
    out = tmp_path / "challenge.yaml"
    result = run_cli("generate", "iq_twist", "--pegs", "5", "--seed", "7", "--output", out)
    assert result.returncode == 0, result.stderr
    data = yaml.safe_load(out.read_text())
    assert len(data["pegs"]) == 5 and data["base"] == "packing/iq_twist/empty"
    colours = [p["colour"] for p in data["pegs"]]
    assert all(colours.count(c) <= n for c, n in {"yellow": 2, "blue": 2, "green": 2, "red": 1}.items())
    assert _unique(out)
    again = run_cli("generate", "iq_twist", "--pegs", "5", "--seed", "7")
    assert yaml.safe_load(again.stdout) == data  # the seed fixes the challenge


def test_generate_cube_puzzler_challenge_with_unknown_squares(tmp_path):
    out = tmp_path / "cube.yaml"
    result = run_cli("generate", "cube_puzzler", "--seed", "2", "--unknown", "3", "--output", out)
    assert result.returncode == 0, result.stderr
    data = yaml.safe_load(out.read_text())
    squares = [v for grid in data["faces"].values() for row in grid for v in row]
    assert len(squares) == 18 and squares.count("?") == 3
    assert _unique(out)


def test_generate_rejects_impossible_options():
    result = run_cli("generate", "iq_twist", "--pegs", "9")
    assert result.returncode == 2 and "--pegs must be between 1 and 7" in result.stderr
    result = run_cli("generate", "crossword")
    assert result.returncode == 2 and "no generator 'crossword'" in result.stderr


def test_any_generator_option_can_be_given_as_key_value():
    named = run_cli("generate", "instant_insanity", "--cubes", "6", "--seed", "4")
    generic = run_cli("generate", "instant_insanity", "-O", "cubes=6", "--seed", "4")
    assert named.returncode == generic.returncode == 0, generic.stderr
    assert yaml.safe_load(generic.stdout) == yaml.safe_load(named.stdout)
    assert len(yaml.safe_load(generic.stdout)["cubes"]) == 6


def test_a_wrong_key_value_option_is_one_line_naming_it():
    for args, words in ((["-O", "cubes"], "--option 'cubes': expected KEY=VALUE"),
                        (["-O", "cubes=6", "--cubes", "6"], "--option cubes=... repeats --cubes"),
                        (["-O", "colour=red"], "--colour does not apply to the instant_insanity generator"),
                        (["-O", "cubes=[6"], "--option 'cubes=[6': the value is not a YAML scalar"),
                        (["-O", "cubes=abc"], "option --cubes: expected a whole number, not 'abc'")):
        result = run_cli("generate", "instant_insanity", *args)
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


QUEENS_PLUGIN = ROOT / "tests" / "plugins" / "queens"


def test_a_generator_written_to_the_contract_is_not_given_a_solver():
    # was: TypeError: generate() got an unexpected keyword argument 'solver' (a traceback)
    env = dict(os.environ, PYTHONPATH=str(QUEENS_PLUGIN))
    done = run_cli("generate", "queens", "-O", "n=6", "--seed", "2", env=env)
    assert done.returncode == 0, done.stderr
    data = yaml.safe_load(done.stdout)
    assert data["puzzle"] == "queens" and data["n"] == 6
    assert data["known"] == {"solutions": 4}  # 6 queens: 4 solutions (OEIS A000170)


@pytest.mark.parametrize("args, words", [
    (["polyominoes", "--solver", "scip"], "option --solver does not apply to the polyominoes generator"),
    (["rubik", "-s", "highs"], "option --solver does not apply to the rubik generator"),  # was: ignored
    (["instant_insanity", "-O", "solver=scip"], "option --option solver=...: give --solver"),
])
def test_a_solver_that_a_generator_would_not_use_is_refused(capsys, args, words):
    # was: accepted and ignored (polyominoes, rubik), or "--solver does not apply" to a generator that solves
    code = cli.main(["generate", *args])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err, err


FAULTY_GENERATOR = KNAPSACK.replace("FAMILY = register(Family(", '''
def bag(seed: int) -> dict:
    return {"puzzle": "knapsack", "capacity": 1 // (seed - seed), "items": []}


FAMILY = register(Family(
    generators={"bag": bag},''', 1)


def test_a_generator_that_raises_is_one_line_naming_it(tmp_path):
    # was: a traceback
    site = tmp_path / "site"
    site.mkdir()
    install_plugin(site, "faulty-plugin", "knapsack_faulty", FAULTY_GENERATOR, "knapsack_faulty")
    done = run_cli("generate", "bag", env=plugin_env(site))
    assert done.returncode == 1 and done.stdout == "", done.stdout
    assert done.stderr.splitlines() == [
        "pyomo-puzzles: error: the bag generator raised ZeroDivisionError: integer division or modulo by zero"]
