"""Overhead of the Pyomo framework compared with a direct highspy model of the same matrix.

What it measures, for each of two exact-cover (packing, placement formulation) instances:

  build       Pyomo build: ``AbstractModel.create_instance(data)`` turning the
              formulation's data dict into a concrete model (the data dict and the
              abstract model are prepared outside the timer).
  solver      ``solver_time`` of the framework's run record (HiGHS's own run time).
  framework   ``wall_time`` of the framework's run record: `pyomo_puzzles.core.run.run`
              in-process (``isolate=False``), HiGHS, 1 thread.  It covers building the
              model, Pyomo's hand-over to HiGHS, the solve, loading the solution back,
              decoding it and the independent solution check.
  highspy     Wall time of the same 0/1 matrix built directly with ``highspy.Highs``:
              derive the sparse matrix from the instance's placements, add the columns
              (binary: bounds [0, 1] and integrality) and the rows (one per cell, = 1,
              and one per piece type, = its count), ``run()`` with 1 thread and output
              off, then read the column values.  Columns are in the order Pyomo's HiGHS
              interface creates them (first use, scanning the rows), so both sides hand
              HiGHS the identical model (their MPS dumps are byte-identical); HiGHS's
              run time on the larger instance depends strongly on column order.  The
              exact-cover check of that solution (an assert) is done outside the timer.
  ratio       framework / highspy, computed per repeat (the two are measured side by
              side) and then its median taken.

Every figure is the median over ``--repeats`` repeats (default 15), after one unmeasured
warm-up round per instance.  Within a repeat the framework run and the direct highspy run
are interleaved, and their order alternates from one repeat to the next, so drift in the
machine's speed affects both alike.

How to read it: ``framework - solver`` is roughly what the framework adds around the
solver (Pyomo build, hand-over, solution loading, decoding, checking); the ratio says how
many times longer one framework run takes than solving the same matrix with highspy
alone.  Absolute times depend on the machine; the ratio is the figure to compare.

The larger instance is an L-tromino 6x6x6 cube (72 copies, 1,800 placements), the
6x6x6 sibling of the shipped 3x3x3 ``packing/l_tromino_cube``.  Its data file is written
to a temporary directory at run time and is not part of the package.  (The 12 pentominoes
on 6x10, 5x12, 4x15 or 3x20 boards take 3-6 s per HiGHS solve, too slow to repeat.)

Run:  python benchmarks/overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import gc
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import highspy
import numpy as np
import pyomo
import yaml

from pyomo_puzzles.core import instances, models, run
from pyomo_puzzles.core.instances import Instance

SHIPPED = "packing/l_tromino_cube"
FORMULATION = "placement"
TIME_LIMIT = 60.0

T = TypeVar("T")

LARGE_NAME = "l_tromino_cube_6x6x6"
LARGE_DATA = {
    "puzzle": "packing",
    "title": "L-tromino cube 6x6x6",
    "board": {"size": [6, 6, 6]},
    "pieces": [{"name": "L", "cells": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "count": 72}],
    "allow_reflections": True,
}


@dataclass
class Timings:
    """Per-repeat measurements of one instance, in seconds."""

    build: list[float] = field(default_factory=list)
    solver: list[float] = field(default_factory=list)
    framework: list[float] = field(default_factory=list)
    highspy: list[float] = field(default_factory=list)

    def ratios(self) -> list[float]:
        return [f / h for f, h in zip(self.framework, self.highspy)]


# Instances -----------------------------------------------------------------------------
def write_large_instance(directory: Path) -> Path:
    path = directory / f"{LARGE_NAME}.yaml"
    path.write_text(yaml.safe_dump(LARGE_DATA, sort_keys=False), encoding="utf-8")
    return path


def row_count(inst: Instance) -> int:
    """Constraints of the placement model: one per cell plus one per piece type."""
    return len(inst.spec.cells) + len(inst.spec.pieces)


# The three measured methods -----------------------------------------------------------
def time_pyomo_build(inst: Instance) -> float:
    """Seconds for AbstractModel.create_instance(data) alone."""
    form = models.choose_formulation(inst, FORMULATION)
    abstract = form.build_model()
    data = form.model_data(inst.spec)
    started = time.perf_counter()
    abstract.create_instance(data=data)
    return time.perf_counter() - started


def time_framework(inst: Instance) -> tuple[float, float]:
    """(solver_time, wall_time) of one in-process framework run; the run must be checked."""
    record = run.run(inst, FORMULATION, "highs", time_limit=TIME_LIMIT, threads=1, isolate=False)
    assert record.status == "optimal" and record.checked, (record.status, record.message)
    return record.solver_time, record.wall_time


def column_order(inst: Instance) -> list[int]:
    """Placement indices in the column order Pyomo's HiGHS interface produces.

    It adds a variable as a column when a constraint first refers to it, scanning the
    cell rows in order and each row's placements in index order.  HiGHS is sensitive to
    column order (on the 6x6x6 cube, placement-index order solves about 15x slower), so
    the direct model uses the same order to be exactly the same matrix.
    """
    covering: dict = {cell: [] for cell in inst.spec.cells}
    for placement in inst.spec.placements:
        for cell in placement.cells:
            covering[cell].append(placement.index)
    return list(dict.fromkeys(p for cell in inst.spec.cells for p in covering[cell]))


def solve_direct(inst: Instance) -> np.ndarray:
    """Build the placement model's matrix directly in highspy, solve it, return x by index."""
    spec = inst.spec
    row_of_cell = {cell: i for i, cell in enumerate(spec.cells)}
    row_of_piece = {piece.name: len(spec.cells) + i for i, piece in enumerate(spec.pieces)}
    order = column_order(inst)
    starts, indices = [], []
    for p in order:  # column-wise: the cells placement p covers, then its piece type
        starts.append(len(indices))
        indices.extend(row_of_cell[cell] for cell in spec.placements[p].cells)
        indices.append(row_of_piece[spec.placements[p].piece])
    n_cols, n_rows = len(order), row_count(inst)
    rhs = np.array([1.0] * len(spec.cells) + [float(p.count) for p in spec.pieces])

    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("time_limit", TIME_LIMIT)
    highs.addRows(n_rows, rhs, rhs, 0, np.zeros(n_rows, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
    highs.addCols(n_cols, np.zeros(n_cols), np.zeros(n_cols), np.ones(n_cols), len(indices),
                  np.array(starts, dtype=np.int32), np.array(indices, dtype=np.int32),
                  np.ones(len(indices)))
    integer = np.uint8(highspy.HighsVarType.kInteger.value)
    highs.changeColsIntegrality(n_cols, np.arange(n_cols, dtype=np.int32),
                                np.full(n_cols, integer, dtype=np.uint8))
    highs.run()
    status = highs.getModelStatus()
    assert status == highspy.HighsModelStatus.kOptimal, highs.modelStatusToString(status)
    x = np.empty(n_cols)
    x[order] = highs.getSolution().col_value
    return x


def assert_exact_cover(inst: Instance, x: np.ndarray) -> None:
    """The direct solution covers every cell once and uses every piece type `count` times."""
    used = [p for p in inst.spec.placements if x[p.index] > 0.5]
    covered = [cell for p in used for cell in p.cells]
    assert sorted(covered) == sorted(inst.spec.cells), "direct solution is not an exact cover"
    for piece in inst.spec.pieces:
        used_of_type = sum(p.piece == piece.name for p in used)
        assert used_of_type == piece.count, f"piece {piece.name} used {used_of_type} times"


def time_direct(inst: Instance) -> float:
    started = time.perf_counter()
    x = solve_direct(inst)
    elapsed = time.perf_counter() - started
    assert_exact_cover(inst, x)
    return elapsed


# Measurement loop ---------------------------------------------------------------------
def timed(method: Callable[[], T]) -> T:
    gc.collect()  # no collection of the previous method's garbage inside the timer
    return method()


def measure(inst: Instance, repeats: int) -> Timings:
    timed(lambda: time_framework(inst))  # warm-up, not recorded
    timed(lambda: time_direct(inst))
    out = Timings()
    for repeat in range(repeats):
        out.build.append(timed(lambda: time_pyomo_build(inst)))
        framework_first = repeat % 2 == 0
        if not framework_first:
            out.highspy.append(timed(lambda: time_direct(inst)))
        solver_time, wall_time = timed(lambda: time_framework(inst))
        out.solver.append(solver_time)
        out.framework.append(wall_time)
        if framework_first:
            out.highspy.append(timed(lambda: time_direct(inst)))
    return out


# Report -------------------------------------------------------------------------------
COLUMNS = ("instance", "placements", "rows", "build ms", "solver ms", "framework ms",
           "highspy ms", "ratio")


def table_cells(inst: Instance, t: Timings) -> tuple[str, ...]:
    def ms(values: list[float]) -> str:
        return f"{1000 * statistics.median(values):.1f}"

    return (inst.name, str(len(inst.spec.placements)), str(row_count(inst)), ms(t.build),
            ms(t.solver), ms(t.framework), ms(t.highspy), f"{statistics.median(t.ratios()):.1f}x")


def format_table(rows: list[tuple[str, ...]]) -> list[str]:
    """First column left-aligned, the others right-aligned, two spaces between."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]


def header(repeats: int, command: str) -> list[str]:
    return [
        f"# Pyomo framework vs direct highspy, exact cover ({FORMULATION} formulation), "
        f"medians of {repeats} interleaved repeats, HiGHS 1 thread",
        f"# highspy {highspy.Highs().version()}, Pyomo {pyomo.__version__}; "
        "rows = cells + piece types; ratio = median of per-repeat framework/highspy",
        f"# command: {command}",
    ]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="repeats per instance (default 15)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main() -> None:
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="overhead-") as tmp:
        loaded = [instances.load(SHIPPED), instances.load(write_large_instance(Path(tmp)))]
        rows = [table_cells(inst, measure(inst, args.repeats)) for inst in loaded]
    print("\n".join(header(args.repeats, shlex.join(["python", *sys.argv]))))
    print("\n".join(format_table([COLUMNS, *rows])))


if __name__ == "__main__":
    main()
