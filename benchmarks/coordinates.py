"""IQ Twist booklet challenges: the thesis's unit-coordinate MILP against exact cover.

For each challenge (packing/iq_twist/challenge_19 ... challenge_68) and each formulation
(placement, coordinates, coordinates_tight) one HiGHS run with a time limit, in a process
of its own (killed past the limit plus a grace period), all in this one run so that the
medians are side by side. A run is "solved" if HiGHS proves a solution and the family's
checker accepts it; "same cover" counts solved runs whose cells per piece equal those of
the placement formulation's solution (the booklet challenges have one covering).
Wall time is the run's build + solve + decode time; a timeout counts at its wall time,
so the median and maximum of a formulation with timeouts are lower bounds.

Run:  python benchmarks/coordinates.py [--time-limit 30] [--challenges 19-28,40]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys

import pyomo.environ as pyo

from pyomo_puzzles.core import instances, models, run

FORMULATIONS = ("placement", "coordinates", "coordinates_tight")
CHALLENGES = range(19, 69)


def parse_challenges(text: str) -> list[int]:
    """'19-28,40' -> [19, ..., 28, 40]."""
    out = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out += range(int(low), int(high or low) + 1)
    bad = [n for n in out if n not in CHALLENGES]
    if bad:
        raise SystemExit(f"no booklet challenge {bad[0]} (challenges are 19-68)")
    return out


def covering(solution: dict) -> set:
    return {(p["piece"], tuple(sorted(map(tuple, p["cells"])))) for p in solution["pieces"]}


def model_size(instance, formulation: str) -> tuple[int, int]:
    model = models.build_model(instance, models.choose_formulation(instance, formulation))
    columns = sum(1 for _ in model.component_data_objects(pyo.Var))
    rows = sum(1 for _ in model.component_data_objects(pyo.Constraint, active=True))
    return columns, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds per run (default 30)")
    parser.add_argument("--challenges", default="19-68", help="e.g. 19-28,40 (default 19-68)")
    args = parser.parse_args()
    numbers = parse_challenges(args.challenges)
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    print(f"# {len(numbers)} IQ Twist booklet challenges, HiGHS, 1 thread, time limit {args.time_limit:g} s "
          "per run; wall seconds (build + solve + decode); '>' = time limit reached")
    first = instances.load(f"packing/iq_twist/challenge_{numbers[0]}")
    for form in FORMULATIONS:
        columns, rows = model_size(first, form)
        print(f"# {form}: {columns} columns, {rows} rows (challenge_{numbers[0]})")
    print(f"{'challenge':12s}" + "".join(f"{form:>19s}" for form in FORMULATIONS), flush=True)

    results = {form: [] for form in FORMULATIONS}
    for n in numbers:
        instance = instances.load(f"packing/iq_twist/challenge_{n}")
        cells = []
        reference = None
        for form in FORMULATIONS:
            record = run.run(instance, form, "highs", time_limit=args.time_limit)
            solved = record.status == "optimal" and record.checked
            same = solved and reference is not None and covering(record.solution) == reference
            if form == "placement" and solved:
                reference, same = covering(record.solution), True
            results[form].append((record.wall_time, solved, record.status == "time_limit", same))
            mark = "" if solved else (">" if record.status == "time_limit" else f"{record.status} ")
            cells.append(f"{mark}{record.wall_time:.2f}")
        print(f"challenge_{n:<2d}  " + "".join(f"{c:>19s}" for c in cells), flush=True)

    print()
    print(f"{'formulation':18s} {'solved':>6s} {'timeouts':>8s} {'same cover':>10s} "
          f"{'median s':>9s} {'max s':>8s} {'median / placement':>18s}")
    base = statistics.median(t for t, *_ in results["placement"])
    for form in FORMULATIONS:
        rows = results[form]
        times = [t for t, *_ in rows]
        median = statistics.median(times)
        print(f"{form:18s} {sum(r[1] for r in rows):6d} {sum(r[2] for r in rows):8d} "
              f"{sum(r[3] for r in rows):10d} {median:9.3f} {max(times):8.2f} {median / base:17.0f}x")


if __name__ == "__main__":
    main()
