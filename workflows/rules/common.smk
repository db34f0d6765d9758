# Helpers shared by the rules: the experiment matrix, filtered to installed solvers.
import sys

from pyomo_puzzles.core import solvers as _solvers

RESULTS = config.get("results", "results")


def installed_solvers():
    """The configured solvers that are installed; the others are reported and skipped."""
    chosen = []
    for name in config["solvers"]:
        ok, detail = _solvers.availability(name)
        if ok:
            chosen.append(name)
        else:
            print(f"[pyomo-puzzles] skipping solver {name}: {detail}", file=sys.stderr)
    return chosen


def split_instance(name):
    puzzle, _, stem = name.partition("/")
    return puzzle, stem


def run_records():
    return [
        f"{RESULTS}/runs/{instance}/{formulation}/{solver}/repeat{repeat}.json"
        for instance in config["instances"]
        for formulation in config["formulations"]
        for solver in installed_solvers()
        for repeat in range(1, config["repeats"] + 1)
    ]


def pictures():
    return [f"{RESULTS}/pictures/{instance}.png" for instance in config["instances"]]
