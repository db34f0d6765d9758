"""The project's own families pass the conformance kit (`pyomo_puzzles.testing`), the same
checks a plugin's test suite runs. The scope is chosen to keep the suite fast: every check
on small instances, on every installed solver where each of them proves the instance within
the kit's time limit (the slow formulation-solver pairs are measured in `benchmarks/`)."""

from pyomo_puzzles.testing import conformance_tests

test_instant_insanity = conformance_tests(
    "instant_insanity", instances=["instant_insanity/parker_brothers", "instant_insanity/random_6_unsolvable"])

test_instant_insanity_design = conformance_tests(  # GLPK takes about a minute on the repaint: left to the benchmarks
    "instant_insanity_design", instances=["instant_insanity_design/design_q2",
                                          "instant_insanity_design/parker_brothers_repainted"],
    solvers=["highs", "scip", "cpsat", "gurobi", "cplex"])

test_instant_insanity_design_q2 = conformance_tests(
    "instant_insanity_design", instances=["instant_insanity_design/design_q2"], solvers=["cbc", "glpk"])

test_packing = conformance_tests(
    "packing", instances=["packing/l_tromino_cube"], formulations=["placement", "placement_unreduced",
                                                                   "coordinates_tight"])

test_packing_cell_assignment = conformance_tests(  # CBC takes about 20 s on it: left to the benchmarks
    "packing", instances=["packing/l_tromino_cube"], formulations=["cell_assignment"],
    solvers=["highs", "glpk", "scip", "cpsat", "gurobi", "cplex"])

test_packing_iq_twist = conformance_tests(
    "packing", instances=["packing/iq_twist/challenge_19"], formulations=["placement", "coordinates"],
    solvers=["highs", "scip", "cpsat"])

test_rubik = conformance_tests(
    "rubik", instances=["rubik/htm_depth_03"], formulations=["seed", "projections"])

test_rubik_pieces = conformance_tests(
    "rubik", instances=["rubik/htm_depth_03"], formulations=["pieces"], solvers=["highs", "scip", "cpsat"])
