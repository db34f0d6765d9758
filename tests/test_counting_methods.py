"""Counting by every method (issue 30): no-good cuts, each solver's own enumeration (SCIP's
counter, Gurobi's and CPLEX's pools, CP-SAT's search for all solutions) and dancing links,
each count checked against published figures and the methods' solution sets against each
other.

Ground truth (independent of this framework, ../shared/data/ground_truth.md):
* L-tromino cube: 5,328 tilings, 111 up to the cube's 48 symmetries;
* pentominoes on 3x20: 2 tilings up to the rectangle's 4 symmetries (8 in all: no 3x20
  tiling is symmetric, so each class has 4);
* Soma cube: 240 up to rotation and reflection, 11,520 in all.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pandas as pd
import pytest

from pyomo_puzzles import api
from pyomo_puzzles.core import counting, instances, solvers
from pyomo_puzzles.report.counts import agreement

L_TROMINO = {"solutions": 5328, "classes": 111}
PENTOMINO_3X20 = {"solutions": 8, "classes": 2}
SOMA = {"solutions": 11520, "classes": 240}

NATIVE = ["scip", "cpsat", "gurobi", "cplex"]
"""The shipped solvers with an enumeration of their own."""


def native_solver(name: str):
    ok, why = solvers.availability(name)
    if not ok:
        pytest.skip(f"{name} is not installed: {why}")
    return name


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyomo_puzzles", *args], capture_output=True, text=True, timeout=600)


def test_the_shipped_solvers_name_their_own_enumeration_and_the_others_have_none():
    for name in NATIVE:
        assert solvers.adapter(name).enumeration, name
    for name in ("highs", "cbc", "glpk"):
        assert solvers.adapter(name).enumeration is None, name


@pytest.mark.parametrize("solver", NATIVE)
def test_each_solver_s_own_enumeration_counts_the_l_tromino_cube_up_to_symmetry(solver):
    native_solver(solver)
    result = api.count("packing/l_tromino_cube", "placement", solver, up_to_symmetry=True, method="native",
                       time_limit=300)
    if solver in ("gurobi", "cplex") and "licence" in result.message:
        pytest.skip(f"{solver}'s size-limited licence: {result.message}")
    assert result.complete, result.message
    assert (result.solutions, result.classes) == (L_TROMINO["solutions"], L_TROMINO["classes"])
    assert result.method == "native" and "reduced to orbits afterwards" in result.route
    # the restricted model's points: fewer than all 5,328 tilings, at least one per class
    assert L_TROMINO["classes"] <= result.points < L_TROMINO["solutions"]


def test_dancing_links_counts_every_tiling_and_every_class_of_the_l_tromino_cube():
    every = api.count("packing/l_tromino_cube", solver="dlx", time_limit=300)
    classes = api.count("packing/l_tromino_cube", solver="dlx", up_to_symmetry=True, time_limit=300)
    assert every.complete and every.solutions == L_TROMINO["solutions"] and every.classes is None
    assert classes.complete and (classes.solutions, classes.classes) == (L_TROMINO["solutions"], L_TROMINO["classes"])
    assert every.method == classes.method == "native" and every.formulation == "exact_cover"
    assert every.points == L_TROMINO["solutions"]  # dancing links meets every tiling once
    assert every.digest == classes.digest  # one set: the 111 orbits, each with its 48 tilings


def test_every_method_finds_the_same_set_not_only_the_same_number():
    """The digests of the L-tromino cube's 111 orbits agree between dancing links, no-good cuts
    on HiGHS and CP-SAT's own enumeration (three different search orders)."""
    native_solver("cpsat")
    found = [api.count("packing/l_tromino_cube", solver="dlx", up_to_symmetry=True),
             api.count("packing/l_tromino_cube", "placement", "highs", up_to_symmetry=True, time_limit=300),
             api.count("packing/l_tromino_cube", "placement", "cpsat", up_to_symmetry=True, method="native")]
    assert all(r.complete and r.classes == L_TROMINO["classes"] for r in found), [r.message for r in found]
    assert len({r.digest for r in found}) == 1, [(r.solver, r.method, r.digest) for r in found]
    alls = [api.count("packing/l_tromino_cube", solver="dlx"),
            api.count("packing/l_tromino_cube", "placement", "cpsat", method="native", time_limit=300)]
    assert all(r.complete and r.solutions == L_TROMINO["solutions"] for r in alls)
    # dancing links met every tiling; CP-SAT found the restricted model's and counted each orbit whole
    assert "each orbit counted whole" in alls[1].route and alls[1].points < L_TROMINO["solutions"]
    assert alls[0].digest == alls[1].digest
    plain = api.count("packing/l_tromino_cube", "placement", "cpsat", method="native", symmetry=False)
    assert plain.complete and plain.points == L_TROMINO["solutions"] and plain.digest == alls[0].digest


def test_a_set_that_differs_in_one_solution_has_another_digest():
    keys = [counting.key_text(("a", i)) for i in range(10)]
    assert counting.set_digest(keys) == counting.set_digest(list(reversed(keys)))  # the order found does not matter
    assert counting.set_digest(keys) != counting.set_digest(keys[:-1] + [counting.key_text(("a", 10))])


@pytest.mark.parametrize("solver", ["scip", "cpsat"])
def test_native_enumeration_counts_the_3x20_pentomino_board_all_and_up_to_symmetry(solver):
    native_solver(solver)
    every = api.count("packing/pentominoes/3x20", "placement", solver, method="native", time_limit=300)
    classes = api.count("packing/pentominoes/3x20", "placement", solver, method="native", up_to_symmetry=True,
                        time_limit=300)
    assert every.complete and every.solutions == PENTOMINO_3X20["solutions"], every.message
    assert classes.complete and (classes.solutions, classes.classes) == tuple(PENTOMINO_3X20.values())


def test_cpsat_s_own_enumeration_counts_the_soma_cube():
    native_solver("cpsat")
    result = api.count("packing/soma_cube", "placement", "cpsat", method="native", up_to_symmetry=True,
                       time_limit=300)
    assert result.complete and (result.solutions, result.classes) == (SOMA["solutions"], SOMA["classes"])


def test_a_limit_stops_a_native_count_at_that_many_and_says_so():
    native_solver("cpsat")
    result = api.count("packing/l_tromino_cube", "placement", "cpsat", method="native", limit=7, time_limit=300)
    assert not result.complete and result.solutions == 7 and result.message == "limit reached"
    dlx = api.count("packing/l_tromino_cube", solver="dlx", limit=7)
    assert not dlx.complete and dlx.solutions == 7 and dlx.message == "limit reached"


def test_a_time_limit_ends_a_count_by_dancing_links_incomplete_saying_how_far_it_got():
    result = api.count("packing/pentominoes/6x10", solver="dlx", up_to_symmetry=True, time_limit=1.0)
    assert not result.complete and result.message == "time limit reached"
    assert 0 < result.classes < 2339 and result.elapsed < 5


def test_a_wrong_symmetry_group_is_caught_by_a_method_that_enumerates_every_solution():
    """Images that are not tilings (each tiling shifted one cell along the board) would make
    the orbits count more solutions than dancing links meets: the count is not complete."""
    instance = instances.load("packing/pentominoes/3x20")

    def shifted(spec, solution):
        moved = {"pieces": [dict(e, cells=[[c[0], c[1] + 1] for c in e["cells"]]) for e in solution["pieces"]]}
        return [solution, moved]

    broken = dataclasses.replace(instance, family=dataclasses.replace(instance.family, symmetry_images=shifted))
    result = counting.count_solutions(broken, solver="dlx", up_to_symmetry=True)
    assert not result.complete and "symmetry images and the method disagree" in result.message


def test_the_cli_counts_with_dancing_links_and_refuses_a_method_a_solver_lacks():
    done = cli("count", "packing/l_tromino_cube", "-s", "dlx", "--up-to-symmetry", "-q")
    assert done.returncode == 0, done.stderr
    assert "111 solutions up to symmetry" in done.stdout and "5328 in all" in done.stdout
    assert "set digest" in done.stdout and "dancing links" in done.stdout
    lacking = cli("count", "packing/l_tromino_cube", "-s", "highs", "--method", "native", "-q")
    assert lacking.returncode == 2 and len(lacking.stderr.strip().splitlines()) == 1, lacking.stderr
    assert "highs" in lacking.stderr and "--method" in lacking.stderr
    own_only = cli("count", "packing/l_tromino_cube", "-s", "dlx", "--method", "nogood", "-q")
    assert own_only.returncode == 2 and "--method" in own_only.stderr and "Traceback" not in own_only.stderr


def test_list_shows_which_counting_methods_each_solver_offers():
    listing = cli("list").stdout
    scip = listing[listing.index("  scip "):].split("\n  ", 3)
    assert any("counting: nogood" in part and "native (SCIP's counter" in part for part in scip[:3]), scip[:3]
    highs = listing[listing.index("  highs "):].split("\n  ", 3)
    assert any("counting: nogood (no-good cuts)\n" in part + "\n" for part in highs[:3]), highs[:3]
    assert "counting: native (its own search" in listing[listing.index("  dlx "):]


def test_the_report_says_whether_methods_agree_on_the_number_and_the_set():
    rows = [{"instance": "p/a", "formulation": "f", "solver": s, "method": m, "complete": True, "solutions": 8,
             "classes": 2, "digest": d} for s, m, d in (("x", "nogood", "d1"), ("y", "native", "d1"))]
    rows += [{"instance": "p/b", "formulation": "f", "solver": s, "method": "native", "complete": True,
              "solutions": 8, "classes": 2, "digest": d} for s, d in (("x", "d1"), ("y", "d2"))]
    rows += [{"instance": "p/c", "formulation": "f", "solver": "x", "method": "nogood", "complete": True,
              "solutions": 8, "classes": 2, "digest": "d1"},
             {"instance": "p/c", "formulation": "f", "solver": "y", "method": "nogood", "complete": False,
              "solutions": 3, "classes": 1, "digest": "d9"}]
    verdict = agreement(pd.DataFrame(rows)).set_index("instance")["agree"]
    assert verdict["p/a"] == "yes"
    assert verdict["p/b"].startswith("NO") and "d1" in verdict["p/b"] and "d2" in verdict["p/b"]
    assert verdict["p/c"] == "one complete count only"


def test_the_pipeline_plans_each_method_a_solver_has_and_dancing_links_once_per_instance():
    from pyomo_puzzles import experiment

    said = []
    config = {"counts": {"instances": ["packing/l_tromino_cube", "instant_insanity/parker_brothers"],
                         "formulations": ["placement", "rotations"], "solvers": ["highs", "scip", "dlx"],
                         "methods": ["nogood", "native"], "up_to_symmetry": True}}
    jobs = {(j.instance, j.formulation, j.solver, j.method) for j in experiment.count_jobs(config, report=said.append)}
    assert jobs == {("packing/l_tromino_cube", "placement", "highs", "nogood"),
                    ("packing/l_tromino_cube", "placement", "scip", "nogood"),
                    ("packing/l_tromino_cube", "placement", "scip", "native"),
                    ("packing/l_tromino_cube", "exact_cover", "dlx", "native"),
                    ("instant_insanity/parker_brothers", "rotations", "highs", "nogood"),
                    ("instant_insanity/parker_brothers", "rotations", "scip", "nogood"),
                    ("instant_insanity/parker_brothers", "rotations", "scip", "native")}
    assert any("'highs' has no enumeration of its own" in line for line in said), said
    path = experiment.CountJob("packing/l_tromino_cube", "exact_cover", "dlx", "native").record_path("R")
    assert path == "R/counts/packing/l_tromino_cube/exact_cover/dlx/native.json"


def test_a_counts_section_naming_a_solver_that_cannot_count_is_refused_naming_the_key():
    from pyomo_puzzles import experiment
    from pyomo_puzzles.experiment import ConfigError

    with pytest.raises(ConfigError) as refused:
        experiment.count_jobs({"counts": {"instances": ["packing/l_tromino_cube"], "formulations": ["placement"],
                                          "solvers": ["pyomo:glpk"]}}, report=lambda line: None)
    assert refused.value.key == "counts.solvers[0]"
