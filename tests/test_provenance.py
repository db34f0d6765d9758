"""The software a results folder was made with: the environment is the lock's, its record
names the lock's digest and the solver executables' packages, and `compare` says when two
folders were made with different solver or package versions.

Folder B is made in a real second environment: the project's, layered, with another
release of HiGHS (highspy) installed into it with pip, as a user upgrading a solver would.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from plugin_env import PluginEnv
from pyomo_puzzles.core import solvers

OTHER_HIGHSPY = "1.16.0"  # a release the lock does not hold (pyproject.toml keeps highspy < 1.16)
LOCK = ROOT / "uv.lock"


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_environment_is_the_locked_one():
    """Every installed distribution the lock lists has a locked version: what the README's
    set-up promises (the lock parsed here, not by the package)."""
    locked: dict[str, set[str]] = {}
    for package in tomllib.loads(LOCK.read_text())["package"]:
        if "version" in package:
            locked.setdefault(normalized(package["name"]), set()).add(package["version"])
    installed = {normalized(d.metadata["Name"]): d.version for d in metadata.distributions()}
    assert {"pyomo", "highspy", "pyscipopt", "snakemake", "pyyaml"} <= set(installed) & set(locked)
    off = {name: (version, locked[name]) for name, version in installed.items()
           if name in locked and version not in locked[name]}
    assert not off, f"installed versions that are not the locked ones: {off}"


def pipeline_config(folder: Path, compare_with: Path | None = None) -> Path:
    config = folder.parent / f"{folder.name}.yaml"
    config.write_text(textwrap.dedent(f"""\
        results: {folder}
        instances: [packing/iq_twist/challenge_21, packing/iq_twist/challenge_22]
        formulations: [placement]
        solvers: [highs, glpk]
        repeats: 1
        time_limit: 60
        """) + (f"compare_with: {compare_with}\n" if compare_with else ""))
    return config


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Folder A from the project's environment, folder B from one with another HiGHS."""
    root = tmp_path_factory.mktemp("provenance")
    other = PluginEnv(root / "env")
    installed = other.run("-m", "pip", "install", "-q", "--no-deps", f"highspy=={OTHER_HIGHSPY}")
    if installed.returncode != 0:
        pytest.skip(f"highspy {OTHER_HIGHSPY} cannot be installed from the package index here: "
                    f"{(installed.stderr.strip().splitlines() or ['no reason given'])[-1]}")
    a, b = root / "a", root / "b"
    for folder, python, compare_with in ((a, None, None), (b, other, a)):
        command = ["-m", "snakemake", "--cores", "2", "--configfile", str(pipeline_config(folder, compare_with))]
        if python is None:
            done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True,
                                  timeout=900)
        else:
            path = f"{python.python.parent}{os.pathsep}{os.environ['PATH']}"
            done = python.run(*command, cwd=ROOT, timeout=900, extra_env={"PATH": path})
        assert done.returncode == 0, done.stderr[-3000:]
    return {"a": a, "b": b, "highspy_a": metadata.version("highspy")}


def environment(folder: Path) -> dict:
    return json.loads((folder / "environment.json").read_text())


def test_the_environment_record_names_the_lock_and_whether_it_was_kept(folders):
    digest = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    lock_a, lock_b = environment(folders["a"])["lock"], environment(folders["b"])["lock"]
    assert lock_a["sha256"] == digest and lock_a["installed_as_locked"] is True
    assert lock_a["not_as_locked"] == {} and lock_a["not_in_lock"] == {}
    assert lock_b["sha256"] == digest and lock_b["installed_as_locked"] is False
    assert lock_b["not_as_locked"] == {"highspy": {"installed": OTHER_HIGHSPY, "locked": [folders["highspy_a"]]}}
    assert environment(folders["b"])["packages"]["highspy"] == OTHER_HIGHSPY


def test_the_environment_record_names_the_solver_libraries_and_their_bindings(folders):
    # GLPK runs in-process from the swiglpk wheel's library (issue 44): no executable is
    # recorded; the solver's version names the library's version and the wheel's
    ok, version = solvers.availability("glpk")
    if not ok:
        pytest.skip(f"glpk is not installed: {version}")
    recorded = environment(folders["a"])
    binding = metadata.version("swiglpk")
    assert "glpk" not in recorded["solver_executables"]
    assert recorded["solvers"]["glpk"] == version and version.startswith("GLPK 5.") and \
        f"(swiglpk {binding}; hand-over: " in version, version  # the loops that handed the matrix over
    assert recorded["packages"]["swiglpk"] == binding
    assert {r["solver_version"] for r in records(folders["a"]) if r["solver"] == "glpk"} == {version}


def records(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((folder / "runs").rglob("*.json"))]


def test_the_runs_really_used_two_versions_of_highs(folders):
    highs = {side: {r["solver_version"] for r in records(folders[side]) if r["solver"] == "highs"}
             for side in ("a", "b")}
    assert highs == {"a": {f"HiGHS {folders['highspy_a']}"}, "b": {f"HiGHS {OTHER_HIGHSPY}"}}
    assert all(r["status"] == "optimal" and r["checked"] for side in ("a", "b") for r in records(folders[side]))


def test_compare_says_which_versions_differ(folders):
    done = run_cli("compare", folders["a"], folders["b"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    said = lines.index("Versions differ between A and B (a ratio then measures the software change too):")
    differences = [line.removeprefix("  - ") for line in lines[said + 1:] if line.startswith("  - ")]
    old, new = folders["highspy_a"], OTHER_HIGHSPY
    assert f"solver highs: HiGHS {old} in A, HiGHS {new} in B" in differences
    assert f"package highspy: {old} in A, {new} in B" in differences
    assert f"B's packages are not all the locked ones: highspy {new} (locked {old})" in differences
    assert not any("glpk" in line for line in differences)  # GLPK is the same library in both
    assert not any(line.startswith("lock file") for line in differences)  # one lock file


def test_the_tables_give_each_rows_solver_versions(folders):
    from pyomo_puzzles.report import compare

    table = compare.compare_folders(folders["a"], folders["b"])
    versions = {row.solver: (row.solver_version_a, row.solver_version_b) for row in table.itertuples()}
    assert versions["highs"] == (f"HiGHS {folders['highspy_a']}", f"HiGHS {OTHER_HIGHSPY}")
    assert versions["glpk"][0] == versions["glpk"][1] == solvers.availability("glpk")[1]


def test_the_report_compared_with_another_folder_says_so_too(folders):
    tex = (folders["b"] / "tables" / "comparison.tex").read_text()
    assert "Versions differ between A and B" in tex and f"HiGHS {OTHER_HIGHSPY} in B" in tex
    page = (folders["b"] / "report.html").read_text()
    assert "Versions differ between A and B" in page and f"package highspy: {folders['highspy_a']} in A" in page


def test_a_folder_against_itself_has_the_same_versions(folders):
    done = run_cli("compare", folders["a"], folders["a"])
    assert "Versions: A and B were made with the same solver and package versions." in done.stdout.splitlines()


def test_a_folder_without_an_environment_record_is_said_to_have_none(folders, tmp_path):
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(folders["a"] / "runs", bare / "runs")
    done = run_cli("compare", bare, folders["a"])
    lines = done.stdout.splitlines()
    said = lines.index("Versions: the run records name the same solver versions; not known beyond them:")
    assert lines[said + 1] == "  - A has no environment.json: its package versions are not known"


def test_the_generic_adapter_names_the_program_it_runs_in_the_environment_record():
    """`pyomo:glpk` runs GLPK's glpsol (Debian's glpk-utils, which the set-up installs): the
    environment record names its path and, where dpkg knows it, its package; an in-process
    solver names none."""
    from pyomo_puzzles import experiment

    if not solvers.availability("pyomo:glpk")[0]:
        pytest.skip(f"pyomo:glpk is not available: {solvers.availability('pyomo:glpk')[1]}")
    found = experiment._solver_executables(["pyomo:glpk", "highs"])
    assert set(found) == {"pyomo:glpk"} and found["pyomo:glpk"]["path"].endswith("/glpsol"), found
    if shutil.which("dpkg-query") and found["pyomo:glpk"]["path"] == "/usr/bin/glpsol":
        assert found["pyomo:glpk"]["package"] == "glpk-utils", found
