"""Where a forked run's BLAS thread limit is set (`core.warmup.blas_threads_for_forked_runs`).

A batch's process forks one process per run; each run limits numpy's BLAS to its threads.
Set in the forked process, OpenBLAS starts its thread pool there, and the pool's worker spins
for about 100 ms beside the run; inherited from the parent, nothing starts. This forks runs
of an IQ Twist challenge (HiGHS, placement, one thread, the run made in the forked process)
from a process whose BLAS has two threads, both ways, alternating, and prints per way the
median of the run's ``wall_time``, the forked process's CPU seconds over the run (all its
threads) and its threads at the end, and the ratios.

Run:  python benchmarks/blas_spin.py [--runs 30] [--instance packing/iq_twist/challenge_40]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys

from threadpoolctl import ThreadpoolController

from pyomo_puzzles import api
from pyomo_puzzles.core import solvers, warmup
from pyomo_puzzles.core.records import RunSettings

SETTINGS = RunSettings(time_limit=20, threads=1)


def forked_run(instance, limit_in_child: bool, blas: ThreadpoolController) -> tuple[float, float, int]:
    """(wall_time, CPU seconds of the forked process over the run, its threads) of one run."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        if limit_in_child:
            blas.limit(limits=1, user_api="blas")
        before = resource.getrusage(resource.RUSAGE_SELF)
        record = api.solve(instance, "placement", "highs", settings=SETTINGS, isolate=False)
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        threads = len(os.listdir("/proc/self/task"))
        os.write(write, f"{record.wall_time} {cpu} {threads}".encode())
        os._exit(0)
    os.close(write)
    answer = os.read(read, 200).decode().split()
    os.close(read)
    os.waitpid(pid, 0)
    return float(answer[0]), float(answer[1]), int(answer[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--instance", default="packing/iq_twist/challenge_40")
    args = parser.parse_args()
    blas = warmup.prepared_process()
    solvers.start_up("highs")
    solvers.availability("highs")
    instance = api.load(args.instance)
    api.solve(instance, "placement", "highs", settings=SETTINGS, isolate=False)  # the parent's one-offs
    ways = {"limit set in the forked process": True, "limit inherited from the parent": False}
    found: dict[str, list[tuple[float, float, int]]] = {way: [] for way in ways}
    for _ in range(args.runs):
        for way, in_child in ways.items():
            blas.limit(limits=2, user_api="blas")  # a parent on two or more cores, as numpy starts
            if not in_child:
                blas.limit(limits=1, user_api="blas")  # what blas_threads_for_forked_runs does before the fork
            found[way].append(forked_run(instance, in_child, blas))
    print(f"{args.runs} runs each of {args.instance} (placement, HiGHS, 1 thread) in a forked process, "
          f"{os.cpu_count()} cores, medians:")
    for way, rows in found.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        print(f"  {way:33s} wall_time {1000 * wall:6.1f} ms  CPU of the run's process {1000 * cpu:6.1f} ms  "
              f"threads {statistics.median(r[2] for r in rows):.0f}")
    child, parent = ([statistics.median(r[i] for r in found[way]) for i in (0, 1)] for way in ways)
    print(f"  set in the forked process / inherited: wall_time {child[0] / parent[0]:.2f}x, CPU {child[1] / parent[1]:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
