"""Without the optional extras ([cpsat] OR-Tools, [dlx] xcover, [parquet] pyarrow) the
framework works and says, in one line, what is missing and which extra brings it. The
environment here really lacks them: it is the project's, with those distributions left out."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from plugin_env import PluginEnv

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    return PluginEnv(tmp_path_factory.mktemp("bare") / "env",
                     without=("ortools", "xcover", "pyarrow", "numba", "llvmlite"))


def test_the_environment_lacks_the_extras(bare):
    probe = bare.run("-c", "import importlib.util as u; print([u.find_spec(m) is None for m in "
                           "('ortools', 'xcover', 'pyarrow', 'numba')])")
    assert probe.stdout.strip() == "[True, True, True, True]", probe.stderr


def test_list_names_the_missing_extras(bare):
    listing = bare.cli("list")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert any(line.startswith("  cpsat   MISSING") and "pip install 'pyomo-puzzles[cpsat]'" in line for line in lines)
    assert any(line.startswith("  dlx     MISSING") and "pip install 'pyomo-puzzles[dlx]'" in line for line in lines)


@pytest.mark.parametrize("solver, extra", [("cpsat", "cpsat"), ("dlx", "dlx")])
def test_asking_for_a_missing_extra_is_one_line_and_exit_2(bare, solver, extra):
    result = bare.cli("solve", "packing/l_tromino_cube", "-s", solver)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and f"pyomo-puzzles[{extra}]" in result.stderr


def test_the_pipeline_writes_csv_tables_without_pyarrow(bare, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(textwrap.dedent(f"""\
        results: {tmp_path / 'results'}
        instances: [packing/l_tromino_cube]
        formulations: [placement]
        solvers: [highs]
        repeats: 1
        time_limit: 30
        """))
    path = f"{bare.python.parent}{os.pathsep}{os.environ['PATH']}"
    done = bare.run("-m", "snakemake", "--cores", "2", "--configfile", str(config), cwd=ROOT, timeout=900,
                    extra_env={"PATH": path})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'pyarrow' not installed: tables/runs.parquet is not written" in done.stderr
    tables = tmp_path / "results" / "tables"
    assert (tables / "runs.csv").is_file() and not (tables / "runs.parquet").exists()
    read = bare.run("-c", f"import pyomo_puzzles as pp; t = pp.results({str(tmp_path / 'results')!r}); "
                          "print(len(t), t['status'].tolist(), t['checked'].tolist())")
    assert read.stdout.strip() == "1 ['optimal'] [True]", read.stderr
