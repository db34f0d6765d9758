"""An edit to what runs depend on re-runs exactly the affected runs under plain `snakemake`
(no force flag): a plugin family's formulation, a formulation file, a plugin's instance.

The plugin is a real one: the `new-family` scaffold installed with pip (editable) into an
environment layered on the project's, as a researcher's own family would be.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from plugin_env import PluginEnv


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """The scaffolded family `tiles` with a second instance, a formulation file of its own,
    and an experiment over both instances and both formulations, run once."""
    root = tmp_path_factory.mktemp("rerun")
    assert run_cli("new-family", "tiles", "--path", str(root / "tiles")).returncode == 0
    package = root / "tiles" / "pyomo_puzzles_tiles"
    first = package / "instances" / "knuth_example.yaml"
    (package / "instances" / "knuth_copy.yaml").write_text(first.read_text())
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
        """))
    setup = {"env": env, "config": config, "results": root / "results", "package": package, "variant": variant}
    done = snakemake(setup)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(records(setup)) == 4
    return setup


def snakemake(setup: dict):
    path = f"{setup['env'].python.parent}{os.pathsep}{os.environ['PATH']}"
    return setup["env"].run("-m", "snakemake", "--cores", "2", "--configfile", str(setup["config"]), cwd=ROOT,
                            timeout=900, extra_env={"PATH": path})


def records(setup: dict) -> dict[tuple[str, str], int]:
    """(instance, formulation) -> the record file's modification time (ns)."""
    found = {}
    for path in (setup["results"] / "runs").rglob("*.json"):
        record = json.loads(path.read_text())
        assert record["status"] == "optimal" and record["checked"], record
        found[(record["instance"], record["formulation"])] = path.stat().st_mtime_ns
    return found


def rewritten_after(setup: dict, edit) -> set[tuple[str, str]]:
    """Apply `edit`, run plain `snakemake`, and return the runs whose records were written again."""
    before = records(setup)
    edit()
    done = snakemake(setup)
    assert done.returncode == 0, done.stderr[-3000:]
    after = records(setup)
    assert set(after) == set(before)
    return {run for run in after if after[run] != before[run]}


def append(path: Path, text: str):
    return lambda: path.write_text(path.read_text() + text)


def test_nothing_changed_nothing_runs(experiment):
    assert rewritten_after(experiment, lambda: None) == set()


def test_an_edited_plugin_formulation_reruns_its_runs_only(experiment):
    rewritten = rewritten_after(experiment, append(experiment["package"] / "model_cover.py", "\n# an edit\n"))
    assert rewritten == {("tiles/knuth_example", "cover"), ("tiles/knuth_copy", "cover")}


def test_an_edited_formulation_file_reruns_its_runs_only(experiment):
    rewritten = rewritten_after(experiment, append(experiment["variant"], "\n# an edit\n"))
    assert rewritten == {("tiles/knuth_example", "mine"), ("tiles/knuth_copy", "mine")}


def test_an_edited_plugin_instance_reruns_its_runs_only(experiment):
    instance = experiment["package"] / "instances" / "knuth_copy.yaml"
    rewritten = rewritten_after(experiment, append(instance, "# an edit\n"))
    assert rewritten == {("tiles/knuth_copy", "cover"), ("tiles/knuth_copy", "mine")}
    logs = "".join(p.read_text() for p in (experiment["results"] / "logs" / "batches").glob("*.log"))
    assert "changed since the record: instance" in logs
