"""The L-tromino cube: both formulations on every installed solver, counts, the checker.

Ground truth (written here, from the project's ground-truth notes, themselves checked by
exhaustive search): 144 placements of the L in the 3x3x3 cube (12 orientations);
5,328 tilings, 111 up to the 48 symmetries of the cube; no tiling is itself symmetric.
"""

from __future__ import annotations

import copy
import itertools

import pytest

from conftest import INFEASIBLE_BOARD, INSTALLED, L_TROMINO_BOX
from pyomo_puzzles.core import counting as enumeration, instances, run
from pyomo_puzzles.errors import UserError

CUBE = "packing/l_tromino_cube"
PLACEMENTS = 144
TILINGS = 5328
TILINGS_UP_TO_SYMMETRY = 111
CUBE_SYMMETRIES = 48


@pytest.fixture(scope="module")
def cube():
    return instances.load(CUBE)


def test_placements_and_group_are_derived_correctly(cube):
    assert len(cube.spec.placements) == PLACEMENTS
    assert len(cube.spec.symmetries) == CUBE_SYMMETRIES
    assert len({p.cells for p in cube.spec.placements}) == PLACEMENTS


def _assert_is_tiling(solution: dict) -> None:
    """A check written here, separately from the package's checker."""
    cells = [tuple(c) for piece in solution["pieces"] for c in piece["cells"]]
    assert len(solution["pieces"]) == 9
    assert sorted(cells) == sorted(itertools.product(range(3), repeat=3))
    for piece in solution["pieces"]:
        a, b, c = map(tuple, piece["cells"])
        spans = [len({a[i], b[i], c[i]}) for i in range(3)]
        assert sorted(spans) == [1, 2, 2], f"{piece} is not an L"


@pytest.mark.parametrize("solver", INSTALLED)
@pytest.mark.parametrize("formulation", ["placement", "cell_assignment"])
def test_solves_to_a_checked_tiling(cube, formulation, solver):
    record = run.run(cube, formulation, solver, time_limit=120, isolate=False)
    assert record.status == "optimal", record.message
    assert record.checked is True and record.check_errors == []
    _assert_is_tiling(record.solution)
    assert record.solver_version and record.build_time > 0
    # CBC's and GLPK's libraries have no clock: their solve call alone is timed (issue 44)
    assert record.solver_clock == ("call" if solver in ("cbc", "glpk") else "solver")
    assert record.wall_time >= record.solver_time >= 0


@pytest.mark.parametrize("solver", INSTALLED)
def test_infeasible_instance_is_reported_as_infeasible(write_instance, solver):
    instance = instances.load(write_instance(INFEASIBLE_BOARD))
    record = run.run(instance, "placement", solver, time_limit=30, isolate=False)
    assert record.status == "infeasible", record.message
    assert record.solution is None and record.checked is None


def test_count_up_to_symmetry_reproduces_ground_truth(cube):
    result = enumeration.count_solutions(cube, "placement", "highs", up_to_symmetry=True)
    assert result.complete
    assert result.classes == TILINGS_UP_TO_SYMMETRY
    assert result.solutions == TILINGS
    assert result.images_per_solution == CUBE_SYMMETRIES
    assert set(result.orbit_sizes) == {CUBE_SYMMETRIES}  # no tiling is symmetric


# --- plain enumeration against an independent brute force on small boxes -------------

def _is_l(cells) -> bool:
    spans = sorted(len({c[i] for c in cells}) for i in range(3))
    connected = sum(sum(abs(x - y) for x, y in zip(p, q)) == 1 for p, q in itertools.combinations(cells, 2)) == 2
    return spans == [1, 2, 2] and connected


def _brute_force_tilings(size) -> list[frozenset]:
    cells = sorted(itertools.product(*(range(s) for s in size)))
    trios = [frozenset(t) for t in itertools.combinations(cells, 3) if _is_l(t)]
    tilings = []

    def extend(free: frozenset, chosen: list) -> None:
        if not free:
            tilings.append(frozenset(chosen))
            return
        first = min(free)
        for trio in trios:
            if first in trio and trio <= free:
                extend(free - trio, chosen + [trio])

    extend(frozenset(cells), [])
    return tilings


def _box_orbits(tilings, size) -> int:
    maps = []
    for perm in itertools.permutations(range(3)):
        if all(size[i] == size[p] for i, p in enumerate(perm)):
            for flips in itertools.product((False, True), repeat=3):
                maps.append(lambda c, perm=perm, flips=flips: tuple(
                    size[i] - 1 - c[p] if f else c[p] for i, (p, f) in enumerate(zip(perm, flips))))
    canonical = {min(tuple(sorted(tuple(sorted(m(c) for c in trio)) for trio in t)) for m in maps)
                 for t in tilings}
    return len(canonical)


@pytest.mark.parametrize("size", [(2, 2, 3), pytest.param((2, 3, 3), marks=pytest.mark.slow)])
def test_plain_and_orbit_counts_match_brute_force(write_instance, size):
    tilings = _brute_force_tilings(size)
    n = size[0] * size[1] * size[2] // 3
    instance = instances.load(write_instance(L_TROMINO_BOX.format(a=size[0], b=size[1], c=size[2], n=n)))
    plain = enumeration.count_solutions(instance, "placement", "highs")
    assert plain.complete and plain.solutions == len(tilings)
    orbits = enumeration.count_solutions(instance, "placement", "highs", up_to_symmetry=True)
    assert orbits.complete
    assert orbits.solutions == len(tilings)
    assert orbits.classes == _box_orbits(tilings, size)


def test_orbit_count_matches_brute_force_on_2x3x3(write_instance):
    size = (2, 3, 3)
    tilings = _brute_force_tilings(size)
    instance = instances.load(write_instance(L_TROMINO_BOX.format(a=2, b=3, c=3, n=6)))
    expected = (_box_orbits(tilings, size), len(tilings))
    for restrict in (True, False):  # with and without the anchor-cell restriction
        orbits = enumeration.count_solutions(instance, "placement", "highs", up_to_symmetry=True,
                                             restrict=restrict)
        assert orbits.complete and orbits.images_per_solution == 16
        assert (orbits.classes, orbits.solutions) == expected


def test_count_stops_at_limit(cube):
    result = enumeration.count_solutions(cube, "placement", "highs", limit=3, keep_solutions=True)
    assert not result.complete and result.solutions == 3
    keys = {cube.family.solution_key(s) for s in result.representatives}
    assert len(keys) == 3


def test_cell_assignment_cannot_count(cube):
    with pytest.raises(UserError, match="cannot enumerate"):
        enumeration.count_solutions(cube, "cell_assignment", "highs")


def test_cell_assignment_refuses_non_l_pieces(write_instance):
    instance = instances.load(write_instance(INFEASIBLE_BOARD))
    with pytest.raises(UserError, match="cannot model"):
        run.run(instance, "cell_assignment", "highs", isolate=False)


# --- the independent checker catches broken solutions -----------------------------------

@pytest.fixture(scope="module")
def good_solution(cube):
    record = run.run(cube, "placement", "highs", isolate=False)
    assert record.checked
    return record.solution


def _broken(solution, how):
    bad = copy.deepcopy(solution)
    how(bad)
    return bad


@pytest.mark.parametrize("how, expected", [
    (lambda s: s["pieces"].pop(), "used 8 times"),
    (lambda s: s["pieces"].append(copy.deepcopy(s["pieces"][0])), "covered 2 times"),
    (lambda s: s["pieces"][0].update(cells=[[0, 0, 0], [0, 0, 1], [0, 0, 2]]), "not the piece's shape"),
    (lambda s: s["pieces"][0]["cells"][0].__setitem__(0, 3), "not a free cell"),
    (lambda s: s["pieces"][0].update(piece="Q"), "unknown piece"),
    (lambda s: s.pop("pieces"), "list 'pieces'"),
])
def test_checker_rejects_broken_solutions(cube, good_solution, how, expected):
    assert cube.family.check(cube.spec, good_solution) == []
    errors = cube.family.check(cube.spec, _broken(good_solution, how))
    assert errors and any(expected in e for e in errors), errors
