"""The Snakemake main job on the smoke configuration: records, picture, summary, resume."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema

from conftest import ROOT
from pyomo_puzzles.core import solvers
from pyomo_puzzles.core.records import RUN_RECORD_SCHEMA

SNAKEMAKE = Path(sys.executable).parent / "snakemake"


def snakemake(results: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SNAKEMAKE), "--cores", "2", "--configfile", "workflows/config/smoke.yaml",
         "--config", f"results={results}", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_smoke_experiment_runs_and_resumes(tmp_path):
    results = tmp_path / "results"
    first = snakemake(results)
    assert first.returncode == 0, first.stderr[-2000:]
    installed = [s for s in ("highs", "glpk") if solvers.availability(s)[0]]
    records = sorted(results.glob("runs/packing/l_tromino_cube/placement/*/repeat1.json"))
    assert [p.parent.name for p in records] == sorted(installed)
    for path in records:
        record = json.loads(path.read_text())
        jsonschema.validate(record, RUN_RECORD_SCHEMA)
        assert record["status"] == "optimal" and record["checked"] is True
    assert (results / "pictures/packing/l_tromino_cube.png").stat().st_size > 1000
    assert "| packing/l_tromino_cube | placement |" in (results / "summary.md").read_text()
    second = snakemake(results)
    assert second.returncode == 0 and "Nothing to be done" in second.stdout + second.stderr
