"""What building a tiny model in a forked run's process before its clock starts, and
solving it with the run's solver (`core.warmup.prepared_child`), saves each isolated run,
side by side in one process.

A forked run first touches Pyomo's pages shared with its parent (classes, functions,
tables): each touch a copy-on-write fault, 1,600 of them in the first build of an IQ Twist
challenge. The tiny model takes most of them before the clock; solving it does the same for
the solver library's pages and per-process set-up. Per solver, the IQ Twist challenges are
run isolated with ``PYOMO_PUZZLES_PREFAULT`` ``on`` (tiny model built and solved), ``build``
(built only) and ``off`` in turn; printed are medians (ms per run) of the time outside the
solver's own clock (wall - solver), the build, the hand-over (call - solver), the solver's
clock, the preparation (``prepare_time``: the tiny model's cost, before the clock) and the
whole (wall + preparation), and the ratios of the outside times to ``off``'s. The
preparation costs more than it saves (the whole is larger): it is there so that the times a
comparison ranks by are those of a warm process, not of the fork.

Run:  python benchmarks/prefault.py [--solvers highs,cbc] [--iq 19-38] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyomo_puzzles.core import run, solvers  # noqa: E402
from pyomo_puzzles.core.warmup import PREFAULT_SWITCH  # noqa: E402

FIELDS = ("outside", "build", "hand-over", "solver", "prepare", "whole")


def times(record) -> tuple:
    solver = record.solver_time or 0.0
    prepare = record.prepare_time or 0.0
    return (record.wall_time - solver, record.build_time, record.call_time - solver, solver, prepare,
            record.wall_time + prepare)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", default="highs,cbc")
    parser.add_argument("--iq", default="19-38", help="IQ Twist challenges FIRST-LAST")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    first, last = (int(v) for v in args.iq.split("-"))
    names = [f"packing/iq_twist/challenge_{k}" for k in range(first, last + 1)]
    print(f"# command: python benchmarks/prefault.py {' '.join(sys.argv[1:])}")
    print(f"# {os.cpu_count()} cores; isolated runs, 1 thread; medians in ms per run; on, build and off take "
          "turns; whole: wall + prepare")
    print(f"{'solver':8s} {'prefault':>8s} " + " ".join(f"{f:>10s}" for f in FIELDS) + "   outside / off")
    for solver in args.solvers.split(","):
        if not solvers.availability(solver)[0]:
            print(f"{solver:8s} not available")
            continue
        got: dict = {"on": [], "build": [], "off": []}
        for _ in range(args.repeats):
            for mode in got:
                os.environ[PREFAULT_SWITCH] = mode
                got[mode] += [times(run.run(name, None, solver, 60, 1, isolate=True)) for name in names]
        medians = {mode: [1000 * statistics.median(t[k] for t in rows) for k in range(len(FIELDS))]
                   for mode, rows in got.items()}
        for mode, values in medians.items():
            ratio = f"{values[0] / medians['off'][0]:.2f}" if mode != "off" else ""
            print(f"{solver:8s} {mode:>8s} " + " ".join(f"{v:10.2f}" for v in values) + f"   {ratio}")


if __name__ == "__main__":
    main()
