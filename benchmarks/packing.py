"""Packing: the placement integer program on each solver against dancing links (xcover).

What it measures, side by side in one run:

  MIP   `pyomo_puzzles.core.run.run(instance, "placement", solver, time_limit=T,
        isolate=False)` on each installed solver (1 thread): ``wall_time`` is the whole run
        (Pyomo build, hand-over, solve, decode, check), ``solver_time`` the solver's share.
  dlx   `pyomo_puzzles.families.packing.dancing_links.run_record(instance)`: build the
        exact-cover matrix, search for one cover with the xcover library (Knuth's
        Algorithm C, dancing cells, compiled with numba), decode, check. ``wall_time``
        likewise; ``solver_time`` the search. No time limit for dlx (a limit would run it
        in a forked child). The numba compilation happens at import, before any timing.

Instances:
  IQ Twist challenges 19-68 (50 instances, pegs only, one covering each): every
      challenge is run ``--repeats`` times on each backend (backends interleaved within a
      repeat); a challenge's time is its median over the repeats; the row shows the
      median over the 50 challenges and the max over them.
  Pentominoes 3x20, 4x15, 5x12, 6x10: one solve per backend (``--pentomino-repeats``).

The ratio is MIP wall / dlx wall, of the figures shown in the row (medians, or maxes).
Loading an instance file (`instances.load`: parse, validate, derive the placements) is
not part of a run's wall time; its median over the challenges is printed below their rows.
Every run must end with a checked solution; otherwise the row is marked (``*`` = some
run was not optimal and checked; its time is censored at the time limit). For the challenges, the MIP's covering must also be
the dlx covering (each challenge has exactly one). Before measuring, one unmeasured
warm-up run per backend (challenge 19).

Run:  python benchmarks/packing.py [--repeats 3] [--pentomino-repeats 1] [--time-limit 60]
                                   [--solvers highs,cbc,glpk]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import time
from collections import defaultdict

from pyomo_puzzles.core import instances, run, solvers
from pyomo_puzzles.families.packing import dancing_links, orbits

CHALLENGES = [f"packing/iq_twist/challenge_{n}" for n in range(19, 69)]
PENTOMINOES = [f"packing/pentominoes/{board}" for board in ("3x20", "4x15", "5x12", "6x10")]
DLX = "dlx"


def measure(instance, backend: str, time_limit: float):
    """One run: (wall seconds, solver seconds, ok, covering key or None)."""
    if backend == DLX:
        record = dancing_links.run_record(instance)
    else:
        record = run.run(instance, "placement", backend, time_limit=time_limit, isolate=False)
    ok = record.status == "optimal" and record.checked is True
    key = orbits.solution_key(record.solution) if record.solution else None
    return record.wall_time, record.solver_time or 0.0, ok, key


def run_group(names: list[str], backends: list[str], repeats: int, time_limit: float) -> dict:
    """backend -> per instance: (median wall, median solver, all ok); plus covering mismatches."""
    per: dict = defaultdict(list)
    mismatches = []
    loads = []
    for name in names:
        started = time.perf_counter()
        instance = instances.load(name)
        loads.append(time.perf_counter() - started)
        walls, times, oks, keys = defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(set)
        for _ in range(repeats):
            for backend in backends:
                wall, solver_time, ok, key = measure(instance, backend, time_limit)
                walls[backend].append(wall)
                times[backend].append(solver_time)
                oks[backend].append(ok)
                if key is not None:
                    keys[backend].add(key)
        for backend in backends:
            per[backend].append((statistics.median(walls[backend]), statistics.median(times[backend]),
                                 all(oks[backend])))
        if len(names) > 1 and len(set().union(*keys.values())) > 1:
            mismatches.append(name)
    return {"per": per, "mismatches": mismatches, "load": statistics.median(loads)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="repeats per IQ Twist challenge (default 3)")
    parser.add_argument("--pentomino-repeats", type=int, default=1, help="repeats per pentomino board (default 1)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="MIP time limit in seconds (default 60)")
    parser.add_argument("--solvers", default="highs,cbc,glpk")
    args = parser.parse_args()

    mips = []
    names = [s for s in args.solvers.split(",") if s]
    unknown = [s for s in names if s not in solvers.SOLVERS]
    if unknown:
        parser.error(f"unknown solver(s) {', '.join(unknown)} (choose from {', '.join(solvers.SOLVERS)})")
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    for solver in names:
        available, detail = solvers.availability(solver)
        if available:
            mips.append(solver)
        else:
            print(f"# {solver}: not installed, skipped ({detail})")
    backends = [DLX, *mips]
    versions = [dancing_links.library_version()] + [solvers.availability(s)[1] for s in mips]
    print(f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores; "
          f"{', '.join(versions)}; MIP: placement formulation, 1 thread, time limit {args.time_limit:g} s")
    print(f"# times in ms. IQ Twist: per challenge the median of {args.repeats} repeat(s), then the median "
          f"over the 50 challenges (and the max); pentominoes: median of {args.pentomino_repeats} solve(s)")
    print("# wall = whole run (build, solve, decode, check); solver = the solver's / the search's share; "
          "ratio = MIP wall / dlx wall, of the two figures in the row (medians, or maxes)")

    for backend in backends:  # warm-up, not measured
        measure(instances.load(CHALLENGES[0]), backend, args.time_limit)

    header = f"{'instances':22s} {'stat':6s} {'dlx wall':>9s} {'dlx srch':>9s}"
    for solver in mips:
        header += f" | {solver + ' wall':>11s} {'solver':>9s} {'ratio':>8s}"
    print(header)
    started = time.perf_counter()
    groups = [("IQ Twist 19-68 (50)", CHALLENGES, args.repeats)] + [
        (f"pentominoes {name.rsplit('/', 1)[1]}", [name], args.pentomino_repeats) for name in PENTOMINOES]
    notes = []
    for label, names, repeats in groups:
        result = run_group(names, backends, repeats, args.time_limit)
        per = result["per"]
        stats = [("median", statistics.median)] + ([("max", max)] if len(names) > 1 else [])
        for stat_name, stat in stats:
            def pick(backend, column):
                return stat([row[column] for row in per[backend]])
            line = f"{label if stat_name == 'median' else '':22s} {stat_name:6s} " \
                   f"{pick(DLX, 0) * 1000:9.1f} {pick(DLX, 1) * 1000:9.1f}"
            for solver in mips:
                flag = "*" if not all(row[2] for row in per[solver]) else " "
                ratio = pick(solver, 0) / pick(DLX, 0)
                line += f" | {pick(solver, 0) * 1000:10.1f}{flag} {pick(solver, 1) * 1000:9.1f} {ratio:7.1f}x"
            print(line, flush=True)
        if len(names) > 1:
            print(f"# {label}: loading an instance file (instances.load, not in the walls above) "
                  f"took a median of {result['load'] * 1000:.1f} ms", flush=True)
        if not all(row[2] for row in per[DLX]):
            notes.append(f"{label}: a dlx run did not end with a checked solution")
        if result["mismatches"]:
            notes.append(f"{label}: coverings differ between backends on {', '.join(result['mismatches'])}")
    for note in notes:
        print(f"# NOTE: {note}")
    print(f"# measured in {time.perf_counter() - started:.0f} s; * = some run was not optimal and checked "
          f"(time limit or error): its time is censored")


if __name__ == "__main__":
    main()
