"""Design questions 2-5 of Loeffler, Liu and Hofstedt (ICAART 2020), answered exactly.

Over all sets of four cubes coloured with four colours, each cube showing every colour at
least once:
  Q2  a set with both an all-different and an all-equal tower;
  Q3  the least positive number of all-different towers;
  Q4  the least positive number of all-equal towers;
  Q5  the least positive sum, with at least one of each.

Counting convention (the paper's, Section 3.3): a tower is a choice of one of the 24
rotations for each cube with the cube order fixed; towers that differ by turning the whole
tower about its vertical axis are one (every such orbit has exactly 4 towers). Raw counts
(orbits x 4) are reported too.

Proof by exhaustive search with the problem's symmetry removed:
- cube rotations: a cube is one of the 68 rotation classes of colourings that use all four
  colours (the count is checked against Burnside's lemma in the tests);
- cube order: the counts do not depend on the order, so a set is a multiset of 4 classes
  (C(68+3, 4) = 971,635 of them);
- colour names: the counts do not depend on them either; the search reports minima over
  the sets that are least in their orbit under the 24 permutations of the colours, and
  checks that every set of an orbit has the same counts (a check that can fail).
Every count of every set is computed exactly: a cube class has at most 24 visible
side-tuples (with the number of rotations showing each); all-different towers of
{A, B, C, D} = Σ_s H_AB[s] · H_CD[s̄], where H_AB counts rotation pairs of A and B by the
colour pair they show on each side (6^4 states) and s̄ is the complementary state;
all-equal towers = Σ_t m_A[t] m_B[t] m_C[t] m_D[t] over the 24 side-tuples t that show four
different colours. Both are computed for all multisets at once with matrix products.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from pyomo_puzzles.contract import UserError
from pyomo_puzzles.families.instant_insanity import geometry

COLOURS = 4
COLOUR_NAMES = ("red", "green", "white", "blue")
QUESTIONS = (2, 3, 4, 5)


@lru_cache(maxsize=None)
def cube_classes() -> tuple[tuple[int, ...], ...]:
    """The rotation classes of face colourings with every colour used: least member each."""
    rotations = geometry.rotations()
    classes = set()
    for colouring in itertools.product(range(COLOURS), repeat=6):
        if len(set(colouring)) == COLOURS:
            classes.add(min(tuple(colouring[f - 1] for f in rot) for rot in rotations))
    return tuple(sorted(classes))


def _tuple_index(sides) -> int:
    return sum(c * COLOURS ** k for k, c in enumerate(sides))


def side_counts() -> np.ndarray:
    """m[c, t]: rotations of class c that show side-tuple t (t in base-4, side 1 lowest)."""
    rotations = geometry.rotations()
    classes = cube_classes()
    counts = np.zeros((len(classes), COLOURS ** 4))
    for c, colouring in enumerate(classes):
        for rot in rotations:
            counts[c, _tuple_index([colouring[f - 1] for f in rot[:4]])] += 1
    return counts


_PAIRS = list(itertools.combinations(range(COLOURS), 2))  # the 6 colour pairs a side can show


@lru_cache(maxsize=None)
def _pair_state_tables():
    """For two side-tuples: are they different on every side, and the state (the colour
    pair on each side, a number < 6^4); and the complementary state of each state."""
    pair_index = {frozenset(p): k for k, p in enumerate(_PAIRS)}
    tuples = list(itertools.product(range(COLOURS), repeat=4))  # side 1 varies slowest here
    index = [_tuple_index(t) for t in tuples]
    n = COLOURS ** 4
    compatible = np.zeros((n, n), dtype=bool)
    state = np.zeros((n, n), dtype=np.int64)
    for a, ta in zip(index, tuples):
        for b, tb in zip(index, tuples):
            if all(x != y for x, y in zip(ta, tb)):
                compatible[a, b] = True
                state[a, b] = sum(pair_index[frozenset((x, y))] * 6 ** s for s, (x, y) in enumerate(zip(ta, tb)))
    complement = np.zeros(6 ** 4, dtype=np.int64)
    for s in range(6 ** 4):
        digits = [(s // 6 ** k) % 6 for k in range(4)]
        complement[s] = sum(pair_index[frozenset(set(range(COLOURS)) - set(_PAIRS[d]))] * 6 ** k
                            for k, d in enumerate(digits))
    return compatible, state, complement


def all_different_pair_histograms(counts: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """H[p, s] for each class pair p = (A, B): rotation pairs showing state s."""
    compatible, state, _ = _pair_state_tables()
    nonzero = [np.flatnonzero(row) for row in counts]
    out = np.zeros((len(pairs), 6 ** 4))
    for p, (a, b) in enumerate(pairs):
        ta, tb = nonzero[a], nonzero[b]
        ok = compatible[np.ix_(ta, tb)]
        weights = np.outer(counts[a, ta], counts[b, tb])[ok]
        out[p] = np.bincount(state[np.ix_(ta, tb)][ok], weights=weights, minlength=6 ** 4)
    return out


def all_equal_tuples() -> list[int]:
    """Side-tuples showing four different colours (all-equal towers show one of them)."""
    return [_tuple_index(p) for p in itertools.permutations(range(COLOURS))]


@dataclass
class Census:
    """Exact counts (raw towers, cube order fixed) for every multiset of 4 cube classes."""

    sets: np.ndarray            # (N, 4) class indices, sorted within a row
    all_different: np.ndarray   # (N,) raw counts
    all_equal: np.ndarray       # (N,)
    canonical: np.ndarray       # (N,) bool: least in its orbit under colour permutations
    seconds: float
    timings: dict = field(default_factory=dict)


def _colour_permuted_classes() -> np.ndarray:
    """perm_class[π, c]: the class of class c with its colours renamed by π."""
    classes = cube_classes()
    where = {c: i for i, c in enumerate(classes)}
    rotations = geometry.rotations()
    table = []
    for perm in itertools.permutations(range(COLOURS)):
        row = []
        for colouring in classes:
            renamed = tuple(perm[c] for c in colouring)
            row.append(where[min(tuple(renamed[f - 1] for f in rot) for rot in rotations)])
        table.append(row)
    return np.array(table)


def _pair_number(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Position of (a, b), a <= b, in the row-major list of such pairs."""
    return a * k - a * (a - 1) // 2 + (b - a)


def census() -> Census:
    """Count both kinds of towers for all 971,635 multisets of four cube classes."""
    started = time.perf_counter()
    timings = {}
    counts = side_counts()
    k = len(counts)
    pairs = np.array([(a, b) for a in range(k) for b in range(a, k)])
    t = time.perf_counter()
    histograms = all_different_pair_histograms(counts, pairs)
    _, _, complement = _pair_state_tables()
    timings["pair histograms"] = time.perf_counter() - t
    t = time.perf_counter()
    different = histograms @ histograms[:, complement].T      # (AB, CD) -> towers
    equal_side = counts[:, all_equal_tuples()]
    equal_pairs = equal_side[pairs[:, 0]] * equal_side[pairs[:, 1]]
    equal = equal_pairs @ equal_pairs.T
    timings["matrix products"] = time.perf_counter() - t
    sets = np.array(list(itertools.combinations_with_replacement(range(k), 4)), dtype=np.int64)
    ab, cd = _pair_number(sets[:, 0], sets[:, 1], k), _pair_number(sets[:, 2], sets[:, 3], k)
    all_different = different[ab, cd]
    all_equal = equal[ab, cd]
    t = time.perf_counter()
    canonical = _colour_canonical(sets, all_different, all_equal, k)
    timings["colour symmetry"] = time.perf_counter() - t
    return Census(sets, all_different.round().astype(np.int64), all_equal.round().astype(np.int64),
                  canonical, time.perf_counter() - started, timings)


def _code(sets: np.ndarray, k: int) -> np.ndarray:
    sets = sets.astype(np.int64)
    return ((sets[:, 0] * k + sets[:, 1]) * k + sets[:, 2]) * k + sets[:, 3]


def _colour_canonical(sets: np.ndarray, all_different, all_equal, k: int) -> np.ndarray:
    """Which sets are least in their orbit under renaming the colours; and a check that
    renaming never changes a count (it cannot, unless the census is wrong)."""
    own = _code(sets, k)  # ascending: combinations come in lexicographic order
    least = own.copy()
    for renamed_classes in _colour_permuted_classes().astype(np.int16):
        renamed = _code(np.sort(renamed_classes[sets], axis=1), k)
        where = np.searchsorted(own, renamed)
        if not (np.array_equal(all_different[where], all_different) and np.array_equal(all_equal[where], all_equal)):
            raise AssertionError("a count changed when the colours were renamed: the census is wrong")
        np.minimum(least, renamed, out=least)
    return own == least


@dataclass
class Answer:
    question: int
    distinct: bool
    statement: str
    value: int | None          # the minimum (up to turning the tower), or the number of sets (Q2)
    witness: list[list[str]]   # four cubes, faces 1..6, colour names
    witness_all_different: int  # raw counts of the witness (cube order fixed)
    witness_all_equal: int
    sets_searched: int
    sets_attaining: int
    seconds: float


STATEMENTS = {
    2: "sets with at least one all-different and one all-equal tower",
    3: "least positive number of all-different towers",
    4: "least positive number of all-equal towers",
    5: "least positive number of all-different plus all-equal towers, at least one of each",
}


def answer(question: int, data: Census | None = None, distinct: bool = False) -> Answer:
    """The exact answer over all multisets of cube classes (`distinct`: four different cubes)."""
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {QUESTIONS}")
    data = data or census()
    d, e, canon = data.all_different, data.all_equal, data.canonical
    if distinct:
        canon = canon & (np.diff(data.sets, axis=1) > 0).all(axis=1)
    if question == 2:
        mask, score = canon & (d > 0) & (e > 0), d + e
        value = int(mask.sum())
    else:
        mask = canon & {3: d > 0, 4: e > 0, 5: (d > 0) & (e > 0)}[question]
        score = {3: d, 4: e, 5: d + e}[question]
    best = int(score[mask].min())
    attaining = mask & (score == best)
    first = int(np.flatnonzero(attaining)[0])
    if question != 2:
        value = best // 4
    classes = cube_classes()
    witness = [[COLOUR_NAMES[c] for c in classes[i]] for i in data.sets[first]]
    return Answer(question, distinct, STATEMENTS[question], value, witness, int(d[first]), int(e[first]),
                  int(canon.sum()), int(attaining.sum()), data.seconds)


def witness_data(result: Answer) -> dict:
    """The witness as an instance file (all-different question; cube order fixed)."""
    return {"puzzle": "instant_insanity",
            "title": f"design question {result.question}{' (distinct cubes)' if result.distinct else ''}: witness",
            "source": f"pyomo-puzzles design instant_insanity --question {result.question}"
                      f"{' --distinct' if result.distinct else ''}",
            "colours": list(COLOUR_NAMES), "cubes": result.witness, "question": "all_different",
            "order": "fixed"}


def confirm(result: Answer, solver: str = "highs") -> dict:
    """Count the witness's towers with the integer program (every tower found is checked by
    the independent checker) and compare with the census; raises if they differ."""
    from pyomo_puzzles import api  # the integer program only for the confirmation: the census needs no Pyomo

    confirmed = {}
    for question, expected in (("all_different", result.witness_all_different),
                               ("all_equal", result.witness_all_equal)):
        data = {**witness_data(result), "question": question}
        instance = api.from_data(data, f"design_q{result.question}_{question}.yaml")
        started = time.perf_counter()
        counted = api.count(instance, "rotations", solver, up_to_symmetry=True)
        if not counted.complete or counted.solutions != expected:
            raise AssertionError(f"the integer program counts {counted.solutions} {question} towers "
                                 f"of the witness, the census {expected}")
        confirmed[question] = {"towers": counted.solutions, "up_to_turning": counted.classes,
                               "seconds": round(time.perf_counter() - started, 2)}
    return confirmed


def run(question: int, distinct: bool = False, solver: str = "highs") -> dict:
    """The `design` command: census, answer, confirmation; a JSON-ready report."""
    if question not in QUESTIONS:
        raise UserError(f"no design question {question} (questions: {', '.join(map(str, QUESTIONS))})")
    data = census()
    result = answer(question, data, distinct)
    confirmed = confirm(result, solver)
    report = {
        "question": question, "statement": result.statement, "distinct_cubes": distinct,
        "convention": "towers: one rotation per cube, cube order fixed; 'up to turning' identifies "
                      "the 4 turns of the whole tower about its vertical axis",
        "answer": result.value,
        "answer_unit": "sets (up to renaming colours)" if question == 2 else "towers up to turning",
        "witness": result.witness,
        "witness_towers": {"all_different": result.witness_all_different, "all_equal": result.witness_all_equal},
        "sets_searched": result.sets_searched, "sets_attaining": result.sets_attaining,
        "census_seconds": round(data.seconds, 2), "census_timings": {k: round(v, 2) for k, v in data.timings.items()},
        "confirmed_by_integer_program": confirmed, "solver": solver,
    }
    return report


@lru_cache(maxsize=1)
def _shared_census() -> Census:
    """One census per process for the repaint answers (a generator asked for many seeds)."""
    return census()


def fewest_repaints(cubes: list[list[str]], towers: tuple[str, ...], data: Census | None = None) -> dict:
    """Design question 2 as optimisation, answered by the census: the fewest faces of the given
    four cubes to repaint so that every cube shows every colour and the set has a tower of each
    kind in `towers` ("all_different", "all_equal"; the cube order may stay fixed: reordering a
    tower's levels keeps it a tower).

    A cube becomes class c at the cost of the fewest faces that differ between it and some
    rotation of c; a set of classes costs its cheapest assignment to the four cubes (24
    permutations), minimised over every multiset of classes with the towers asked for.
    """
    if len(cubes) != COLOURS or any(len(cube) != 6 for cube in cubes):
        raise ValueError("the census answers four cubes of six faces")
    if not {colour for cube in cubes for colour in cube} <= set(COLOUR_NAMES):
        raise ValueError(f"the census answers the colours {', '.join(COLOUR_NAMES)}")
    data = data or _shared_census()
    number = {name: k for k, name in enumerate(COLOUR_NAMES)}
    given = np.array([[number[colour] for colour in cube] for cube in cubes])
    rotations = np.array(geometry.rotations()) - 1
    classes = np.array(cube_classes())
    # cost[i, c]: the fewest faces of cube i that differ from a rotation of class c
    turned = classes[:, rotations]                                   # (classes, 24, 6)
    cost = (turned[None, :, :, :] != given[:, None, None, :]).sum(axis=3).min(axis=2)
    wanted = np.ones(len(data.sets), dtype=bool)
    for tower in towers:
        wanted &= {"all_different": data.all_different, "all_equal": data.all_equal}[tower] > 0
    sets = data.sets[wanted]
    best = np.full(len(sets), 10 ** 6)
    for order in itertools.permutations(range(COLOURS)):
        np.minimum(best, sum(cost[i, sets[:, slot]] for i, slot in enumerate(order)), out=best)
    return {"repaints": int(best.min()), "sets_with_the_towers": int(wanted.sum()),
            "sets_attaining": int((best == best.min()).sum())}
