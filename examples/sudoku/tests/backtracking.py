"""An independent Sudoku solver for the tests' ground truth: depth-first search over the
cell with the fewest candidates, in plain Python (no solver, no code of the plugin)."""

from __future__ import annotations

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZa"  # the data files' digits: 1-9, then A = 10 ... Z = 35, a = 36


def solutions(grid: list[str], box: int = 3, up_to: int = 2) -> list[str]:
    """Up to `up_to` completions of `grid` (rows of symbols, '.' or '0' empty), each as one string."""
    n = box * box
    cells = [0 if ch in ".0" else SYMBOLS.index(ch) + 1 for row in grid for ch in row]
    units = _units(box)
    peers = [sorted({p for u in units if i in u for p in u} - {i}) for i in range(n * n)]
    for i, value in enumerate(cells):
        if value and any(cells[p] == value for p in peers[i]):
            return []
    found: list[str] = []

    def search() -> None:
        best, best_options = None, None
        for i, value in enumerate(cells):
            if value:
                continue
            options = set(range(1, n + 1)) - {cells[p] for p in peers[i]}
            if best_options is None or len(options) < len(best_options):
                best, best_options = i, options
                if not options:
                    return
        if best is None:
            found.append("".join(SYMBOLS[v - 1] for v in cells))
            return
        for value in sorted(best_options):
            cells[best] = value
            search()
            cells[best] = 0
            if len(found) >= up_to:
                return

    search()
    return found


def _units(box: int) -> list[set[int]]:
    n = box * box
    rows = [{r * n + c for c in range(n)} for r in range(n)]
    cols = [{r * n + c for r in range(n)} for c in range(n)]
    boxes = [{(br * box + r) * n + bc * box + c for r in range(box) for c in range(box)}
             for br in range(box) for bc in range(box)]
    return rows + cols + boxes
