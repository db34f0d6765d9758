"""Reference backend for packing: exact cover by dancing links, no integer program.

What it is for: the method a puzzle solver would pick for these instances instead of
integer programming, i.e. a backtracking search for exact covers (Knuth, "Dancing Links",
2000). It counts coverings against published figures and is the baseline the MIP
formulations are measured against (`benchmarks/packing.py`).

The search is done by the PyPI library `xcover` (John F. Rudge; license LGPLv3): Knuth's
Algorithm C (exact covering with colours) in its "dancing cells" form (sparse sets instead
of the doubly linked lists of dancing links; TAOCP Vol. 4B, 7.2.2.3), written by the xcover
authors in Python and compiled with numba. `xcover.covers_bool(matrix)` is a generator that
yields each exact cover as a list of row indices. The search is compiled when `xcover` is
imported (at the import of this module, not in a timed search): about 0.5 s with numba's
on-disk cache, about 10 s the first time (measured with xcover 0.2.6).

The instance becomes a 0/1 cover matrix:

Rows (options)
    the placements of `spec.placements` that every rule allows (see below)
Columns (items), each to be covered exactly once
    one per board cell, and one per piece type (each type must then be used once)

A piece type with several copies has no column when it is the only piece type (the cells
then imply how many copies are used). Mixed with other types, finding one covering gives
each copy a column of its own (``P01#1``, ``P01#2``, ...; every placement of the type is
an option once per copy): sound, but the search meets every covering once per labelling
of the copies, so counting (which would enumerate them all) refuses such instances with
`UserError`.

Rules, applied by removing options (the covering itself stays "exactly once"):
    requirements (pegs, face clues)   the cell of a requirement is covered exactly once
        anyway, so only options that meet it may cover it: the loader derives no
        placement that breaks a requirement on its cells (`spec.PackingSpec.placements`);
    pre-placed pieces                 only the placements that match the pre-placed piece
        (its cells, and its marks if given) remain for its piece type, and no other
        option may cover its cells.

Mark (ring) variants of one outline are distinct placements, hence distinct options: the
search then counts coverings with variants apart ("solutions_with_variants"). Counting
outline coverings ("solutions") uses a second matrix with one option per outline (the
first allowed variant); `orbits.variants` says how many variant solutions one outline
covering stands for.

Counting iterates the generator. The compiled search does not return to Python between
solutions, so it cannot be interrupted there: `run_record` enforces a time limit by running
the search in a forked child process that is killed.
"""

from __future__ import annotations

import importlib.metadata
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from pyomo_puzzles.contract import exact_cover
from pyomo_puzzles.contract import (
    Instance,
    RunRecord,
    RunSettings,
    UserError,
    attach_checked_solution,
    cpu_seconds,
    new_record,
)
from pyomo_puzzles.families.packing.model_placement import placement_entry
from pyomo_puzzles.families.packing.orbits import solution_key, symmetry_images
from pyomo_puzzles.families.packing.spec import PackingSpec, Placement

SOLVER = "dlx"
FORMULATION = "exact_cover"


def library_version() -> str:
    """The solver version string of run records, e.g. ``xcover 0.2.6``."""
    return f"xcover {importlib.metadata.version('xcover')}"


@dataclass(frozen=True)
class CoverMatrix:
    """An exact-cover matrix and what its rows and columns stand for."""

    matrix: np.ndarray
    """bool, shape (options, items): row r covers column j."""
    options: tuple[Placement, ...]
    """row -> the placement it stands for (for outlines: the first allowed variant)."""
    items: tuple
    """column -> a board cell (tuple) or a piece type name (str)."""
    variants: tuple[int, ...]
    """row -> how many allowed options it stands for (1 unless built from outlines)."""


def _piece_items(spec: PackingSpec, label_copies: bool) -> dict[str, list[str]]:
    """Each piece type's columns (none, one, or one per copy); raises UserError if the
    counts cannot be modelled without `label_copies`."""
    multiple = [p for p in spec.pieces if p.count > 1]
    if not multiple:
        return {p.name: [p.name] for p in spec.pieces}
    if len(spec.pieces) == 1:
        return {spec.pieces[0].name: []}  # a single piece type: the cells imply how many copies are used
    if label_copies:
        return {p.name: [p.name] if p.count == 1 else [f"{p.name}#{k}" for k in range(1, p.count + 1)]
                for p in spec.pieces}
    listed = ", ".join(f"{p.name} x{p.count}" for p in multiple)
    raise UserError(
        f"dancing links cannot count {spec.title}: with piece types of several copies ({listed}) "
        "beside others each copy needs a column of its own, and the search would meet every "
        "covering once per labelling of the copies (count with the 'placement' formulation)")


def allowed_options(spec: PackingSpec) -> list[Placement]:
    """The placements that keep pre-placed pieces (every placement of the spec already
    meets the requirements on its cells)."""
    fixed = []
    for f in spec.fixed:
        keep = {p.index for p in spec.variants_of(f.piece, f.cells) if f.marks is None or p.marks == f.marks}
        fixed.append((f.piece, spec.piece(f.piece).count == 1, set(f.cells), keep))
    options = []
    for placement in spec.placements:
        if any(placement.index not in keep and ((placement.piece == piece and single)
                                                 or not cells.isdisjoint(placement.cells))
               for piece, single, cells, keep in fixed):
            continue
        options.append(placement)
    return options


def cover_matrix(spec: PackingSpec, outlines: bool = False, label_copies: bool = False) -> CoverMatrix:
    """The exact-cover matrix of `spec`; with ``outlines`` one row per outline, not per
    variant; with ``label_copies`` a column per copy of a piece type (see the module)."""
    piece_columns = _piece_items(spec, label_copies)
    items: list = list(spec.cells) + [name for names in piece_columns.values() for name in names]
    column = {item: j for j, item in enumerate(items)}
    options = allowed_options(spec)
    variants = [1] * len(options)
    if outlines:
        first: dict = {}
        for placement in options:
            first.setdefault(placement.outline, []).append(placement)
        options = [group[0] for group in first.values()]
        variants = [len(group) for group in first.values()]
    rows = [(placement, copy, variant) for placement, variant in zip(options, variants)
            for copy in piece_columns[placement.piece] or [None]]
    matrix = np.zeros((len(rows), len(items)), dtype=bool)
    for row, (placement, copy, _) in enumerate(rows):
        matrix[row, [column[c] for c in placement.cells]] = True
        if copy is not None:
            matrix[row, column[copy]] = True
    return CoverMatrix(matrix, tuple(r[0] for r in rows), tuple(items), tuple(r[2] for r in rows))


def _covers(matrix: np.ndarray) -> Iterator[list[int]]:
    """Every exact cover of `matrix` (rows), as `xcover.covers_bool` yields them.

    `covers_bool` fails on a matrix without rows or columns (IndexError in xcover 0.2.6),
    so those are answered here: no columns, one empty cover; no rows, none.
    """
    if matrix.shape[1] == 0:
        yield []
    elif matrix.shape[0] > 0:
        yield from exact_cover.xcover_module().covers_bool(matrix)


def _count(matrix: np.ndarray) -> int:
    """The number of exact covers of `matrix` (iterates the generator)."""
    return sum(1 for _ in _covers(matrix))


def _solution(cover: CoverMatrix, rows) -> dict:
    return {"pieces": [placement_entry(cover.options[int(r)]) for r in sorted(rows)]}


def _find_one(spec: PackingSpec) -> tuple[dict | None, float, float]:
    """(solution or None, seconds to build the matrix, seconds of the search)."""
    started = time.perf_counter()
    cover = cover_matrix(spec, label_copies=True)
    built = time.perf_counter()
    rows = next(_covers(cover.matrix), None)
    searched = time.perf_counter()
    solution = None if rows is None else _solution(cover, rows)
    return solution, built - started, searched - built


def solve(spec: PackingSpec) -> tuple[dict | None, float]:
    """One solution in the package's format (``{"pieces": [...]}``) or None, and seconds.

    The seconds cover building the matrix, the search and decoding.
    """
    started = time.perf_counter()
    solution, _, _ = _find_one(spec)
    return solution, time.perf_counter() - started


def _all_solutions(cover: CoverMatrix) -> list[tuple[int, ...]]:
    """Every solution (rows), each checked to be an exact cover of the matrix."""
    solutions = [tuple(int(r) for r in rows) for rows in _covers(cover.matrix)]
    for rows in solutions:
        if not (cover.matrix[list(rows)].sum(axis=0) == 1).all():
            raise RuntimeError(f"xcover returned rows {rows} that are not an exact cover")
    return solutions


def _classes(spec: PackingSpec, cover: CoverMatrix, solutions: list[tuple[int, ...]]) -> int:
    """Orbits of the outline coverings `solutions` under `spec.symmetries`.

    Counts the canonical keys ``min(solution_key(image) for image in symmetry_images)``.
    The solutions are visited in increasing key order, so the first one met of an orbit is
    its canonical key; its images (all of which must be solutions, else the symmetry group
    is wrong and RuntimeError is raised) are then marked as seen. That computes the images
    of one covering per orbit instead of every covering (20 s -> 1 s on the L-tromino cube).
    """
    by_key = {tuple(sorted(cover.options[r].outline for r in rows)): rows for rows in solutions}
    seen: set = set()
    canonical = 0
    for key in sorted(by_key):
        if key in seen:
            continue
        orbit = {solution_key(image) for image in symmetry_images(spec, _solution(cover, by_key[key]))}
        if key not in orbit or min(orbit) != key or not orbit <= by_key.keys():
            raise RuntimeError("a symmetry of the instance maps a covering to a non-covering")
        seen |= orbit
        canonical += 1
    return canonical


def count(spec: PackingSpec, up_to_symmetry: bool = False) -> dict:
    """Count the coverings of `spec` with dancing links.

    Returns a dict with
        solutions                outline coverings (mark variants of one outline are one):
                                 the covers of the one-option-per-outline matrix
        solutions_with_variants  coverings with mark (ring) variants counted apart. Without
                                 ``up_to_symmetry`` the covers of the matrix with one option
                                 per variant are counted; with it, the outline coverings are
                                 enumerated anyway and each stands for the product of its
                                 outlines' allowed variants (as `orbits.variants`), which
                                 saves a second search (9 s on the IQ Twist empty board)
        classes                  outline coverings up to the instance's symmetries (only with
                                 ``up_to_symmetry``, else None): all outline coverings are
                                 enumerated (kept in memory) and their orbits counted by
                                 canonical key ``min(solution_key(image))`` over
                                 `orbits.symmetry_images`
        seconds                  wall time of the whole count
    """
    started = time.perf_counter()
    outline = cover_matrix(spec, outlines=True)
    classes = None
    if up_to_symmetry:
        found = _all_solutions(outline)
        solutions = len(found)
        classes = _classes(spec, outline, found)
        with_variants = sum(math.prod(outline.variants[r] for r in rows) for rows in found)
    else:
        solutions = _count(outline.matrix)
        if all(v == 1 for v in outline.variants):  # no variants: the same matrix
            with_variants = solutions
        else:
            with_variants = _count(cover_matrix(spec).matrix)
    return {"solutions": solutions, "solutions_with_variants": with_variants, "classes": classes,
            "seconds": time.perf_counter() - started}


def all_solutions(spec: PackingSpec) -> list[dict]:
    """Every outline covering of `spec` (one variant each), in the package's solution format."""
    outline = cover_matrix(spec, outlines=True)
    return [_solution(outline, rows) for rows in _all_solutions(outline)]


def enumerate_solutions(instance: Instance, found: Callable[[dict], bool]) -> tuple[str, str]:
    """Every outline covering of `instance`, each passed to `found` as it is met (the
    `ReferenceSolver.enumerate` hook: the framework checks, counts and reduces them)."""
    cover = cover_matrix(instance.spec, outlines=True)
    for rows in _covers(cover.matrix):
        if not found(_solution(cover, rows)):
            return "stopped", ""
    return "complete", ""


def run_record(instance: Instance, time_limit: float | None = None) -> RunRecord:
    """Solve `instance` with dancing links and return a checked RunRecord.

    solver "dlx", formulation "exact_cover"; status "optimal" (a solution was found and,
    as for the feasibility models, that settles it), "infeasible" (the search proved there
    is none), "time_limit" (the search ran past `time_limit` and was killed: the library
    cannot be interrupted, so a time limit runs the search in a forked child process) or
    "error" (also when the solution fails the family's checker); an optimal record's objective
    is 0, as the feasibility models' is. Times: build_time is the
    matrix, solver_time the search, wall_time everything including the check.
    Errors the user can fix (piece counts the backend cannot model) raise UserError.
    """
    record = new_record(instance.puzzle, instance.name, FORMULATION, SOLVER,
                        RunSettings(time_limit=time_limit, threads=1), solver_version=library_version())
    started, cpu = time.perf_counter(), cpu_seconds()
    try:
        if time_limit is None:
            found = _find_one(instance.spec)
        else:
            found = exact_cover.within(_find_one, (instance.spec,), time_limit)
        if found is None:
            record.status, record.killed = "time_limit", True
            record.message = f"search killed after the time limit of {time_limit:g} s"
        else:
            solution, record.build_time, record.solver_time = found
            if solution is None:
                record.status = "infeasible"
            else:
                record.status = "optimal"
                record.objective = 0.0  # the packing models are feasibility models: their objective is 0
                attach_checked_solution(record, instance, solution)
    except UserError:
        raise
    except Exception as error:
        record.status = "error"
        record.message = f"{type(error).__name__}: {error}".splitlines()[0]
    record.wall_time = time.perf_counter() - started
    record.cpu_time = cpu_seconds() - cpu
    return record
