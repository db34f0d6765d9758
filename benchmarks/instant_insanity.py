"""Instant Insanity with n cubes: how each formulation and solver scales with n.

Demaine et al. ("Variations on Instant Insanity", 2013) show the n-cube puzzle NP-complete.
For each n, `--seeds` instances of two kinds (pyomo_puzzles.families.instant_insanity.generate):
  planted   a tower is planted, then every cube turned at random: time to the first
            (checked) solution;
  random    every colour on exactly 6 faces, shuffled: almost always without a tower for
            n >= 8; time to decide (prove infeasibility, or find a tower).
Each run is `pyomo_puzzles.core.run.run(..., time_limit=T)` in a process of its own
(killed past the limit plus a grace period). A cell shows the median wall time over the
seeds and how many runs ended decided (e.g. "0.21 3/3"); '>T' means a run hit the limit,
after which larger n are not tried for that formulation and solver.

Run:  python benchmarks/instant_insanity.py [--sizes 4,8,16,32,64] [--seeds 3]
                                            [--time-limit 60] [--solvers highs,cbc,glpk]
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import time

from pyomo_puzzles.core import instances, run, solvers
from pyomo_puzzles.families.instant_insanity import generate

FORMULATIONS = ("rotations", "opposite_pairs")
KINDS = ("planted", "random")
SHORT = {"rotations": "rotations", "opposite_pairs": "pairs"}


def instance(kind: str, n: int, seed: int):
    if kind == "planted":
        data = generate.instant_insanity(seed=seed, cubes=n)
    else:
        data = {"puzzle": "instant_insanity", "title": f"random balanced {n} cubes (seed {seed})",
                "colours": generate.colour_names(n), "question": "all_different", "order": "fixed",
                "cubes": generate.balanced(n, random.Random(seed))}
    return instances.from_data(data, f"{kind}_{n}_{seed}.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,8,16,32,64,128")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--solvers", default="highs,cbc,glpk")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [s for s in args.solvers.split(",") if s]
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    installed = []
    for name in names:
        ok, detail = solvers.availability(name)
        print(f"# {name}: {detail}" if ok else f"# {name}: not installed, skipped ({detail})")
        if ok:
            installed.append(name)
    print(f"# wall seconds per run (build, solve, decode, check), median over {args.seeds} seeds; "
          f"time limit {args.time_limit:g} s, 1 thread")
    started = time.perf_counter()
    for kind in KINDS:
        print(f"\n{kind}: {'time to the first tower' if kind == 'planted' else 'time to decide'}")
        columns = [(f, s) for f in FORMULATIONS for s in installed]
        print(f"{'n':>5s} " + " ".join(f"{SHORT[f] + '/' + s:>20s}" for f, s in columns) + "   outcomes")
        stopped: set = set()
        for n in sizes:
            cells, outcomes = [], {}
            for formulation, solver in columns:
                if (formulation, solver) in stopped:
                    cells.append(f"{'-':>20s}")
                    continue
                walls, decided = [], 0
                for seed in range(1, args.seeds + 1):
                    record = run.run(instance(kind, n, seed), formulation, solver, time_limit=args.time_limit)
                    walls.append(record.wall_time or args.time_limit)
                    ok = record.status == "infeasible" or (record.status == "optimal" and record.checked)
                    decided += ok
                    outcomes[record.status] = outcomes.get(record.status, 0) + 1
                if decided < args.seeds:
                    stopped.add((formulation, solver))
                    cells.append(f"{'>' + format(args.time_limit, 'g'):>14s} {decided}/{args.seeds}")
                else:
                    cells.append(f"{statistics.median(walls):14.2f} {decided}/{args.seeds}")
            summary = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
            print(f"{n:5d} " + " ".join(cells) + f"   {summary}", flush=True)
    print(f"\n# measured in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
