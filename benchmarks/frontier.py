"""Where the time of a 3x3x3 proof goes, per depth (issue 46: measure first).

For each depth asked, ``--scrambles`` random 3x3x3 scrambles from the project's generator
(`pyomo-puzzles generate rubik --size 3 --depth D --seed S`: at most 12 moves exactly, 13 by
meeting in the middle; not picked) are solved by the projection formulation with one solver on
one thread, each in a fresh process. Printed per depth: the median and the slowest run (wall
seconds, status), and where the median run's time went, from its record's ``stages``:
generating the stages (the formulation's own work: settling parts by its pattern tables),
building the models in Pyomo, compiling them into matrices, the solver calls (hand-over and
solver), the solver's own clock,
decoding and checking as the record has them, and what is left: the time
between parts (the loop over parts, freeing models, collecting garbage); loading and start-up,
which come before the wall clock, apart; then the slowest run stage by stage.

With ``--compare REF`` every scramble is also solved by the package at git revision REF (a
temporary worktree), the two versions taking turns scramble by scramble, and each depth is
reported for both, with the ratio of their medians.

Run:  python benchmarks/frontier.py [--depths 11 12 13] [--scrambles 5] [--solver highs]
                                     [--metric htm] [--time-limit 600] [--first-seed 1] [--compare REF]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "pyomo_puzzles"]


def generated(folder: Path, depth: int, metric: str, seed: int) -> Path:
    path = folder / f"cube3_{metric}_{depth}_seed{seed}.yaml"
    subprocess.run([*CLI, "generate", "rubik", "--size", "3", "--depth", str(depth), "--metric", metric,
                    "--seed", str(seed), "--output", str(path)], check=True, capture_output=True, cwd=ROOT)
    return path


def solved(path: Path, solver: str, limit: float, package: Path = ROOT) -> dict:
    """The record of `path` solved by the package found at `package`."""
    record = path.with_name(f"{path.stem}.{package.name}.json")
    subprocess.run([*CLI, "solve", str(path), "-f", "projections", "-s", solver, "--threads", "1",
                    "-t", str(limit), "-o", str(record)], capture_output=True, cwd=package,
                   env=dict(os.environ, PYTHONPATH=str(package)))
    return json.loads(record.read_text())


def parts_of(record: dict) -> dict:
    """Seconds of the run by where they went (`stages` summed)."""
    stages = record.get("stages") or []
    generate = sum(s["generate_time"] for s in stages)
    build = sum(s["build_time"] for s in stages)
    compiled = sum(s["compile_time"] for s in stages)
    calls = sum(s["call_time"] for s in stages)
    solver = sum(s["solver_time"] or 0.0 for s in stages)
    wall = record["wall_time"] or 0.0
    inside = {name: record.get(f"{name}_time") or 0.0 for name in ("decode", "check")}
    before = {name: record.get(f"{name}_time") or 0.0 for name in ("load", "startup")}  # before the wall clock
    return {"wall": wall, "generate": generate, "build": build, "compile": compiled, "hand-over": calls - solver,
            "solver": solver, **inside,
            "between parts": wall - generate - build - compiled - calls - sum(inside.values()),
            **{f"{name} (before wall)": seconds for name, seconds in before.items()}}


def report_depth(depth: int, records: list[dict]) -> None:
    by_wall = sorted(records, key=lambda r: r["wall_time"] or 0.0)
    median, slowest = by_wall[len(by_wall) // 2], by_wall[-1]
    walls = [r["wall_time"] or 0.0 for r in records]
    proved = sum(r["status"] == "optimal" and r["objective"] == depth for r in records)
    print(f"depth {depth}: {proved} of {len(records)} proved optimal at {depth}; wall median "
          f"{statistics.median(walls):.1f} s, slowest {max(walls):.1f} s ({slowest['status']}, {slowest['instance']})")
    shares = parts_of(median)
    print("  median run: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in shares.items()))
    print("  slowest run, stage by stage:")
    print(f"    {'depth':>5} {'parts':>7} {'settled':>10} {'solved':>7} {'generate':>9} {'build':>8} "
          f"{'compile':>8} {'calls':>8} {'solver':>8} {'nodes':>7}")
    for stage in slowest.get("stages") or []:
        print(f"    {stage['objective']:>5g} {stage['parts']:>7} {stage['settled']:>10} {stage['solved']:>7} "
              f"{stage['generate_time']:>9.2f} {stage['build_time']:>8.2f} {stage['compile_time']:>8.2f} "
              f"{stage['call_time']:>8.2f} "
              f"{stage['solver_time'] or 0.0:>8.2f} {stage['nodes']:>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[11, 12])
    parser.add_argument("--scrambles", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--metric", default="htm", choices=["htm", "qtm"])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--compare", metavar="REF", help="also solve every scramble with the package at this git revision")
    args = parser.parse_args()
    print(f"# command: python benchmarks/frontier.py {' '.join(sys.argv[1:])}")
    with tempfile.TemporaryDirectory() as folder, \
            worktree(args.compare, Path(folder) / "before") if args.compare else contextlib.nullcontext() as before:
        versions = {"now": ROOT} | ({f"at {args.compare[:10]}": before} if before else {})
        for depth in args.depths:
            records: dict = {version: [] for version in versions}
            for seed in range(args.first_seed, args.first_seed + args.scrambles):
                path = generated(Path(folder), depth, args.metric, seed)
                for version, package in versions.items():
                    records[version].append(solved(path, args.solver, args.time_limit, package))
            medians = {}
            for version, got in records.items():
                print(f"[{version}]", end=" ")
                report_depth(depth, got)
                medians[version] = statistics.median(r["wall_time"] or 0.0 for r in got)
            if len(medians) == 2:
                now, then = medians.values()
                print(f"depth {depth}: median wall now / {list(medians)[1]} = {now / then:.3f}")


if __name__ == "__main__":
    main()
