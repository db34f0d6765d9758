"""Property-based fuzzing (Hypothesis) of everything a user hands pyomo-puzzles.

The promise under test (issue 16): any wrong data file, solution file, experiment
configuration or command-line argument gets exactly one line on stderr naming the file
(or option) and the field, and exit code 2 -- never a Python traceback, never a hang.

Four targets, each a property run twice: a quick, derandomised run in the default test
session (all four in about 40 s) and a long run marked ``fuzz``:

  data files      the shipped instance files of every registered family, mutated (fields
                  dropped, misspelt, retyped, out of range, wrapped in a list or mapping,
                  lists blown up; the file empty, not a mapping, not UTF-8, binary, with a
                  NUL byte, cut short, nested deeply, an alias bomb, raw YAML tags, a `base`
                  that is itself or anything else), through ``pyomo-puzzles check`` (with a
                  dummy solution), ``export --format dat`` or ``solve -t 2``;
  solution files  valid solutions of shipped instances, mutated the same way (and wrapped
                  in run records), through ``pyomo-puzzles check``;
  configurations  workflows/config/*.yaml, mutated, through experiment.validate_config,
                  matrix, count_jobs and batches, as workflows/rules/common.smk calls them;
  argument lists  the subcommands with option values of the wrong type, sign or size,
                  unknown options, missing paths, folders, unwritable outputs and picture
                  suffixes nobody draws.

Everything runs in this process through `pyomo_puzzles.cli.main` on real files; a
mutation that leaves the input valid is fine, as long as the command then works.
Run:

  pytest tests/test_fuzz.py --hypothesis-show-statistics            # quick (default run)
  pytest -m fuzz tests/test_fuzz.py --hypothesis-show-statistics    # long
  PYOMO_PUZZLES_FUZZ_SCALE=10 pytest -m fuzz tests/test_fuzz.py     # ten times longer
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st

from pyomo_puzzles import cli, experiment
from pyomo_puzzles.core import instances, registry

ROOT = Path(__file__).resolve().parents[1]
CONFIG_SCHEMA = ROOT / "workflows" / "schemas" / "config.schema.yaml"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = cli.EXIT_OK, cli.EXIT_FAILED, cli.EXIT_USAGE

# --- budgets ------------------------------------------------------------------------------

_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
           HealthCheck.large_base_example]
settings.register_profile("pyomo-puzzles-quick", derandomize=True, database=None, print_blob=True,
                          deadline=timedelta(seconds=10), suppress_health_check=_HEALTH)
settings.register_profile("pyomo-puzzles-long", print_blob=True, deadline=timedelta(seconds=15),
                          suppress_health_check=_HEALTH)
QUICK = settings.get_profile("pyomo-puzzles-quick")
LONG = settings.get_profile("pyomo-puzzles-long")


def long_budget(examples: int) -> int:
    """The long run's examples for a target, times PYOMO_PUZZLES_FUZZ_SCALE (default 1)."""
    return max(1, round(examples * float(os.environ.get("PYOMO_PUZZLES_FUZZ_SCALE", "1"))))


# --- running the CLI in this process --------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What `cli.main` did: its exit code and what it printed."""

    code: Any
    stdout: str
    stderr: str


def run_cli(argv: list[str]) -> Outcome:
    """`pyomo-puzzles ARGV` in this process; an exception escaping `main` is not caught."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as stop:
            code = stop.code
    return Outcome(code, out.getvalue(), err.getvalue())


def the_one_error_line(outcome: Outcome) -> str:
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, f"exit 2 wants one line on stderr, got {len(lines)}:\n{outcome.stderr}"
    return lines[0]


def assert_refusal_names_file_and_field(outcome: Outcome, path: Path) -> None:
    line = the_one_error_line(outcome)
    assert str(path) in line, f"the error does not name the file {path}: {line}"
    assert re.search(r"field '(?:[^'\\]|\\.)+'", line), f"the error names no field: {line}"
    assert "loader failed" not in line, f"a loader crashed (the schema let this through): {line}"


# --- mutations of a document (a tree of mappings, lists and scalars) -----------------------

Where = tuple  # keys and list positions from the root


def locations(tree: Any, where: Where = ()) -> list[Where]:
    """Every node of the tree, the root first."""
    found = [where]
    if isinstance(tree, dict):
        for key, value in tree.items():
            found += locations(value, where + (key,))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            found += locations(value, where + (index,))
    return found


def value_at(tree: Any, where: Where) -> Any:
    for step in where:
        tree = tree[step]
    return tree


def unshared_copy(tree: Any) -> Any:
    """A deep copy in which no list or mapping appears twice (`copy.deepcopy` keeps the
    sharing that `blow_up` creates, so changing one item would change thousands)."""
    if isinstance(tree, dict):
        return {key: unshared_copy(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [unshared_copy(value) for value in tree]
    return tree


def with_value(tree: Any, where: Where, value: Any) -> Any:
    if not where:
        return value
    tree = unshared_copy(tree)
    value_at(tree, where[:-1])[where[-1]] = value
    return tree


def without(tree: Any, where: Where) -> Any:
    if not where:
        return {}
    tree = unshared_copy(tree)
    del value_at(tree, where[:-1])[where[-1]]
    return tree


def renamed(tree: Any, where: Where, new_key: Any) -> Any:
    tree = unshared_copy(tree)
    parent = value_at(tree, where[:-1])
    items = [(new_key if key == where[-1] else key, value) for key, value in parent.items()]
    parent.clear()
    parent.update(items)
    return tree


PLAUSIBLE_WORDS = ["packing", "rubik", "instant_insanity", "highs", "higs", "dlx", "pyomo:nosuch", "pyomo:",
                   "placement", "rotations", "x.py:NAME", "FILE.py:", ":", "packing/*", "packing/[",
                   "packing/l_tromino_cube", "nosuch/x", "?", "", " ", "-1", "1e309", "yes", "null",
                   "U R F", "R2'", "red", "ring", "fixed", "any", "all_equal", "htm", "qtm"]
SCALARS = st.one_of(
    st.text(max_size=20), st.sampled_from(PLAUSIBLE_WORDS), st.integers(), st.booleans(), st.none(),
    st.floats(allow_nan=True, allow_infinity=True), st.dates(),
)
ANY_VALUE = st.one_of(
    SCALARS,
    st.lists(SCALARS, max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=10), st.sampled_from(PLAUSIBLE_WORDS)), SCALARS, max_size=3),
    st.lists(st.lists(st.integers(-3, 5), max_size=4), max_size=4),
)
OUT_OF_RANGE = [-1, 0, -(10 ** 9), 10 ** 9, 2 ** 64, -(2 ** 63), 0.5, 2.0, -0.0, 1e308, 1e-9,
                math.inf, -math.inf, math.nan]


def misspellings(word: str) -> st.SearchStrategy[str]:
    """The key mistyped: a letter swapped, lost, doubled, upper-cased, or another word."""
    variants = [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)]
    variants += [word[:i] + word[i + 1:] for i in range(len(word))]
    variants += [word + "s", word.upper(), word.capitalize(), word + " ", word.replace("_", "-")]
    return st.one_of(st.sampled_from([v for v in variants if v != word] or ["x"]), st.text(max_size=12))


def drop(draw, tree: Any, where: Where) -> tuple[str, Any]:
    return f"drop {list(where)}", without(tree, where)


def misspell(draw, tree: Any, where: Where) -> tuple[str, Any]:
    if not where or not isinstance(value_at(tree, where[:-1]), dict):
        return wrap(draw, tree, where)
    key = where[-1]
    new_key = draw(misspellings(str(key)) if isinstance(key, str) else st.sampled_from([str(key), None]))
    if new_key in value_at(tree, where[:-1]):
        return drop(draw, tree, where)
    return f"rename {list(where)} to {new_key!r}", renamed(tree, where, new_key)


def retype(draw, tree: Any, where: Where) -> tuple[str, Any]:
    value = draw(ANY_VALUE)
    return f"set {list(where)} to {value!r}", with_value(tree, where, value)


def out_of_range(draw, tree: Any, where: Where) -> tuple[str, Any]:
    value = draw(st.sampled_from(OUT_OF_RANGE))
    return f"set {list(where)} to {value!r}", with_value(tree, where, value)


def wrap(draw, tree: Any, where: Where) -> tuple[str, Any]:
    old = value_at(tree, where)
    value = draw(st.sampled_from([[old], {"value": old}, [[old]], {str(where[-1]) if where else "x": old}]))
    return f"wrap {list(where)} as {type(value).__name__}", with_value(tree, where, value)


MAX_TREE_VALUES = 50_000
"""A mutated document holds at most this many values: blowing up a list inside a blown-up
list would otherwise make files of gigabytes (a test of the disk, not of the loaders)."""


def values_in(tree: Any, limit: int = MAX_TREE_VALUES + 1) -> int:
    """How many values (scalars, lists, mappings) the tree holds, counted up to `limit`."""
    count, todo = 0, [tree]
    while todo and count < limit:
        value = todo.pop()
        count += 1
        if isinstance(value, dict):
            todo += value.values()
        elif isinstance(value, list):
            todo += value
    return count


def blow_up(draw, tree: Any, where: Where) -> tuple[str, Any]:
    """A list made huge (its items repeated), or a value replaced by a huge list of itself,
    as long as the document stays under MAX_TREE_VALUES."""
    old = value_at(tree, where)
    length = draw(st.sampled_from([100, 1000, 5000]))
    items = old if isinstance(old, list) and old else [old]
    room = (MAX_TREE_VALUES - values_in(tree)) // max(1, values_in(items) // len(items))
    length = min(length, max(0, room))
    if length <= len(items):
        return f"blow {list(where)} up: no room", tree
    value = (items * (length // len(items) + 1))[:length]
    return f"blow {list(where)} up to {length} items", with_value(tree, where, value)


TREE_MUTATIONS: list[Callable] = [drop, misspell, retype, out_of_range, wrap, blow_up]


@st.composite
def mutated(draw, tree: Any, mutations: int = 3) -> tuple[tuple[str, ...], Any]:
    """One to `mutations` mutations of the tree, at nodes chosen anywhere in it (half of
    the time among the fields near the top, which long lists would otherwise drown)."""
    how = []
    for _ in range(draw(st.integers(1, mutations))):
        everywhere = locations(tree)
        near_the_top = [where for where in everywhere if len(where) <= 2]
        where = draw(st.sampled_from(near_the_top if draw(st.booleans()) else everywhere))
        mutation = draw(st.sampled_from(TREE_MUTATIONS))
        description, tree = mutation(draw, tree, where)
        how.append(description)
        event(f"mutation: {mutation.__name__}")
    return tuple(how), tree


# --- whole files -------------------------------------------------------------------------

def rendered(tree: Any, suffix: str) -> bytes:
    """The tree as the file's format would hold it."""
    if suffix == ".json":
        return json.dumps(tree, default=str).encode()
    return yaml.safe_dump(tree, sort_keys=False, allow_unicode=True).encode()


ALIAS_BOMB = "\n".join(
    ["puzzle: packing", 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    + [f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]" for a, b in zip("abcdefgh", "bcdefghi")]
    + ["title: *i", "pieces: [{name: L, cells: *i}]", ""]).encode()
RAW_YAML_VALUES = ["2020-13-45", "2020-02-30", "!!int abc", "!!float x", "!!timestamp x", "!!bool maybe",
                   "!!int 0o8", "!!binary aGVsbG8=", "!!set {a, b}", "!!omap [a: 1]", "!!python/object:os.system x",
                   "*nowhere", "&anchor", "0x1F", "1_000", ".nan", "-.inf", "~", "[", "'", '"\\x"', "{a: 1, a: 2}",
                   "!!null x", "!<tag:yaml.org,2002:int> 99999999999999999999", "|\n  two\n  lines"]


def nested(depth: int, suffix: str) -> bytes:
    kind = depth % 2
    if kind or suffix == ".json":
        return b"[" * depth + b"]" * depth
    return b"{a: " * depth + b"1" + b"}" * depth


def with_title(text: bytes, raw: str) -> bytes:
    """The file with its title (or a new one) written as the raw YAML `raw`."""
    line = f"title: {raw}".encode()
    if re.search(rb"(?m)^title:", text):
        return re.sub(rb"(?m)^title:.*$", lambda _: line, text)
    return text + b"\n" + line + b"\n"


def whole_file_contents(text: bytes, suffix: str) -> st.SearchStrategy[tuple[str, bytes]]:
    """Contents that are wrong as a whole: empty, not a mapping, not text, cut, nested, ..."""
    spots = st.integers(0, len(text))
    return st.one_of(
        st.sampled_from([("empty file", b""), ("comment only", b"# nothing\n"), ("empty mapping", b"{}"),
                         ("top level a list", b"- a\n- b\n"), ("top level a string", b"packing\n"),
                         ("top level a number", b"42\n"), ("top level null", b"null\n"),
                         ("UTF-16", text.decode().encode("utf-16")), ("alias bomb", ALIAS_BOMB),
                         ("Latin-1 letter", text.replace(b"\n", "# caf\xe9\n".encode("latin-1"), 1))]),
        spots.map(lambda at: ("NUL byte", text[:at] + b"\0" + text[at:])),
        spots.map(lambda at: ("byte 0xff", text[:at] + b"\xff" + text[at:])),
        spots.map(lambda at: ("cut short", text[:at])),
        st.binary(min_size=1, max_size=200).map(lambda garbage: ("binary garbage", garbage)),
        st.sampled_from([2, 50, 101, 1000, 100_000]).map(lambda depth: (f"nested {depth} deep",
                                                                         nested(depth, suffix))),
        st.sampled_from(RAW_YAML_VALUES).map(lambda raw: (f"raw YAML {raw!r}",
                                                          text + f"\nextra: {raw}\n".encode())),
        st.sampled_from(RAW_YAML_VALUES).map(lambda raw: (f"raw YAML title {raw!r}", with_title(text, raw))),
    )


@dataclass(frozen=True)
class FileCase:
    """A file to hand the CLI: made from `seed` by `how`."""

    seed: str
    how: tuple[str, ...]
    suffix: str
    content: bytes


# --- target a: data files ------------------------------------------------------------------

PREFERRED_SEEDS = ("packing/l_tromino_cube", "packing/iq_twist/empty", "packing/iq_twist/challenge_19",
                   "packing/cube_puzzler/example_pieces", "instant_insanity/parker_brothers",
                   "instant_insanity/parker_brothers_any_order", "rubik/htm_depth_03", "rubik/cube3_htm_depth_02")
CLUES = {  # a packing instance with every kind of clue: requirements, pegs, fixed pieces, face colours
    "puzzle": "packing", "title": "L-trominoes with every kind of clue", "board": {"size": [3, 3, 3]},
    "pieces": [{"name": "L", "colour": "red", "cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "count": 9,
                "marks": {"ring": [[0, 0, 0]]}}],
    "pegs": [{"colour": "red", "cell": [0, 0, 0]}],
    "requirements": [{"cell": [2, 2, 2], "colour": "red"}],
    "fixed": [{"piece": "L", "cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "marks": {"ring": [[0, 0, 0]]}}],
    "faces": {"front": [["red", "?", "?"], ["?", "?", "?"], ["red", "red", "?"]]},
    "known": {"solutions": 1},
}
MAX_FUZZED_BOARD_CELLS = 10_000
"""Bigger boards are the size refusal's business (see the report of issue 16), not this fuzz's."""


def portable(data: dict, path: Path, shipped: dict[str, Path]) -> dict:
    """The data with a relative `base` turned into the base's shipped name (the fuzzed copy
    lives in another folder)."""
    base = data.get("base")
    if isinstance(base, str) and (path.parent / base).is_file():
        target = (path.parent / base).resolve()
        data = {**data, "base": next(name for name, p in shipped.items() if p.resolve() == target)}
    return data


@lru_cache(maxsize=None)
def seed_instances() -> dict[str, dict]:
    """Valid instance data to mutate: chosen shipped files, one of every other registered
    family, and a packing instance with every kind of clue."""
    shipped = instances.shipped_instances()
    names = [name for name in PREFERRED_SEEDS if name in shipped]
    for family in registry.families():
        if not any(name.startswith(f"{family}/") for name in names):
            names += [name for name in shipped if name.startswith(f"{family}/")][:1]
    seeds = {name: portable(instances.read_data_file(shipped[name]), shipped[name], shipped) for name in names}
    return {**seeds, "packing/<every clue>": CLUES}


def board_cells(tree: Any) -> int:
    """Cells of a packing board in the tree (0 if it has none that can be read)."""
    try:
        size = tree["board"]["size"]
        return math.prod(int(s) for s in size) if isinstance(size, list) and len(size) < 6 else 0
    except (KeyError, TypeError, ValueError, OverflowError):
        return 0


@st.composite
def data_file_cases(draw) -> FileCase:
    seed = draw(st.sampled_from(sorted(seed_instances())))
    tree = seed_instances()[seed]
    suffix = draw(st.sampled_from([".yaml", ".yml", ".json"]))
    if draw(st.integers(0, 9)) < 7:
        how, tree = draw(mutated(tree))
        if draw(st.integers(0, 9)) == 0:
            base = draw(st.sampled_from([f"instance{suffix}", "nosuch/x", "", ".", "/", "/dev/null", "a" * 300,
                                         "x\0y", "rubik/htm_depth_03", "packing/iq_twist/empty", "../instance.yaml"]))
            how, tree = how + (f"base {base!r}",), {**tree, "base": base} if isinstance(tree, dict) else tree
        assume(board_cells(tree) <= MAX_FUZZED_BOARD_CELLS)
        return FileCase(seed, how, suffix, rendered(tree, suffix))
    how, content = draw(whole_file_contents(rendered(tree, suffix), suffix))
    event(f"whole file: {how.split(' ')[0]}")
    return FileCase(seed, (how,), suffix, content)


ONE_MODEL_FORMULATIONS = {"packing": "placement", "instant_insanity": "rotations", "rubik": "pieces"}
"""A formulation of each family that `export` can write (rubik's default is solved in stages)."""


def command_for_data_file(draw, case: FileCase, path: Path, folder: Path, dummy_solution: Path) -> list[str]:
    """`check` with a dummy solution mostly (it loads and validates), sometimes `export`
    of the Pyomo data or a short `solve`."""
    command = draw(st.sampled_from(["check"] * 6 + ["export", "solve"]))
    if command == "check":
        return ["check", str(path), str(dummy_solution)]
    if command == "export":
        formulation = ONE_MODEL_FORMULATIONS.get(case.seed.split("/")[0])
        return ["export", str(path), "--format", "dat", "-d", str(folder / "out")] + (
            ["-f", formulation] if formulation else [])
    return ["solve", str(path), "-t", "2"]


def check_data_file(case: FileCase, draw) -> None:
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        path = Path(folder) / f"instance{case.suffix}"
        path.write_bytes(case.content)
        dummy_solution = Path(folder) / "solution.json"
        dummy_solution.write_text("{}")
        argv = command_for_data_file(draw, case, path, Path(folder), dummy_solution)
        outcome = run_cli(argv)
    event(f"{argv[0] if argv else '(none)'}: exit {outcome.code}")
    note(f"argv: {argv}\nexit {outcome.code}\nstdout: {outcome.stdout[-2000:]}\nstderr: {outcome.stderr}")
    assert outcome.code in (EXIT_OK, EXIT_FAILED, EXIT_USAGE)
    if outcome.code == EXIT_USAGE:
        if argv[0] == "export" and re.search(r"unknown formulation|formulation '\w+' cannot model", outcome.stderr):
            the_one_error_line(outcome)  # valid data the formulation does not fit (another family, a 3x3x3)
        else:
            assert_refusal_names_file_and_field(outcome, path)
    elif argv[0] == "check":
        assert outcome.stdout.startswith("INVALID: solution must be"), outcome.stdout


def test_seed_instances_are_valid() -> None:
    for name, data in seed_instances().items():
        assert instances.from_data(copy.deepcopy(data), Path(f"{name}.yaml")).family.name == data["puzzle"], name


@pytest.mark.timeout(300)
@settings(QUICK, max_examples=400)
@given(case=data_file_cases(), data=st.data())
def test_data_files_quick(case: FileCase, data: st.DataObject) -> None:
    check_data_file(case, data.draw)


@pytest.mark.fuzz
@pytest.mark.timeout(7200)
@settings(LONG, max_examples=long_budget(5000))
@given(case=data_file_cases(), data=st.data())
def test_data_files_long(case: FileCase, data: st.DataObject) -> None:
    check_data_file(case, data.draw)


# --- target b: solution files --------------------------------------------------------------

SEED_SOLUTIONS = {  # solved once with HiGHS; test_seed_solutions_are_valid keeps them honest
    "packing/l_tromino_cube": {"pieces": [
        {"piece": "L", "cells": [[1, 0, 1], [1, 0, 2], [1, 1, 1]]}, {"piece": "L", "cells": [[2, 0, 0], [2, 0, 1], [2, 1, 0]]},
        {"piece": "L", "cells": [[0, 0, 0], [0, 0, 1], [1, 0, 0]]}, {"piece": "L", "cells": [[1, 2, 0], [1, 2, 1], [2, 2, 0]]},
        {"piece": "L", "cells": [[0, 1, 1], [0, 2, 1], [0, 2, 2]]}, {"piece": "L", "cells": [[0, 1, 0], [0, 2, 0], [1, 1, 0]]},
        {"piece": "L", "cells": [[0, 0, 2], [0, 1, 2], [1, 1, 2]]}, {"piece": "L", "cells": [[2, 0, 2], [2, 1, 1], [2, 1, 2]]},
        {"piece": "L", "cells": [[1, 2, 2], [2, 2, 1], [2, 2, 2]]}]},
    "packing/iq_twist/challenge_19": {"pieces": [
        {"piece": "yellow1", "cells": [[1, 2], [2, 2], [3, 2]], "marks": {"ring": [[1, 2]]}},
        {"piece": "yellow2", "cells": [[3, 1], [4, 1], [4, 2], [4, 3], [5, 2]], "marks": {"ring": [[3, 1], [4, 1], [5, 2]]}},
        {"piece": "blue1", "cells": [[6, 0], [6, 1], [7, 0], [7, 1], [7, 2]], "marks": {"ring": [[6, 0], [6, 1]]}},
        {"piece": "blue2", "cells": [[0, 3], [1, 3], [2, 3], [3, 3]], "marks": {"ring": [[1, 3]]}},
        {"piece": "green1", "cells": [[5, 3], [6, 2], [6, 3], [7, 3]], "marks": {"ring": [[5, 3], [6, 2]]}},
        {"piece": "green2", "cells": [[4, 0], [5, 0], [5, 1]], "marks": {"ring": [[5, 0], [5, 1]]}},
        {"piece": "red1", "cells": [[1, 1], [2, 0], [2, 1], [3, 0]], "marks": {"ring": [[2, 0]]}},
        {"piece": "red2", "cells": [[0, 0], [0, 1], [0, 2], [1, 0]], "marks": {"ring": [[0, 0], [0, 2]]}}]},
    "instant_insanity/parker_brothers": {"stack": [
        {"cube": 1, "faces": [5, 1, 6, 3, 2, 4], "sides": ["blue", "red", "white", "green"]},
        {"cube": 2, "faces": [2, 3, 4, 1, 5, 6], "sides": ["red", "white", "blue", "blue"]},
        {"cube": 3, "faces": [4, 1, 2, 3, 5, 6], "sides": ["green", "green", "red", "white"]},
        {"cube": 4, "faces": [1, 5, 3, 6, 4, 2], "sides": ["white", "blue", "green", "red"]}]},
    "rubik/htm_depth_03": {"moves": ["R2", "F2", "R'"]},
    "rubik/cube3_htm_depth_02": {"moves": ["R", "U'"]},
}


@lru_cache(maxsize=None)
def seed_solutions() -> dict[str, Any]:
    """The valid solutions above, and an empty one for a shipped instance of any other family."""
    shipped = instances.shipped_instances()
    seeds: dict[str, Any] = dict(SEED_SOLUTIONS)
    for family in registry.families():
        if not any(name.startswith(f"{family}/") for name in seeds):
            first = next((name for name in shipped if name.startswith(f"{family}/")), None)
            if first:
                seeds[first] = {}
    return seeds


def as_run_record(solution: Any) -> dict:
    return {"instance": "x", "status": "optimal", "solution": solution}


@st.composite
def solution_file_cases(draw) -> FileCase:
    seed = draw(st.sampled_from(sorted(seed_solutions())))
    tree = seed_solutions()[seed]
    if draw(st.integers(0, 9)) < 7:
        how, tree = draw(mutated(tree))
        if draw(st.booleans()):
            how, tree = how + ("as a run record",), as_run_record(tree)
        return FileCase(seed, how, ".json", rendered(tree, ".json"))
    how, content = draw(st.one_of(
        st.just(("run record without a solution", rendered(as_run_record(None), ".json"))),
        st.sampled_from([("NaN", b"NaN"), ("a JSON string", b'"pieces"'), ("YAML, not JSON", b"pieces: []\n")]),
        whole_file_contents(rendered(tree, ".json"), ".json")))
    return FileCase(seed, (how,), ".json", content)


def check_solution_file(case: FileCase) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "solution.json"
        path.write_bytes(case.content)
        outcome = run_cli(["check", case.seed, str(path)])
    event(f"exit {outcome.code}")
    note(f"exit {outcome.code}\nstdout: {outcome.stdout[-2000:]}\nstderr: {outcome.stderr}")
    assert outcome.code in (EXIT_OK, EXIT_FAILED, EXIT_USAGE)
    if outcome.code == EXIT_USAGE:
        assert_refusal_names_file_and_field(outcome, path)
    elif outcome.code == EXIT_FAILED:
        lines = outcome.stdout.splitlines()
        assert lines and all(line.startswith("INVALID: ") for line in lines), outcome.stdout
        assert "checker could not read" not in outcome.stdout, outcome.stdout
    else:
        assert outcome.stdout.startswith("valid solution of ") and outcome.stdout.count("\n") == 1


def test_seed_solutions_are_valid() -> None:
    for name, solution in SEED_SOLUTIONS.items():
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "solution.json"
            path.write_text(json.dumps(solution))
            assert run_cli(["check", name, str(path)]).code == EXIT_OK, name


@pytest.mark.timeout(300)
@settings(QUICK, max_examples=200)
@given(case=solution_file_cases())
def test_solution_files_quick(case: FileCase) -> None:
    check_solution_file(case)


@pytest.mark.fuzz
@pytest.mark.timeout(7200)
@settings(LONG, max_examples=long_budget(5000))
@given(case=solution_file_cases())
def test_solution_files_long(case: FileCase) -> None:
    check_solution_file(case)


# --- target c: experiment configurations ---------------------------------------------------

@lru_cache(maxsize=None)
def seed_configs() -> dict[str, dict]:
    folder = ROOT / "workflows" / "config"
    return {path.name: yaml.safe_load(path.read_text()) for path in sorted(folder.glob("*.yaml"))}


@dataclass(frozen=True)
class ConfigCase:
    """A configuration made from workflows/config/`seed` by `how`."""

    seed: str
    how: tuple[str, ...]
    config: Any


@st.composite
def config_cases(draw) -> ConfigCase:
    seed = draw(st.sampled_from(sorted(seed_configs())))
    if draw(st.integers(0, 19)) == 0:
        return ConfigCase(seed, ("not a mapping",), draw(st.sampled_from([None, [], "instances", 1, {}])))
    how, tree = draw(mutated(seed_configs()[seed]))
    return ConfigCase(seed, how, tree)


def quiet(line: str) -> None:
    """Where the pipeline's notes (missing solvers, ...) go during the fuzz."""


def expand_as_the_snakefile_does(config: Any) -> dict:
    """workflows/rules/common.smk's checks and expansion of a configuration."""
    checked = experiment.validate_config(config, CONFIG_SCHEMA)
    runs, generated = experiment.matrix(checked, report=quiet)
    jobs = experiment.count_jobs(checked, report=quiet)
    experiment.batches(runs, experiment.batch_size(checked["batch"], len(runs)), checked["order_seed"])
    for item in runs[:1] + jobs[:1]:
        item.record_path(checked["results"])
    for instance in generated[:1]:
        instance.path(checked["results"])
    return checked


def finite_numbers(tree: Any) -> bool:
    """No NaN or infinity anywhere in the tree."""
    if isinstance(tree, float):
        return math.isfinite(tree)
    if isinstance(tree, dict):
        return all(finite_numbers(v) for v in tree.values())
    if isinstance(tree, list):
        return all(finite_numbers(v) for v in tree)
    return True


def check_config(config: Any) -> None:
    """Either accepted (and then sane) or refused with a ConfigError naming the key."""
    try:
        checked = expand_as_the_snakefile_does(copy.deepcopy(config))
    except experiment.ConfigError as error:
        message = str(error)
        note(f"refused: {message}")
        event("refused")
        assert len(message.splitlines()) == 1, message
        assert re.search(r"configuration key '(?:[^'\\]|\\.)*'", message), message
        return
    event("accepted")
    assert finite_numbers(checked), "a configuration with an infinite or NaN number was accepted"
    assert isinstance(checked["results"], str) and checked["results"].strip(), "an empty results folder"


@pytest.mark.timeout(300)
@settings(QUICK, max_examples=200)
@given(case=config_cases())
def test_configurations_quick(case: ConfigCase) -> None:
    check_config(case.config)


@pytest.mark.fuzz
@pytest.mark.timeout(7200)
@settings(LONG, max_examples=long_budget(3000))
@given(case=config_cases())
def test_configurations_long(case: ConfigCase) -> None:
    check_config(case.config)


# --- target d: argument lists ------------------------------------------------------------

SCRATCH = "{scratch}"
"""Stands for the example's own temporary folder in generated paths."""
TINY = ["packing/l_tromino_cube", "instant_insanity/parker_brothers"]
INSTANCE_ARGUMENTS = TINY * 10 + [
    "packing/l_tromino_cube.yaml", "rubik/htm_depth_03", "nosuch/x", "packing", "", "-", " ", "a" * 300,
    f"{SCRATCH}/missing.yaml", f"{SCRATCH}/folder", f"{SCRATCH}/empty.yaml", f"{SCRATCH}/instance.yaml",
    f"{SCRATCH}/not_yaml.txt", "/dev/null", "caf\udcff.yaml"]
OUTPUT_FILES = [f"{SCRATCH}/out.json", f"{SCRATCH}/new/deeper/out.json", "/proc/x.json", f"{SCRATCH}/folder",
                f"{SCRATCH}/not_yaml.txt/out.json", "/", "", f"{SCRATCH}/out.yaml", f"{SCRATCH}/{'a' * 300}.json"]
PICTURES = [f"{SCRATCH}/picture{suffix}" for suffix in (".png", ".svg", ".pdf", ".xyz", "", ".PNG", ".jpg")] + [
    "/proc/x.png", f"{SCRATCH}/folder", f"{SCRATCH}/missing/picture.png"]
NUMBERS = ["1", "2", "0", "-1", "-0", "0.5", "1e309", "inf", "-inf", "nan", "", " ", "abc", "1_000", "0x10",
           "1e3", "18446744073709551616", "\u0661"]
SAFE_TIME_LIMITS = ["1", "2", "0.5"]
SMALL_COUNTS = ["1", "2", "3"]


def option(draw, name: str, values: list[str]) -> list[str]:
    return [name, draw(st.sampled_from(values))]


def bad_numbers(safe: list[str]) -> list[str]:
    """Values a numeric option may get: a few that work, and every kind that must not.
    Huge finite values are left out: a time limit of 10^19 s is accepted, and meant."""
    return safe * 8 + [n for n in NUMBERS if n not in ("18446744073709551616", "1e3")]


def solve_arguments(draw) -> list[str]:
    argv = ["solve", draw(st.sampled_from(INSTANCE_ARGUMENTS)), *option(draw, "-t", bad_numbers(SAFE_TIME_LIMITS))]
    extras = {
        "-f": ["placement", "rotations", "cell_assignment", "nosuch", "", "x.py:NAME"],
        "-s": ["highs", "glpk", "cbc", "nosuch", "pyomo:nosuch", "", "dlx"],
        "--threads": bad_numbers(["1", "2"]), "--seed": NUMBERS, "--permutation": NUMBERS,
        "--gap": bad_numbers(["0.1"]), "--memory-limit": bad_numbers(["2000"]),
        "-o": OUTPUT_FILES, "-p": PICTURES,
    }
    return argv + optional_options(draw, extras)


def count_arguments(draw) -> list[str]:
    argv = ["count", draw(st.sampled_from(INSTANCE_ARGUMENTS)), *option(draw, "-t", bad_numbers(SAFE_TIME_LIMITS)),
            *option(draw, "--limit", bad_numbers(SMALL_COUNTS)), "-q"]
    extras = {"-f": ["placement", "rotations", "cell_assignment", "nosuch"], "-s": ["highs", "glpk", "nosuch"],
              # "1_000" (a split of 1000) once walked 16^27 combinations: now refused at once
              "--split": bad_numbers(["0", "2"]), "--seed": NUMBERS, "--threads": bad_numbers(["1"]),
              "--up-to-symmetry": None, "-o": OUTPUT_FILES}
    return argv + optional_options(draw, extras)


def check_arguments(draw) -> list[str]:
    solution = draw(st.sampled_from([f"{SCRATCH}/solution.json"] * 4 + [f"{SCRATCH}/missing.json", f"{SCRATCH}/folder",
                                     "/dev/null", f"{SCRATCH}/instance.yaml", "", "a" * 300]))
    return ["check", draw(st.sampled_from(INSTANCE_ARGUMENTS)), solution]


def export_arguments(draw) -> list[str]:
    extras = {"--format": ["dat", "lp", "mps", "dat,lp", "xls", "", ",", "dat,,mps", "DAT", "dat dat"],
              "-d": [f"{SCRATCH}/out", f"{SCRATCH}/not_yaml.txt", "/proc/x", f"{SCRATCH}/folder", ""],
              "-f": ["placement", "rotations", "projections", "pieces", "nosuch"]}
    return ["export", draw(st.sampled_from(INSTANCE_ARGUMENTS))] + optional_options(draw, extras)


def generate_arguments(draw) -> list[str]:
    name = draw(st.sampled_from(["instant_insanity", "rubik", "iq_twist", "cube_puzzler", "nosuch", ""]))
    extras = {"--seed": NUMBERS, "--cubes": bad_numbers(["2", "5", "30"]) + ["1000000000"], "--unsolvable": None,
              "--depth": bad_numbers(["3", "8", "9"]), "--metric": ["htm", "qtm", "", "HTM"],
              "--pegs": NUMBERS, "--unknown": NUMBERS, "--pieces": ["nosuch", f"{SCRATCH}/instance.yaml"],
              "-o": OUTPUT_FILES, "-s": ["highs", "nosuch"]}
    argv = ["generate", name] + optional_options(draw, extras)
    if name == "rubik":  # the 2x2x2 table takes 15 s to build: the 3x3x3 (or a refused size)
        argv += option(draw, "--size", ["3", "3", "0", "4", "-1", "x"])
    if name in ("iq_twist", "cube_puzzler"):  # a unique challenge takes up to a minute: refused here
        argv += ["--cubes", "3"]
    return argv


def design_arguments(draw) -> list[str]:
    # questions 2-5 take about 8 s each (an exhaustive census): only the refused ones here
    return ["design", draw(st.sampled_from(["instant_insanity", "packing", "rubik", "nosuch", ""])),
            *option(draw, "--question", ["0", "1", "6", "-1", "x", "", "2.5"])] + optional_options(
        draw, {"--distinct": None, "-o": OUTPUT_FILES})


def compare_arguments(draw) -> list[str]:
    folders = [f"{SCRATCH}/folder", f"{SCRATCH}/missing", f"{SCRATCH}/not_yaml.txt", "/proc/x", ""]
    return ["compare", draw(st.sampled_from(folders)), draw(st.sampled_from(folders))] + optional_options(
        draw, {"--csv": OUTPUT_FILES, "--latex": OUTPUT_FILES, "--shift": NUMBERS})


def new_family_arguments(draw) -> list[str]:
    return ["new-family", draw(st.sampled_from(["tiles", "Tiles", "", "1x", "packing", "a-b"])),
            *option(draw, "--path", [f"{SCRATCH}/plugin", f"{SCRATCH}/folder", f"{SCRATCH}/not_yaml.txt", "",
                                     "/proc/x"])]


def odd_arguments(draw) -> list[str]:
    return draw(st.sampled_from([[], ["--version"], ["--help"], ["solve", "--help"], ["frobnicate"], [""],
                                 ["--", "solve"], ["-t", "2"], ["solve", "--", "-x"]]))


COMMANDS = [solve_arguments, count_arguments, check_arguments, check_arguments, export_arguments,
            generate_arguments, design_arguments, compare_arguments, new_family_arguments, odd_arguments]


def optional_options(draw, extras: dict[str, list[str] | None]) -> list[str]:
    """Some of the options (a flag when its values are None), perhaps one it does not have,
    perhaps one left without its value."""
    chosen = draw(st.lists(st.sampled_from(sorted(extras)), max_size=3, unique=True))
    argv = []
    for name in chosen:
        argv += [name] if extras[name] is None else option(draw, name, extras[name])
    tail = draw(st.sampled_from([[]] * 15 + [["--frobnicate"], ["-x", "1"], ["extra"], ["--seed"], ["-t"]]))
    return argv + tail


@st.composite
def argument_lists(draw) -> list[str]:
    build = draw(st.sampled_from(COMMANDS))
    event(f"command: {build.__name__}")
    return build(draw)


def scratch_folder(folder: Path) -> None:
    """The files the generated paths name: a folder, an empty file, a non-YAML file, an
    instance and a solution."""
    (folder / "folder").mkdir()
    (folder / "empty.yaml").write_text("")
    (folder / "not_yaml.txt").write_text("this is not YAML: [\n")
    (folder / "instance.yaml").write_text(yaml.safe_dump(seed_instances()["packing/l_tromino_cube"]))
    (folder / "solution.json").write_text(json.dumps(SEED_SOLUTIONS["packing/l_tromino_cube"]))


def check_argument_list(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):  # `export` writes to . by default
        scratch_folder(Path(folder))
        argv = [arg.replace(SCRATCH, folder) for arg in argv]
        outcome = run_cli(argv)
    event(f"{argv[0] if argv else '(none)'}: exit {outcome.code}")
    note(f"argv: {argv}\nexit {outcome.code}\nstdout: {outcome.stdout[-2000:]}\nstderr: {outcome.stderr}")
    assert outcome.code in (EXIT_OK, EXIT_FAILED, EXIT_USAGE), outcome
    if outcome.code == EXIT_USAGE:
        line = the_one_error_line(outcome)
        assert line.startswith("pyomo-puzzles"), line
    assert "Traceback" not in outcome.stderr


@pytest.mark.timeout(300)
@settings(QUICK, max_examples=150)
@given(argv=argument_lists())
def test_argument_lists_quick(argv: list[str]) -> None:
    check_argument_list(argv)


@pytest.mark.fuzz
@pytest.mark.timeout(7200)
@settings(LONG, max_examples=long_budget(3000))
@given(argv=argument_lists())
def test_argument_lists_long(argv: list[str]) -> None:
    check_argument_list(argv)


# --- warming up --------------------------------------------------------------------------

@pytest.fixture(scope="module", autouse=True)
def warm_imports() -> None:
    """Import what the commands import (Pyomo, the solvers' wrappers, matplotlib) and load
    the seeds once, so that a case's deadline measures the case."""
    with tempfile.TemporaryDirectory() as folder:
        scratch_folder(Path(folder))
        for name in TINY:
            run_cli(["solve", name, "-t", "5", "-p", f"{folder}/warm.png"])
            run_cli(["export", name, "--format", "dat", "-d", folder])
        run_cli(["count", "instant_insanity/parker_brothers", "--limit", "1", "-q"])
        for metric in ("htm", "qtm"):  # the 3x3x3 generator's meet-in-the-middle tables: built once, then cached
            run_cli(["generate", "rubik", "--size", "3", "--metric", metric])
    for name in seed_instances():
        if name in instances.shipped_instances():
            instances.load(name)
    expand_as_the_snakefile_does(copy.deepcopy(seed_configs()["smoke.yaml"]))
