"""A batch's runs in one forked process against a process forked for each run (issue 59).

A pipeline's batch makes its runs one after another in one forked process (``processes:
per_batch``, the default) or each in a process forked for it alone (``per_run``). This
measures both on the same runs in one process, the way a batch makes them: the 50 IQ Twist
booklet challenges (placement, one thread), loaded once, per solver, ``--rounds`` rounds
with the two ways alternating. It prints, per solver and way, the medians over the runs of
the whole time a run costs the batch (elapsed / runs), and of the record's ``wall_time``,
``solver_time``, ``build_time`` and ``prepare_time``; the ratio of the shared process's to
the own process's figures; and whether every run found the same answer with the same nodes
both ways (the measure of the solver must not depend on what its process made before), and
how much higher a run's peak memory is in the shared process than in its own (what the
process holds from the runs before), over the instances, and for its first and last run.

Run:  python benchmarks/shared_process.py [--rounds 3] [--solvers highs,scip,cbc]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

CHALLENGES = [f"packing/iq_twist/challenge_{number}" for number in range(19, 69)]
FIELDS = ("wall_time", "solver_time", "build_time", "prepare_time")


def made(solver: str, shared: bool, instances: list) -> tuple[float, list]:
    """(elapsed seconds, records) of one pass over the challenges."""
    from pyomo_puzzles.core.records import RunSettings
    from pyomo_puzzles.core.run import RunRequest, run, run_in_turn

    settings = RunSettings(time_limit=60, threads=1)
    started = time.perf_counter()
    if shared:
        records = list(run_in_turn([RunRequest(i, "placement", solver, settings) for i in instances]))
    else:
        records = [run(i, "placement", solver, settings=settings) for i in instances]
    return time.perf_counter() - started, records


def medians(passes: list[tuple[float, list]]) -> dict[str, float]:
    """Milliseconds: the whole time a run costs, and each field's median over every run."""
    runs = [record for _, records in passes for record in records]
    figures = {"whole": statistics.median(elapsed / len(records) for elapsed, records in passes)}
    figures.update({name: statistics.median(getattr(r, name) or 0.0 for r in runs) for name in FIELDS})
    return {name: 1000 * value for name, value in figures.items()}


def answers(records: list) -> list[tuple]:
    return [(r.status, r.checked, r.objective, r.nodes) for r in records]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--solvers", default="highs,scip,cbc")
    options = parser.parse_args()
    from pyomo_puzzles import api
    from pyomo_puzzles.core import solvers

    instances = [api.load(name) for name in CHALLENGES]
    print(f"{len(CHALLENGES)} IQ Twist challenges, placement, 1 thread, {options.rounds} rounds; medians in ms")
    print(f"{'solver':8} {'processes':10} {'whole':>7} " + " ".join(f"{n:>13}" for n in FIELDS))
    same = True
    for solver in options.solvers.split(","):
        if not solvers.availability(solver)[0]:
            print(f"{solver}: not installed, skipped")
            continue
        made(solver, False, instances[:2])  # the solver's start-up, paid once by this process
        passes: dict[bool, list] = {False: [], True: []}
        for _ in range(options.rounds):
            for shared in (False, True):
                passes[shared].append(made(solver, shared, instances))
        figures = {shared: medians(passes[shared]) for shared in passes}
        for shared, label in ((False, "per_run"), (True, "per_batch")):
            row = figures[shared]
            print(f"{solver:8} {label:10} {row['whole']:7.1f} " + " ".join(f"{row[n]:13.2f}" for n in FIELDS))
        ratios = {n: figures[True][n] / figures[False][n] if figures[False][n] else float("nan")
                  for n in ("whole", *FIELDS)}
        print(f"{solver:8} {'ratio':10} {ratios['whole']:7.2f} " + " ".join(f"{ratios[n]:13.2f}" for n in FIELDS))
        grown = [shared.peak_memory_mb - own.peak_memory_mb for own, shared in zip(passes[False][-1][1], passes[True][-1][1])]
        print(f"{solver:8} peak_memory_mb, per_batch minus per_run, the same instance: median {statistics.median(grown):+.1f}, "
              f"largest {max(grown):+.1f}; first run of the process {grown[0]:+.1f}, last {grown[-1]:+.1f} "
              f"(per_run median {statistics.median(r.peak_memory_mb for r in passes[False][-1][1]):.1f}); "
              f"per_batch used {sum(r.runs_before_in_process == 0 for r in passes[True][-1][1])} processes for its "
              f"{len(passes[True][-1][1])} runs")
        agree = all(answers(own) == answers(shared) for (_, own), (_, shared) in zip(passes[False], passes[True]))
        print(f"{solver:8} same answers and nodes both ways: {agree}")
        same = same and agree
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
