"""Every available solver on the default experiment's instances, over several random seeds.

Instances: the IQ Twist booklet challenges and the L-tromino cube (placement), the Instant
Insanity towers of the default experiment (the Parker Brothers set and generated towers of
8, 16 and 32 cubes, seeds 1-3; rotations), and the 2x2x2 Rubik's cube at half-turn depths
7-11 (projections). Each (instance, seed) is run on every solver in turn, the solvers'
order rotating, so that the machine's noise falls on all of them alike; every run goes
through the framework (`core.run.run`: build, solve, decode, independent check).

Printed per solver and family: runs solved (optimal and checked, or proven infeasible),
the shifted geometric mean of the run's wall time (unsolved runs at the time limit; shift
given by --shift, default 10 ms, as the runs are short; runs a size-limited licence
refused are left out of the times and shown as licence_limit), its ratio to HiGHS's, and the
median over instances of (max time / min time over the seeds): how much of a solver's
time on one instance is luck (GLPK has no seed: its spread is the machine's noise).

Run:  python benchmarks/solvers.py [--seeds 5] [--time-limit 30] [--solvers highs,scip]
"""

from __future__ import annotations

import argparse
import math
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

from pyomo_puzzles.core import instances, registry, run, solvers

GENERATED_TOWERS = [(cubes, seed) for cubes in (8, 16, 32) for seed in (1, 2, 3)]


def benchmark_instances(folder: Path, families: set[str]) -> list[tuple[str, object, str]]:
    """(family, instance, formulation) for the benchmark's instances."""
    chosen = []
    if "packing" in families:
        names = [n for n in instances.shipped_instances() if n.startswith("packing/iq_twist/challenge_")]
        chosen += [("packing", instances.load(n), "placement") for n in names + ["packing/l_tromino_cube"]]
    if "instant_insanity" in families:
        chosen.append(("instant_insanity", instances.load("instant_insanity/parker_brothers"), "rotations"))
        make = registry.generator("instant_insanity")
        for cubes, seed in GENERATED_TOWERS:
            path = folder / f"towers_{cubes}_seed{seed}.yaml"
            path.write_text(yaml.safe_dump(make(seed=seed, cubes=cubes)), encoding="utf-8")
            chosen.append(("instant_insanity", instances.load(str(path)), "rotations"))
    if "rubik" in families:
        chosen += [("rubik", instances.load(f"rubik/htm_depth_{d:02d}"), "projections") for d in range(7, 12)]
    return chosen


def solved(record) -> bool:
    return (record.status == "optimal" and record.checked is True) or record.status == "infeasible"


def sgm(times: list[float], shift: float) -> float:
    return math.exp(sum(math.log(t + shift) for t in times) / len(times)) - shift


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="random seeds 0..S-1 (default 5)")
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per run (default 30)")
    parser.add_argument("--solvers", default="", help="comma-separated (default: every available solver)")
    parser.add_argument("--families", default="packing,instant_insanity,rubik")
    parser.add_argument("--shift", type=float, default=0.01, help="SGM shift in seconds (default 0.01)")
    args = parser.parse_args()
    print("$ python benchmarks/solvers.py " + shlex.join(sys.argv[1:]))

    names = [s for s in args.solvers.split(",") if s] or list(solvers.names())
    available = []
    for name in names:
        ok, detail = solvers.availability(name)
        print(f"  {name}: {detail}" + ("" if ok else " -- skipped"))
        if ok:
            available.append(name)
    with tempfile.TemporaryDirectory() as tmp:
        chosen = benchmark_instances(Path(tmp), set(args.families.split(",")))
        print(f"{len(chosen)} instances x {args.seeds} seeds x {len(available)} solvers, "
              f"time limit {args.time_limit:g} s, threads 1")
        times: dict = {}    # (solver, family, instance) -> [censored seconds per seed]
        solved_runs: dict = {}
        statuses: dict = {}
        started = time.perf_counter()
        turn = 0
        for family, instance, formulation in chosen:
            for seed in range(args.seeds):
                turn += 1
                order = available[turn % len(available):] + available[:turn % len(available)]
                for solver in order:
                    record = run.run(instance, formulation, solver, args.time_limit, 1, isolate=True, seed=seed)
                    ok = solved(record)
                    key = (solver, family, instance.name)
                    if record.status != "licence_limit":  # says nothing about speed
                        times.setdefault(key, []).append(record.wall_time if ok else args.time_limit)
                    solved_runs[(solver, family)] = solved_runs.get((solver, family), 0) + ok
                    statuses.setdefault((solver, family, record.status), 0)
                    statuses[(solver, family, record.status)] += 1
        print(f"benchmark took {time.perf_counter() - started:.0f} s")

    families = list(dict.fromkeys(f for f, _, _ in chosen)) + ["all"]
    print(f"\n{'family':17s} {'solver':8s} {'solved':>9s} {'SGM [ms]':>10s} {'/ HiGHS':>8s} "
          f"{'max/min over seeds':>19s}  statuses")
    for family in families:
        reference = None
        for solver in available:
            keys = [k for k in times if k[0] == solver and (family == "all" or k[1] == family)]
            flat = [t for k in keys for t in times[k]]
            refused = sum(n for (s, f, st), n in statuses.items()
                          if s == solver and st == "licence_limit" and (family == "all" or f == family))
            if not flat:
                if refused:
                    print(f"{family:17s} {solver:8s} every run refused by the licence (licence_limit {refused})")
                continue
            mean = sgm(flat, args.shift)
            if solver == "highs":
                reference = mean
            count = sum(v for (s, f), v in solved_runs.items() if s == solver and (family == "all" or f == family))
            count_all = sum(n for (s, f, _), n in statuses.items() if s == solver and (family == "all" or f == family))
            spread = statistics.median(max(times[k]) / min(times[k]) for k in keys)
            ratio = f"{mean / reference:8.2f}" if reference else f"{'--':>8s}"
            counted: dict = {}
            for (s, f, st), n in statuses.items():
                if s == solver and (family == "all" or f == family) and st != "optimal":
                    counted[st] = counted.get(st, 0) + n
            status = ", ".join(f"{st} {n}" for st, n in sorted(counted.items()))
            print(f"{family:17s} {solver:8s} {count:4d}/{count_all:<4d} {mean * 1000:10.1f} {ratio} "
                  f"{spread:19.2f}  {status}")


if __name__ == "__main__":
    main()
