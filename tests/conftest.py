"""Shared fixtures: installed solvers, a CLI runner, and small instance files."""

from __future__ import annotations

import atexit
import fcntl
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pyomo_puzzles.core import instances, registry, solvers

ROOT = Path(__file__).resolve().parents[1]

# The tests' own disk cache (core.cache), shared by every process they start and removed
# afterwards: they neither read nor fill the user's ~/.cache/pyomo-puzzles. Under pytest-xdist
# the workers share the one the main pytest process made (and removes), so that a slow table
# (the 3x3x3 ball, the cube's pattern databases) is computed once per suite, not once per
# worker; the cache writes each entry whole or not at all, so two workers may fill it at once.
_SUITE_CACHE = "PYOMO_PUZZLES_TEST_SUITE_CACHE"
if os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(os.environ.get(_SUITE_CACHE, "")):
    os.environ["PYOMO_PUZZLES_CACHE"] = os.environ[_SUITE_CACHE]
else:
    os.environ["PYOMO_PUZZLES_CACHE"] = os.environ[_SUITE_CACHE] = tempfile.mkdtemp(prefix="pyomo-puzzles-test-cache-")
    atexit.register(shutil.rmtree, os.environ["PYOMO_PUZZLES_CACHE"], True)


# Under pytest-xdist (`bash bootstrap.sh test`: two workers, each test file on one of them) the
# files go out longest first, so that the last file to start is a short one: otherwise
# xdist hands out the files with the most tests first, and single long tests (SLURM, the
# tutorial) started last while the other worker had nothing left. Seconds per file in a
# suite run on two workers (a file not listed goes after these, in the usual order).
FILE_SECONDS = {
    "test_rubik_family.py": 570, "test_workflow.py": 425, "test_sudoku_example.py": 160, "test_conformance.py": 135,
    "test_solver_layer.py": 130, "test_rerun.py": 120, "test_library.py": 110, "test_slurm.py": 110,
    "test_fuzz.py": 95, "test_instant_insanity_design.py": 85, "test_faults.py": 70, "test_iq_twist.py": 60,
    "test_instant_insanity.py": 60, "test_report.py": 55, "test_tutorial.py": 110, "test_docs_site.py": 15, "test_provenance.py": 50,
    "test_classics.py": 50, "test_counting_methods.py": 45, "test_counting_truth.py": 40, "test_scaffold.py": 35,
    "test_bad_input.py": 35, "test_extras.py": 30, "test_optimisation_plugin.py": 80, "test_figure_views.py": 40,
    "test_isolated_jobs.py": 15, "test_solver_gates.py": 5, "test_latex_chapter.py": 50,
}


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # xdist's reordering by number of tests: see FILE_SECONDS


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):  # both workers sort alike: xdist checks the collections agree
        items.sort(key=lambda item: -FILE_SECONDS.get(item.path.name, 0))  # stable: a file's own order kept


OPEN_MIP_SOLVERS = ("highs", "cbc", "glpk")
"""The solvers the family tests run on (every adapter has its own contract test)."""


def solver_params(names=OPEN_MIP_SOLVERS) -> list:
    """One pytest param per solver; a missing solver is skipped with the reason."""
    params = []
    for name in names:
        ok, detail = solvers.availability(name)
        marks = [] if ok else [pytest.mark.skip(reason=f"{name} not installed: {detail}")]
        params.append(pytest.param(name, marks=marks, id=name))
    return params


INSTALLED = solver_params()


def run_cli(*args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `pyomo-puzzles ARGS` as a user would, in a fresh process."""
    return subprocess.run([sys.executable, "-m", "pyomo_puzzles", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd or ROOT, env=env, timeout=600)


@pytest.fixture
def write_instance(tmp_path):
    """Write a YAML instance file from text and return its path."""
    def write(text: str, name: str = "instance.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path
    return write


L_TROMINO_BOX = """\
puzzle: packing
title: L-trominoes in a {a}x{b}x{c} box
board:
  size: [{a}, {b}, {c}]
pieces:
  - name: L
    cells: [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    count: {n}
"""

# A board on which the packing loader needs about a minute to derive its placements
# (measured: 57 s on the development machine): for limits that must cover loading.
SLOW_TO_LOAD = L_TROMINO_BOX.format(a=60, b=60, c=3, n=3600)

# A 2x3 board cannot take a T-tetromino and a domino: the two cells the T leaves are apart.
INFEASIBLE_BOARD = """\
puzzle: packing
title: T-tetromino and domino on 2x3 (no tiling)
board:
  size: [2, 3]
pieces:
  - name: T
    cells: [[0, 0], [0, 1], [0, 2], [1, 1]]
  - name: D
    cells: [[0, 0], [0, 1]]
"""


@pytest.fixture(scope="session")
def smoke_results(tmp_path_factory) -> Path:
    """The smoke experiment (workflows/config/smoke.yaml) run once per test session, and under
    pytest-xdist once for all the workers (the first to need it runs it, under a file lock the
    others wait on); the tests that read it (workflow, HTML report, comparison, calibration)
    must not change it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the session's folder, above each worker's own
    folder = shared / "smoke-shared"
    with open(shared / "smoke-shared.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "outcome").exists():
            folder.mkdir(exist_ok=True)
            done = subprocess.run([str(Path(sys.executable).parent / "snakemake"), "--cores", "2", "--configfile",
                                   "workflows/config/smoke.yaml", "--config", f"results={folder / 'results'}"],
                                  cwd=ROOT, capture_output=True, text=True, timeout=900)
            (folder / "outcome").write_text(json.dumps([done.returncode, done.stderr[-3000:]]))
    returncode, stderr = json.loads((folder / "outcome").read_text())
    assert returncode == 0, stderr
    return folder / "results"


QUEENS_PLUGIN = ROOT / "tests" / "plugins" / "queens"
"""The n-queens test plugin: a module and its distribution's metadata (an entry point), so that
with this folder on the path it is an installed plugin, as a user's own family would be."""

GOLOMB_PLUGIN = ROOT / "tests" / "plugins" / "golomb"
"""The Golomb-ruler test plugin, an optimisation family (minimise the ruler's length) installed
the same way; beside it `detached_length.py`, a formulation file with a wrong objective."""


def plugin_env(*folders: Path) -> dict:
    """The environment of a process that has the plugins in `folders` installed."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [*map(str, folders),
                                                                    os.environ.get("PYTHONPATH")])))


def queens_env() -> dict:
    """The environment of a process that has the queens plugin installed."""
    return plugin_env(QUEENS_PLUGIN)


def golomb_env() -> dict:
    """The environment of a process that has the Golomb plugin installed."""
    return plugin_env(GOLOMB_PLUGIN)


def _registered_plugin(monkeypatch, folder: Path, module_name: str, family: str):
    """The plugin in `folder` registered in this test process for one test (the registry and
    the shipped-instance listing are as before afterwards); the plugin's module."""
    monkeypatch.syspath_prepend(str(folder))
    registry._discover()  # the installed families first: what is restored afterwards must hold them
    saved = dict(registry._FAMILIES)
    module = importlib.import_module(module_name)
    registry._FAMILIES[family] = module.FAMILY
    instances._shipped_instances.cache_clear()
    yield module
    registry._FAMILIES.clear()
    registry._FAMILIES.update(saved)
    instances._shipped_instances.cache_clear()


@pytest.fixture
def queens(monkeypatch):
    """The queens plugin registered in this test process for one test; the plugin's module."""
    yield from _registered_plugin(monkeypatch, QUEENS_PLUGIN, "pyomo_puzzles_queens", "queens")


@pytest.fixture
def golomb(monkeypatch):
    """The Golomb plugin registered in this test process for one test; the plugin's module."""
    yield from _registered_plugin(monkeypatch, GOLOMB_PLUGIN, "pyomo_puzzles_golomb", "golomb")
