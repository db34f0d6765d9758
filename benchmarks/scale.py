"""What an experiment of many short runs costs beyond its runs (issue 59).

Runs the performance-variability experiment of the issue with Snakemake (``--cores 2``) into
a fresh results folder: IQ Twist challenges 19-68 (`packing/iq_twist/challenge_*`),
formulation ``placement``, HiGHS, SCIP and CBC, seeds 1-10 (1,500 runs; ``--seeds 100``:
15,000), one thread, ``models: false``. Prints, for the package now and (``--compare REF``)
at git revision REF, run one after the other on the same machine:

- Snakemake's elapsed time, and the issue's goal: 1.5 x (sum of the runs' wall_time / 2 + 30 s);
- the sums of the records' ``wall_time``, ``load_time``, ``prepare_time`` (a forked run's
  preparation before its clock, part of ``load_time`` before it had its own field) and
  ``solver_time``, and the median ``load_time`` per solver;
- the jobs Snakemake ran (batches), the processes forked for runs (a batch makes its runs in
  turn in one process, replaced after a killed or crashed run or one that left it holding
  too much; a process of its own per run before), the report stage's own time (its log's "done in"), and
  the peak resident memory of any one process of the pipeline.

Run:  python benchmarks/scale.py [--seeds 10] [--compare REF] [--keep DIR] [--batch N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
SOLVERS = ("highs", "scip", "cbc")


def config(seeds: int, results: Path, batch: int | None) -> dict:
    chosen = {"instances": ["packing/iq_twist/challenge_*"], "formulations": ["placement"], "solvers": list(SOLVERS),
              "seeds": list(range(1, seeds + 1)), "threads": 1, "time_limit": 20, "models": False,
              "results": str(results)}
    if batch is not None:
        chosen["batch"] = batch
    return chosen


def pipeline(tree: Path, env: dict, seeds: int, results: Path, batch: int | None) -> dict:
    """One pipeline run of the experiment with the package and workflow of `tree`: its figures."""
    # the same start for both trees: their modules compiled once (a tree checked out fresh has no
    # bytecode, and under PYTHONDONTWRITEBYTECODE every job would compile it again)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "pyomo_puzzles"), str(tree / "workflows")],
                   check=True, env={k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"})
    config_file = results.parent / f"{results.name}.json"
    config_file.write_text(json.dumps(config(seeds, results, batch)))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run([SNAKEMAKE, "--cores", "2", "--configfile", str(config_file)], cwd=tree, env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the pipeline failed in {tree}:\n{done.stderr[-3000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    runs = pd.read_csv(results / "tables" / "runs.csv")
    report_log = (results / "logs" / "report.log").read_text()
    report = re.findall(r"done in ([0-9.]+) s", report_log)
    return {"elapsed": elapsed, "runs": len(runs), "optimal": int((runs["status"] == "optimal").sum()),
            "wall": runs["wall_time"].sum(), "load": runs["load_time"].sum(), "solver": runs["solver_time"].sum(),
            "prepare": runs["prepare_time"].sum() if "prepare_time" in runs else float("nan"),
            "load_median": runs.groupby("solver")["load_time"].median().to_dict(),
            # a run whose process made none before it started a process (before the field: every run)
            "processes": int((runs["runs_before_in_process"] == 0).sum()) if "runs_before_in_process" in runs
            else len(runs),
            "jobs": len(list((results / "batches").glob("*.json"))),
            "report": float(report[-1]) if report else float("nan"),
            "peak_mib": max(peak, before) / 1024}


def show(results: dict[str, dict]) -> None:
    names = list(results)
    rows = [("runs (optimal)", lambda r: f"{r['runs']} ({r['optimal']})"),
            ("Snakemake elapsed [s]", lambda r: f"{r['elapsed']:.1f}"),
            ("goal: 1.5 x (wall/2 + 30) [s]", lambda r: f"{1.5 * (r['wall'] / 2 + 30):.1f}"),
            ("elapsed / goal", lambda r: f"{r['elapsed'] / (1.5 * (r['wall'] / 2 + 30)):.2f}"),
            ("sum wall_time [s]", lambda r: f"{r['wall']:.1f}"),
            ("sum load_time [s]", lambda r: f"{r['load']:.1f}"),
            ("sum prepare_time [s] (in load_time before)", lambda r: f"{r['prepare']:.1f}"),
            ("sum solver_time [s]", lambda r: f"{r['solver']:.1f}"),
            *[(f"median load_time {s} [ms]", lambda r, s=s: f"{1000 * r['load_median'].get(s, float('nan')):.1f}")
              for s in SOLVERS],
            ("jobs (batches)", lambda r: str(r["jobs"])),
            ("run processes forked", lambda r: str(r["processes"])),
            ("report stage [s]", lambda r: f"{r['report']:.1f}"),
            ("peak RSS of one process [MiB]", lambda r: f"{r['peak_mib']:.0f}")]
    width = max(len(label) for label, _ in rows)
    print(f"{'':{width}}  " + "  ".join(f"{name:>14}" for name in names))
    for label, value in rows:
        print(f"{label:{width}}  " + "  ".join(f"{value(results[name]):>14}" for name in names))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per cell: 10 gives 1,500 runs, 100 gives 15,000")
    parser.add_argument("--compare", metavar="REF", help="also run the package at git revision REF")
    parser.add_argument("--batch", type=int, help="runs per batch (default: the configuration's default)")
    parser.add_argument("--keep", type=Path, help="leave the results folders here")
    args = parser.parse_args()
    base = {**os.environ}
    base.pop("PYTHONPATH", None)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="scale-") as scratch, (
            worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext()) as before:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        trees = {"now": ROOT}
        if before is not None:
            trees[f"at {args.compare[:10]}"] = before
        for name, tree in trees.items():
            env = dict(base, PYTHONPATH=str(tree))
            results[name] = pipeline(tree, env, args.seeds, folder / f"results-{name.replace(' ', '-')}", args.batch)
            print(f"{name}: {results[name]['elapsed']:.1f} s", file=sys.stderr, flush=True)
    show(results)


if __name__ == "__main__":
    main()
