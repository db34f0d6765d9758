"""SCIP through the framework against SCIP on its own, on runs long enough to fill the pipe
on which Pyomo captures a solver's output (64 KB of SCIP log: about a minute on IQ Twist
challenges with the faithful coordinate model).

Four rows per instance, side by side in one run:

  framework        `pyomo_puzzles.core.run.run` (isolated, as `solve` and the pipeline
                   run), SCIP's log switched off as the adapter does now (`scip.QUIET`).
  framework, log   the same with SCIP's log on (its default verbosity), as before the fix:
                   Pyomo's capture thread cannot drain the pipe while PySCIPOpt holds the
                   GIL, so once 64 KB are written SCIP blocks until the run's hard kill at
                   the time limit plus 10 s.
  exported MPS     PySCIPOpt on the instance's exported MPS (`pyomo-puzzles export`), output
                   hidden, the same time limit, in this process.
  same matrix      PySCIPOpt on the problem exactly as Pyomo's direct interface hands it to
                   SCIP in the framework (built by that interface, written by SCIP itself),
                   output hidden: SCIP on its own, on the framework's rows and columns.

For each: status, SCIP's own solving time, the run's wall time, SCIP's node count where
it is known, and the ratio of SCIP's time to the standalone one on the same matrix. The
exported MPS is the same problem but not the same matrix: Pyomo's direct interface adds
rows and columns in another order, and SCIP's search depends on that order (performance
variability), so that row can differ several-fold from the others without any fault.

    .venv/bin/python benchmarks/scip_output.py [--instances packing/iq_twist/challenge_40 ...]
        [--formulation coordinates] [--time-limit 150]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def framework(instance: str, formulation: str, limit: float, log_on: bool) -> dict:
    from pyomo_puzzles.core import models, run
    from pyomo_puzzles.solvers import scip

    quiet = scip.QUIET
    scip.QUIET = {} if log_on else quiet
    try:
        record = run.run(instance, formulation, "scip", time_limit=limit)
    finally:
        scip.QUIET = quiet
    return {"status": record.status + (" (killed)" if record.killed else ""), "scip": record.solver_time,
            "wall": record.wall_time, "nodes": record.nodes}


def standalone(instance: str, formulation: str, limit: float) -> dict:
    import pyscipopt

    from pyomo_puzzles.core import export, instances

    with tempfile.TemporaryDirectory() as folder:
        mps = export.export(instances.load(instance), formulation, Path(folder), ("mps",))[0]
        model = pyscipopt.Model()
        model.hideOutput(True)
        model.readProblem(str(mps))
        model.setParam("limits/time", limit)
        started = time.perf_counter()
        model.optimize()
        wall = time.perf_counter() - started
        return {"status": model.getStatus(), "scip": model.getSolvingTime(), "wall": wall,
                "nodes": model.getNNodes()}


def same_matrix(instance: str, formulation: str, limit: float) -> dict:
    """SCIP on the problem Pyomo's scip_direct builds (its private model builder: a benchmark
    may reach into Pyomo to show what SCIP was handed)."""
    import pyscipopt
    from pyomo.contrib.solver.common.factory import SolverFactory

    from pyomo_puzzles.core import instances, run

    loaded = instances.load(instance)
    model = models.build_model(loaded, models.choose_formulation(loaded, formulation))
    direct = SolverFactory("scip_direct")
    from pyomo.common.timing import HierarchicalTimer

    config = direct.config(value={}, preserve_implicit=True)
    config.timer = HierarchicalTimer()
    built, _, _ = direct._create_solver_model(model, config)
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "direct.cip")
        built.hideOutput(True)
        built.writeProblem(path)
        scip = pyscipopt.Model()
        scip.hideOutput(True)
        scip.readProblem(path)
        scip.setParam("limits/time", limit)
        started = time.perf_counter()
        scip.optimize()
        return {"status": scip.getStatus(), "scip": scip.getSolvingTime(), "wall": time.perf_counter() - started,
                "nodes": scip.getNNodes()}


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--instances", nargs="+", default=["packing/iq_twist/challenge_40"])
    options.add_argument("--formulation", default="coordinates")
    options.add_argument("--time-limit", type=float, default=150.0)
    args = options.parse_args()
    print(f"{'instance':34} {'how':15} {'status':22} {'SCIP s':>8} {'wall s':>8} {'nodes':>8} {'SCIP / same matrix':>18}")
    for instance in args.instances:
        rows = {"same matrix": same_matrix(instance, args.formulation, args.time_limit),
                "framework": framework(instance, args.formulation, args.time_limit, log_on=False),
                "framework, log": framework(instance, args.formulation, args.time_limit, log_on=True),
                "exported MPS": standalone(instance, args.formulation, args.time_limit)}
        alone = rows["same matrix"]["scip"]
        for how, row in rows.items():
            scip_time = row["scip"] if row["scip"] is not None else float("nan")
            nodes = "-" if row["nodes"] is None else f"{row['nodes']:,}"
            print(f"{instance:34} {how:15} {row['status']:22} {scip_time:8.1f} {row['wall']:8.1f} {nodes:>8} "
                  f"{scip_time / alone:18.2f}", flush=True)


if __name__ == "__main__":
    main()
