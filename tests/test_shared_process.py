"""A batch's runs made one after another in one forked process (``processes: per_batch``,
the default; issue 59): each run still finds what a run in a process of its own finds, a run
that takes its process down leaves a record and the next run gets a new process, and a run's
peak memory is its own, not the peak of a run made before it in the same process.

Ground truth: every IQ Twist booklet challenge has exactly one covering
(`../shared/data/ground_truth.md`)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyomo_puzzles import jobs
from pyomo_puzzles.core import isolation, processes, solvers
from pyomo_puzzles.core.records import RunRecord, RunSettings, new_record
from pyomo_puzzles.core.warmup import prepared_process
from pyomo_puzzles.experiment import Run

SETTINGS = {"time_limit": 20, "threads": 1, "gap": None, "memory_limit_mb": None}
CHALLENGES = [f"packing/iq_twist/challenge_{number}" for number in (23, 31, 40, 47)]


def batch(results: Path, runs: list[Run], processes: str, settings: dict = SETTINGS) -> SimpleNamespace:
    """The fields of Snakemake's `snakemake` object that `jobs.solve_batch` reads."""
    return SimpleNamespace(
        rule="solve_batch",
        params=SimpleNamespace(runs=[dataclasses.asdict(r) for r in runs], results=str(results),
                               settings=dict(settings, processes=processes)),
        output=SimpleNamespace(manifest=str(results / "batches" / "batch0.json")),
        log=[str(results / "logs" / "batches" / "batch0.log")],
    )


def made(results: Path, runs: list[Run]) -> list[dict]:
    """The records of `runs`, in their order."""
    return [json.loads(Path(r.record_path(str(results))).read_text()) for r in runs]


def covering(record: dict) -> set[frozenset]:
    """The cells each piece covers (a challenge's covering, its pegs and rings left aside)."""
    return {frozenset(map(tuple, piece["cells"])) for piece in record["solution"]["pieces"]}


def installed(solver: str) -> None:
    ok, why = solvers.availability(solver)
    if not ok:
        pytest.skip(f"{solver} is not installed: {why}")


@pytest.mark.parametrize("solver", ["highs", "scip", "cbc"])
def test_runs_in_one_process_find_what_runs_in_processes_of_their_own_find(tmp_path, solver):
    installed(solver)
    runs = [Run(name, "placement", solver, 1) for name in CHALLENGES]
    shared, own = tmp_path / "shared", tmp_path / "own"
    jobs.solve_batch(batch(shared, runs, "per_batch"))
    jobs.solve_batch(batch(own, runs, "per_run"))
    in_turn, alone = made(shared, runs), made(own, runs)
    assert [r["runs_before_in_process"] for r in in_turn] == [0, 1, 2, 3]
    assert [r["runs_before_in_process"] for r in alone] == [0, 0, 0, 0]
    for one, other in zip(in_turn, alone):
        assert one["status"] == other["status"] == "optimal" and one["checked"] and other["checked"]
        assert covering(one) == covering(other)  # each challenge has exactly one
        assert one["nodes"] == other["nodes"], "the same search, whatever the process made before"
    # the process prepared itself once: the runs after the first pay no preparation
    assert in_turn[0]["prepare_time"] > 0
    assert all((r["prepare_time"] or 0) < in_turn[0]["prepare_time"] / 10 for r in in_turn[1:])


def killed_when_solving(sent: list, done: threading.Event) -> threading.Thread:
    """A thread that kills the process making this test's runs (a child of this process that
    leads its own group) once it has worked for 3 CPU seconds: the quick runs before take a
    fraction of that, the slow run builds its model within 2 s and solves it for over a minute.
    A real SIGKILL, as the kernel's OOM killer or a crashing solver library would end it."""
    def watch():
        while not done.is_set():
            for pid in processes.descendants(os.getpid()):
                if _leads_its_group(pid) and processes.cpu_seconds_of((pid,)).get(pid, 0.0) > 3.0:
                    processes.kill_group(pid)
                    sent.append(pid)
                    return
            done.wait(0.05)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _leads_its_group(pid: int) -> bool:
    try:
        return os.getpgid(pid) == pid
    except ProcessLookupError:
        return False


def test_a_run_that_takes_its_process_down_leaves_a_record_and_the_next_run_gets_a_new_process(tmp_path):
    installed("cbc")
    quick = [Run(name, "placement", "cbc", 1) for name in CHALLENGES[:2]]
    slow = Run("rubik/htm_depth_10", "pieces", "cbc", 1)  # over a minute on CBC
    after = [Run(name, "placement", "cbc", 1) for name in CHALLENGES[2:]]
    runs = [*quick, slow, *after]
    killed: list = []
    done = threading.Event()
    watcher = killed_when_solving(killed, done)
    jobs.solve_batch(batch(tmp_path, runs, "per_batch"))
    done.set()
    watcher.join()
    assert killed, "the runs' process never solved the slow run"
    records = made(tmp_path, runs)
    crashed = records[2]
    assert crashed["status"] == "error" and crashed["solution"] is None
    assert crashed["message"] == "run crashed (killed by signal SIGKILL)", crashed["message"]
    assert crashed["runs_before_in_process"] == 2
    assert [r["runs_before_in_process"] for r in records[3:]] == [0, 1], "the runs after it in a new process"
    for record in (*records[:2], *records[3:]):
        assert record["status"] == "optimal" and record["checked"]


BIG = Run("instant_insanity/library/cubes176_seed1", "rotations", "highs", 1)
"""Instant Insanity with 176 cubes: a model of about 150 MiB more than an IQ Twist challenge's."""


RUNNER = """
import json, sys
from types import SimpleNamespace
from pyomo_puzzles import jobs
job = json.loads(sys.argv[1])
jobs.solve_batch(SimpleNamespace(rule="solve_batch", params=SimpleNamespace(**job["params"]),
                                 output=SimpleNamespace(**job["output"]), log=job["log"]))
"""


def solved_in_a_new_process(job: SimpleNamespace) -> None:
    """`jobs.solve_batch(job)` in a new Python process, as Snakemake runs a batch: a forked
    run's resident memory starts with what the process it was forked from holds, and this
    test session's processes hold hundreds of MiB of freed memory the next allocations reuse."""
    fields = {"params": vars(job.params), "output": vars(job.output), "log": job.log}
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(fields)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def big_then_small(tmp_path: Path) -> tuple[dict, dict, dict]:
    """The records of BIG and then a challenge in one batch, and of the challenge alone, each
    batch in a new process."""
    small = Run(CHALLENGES[0], "placement", "highs", 1)
    settings = dict(SETTINGS, time_limit=8)  # BIG's model built within it on a busy machine too; then it stops
    solved_in_a_new_process(batch(tmp_path / "shared", [BIG, small], "per_batch", settings))
    solved_in_a_new_process(batch(tmp_path / "own", [small], "per_run", settings))
    first, second = made(tmp_path / "shared", [BIG, small])
    (alone,) = made(tmp_path / "own", [small])
    assert first["peak_memory_mb"] > alone["peak_memory_mb"] + 45, (first["peak_memory_mb"], alone["peak_memory_mb"])
    assert second["status"] == "optimal" and second["checked"]
    return first, second, alone


def _holding(mib: int):
    """The work of a run that holds `mib` MiB for a moment (resident: every page written) and
    gives it back to the system (an allocation this large is its own mapping)."""
    def work(say) -> RunRecord:
        say("loaded", {"puzzle": "memory", "instance": f"memory/{mib}", "formulation": "-"})
        held = bytearray(mib * 2 ** 20)
        held[::4096] = b"x" * len(held[::4096])
        del held
        return new_record("memory", f"memory/{mib}", "-", "-", RunSettings(time_limit=60))
    return work


def test_a_runs_peak_memory_is_its_own_not_that_of_a_run_before_it():
    # two runs in one process: the first holds 300 MiB and gives them back, the second holds
    # nothing; without the peak reset between them the second reports the first's peak
    runs = [isolation.IsolatedRun(_holding(mib), RunSettings(time_limit=60), lambda loaded: None)
            for mib in (300, 0)]
    first, second = isolation.run_in_turn(runs, prepared_process())
    assert second.runs_before_in_process == 1, "the memory was given back: the process is kept"
    assert first.peak_memory_mb > second.peak_memory_mb + 250, (first.peak_memory_mb, second.peak_memory_mb)


def test_a_process_that_keeps_memory_from_its_runs_is_replaced_before_it_counts_in_a_runs_peak(tmp_path):
    installed("highs")
    _, second, alone = big_then_small(tmp_path)
    # whether the process was replaced after the big run or not, what it kept is within the bound
    assert second["peak_memory_mb"] < alone["peak_memory_mb"] + isolation.RETIRE_MB + 3, (
        second["peak_memory_mb"], alone["peak_memory_mb"], second["runs_before_in_process"])

