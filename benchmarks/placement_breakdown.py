"""Where the time of one IQ Twist placement run on HiGHS goes, phase by phase.

Replays, for each booklet challenge 19-68, the steps of `core.run.run(..., isolate=False)`
with a clock between them: the cached AbstractModel, the data dictionary, Pyomo's
`create_instance`, reading the model into one sparse matrix (`core.linear_form`),
handing it to highspy, HiGHS's `run`, loading the values, decoding, the independent
check; then the whole `run.run` for comparison. Prints the median of each phase over the
challenges x repeats.

Run:  python benchmarks/placement_breakdown.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

import highspy
import numpy as np

from pyomo_puzzles.core import checking, instances, models, run
from pyomo_puzzles.core.linear_form import read_linear_form


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"# command: {shlex.join(['python', *sys.argv])}")
    loaded = [instances.load(f"packing/iq_twist/challenge_{n}") for n in range(19, 69)]
    form = models.choose_formulation(loaded[0], "placement")
    phases: dict[str, list[float]] = {}

    def tick(name: str, since: float) -> float:
        now = time.perf_counter()
        phases.setdefault(name, []).append(now - since)
        return now

    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")  # as inside run.run with threads=1 (core.run)
    for _ in range(args.repeats):
        for instance in loaded:
            t = time.perf_counter()
            abstract = models.abstract_model(form)
            t = tick("abstract model (cached)", t)
            data = form.model_data(instance.spec)
            t = tick("data dictionary", t)
            model = abstract.create_instance(data=data)
            t = tick("Pyomo create_instance", t)
            linear = read_linear_form(model)
            t = tick("read into a sparse matrix", t)
            highs = highspy.Highs()
            highs.setOptionValue("output_flag", False)
            highs.setOptionValue("threads", 1)
            highs.passModel(len(linear.columns), len(linear.row_lower), len(linear.index), 1, 1, linear.offset,
                            linear.cost, linear.col_lower, linear.col_upper, linear.row_lower, linear.row_upper,
                            linear.start.astype(np.int32), linear.index.astype(np.int32), linear.value,
                            linear.integer.astype(np.int32))
            t = tick("hand-over to highspy", t)
            highs.run()
            t = tick("HiGHS run", t)
            for var, value in zip(linear.columns, highs.getSolution().col_value):
                var.set_value(value, skip_validation=True)
            t = tick("load values", t)
            solution = form.decode(instance.spec, model)
            t = tick("decode", t)
            checking.check_solution(instance, solution)
            tick("independent check", t)
            record = run.run(instance, "placement", "highs", isolate=False)
            phases.setdefault("WHOLE run.run (wall)", []).append(record.wall_time)
    total = 0.0
    for name, values in phases.items():
        median = statistics.median(values) * 1000
        if not name.startswith("WHOLE"):
            total += median
        print(f"{name:28s} {median:7.2f} ms")
    print(f"{'sum of the phase medians':28s} {total:7.2f} ms")


if __name__ == "__main__":
    main()
