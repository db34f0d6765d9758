"""examples/tutorial.ipynb runs from top to bottom in a real Jupyter kernel, and shows what
it says: a checked solution, its picture, a comparison table and figure (drawn inline: the
package did not take over matplotlib's backend), and the count of Parker Brothers' towers
(8, and 2 up to symmetry)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the [dev] extra installs nbformat")
nbclient = pytest.importorskip("nbclient", reason="the [dev] extra installs nbclient")

NOTEBOOK = Path(__file__).resolve().parents[1] / "examples" / "tutorial.ipynb"


def outputs(cell) -> list[dict]:
    return [dict(o) for o in cell.get("outputs", [])]


def text(cell) -> str:
    return "\n".join(str(o.get("data", {}).get("text/plain", o.get("text", ""))) for o in outputs(cell))


def test_the_tutorial_notebook_runs_and_shows_its_results(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert not [o for cell in code for o in outputs(cell) if o["output_type"] == "error"]
    assert "'packing'" in text(code[0])
    solved = next(cell for cell in code if cell.source.startswith("record = pp.solve"))
    assert text(solved).startswith("('optimal', True, 'HiGHS")
    pictures = [cell for cell in code if "record.picture" in cell.source]
    assert any("image/png" in o.get("data", {}) for o in outputs(pictures[0]))
    assert (tmp_path / "l_tromino_cube.png").is_file()
    table = next(cell for cell in code if "pivot_table" in cell.source)
    assert all(f"challenge_{n}" in text(table) for n in (19, 20, 21, 22))
    figure = next(cell for cell in code if "ax.legend" in cell.source)
    assert any("image/png" in o.get("data", {}) for o in outputs(figure)), "the figure was not drawn inline"
    counted = next(cell for cell in code if "pp.count" in cell.source)
    assert text(counted) == "(True, 8, 2)"
