"""Instant Insanity against ground truth.

Ground truth (Loeffler, Liu and Hofstedt, ICAART 2020, and ../shared/data/ground_truth.md),
for the Parker Brothers cubes: 8 all-different stacks with the cube order fixed, 2 up to
turning the tower about its vertical axis, 192 with any cube order; 0 all-equal stacks.
The 24 rotation tuples are the paper's Fig. 3 (typed from the paper, compared with the
derived ones). Counts of design witnesses are re-counted here by brute force over all
24^4 stacks with rotations found independently of the package's geometry.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from pyomo_puzzles.core import counting as enumeration, instances, run
from pyomo_puzzles.errors import DataError
from pyomo_puzzles.families.instant_insanity import checker, design, generate, geometry, orbits

from conftest import INSTALLED, run_cli

PAPER_ROTATIONS = {
    (1, 2, 3, 4, 5, 6), (1, 5, 3, 6, 4, 2), (1, 4, 3, 2, 6, 5), (1, 6, 3, 5, 2, 4),
    (2, 3, 4, 1, 5, 6), (2, 5, 4, 6, 1, 3), (2, 1, 4, 3, 6, 5), (2, 6, 4, 5, 3, 1),
    (3, 2, 1, 4, 6, 5), (3, 5, 1, 6, 2, 4), (3, 4, 1, 2, 5, 6), (3, 6, 1, 5, 4, 2),
    (4, 3, 2, 1, 6, 5), (4, 6, 2, 5, 1, 3), (4, 1, 2, 3, 5, 6), (4, 5, 2, 6, 3, 1),
    (5, 2, 6, 4, 3, 1), (5, 3, 6, 1, 4, 2), (5, 4, 6, 2, 1, 3), (5, 1, 6, 3, 2, 4),
    (6, 2, 5, 4, 1, 3), (6, 3, 5, 1, 2, 4), (6, 4, 5, 2, 3, 1), (6, 1, 5, 3, 4, 2),
}
PB = "instant_insanity/parker_brothers"

# rotations found without the package's geometry: the proper ones among all 720 relabellings
INDEPENDENT_ROTATIONS = [p for p in itertools.permutations(range(1, 7)) if checker.is_rotation(list(p))]


def test_derived_rotations_are_the_papers_table():
    assert len(geometry.rotations()) == 24
    assert set(geometry.rotations()) == PAPER_ROTATIONS
    assert set(INDEPENDENT_ROTATIONS) == PAPER_ROTATIONS


def test_rotations_form_a_group_and_tower_turns_have_order_four():
    rotations = set(geometry.rotations())
    assert all(geometry.compose(a, b) in rotations for a in rotations for b in rotations)
    identity = geometry.FACES
    assert geometry.turned(identity, 4) == identity and geometry.turned(identity, 1) != identity
    assert geometry.turned(identity, 1)[:4] == (4, 1, 2, 3)  # side k moves to side k + 1


def test_checker_rejects_a_mirror_image():
    assert checker.is_rotation([1, 2, 3, 4, 5, 6])
    assert not checker.is_rotation([1, 4, 3, 2, 5, 6])  # a reflection, not a rotation
    assert not checker.is_rotation([1, 2, 3, 5, 4, 6])  # 4 and 5 are not opposite to 2 and 6


@pytest.mark.parametrize("formulation", ["rotations", "opposite_pairs"])
@pytest.mark.parametrize("solver", INSTALLED)
def test_parker_brothers_solved_and_checked(formulation, solver):
    for name, expected in [(PB, "optimal"), (PB + "_any_order", "optimal"), (PB + "_all_equal", "infeasible")]:
        record = run.run(instances.load(name), formulation, solver, time_limit=60)
        assert record.status == expected, (name, record.message)
        if expected == "optimal":
            assert record.checked is True


@pytest.mark.parametrize("name, up_to_symmetry, solutions, classes", [
    (PB, False, 8, None),
    (PB, True, 8, 2),
    (PB + "_any_order", True, 192, 48),
    (PB + "_all_equal", False, 0, None),
])
def test_parker_brothers_counts(name, up_to_symmetry, solutions, classes):
    result = enumeration.count_solutions(instances.load(name), "rotations", "highs", up_to_symmetry=up_to_symmetry)
    assert result.complete and result.solutions == solutions
    if classes is not None:
        assert result.classes == classes and result.images_per_solution == 4


def test_opposite_pairs_does_not_pretend_to_count():
    with pytest.raises(Exception, match="cannot enumerate"):
        enumeration.count_solutions(instances.load(PB), "opposite_pairs", "highs")


def test_checker_catches_broken_stacks():
    instance = instances.load(PB)
    good = run.run(instance, "rotations", "highs", isolate=False).solution
    assert checker.check(instance.spec, good) == []
    swapped = {"stack": [good["stack"][1], good["stack"][0], *good["stack"][2:]]}
    assert any("order is fixed" in e for e in checker.check(instance.spec, swapped))
    turned_one = {"stack": [orbits.turned_stack(instance.spec, {"stack": [good["stack"][0]]}, 1)["stack"][0],
                            *good["stack"][1:]]}
    assert any("not every colour once" in e for e in checker.check(instance.spec, turned_one))


def brute_force_counts(cubes: list[list[str]]) -> tuple[int, int]:
    """All-different and all-equal stacks (cube order fixed), over all 24^4 choices."""
    shown = [[tuple(cube[f - 1] for f in rot[:4]) for rot in INDEPENDENT_ROTATIONS] for cube in cubes]
    different = equal = 0
    for choice in itertools.product(*shown):
        sides = list(zip(*choice))
        if all(len(set(side)) == 4 for side in sides):
            different += 1
        if all(len(set(side)) == 1 for side in sides) and len({side[0] for side in sides}) == 4:
            equal += 1
    return different, equal


def test_parker_brothers_by_brute_force():
    assert brute_force_counts([list(c) for c in instances.load(PB).spec.cubes]) == (8, 0)


def test_cube_classes_match_burnside():
    # surjective 4-colourings of the faces up to rotation: (1/|G|) Σ_g Σ_j (-1)^j C(4,j) (4-j)^cycles(g)
    def cycles(rot):
        seen, count = set(), 0
        for start in range(1, 7):
            if start not in seen:
                count += 1
                face = start
                while face not in seen:
                    seen.add(face)
                    face = rot[face - 1]
        return count
    total = sum(sum((-1) ** j * math.comb(4, j) * (4 - j) ** cycles(g) for j in range(5))
                for g in INDEPENDENT_ROTATIONS)
    assert total % 24 == 0 and total // 24 == 68 == len(design.cube_classes())


@pytest.fixture(scope="module")
def census():
    return design.census()


def test_census_matches_brute_force_on_random_sets(census):
    rng = random.Random(7)
    classes = design.cube_classes()
    for row in rng.sample(range(len(census.sets)), 4):
        cubes = [[design.COLOUR_NAMES[c] for c in classes[i]] for i in census.sets[row]]
        assert brute_force_counts(cubes) == (census.all_different[row], census.all_equal[row])


@pytest.mark.parametrize("question, value", [(3, 2), (4, 2), (5, 26)])
def test_design_minima_and_witnesses(census, question, value):
    # the paper found 4 (Q3), 2 (Q4) and 24 + 2 (Q5) towers up to turning; our census proves
    # the minima 2, 2 and 26 (brute-force recount of the witness below)
    answer = design.answer(question, census)
    assert answer.value == value
    different, equal = brute_force_counts(answer.witness)
    assert (different, equal) == (answer.witness_all_different, answer.witness_all_equal)
    score = {3: different, 4: equal, 5: different + equal}[question]
    assert score == 4 * value
    assert all(len(set(cube)) == 4 for cube in answer.witness)  # every cube shows every colour


def test_design_question_two_has_a_witness_with_both(census):
    answer = design.answer(2, census)
    assert answer.value > 0 and answer.witness_all_different > 0 and answer.witness_all_equal > 0


def test_design_command_confirms_with_the_integer_program():
    done = run_cli("design", "instant_insanity", "--question", "4")
    assert done.returncode == 0, done.stderr
    assert "answer: 2 towers up to turning" in done.stdout
    assert "8 all_equal towers, every one checked" in done.stdout


@pytest.mark.parametrize("cubes", [4, 7])
def test_generated_solvable_instances_solve_on_both_formulations(cubes):
    data = generate.instant_insanity(seed=3, cubes=cubes)
    instance = instances.from_data(data, "generated.yaml")
    for formulation in ("rotations", "opposite_pairs"):
        record = run.run(instance, formulation, "highs", time_limit=60, isolate=False)
        assert record.status == "optimal" and record.checked


def test_generated_unsolvable_instance_is_infeasible_on_the_paper_model():
    data = generate.instant_insanity(seed=5, cubes=5, unsolvable=True)
    assert data["known"] == {"solvable": False}
    record = run.run(instances.from_data(data, "generated.yaml"), "rotations", "highs", time_limit=60, isolate=False)
    assert record.status == "infeasible"


def test_an_unsolvable_tower_whose_proof_needs_longer_than_proof_limit_is_refused_naming_the_option():
    """32 cubes: HiGHS proves a draw unsolvable in about a second, never in 10 ms."""
    from pyomo_puzzles.contract import UserError

    with pytest.raises(UserError, match="within 0.01 s: raise option proof_limit"):
        generate.instant_insanity(seed=1, cubes=32, unsolvable=True, proof_limit=0.01)
    with pytest.raises(UserError, match="option proof_limit must be positive"):
        generate.instant_insanity(seed=1, cubes=32, unsolvable=True, proof_limit=0)
    data = generate.instant_insanity(seed=5, cubes=5, unsolvable=True, proof_limit=30)
    assert data["source"].endswith("--unsolvable --option proof_limit=30")
    assert data["cubes"] == generate.instant_insanity(seed=5, cubes=5, unsolvable=True)["cubes"]


@pytest.mark.parametrize("text, field", [
    ("colours: [red, green, white, blue]\ncubes: [[red, red, green, white, blue, white]]\n"
     "question: all_different\n", "colours"),
    ("colours: [red, green]\ncubes: [[red, red, green, gren, red, red], [red, red, red, red, red, green]]\n"
     "question: all_different\n", "cubes[0][3]"),
    ("colours: [red, green]\ncubes: [[red, red, green, red, red]]\nquestion: all_different\n", "cubes[0]"),
    ("colours: [a, b]\ncubes: [[a, a, a, a, a, b], [b, b, b, b, b, a]]\nquestion: all_equal\n", "question"),
    ("colours: [a, b]\ncubes: [[a, a, a, a, a, b], [b, b, b, b, b, a]]\nquestion: all_different\n"
     "oder: fixed\n", "oder"),
])
def test_bad_instance_files_name_the_field(write_instance, text, field):
    path = write_instance("puzzle: instant_insanity\n" + text)
    with pytest.raises(DataError) as error:
        instances.load(path)
    assert error.value.field == field
    done = run_cli("solve", path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and f"'{field}'" in done.stderr


def shipped_with_counts():
    for name in instances.shipped_instances():
        if name.startswith("instant_insanity/"):
            known = instances.load(name).raw.get("known", {})
            if "solutions" in known:
                yield pytest.param(name, known, id=name)


@pytest.mark.parametrize("name, known", list(shipped_with_counts()))
def test_shipped_instances_reproduce_their_known_counts(name, known):
    result = enumeration.count_solutions(instances.load(name), "rotations", "highs", up_to_symmetry=True)
    assert result.complete and result.solutions == known["solutions"]
    if "solutions_up_to_symmetry" in known:
        assert result.classes == known["solutions_up_to_symmetry"]


@pytest.mark.parametrize("name", [n for n in instances.shipped_instances() if n.startswith("instant_insanity/")
                                  and not n.startswith("instant_insanity/library/")])  # test_library's: medium
def test_shipped_instances_decide_as_known(name):
    instance = instances.load(name)
    record = run.run(instance, "opposite_pairs", "highs", time_limit=60, isolate=False)
    solvable = instance.raw["known"]["solvable"]
    assert record.status == ("optimal" if solvable else "infeasible")
    assert record.checked is (True if solvable else None)
