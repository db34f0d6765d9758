"""A formulation's warm-up (`Formulation.warm_up`) done once before the runs are forked, or
not at all (issue 59): Rubik's ``projections`` loads its pattern tables there.

In a process that has loaded the instance (as a pipeline's batch has), ``--runs`` isolated
runs (HiGHS, one thread) of a 2x2x2 and a 3x3x3 scramble, with the formulation's
``warm_up`` hook taken away (each forked run then loads the tables inside its clock, in its
stage generation) and with it (that process loads them once, before the first fork): a
fresh process per way and round (``--rounds``), the ways taking turns; the first run of each
process is left out. Prints the medians
of the record's ``wall_time``, ``generate_time`` and ``prepare_time`` (ms), and the ratio of
the wall times. The pattern tables come from the disk cache (`core.cache`): the very first
run on a machine builds them, once, before this measures.

Run:  python benchmarks/formulation_warm_up.py [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

from pyomo_puzzles import api
from pyomo_puzzles.core import registry
from pyomo_puzzles.core.records import RunSettings

INSTANCES = ("rubik/htm_depth_08", "rubik/cube3_htm_depth_05")
SETTINGS = RunSettings(time_limit=60, threads=1)


def _fill_disk_cache(hook, spec) -> None:
    """The tables built into the disk cache if they are not there, in a process of their
    own: this one must not hold them, or every run forked from it inherits them either way."""
    pid = os.fork()
    if pid == 0:
        hook(spec)
        os._exit(0)
    os.waitpid(pid, 0)


def measured(name: str, way: str, runs: int) -> list[tuple[float, float, float]]:
    """(wall, generate, prepare) of `runs` isolated runs made by a process of their own that
    loads the instance, with the hook (way "before") or without it ("none")."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        form = registry.family("rubik").formulations["projections"]
        if way == "none":
            object.__setattr__(form, "warm_up", None)  # frozen dataclass
        instance = api.load(name)
        records = [api.solve(instance, "projections", "highs", settings=SETTINGS) for _ in range(runs + 1)][1:]
        rows = [(r.wall_time, r.generate_time or 0.0, r.prepare_time or 0.0) for r in records]
        os.write(write, json.dumps(rows).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        rows = json.loads(answer.read())
    os.waitpid(pid, 0)
    return [tuple(row) for row in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    hook = registry.family("rubik").formulations["projections"].warm_up
    print(f"{'instance':28s} {'warm-up':>8s} {'wall':>8s} {'generate':>9s} {'prepare':>8s}   (medians, ms)")
    for name in INSTANCES:
        _fill_disk_cache(hook, api.load(name).spec)
        found: dict[str, list] = {"none": [], "before": []}
        for _ in range(args.rounds):
            for way in found:
                found[way] += measured(name, way, args.runs)
        for way, rows in found.items():
            wall, generate, prepare = (1000 * statistics.median(row[k] for row in rows) for k in range(3))
            print(f"{name:28s} {way:>8s} {wall:8.1f} {generate:9.1f} {prepare:8.1f}")
        ratio = statistics.median(r[0] for r in found["before"]) / statistics.median(r[0] for r in found["none"])
        print(f"{name:28s} wall with / without the warm-up before the fork: {ratio:.2f}")


if __name__ == "__main__":
    main()
