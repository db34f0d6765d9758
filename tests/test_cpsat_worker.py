"""The CP-SAT worker of a batch: started once by the batch process before it forks its runs
(`Adapter.warm_up`), borrowed by each isolated run, and still the run's own for its limits
(`Adapter.helpers`, `core.isolation`): killed with a run killed while it solves, its
memory under the run's limit and in its peak, its CPU in the run's ``cpu_time``."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyomo_puzzles import jobs
from pyomo_puzzles.core import isolation, processes, run, solvers
from pyomo_puzzles.experiment import Run

pytestmark = pytest.mark.skipif(not solvers.availability("cpsat")[0],
                                reason=f"cpsat not available: {solvers.availability('cpsat')[1]}")

EASY = "instant_insanity/parker_brothers"
HARD = "rubik/htm_depth_10"  # CP-SAT needs about 13 s for it ("pieces"), after 0.1 s of building
MEDIUM = "rubik/htm_depth_05"  # about 2 s ("pieces")
STAGED = "rubik/qtm_depth_08"  # "projections": one stage of two parts to solve


def worker() -> tuple[int, ...]:
    """The batch's worker here (this test process stands for the batch process)."""
    solvers.start_up("cpsat")
    pids = solvers.helpers("cpsat")
    assert len(pids) == 1, pids
    return pids


def cpu_watch(pids: tuple[int, ...], done: threading.Event) -> tuple[threading.Thread, list[float]]:
    """A thread noting the largest CPU seconds of the processes until `done` is set."""
    seen = [sum(processes.cpu_seconds_of(pids).values())]

    def watch() -> None:
        while not done.wait(0.05):
            seen.append(sum(processes.cpu_seconds_of(pids).values()) or seen[-1])
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread, seen


BATCH = """
import json, sys
from pyomo_puzzles.core import run, solvers
rows = []
for k in range(19, 22):
    r = run.run(f"packing/iq_twist/challenge_{k}", None, "cpsat", 60, 1, isolate=True)
    rows.append([r.status, r.checked, r.startup_time, r.wall_time, solvers.helpers("cpsat")])
print(json.dumps({"rows": rows, "ortools here": "ortools" in sys.modules}))
"""


def test_the_runs_of_a_process_share_one_worker_started_before_them() -> None:
    """Three isolated runs in a fresh process: the worker (OR-Tools imported there) starts once
    before the first, the first record carries that start-up, and every run is served by the
    same worker, none paying for a start of its own (was: about 1.1 s of each run's wall time)."""
    done = subprocess.run([sys.executable, "-c", BATCH], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    rows = said["rows"]
    assert all(status == "optimal" and checked for status, checked, *_ in rows), rows
    assert rows[0][2] > 0.2 and [row[2] for row in rows[1:]] == [0.0, 0.0]
    assert all(wall < 0.5 for *_, wall, _ in rows), rows
    assert len({tuple(row[4]) for row in rows}) == 1 and len(rows[0][4]) == 1
    assert not said["ortools here"]


def test_a_worker_that_died_between_runs_is_started_again_before_the_next() -> None:
    from pyomo_puzzles.solvers.cpsat import WORKER

    first = worker()
    WORKER._process.kill()
    WORKER._process.wait()
    record = run.run(EASY, "rotations", "cpsat", time_limit=60, isolate=True)
    assert record.status == "optimal" and record.checked and record.startup_time > 0.2
    assert record.wall_time < 0.5  # not started by the run itself
    assert solvers.helpers("cpsat") not in ((), first)


def batch(results: Path, runs: list[Run], time_limit: float) -> SimpleNamespace:
    """The fields of Snakemake's `snakemake` object that `jobs.solve_batch` reads."""
    return SimpleNamespace(
        rule="solve_batch",
        params=SimpleNamespace(runs=[dataclasses.asdict(r) for r in runs], results=str(results),
                               settings={"time_limit": time_limit, "threads": 1, "gap": None, "memory_limit_mb": None}),
        output=SimpleNamespace(manifest=str(results / "batches" / "batch0.json")),
        log=[str(results / "logs" / "batches" / "batch0.log")],
    )


def test_a_run_killed_while_the_worker_solves_takes_the_worker_along(tmp_path, monkeypatch) -> None:
    """A batch's run killed at its hard deadline while the batch's worker solves its model:
    the worker is killed too (it would solve on for the dead run, and the next run would wait
    for it), the record says time_limit, and the next run gets a checked answer from a worker
    the batch started anew before it, its start-up on that run's record and in the log."""
    # The deadline is the time limit plus the grace; a negative grace puts it 4 s after the
    # start while CP-SAT is given 60 s: a solver overrunning its own limit.
    monkeypatch.setattr(isolation, "GRACE_SECONDS", -56.0)
    first = worker()
    results = tmp_path / "results"
    hard, easy = Run(HARD, "pieces", "cpsat", 1), Run(EASY, "rotations", "cpsat", 1)
    done = threading.Event()
    watcher, cpu = cpu_watch(first, done)
    job = batch(results, [hard, easy], time_limit=60)
    jobs.solve_batch(job)
    done.set()
    watcher.join()
    assert max(cpu) - cpu[0] > 0.3, f"the worker never solved the model ({cpu[0]:.2f} -> {max(cpu):.2f} CPU s)"
    killed = json.loads(Path(hard.record_path(str(results))).read_text())
    assert killed["status"] == "time_limit" and killed["killed"], killed["message"]
    assert not processes.cpu_seconds_of(first), "the worker survived the run it worked for"
    after = json.loads(Path(easy.record_path(str(results))).read_text())
    assert after["status"] == "optimal" and after["checked"] and after["startup_time"] > 0.2
    assert after["wall_time"] < 0.5  # the new worker started before the run's clock
    assert solvers.helpers("cpsat") not in ((), first)
    log = Path(job.log[0]).read_text()
    assert "cpsat: start-up paid again" in log, log


def test_the_workers_memory_counts_against_the_runs_memory_limit() -> None:
    """The worker's memory is the run's while it works for it: a limit that the run's own
    process keeps but the run with its worker (OR-Tools alone holds over 60 MiB) does not,
    kills the run and the worker; the next run is answered by a new worker."""
    first = worker()
    assert processes.reset_peaks(first)
    free = run.run(MEDIUM, "pieces", "cpsat", time_limit=60, isolate=True)  # CP-SAT needs about 2 s
    assert free.status == "optimal" and free.checked
    own = free.peak_memory_mb - processes.peak_mb(first)  # the worker's peak counts from the run's start
    resident = processes.rss_mb(first)
    assert resident > 60
    limit = own + resident / 2  # the run's own process stays below it, with the worker it does not
    record = run.run(MEDIUM, "pieces", "cpsat", time_limit=60, isolate=True, memory_limit_mb=limit)
    assert record.status == "memory_limit" and record.killed, record.message
    assert record.peak_memory_mb > limit
    assert solvers.helpers("cpsat") == (), "the worker survived the run it worked for"
    again = run.run(EASY, "rotations", "cpsat", time_limit=60, isolate=True)
    assert again.status == "optimal" and again.checked and again.startup_time > 0.2
    assert again.peak_memory_mb > processes.rss_mb(solvers.helpers("cpsat")) > 60  # the worker is in the peak


def test_the_runs_cpu_time_holds_the_workers_solve_and_the_worker_gives_its_memory_back() -> None:
    """The worker's CPU over the run is the run's; the memory the model took in the worker
    goes back to the system (else it would count in every later run's peak and limit)."""
    pids = worker()
    before, resident = sum(processes.cpu_seconds_of(pids).values()), processes.rss_mb(pids)
    record = run.run(MEDIUM, "pieces", "cpsat", time_limit=60, isolate=True)
    spent = sum(processes.cpu_seconds_of(pids).values()) - before
    assert record.status == "optimal" and record.checked
    assert spent > 0.5 and record.solver_time > 0.5  # CP-SAT on one thread: about 2 s
    assert record.cpu_time >= spent - 0.05  # its ticks are 10 ms
    assert processes.rss_mb(pids) < resident + 15  # was: 25 MiB more for good


def test_the_parallel_parts_of_a_run_use_workers_of_their_own() -> None:
    """A staged run solving two parts at once in processes of its own: they start workers
    of their own (killed with them when one part has the answer), the batch's worker stays idle."""
    pids = worker()
    before = sum(processes.cpu_seconds_of(pids).values())
    record = run.run(STAGED, None, "cpsat", time_limit=120, threads=2, isolate=True)
    assert record.status == "optimal" and record.checked, record.message
    assert sum(processes.cpu_seconds_of(pids).values()) - before < 0.1
    assert solvers.helpers("cpsat") == pids


INTERRUPTED = """
import json, signal, sys
# Ctrl-C as a terminal gives it, also where the suite was started with SIGINT ignored (a shell's
# background job), which the child would inherit and Python would then not turn into KeyboardInterrupt
signal.signal(signal.SIGINT, signal.default_int_handler)
from pyomo_puzzles.core import run, solvers
solvers.start_up("cpsat")
first = solvers.helpers("cpsat")
print(json.dumps(first), flush=True)
try:
    run.run("%s", "pieces", "cpsat", time_limit=60, isolate=False)
except KeyboardInterrupt:
    pass
easy = run.run("%s", "rotations", "cpsat", time_limit=60, isolate=False)
print(json.dumps([easy.status, easy.checked, solvers.helpers("cpsat")]), flush=True)
""" % (HARD, EASY)


def test_a_request_interrupted_kills_the_worker_and_the_next_is_answered_by_a_new_one() -> None:
    """Ctrl-C while the worker solves: the worker is killed (it would solve on, and its late
    answer would be read as the answer to the next request); the next solve is answered."""
    solving = subprocess.Popen([sys.executable, "-c", INTERRUPTED], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        first = tuple(json.loads(solving.stdout.readline()))
        assert len(first) == 1, solving.stderr.read()[-2000:]
        idle = sum(processes.cpu_seconds_of(first).values())
        done = threading.Event()
        while sum(processes.cpu_seconds_of(first).values()) < idle + 0.5:  # solving
            assert solving.poll() is None and not done.wait(0.05)
        solving.send_signal(signal.SIGINT)
        out, err = solving.communicate(timeout=300)
    finally:
        solving.kill()
    assert solving.returncode == 0, err[-2000:]
    status, checked, second = json.loads(out.strip().splitlines()[-1])
    assert status == "optimal" and checked
    assert second and tuple(second) != first
    assert not processes.cpu_seconds_of(first)


def test_the_worker_exists_because_or_tools_and_highspy_cannot_share_a_process() -> None:
    """The reason for the worker, reproduced: OR-Tools and highspy bundle native libraries of
    HiGHS that do not agree, so whichever is imported second fails to load. If this test
    fails, a release fixed the clash, and CP-SAT could be imported in the run's own process."""
    pytest.importorskip("highspy", reason="highspy not installed: no clash to reproduce")
    for first, second in (("highspy", "ortools.sat.python.cp_model"), ("ortools.sat.python.cp_model", "highspy")):
        both = subprocess.run([sys.executable, "-c", f"import {first}\nimport {second}"],
                              capture_output=True, text=True, timeout=120)
        assert both.returncode != 0, f"{first} then {second} imported into one process"
        assert "ImportError" in both.stderr, both.stderr[-2000:]
        for alone in (first, second):
            assert subprocess.run([sys.executable, "-c", f"import {alone}"], capture_output=True,
                                  timeout=120).returncode == 0, f"{alone} alone does not import"
