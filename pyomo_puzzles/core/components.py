"""The Pyomo components of a formulation's model (sets, parameters, variables, constraints,
objectives): what a variant written as a formulation file refers to by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KINDS = ("Set", "Param", "Var", "Constraint", "Objective")


@dataclass(frozen=True)
class ModelComponent:
    kind: str
    """One of `KINDS`."""
    name: str
    index: str
    """The sets it is indexed by, joined by ' × ' ('' if it is not indexed)."""
    doc: str


def model_components(formulation: Any) -> list[ModelComponent]:
    """The components `formulation.build_model()` declares, kind by kind, in declaration order."""
    import pyomo.environ as pyo  # 0.3 s: the CLI imports this module for `--help` too

    model = formulation.build_model()
    found = []
    for kind in KINDS:
        for component in model.component_objects(getattr(pyo, kind), descend_into=True):
            found.append(ModelComponent(kind, component.name, _index(component), " ".join((component.doc or "").split())))
    return found


def _index(component: Any) -> str:
    if not component.is_indexed():
        return ""
    index = component.index_set()
    parts = index.subsets() if hasattr(index, "subsets") else [index]
    return " × ".join(part.name for part in parts)


def markdown(families: dict) -> str:
    """A section per family, a table per formulation: every component's kind, name, index
    and description (what `docs/formulations.md` is made of)."""
    lines = []
    for family in families.values():
        lines += [f"## {family.name}", ""]
        for formulation in family.formulations.values():
            hooks = ", ".join(f"`{hook}`" for hook in hook_modules(formulation))
            lines += [f"### {family.name} / {formulation.name}", "", formulation.summary, ""]
            lines += [f"Hooks from: {hooks}", ""] if hooks else []
            lines += ["| kind | name | indexed by | meaning |", "|---|---|---|---|"]
            lines += [f"| {c.kind} | `{c.name}` | {c.index} | {c.doc} |" for c in model_components(formulation)]
            lines.append("")
    return "\n".join(lines) + "\n"


def hook_modules(formulation: Any) -> list[str]:
    """The modules that define the formulation's hooks, e.g. ``pyomo_puzzles.families.x.model_y``."""
    modules = [getattr(getattr(formulation, hook, None), "__module__", None)
               for hook in ("build_model", "model_data", "decode")]
    return list(dict.fromkeys(m for m in modules if m))
