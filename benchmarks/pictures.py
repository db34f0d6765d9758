"""How long a solution picture takes (the pipeline's pictures job draws one per instance).

Solves IQ Twist challenges 19-68 once (HiGHS, placement, in this process), then draws each
solution's picture ``--repeats`` times, for the package now and (``--compare REF``) at git
revision REF, each version in a process of its own, the versions taking turns round by
round. Prints the median milliseconds per picture of each version (the first picture of a
process, which imports matplotlib, left out) and their ratio.

Run:  python benchmarks/pictures.py [--repeats 3] [--rounds 3] [--compare REF]
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
import time
from pathlib import Path

from _compare import worktree

ROOT = Path(__file__).resolve().parents[1]
NAMES = [f"packing/iq_twist/challenge_{k}" for k in range(19, 69)]


def worker(solutions: Path, repeats: int, folder: Path) -> list[float]:
    from pyomo_puzzles import api

    found = json.loads(solutions.read_text())
    api.picture(NAMES[0], found[NAMES[0]], folder / "first.png")  # matplotlib's import, not measured
    times = []
    for _ in range(repeats):
        for name in NAMES:
            started = time.perf_counter()
            api.picture(name, found[name], folder / f"{name.split('/')[-1]}.png")
            times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", metavar="REF")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(Path(args.worker[0]), args.repeats, Path(args.worker[1]))))
        return
    from pyomo_puzzles import api

    with tempfile.TemporaryDirectory(prefix="pictures-") as scratch, (
            worktree(args.compare, Path(scratch) / "before") if args.compare else contextlib.nullcontext()) as before:
        solutions = Path(scratch) / "solutions.json"
        solutions.write_text(json.dumps({name: api.solve(name, "placement", "highs", isolate=False).solution
                                         for name in NAMES}))
        trees = {"now": ROOT, **({f"at {args.compare[:10]}": before} if before else {})}
        found: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(tree)}
                done = subprocess.run([sys.executable, __file__, "--repeats", str(args.repeats), "--worker",
                                       str(solutions), scratch], env=env, cwd=tree, capture_output=True, text=True,
                                      check=True)
                found[name] += json.loads(done.stdout.splitlines()[-1])
    print(f"{len(NAMES)} IQ Twist pictures x {args.repeats} repeats x {args.rounds} rounds per version, "
          f"{os.cpu_count()} cores: median ms per picture")
    for name, times in found.items():
        print(f"  {name:16s} {1000 * statistics.median(times):6.1f}")
    if len(found) == 2:
        now, then = (statistics.median(times) for times in found.values())
        print(f"  now / before     {now / then:6.2f}")


if __name__ == "__main__":
    main()
