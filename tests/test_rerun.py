"""An edit to what runs and counts depend on redoes exactly the affected runs and counts
under plain `snakemake` (no force flag): a plugin family's formulation, a formulation file,
a plugin's instance, a plugin's checker. The records and `environment.json` name the
plugin's distribution once, with its version and commit.

The plugin is a real one: the `new-family` scaffold installed with pip (editable) into an
environment layered on the project's, as a researcher's own family would be, in a git work
tree of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from plugin_env import PluginEnv
from pyomo_puzzles.version import __version__

PLUGIN = ("pyomo-puzzles-tiles", "0.1.0")
"""The scaffold's distribution and version (its pyproject.toml)."""


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """The scaffolded family `tiles` with a second instance, a formulation file of its own,
    and an experiment over both instances and both formulations, with a count of the second
    instance, run once."""
    root = tmp_path_factory.mktemp("rerun")
    assert run_cli("new-family", "tiles", "--path", str(root / "tiles")).returncode == 0
    package = root / "tiles" / "pyomo_puzzles_tiles"
    first = package / "instances" / "knuth_example.yaml"
    (package / "instances" / "knuth_copy.yaml").write_text(first.read_text())
    commit_all(root / "tiles")
    variant = root / "my_cover.py"
    variant.write_text((package / "model_cover.py").read_text() + '\nFAMILY = "tiles"\n')
    env = PluginEnv(root / "env")
    env.install(root / "tiles")
    config = root / "experiment.yaml"
    config.write_text(textwrap.dedent(f"""\
        results: {root / 'results'}
        instances: [tiles/knuth_example, tiles/knuth_copy]
        formulations: [cover, '{variant}:mine']
        solvers: [highs]
        batch: 2
        counts: {{instances: [tiles/knuth_copy], formulations: [cover], solvers: [highs], up_to_symmetry: false}}
        """))
    setup = {"env": env, "config": config, "results": root / "results", "package": package, "variant": variant}
    done = snakemake(setup)
    assert done.returncode == 0, done.stderr[-3000:]
    assert set(records(setup)) == {("run", instance, formulation) for instance in ("tiles/knuth_example", "tiles/knuth_copy")
                                   for formulation in ("cover", "mine")} | {("count", "tiles/knuth_copy", "cover")}
    return setup


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout.strip()


def commit_all(folder: Path) -> None:
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "-c", "user.name=tests", "-c", "user.email=tests@example.org", "commit", "-q", "-m", "the scaffold")


def snakemake(setup: dict):
    path = f"{setup['env'].python.parent}{os.pathsep}{os.environ['PATH']}"
    return setup["env"].run("-m", "snakemake", "--cores", "2", "--configfile", str(setup["config"]), cwd=ROOT,
                            timeout=900, extra_env={"PATH": path})


def records(setup: dict) -> dict[tuple[str, str, str], int]:
    """("run" or "count", instance, formulation) -> the record file's modification time (ns)."""
    found = {}
    for path in (setup["results"] / "runs").rglob("*.json"):
        record = json.loads(path.read_text())
        assert record["status"] == "optimal" and record["checked"], record
        found[("run", record["instance"], record["formulation"])] = path.stat().st_mtime_ns
    for path in (setup["results"] / "counts").rglob("*.json"):
        record = json.loads(path.read_text())
        assert record["complete"] and record["solutions"] == 1 and record["agrees_with_known"], record  # Knuth: one cover
        found[("count", record["instance"], record["formulation"])] = path.stat().st_mtime_ns
    return found


def rewritten_after(setup: dict, edit) -> set[tuple[str, str, str]]:
    """Apply `edit`, run plain `snakemake`, and return the runs and counts whose records were
    written again."""
    before = records(setup)
    edit()
    done = snakemake(setup)
    assert done.returncode == 0, done.stderr[-3000:]
    after = records(setup)
    assert set(after) == set(before)
    return {run for run in after if after[run] != before[run]}


def append(path: Path, text: str):
    return lambda: path.write_text(path.read_text() + text)


def batch_logs(setup: dict) -> str:
    return "".join(p.read_text() for p in (setup["results"] / "logs" / "batches").glob("*.log"))


def plugin_entry(setup: dict) -> dict:
    environment = json.loads((setup["results"] / "environment.json").read_text())
    return next(p for p in environment["plugins"] if p["distribution"] == PLUGIN[0])


def test_nothing_changed_nothing_runs(experiment):
    assert rewritten_after(experiment, lambda: None) == set()


def test_an_edited_plugin_formulation_reruns_its_runs_and_counts_only(experiment):
    rewritten = rewritten_after(experiment, append(experiment["package"] / "model_cover.py", "\n# an edit\n"))
    assert rewritten == {("run", "tiles/knuth_example", "cover"), ("run", "tiles/knuth_copy", "cover"),
                         ("count", "tiles/knuth_copy", "cover")}


def test_an_edited_formulation_file_reruns_its_runs_only(experiment):
    rewritten = rewritten_after(experiment, append(experiment["variant"], "\n# an edit\n"))
    assert rewritten == {("run", "tiles/knuth_example", "mine"), ("run", "tiles/knuth_copy", "mine")}


def test_an_edited_plugin_instance_reruns_its_runs_and_counts_only(experiment):
    instance = experiment["package"] / "instances" / "knuth_copy.yaml"
    rewritten = rewritten_after(experiment, append(instance, "# an edit\n"))
    assert rewritten == {("run", "tiles/knuth_copy", "cover"), ("run", "tiles/knuth_copy", "mine"),
                         ("count", "tiles/knuth_copy", "cover")}
    assert "changed since the record: instance" in batch_logs(experiment)


def test_an_edited_plugin_checker_reruns_its_runs_and_counts(experiment):
    everything = set(records(experiment))
    assert rewritten_after(experiment, append(experiment["package"] / "checker.py", "\n# an edit\n")) == everything
    assert "changed since the record: family" in batch_logs(experiment)
    assert plugin_entry(experiment)["uncommitted_changes"] is True  # environment.json written again


def test_records_name_the_plugin_once(experiment):
    paths = [*(experiment["results"] / "runs").rglob("*.json"), *(experiment["results"] / "counts").rglob("*.json")]
    packages = {(json.loads(path.read_text()).get("fingerprint") or {}).get("package") for path in paths}
    assert packages == {f"pyomo-puzzles {__version__}; {PLUGIN[0]} {PLUGIN[1]}"}


def test_a_count_record_carries_its_settings(experiment):
    path = next((experiment["results"] / "counts").rglob("*.json"))
    fingerprint = json.loads(path.read_text())["fingerprint"]
    assert fingerprint["settings"] == {"method": "nogood", "up_to_symmetry": False, "time_limit": 600,
                                       "every_feasible": False}


def test_environment_names_the_plugin_its_version_and_commit(experiment):
    entry = plugin_entry(experiment)
    folder = experiment["package"].parent
    assert (entry["distribution"], entry["version"]) == PLUGIN and entry["families"] == ["tiles"]
    assert entry["commit"] == git(folder, "rev-parse", "HEAD")
    assert entry["uncommitted_changes"] is bool(git(folder, "status", "--porcelain"))
