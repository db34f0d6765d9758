"""Pocket cube: the projection-flow formulation on random states at one depth, per split.

For seeds 1..S, `distances.generate` makes a state whose distance from solved (breadth-first
table) is exactly `--depth`; each is solved with `run.run(..., "projections", solver)` in
this process, with each horizon split by its first m moves for every m in `--split`
(`model_projections.SPLIT_MOVES`). A run counts only if it is optimal, checked by the
independent simulator, and as long as the table's distance. The depth is not given to the
model. Prints the median and max wall time per split, and the models solved per run.

Run:  python benchmarks/pocket_cube_random.py [--metric htm] [--depth 11] [--states 20]
                                              [--split 2] [--solver highs] [--time-limit 300]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
from pathlib import Path

from pyomo_puzzles.core import instances, run
from pyomo_puzzles.families.rubik import distances, model_projections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metric", default="htm", choices=("htm", "qtm"))
    parser.add_argument("--depth", type=int, default=11)
    parser.add_argument("--states", type=int, default=20)
    parser.add_argument("--split", default=None, help="comma-separated first-move splits (default: the model's)")
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--time-limit", type=float, default=300.0)
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    splits = [int(s) for s in args.split.split(",")] if args.split else [model_projections.SPLIT_MOVES[args.metric]]
    loaded = [instances.from_data(distances.generate(seed=seed, depth=args.depth, metric=args.metric),
                                  Path(f"random_{args.metric}_{args.depth}_{seed}.yaml"))
              for seed in range(1, args.states + 1)]
    print(f"{'split':>5s} {'proven':>8s} {'median s':>9s} {'max s':>7s} {'models (median)':>16s}")
    for split in splits:
        model_projections.SPLIT_MOVES[args.metric] = split
        walls, models, proven = [], [], 0
        for instance in loaded:
            record = run.run(instance, "projections", args.solver, time_limit=args.time_limit, isolate=False)
            ok = record.status == "optimal" and record.checked and record.objective == args.depth
            proven += ok
            walls.append(record.wall_time if ok else float("inf"))
            models.append(int(record.message.split(": ")[1].split()[0]))
        print(f"{split:5d} {proven:>4d}/{len(loaded):<3d} {statistics.median(walls):9.2f} {max(walls):7.2f} "
              f"{statistics.median(models):16.0f}", flush=True)


if __name__ == "__main__":
    main()
