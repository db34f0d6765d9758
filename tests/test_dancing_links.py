"""The dancing-links reference backend (xcover library) against published counts.

Ground truth (written here, not read from the instance files):
- 12 pentominoes (Haselgrove & Haselgrove 1960; Golomb, "Polyominoes"): rectangles 3x20:
  2 tilings up to symmetry (8 in all); 4x15: 368 (1,472); 5x12: 1,010 (4,040);
  6x10: 2,339 (9,356).
- L-tromino 3x3x3 cube (the project's ground-truth notes, checked by exhaustive search):
  5,328 tilings, 111 up to the 48 symmetries of the cube.
- Soma cube (Conway and Guy 1961; Berlekamp, Conway and Guy, "Winning Ways", 1982):
  11,520 solutions, 240 up to rotation and reflection.
- IQ Twist (the project's IQ Twist notes): empty board 5,992 coverings, 1,498 up to
  symmetry, 191,744 with ring variants counted apart; pieces not flipped: 440; each
  booklet challenge 19-68 has exactly one covering.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("xcover", reason="dancing links needs the [dlx] extra (xcover)")

from conftest import INFEASIBLE_BOARD, L_TROMINO_BOX
from pyomo_puzzles.core import instances
from pyomo_puzzles.errors import UserError
from pyomo_puzzles.families.packing import dancing_links as dlx
from pyomo_puzzles.families.packing import orbits

PENTOMINOES = {  # board -> (tilings up to symmetry, tilings)
    "3x20": (2, 8),
    "4x15": (368, 1472),
    "5x12": (1010, 4040),
    "6x10": (2339, 9356),
}
L_TROMINO_CUBE = (111, 5328)
SOMA_CUBE = (240, 11520)
IQ_TWIST_EMPTY = (1498, 5992, 191744)  # up to symmetry, coverings, with ring variants
IQ_TWIST_NO_FLIPS = 440
CHALLENGES = [f"packing/iq_twist/challenge_{n}" for n in range(19, 69)]
SHIPPED = [f"packing/pentominoes/{board}" for board in PENTOMINOES] + [
    "packing/soma_cube", "packing/l_tromino_cube", "packing/iq_twist/empty", "packing/iq_twist/empty_no_flips"]


@pytest.fixture(scope="module")
def iq_twist():
    return instances.load("packing/iq_twist/empty")


@pytest.fixture(scope="module")
def iq_twist_coverings(iq_twist):
    return dlx.all_solutions(iq_twist.spec)


def _assert_checked(instance, solution) -> None:
    assert solution is not None
    assert instance.family.check(instance.spec, solution) == []


# --- counts against published figures ----------------------------------------------------

def test_pentominoes_3x20():
    result = dlx.count(instances.load("packing/pentominoes/3x20").spec, up_to_symmetry=True)
    classes, solutions = PENTOMINOES["3x20"]
    assert (result["classes"], result["solutions"], result["solutions_with_variants"]) == (
        classes, solutions, solutions)
    assert result["seconds"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("board", ["4x15", "5x12", "6x10"])
def test_pentomino_rectangles(board):
    result = dlx.count(instances.load(f"packing/pentominoes/{board}").spec, up_to_symmetry=True)
    assert (result["classes"], result["solutions"]) == PENTOMINOES[board]


def test_l_tromino_cube():
    spec = instances.load("packing/l_tromino_cube").spec
    result = dlx.count(spec, up_to_symmetry=True)
    assert (result["classes"], result["solutions"], result["solutions_with_variants"]) == (
        *L_TROMINO_CUBE, L_TROMINO_CUBE[1])
    plain = dlx.count(spec)
    assert (plain["classes"], plain["solutions"]) == (None, L_TROMINO_CUBE[1])


def test_soma_cube():
    result = dlx.count(instances.load("packing/soma_cube").spec, up_to_symmetry=True)
    assert (result["classes"], result["solutions"]) == SOMA_CUBE


def test_iq_twist_empty_board(iq_twist):
    result = dlx.count(iq_twist.spec, up_to_symmetry=True)
    assert (result["classes"], result["solutions"], result["solutions_with_variants"]) == IQ_TWIST_EMPTY


def test_iq_twist_ring_variants_agree_with_orbits_variants(iq_twist, iq_twist_coverings):
    assert len(iq_twist_coverings) == IQ_TWIST_EMPTY[1]
    assert len({orbits.solution_key(s) for s in iq_twist_coverings}) == IQ_TWIST_EMPTY[1]
    assert sum(orbits.variants(iq_twist.spec, s) for s in iq_twist_coverings) == IQ_TWIST_EMPTY[2]


@pytest.mark.slow
def test_iq_twist_ring_variants_counted_by_the_library(iq_twist):
    """Without enumeration the library counts the matrix with one option per ring variant."""
    result = dlx.count(iq_twist.spec)
    assert (result["solutions"], result["solutions_with_variants"]) == IQ_TWIST_EMPTY[1:]


def test_iq_twist_without_flips():
    assert dlx.count(instances.load("packing/iq_twist/empty_no_flips").spec)["solutions"] == IQ_TWIST_NO_FLIPS


@pytest.mark.parametrize("name", CHALLENGES, ids=lambda n: n.rsplit("_", 1)[1])
def test_each_challenge_has_exactly_one_covering(name):
    instance = instances.load(name)
    result = dlx.count(instance.spec)
    assert result["solutions"] == 1
    solution, seconds = dlx.solve(instance.spec)
    _assert_checked(instance, solution)
    assert seconds > 0
    rings = {tuple(cell): instance.spec.piece(entry["piece"]).colour
             for entry in solution["pieces"] for cell in entry.get("marks", {}).get("ring", [])}
    assert instance.spec.requirements
    assert all(rings.get(peg.cell) == peg.colour for peg in instance.spec.requirements)


# --- solve and run records ------------------------------------------------------------------

@pytest.mark.parametrize("name", SHIPPED)
def test_solve_returns_checked_solutions(name):
    instance = instances.load(name)
    solution, seconds = dlx.solve(instance.spec)
    _assert_checked(instance, solution)
    assert seconds > 0


def test_run_record():
    instance = instances.load("packing/iq_twist/challenge_40")
    record = dlx.run_record(instance)
    assert (record.solver, record.formulation, record.status) == ("dlx", "exact_cover", "optimal")
    assert record.solver_version.startswith("xcover ")
    assert record.checked is True and record.check_errors == [] and not record.killed
    assert record.wall_time >= record.solver_time + record.build_time > 0
    assert instance.family.check(instance.spec, record.solution) == []
    assert (record.puzzle, record.instance) == ("packing", "packing/iq_twist/challenge_40")


def test_run_record_with_time_limit_runs_in_a_child():
    record = dlx.run_record(instances.load("packing/l_tromino_cube"), time_limit=60)
    assert (record.status, record.checked, record.time_limit) == ("optimal", True, 60)


def test_run_record_kills_a_search_past_its_time_limit(monkeypatch):
    monkeypatch.setattr(dlx, "_find_one", lambda spec: time.sleep(30))  # inherited by the fork
    started = time.perf_counter()
    record = dlx.run_record(instances.load("packing/l_tromino_cube"), time_limit=0.5)
    assert time.perf_counter() - started < 10
    assert (record.status, record.killed, record.checked, record.solution) == ("time_limit", True, None, None)


def test_infeasible_board(write_instance):
    instance = instances.load(write_instance(INFEASIBLE_BOARD))
    assert dlx.solve(instance.spec)[0] is None
    assert dlx.count(instance.spec, up_to_symmetry=True)["solutions"] == 0
    record = dlx.run_record(instance)
    assert (record.status, record.checked, record.solution) == ("infeasible", None, None)


# --- piece counts and pre-placed pieces --------------------------------------------------

MIXED_COUNTS = """\
puzzle: packing
title: two kinds of domino
board:
  size: [2, 3]
pieces:
  - {name: D, cells: [[0, 0], [0, 1]], count: 2}
  - {name: E, cells: [[0, 0], [1, 0]]}
"""


def test_mixed_piece_counts_are_solved_with_a_column_per_copy_but_not_counted(write_instance):
    instance = instances.load(write_instance(MIXED_COUNTS))
    for record in (dlx.run_record(instance), dlx.run_record(instance, time_limit=10)):
        assert record.status == "optimal" and record.checked
        names = sorted(piece["piece"] for piece in record.solution["pieces"])
        assert names == ["D", "D", "E"]
    for call in (lambda: dlx.count(instance.spec), lambda: dlx.all_solutions(instance.spec)):
        with pytest.raises(UserError, match=r"cannot count .*D x2"):
            call()


def test_mixed_piece_counts_without_a_covering_are_infeasible(write_instance):
    two_by_two = MIXED_COUNTS.replace("size: [2, 3]", "size: [2, 2]").replace("count: 2", "count: 1")
    assert dlx.run_record(instances.load(write_instance(two_by_two))).status == "optimal"
    strip = MIXED_COUNTS.replace("size: [2, 3]", "size: [1, 7]").replace(
        "cells: [[0, 0], [1, 0]]", "cells: [[0, 0], [1, 0], [1, 1]]")  # an L-tromino fits no strip
    assert dlx.run_record(instances.load(write_instance(strip))).status == "infeasible"


def test_pre_placed_piece_of_a_single_type(write_instance):
    box = write_instance(L_TROMINO_BOX.format(a=2, b=3, c=3, n=6), "box.yaml")
    every = dlx.all_solutions(instances.load(box).spec)
    corner = [[0, 0, 0], [0, 0, 1], [0, 1, 0]]
    fixed = write_instance(f"puzzle: packing\nbase: box.yaml\nfixed:\n  - {{piece: L, cells: {corner}}}\n")
    result = dlx.count(instances.load(fixed).spec)
    outline = ("L", tuple(sorted(map(tuple, corner))))
    assert len(every) == dlx.count(instances.load(box).spec)["solutions"] > 0
    assert result["solutions"] == sum(outline in orbits.solution_key(s) for s in every) > 0


def test_pre_placed_piece_with_marks(write_instance, iq_twist, iq_twist_coverings):
    cells = [[0, 3], [1, 3], [2, 3], [3, 3]]
    marks = iq_twist.spec.variants_of("blue2", cells)
    assert len(marks) == 2  # the ring may be at either end's second cell
    ring = [list(c) for c in dict(marks[0].marks)["ring"]]
    text = ("puzzle: packing\nbase: packing/iq_twist/empty\nfixed:\n"
            f"  - {{piece: blue2, cells: {cells}, marks: {{ring: {ring}}}}}\n")
    instance = instances.load(write_instance(text))
    result = dlx.count(instance.spec)
    outline = ("blue2", tuple(sorted(map(tuple, cells))))
    containing = [s for s in iq_twist_coverings if outline in orbits.solution_key(s)]
    assert result["solutions"] == len(containing) > 0
    assert result["solutions_with_variants"] == sum(orbits.variants(iq_twist.spec, s) for s in containing) // 2
    solution, _ = dlx.solve(instance.spec)
    _assert_checked(instance, solution)
    blue2 = next(e for e in solution["pieces"] if e["piece"] == "blue2")
    assert blue2["cells"] == cells and blue2["marks"] == {"ring": ring}


def test_a_covering_is_recorded_with_the_feasibility_models_objective(write_instance):
    record = dlx.run_record(instances.load(write_instance(MIXED_COUNTS)))
    assert record.status == "optimal" and record.objective == 0.0


def test_the_start_up_of_dancing_links_is_paid_once_before_the_runs_clock():
    """Importing xcover compiles its search (seconds from a cold cache): a run pays it before
    it is forked, once per process, and records it apart (`startup_time`), as the MIP solvers'
    warm-ups are; the run's own clock holds only the search."""
    from pyomo_puzzles import api

    first = api.solve("packing/pentominoes/3x20", solver="dlx")
    second = api.solve("packing/pentominoes/3x20", solver="dlx")
    assert first.status == second.status == "optimal" and first.checked and second.checked
    assert first.startup_time is not None and second.startup_time == 0.0


def test_a_cold_compile_is_start_up_and_says_nothing_on_the_terminal(tmp_path):
    """xcover's search is compiled by numba at its import, about 10 s where numba's cache is
    cold (a fresh clone's first run): that is the run's start-up, not its time, and numba's
    type-safety warning about xcover's own code (it reached the user's terminal, issue 56) is
    held back."""
    import json
    import os
    import subprocess
    import sys

    record = tmp_path / "run.json"
    done = subprocess.run([sys.executable, "-m", "pyomo_puzzles", "solve", "packing/pentominoes/3x20", "-s", "dlx",
                           "-o", str(record)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    run = json.loads(record.read_text())
    assert run["status"] == "optimal" and run["startup_time"] > run["wall_time"]
