"""The two reductions of the placement set (`families.packing.reduction`): each against
an independent re-statement of its rule written here, and both against coverings found
without them (brute force, dancing links), so that a reduction that drops a placement of a
covering fails."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from conftest import INFEASIBLE_BOARD
from pyomo_puzzles.core import instances, run
from pyomo_puzzles.families.packing import dancing_links, model_placement
from pyomo_puzzles.families.packing.reduction import Bitboard, fillable_sizes, lookahead

# --- dead regions --------------------------------------------------------------------


def _region_sizes(free: set) -> list[int]:
    """Plain breadth-first search over 4- or 6-neighbours."""
    sizes, seen = [], set()
    for start in free:
        if start in seen:
            continue
        seen.add(start)
        todo, size = [start], 0
        while todo:
            cell = todo.pop()
            size += 1
            for axis, step in itertools.product(range(len(cell)), (-1, 1)):
                near = cell[:axis] + (cell[axis] + step,) + cell[axis + 1:]
                if near in free and near not in seen:
                    seen.add(near)
                    todo.append(near)
        sizes.append(size)
    return sorted(sizes)


def test_bitboard_regions_on_a_board_with_a_hole():
    cells = {(x, y) for x in range(4) for y in range(3)} - {(1, 1)}
    board = Bitboard((4, 3), cells)
    # the column x = 2 taken: {x = 0, 1} minus the hole (5 cells) and x = 3 (3 cells)
    assert sorted(board.region_sizes(board.full & ~board.mask([(2, 0), (2, 1), (2, 2)]))) == [3, 5]
    # the corner cut off by two cells and the hole; the other 8 cells stay joined
    assert sorted(board.region_sizes(board.full & ~board.mask([(1, 0), (0, 1)]))) == [1, 8]


def test_bitboard_regions_in_a_box_match_breadth_first_search():
    rng = random.Random(7)
    cells = [(x, y, z) for x in range(3) for y in range(4) for z in range(2)]
    board = Bitboard((3, 4, 2), cells)
    for _ in range(200):
        free = {c for c in cells if rng.random() < 0.5}
        assert sorted(board.region_sizes(board.mask(free))) == _region_sizes(free)


def test_fillable_sizes_are_the_sums_of_sub_multisets():
    sums = fillable_sizes(Counter({3: 2, 4: 1}))
    assert [k for k in range(15) if (sums >> k) & 1] == [0, 3, 4, 6, 7, 10]


def _on_board_outlines(spec) -> set:
    """Every outline of every piece on the board, from the pieces' orientations."""
    found = set()
    for piece in spec.pieces:
        for shape in piece.orientations:
            for shift in itertools.product(*(range(s) for s in spec.size)):
                cells = tuple(sorted(tuple(a + b for a, b in zip(c, shift)) for c in shape.cells))
                if all(c in spec.cells for c in cells):
                    found.add((piece.name, cells))
    return found


@pytest.mark.parametrize("name, kept, on_board", [("packing/pentominoes/3x20", 728, 1236),
                                                  ("packing/iq_twist/empty", 832, 912)])
def test_placements_that_cut_off_an_unfillable_region_are_not_derived(name, kept, on_board):
    spec = instances.load(name).spec
    sizes = Counter(len(p.shape.cells) for p in spec.pieces)
    board = set(spec.cells)
    outlines = _on_board_outlines(spec)
    for piece, cells in outlines:
        others = sizes.copy()
        others[len(cells)] -= 1
        sums = {sum(combo) for k in range(len(spec.pieces)) for combo in itertools.combinations(others.elements(), k)}
        fillable = all(size in sums for size in _region_sizes(board - set(cells)))
        assert ((piece, cells) in spec.outline_index) == fillable, (piece, cells)
    assert (len(spec.placements), spec.unfiltered_placements) == (kept, on_board)


def test_a_cell_cut_off_in_the_corner_leaves_the_placement_out():
    spec = instances.load("packing/iq_twist/empty").spec
    assert spec.variants_of("green2", [(1, 0), (0, 1), (1, 1)]) == []  # (0, 0) alone
    assert spec.variants_of("green2", [(0, 0), (1, 0), (0, 1)])        # the corner itself


# --- one-step lookahead ---------------------------------------------------------------


def _lookahead_by_sets(rows: list[list[int]], n_columns: int) -> set[int]:
    """The rule written out with Python sets: p stays if every row it does not meet has a
    surviving column that shares no row with p; repeated until nothing changes."""
    meets = {p: {r for r, members in enumerate(rows) if p in members} for p in range(n_columns)}
    alive = set(range(n_columns))
    while True:
        dead = {p for p in alive
                if any(not any(q in alive and not meets[q] & meets[p] for q in members)
                       for r, members in enumerate(rows) if r not in meets[p])}
        if not dead:
            return alive
        alive -= dead


def _exact_covers(rows: list[list[int]], n_columns: int) -> list[set[int]]:
    return [set(subset) for k in range(n_columns + 1) for subset in itertools.combinations(range(n_columns), k)
            if all(sum(p in members for p in subset) == 1 for members in rows)]


def test_lookahead_drops_a_column_that_blocks_a_row():
    # columns 0 {A,B}, 1 {A}, 2 {B,C}, 3 {C}, 4 {A,C}: with 4 used, B can only be covered
    # by 0 or 2, which both clash with 4; the covers are {0,3} and {1,2}
    rows = [[0, 1, 4], [0, 2], [2, 3, 4]]
    assert lookahead(rows, 5).tolist() == [True, True, True, True, False]
    assert lookahead(rows, 5, work_limit=5 ** 2 * 3 - 1).all()  # too much work: skipped


def test_lookahead_on_random_matrices_matches_the_rule_and_keeps_every_cover():
    rng = random.Random(11)
    dropped = 0
    for _ in range(300):
        n_columns, n_rows = rng.randint(2, 11), rng.randint(1, 6)
        rows = [[p for p in range(n_columns) if rng.random() < 0.35] for _ in range(n_rows)]
        alive = set(lookahead(rows, n_columns).nonzero()[0].tolist())
        assert alive == _lookahead_by_sets(rows, n_columns), rows
        for cover in _exact_covers(rows, n_columns):
            assert cover <= alive, (rows, cover)
        dropped += n_columns - len(alive)
    assert dropped > 100  # the rule does drop columns on these matrices


def test_every_booklet_covering_survives_the_lookahead():
    """Dancing links (no lookahead) finds each challenge's covering; all its placements
    must be columns of the reduced model, which keeps about 4 placements in 10."""
    kept = []
    for n in range(19, 69):
        instance = instances.load(f"packing/iq_twist/challenge_{n}")
        record = dancing_links.run_record(instance)
        assert record.status == "optimal", record.message
        columns = set(model_placement.model_data(instance.spec)[None]["PLACEMENTS"][None])
        for entry in record.solution["pieces"]:
            placement = instance.spec.placement_of(entry["piece"], entry["cells"], entry.get("marks", {}))
            assert placement.index in columns, (n, entry)
        kept.append(len(columns) / len(instance.spec.placements))
    assert 0.2 < sorted(kept)[len(kept) // 2] < 0.6


def test_unreduced_and_reduced_models_find_the_same_covering():
    for n in (19, 30, 49, 68):
        instance = instances.load(f"packing/iq_twist/challenge_{n}")
        keys = []
        for formulation in ("placement", "placement_unreduced"):
            record = run.run(instance, formulation, "highs", isolate=False)
            assert record.status == "optimal" and record.checked, record.message
            keys.append(instance.family.solution_key(record.solution))
        assert keys[0] == keys[1]


@pytest.mark.parametrize("formulation", ["placement", "placement_unreduced"])
def test_an_instance_the_reductions_empty_is_infeasible(write_instance, formulation):
    # T-tetromino and domino on 2x3: every T cuts off two single cells, so no T placement
    # is derived; the lookahead then finds the T row empty and drops the dominoes too
    instance = instances.load(write_instance(INFEASIBLE_BOARD))
    assert {p.piece for p in instance.spec.placements} == {"D"}
    columns = instance.family.formulations[formulation].model_data(instance.spec)[None]["PLACEMENTS"][None]
    assert len(columns) == (0 if formulation == "placement" else len(instance.spec.placements))
    record = run.run(instance, formulation, "highs", isolate=False)
    assert record.status == "infeasible" and record.solution is None, record.message
