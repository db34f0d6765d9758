"""Rubik's cubes: random states proved optimal by integer programming, per distance and metric.

For each metric and each distance in ``--depths``, ``--states`` random states exactly that far
from solved are made by `distances.generate` (seeds 1..S: random scrambles kept only if
their distance is that distance: the breadth-first table on the 2x2x2, meeting in the middle
on the 3x3x3, `middle`). Each is solved by ``--formulation`` on ``--solver`` in its own
process under ``--time-limit`` (`run.run`, isolated: loading, building and every horizon
count), without being told its distance. A state is proven if the run ends optimal, checked
by the independent simulator, with as many moves as its distance.

Prints per metric and distance: proven / tried, the median and max wall time of the runs
(a run that is not proven counts as infinite), and the median number of models solved per
state. ``--threads N`` solves N parts of a horizon at once (`core.parts`). ``--give-up K``:
once K states of one distance are not proven, the deeper distances of that metric are not
tried, and the table says so.

Levers of the 3x3x3 projection model, to measure one at a time: ``--split M`` (at least M
first moves per part), ``--longest-part N`` (0: no cap on the moves left to a part),
``--lookahead K`` (0: prefixes bounded by their own patterns only) and
``--four-cubie-patterns`` (the pattern sets used before the five-cubie ones). With
``--against "OPTIONS"`` every state is also run with those lever options instead, right
after its run with the command's own levers, and each distance gets both rows and the ratio
of their medians (against / own): a before/after measured side by side in one run.

Run:  python benchmarks/pocket_cube_random.py [--size 3] [--metrics htm,qtm] [--depths 9-12]
                                              [--states 10] [--time-limit 300] [--split M]
                                              [--solver highs] [--give-up 3] [--threads 1]
                                              [--longest-part N] [--lookahead K] [--four-cubie-patterns]
                                              [--against "--lookahead 0"]
"""

from __future__ import annotations

import argparse
import math
import re
import shlex
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pyomo_puzzles.core import instances, run
from pyomo_puzzles.families.rubik import distances, model_projections


FOUR_CUBIE_PATTERNS = (("corner", (0, 1, 2, 3)), ("corner", (4, 5, 6, 7)),
                       ("edge", (0, 1, 2, 3)), ("edge", (4, 5, 6, 7)), ("edge", (8, 9, 10, 11)))


def depth_range(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def count_in(message: str, what: str) -> int | None:
    """The number before `what` in a staged run's message ("12 models solved, 3 parts settled ...")."""
    found = re.search(rf"(\d+) {what}", message or "")
    return int(found.group(1)) if found else None


def median_of(numbers: list[int | None]) -> str:
    counted = [n for n in numbers if n is not None]
    return f"{statistics.median(counted):.0f}" if counted else "-"


def state(size: int, metric: str, depth: int, seed: int):
    data = distances.generate(seed=seed, depth=depth, metric=metric, size=size)
    return instances.from_data(data, Path(f"random_{size}_{metric}_{depth}_{seed}.yaml"))


MODEL_LEVERS = (model_projections.LOOKAHEAD, dict(model_projections.PATTERNS),
                dict(model_projections.SPLIT_MOVES), dict(model_projections.LONGEST_PART))


def set_levers(args) -> None:
    """The model's own levers, then those `args` change."""
    lookahead, patterns, split_moves, longest_part = MODEL_LEVERS
    model_projections.LOOKAHEAD = lookahead
    for table, saved in ((model_projections.PATTERNS, patterns), (model_projections.SPLIT_MOVES, split_moves),
                         (model_projections.LONGEST_PART, longest_part)):
        table.clear()
        table.update(saved)
    if args.lookahead is not None:
        model_projections.LOOKAHEAD = args.lookahead
    if args.four_cubie_patterns:
        model_projections.PATTERNS[3] = FOUR_CUBIE_PATTERNS
    for metric in args.metrics.split(","):
        if args.split is not None:
            model_projections.SPLIT_MOVES[(args.size, metric)] = args.split
        if args.longest_part == 0:
            model_projections.LONGEST_PART.pop((args.size, metric), None)
        elif args.longest_part is not None:
            model_projections.LONGEST_PART[(args.size, metric)] = args.longest_part


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3, choices=(2, 3))
    parser.add_argument("--metrics", default="htm,qtm")
    parser.add_argument("--depths", default="9-12", help="a distance or a range, e.g. 9-12")
    parser.add_argument("--states", type=int, default=10)
    parser.add_argument("--formulation", default="projections")
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--split", type=int, help="first moves split off each horizon (default: the model's)")
    parser.add_argument("--give-up", type=int, default=3, metavar="K")
    parser.add_argument("--threads", type=int, default=1, help="parts solved at once (default 1)")
    parser.add_argument("--longest-part", type=int, help="most moves left to a part (0: no cap; default: the model's)")
    parser.add_argument("--lookahead", type=int, help="moves of lookahead bounding prefixes (default: the model's)")
    parser.add_argument("--four-cubie-patterns", action="store_true", help="the 3x3x3 patterns of four cubies")
    parser.add_argument("--against", help="lever options to run every state with as well, e.g. \"--lookahead 0\"")
    args = parser.parse_args()
    against = parser.parse_args([*sys.argv[1:], *shlex.split(args.against)]) if args.against else None
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}; {args.size}x{args.size}x{args.size}, {args.formulation} on "
          f"{args.solver}, time limit {args.time_limit:g} s per state, one state at a time, "
          f"{args.threads} part(s) at once")
    configurations = {"own": args, "against": against} if against else {"own": args}
    for label, levers in configurations.items():
        set_levers(levers)
        print(f"# {label} levers: split {model_projections.SPLIT_MOVES}, lookahead {model_projections.LOOKAHEAD}, "
              f"longest part {model_projections.LONGEST_PART}, "
              f"{'four' if levers.four_cubie_patterns else 'five'}-cubie patterns")
        for metric in args.metrics.split(","):
            built = time.perf_counter()
            model_projections.patterns(state(args.size, metric, 1, 1).spec)
            print(f"# {metric} pattern tables ready in {time.perf_counter() - built:.1f} s (built once, then read "
                  "from the disk cache: not part of any run's time)", flush=True)
    print(f"{'levers':8s} {'metric':6s} {'distance':>8s} {'proven':>8s} {'median s':>9s} {'max s':>8s} "
          f"{'models (median)':>16s} {'settled (median)':>17s}", flush=True)
    for metric in args.metrics.split(","):
        stopped = None
        for depth in depth_range(args.depths):
            if stopped is not None:
                print(f"{'':8s} {metric:6s} {depth:8d} {'not tried: ' + stopped}", flush=True)
                continue
            rows = {label: Row() for label in configurations}
            for seed in range(1, args.states + 1):
                for label, levers in configurations.items():
                    set_levers(levers)
                    rows[label].add(run.run(state(args.size, metric, depth, seed), args.formulation, args.solver,
                                            time_limit=args.time_limit, threads=args.threads), depth)
                if rows["own"].failed >= args.give_up:
                    stopped = f"{rows['own'].failed} states at distance {depth} not proven"
                    break
            for label, row in rows.items():
                print(f"{label:8s} {metric:6s} {depth:8d} {row}", flush=True)
            if against:
                print(f"{'ratio':8s} {metric:6s} {depth:8d} against / own medians: "
                      f"{rows['against'].median() / rows['own'].median():.2f}", flush=True)


@dataclass
class Row:
    """One distance's runs under one set of levers."""

    walls: list = field(default_factory=list)
    models: list = field(default_factory=list)
    settled: list = field(default_factory=list)
    proven: int = 0
    failed: int = 0

    def add(self, record, depth: int) -> None:
        ok = record.status == "optimal" and record.checked and record.objective == depth
        self.proven += ok
        self.failed += not ok
        self.walls.append(record.wall_time if ok else math.inf)
        self.models.append(count_in(record.message, "models solved"))
        self.settled.append(count_in(record.message, "parts settled"))

    def median(self) -> float:
        return statistics.median(self.walls)

    def __str__(self) -> str:
        return (f"{self.proven:>4d}/{len(self.walls):<3d} {self.median():9.2f} {max(self.walls):8.2f} "
                f"{median_of(self.models):>16s} {median_of(self.settled):>17s}")


if __name__ == "__main__":
    main()
