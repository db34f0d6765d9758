"""An instance's known answer, where each of its figures comes from, and what a run or a
count says against it.

The known answer is the data file's ``known:`` (``solvable``, ``solutions: 0`` for none,
``objective``, ``solutions``, ``solutions_up_to_symmetry``), else the family's
``known_objective`` hook, else the benchmark library's reference answer (`core.library`).
Each figure carries its source, a file and a field, for messages.

A checked solution is a certificate: a solution the checker passed on an instance known to
have none, one whose objective, recomputed by the family's objective hook, is strictly better
than the known optimum (by the run's objective sense, beyond `OBJECTIVE_TOLERANCE`), or a
count that found more distinct checked solutions than known, proves the known figure wrong.
That is a data problem, not a wrong run. An objective nobody checked (a family without an
objective hook: the solver's claim) proves nothing. An answer that proves nothing (infeasible
where a solution is known, an optimum worse or, unchecked, better than the known one, a
complete count below it) disagrees with the known answer: one of the two is wrong, and the
run's answer is the one without a proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from pyomo_puzzles.core import library, registry
from pyomo_puzzles.core.instances import Instance
from pyomo_puzzles.core.stated import (OBJECTIVE_TOLERANCE, Known, KnownCount, close, field_of, stated_answer,
                                       stated_count)
from pyomo_puzzles.errors import quoted

__all__ = ["AGREE", "CERTIFICATE", "MISMATCH", "OBJECTIVE_TOLERANCE", "Known", "KnownCount", "UNCHECKED_OBJECTIVE",
           "Verdict", "against", "better", "better_solution", "close", "field_of", "judge", "judge_count",
           "known_answer", "known_count", "run_claim", "source", "stated_answer", "stated_count"]

AGREE, MISMATCH, CERTIFICATE = "agree", "mismatch", "certificate"
"""A run's verdict on one known figure: agrees; contradicts it without proof; proves it wrong."""


@dataclass(frozen=True)
class Verdict:
    """A run's answer against one known figure (``solvable`` or ``objective``)."""

    figure: str
    kind: str  # AGREE, MISMATCH or CERTIFICATE


# --- where the known answer comes from ---------------------------------------------------------

def known_answer(instance: Instance, use_library: bool = True) -> Known:
    """The instance's known solvability and optimum: its data file's, its family's
    ``known_objective`` hook's, else (`use_library`) the benchmark library's reference answer."""
    stated = stated_answer(instance.raw.get("known"), instance.path)
    objective, objective_from = stated.objective, stated.objective_from
    if objective is None:
        objective = instance.family.known_objective(instance.spec)
        hook = f"{instance.path}: the known_objective hook of the family {quoted(instance.family.name)}"
        objective_from = hook if objective is not None else None
    solvable, solvable_from = stated.solvable, stated.solvable_from
    reference = _library_entry(instance, "solve") if use_library else None
    if reference is not None:
        entry, where = reference
        if solvable is None:
            solvable, solvable_from = entry.answer.status == "optimal", where("answer.status")
        if objective is None and entry.answer.objective is not None:
            objective, objective_from = entry.answer.objective, where("answer.objective")
    return Known(solvable, solvable_from, objective, objective_from)


def has_objective_hook(family: registry.Family) -> bool:
    """Whether the family gives a `known_objective` hook of its own (the default knows none)."""
    return family.known_objective is not registry.Family.known_objective


def known_count(instance: Instance, up_to_symmetry: bool, use_library: bool = True) -> KnownCount:
    """The instance's known number of solutions (and of classes, when counting up to
    symmetry): its data file's, else (`use_library`) the benchmark library's reference count."""
    stated = stated_count(instance.raw.get("known"), instance.path, up_to_symmetry)
    reference = _library_entry(instance, "count", up_to_symmetry) if stated.solutions is None and use_library else None
    if reference is None:
        return stated
    entry, where = reference
    classes = entry.answer.classes if up_to_symmetry else None
    return KnownCount(entry.answer.solutions, where("answer.solutions"), classes,
                      where("answer.classes") if classes is not None else None)


def _library_entry(instance: Instance, question: str, up_to_symmetry: bool = False):
    """The library's entry asking `question` of the instance, and a function naming one of
    its fields in its catalogue; None where the library has no such entry. A count of all
    solutions may come from an entry that counts classes (it states all the solutions too)."""
    found = (library.reference_answer(instance.name) if question == "solve"
             else library.reference_count(instance.name, up_to_symmetry))
    if found is None:
        return None
    family = instance.family
    entries = library.read_catalogue(family.name, family.library)  # cached: the entries `found` came from
    index = next(i for i, e in enumerate(entries) if e.answer is found)
    return entries[index], lambda field: field_of(entries[index].catalogue, f"instances[{index}].{field}")


# --- a run against it -----------------------------------------------------------------------------

def _number(value: object) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def better(objective: float, than: float, sense: str | None) -> bool:
    """Whether `objective` is better than `than` beyond the tolerance, for the sense."""
    tolerance = OBJECTIVE_TOLERANCE * max(1.0, abs(than))
    return objective < than - tolerance if sense == "minimize" else objective > than + tolerance


def judge(known: Known, status: str | None, checked: bool, objective: float | None, sense: str | None,
          objective_checked: bool = False) -> list[Verdict]:
    """The run's answer against each known figure. Only a solution the checker passed
    (`checked`) can be a certificate, whatever the run's status, and against the known optimum
    only if its objective was recomputed by the family's hook (`objective_checked`); otherwise
    only answers are judged: ``optimal`` (a solution, or the optimum) and ``infeasible``
    (none). An optimal run without an objective value is judged on solvability only."""
    verdicts = []
    objective = _number(objective)
    if known.solvable is not None:
        if checked and known.solvable is False:
            verdicts.append(Verdict("solvable", CERTIFICATE))
        elif status in ("optimal", "infeasible"):
            verdicts.append(Verdict("solvable", AGREE if (status == "optimal") == known.solvable else MISMATCH))
    target = _number(known.objective)
    if not math.isnan(target):
        if (checked and objective_checked and sense in ("minimize", "maximize") and not math.isnan(objective)
                and better(objective, target, sense)):
            verdicts.append(Verdict("objective", CERTIFICATE))
        elif status == "infeasible":
            verdicts.append(Verdict("objective", MISMATCH))
        elif status == "optimal" and not math.isnan(objective):
            verdicts.append(Verdict("objective", AGREE if close(objective, target) else MISMATCH))
    return verdicts


def source(known: Known, figure: str) -> str:
    """Where the known figure comes from, or a plain name for it where that is not recorded."""
    return (known.solvable_from if figure == "solvable" else known.objective_from) or "the instance's known answer"


def against(known: Known, figure: str, but: str) -> str:
    """One line: where the known figure comes from, what it states, and `but` what a run shows
    ("FILE: field 'known.objective' states the optimum 15, but ...")."""
    if figure == "objective":
        states = f"the optimum {_number(known.objective):g}"
    else:
        states = "a solution" if known.solvable else "no solution"
    return f"{source(known, figure)} states {states}, but {but}"


def better_solution(objective: float, sense: str | None) -> str:
    """A checked solution better than the known optimum, in words: "a checked solution with the larger objective 20"."""
    return f"a checked solution with the {'smaller' if sense == 'minimize' else 'larger'} objective {_number(objective):g}"


def run_claim(status: str | None, objective: float | None, objective_checked: bool | None = None) -> str:
    """What a run's answer says, in words: "says infeasible", "claims the optimum 15", and
    where its objective was not checked, "claims the optimum 15 (the solver's claim: ...)"."""
    if status == "infeasible":
        return "says infeasible"
    return f"claims the optimum {_number(objective):g}" + ("" if objective_checked else f" ({UNCHECKED_OBJECTIVE})")


UNCHECKED_OBJECTIVE = "the solver's claim: the family has no objective hook to check it"
"""What an objective nobody recomputed is, in words."""


# --- a count against it ---------------------------------------------------------------------------

@dataclass(frozen=True)
class CountVerdict:
    """A count against the known count: whether it agrees (None: an incomplete count that
    found no more than known), and the line saying why not, a data problem (it found more)
    or a disagreement (complete, and fewer)."""

    agrees: bool | None = None
    data_problem: str | None = None
    disagreement: str | None = None


def judge_count(known: KnownCount, complete: bool, solutions: int, classes: int | None, who: str) -> CountVerdict:
    """`who` found `solutions` (and `classes`), checked and distinct, in a count that
    finished or not. More than known is a certificate that the known figure is wrong."""
    figures = [(solutions, known.solutions, known.solutions_from, ""),
               (classes, known.classes, known.classes_from, " up to symmetry")]
    figures = [f for f in figures if f[0] is not None and f[1] is not None]
    for found, count, where, up_to in figures:
        if found > count:
            return CountVerdict(False, f"{where} states {_solutions(count)}{up_to}, but {who} found {found}"
                                       + ("" if complete else " before it stopped"))
    if not figures or not complete:
        return CountVerdict()
    for found, count, where, up_to in figures:
        if found != count:
            return CountVerdict(False, disagreement=f"{where} states {_solutions(count)}{up_to}, but {who} finished "
                                                    f"with {found}")
    return CountVerdict(True)


def _solutions(count: int) -> str:
    return f"{count} solution" + ("" if count == 1 else "s")
