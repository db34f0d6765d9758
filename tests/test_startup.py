"""What a command imports and computes once per process (issue 17): nothing about pictures,
tables or CP-SAT for a solve, one family for one instance, matplotlib's backend untouched,
BLAS kept to a run's threads, and the disk cache of slow tables."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import run_cli

from pyomo_puzzles.core import cache

HEAVY = ("matplotlib", "seaborn", "pandas", "scipy", "ortools", "jsonschema", "pyarrow")


def imported_after(code: str, env: dict | None = None) -> set[str]:
    """The top-level packages a fresh interpreter has imported after running `code`."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
                          env=env or os.environ)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("name", ["packing/iq_twist/challenge_19", "rubik/htm_depth_03",
                                  "instant_insanity/parker_brothers"])
def test_a_solve_imports_nothing_for_pictures_tables_or_cp_sat(name) -> None:
    code = ("import sys\nfrom pyomo_puzzles import cli\n"
            f"sys.argv = ['pyomo-puzzles', 'solve', {name!r}]\n"
            "try:\n    cli.main()\nexcept SystemExit as done:\n    assert done.code == 0, done.code\n")
    loaded = imported_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_listing_and_the_help_import_no_drawing_or_table_library() -> None:
    # a process that meets a family's schema for the first time (an empty disk cache: this test
    # alone) checks it with jsonschema once; the listing asserted here is every later one
    assert run_cli("list").returncode == 0
    loaded = imported_after("import sys\nfrom pyomo_puzzles import cli\nsys.argv = ['pyomo-puzzles', 'list']\n"
                            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n")
    assert not loaded & {"matplotlib", "seaborn", "pandas", "scipy", "jsonschema"}


def test_one_instance_imports_only_its_own_family() -> None:
    code = ("import json, sys\nfrom pyomo_puzzles.core import instances\n"
            "instances.load('packing/l_tromino_cube')\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pyomo_puzzles.families.'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    families = {m.split(".")[2] for m in json.loads(done.stdout.splitlines()[0])}
    assert families == {"packing"}, families


def test_drawing_keeps_the_global_matplotlib_backend(tmp_path) -> None:
    code = (f"import matplotlib\nmatplotlib.use('pdf')\nimport pyomo_puzzles as pp\n"
            f"record = pp.solve('packing/l_tromino_cube', isolate=False)\n"
            f"record.picture({str(tmp_path / 'cube.png')!r})\n"
            "import matplotlib.pyplot\nassert matplotlib.get_backend() == 'pdf', matplotlib.get_backend()\n")
    imported_after(code)
    assert (tmp_path / "cube.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_picture_palette_is_seaborns_colour_blind_palette() -> None:
    import seaborn as sns

    from pyomo_puzzles.core.palette import palette

    assert np.allclose(palette(10), sns.color_palette("colorblind", 10))
    assert len(palette(14)) == 14 and len(set(palette(14))) == 14


BLAS_PROBE = '''"""Reports the BLAS threads a run's model building sees, as its error message."""
FAMILY = "packing"
import pyomo.environ as pyo


def build_model():
    return pyo.AbstractModel()


def model_data(spec):
    from threadpoolctl import threadpool_info

    blas = sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})
    raise RuntimeError(f"blas threads {blas}")


def decode(spec, model):
    return {}
'''


def test_an_isolated_run_keeps_numpys_blas_to_its_threads(tmp_path) -> None:
    from pyomo_puzzles import api

    probe = tmp_path / "probe.py"
    probe.write_text(BLAS_PROBE)
    record = api.solve("packing/l_tromino_cube", f"{probe}:probe", threads=1)
    assert record.status == "error" and "blas threads [1]" in record.message, record.message


SPIN_PROBE = '''"""Reports, as its error message, the CPU its run's process used while it slept 80 ms."""
FAMILY = "packing"
import pyomo.environ as pyo


def build_model():
    return pyo.AbstractModel()


def model_data(spec):
    import os, resource, time

    before = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(0.08)
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    raise RuntimeError(f"cpu while asleep {1000 * used:.0f} ms, threads {len(os.listdir('/proc/self/task'))}")


def decode(spec, model):
    return {}
'''


def test_an_isolated_run_has_no_blas_thread_spinning_beside_it(tmp_path) -> None:
    """The run's BLAS limit is set before its process is forked: set in the forked process,
    OpenBLAS started its thread pool there, whose worker spun for about 100 ms beside every
    run (a whole second core for a short run)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from pyomo_puzzles import api

    threadpool_limits(2, user_api="blas")  # as numpy starts on a machine of two or more cores
    if {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"} != {2}:
        pytest.skip("numpy's BLAS here cannot have two threads")
    probe = tmp_path / "spin.py"
    probe.write_text(SPIN_PROBE)
    for _ in range(2):  # the first run sets this process's limit, the second finds it set
        record = api.solve("packing/l_tromino_cube", f"{probe}:probe", threads=1)
        used, threads = re.fullmatch(r".*cpu while asleep (\d+) ms, threads (\d+)", record.message).groups()
        assert int(used) < 20 and int(threads) == 1, record.message


def test_the_cache_recomputes_when_its_key_changes_and_reads_back_what_it_stored(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    calls = []

    def table(n):
        def compute():
            calls.append(n)
            return {"squares": np.arange(n) ** 2}
        return compute

    first = cache.arrays("test", (np.arange(3), "v1"), table(5))
    again = cache.arrays("test", (np.arange(3), "v1"), table(5))
    changed = cache.arrays("test", (np.arange(4), "v1"), table(6))
    assert calls == [5, 6]
    assert list(again["squares"]) == list(first["squares"]) == [0, 1, 4, 9, 16]
    assert list(changed["squares"]) == [0, 1, 4, 9, 16, 25]
    assert not again["squares"].flags.writeable


def test_a_damaged_cache_entry_is_replaced_and_an_unwritable_cache_is_skipped(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    cache.arrays("test", ("k",), lambda: {"x": np.arange(1000)})
    (entry,) = (tmp_path / "cache").iterdir()
    (entry / "x.npy").write_bytes(b"\x93NUMPY broken")
    assert list(cache.arrays("test", ("k",), lambda: {"x": np.arange(3)})["x"]) == [0, 1, 2]
    assert list(cache.arrays("test", ("k",), lambda: {"x": np.arange(7)})["x"]) == [0, 1, 2]
    monkeypatch.setenv(cache.CACHE_VARIABLE, "/proc/no-cache-here")
    assert list(cache.arrays("test", ("k",), lambda: {"x": np.arange(2)})["x"]) == [0, 1]
    monkeypatch.setenv(cache.CACHE_VARIABLE, "off")
    assert list(cache.arrays("test", ("k",), lambda: {"x": np.arange(4)})["x"]) == [0, 1, 2, 3]


def test_cached_cube_tables_are_the_tables_built_afresh(tmp_path, monkeypatch) -> None:
    """The 2x2x2 pattern database read back from the cache equals one computed without it,
    and its distances are the published ones: 3,674,160 states in 2x2x2 half-turn God's
    number 11 means no pattern is further than 11."""
    from pyomo_puzzles.families.rubik import model_projections

    monkeypatch.setenv(cache.CACHE_VARIABLE, str(tmp_path / "cache"))
    model_projections.pattern.cache_clear()
    stored = model_projections.pattern(2, "htm", "corner", (0, 1, 2, 3))
    model_projections.pattern.cache_clear()
    read = model_projections.pattern(2, "htm", "corner", (0, 1, 2, 3))
    model_projections.pattern.cache_clear()
    monkeypatch.setenv(cache.CACHE_VARIABLE, "off")
    fresh = model_projections.pattern(2, "htm", "corner", (0, 1, 2, 3))
    model_projections.pattern.cache_clear()
    assert isinstance(read.to_solved.base, np.memmap)  # read from the cache's file (as a plain array over it)
    assert np.array_equal(read.to_solved, fresh.to_solved)
    assert np.array_equal(stored.to_solved, fresh.to_solved)
    reachable = fresh.to_solved[fresh.to_solved >= 0]
    assert len(reachable) == 68_040 and reachable.max() <= 11


def test_a_forked_runs_preparation_is_recorded_apart_from_its_loading(monkeypatch) -> None:
    """An isolated run's process builds and solves a tiny model before the run's clock
    (`core.warmup.prepared_child`): its seconds are the record's prepare_time, not its
    load_time; without the tiny model (PYOMO_PUZZLES_PREFAULT=off) almost nothing is left of
    it, and a run in the caller's process has none."""
    from pyomo_puzzles import api
    from pyomo_puzzles.core.warmup import PREFAULT_SWITCH

    instance = api.load("packing/iq_twist/challenge_19")
    prepared = [api.solve(instance, "placement", "highs") for _ in range(3)]
    monkeypatch.setenv(PREFAULT_SWITCH, "off")
    bare = [api.solve(instance, "placement", "highs") for _ in range(3)]
    in_process = api.solve(instance, "placement", "highs", isolate=False)
    assert all(run.status == "optimal" and run.load_time > 0 for run in prepared + bare)
    assert sorted(run.prepare_time for run in bare)[1] * 3 < sorted(run.prepare_time for run in prepared)[1]
    assert in_process.prepare_time is None and in_process.load_time > 0


WARMED = '''"""The placement model, with a warm-up that takes 50 ms and says where it ran (WARMED_LOG)."""
import os
import time

from pyomo_puzzles.families.packing.model_placement import build_model, decode, model_data as placement_data

FAMILY = "packing"
LOADED = None


def warm_up(spec):
    global LOADED
    time.sleep(0.05)
    LOADED = os.getpid()
    with open(os.environ["WARMED_LOG"], "a") as log:
        log.write(f"warm_up {os.getpid()}\\n")


def model_data(spec):
    with open(os.environ["WARMED_LOG"], "a") as log:
        log.write(f"run {os.getpid()} loaded-by {LOADED}\\n")
    return placement_data(spec)
'''


def test_a_formulations_warm_up_runs_once_before_the_forks_and_its_runs_inherit_it(tmp_path, monkeypatch) -> None:
    """A formulation's warm_up (Rubik's pattern tables) is called once per instance by the
    process that forks the runs, before the first fork; the runs find what it loaded, and its
    seconds are the prepare_time of the first run only. A run that loads its own instance
    calls it in its own process."""
    from pyomo_puzzles import api

    log = tmp_path / "warmed.log"
    monkeypatch.setenv("WARMED_LOG", str(log))
    formulation = tmp_path / "warmed.py"
    formulation.write_text(WARMED)
    instance = api.load("packing/l_tromino_cube")
    records = [api.solve(instance, f"{formulation}:warmed", "highs") for _ in range(3)]
    assert all(r.status == "optimal" and r.checked for r in records), [r.message for r in records]
    lines = log.read_text().splitlines()
    assert lines[0] == f"warm_up {os.getpid()}" and sum(line.startswith("warm_up") for line in lines) == 1, lines
    runs = [line.split() for line in lines[1:]]
    assert len(runs) == 3 and all(pid != str(os.getpid()) and by == str(os.getpid()) for _, pid, _, by in runs), runs
    assert records[0].prepare_time >= 0.05 and all(r.prepare_time < 0.05 for r in records[1:])

    log.write_text("")
    by_name = api.solve("packing/l_tromino_cube", f"{formulation}:warmed", "highs")  # loaded in the run's process
    own = log.read_text().split()
    assert by_name.status == "optimal" and own[0] == "warm_up" and own[1] != str(os.getpid()) and own[3] == own[1] == own[5]
    assert by_name.prepare_time >= 0.05
