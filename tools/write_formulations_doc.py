"""Writes docs/formulations.md: every registered formulation's Pyomo components (a test
checks the file is current).

    .venv/bin/python tools/write_formulations_doc.py
"""

from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "docs" / "formulations.md"

HEADER = '''# The shipped formulations' Pyomo components

A variant of a shipped formulation, written as a formulation file (`FILE.py:NAME`, see
[contract.md](contract.md#a-formulation-in-a-plain-python-file)), imports the formulation's module and
refers to its model's components by the names below. NAME in `FILE.py:NAME` is only the
label the variant's runs are filed under; it need not match anything in the file.

```python
# file: placement_at_most.py  (solve with -f placement_at_most.py:placement_at_most)
"""Placement, each piece used at most as often as it exists (the cell cover still forces
equality on an exact packing)."""

import pyomo.environ as pyo

from pyomo_puzzles.families.packing import model_placement as base

FAMILY = "packing"
model_data, decode, solution_vars = base.model_data, base.decode, base.solution_vars


def build_model() -> pyo.AbstractModel:
    model = base.build_model()
    model.del_component(model.each_piece_used_as_often_as_it_exists)

    @model.Constraint(model.PIECE_TYPES)
    def each_piece_used_at_most_as_often_as_it_exists(m, t):
        return sum(m.x[p] for p in m.PLACEMENTS_OF[t]) <= m.COPIES[t]

    return model
```

A formulation's data (`model_data`) fills its sets and parameters; `pyomo-puzzles export
INSTANCE -f NAME --format dat` writes them for one instance. The same tables for a plugin's
formulations: `pyomo-puzzles list --components`.

Written by `tools/write_formulations_doc.py` from the models themselves.

'''


def text() -> str:
    """The document, from the shipped families' models as they are now."""
    from pyomo_puzzles.core import components, registry

    shipped = {name: fam for name, fam in registry.families().items()
               if all(m.startswith("pyomo_puzzles.") for f in fam.formulations.values()
                      for m in components.hook_modules(f))}
    return HEADER + components.markdown(shipped)


def main() -> None:
    TARGET.write_text(text())
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
