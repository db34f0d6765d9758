"""Solve an MPS file with OR-Tools CP-SAT, in a process of its own.

OR-Tools and highspy bundle incompatible native libraries, so the framework never imports
OR-Tools itself: `solvers.SolverSession` writes the Pyomo model as MPS and runs
``python -m pyomo_puzzles.core.cpsat_worker MODEL.mps RESULT.json --time-limit T --threads N``.
The result: status, objective, bound, solve seconds and the value of every variable by
its MPS name.
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mps")
    parser.add_argument("result")
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    from ortools.linear_solver.python import model_builder

    model = model_builder.Model()
    if not model.import_from_mps_file(args.mps):
        raise SystemExit(f"CP-SAT: cannot read {args.mps}")
    solver = model_builder.Solver("sat")
    if args.time_limit:
        solver.set_time_limit_in_seconds(args.time_limit)
    solver.set_solver_specific_parameters(f"num_workers: {max(1, args.threads)}")
    started = time.perf_counter()
    status = solver.solve(model)
    seconds = time.perf_counter() - started
    names = {
        model_builder.SolveStatus.OPTIMAL: "optimal",
        model_builder.SolveStatus.FEASIBLE: "feasible",
        model_builder.SolveStatus.INFEASIBLE: "infeasible",
    }
    found = status in (model_builder.SolveStatus.OPTIMAL, model_builder.SolveStatus.FEASIBLE)
    result = {
        "status": names.get(status, str(status.name).lower()),
        "objective": solver.objective_value if found else None,
        "bound": solver.best_objective_bound if found else None,
        "seconds": seconds,
        "values": {v.name: solver.value(v) for v in model.get_variables()} if found else {},
    }
    with open(args.result, "w", encoding="utf-8") as out:
        json.dump(result, out)


if __name__ == "__main__":
    main()
