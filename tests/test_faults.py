"""Faults injected into runs and batches: Ctrl-C, SIGKILL at random moments, a solver
killed mid-solve, a full disk, two pipelines on one folder, the time limit over a slow load,
and records kept only while nothing they depend on has changed (issue 16).

A batch is driven here as Snakemake's script would drive it (`jobs.solve_batch` with the
`snakemake` object's fields), in this process or in a child process that the test kills; the
Snakemake side (rerun flags, the results-folder lock) is tested through real `snakemake`
calls in tests/test_workflow.py and below.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import pyomo_puzzles
from pyomo_puzzles import jobs
from pyomo_puzzles.core import isolation, run, solvers
from pyomo_puzzles.errors import DataError
from pyomo_puzzles.experiment import FORCE_VARIABLE, Run

from conftest import ROOT, SLOW_TO_LOAD

SETTINGS = {"time_limit": 20, "threads": 1, "gap": None, "memory_limit_mb": None}
FORMULATION_FILE = ROOT / "pyomo_puzzles" / "families" / "packing" / "model_placement.py"



def batch(results: Path, runs: list[Run], settings: dict = SETTINGS, index: int = 0) -> SimpleNamespace:
    """The fields of Snakemake's `snakemake` object that `jobs.solve_batch` reads."""
    return SimpleNamespace(
        rule="solve_batch",
        params=SimpleNamespace(runs=[dataclasses.asdict(r) for r in runs], results=str(results),
                               settings=dict(settings)),
        output=SimpleNamespace(manifest=str(results / "batches" / f"batch{index}.json")),
        log=[str(results / "logs" / "batches" / f"batch{index}.log")],
    )


def log_lines(job: SimpleNamespace) -> list[str]:
    return Path(job.log[0]).read_text().splitlines()


def records(results: Path) -> dict[str, dict]:
    """Every record under results/runs, parsed (a half-written file fails here)."""
    return {str(p.relative_to(results)): json.loads(p.read_text()) for p in sorted((results / "runs").rglob("*.json"))}


def outcome(job: SimpleNamespace, run_: Run) -> str:
    """What the batch's log says it did with `run_`: kept, or the reason it ran."""
    path = run_.record_path(job.params.results)
    line = next(line for line in log_lines(job) if line.startswith(path + ":"))
    return "kept" if "kept (finished earlier" in line else line.rsplit("(", 1)[1].rstrip(")")


# --- records are reused only while nothing they depend on has changed -------------------

def test_a_record_is_kept_until_something_it_depends_on_changes(tmp_path, monkeypatch):
    monkeypatch.delenv(FORCE_VARIABLE, raising=False)
    results = tmp_path / "results"
    generated = results / "instances" / "instant_insanity" / "tower.yaml"
    generated.parent.mkdir(parents=True)
    shutil.copy(ROOT / "pyomo_puzzles/families/instant_insanity/instances/parker_brothers.yaml", generated)
    formulation_file = tmp_path / "my_placement.py"
    shutil.copy(FORMULATION_FILE, formulation_file)
    shipped = Run("packing/l_tromino_cube", "placement", "highs", 1)
    own = Run("packing/l_tromino_cube", f"{formulation_file}:FORMULATION", "highs", 1)
    tower = Run("generated/instant_insanity/tower", "rotations", "highs", 1)
    runs = [shipped, own, tower]

    def again(settings=SETTINGS) -> dict[Run, str]:
        job = batch(results, runs, settings)
        jobs.solve_batch(job)
        return {r: outcome(job, r) for r in runs}

    assert set(again().values()) == {"new"}
    first = records(results)
    assert all(r["status"] == "optimal" and r["checked"] and r["fingerprint"] for r in first.values())
    assert set(again().values()) == {"kept"}
    assert records(results) == first  # not rewritten

    assert set(again({**SETTINGS, "time_limit": 21}).values()) == {"changed since the record: settings"}
    assert set(again().values()) == {"changed since the record: settings"}  # and back
    # how the runs are made (one process a batch, or each its own) changes what their times measure
    assert set(again({**SETTINGS, "processes": "per_run"}).values()) == {"changed since the record: settings"}
    assert set(again({**SETTINGS, "processes": "per_run"}).values()) == {"kept"}
    assert set(again().values()) == {"changed since the record: settings"}

    formulation_file.write_text(formulation_file.read_text() + "\n# an edit\n")
    assert again() == {shipped: "kept", own: "changed since the record: formulation", tower: "kept"}

    generated.write_text(generated.read_text().replace("title: Instant Insanity", "title: A copy of Instant Insanity"))
    assert again() == {shipped: "kept", own: "kept", tower: "changed since the record: instance"}

    monkeypatch.setattr(pyomo_puzzles.version, "__version__", pyomo_puzzles.__version__ + ".post1")
    assert set(again().values()) == {"changed since the record: package"}

    real = solvers.availability
    monkeypatch.setattr(solvers, "availability",
                        lambda name: (True, "HiGHS 99.0 (a newer build)") if name == "highs" else real(name))
    assert set(again().values()) == {"changed since the record: solver"}
    monkeypatch.setattr(solvers, "availability", real)

    again()  # the fingerprints of the real versions again
    monkeypatch.setenv(FORCE_VARIABLE, "all")
    assert set(again().values()) == {"rerun forced"}
    monkeypatch.setenv(FORCE_VARIABLE, os.pathsep.join(["/elsewhere/batches/batch0.json"]))
    assert set(again().values()) == {"kept"}
    monkeypatch.setenv(FORCE_VARIABLE, str(results / "batches" / "batch0.json"))
    assert set(again().values()) == {"rerun forced"}
    monkeypatch.delenv(FORCE_VARIABLE)

    path = Path(tower.record_path(str(results)))
    path.write_text(json.dumps({**json.loads(path.read_text()), "status": "interrupted"}))
    assert again()[tower] == "it was interrupted"


# --- SIGKILL of a batch at random moments ------------------------------------------------

RUNNER = """\
import json, sys
from types import SimpleNamespace
from pyomo_puzzles import jobs
job = json.loads(sys.argv[1])
jobs.solve_batch(SimpleNamespace(rule="solve_batch", params=SimpleNamespace(**job["params"]),
                                     output=SimpleNamespace(**job["output"]), log=job["log"]))
"""


def batch_process(job: SimpleNamespace, tmp_path: Path, prefix: list[str] = ()) -> list[str]:
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    fields = {"params": vars(job.params), "output": vars(job.output), "log": job.log}
    return [*prefix, sys.executable, str(runner), json.dumps(fields)]


def test_a_batch_killed_at_random_moments_loses_nothing_and_redoes_nothing(tmp_path):
    moments = random.Random(16).sample([x / 10 for x in range(20, 70)], 3)  # seconds after start
    for trial, moment in enumerate(moments):
        results = tmp_path / f"trial{trial}"
        runs = [Run("packing/l_tromino_cube", "placement", "highs", k) for k in range(1, 5)] + \
               [Run("instant_insanity/parker_brothers", "rotations", "highs", k) for k in range(1, 5)]
        job = batch(results, runs)
        child = subprocess.Popen(batch_process(job, tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(moment)
        child.kill()
        child.wait()
        before = records(results) if (results / "runs").exists() else {}  # every file parses
        assert not Path(job.output.manifest).exists() or len(before) == len(runs)

        jobs.solve_batch(job)
        after = records(results)
        assert len(after) == len(runs), f"trial {trial} (killed at {moment} s): a run is missing"
        for name, record in before.items():
            assert after[name] == record, f"trial {trial}: {name} was redone"
        kept = sum(outcome(job, r) == "kept" for r in runs)
        assert kept == len(before)
        assert not list(results.rglob("*.tmp*")), "a temporary file was left behind"
        assert json.loads(Path(job.output.manifest).read_text())["records"] == [r.record_path(str(results)) for r in runs]


# --- a run killed mid-solve, a run hung past its limit (the solver in the run's process) ---

def stat_fields(pid: str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state, ppid, ...); [] if gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return stat[stat.rfind(")") + 2:].split()


def running(pid: str) -> bool:
    """Whether the process is alive and not a zombie (ended, not yet waited for)."""
    fields = stat_fields(pid)
    return bool(fields) and fields[0] != "Z"


def descends_from_this_test(pid: str) -> bool:
    """Whether the process was started, at any depth, by this test's process (another
    process of the machine with the same name is not this test's to kill)."""
    while pid not in ("0", "1"):
        fields = stat_fields(pid)
        if not fields:
            return False
        pid = fields[1]
        if pid == str(os.getpid()):
            return True
    return False


def a_run_of_this_test(pid: str) -> bool:
    """Whether the process is a run forked by this test's process (at any depth): a copy of
    it, the same command line (not a helper such as multiprocessing's resource tracker)."""
    try:
        same = Path(f"/proc/{pid}/cmdline").read_bytes() == Path("/proc/self/cmdline").read_bytes()
    except OSError:
        return False
    return same and descends_from_this_test(pid)


def signal_when_started(after: float, sent: list, done: threading.Event, number: int = signal.SIGKILL) -> threading.Thread:
    """A thread that sends signal `number` to the first run forked by this test still running
    `after` s after it appeared, watching until it has or `done` is set, however long the
    machine takes to get there."""
    def watch():
        passed_over = set()
        while not done.is_set():
            for pid in filter(str.isdigit, os.listdir("/proc")):
                if pid in passed_over or pid == str(os.getpid()) or not a_run_of_this_test(pid):
                    continue
                time.sleep(after)  # mid-solve: the model is built within 2 s, its solve takes over a minute
                try:
                    if not running(pid):
                        raise ProcessLookupError
                    os.kill(int(pid), number)
                except ProcessLookupError:
                    passed_over.add(pid)
                    continue
                sent.append(int(pid))
                return
            done.wait(0.05)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


# over a minute on cbc and on glpk (the L-tromino cube's cell assignment, used before, takes
# glpk about 1 s), built and compiled within 2 s; then a quick one
SLOW, QUICK = ("rubik/htm_depth_10", "pieces"), ("instant_insanity/parker_brothers", "rotations")


@pytest.mark.parametrize("solver", ["cbc", "glpk"])
def test_a_run_killed_mid_solve_gives_an_error_record_and_the_batch_goes_on(tmp_path, solver):
    # CBC and GLPK solve in the run's own process (issue 44): killing it kills the solver
    if not solvers.availability(solver)[0]:
        pytest.skip(f"{solver} is not installed: {solvers.availability(solver)[1]}")
    results = tmp_path / "results"
    slow, after = Run(*SLOW, solver, 1), Run(*QUICK, solver, 1)
    killed: list = []
    finished = threading.Event()
    watcher = signal_when_started(3.0, killed, finished)
    jobs.solve_batch(batch(results, [slow, after]))
    finished.set()
    watcher.join()
    assert killed, "the run's process never started"
    crashed = json.loads(Path(slow.record_path(str(results))).read_text())
    assert crashed["status"] == "error" and crashed["solution"] is None
    assert crashed["message"] == "run crashed (killed by signal SIGKILL)", crashed["message"]
    finished = json.loads(Path(after.record_path(str(results))).read_text())
    assert finished["status"] == "optimal" and finished["checked"]
    assert finished["solver_clock"] == "call" and finished["solver_time"] <= finished["wall_time"]


@pytest.mark.parametrize("solver", ["cbc", "glpk"])
def test_a_run_hung_past_its_limit_is_killed_with_its_solver_and_leaves_a_record(tmp_path, solver):
    # the run's process stopped mid-solve (SIGSTOP): neither the solver's own limit nor the
    # run can end it, the hard deadline (time limit + grace) does
    if not solvers.availability(solver)[0]:
        pytest.skip(f"{solver} is not installed: {solvers.availability(solver)[1]}")
    results = tmp_path / "results"
    slow, after = Run(*SLOW, solver, 1), Run(*QUICK, solver, 1)
    stopped: list = []
    finished = threading.Event()
    watcher = signal_when_started(3.0, stopped, finished, signal.SIGSTOP)
    limit = 6
    began = time.monotonic()
    jobs.solve_batch(batch(results, [slow, after], settings=dict(SETTINGS, time_limit=limit)))
    finished.set()
    watcher.join()
    assert stopped, "the run's process never started"
    hung = json.loads(Path(slow.record_path(str(results))).read_text())
    assert (hung["status"], hung["killed"], hung["solution"]) == ("time_limit", True, None), hung["message"]
    assert hung["message"].startswith("run killed after"), hung["message"]
    assert limit <= hung["wall_time"] < limit + isolation.GRACE_SECONDS + 5
    assert not running(str(stopped[0]))
    finished = json.loads(Path(after.record_path(str(results))).read_text())
    assert finished["status"] == "optimal" and finished["checked"]
    assert time.monotonic() - began < 2 * (limit + isolation.GRACE_SECONDS) + 60


# --- a full disk ---------------------------------------------------------------------------

def test_a_full_disk_stops_the_batch_with_one_line_and_no_corrupt_record(tmp_path):
    if not shutil.which("unshare"):
        pytest.skip("unshare (util-linux) is not installed: no private tmpfs for the full-disk test")
    results = tmp_path / "tiny"
    results.mkdir()
    runs = [Run("packing/l_tromino_cube", "placement", "highs", k) for k in range(1, 13)]
    job = batch(results, runs)
    job.log = [str(tmp_path / "batch0.log")]  # the log beside, so that what happened can be read
    verify = ("import json, pathlib, sys; files = sorted(pathlib.Path(sys.argv[1]).rglob('*.json')); "
              "[json.loads(f.read_text()) for f in files]; "
              "print('records', sum('runs' in f.parts for f in files), 'temporaries', "
              "len(list(pathlib.Path(sys.argv[1]).rglob('*.tmp*'))))")
    script = (f"mount -t tmpfs -o size=24k tmpfs {results} || exit 77; "
              f"{' '.join(map(shlex_quote, batch_process(job, tmp_path)))}; echo exit=$? >&2; "
              f"{shlex_quote(sys.executable)} -c {shlex_quote(verify)} {results}")
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
                          capture_output=True, text=True, timeout=300)
    if done.returncode == 77 or "unshare failed" in done.stderr or "Operation not permitted" in done.stderr:
        pytest.skip(f"no private tmpfs here (user namespaces or mounts not permitted): {done.stderr.strip()[:200]}")
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == "exit=1", done.stderr
    assert len(lines) == 2 and lines[0].startswith("pyomo-puzzles: error: cannot write ") and \
        lines[0].endswith(os.strerror(errno.ENOSPC)), done.stderr
    written = int(done.stdout.split()[1])
    assert 0 < written < len(runs) and done.stdout.split()[3] == "0", done.stdout
    assert "pyomo-puzzles: error: cannot write" in Path(job.log[0]).read_text()


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(str(text))


# --- two pipelines on one results folder ---------------------------------------------------

HOLDER = """\
import sys, time
from pyomo_puzzles import experiment
lock = experiment.lock_results(sys.argv[1])
print("locked", flush=True)
time.sleep(120)
"""


def test_a_second_pipeline_on_the_same_results_folder_is_refused(tmp_path):
    results = tmp_path / "results"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(results)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        config = tmp_path / "config.yaml"
        config.write_text(f"results: {results}\ninstances: [packing/l_tromino_cube]\nformulations: [placement]\n"
                          "solvers: [highs]\nrepeats: 1\n")
        other = tmp_path / "elsewhere"  # another working folder: Snakemake's own lock does not see the first
        other.mkdir()
        done = subprocess.run([str(Path(sys.executable).parent / "snakemake"), "-s", str(ROOT / "Snakefile"),
                               "--cores", "1", "--configfile", str(config), "--until", "solve_batch"],
                              cwd=other, capture_output=True, text=True, timeout=300)
    finally:
        holder.kill()
        holder.wait()
    refusal = [line for line in done.stderr.splitlines() if line.startswith("pyomo-puzzles:")]
    assert done.returncode == 2, done.stderr
    assert len(refusal) == 1 and f"the results folder {results} is in use by another pipeline (pid {holder.pid}" \
        in refusal[0], done.stderr
    assert not (results / "runs").exists()


def test_the_results_lock_is_exclusive_and_released_with_its_holder(tmp_path):
    from pyomo_puzzles import experiment
    from pyomo_puzzles.errors import UserError

    first = experiment.lock_results(str(tmp_path))
    with pytest.raises(UserError, match="in use by another pipeline"):
        experiment.lock_results(str(tmp_path))
    first.close()
    experiment.lock_results(str(tmp_path)).close()


# --- Ctrl-C, and the time limit over loading -------------------------------------------------

def solve_process(path: Path, *args: str) -> subprocess.Popen:
    """`solve` as started from a terminal: Ctrl-C's signal is not ignored, even where the
    suite itself runs as a background job (which starts with SIGINT ignored, and passes that on)."""
    return subprocess.Popen([sys.executable, "-m", "pyomo_puzzles", "solve", str(path), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def group_alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    return True


def next_line(stream, seconds: float) -> str:
    """The next line a child writes to `stream`, waiting at most `seconds` ('' if none came)."""
    ready, _, _ = select.select([stream], [], [], seconds)
    return stream.readline() if ready else ""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("moment", ["while loading", "as the run starts"])
def test_an_interrupted_solve_stops_at_once_and_leaves_a_record_saying_so(tmp_path, stop, moment):
    instance = tmp_path / "slow.yaml"
    instance.write_text(SLOW_TO_LOAD)
    record = tmp_path / "record.json"
    solving = solve_process(instance, "-t", "120", "-o", str(record), "--verbose")
    if moment == "while loading":  # the run says when its child has read the data file
        said = next_line(solving.stderr, 300)
        assert said == "pyomo-puzzles: packing/slow: data file read, loading the instance\n", said
    else:  # the moment the run's child is forked (was: a child left running, the exit waited for it)
        deadline = time.monotonic() + 300
        while not Path(f"/proc/{solving.pid}/task/{solving.pid}/children").read_text().split():
            assert solving.poll() is None and time.monotonic() < deadline, "the run's child never started"
    children = [int(p) for p in Path(f"/proc/{solving.pid}/task/{solving.pid}/children").read_text().split()]
    asked = time.perf_counter()
    solving.send_signal(stop)
    _, err = solving.communicate(timeout=120)
    took = time.perf_counter() - asked
    assert solving.returncode == 130 and err.splitlines()[-1:] == ["pyomo-puzzles: interrupted"], err
    assert "Traceback" not in err, err
    assert took < 10, f"{took:.2f} s from the signal to the exit (loading alone takes about a minute)"
    assert children and not group_alive(children[0]), "the run's processes survived"
    saved = json.loads(record.read_text())
    assert saved["status"] == "interrupted" and saved["killed"]
    if moment == "while loading":
        assert saved["instance"] == "packing/slow" and saved["puzzle"] == "packing"


def test_the_time_limit_covers_loading_the_instance(tmp_path, monkeypatch):
    monkeypatch.setattr(isolation, "GRACE_SECONDS", 2.0)  # 10 s in use; shorter here to keep the suite quick
    instance = tmp_path / "slow.yaml"
    instance.write_text(SLOW_TO_LOAD)
    started = time.perf_counter()
    record = run.run(str(instance), None, "highs", time_limit=1)
    took = time.perf_counter() - started
    assert took < 1 + 2 + 10, f"{took:.1f} s for a 1 s limit and 2 s of grace (loading takes about a minute)"
    assert record.status == "time_limit" and record.killed
    assert record.instance == "packing/slow" and record.formulation == "placement"
    assert "while loading the instance" in record.message


@pytest.mark.parametrize("text, field, words", [
    (SLOW_TO_LOAD.replace("[60, 60, 3]", "[1000000, 1000000, 1000]"), "board.size", "more than the 1,000,000"),
    ("puzzle: instant_insanity\ncolours: [c0]\nquestion: all_different\ncubes:\n"
     + "  - [c0, c0, c0, c0, c0, c0]\n" * 1001, "cubes", "1,001 cubes, more than the 1,000"),
    ("puzzle: rubik\nsize: 3\nmetric: htm\nscramble: R U\nsteps: 500\n", "steps", "more than God's number (20"),
])
def test_an_instance_too_large_to_build_is_refused_before_anything_is_built(tmp_path, text, field, words):
    from pyomo_puzzles.core import instances

    path = tmp_path / "huge.yaml"
    path.write_text(text)
    started = time.perf_counter()
    with pytest.raises(DataError) as refused:
        instances.load(path)
    assert time.perf_counter() - started < 5
    assert refused.value.field == field and words in refused.value.message, refused.value


@pytest.mark.parametrize("solver, formulation", [("highs", "placement"), ("dlx", "exact_cover")])
def test_a_killed_run_is_filed_under_its_cells_names(tmp_path, solver, formulation):
    """A run the batch's memory limit kills before its data file is read is recorded under the
    instance and formulation of its cell, as its finished runs are: a reference method's under
    its label (dlx: exact_cover), not its name or none (two methods in legends and scores)."""
    # an instance every method takes seconds on: a run that ended before the first look at its
    # memory (every 0.1 s) would not be killed (dancing links solves 6x10 in milliseconds)
    item = Run("packing/library/polyominoes_copies3_height30_order5_width6_seed1", formulation, solver, 1)
    record = jobs.run_one(item, str(tmp_path), {"time_limit": 30, "threads": 1, "memory_limit_mb": 1})
    assert record.status == "memory_limit" and record.killed
    assert (record.instance, record.formulation) == (item.instance, formulation)
