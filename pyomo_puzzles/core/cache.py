"""A disk cache for what is slow to compute and the same in every process (a cube's
pattern distances, the check that a family's schema is a valid JSON Schema): computed once
per machine instead of once per run.

Each entry is a folder of ``.npy`` files named by a digest of everything the table depends
on (the caller's key: its inputs, arrays included, and the source of the function that
computes it), so a change of any input is a new entry, never a stale one. Entries are read
memory-mapped and read-only. The folder is ``$PYOMO_PUZZLES_CACHE``, else
``$XDG_CACHE_HOME/pyomo-puzzles``, else ``~/.cache/pyomo-puzzles``; ``PYOMO_PUZZLES_CACHE=off``
turns the cache off. A cache that cannot be read or written is skipped: the table is then
computed as if there were no cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from pyomo_puzzles.core.files import umask

if TYPE_CHECKING:
    import numpy as np

CACHE_VARIABLE = "PYOMO_PUZZLES_CACHE"


def folder() -> Path | None:
    """The cache folder (None: the cache is off)."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen:
        return None if chosen == "off" else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pyomo-puzzles"


def digest(*parts: object) -> str:
    """A digest of `parts`: arrays by their dtype, shape and bytes, anything else by repr."""
    numpy = sys.modules.get("numpy")  # not imported: no part is an array
    hashed = hashlib.sha256()
    for part in parts:
        if numpy is not None and isinstance(part, numpy.ndarray):
            hashed.update(f"array {part.dtype.str} {part.shape}".encode())
            hashed.update(numpy.ascontiguousarray(part).tobytes())
        else:
            hashed.update(repr(part).encode())
        hashed.update(b"\0")
    return hashed.hexdigest()[:32]


def arrays(name: str, key: tuple, compute: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays `compute()` returns, from the cache entry ``name-digest(key)`` if there is
    one, else computed and stored there."""
    root = folder()
    if root is None:
        return compute()
    entry = root / f"{name}-{digest(*key)}"
    found = _read(entry)
    if found is not None:
        return found
    shutil.rmtree(entry, ignore_errors=True)  # an entry that cannot be read is replaced
    tables = compute()
    _store(entry, tables)
    return tables


def once(name: str, key: tuple, check: Callable[[], None]) -> None:
    """Call `check()` unless it returned for the same key before (an exception it raises
    passes through and is not remembered)."""
    root = folder()
    marker = None if root is None else root / f"{name}-{digest(*key)}"
    if marker is not None and marker.exists():
        return
    check()
    if marker is not None:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass


def _read(entry: Path) -> dict[str, np.ndarray] | None:
    import numpy as np  # numpy: the registry imports this module and stays free of numpy

    try:
        names = sorted(p for p in os.listdir(entry) if p.endswith(".npy"))
        if not names:
            return None
        return {p[:-4]: np.load(entry / p, mmap_mode="r", allow_pickle=False) for p in names}
    except (OSError, ValueError):  # no entry yet, or one that cannot be read: compute
        return None


def _store(entry: Path, tables: dict[str, np.ndarray]) -> None:
    """Write the entry under a temporary name and rename it into place, so a reader sees a
    whole entry or none (two processes computing the same entry: the first rename wins)."""
    import numpy as np  # see _read

    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=entry.parent))
    except OSError:
        return
    try:
        for table, values in tables.items():
            np.save(staging / f"{table}.npy", values, allow_pickle=False)
            os.chmod(staging / f"{table}.npy", 0o666 & ~umask())
        os.chmod(staging, 0o777 & ~umask())
        os.rename(staging, entry)
    except OSError:
        pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
