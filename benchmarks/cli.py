"""What a user waits for: whole-process CLI times against the import floor, and the first
run in a fresh process against a warm one.

1. Whole process. Each command is run as a fresh `python -m pyomo_puzzles.cli ...` process,
   round-robin with the import floor `python -c "import pyomo.environ, highspy, numpy"`
   (what any Pyomo + HiGHS program pays before it does anything), ``--repeats`` rounds;
   medians, and each command's median over the floor's. Commands: ``--help``, ``list``,
   ``check`` of a solved IQ Twist challenge, ``solve`` of it.
2. First run against warm run. For each IQ Twist challenge 19-68, a 2x2x2 scramble and an
   Instant Insanity tower: the record's ``wall_time`` of ``solve NAME -o FILE`` in a fresh
   process (first), against the median ``wall_time`` of ``--warm`` runs of the same instance
   in one process after a discarded one (warm, `pyomo_puzzles.solve(..., isolate=False)`).
   The disk cache (`core.cache`) is warmed once before, as on any machine after its first
   run; ``--cold-cache`` shows what the very first run on a machine costs instead.

``--compare REF`` runs the same commands, interleaved, on the package at git revision REF
(checked out into a temporary worktree and put first on PYTHONPATH): before and after, side
by side in one run.

Run:  python benchmarks/cli.py [--repeats 7] [--warm 5] [--compare REF] [--cold-cache]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
FLOOR = [sys.executable, "-c", "import pyomo.environ, highspy, numpy"]
CHALLENGE = "packing/iq_twist/challenge_19"
FIRST_RUN_SETS = {
    "IQ Twist challenges 19-68": [f"packing/iq_twist/challenge_{n}" for n in range(19, 69)],
    "2x2x2 scramble (htm_depth_08)": ["rubik/htm_depth_08"],
    "Instant Insanity (parker_brothers)": ["instant_insanity/parker_brothers"],
}


def cli(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "pyomo_puzzles.cli", *arguments]


def timed(command: list[str], env: dict, cwd: Path) -> float:
    """Seconds for the command; run outside the checkout, so that PYTHONPATH picks the code."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {shlex.join(command)}\n{done.stderr[-1500:]}")
    return elapsed


def environments(args, scratch: Path, before: Path | None) -> dict[str, dict]:
    """The code versions to compare: 'now' (this checkout) and, with --compare, the REF."""
    base = dict(os.environ, PYOMO_PUZZLES_CACHE=str(scratch / "cache"))
    versions = {"now": dict(base, PYTHONPATH=str(ROOT))}
    if before is not None:
        versions[f"at {args.compare}"] = dict(base, PYTHONPATH=str(before))
    return versions


def whole_process(args, versions: dict[str, dict], scratch: Path) -> None:
    record = scratch / "solved.json"
    subprocess.run(cli("solve", CHALLENGE, "-o", str(record)), cwd=scratch, env=versions["now"], check=True,
                   capture_output=True)
    commands = {"--help": cli("--help"), "list": cli("list"), "check": cli("check", CHALLENGE, str(record)),
                "solve": cli("solve", CHALLENGE)}
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeats):
        for version, env in versions.items():
            times.setdefault(("floor", version), []).append(timed(FLOOR, env, scratch))
            for name, command in commands.items():
                times.setdefault((name, version), []).append(timed(command, env, scratch))
    print(f"\n## Whole process: median of {args.repeats} fresh processes each, seconds; ratio to the import floor")
    print(f"{'command':10s}" + "".join(f" {version:>14s} {'/ floor':>8s}" for version in versions))
    for name in ("floor", *commands):
        cells = []
        for version in versions:
            median = statistics.median(times[(name, version)])
            floor = statistics.median(times[("floor", version)])
            cells.append(f" {median:14.3f} {median / floor:8.2f}")
        print(f"{name:10s}" + "".join(cells))


def first_run(name: str, env: dict, scratch: Path) -> float:
    record = scratch / "first.json"
    subprocess.run(cli("solve", name, "-o", str(record)), cwd=scratch, env=env, check=True, capture_output=True)
    return json.loads(record.read_text())["wall_time"]


WARM = """
import json, statistics, sys
import pyomo_puzzles as pp
name, runs = sys.argv[1], int(sys.argv[2])
pp.solve(name, isolate=False)
print(json.dumps(statistics.median(pp.solve(name, isolate=False).wall_time for _ in range(runs))))
"""


def warm_run(name: str, env: dict, runs: int, scratch: Path) -> float:
    done = subprocess.run([sys.executable, "-c", WARM, name, str(runs)], cwd=scratch, env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def first_against_warm(args, versions: dict[str, dict], scratch: Path) -> None:
    cache_note = "cold: emptied before every first run" if args.cold_cache else "warmed once before"
    print(f"\n## First run in a fresh process against warm runs (record wall_time, ms; disk cache {cache_note})")
    print(f"{'instances':38s} {'version':>14s} {'first':>8s} {'warm':>8s} {'first/warm':>11s} {'worst':>8s}")
    for label, names in FIRST_RUN_SETS.items():
        for version, env in versions.items():
            firsts, warms = [], []
            for name in names:
                if args.cold_cache:
                    subprocess.run(["rm", "-rf", env["PYOMO_PUZZLES_CACHE"]], check=True)
                else:
                    first_run(name, env, scratch)  # fills the disk cache
                firsts.append(first_run(name, env, scratch))
                warms.append(warm_run(name, env, args.warm, scratch))
            first, warm = statistics.median(firsts), statistics.median(warms)
            print(f"{label:38s} {version:>14s} {first * 1000:8.1f} {warm * 1000:8.1f} {first / warm:11.2f} "
                  f"{max(firsts) * 1000:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="fresh processes per command (default 7)")
    parser.add_argument("--warm", type=int, default=5, help="warm runs per instance (default 5)")
    parser.add_argument("--compare", metavar="REF", help="also measure the package at this git revision")
    parser.add_argument("--cold-cache", action="store_true", help="empty the disk cache before each first run")
    parser.add_argument("--only", choices=("whole", "first"), help="run one of the two parts")
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# {os.cpu_count()} cores; {time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        with worktree(args.compare, scratch / "before") if args.compare else contextlib.nullcontext() as before:
            versions = environments(args, scratch, before)
            if args.only in (None, "whole"):
                whole_process(args, versions, scratch)
            if args.only in (None, "first"):
                first_against_warm(args, versions, scratch)


if __name__ == "__main__":
    main()
