"""The smoke experiment through a real SLURM: a one-node cluster started on this machine
(Debian's slurm-wlm, `.ci/slurm_localhost.sh`) and snakemake-executor-plugin-slurm via the
profile `workflows/profiles/slurm`. Skipped, with the reason, where SLURM cannot start
(not root, no apt, daemons refuse to run) or the executor plugin is not installed."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

SCRIPT = ROOT / ".ci" / "slurm_localhost.sh"
SNAKEMAKE = Path(sys.executable).parent / "snakemake"


@pytest.fixture(scope="module")
def slurm_env():
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        pytest.skip("snakemake-executor-plugin-slurm is not installed")
    already_up = subprocess.run(["bash", str(SCRIPT), "status"], capture_output=True).returncode == 0
    started = subprocess.run(["bash", str(SCRIPT), "start"], capture_output=True, text=True, timeout=600)
    if started.returncode != 0:
        reason = (started.stderr.strip().splitlines() or ["no reason given"])[-1]
        pytest.skip(f"a local SLURM cannot start here: {reason}")
    exports = subprocess.run(["bash", str(SCRIPT), "env"], capture_output=True, text=True, check=True).stdout
    env = dict(os.environ)
    for line in exports.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = value.replace('"$PATH"', env["PATH"]).strip('"')
    yield env
    if not already_up:  # a cluster that was up before (someone else's) is left running
        subprocess.run(["bash", str(SCRIPT), "stop"], capture_output=True, timeout=300)


def test_smoke_experiment_through_the_slurm_executor(slurm_env, tmp_path):
    results = tmp_path / "results"
    done = subprocess.run(
        [str(SNAKEMAKE), "--profile", "workflows/profiles/slurm", "--configfile", "workflows/config/smoke.yaml",
         "--config", f"results={results}"],
        cwd=ROOT, env=slurm_env, capture_output=True, text=True, timeout=1200)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    records = [json.loads(p.read_text()) for p in results.glob("runs/**/repeat1.json")]
    assert records and all(r["status"] == "optimal" and r["checked"] for r in records)
    assert (results / "report.md").exists() and (results / "tables/summary.tex").exists()
    assert list(results.glob("counts/**/*.json")) and list(results.glob("pictures/**/*.png"))
    assert (results / "environment.json").exists()

    # The rules really ran as SLURM jobs of this run (the plugin names them after its run ID),
    # and the profile's grouping held: the counts in one job ("extras"), which
    # asked for one CPU (its jobs run one after another), not two. The generated instances,
    # the environment record, the pictures and the report are local rules: no SLURM job.
    run_id = re.search(r"SLURM run ID: (\S+)", output)
    assert run_id, output[-3000:]
    jobs = subprocess.run(["squeue", "-h", "-t", "all", "--name", run_id.group(1), "-o", "%k|%T|%C"],
                          env=slurm_env, capture_output=True, text=True).stdout.split()
    jobs = [line.split("|") for line in jobs]
    assert jobs and all(state == "COMPLETED" for _, state, _ in jobs), jobs
    names = [comment.removeprefix("rule_").split("_wildcards_")[0] for comment, _, _ in jobs]
    assert names.count("solve_batch") == len(list(results.glob("batches/batch*.json"))), names
    assert not {"count", "pictures", "environment", "generate_instances", "report"} & set(names), names
    assert [cpus for comment, _, cpus in jobs if comment.startswith("rule_extras_")] == ["1"], jobs
