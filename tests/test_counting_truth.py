"""Counts that cannot be silently wrong, on a plugin family written to the contract alone (the
n-queens test plugin, `tests/plugins/queens`):

- a method told to stop (a solution the checker refused) never gives a complete count, even
  when its search ends before the stop reaches it (CP-SAT's worker hears it by a signal);
- a plain count (`--plain`) never applies the formulation's restriction for orbit counting,
  which a hook written to the contract's sentence ("keeps one solution per orbit") applies
  whatever it is told;
- the digest of a count of every solution and of a count up to symmetry is one digest;
- the conformance kit compares the plain count with the orbit counts.

Ground truth: the n-queens counts of OEIS A000170 (all solutions: 4 -> 2, 6 -> 4, 8 -> 92) and
A002562 (up to the square's 8 symmetries: 4 -> 1, 6 -> 1, 8 -> 12), recomputed here by brute
force over the permutations of the columns.
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from conftest import queens_env, run_cli
from pyomo_puzzles import api
from pyomo_puzzles.contract import ReferenceSolver
from pyomo_puzzles.core import registry, solvers
from pyomo_puzzles.testing import check_family

QUEENS = {4: (2, 1), 6: (4, 1), 8: (92, 12)}
"""n -> (solutions, solutions up to symmetry): OEIS A000170 and A002562."""


def boards_by_brute_force(n: int) -> list[frozenset]:
    """Every n-queens board, as a set of (row, column): a queen per row, a permutation of the
    columns, no two on a diagonal."""
    return [frozenset(enumerate(columns)) for columns in itertools.permutations(range(n))
            if all(abs(columns[i] - columns[j]) != j - i for i in range(n) for j in range(i + 1, n))]


def orbit_count(boards: list[frozenset], n: int) -> int:
    last = n - 1
    maps = [lambda r, c: (r, c), lambda r, c: (c, last - r), lambda r, c: (last - r, last - c),
            lambda r, c: (last - c, r), lambda r, c: (r, last - c), lambda r, c: (c, r),
            lambda r, c: (last - r, c), lambda r, c: (last - c, last - r)]
    return len({min(tuple(sorted(f(r, c) for r, c in board)) for f in maps) for board in boards})


@pytest.mark.parametrize("n", sorted(QUEENS))
def test_the_brute_force_reproduces_the_published_counts(n):
    boards = boards_by_brute_force(n)
    assert (len(boards), orbit_count(boards, n)) == QUEENS[n]


def installed(name: str) -> None:
    ok, detail = solvers.availability(name)
    if not ok:
        pytest.skip(f"{name} not installed: {detail}")


# --- a method told to stop ---------------------------------------------------------------------

NO_ANTI_DIAGONALS = '''\
"""n queens without the anti-diagonal rows: a faulty formulation whose points include boards
that the checker refuses."""
from pyomo_puzzles_queens import build_model as full_model, decode, model_data, solution_vars  # noqa: F401

FAMILY = "queens"


def build_model():
    model = full_model()
    model.del_component(model.at_most_one_per_anti_diagonal)
    return model
'''


def test_a_native_count_of_a_faulty_formulation_is_never_complete(queens, tmp_path):
    """CP-SAT's search on four queens ends in microseconds, before the worker hears the stop
    that the refused board asks for: it said "complete" for most of these counts."""
    installed("cpsat")
    faulty = tmp_path / "no_anti.py"
    faulty.write_text(NO_ANTI_DIAGONALS)
    for _ in range(6):
        result = api.count("queens/four", f"{faulty}:no_anti", "cpsat", method="native", time_limit=60)
        assert not result.complete, f"{result.solutions} solutions; complete"
        assert "failed the independent check" in result.message


def careless_method(bad_first: bool) -> ReferenceSolver:
    """A reference method that ignores what `found` answers and always ends "complete"."""
    def enumerate_boards(instance, found):
        boards = [sorted([r, c] for r, c in board) for board in boards_by_brute_force(instance.spec.n)]
        if bad_first:
            boards.insert(0, [[r, 0] for r in range(instance.spec.n)])  # every queen in one column
        for board in boards:
            found({"queens": board})
        return "complete", ""

    return ReferenceSolver("careless", "a careless enumeration", run=lambda instance, limit: None,
                           available=lambda: (True, "careless 1"), enumerate=enumerate_boards)


def test_a_method_that_goes_on_after_the_stop_gives_no_complete_count(queens):
    family = dataclasses.replace(queens.FAMILY, reference_solvers={"careless": careless_method(bad_first=True)})
    registry._FAMILIES["queens"] = family
    result = api.count("queens/six", solver="careless")
    assert not result.complete
    assert result.solutions == 0 and result.message.startswith("solution 1 failed the independent check")
    sound = dataclasses.replace(queens.FAMILY, reference_solvers={"careless": careless_method(bad_first=False)})
    registry._FAMILIES["queens"] = sound
    result = api.count("queens/six", solver="careless", up_to_symmetry=True)
    assert result.complete and (result.solutions, result.classes) == QUEENS[6]


# --- the plain count and the restriction for orbit counting --------------------------------------

def test_a_plain_count_never_applies_the_restriction_for_orbit_counting(queens):
    """The plugin's prepare_enumeration keeps one solution per orbit whatever it is told (the
    first row's queen in the left half), as the contract's sentence asks: a plain count gave
    half of the solutions (2 of 4 on six queens, 46 of 92 on eight) and called itself complete."""
    plain = api.count("queens/six", symmetry=False, split=0)
    assert plain.complete and plain.solutions == QUEENS[6][0]
    assert "restricting" not in plain.route
    installed("scip")
    native = api.count("queens/eight", solver="scip", method="native", symmetry=False)
    assert native.complete and native.solutions == QUEENS[8][0]
    limited = api.count("queens/six", limit=10, split=0)  # a limit enumerates plainly too
    assert limited.solutions == QUEENS[6][0] and limited.complete


def test_every_route_and_method_gives_one_digest_for_one_set(queens):
    """The digest names each orbit (its least board) and the solutions found in it, so a count
    of every solution, its plain enumeration and a count up to symmetry agree on it, by any
    method."""
    installed("scip")
    native = {"method": "native", "solver": "scip"}
    counts = {"through orbits": api.count("queens/eight", **native),
              "plainly": api.count("queens/eight", **native, symmetry=False),
              "up to symmetry": api.count("queens/eight", **native, up_to_symmetry=True),
              "by dancing links": api.count("queens/eight", solver="dlx"),
              "by dancing links up to symmetry": api.count("queens/eight", solver="dlx", up_to_symmetry=True)}
    for route, result in counts.items():
        assert result.complete and result.solutions == QUEENS[8][0], route
    assert counts["up to symmetry"].classes == counts["by dancing links up to symmetry"].classes == QUEENS[8][1]
    assert len({result.digest for result in counts.values()}) == 1
    by_cuts = [api.count("queens/six", up_to_symmetry=up_to_symmetry, symmetry=symmetry, split=0)
               for up_to_symmetry, symmetry in ((False, True), (False, False), (True, True))]
    assert [result.solutions for result in by_cuts] == [QUEENS[6][0]] * 3
    assert len({result.digest for result in by_cuts}) == 1


def test_the_cli_counts_plainly_with_the_plugin_installed():
    done = run_cli("count", "queens/six", "--plain", "--split", "0", "-q", env=queens_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"queens/six: {QUEENS[6][0]} solutions; complete")


# --- the conformance kit ------------------------------------------------------------------------

LOSES_AN_ORBIT = '''\
"""n queens whose restriction for orbit counting keeps the first row's queen in column 0 only:
it loses every orbit without such a board."""
from pyomo_puzzles_queens import build_model, decode, model_data, solution_vars  # noqa: F401

FAMILY = "queens"


def prepare_enumeration(board, model):
    for c in range(1, board.n):
        model.x[0, c].fix(0)
'''


def test_the_kit_compares_the_plain_count_with_the_orbit_counts(queens, tmp_path):
    scope = {"instances": ["queens/four"], "solvers": ["highs"]}
    assert check_family("queens", **scope, formulations=["rows"]) == {}  # the plugin's hook keeps every orbit
    lossy = tmp_path / "lossy.py"
    lossy.write_text(LOSES_AN_ORBIT)
    failed = check_family("queens", **scope, formulations=[f"{lossy}:lossy"])
    orbit_cases = [case for case in failed if case.startswith("orbits-")]
    assert orbit_cases, failed
    assert "solutions through orbits" in failed[orbit_cases[0]]


@pytest.mark.parametrize("solver", ["highs", "cbc", "glpk", "scip", "gurobi", "cplex"])
def test_a_persistent_count_by_no_good_cuts_on_the_matrix(queens, solver):
    """Every matrix session's persistent path (new rows and bounds between solves, issue 44)
    counts the 92 boards of eight queens, each solution once, by no-good cuts."""
    installed(solver)
    result = api.count("queens/eight", solver=solver, method="nogood", symmetry=False, split=0)
    assert result.complete and result.solutions == QUEENS[8][0], result.message
