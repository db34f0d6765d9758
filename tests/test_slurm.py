"""The smoke experiment through a real SLURM: a one-node cluster started on this machine
(Debian's slurm-wlm, `.ci/slurm_localhost.sh`) and snakemake-executor-plugin-slurm via the
profile `workflows/profiles/slurm`. Skipped, with the reason, where SLURM cannot start
(not root, no apt, daemons refuse to run) or the executor plugin is not installed."""

from __future__ import annotations

import importlib.util
import json
import os
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
    subprocess.run(["bash", str(SCRIPT), "stop"], capture_output=True, timeout=300)


def test_smoke_experiment_through_the_slurm_executor(slurm_env, tmp_path):
    results = tmp_path / "results"
    done = subprocess.run(
        [str(SNAKEMAKE), "--profile", "workflows/profiles/slurm", "--configfile", "workflows/config/smoke.yaml",
         "--config", f"results={results}"],
        cwd=ROOT, env=slurm_env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "Job submitted" in done.stdout + done.stderr or "SLURM" in done.stdout + done.stderr
    records = [json.loads(p.read_text()) for p in results.glob("runs/**/repeat1.json")]
    assert records and all(r["status"] == "optimal" and r["checked"] for r in records)
    assert (results / "report.md").exists() and (results / "tables/summary.tex").exists()
    jobs = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%j %T"], env=slurm_env, capture_output=True,
                          text=True).stdout.split("\n")
    assert any("COMPLETED" in line for line in jobs), jobs  # the rules really ran as SLURM jobs
