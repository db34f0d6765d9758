"""The smoke experiment through SLURM against the same experiment run locally (issue 17: the
SLURM run within 2x the local one).

Starts the one-node SLURM cluster of `.ci/slurm_localhost.sh` on this machine (or says why it
cannot, and exits 0), then runs, interleaved and into fresh results folders,

    snakemake --cores C --configfile workflows/config/smoke.yaml --config results=DIR
    snakemake --profile workflows/profiles/slurm --configfile workflows/config/smoke.yaml --config results=DIR

`--repeats` times each, after one untimed local run that fills the caches both use (the
package's disk cache, the file system's). Prints every run, then the medians and the ratio
SLURM / local; with several `--profile`s, each repeat runs them in turn after the local run.
For each SLURM run also: its SLURM jobs; the seconds from the command's start
to the first submission (Snakemake's start-up); the seconds after it during which no job of
the run was queued or running (Snakemake waiting for its next status check to see that a job
had ended: polling latency); the longest wait of a job in the queue; and the seconds the jobs
ran, summed (each job starts Snakemake twice, see the profile). Stops the cluster if it
started it.

Run:  python benchmarks/slurm.py [--repeats 3] [--cores 2] [--profile workflows/profiles/slurm]
                                 [--profile OTHER_PROFILE ...] [--slurm-args "--slurm-jobname-prefix x"]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
CLUSTER = ROOT / ".ci" / "slurm_localhost.sh"
CONFIG = "workflows/config/smoke.yaml"


def cluster_env() -> dict:
    """This process's environment with the localhost cluster's SLURM commands on PATH."""
    exports = subprocess.run(["bash", str(CLUSTER), "env"], capture_output=True, text=True, check=True).stdout
    env = dict(os.environ)
    for line in exports.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = value.replace('"$PATH"', env["PATH"]).strip('"')
    return env


def snakemake(command: list[str], env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed: {shlex.join(command)}\n{(done.stdout + done.stderr)[-3000:]}")
    return wall, done.stdout + done.stderr


def local(cores: int, results: Path) -> float:
    command = [SNAKEMAKE, "--cores", str(cores), "--configfile", CONFIG, "--config", f"results={results}"]
    return snakemake(command, dict(os.environ))[0]


def slurm_jobs(run_id: str, env: dict) -> list[tuple[str, datetime, datetime, datetime]]:
    """(comment, submitted, started, ended) of the run's SLURM jobs (the plugin names every job
    of a run after its run ID)."""
    out = subprocess.run(["squeue", "-h", "-t", "all", "--name", run_id, "-o", "%k|%V|%S|%e"], env=env,
                         capture_output=True, text=True).stdout
    jobs = []
    for line in out.splitlines():
        comment, *stamps = line.split("|")
        try:
            jobs.append((comment, *(datetime.fromisoformat(s) for s in stamps)))
        except ValueError:  # a job without an end (cannot happen after a finished run)
            continue
    return jobs


def through_slurm(profile: str, extra: list[str], env: dict, results: Path) -> dict:
    command = [SNAKEMAKE, "--profile", profile, "--configfile", CONFIG, "--config", f"results={results}", *extra]
    began = datetime.now()
    wall, output = snakemake(command, env)
    ended = datetime.now()
    if not (results / "report.md").exists():
        raise SystemExit(f"no report.md after {shlex.join(command)}")
    run_id = re.search(r"SLURM run ID: (\S+)", output)
    jobs = slurm_jobs(run_id.group(1), env) if run_id else []
    if not jobs:
        raise SystemExit(f"no SLURM job of the run found with squeue after {shlex.join(command)}")
    first = min(submitted for _, submitted, _, _ in jobs)
    # seconds from the first submission to the end during which no job of the run was queued
    # or running: Snakemake waiting for its next status check to see that a job had ended
    covered, reach = 0.0, first
    for _, submitted, _, end in sorted(jobs, key=lambda job: job[1]):
        if end > reach:
            covered += (end - max(submitted, reach)).total_seconds()
            reach = end
    return {"wall": wall, "jobs": len(jobs),
            "startup": (first - began).total_seconds(),
            "idle": (ended - first).total_seconds() - covered,
            "queued": max((start - submitted).total_seconds() for _, submitted, start, _ in jobs),
            "running": sum((end - start).total_seconds() for _, _, start, end in jobs),
            "names": sorted(comment.removeprefix("rule_").split("_wildcards_")[0] for comment, *_ in jobs)}


def describe(profile: str) -> str:
    settings = yaml.safe_load((ROOT / profile / "config.yaml").read_text()) or {}
    keys = ("slurm-init-seconds-before-status-checks", "groups", "group-components")
    return "; ".join(f"{key}: {settings[key]}" for key in keys if key in settings) or "no polling or group settings"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2, help="cores of the local run (default 2)")
    parser.add_argument("--profile", action="append",
                        help="a SLURM profile folder; give it again to compare profiles, run in turn "
                             "(default: workflows/profiles/slurm)")
    parser.add_argument("--slurm-args", default="", help="more snakemake arguments for the SLURM runs, one string")
    args = parser.parse_args()
    profiles = args.profile or ["workflows/profiles/slurm"]
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# smoke experiment ({CONFIG}); {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"median of {args.repeats}; seconds")
    for number, profile in enumerate(profiles, 1):
        print(f"# profile {number}, {profile}: {describe(profile)}"
              + (f"; and on the command line: {args.slurm_args}" if args.slurm_args else ""))

    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        print("# cannot run: snakemake-executor-plugin-slurm is not installed (pip install "
              "snakemake-executor-plugin-slurm)")
        return
    already_up = subprocess.run(["bash", str(CLUSTER), "status"], capture_output=True).returncode == 0
    if not already_up:
        started = subprocess.run(["bash", str(CLUSTER), "start"], capture_output=True, text=True, timeout=600)
        if started.returncode != 0:
            reason = (started.stderr.strip().splitlines() or ["no reason given"])[-1]
            print(f"# cannot run: a local SLURM cannot start here ({reason})")
            return
    try:
        env = cluster_env()
        extra = shlex.split(args.slurm_args)
        local_walls: list[float] = []
        slurm_runs: dict[str, list[dict]] = {profile: [] for profile in profiles}
        with tempfile.TemporaryDirectory() as tmp:
            local(args.cores, Path(tmp) / "warm-up")
            print(f"{'run':>4s} {'local':>7s} {'profile':>8s} {'SLURM':>7s} {'jobs':>5s} {'start-up':>9s} "
                  f"{'no job':>7s} {'max queued':>11s} {'Σ job run':>10s}")
            for repeat in range(args.repeats):
                local_walls.append(local(args.cores, Path(tmp) / f"local-{repeat}"))
                for number, profile in enumerate(profiles, 1):
                    s = through_slurm(profile, extra, env, Path(tmp) / f"slurm-{repeat}-{number}")
                    slurm_runs[profile].append(s)
                    shown = f"{local_walls[-1]:7.1f}" if number == 1 else " " * 7
                    print(f"{repeat + 1:4d} {shown} {number:8d} "
                          f"{s['wall']:7.1f} {s['jobs']:5d} {s['startup']:9.0f} {s['idle']:7.0f} {s['queued']:11.0f} "
                          f"{s['running']:10.0f}", flush=True)
        local_median = statistics.median(local_walls)
        print(f"median  local {local_median:.1f}")
        for number, (profile, runs) in enumerate(slurm_runs.items(), 1):
            slurm_median = statistics.median(s["wall"] for s in runs)
            print(f"median  profile {number}: SLURM {slurm_median:.1f}  SLURM/local {slurm_median / local_median:.2f}"
                  f"  (issue 17's goal: at most 2); its SLURM jobs: {', '.join(runs[0]['names'])}")
    finally:
        if not already_up:
            subprocess.run(["bash", str(CLUSTER), "stop"], capture_output=True, timeout=300)


if __name__ == "__main__":
    main()
