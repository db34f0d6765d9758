"""What the benchmarks that compare with a git revision share: that revision checked out."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def worktree(ref: str, into: Path) -> Iterator[Path]:
    """The package and workflow at git revision `ref`, as a temporary worktree at `into`
    (removed afterwards)."""
    subprocess.run(["git", "worktree", "add", "--detach", str(into), ref], cwd=ROOT, check=True, capture_output=True)
    try:
        yield into
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(into)], cwd=ROOT, capture_output=True)
