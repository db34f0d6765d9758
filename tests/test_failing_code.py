"""An error raised in a family's or formulation's own code (a hook, a rule Pyomo rejects, a
checker) is one line from every command, as from `solve`; `--traceback` also prints where it
happened, for the author of that code. And `count -t` covers loading the instance."""

from __future__ import annotations

import time

import pytest

from conftest import SLOW_TO_LOAD, run_cli

RAISING_DECODE = '''\
"""Placement with a decode that raises."""
from pyomo_puzzles.families.packing.model_placement import build_model, model_data, solution_vars  # noqa: F401
FAMILY = "packing"


def decode(spec, model):
    raise ValueError("decode is broken")
'''

REJECTED_RULE = '''\
"""A rule that Pyomo rejects (it returns True, not an expression)."""
import pyomo.environ as pyo
from pyomo_puzzles.families.packing.model_placement import decode  # noqa: F401
FAMILY = "packing"


def build_model():
    model = pyo.AbstractModel()
    model.x = pyo.Var(domain=pyo.Binary)
    model.a_rule_of_a_constant = pyo.Constraint(rule=lambda m: True)
    model.nothing = pyo.Objective(expr=0)
    return model


def model_data(spec):
    return {None: {}}
'''

@pytest.fixture
def formulation(tmp_path):
    def write(text: str) -> str:
        path = tmp_path / "mine.py"
        path.write_text(text)
        return f"{path}:mine"
    return write


def one_line_and_no_traceback(result, words: str) -> None:
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert "Traceback" not in result.stderr, result.stderr
    assert any(words in line for line in lines), result.stdout + result.stderr


def test_count_with_a_hook_that_raises_is_one_line(formulation):
    # was: a traceback
    done = run_cli("count", "packing/l_tromino_cube", "-f", formulation(RAISING_DECODE), "-q")
    assert done.returncode == 1 and done.stderr == "", done.stderr
    assert done.stdout.strip().splitlines() == [
        "packing/l_tromino_cube: 0 solutions; INCOMPLETE (error: ValueError: decode is broken); 1 solves, "
        + done.stdout.split("1 solves, ")[1].strip()]


def test_traceback_shows_where_the_hook_raised(formulation):
    done = run_cli("--traceback", "count", "packing/l_tromino_cube", "-f", formulation(RAISING_DECODE), "-q")
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr and 'mine.py", line 7, in decode' in done.stderr
    assert "INCOMPLETE (error: ValueError: decode is broken)" in done.stdout


@pytest.mark.parametrize("command", ["export", "solve", "count"])
def test_a_rule_pyomo_rejects_is_one_line(formulation, tmp_path, command):
    # was: a traceback (export, count), and Pyomo's multi-line log before solve's line
    extra = {"export": ["-d", str(tmp_path / "out")], "solve": [], "count": ["-q"]}[command]
    name = formulation(REJECTED_RULE)
    if command == "count":
        name = formulation(REJECTED_RULE + "\n\ndef solution_vars(spec, model, solution):\n    return []\n")
    done = run_cli(command, "packing/l_tromino_cube", "-f", name, *extra)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len((done.stdout + done.stderr).strip().splitlines()) == 1, done.stdout + done.stderr
    one_line_and_no_traceback(done, "a_rule_of_a_constant")  # the line names the rejected constraint


def test_the_count_time_limit_covers_loading(tmp_path):
    # was: a load of about a minute with -t 2 ran to its end, then counted: "complete"
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW_TO_LOAD)
    started = time.perf_counter()
    done = run_cli("count", path, "-t", "2", "-q")
    took = time.perf_counter() - started
    assert done.returncode == 1 and "INCOMPLETE (time limit reached while loading the instance" in done.stdout
    assert took < 30, f"{took:.1f} s for a 2 s limit (loading takes about a minute)"


def test_a_run_killed_before_its_data_file_is_read_says_no_formulation_was_chosen(tmp_path):
    # was: "big.yaml [] on highs: memory_limit ..."
    path = tmp_path / "big.yaml"
    head = "puzzle: packing\nboard:\n  size: [3, 3, 3]\npieces:\n  - name: L\n    cells: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]\n"
    path.write_text(head + "    count: 9\nnotes:\n" + ("  - " + "x" * 4000 + "\n") * 20_000)  # 80 MB
    done = run_cli("solve", path, "--memory-limit", "200", "-t", "60")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith(f"{path} [formulation not chosen yet] on highs: memory_limit"), done.stdout
