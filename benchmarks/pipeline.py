"""The pipeline's overhead: wall time of the smoke experiment against the solver time in it.

Runs `snakemake --cores C --configfile workflows/config/smoke.yaml` into fresh results
folders, with every run in a job of its own (`batch=1`: one Python and Pyomo start-up per
run) and with runs grouped (`batch=B`), and prints for each: the pipeline's wall time,
the sum of the solver times in the run records, the sum of the runs' own wall times
(build + solve + decode + check), and the ratios. Repeated `--repeats` times, medians.
Two targets: the runs only (`tables/runs.parquet`) and the whole experiment (tables,
figures, report).

Run:  python benchmarks/pipeline.py [--repeats 3] [--batch 16] [--cores 2]

The default experiment's utilisation (pipeline wall time against the runs' wall times,
core-seconds by rule, idle cores) is `benchmarks/utilisation.py`.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
CONFIG = "workflows/config/smoke.yaml"


def once(batch: int, cores: int, whole: bool, results: Path) -> tuple[float, float, float, int]:
    target = [] if whole else ["--", str(results / "tables/runs.parquet")]
    command = [SNAKEMAKE, "--cores", str(cores), "--configfile", CONFIG,
               "--config", f"results={results}", f"batch={batch}", *target]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"snakemake failed:\n{done.stderr[-2000:]}")
    runs = pd.read_parquet(results / "tables/runs.parquet")
    return wall, float(runs.solver_time.sum()), float(runs.wall_time.sum()), len(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16, help="runs per job when grouped (default 16)")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# smoke experiment ({CONFIG}), {args.cores} cores, median of {args.repeats}; seconds")
    print(f"{'target':10s} {'grouping':>10s} {'runs':>5s} {'pipeline':>9s} {'Σ solver':>9s} {'Σ run':>8s} "
          f"{'pipeline/Σ solver':>18s} {'pipeline/Σ run':>15s}")
    for whole in (False, True):
        for batch in (1, args.batch):
            measured = []
            for _ in range(args.repeats):
                with tempfile.TemporaryDirectory() as tmp:
                    measured.append(once(batch, args.cores, whole, Path(tmp) / "results"))
            wall, solver, run_wall = (statistics.median(m[i] for m in measured) for i in range(3))
            label = "everything" if whole else "runs"
            grouping = "none" if batch == 1 else f"batch {batch}"
            print(f"{label:10s} {grouping:>10s} {measured[0][3]:5d} {wall:9.2f} {solver:9.3f} {run_wall:8.3f} "
                  f"{wall / solver:17.0f}x {wall / run_wall:14.0f}x", flush=True)


if __name__ == "__main__":
    main()
