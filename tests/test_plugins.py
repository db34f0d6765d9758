"""Families from other distributions, found through the entry-point group
``pyomo_puzzles.families``: a working plugin gets `list` and `solve` with the independent
check; a broken one is reported in one line and does not stop the others.

The plugins here are real installed distributions as far as Python can tell: a module and a
``*.dist-info`` folder with ``entry_points.txt`` on ``PYTHONPATH``, run in a fresh process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import run_cli

# A knapsack family in the fewest hooks: pick items of total weight at most the capacity,
# with the largest total value. Its checker is plain Python and recomputes both sums.
KNAPSACK = '''
"""Knapsack, a plugin family written outside pyomo-puzzles."""
from pathlib import Path

import pyomo.environ as pyo

from pyomo_puzzles.core.registry import Family, Formulation, register

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["puzzle", "capacity", "items"],
          "properties": {"puzzle": {"const": "knapsack"}, "capacity": {"type": "integer", "minimum": 0},
                         "items": {"type": "array", "items": {"type": "array", "items": {"type": "integer"},
                                                              "minItems": 2, "maxItems": 2}},
                         "known": {"type": "object"}}}


def load(data, path):
    return {"capacity": data["capacity"], "items": [tuple(i) for i in data["items"]]}


def build_model():
    """max sum_i v_i x_i  s.t.  sum_i w_i x_i <= C,  x binary."""
    m = pyo.AbstractModel()
    m.I = pyo.Set()
    m.w = pyo.Param(m.I)
    m.v = pyo.Param(m.I)
    m.C = pyo.Param()
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.value = pyo.Objective(rule=lambda m: sum(m.v[i] * m.x[i] for i in m.I), sense=pyo.maximize)
    m.capacity = pyo.Constraint(rule=lambda m: sum(m.w[i] * m.x[i] for i in m.I) <= m.C)
    return m


def model_data(spec):
    items = range(len(spec["items"]))
    return {None: {"I": {None: list(items)}, "C": {None: spec["capacity"]},
                   "w": {i: spec["items"][i][0] for i in items}, "v": {i: spec["items"][i][1] for i in items}}}


def decode(spec, model):
    return {"chosen": [i for i in model.I if pyo.value(model.x[i]) > 0.5]}


def check(spec, solution):
    chosen = solution["chosen"]
    weight = sum(spec["items"][i][0] for i in chosen)
    return [] if weight <= spec["capacity"] and len(set(chosen)) == len(chosen) else ["over capacity"]


FAMILY = register(Family(
    name="knapsack", summary="0-1 knapsack (a plugin)", schema=SCHEMA, load=load,
    formulations={"binary": Formulation("binary", "one binary per item", build_model, model_data, decode)},
    default_formulation="binary", check=check, solution_key=lambda s: tuple(sorted(s["chosen"])),
    symmetry_images=lambda spec, s: [s], draw=lambda spec, s, path: None,
    instances_dir=Path(__file__).parent / "no_instances"))
'''


def install_plugin(site: Path, dist: str, module: str, source: str, value: str) -> None:
    """A module and its distribution's metadata with one entry point, as pip would leave them."""
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[pyomo_puzzles.families]\n{module} = {value}\n", encoding="utf-8")


def plugin_env(site: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""))


@pytest.fixture
def knapsack_env(tmp_path) -> dict:
    """The environment of a process that has the knapsack plugin installed."""
    site = tmp_path / "site"
    site.mkdir()
    install_plugin(site, "knapsack-plugin", "knapsack_plugin", KNAPSACK, "knapsack_plugin")
    return plugin_env(site)


def test_plugin_family_is_listed_solved_and_checked(tmp_path, knapsack_env):
    env = knapsack_env
    instance = tmp_path / "bag.yaml"
    # weights/values: the best is items 1 and 2 (weight 9, value 13); ground truth by hand
    instance.write_text("puzzle: knapsack\ncapacity: 9\nitems: [[5, 6], [4, 6], [5, 7], [6, 7]]\n")
    listing = run_cli("list", env=env)
    assert listing.returncode == 0 and "knapsack: 0-1 knapsack (a plugin)" in listing.stdout
    solved = run_cli("solve", instance, "--output", tmp_path / "run.json", env=env)
    assert solved.returncode == 0, solved.stderr
    record = json.loads((tmp_path / "run.json").read_text())
    assert record["status"] == "optimal" and record["checked"] is True and record["objective"] == 13
    assert sorted(record["solution"]["chosen"]) == [1, 2]
    typo = tmp_path / "typo.yaml"
    typo.write_text("puzzle: knapsack\ncapacty: 9\nitems: [[5, 6]]\n")
    refused = run_cli("solve", typo, env=env)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "capacty" in refused.stderr


def test_a_checker_that_raises_is_named_as_such(tmp_path, knapsack_env):
    # was: "checker could not read the solution", with no word of a fault in the checker
    env = knapsack_env
    instance = tmp_path / "bag.yaml"
    instance.write_text("puzzle: knapsack\ncapacity: 9\nitems: [[5, 6], [4, 6]]\n")
    solution = tmp_path / "solution.json"
    solution.write_text(json.dumps({"picked": [0]}))  # the checker reads solution["chosen"]
    checked = run_cli("check", instance, solution, env=env)
    assert checked.returncode == 1 and "Traceback" not in checked.stderr, checked.stderr
    assert "the checker raised KeyError: 'chosen' (a malformed solution, or a fault in the checker)" in \
        checked.stdout + checked.stderr
    traced = run_cli("--traceback", "check", instance, solution, env=env)
    assert "Traceback (most recent call last)" in traced.stderr and "knapsack_plugin.py" in traced.stderr


def test_broken_plugins_are_reported_in_one_line_and_the_rest_works(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    install_plugin(site, "broken-plugin", "broken_plugin", "import no_such_module_here\n", "broken_plugin")
    clash = KNAPSACK.replace('name="knapsack"', 'name="packing"')
    install_plugin(site, "clash-plugin", "clash_plugin", clash, "clash_plugin")
    env = plugin_env(site)
    listing = run_cli("list", env=env)
    assert listing.returncode == 0, listing.stderr
    lines = [line for line in listing.stdout.splitlines() if "BROKEN family plugin" in line]
    assert len(lines) == 2
    assert any("broken-plugin" in line and "No module named 'no_such_module_here'" in line for line in lines)
    assert any("clash-plugin" in line and "a family named 'packing' is registered already" in line
               for line in lines)
    solved = run_cli("solve", "packing/l_tromino_cube", env=env)
    assert solved.returncode == 0 and "solution checked" in solved.stdout


def test_a_broken_plugins_instance_or_family_is_said_to_be_broken(tmp_path):
    # was: "no instance ... not a file and not a shipped instance" from solve, and
    # "unknown puzzle family" from the kit, for a plugin that failed to import
    site = tmp_path / "site"
    site.mkdir()
    install_plugin(site, "tiles-plugin", "tiles", "import no_such_module_here\n", "tiles")
    env = plugin_env(site)
    solved = run_cli("solve", "tiles/knuth_example", env=env)
    assert solved.returncode == 2 and solved.stderr.count("\n") == 1, solved.stderr
    assert ("no instance 'tiles/knuth_example': the family plugin 'tiles' is broken" in solved.stderr
            and "No module named 'no_such_module_here'" in solved.stderr), solved.stderr
    kit = subprocess.run([sys.executable, "-c", "from pyomo_puzzles import testing; testing.check_family('tiles')"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert "the family plugin 'tiles' is broken" in kit.stderr and "unknown puzzle family" not in kit.stderr, kit.stderr


FORMULATION_FILE = '''
"""Placement, written outside the package{note}."""
from pyomo_puzzles.families.packing import model_placement
from pyomo_puzzles.families.packing.model_placement import build_model, model_data  # noqa: F401

FAMILY = "packing"


def decode(spec, model):
    solution = model_placement.decode(spec, model)
    solution["pieces"] = solution["pieces"]{cut}
    return solution
'''


def test_a_formulation_in_a_plain_file_gets_the_family_checker(tmp_path):
    good = tmp_path / "my_models.py"
    good.write_text(FORMULATION_FILE.format(note="", cut=""))
    done = run_cli("solve", "packing/l_tromino_cube", "-f", f"{good}:placement_copy", "-o", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["formulation"] == "placement_copy" and record["checked"] is True
    wrong = tmp_path / "wrong_models.py"
    wrong.write_text(FORMULATION_FILE.format(note=" (drops a piece when decoding)", cut="[1:]"))
    caught = run_cli("solve", "packing/l_tromino_cube", "-f", f"{wrong}:placement_wrong", "-o", tmp_path / "w.json")
    assert caught.returncode == 1
    record = json.loads((tmp_path / "w.json").read_text())
    assert record["status"] == "error" and record["checked"] is False
    assert record["message"].startswith("solution failed the independent check")


def test_bad_formulation_files_are_one_line_errors(tmp_path):
    hookless = tmp_path / "hookless.py"
    hookless.write_text("def build_model():\n    pass\n")
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    cases = [(f"{tmp_path / 'missing.py'}:x", "no such file"),
             (f"{hookless}:x", "no function 'model_data'"),
             (f"{broken}:x", "cannot be imported: ModuleNotFoundError")]
    for reference, words in cases:
        done = run_cli("solve", "packing/l_tromino_cube", "-f", reference)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and words in done.stderr, done.stderr


def test_a_plugin_that_breaks_the_contract_is_named_and_its_data_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    loose = KNAPSACK.replace('SCHEMA = {"type": "object", "additionalProperties": False,', 'SCHEMA = {"type": "object",')
    install_plugin(site, "loose-plugin", "knapsack", loose, "knapsack")
    bad_hook = KNAPSACK.replace('name="knapsack"', 'name="knapsack2"').replace("check=check,", "check=lambda spec: [],")
    install_plugin(site, "hook-plugin", "knapsack2", bad_hook, "knapsack2")
    env = plugin_env(site)
    listing = run_cli("list", env=env)
    broken = [line for line in listing.stdout.splitlines() if "BROKEN family plugin" in line]
    assert any("loose-plugin" in line and "schema must set additionalProperties: false" in line for line in broken)
    assert any("hook-plugin" in line and "hook 'check' must take 2 arguments" in line for line in broken)
    bag = tmp_path / "bag.yaml"
    bag.write_text("puzzle: knapsack\ncapacity: 9\nitems: [[5, 6]]\n")
    refused = run_cli("solve", bag, env=env)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "field 'puzzle': the family plugin 'knapsack' is broken" in refused.stderr


def test_a_formulation_file_with_a_hook_of_the_wrong_shape_is_refused(tmp_path):
    odd = tmp_path / "odd.py"
    odd.write_text("def build_model():\n    pass\n\ndef model_data(spec):\n    pass\n\ndef decode(model):\n    pass\n")
    done = run_cli("solve", "packing/l_tromino_cube", "-f", f"{odd}:odd")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "hook 'decode' must take 2 arguments" in done.stderr


KIT = """
import json, sys
from pyomo_puzzles.testing import check_family
print(json.dumps(check_family("knapsack", instances=[sys.argv[1]], solvers=["highs"])))
"""


def test_the_conformance_kit_fails_a_family_whose_checker_accepts_wrong_solutions(tmp_path):
    """A checker that accepts everything, and a picture hook that draws nothing (the
    knapsack's above): the kit must fail both, and pass the rest."""
    site = tmp_path / "site"
    site.mkdir()
    lenient = KNAPSACK.replace("    chosen = solution[\"chosen\"]\n", "    return []\n    chosen = solution[\"chosen\"]\n")
    install_plugin(site, "lenient-plugin", "knapsack_lenient", lenient, "knapsack_lenient")
    bag = tmp_path / "bag.yaml"
    bag.write_text("puzzle: knapsack\ncapacity: 9\nitems: [[5, 6], [4, 6], [5, 7], [6, 7]]\nknown: {objective: 13}\n")
    script = tmp_path / "kit.py"
    script.write_text(KIT)
    done = subprocess.run([sys.executable, str(script), str(bag)], capture_output=True, text=True,
                          env=plugin_env(site), timeout=600)
    assert done.returncode == 0, done.stderr
    failed = json.loads(done.stdout)
    assert set(failed) == {"checker-knapsack/bag", "picture-knapsack/bag"}, failed
    assert "accepts the solution with a part" in failed["checker-knapsack/bag"]
    assert "wrote no PNG" in failed["picture-knapsack/bag"]


MINIMAL = KNAPSACK.split("FAMILY = register(")[0] + '''
FAMILY = register(Family(
    name="knapsack", summary="0-1 knapsack, required hooks only", schema=SCHEMA, load=load,
    formulations={"binary": Formulation("binary", "one binary per item", build_model, model_data, decode)},
    check=check))
'''


def test_a_family_with_only_the_required_hooks_works_and_names_what_it_lacks(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    install_plugin(site, "minimal-plugin", "knapsack_minimal", MINIMAL, "knapsack_minimal")
    env = plugin_env(site)
    bag = tmp_path / "bag.yaml"
    bag.write_text("puzzle: knapsack\ncapacity: 9\nitems: [[5, 6], [4, 6], [5, 7], [6, 7]]\n")
    listing = run_cli("list", env=env)
    assert "    - binary (default): one binary per item" in listing.stdout and "BROKEN" not in listing.stdout
    solved = run_cli("solve", bag, "-o", tmp_path / "r.json", env=env)
    assert solved.returncode == 0 and "solution checked" in solved.stdout, solved.stderr
    assert json.loads((tmp_path / "r.json").read_text())["objective"] == 13  # items 1 and 2, by hand
    pictured = run_cli("solve", bag, "--picture", tmp_path / "p.png", env=env)
    assert pictured.returncode == 2 and pictured.stderr.strip().splitlines() == [
        "pyomo-puzzles: error: family 'knapsack' draws no pictures (its Family has no 'draw' hook)"]
    counted = run_cli("count", bag, "-q", env=env)
    assert counted.returncode == 2 and counted.stderr.strip().splitlines() == [
        "pyomo-puzzles: error: formulation 'binary' cannot enumerate solutions (it has no 'solution_vars' hook); "
        "no formulation of family 'knapsack' can"]
