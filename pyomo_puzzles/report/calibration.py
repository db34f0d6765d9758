"""Library entries from a calibration experiment: each instance's band, times and answer.

A calibration is an ordinary experiment (a results folder) over candidate instances, the
open-source MIP solvers and the family's formulations, threads 1. For each instance:

* the time of each method (``solver/formulation``) by the measure ``build_and_solve`` (by
  default): building the model plus the solver call, so that a formulation that does part
  of the search in Python (Rubik's projections settle most parts without a solver) is not
  taken for faster than it is; ``None`` where the method did not solve it (a wrong answer
  does not count as solved);
* the band of the virtual best (`core.library.band_of`); an instance none solved within a
  limit below the hard band's top is left out, as not yet calibrated; a method run with a
  lower limit than the calibration's (in a second stage, the quickest method's time, or the
  band's lower edge) is named in the entry's ``calibration.limits``, and an instance on which
  such a method did not solve within a limit below the band's lower edge is left out (it might
  have been quicker than the band allows);
* the methods: where `calibrate` is given the calibration's solvers, an instance outside the
  easy band is left out unless every one of them ran on every formulation that ran on it (one
  that did not run might have been quicker, and only the easiest band cannot be lowered);
* the answer: ``optimal`` with the objective every checked optimal run agrees on (each
  source says "objective the solver's claim" where the family has no objective hook), or
  ``infeasible`` where runs proved it and none found a checked solution; an instance whose
  runs disagree is left out, with the reason;
* the sources: the methods that gave the answer (each a solver and formulation, so two
  formulations or two solvers are two methods), and the data file's known answer where it
  states one.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Collection
from dataclasses import dataclass

import pandas as pd

from pyomo_puzzles.core.library import BAND_FLOOR, BAND_LIMITS, band_of
from pyomo_puzzles.report import tables
from pyomo_puzzles.report.measure import Statistics, measured_time

MEASURE = Statistics(time="build_and_solve")
"""What the bands rank by: a method's building and solving, not its one-off start-up or check."""


@dataclass(frozen=True)
class Calibrated:
    """One instance's catalogue entry (`entry`), or why it has none (`skipped`)."""

    instance: str
    entry: dict | None
    skipped: str | None = None


def _method_times(group: pd.DataFrame, solved: pd.Series, times: pd.Series) -> dict[str, float | None]:
    methods: dict[str, float | None] = {}
    for (solver, formulation), runs in group.groupby(["solver", "formulation"], sort=True):
        done = times[runs.index][solved[runs.index]]
        methods[f"{solver}/{formulation}"] = round(float(done.median()), 4) if len(done) else None
    return methods


def _lower_limits(group: pd.DataFrame, limit: float) -> dict[str, float]:
    """The methods whose runs had a lower time limit than the calibration's (method: its limit)."""
    lower = {}
    for (solver, formulation), runs in group.groupby(["solver", "formulation"], sort=True):
        own = float(pd.to_numeric(runs["time_limit"], errors="coerce").max())
        if own < limit:
            lower[f"{solver}/{formulation}"] = own
    return lower


def _cut_short(methods: dict[str, float | None], lower: dict[str, float], band: str) -> str | None:
    """The first method that did not solve within a limit too short to place the instance in `band`."""
    return next((method for method, own in sorted(lower.items())
                 if methods.get(method) is None and own < BAND_FLOOR[band]), None)


SOLVING = {"not_run": "did not run on it", "ran": "ran", "unsolved": "solve it", "again": "run it again"}
COUNTING = {"not_run": "did not count it", "ran": "counted", "unsolved": "finish",
            "again": "count again"}
"""How `_not_placed` words its reasons for a solve question and for a counting question."""


def _not_placed(band: str, missing: list[str], times: dict[str, float | None], lower: dict[str, float],
                words: dict[str, str | None]) -> str | None:
    """Why an instance cannot be placed in `band`, or None: above ``easy`` a method of the
    calibration did not run (`missing`; it might have been quicker), or a method stopped unsolved
    with a limit below the band's lower edge."""
    if missing and band != "easy":
        return (f"{', '.join(missing)} {words['not_run']}: one might have been quicker than the {band} band's "
                "best; run every method")
    short = _cut_short(times, lower, band)
    if short:
        return (f"{short} {words['ran']} with a limit of {lower[short]:g} s and did not {words['unsolved']}, below "
                f"the {band} band's lower edge of {BAND_FLOOR[band]:g} s: {words['again']} with at least that")
    return None


def _missing(group: pd.DataFrame, solvers: Collection[str]) -> list[str]:
    """The methods (``solver/formulation``) of `solvers` x the formulations run on the instance that have no run."""
    ran = set(zip(group["solver"], group["formulation"]))
    return [f"{solver}/{formulation}" for formulation in sorted(set(group["formulation"]))
            for solver in sorted(solvers) if (solver, formulation) not in ran]


def _answer(group: pd.DataFrame, solved: pd.Series) -> tuple[dict | None, list[str], str | None]:
    """(answer, the methods that gave it, why there is none)."""
    mine = group[solved[group.index]]
    optimal = mine[mine["status"] == "optimal"]
    infeasible = mine[mine["status"] == "infeasible"]
    if len(optimal) and len(infeasible):
        return None, [], "some runs found checked solutions, others claimed infeasible"
    if len(infeasible):
        return {"status": "infeasible"}, _methods(infeasible, "proof of infeasibility"), None
    if not len(optimal):
        return None, [], "no run solved it"
    objectives = pd.to_numeric(optimal["objective"], errors="coerce")
    if objectives.isna().any():
        return None, [], "an optimal run without an objective"
    low, high = float(objectives.min()), float(objectives.max())
    if high - low > tables.OBJECTIVE_TOLERANCE * max(1.0, abs(low)):
        return None, [], f"the optimal runs disagree on the objective ({low:g} to {high:g})"
    value = round(low) if abs(low - round(low)) <= tables.OBJECTIVE_TOLERANCE else low
    if not _unchecked_objectives(optimal):
        return {"status": "optimal", "objective": value}, _methods(optimal, "checked optimal solution"), None
    return ({"status": "optimal", "objective": value},
            _methods(optimal, "checked optimal solution; objective the solver's claim"), None)


def _unchecked_objectives(runs: pd.DataFrame) -> bool:
    """Whether some run's objective is the solver's claim alone: a model with an objective (a
    feasibility model's constant keeps no progress trace) and a family without the objective
    hook that would have checked it (`objective_checked`)."""
    column = runs["objective_checked"] if "objective_checked" in runs else pd.Series(None, index=runs.index)
    traced = runs["progress_source"].notna() if "progress_source" in runs else pd.Series(False, index=runs.index)
    return bool((traced & ~column.map(tables._is_true).astype(bool)).any())


def _methods(runs: pd.DataFrame, what: str) -> list[str]:
    pairs = sorted(set(zip(runs["solver"], runs["formulation"])))
    return [f"{solver}/{formulation} ({what})" for solver, formulation in pairs]


def _solvable(value) -> bool | None:
    """A runs table's ``known_solvable`` (Python or numpy bool, None or NaN) as True, False or None."""
    return None if value is None or pd.isna(value) else bool(value)


def _known_source(group: pd.DataFrame, answer: dict) -> str | None:
    """The data file's own known answer, where it states one and agrees."""
    row = group.iloc[0]
    solvable, objective = _solvable(row.get("known_solvable")), tables._number(row.get("known_objective"))
    if answer["status"] == "infeasible" and solvable is False:
        return "the data file's known answer (solvable: false)"
    if answer["status"] == "optimal" and not math.isnan(objective) and \
            abs(objective - answer["objective"]) <= tables.OBJECTIVE_TOLERANCE * max(1.0, abs(objective)):
        return f"the data file's known answer (objective {objective:g})"
    if answer["status"] == "optimal" and solvable is True and math.isnan(objective):
        return "the data file's known answer (solvable)"
    return None


def _known_answer(group: pd.DataFrame) -> tuple[dict | None, list[str], str | None]:
    """The data file's own answer, for an instance no method answered."""
    row = group.iloc[0]
    objective = tables._number(row.get("known_objective"))
    if _solvable(row.get("known_solvable")) is False:
        return {"status": "infeasible"}, ["the data file's known answer (solvable: false)"], None
    if not math.isnan(objective):
        return {"status": "optimal", "objective": objective}, [f"the data file's known answer (objective {objective:g})"], None
    return None, [], "no method solved it, and its data file states no answer"


def calibrate(runs: pd.DataFrame, calibrations: dict[str, dict], statistics: Statistics = MEASURE,
              witnesses: pd.DataFrame | None = None, solvers: Collection[str] = ()) -> list[Calibrated]:
    """One `Calibrated` per instance of the runs table (licence-refused runs left out);
    `calibrations` gives each instance's calibration facts (command, machine, solvers, limit, ...).
    `solvers`: the solvers a band above ``easy`` needs on every formulation run on the instance.
    `witnesses`: runs of other methods (dancing links, CP-SAT, ...) on the same instances, which
    add sources to an answer (and must agree with it) but take no part in its times or band."""
    runs = runs[tables._column(runs, "status") != "licence_limit"]
    witnesses = runs.iloc[:0] if witnesses is None else witnesses[
        tables._column(witnesses, "status") != "licence_limit"]
    solved = tables.solved(runs)  # wrong answers are not solved
    times = measured_time(runs, statistics)
    found = []
    for instance, group in runs.groupby("instance", sort=True):
        witnessed = witnesses[witnesses["instance"] == instance]
        calibration = calibrations[instance]
        limit = float(calibration["time_limit"])
        methods = _method_times(group, solved, times)
        answered = [t for t in methods.values() if t is not None]
        band = band_of(min(answered) if answered else None, limit)
        if band == "unknown":
            found.append(Calibrated(instance, None, f"no method solved it within {limit:g} s: calibrate it with a "
                                                    f"limit of {BAND_LIMITS['hard']:g} s"))
            continue
        lower = _lower_limits(group, limit)
        why = _not_placed(band, _missing(group, solvers), methods, lower, SOLVING)
        if why:
            found.append(Calibrated(instance, None, why))
            continue
        both = pd.concat([group, witnessed], ignore_index=True)
        answer, sources, why = _answer(both, pd.Series(
            [*solved[group.index], *tables.solved(witnessed)], index=both.index, dtype=bool))
        known = None
        if answer is None and band == "beyond":  # no method within the limit: the answer is known another way
            answer, sources, why = _known_answer(group)
        elif answer is not None:
            known = _known_source(group, answer)
        if answer is None:
            found.append(Calibrated(instance, None, why))
            continue
        entry = {"name": instance, "band": band, "times": methods,
                 "calibration": copy.deepcopy(dict(calibration, measure=statistics.time,
                                                   **({"limits": lower} if lower else {}))),
                 "answer": answer, "sources": sources + ([known] if known else [])}
        found.append(Calibrated(instance, entry))
    return found


def calibrate_counts(counts: pd.DataFrame, calibrations: dict[str, dict],
                     methods_of: dict[str, tuple[str, ...]]) -> list[Calibrated]:
    """One `Calibrated` counting question per instance of a table of count records (one row
    each: instance, formulation, solver, method, up_to_symmetry, complete, solutions, classes,
    digest, elapsed, known_solutions, known_classes).

    A row's ``time_limit`` (where the table has one) is the limit it was counted with: as for
    solving, a method given a lower limit than the calibration's is named in ``limits``, and one
    that did not finish within a limit below the band's lower edge leaves the question out.
    `methods_of` names the calibration's solvers and the counting methods each has (e.g.
    ``{"scip": ("nogood", "native"), "highs": ("nogood",)}``): their complete counts make the
    times (the count's own clock) and the band, and above ``easy`` every one of them must have
    counted on every formulation counted. Any other solver's count (dancing links, CP-SAT) is
    a witness: a source of the answer, never a time. Every complete count must agree on the
    solutions, the classes and the digest of the set found (`core.counting`)."""
    found = []
    for instance, group in counts.groupby("instance", sort=True):
        calibration = calibrations[instance]
        limit = float(calibration["time_limit"])
        symmetric = bool(group["up_to_symmetry"].fillna(False).astype(bool).any())
        complete = group[group["complete"].map(lambda done: done is True or done == 1)]
        answers = {(int(r.solutions), None if pd.isna(r.classes) or not symmetric else int(r.classes), r.digest)
                   for r in complete.itertuples()}
        if len(answers) > 1:
            found.append(Calibrated(instance, None, "the complete counts disagree: " + "; ".join(
                f"{s} solutions ({c} classes, digest {str(d)[:12]})" for s, c, d in sorted(answers, key=str))))
            continue
        timed = group[group["solver"].isin(methods_of)]
        times, lower = _count_times(timed, complete.index, limit)
        answered = [t for t in times.values() if t is not None]
        band = band_of(min(answered) if answered else None, limit)
        if band == "unknown" or not answers:
            found.append(Calibrated(instance, None, f"no counting method of the calibration finished within {limit:g} s"
                                    if band == "unknown" else "no count finished, and the library takes no "
                                    "count without one"))
            continue
        ran = set(zip(timed["solver"], timed["formulation"], timed["method"]))
        missing = [f"{solver}/{formulation}/{method}" for formulation in sorted(set(timed["formulation"]))
                   for solver, methods in sorted(methods_of.items()) for method in methods
                   if (solver, formulation, method) not in ran]
        why = _not_placed(band, missing, times, lower, COUNTING)
        if why:
            found.append(Calibrated(instance, None, why))
            continue
        solutions, classes, _ = answers.pop()
        answer = {"status": "optimal" if solutions else "infeasible", **({"objective": 0} if solutions else {}),
                  "solutions": solutions, **({"classes": classes} if classes is not None else {})}
        entry = {"name": instance, "question": "count", "up_to_symmetry": symmetric, "band": band, "times": times,
                 "calibration": copy.deepcopy(dict(calibration, measure="count", **({"limits": lower} if lower else {}))),
                 "answer": answer, "sources": _count_sources(group, complete, solutions, classes)}
        found.append(Calibrated(instance, entry))
    return found


def _count_sources(group: pd.DataFrame, complete: pd.DataFrame, solutions: int, classes: int | None) -> list[str]:
    """The methods whose complete counts gave the answer (each once), and the data file's known
    count where it states the same."""
    sources = [f"{r.solver}/{r.formulation}/{r.method} (complete count)"
               for r in complete.sort_values(["solver", "formulation", "method"]).itertuples()]
    known = group.iloc[0]
    stated = not pd.isna(known.get("known_solutions")) and int(known["known_solutions"]) == solutions
    if stated and (classes is None or (not pd.isna(known.get("known_classes"))
                                       and int(known["known_classes"]) == classes)):
        sources.append(f"the data file's known count ({solutions} solutions"
                       + (f", {classes} up to symmetry)" if classes is not None else ")"))
    return list(dict.fromkeys(sources))


def _count_times(timed: pd.DataFrame, complete: pd.Index, limit: float) -> tuple[dict[str, float | None], dict[str, float]]:
    """Each counting method's time (its quickest complete count; None: none finished) and the
    methods whose every count had a lower limit than the calibration's (method: that limit). A
    method counted in two stages (at 600 s, then again with the band's edge) keeps its complete count."""
    times: dict[str, float | None] = {}
    lower: dict[str, float] = {}
    for (solver, formulation, method), rows in timed.groupby(["solver", "formulation", "method"], sort=True):
        name = f"{solver}/{formulation}/{method}"
        done = rows[rows.index.isin(complete)]
        times[name] = round(float(done["elapsed"].min()), 4) if len(done) else None
        own = float(pd.to_numeric(rows["time_limit"], errors="coerce").max()) if "time_limit" in rows else limit
        if own < limit:
            lower[name] = own
    return times, lower
