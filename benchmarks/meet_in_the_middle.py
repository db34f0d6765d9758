"""The 3x3x3's exact distances to 12 moves (`middle`): building the ball, and answering.

1. Builds the ball (every state within 6 moves of solved) of each metric with the disk
   cache off, and prints its build time, peak memory so far, size on disk (`.npy`) and the
   number of states at each distance, against the published counts.
2. For random scrambles of 9-14 moves (no face twice in a row; ``--states`` per length,
   seeds 1..S), prints the distances found (None: more than 12) and the median and max
   time per query.

Run:  python benchmarks/meet_in_the_middle.py [--states 5] [--metrics htm,qtm]
"""

from __future__ import annotations

import argparse
import collections
import random
import resource
import shlex
import statistics
import sys
import time

import numpy as np

from pyomo_puzzles.families.rubik import cube, middle


def scramble(metric: str, length: int, rng: random.Random) -> list[str]:
    moves: list[str] = []
    while len(moves) < length:
        move = rng.choice(middle.MOVES[metric])
        if not moves or move[0] != moves[-1][0]:
            moves.append(move)
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=5)
    parser.add_argument("--metrics", default="htm,qtm")
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    for metric in args.metrics.split(","):
        started = time.perf_counter()
        tables = middle._build_ball(metric)
        built = time.perf_counter() - started
        counts = np.bincount(tables["depth"], minlength=middle.RADIUS + 1).tolist()
        megabytes = sum(a.nbytes for a in tables.values()) / 2**20
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        same = "= published" if counts == list(middle.BALL_COUNTS[metric]) else "DIFFERS from published"
        print(f"{metric}: ball built in {built:.1f} s, {megabytes:.0f} MB of arrays, peak memory {peak:.0f} MB; "
              f"states at distance 0-{middle.RADIUS}: {counts} {same}")
    print(f"\n{'metric':6s} {'moves':>5s} {'distances found':24s} {'median s':>9s} {'max s':>7s}")
    for metric in args.metrics.split(","):
        middle.ball(metric)  # from the disk cache (or built there), outside the timing
        for length in range(9, 15):
            rng = random.Random(length)
            found, seconds = collections.Counter(), []
            for _ in range(args.states):
                state = cube.apply(cube.solved(3), scramble(metric, length, rng), 3)
                started = time.perf_counter()
                found[middle.distance(state, metric)] += 1
                seconds.append(time.perf_counter() - started)
            shown = ", ".join(f"{d}: {n}" for d, n in sorted(found.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))
            print(f"{metric:6s} {length:5d} {shown:24s} {statistics.median(seconds):9.2f} {max(seconds):7.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
