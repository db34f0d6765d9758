"""`pyomo-puzzles new-family NAME --path DIR` writes a package that installs with
``pip install -e DIR`` and passes its own tests and the conformance kit unchanged, and the
family then has list, solve (checked), count and check."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from plugin_env import PluginEnv


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    root = tmp_path_factory.mktemp("scaffold")
    result = run_cli("new-family", "tiles", "--path", str(root / "tiles"))
    assert result.returncode == 0, result.stderr
    env = PluginEnv(root / "env")
    env.install(root / "tiles")
    return env, root / "tiles"


def test_the_scaffold_passes_its_own_tests_and_the_conformance_kit(scaffolded):
    env, package = scaffolded
    result = env.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", cwd=package)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "failed" not in result.stdout
    assert "test_conformance[contract]" in env.run("-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
                                                   cwd=package).stdout


def test_the_installed_family_has_every_command(scaffolded, tmp_path):
    env, _ = scaffolded
    listing = env.cli("list")
    assert listing.returncode == 0 and "  tiles: Tiles: choose options" in listing.stdout
    assert "tiles/knuth_example" in listing.stdout
    components = env.cli("list", "--components").stdout  # what a variant of the plugin's model refers to
    assert "Constraint each_item_covered_once[ITEMS]" in components and "Var        x[OPTIONS]" in components
    record = tmp_path / "record.json"
    solved = env.cli("solve", "tiles/knuth_example", "-o", str(record), "--picture", str(tmp_path / "s.png"))
    assert solved.returncode == 0, solved.stderr
    assert "optimal" in solved.stdout and "solution checked" in solved.stdout
    assert sorted(json.loads(record.read_text())["solution"]["options"]) == ["o1", "o4", "o5"]  # Knuth (2000)
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    counted = env.cli("count", "tiles/knuth_example", "-q")
    assert counted.returncode == 0 and "1 solution; complete" in counted.stdout
    assert env.cli("check", "tiles/knuth_example", str(record)).returncode == 0
    # a feature whose hook the scaffold does not have: one line, exit 2
    symmetric = env.cli("count", "tiles/knuth_example", "--up-to-symmetry", "-q")
    assert symmetric.returncode == 2
    assert symmetric.stderr.strip().splitlines() == [
        "pyomo-puzzles: error: family 'tiles' states no symmetries (its Family has no 'symmetry_images' hook): "
        "count without --up-to-symmetry"]


def test_the_scaffold_built_as_a_wheel_keeps_instances_in_subfolders(tmp_path):
    # was: the package data pattern 'instances/*.yaml' left out instances/<folder>/*.yaml
    assert run_cli("new-family", "tiles", "--path", str(tmp_path / "tiles")).returncode == 0
    instances = tmp_path / "tiles" / "pyomo_puzzles_tiles" / "instances"
    (instances / "harder").mkdir()
    (instances / "harder" / "knuth_again.yaml").write_text((instances / "knuth_example.yaml").read_text())
    env = PluginEnv(tmp_path / "env")
    env.run("-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"),
            str(tmp_path / "tiles"), check=True)
    wheel = next((tmp_path / "dist").glob("*.whl"))
    env.run("-m", "pip", "install", "-q", "--no-deps", str(wheel), check=True)
    listing = env.cli("list", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "tiles/knuth_example" in listing.stdout and "tiles/harder/knuth_again" in listing.stdout
    assert env.cli("solve", "tiles/harder/knuth_again", cwd=tmp_path).returncode == 0


def test_the_scaffold_refuses_a_taken_name_or_a_folder_in_use(tmp_path):
    taken = run_cli("new-family", "packing", "--path", str(tmp_path / "p"))
    assert taken.returncode == 2 and "a family named 'packing' exists already" in taken.stderr
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "file").write_text("x")
    used = run_cli("new-family", "fresh", "--path", str(tmp_path / "used"))
    assert used.returncode == 2 and "exists and is not an empty folder" in used.stderr
    bad = run_cli("new-family", "Bad-Name", "--path", str(tmp_path / "b"))
    assert bad.returncode == 2 and "must be lower-case letters" in bad.stderr
