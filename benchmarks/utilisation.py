"""How busy the cores are while the default experiment runs, and where the idle time goes.

Runs ``snakemake --cores C --configfile workflows/config/default.yaml`` into a fresh results
folder and prints:

- the pipeline's wall time (the snakemake command), the sum of the runs' own wall times
  (``wall_time`` of every run record: build, solve, decode, check), and the goal of issue
  17, ``1.25 x (sum of run wall times / cores) + 30 s``;
- the core-seconds spent in jobs, by rule (from each job's log: it ends "done in S s", and
  its file's time says when), what the batches spent outside their runs (start-up, loading,
  forking), and the core-seconds no job used (cores x wall - jobs): Snakemake's own start-up
  and scheduling, and cores waiting for the last job.

``--compare REF`` also runs the package and workflow at git revision REF (a temporary
worktree, its own Snakefile, PYTHONPATH set to it), alternating with this checkout,
``--repeats`` times each: before and after in one run. The disk cache (`core.cache`) is
filled once before, by solving a 2x2x2 and a 3x3x3 scramble, as it is on any machine after
its first run.

Run:  python benchmarks/utilisation.py [--cores 2] [--repeats 1] [--compare REF] [--config FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
RULE_OF_LOG = {"batches": "solve_batch", "instances": "generate_instances", "pictures": "pictures",
               "counts": "count", "environment": "environment", "report": "report"}


def job_times(results: Path) -> list[tuple[str, float, float]]:
    """(rule, start, end) of every job, from its log: the last line says its duration and the
    file's modification time is its end."""
    jobs = []
    for log in sorted((results / "logs").rglob("*.log")):
        lines = log.read_text().splitlines()
        first = lines[0].split(" job on ")[0] if lines else ""
        done = re.match(r"done in ([0-9.]+) s", lines[-1]) if lines else None
        if done:
            end = log.stat().st_mtime
            jobs.append((first or RULE_OF_LOG.get(log.relative_to(results / "logs").parts[0], "?"),
                         end - float(done.group(1)), end))
    return jobs


def run_wall_times(results: Path) -> float:
    return sum(json.loads(p.read_text()).get("wall_time") or 0.0 for p in (results / "runs").rglob("*.json"))


def once(tree: Path, env: dict, cores: int, config: str, results: Path) -> dict:
    command = [SNAKEMAKE, "--cores", str(cores), "--configfile", config, "--config", f"results={results}"]
    started = time.time()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.time() - started
    if done.returncode != 0:
        raise SystemExit(f"snakemake failed in {tree}:\n{done.stderr[-3000:]}")
    jobs = job_times(results)
    by_rule: dict[str, float] = defaultdict(float)
    for rule, start, end in jobs:
        by_rule[rule] += end - start
    runs = run_wall_times(results)
    return {"wall": wall, "runs": runs, "goal": 1.25 * runs / cores + 30, "by_rule": dict(by_rule),
            "jobs": len(jobs), "in_jobs": sum(by_rule.values()), "records": len(list((results / "runs").rglob("*.json")))}


def warm_the_cache(env: dict) -> None:
    for name in ("rubik/htm_depth_07", "rubik/cube3_htm_depth_06"):
        subprocess.run([sys.executable, "-m", "pyomo_puzzles.cli", "solve", name], env=env, check=True,
                       capture_output=True, cwd=env["PYOMO_PUZZLES_CACHE"])


def report(label: str, measured: list[dict], cores: int) -> None:
    def median(key):
        return statistics.median(m[key] for m in measured)

    wall, runs, in_jobs = median("wall"), median("runs"), median("in_jobs")
    print(f"\n## {label}: {measured[0]['records']} records, {measured[0]['jobs']} jobs, median of {len(measured)}")
    print(f"pipeline wall {wall:7.1f} s   sum of run wall times {runs:7.1f} s   goal 1.25 x runs / {cores} + 30 = "
          f"{median('goal'):6.1f} s   pipeline / goal {wall / median('goal'):5.2f}")
    print(f"core-seconds: {cores} x wall = {cores * wall:7.1f}; in jobs {in_jobs:7.1f} "
          f"(runs {runs:.1f}, batches outside their runs {median_rule(measured, 'solve_batch') - runs:.1f}); "
          f"no job running {cores * wall - in_jobs:7.1f}")
    for rule in sorted(measured[0]["by_rule"], key=lambda r: -measured[0]["by_rule"][r]):
        print(f"  {rule:20s} {median_rule(measured, rule):7.1f} core-s")


def median_rule(measured: list[dict], rule: str) -> float:
    return statistics.median(m["by_rule"].get(rule, 0.0) for m in measured)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--config", default="workflows/config/default.yaml")
    parser.add_argument("--compare", metavar="REF", help="also run the package and workflow at this git revision")
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# {args.cores} cores of {os.cpu_count()}; {args.config}; {time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        base = dict(os.environ, PYOMO_PUZZLES_CACHE=str(scratch / "cache"))
        (scratch / "cache").mkdir()
        trees = {"now": (ROOT, dict(base, PYTHONPATH=str(ROOT)))}
        with worktree(args.compare, scratch / "before") if args.compare else contextlib.nullcontext() as before:
            if before is not None:
                trees[f"at {args.compare}"] = (before, dict(base, PYTHONPATH=str(before)))
            warm_the_cache(trees["now"][1])
            measured: dict[str, list[dict]] = defaultdict(list)
            for repeat in range(args.repeats):
                for label, (tree, env) in trees.items():
                    results = scratch / f"results-{len(measured[label])}-{label.replace(' ', '_')}"
                    measured[label].append(once(tree, env, args.cores, args.config, results))
                    print(f"# {label}, repeat {repeat + 1}: {measured[label][-1]['wall']:.1f} s", flush=True)
            for label, runs in measured.items():
                report(label, runs, args.cores)


if __name__ == "__main__":
    main()
