"""Atomic writes with the user's permissions: every output of the framework goes through here.

A file is written to a temporary name in its own folder, flushed to disk, given the mode a
plain ``open()`` would give it (``0666`` less the umask: ``0644`` by default, so a
collaborator in the same group can read the results), and renamed over the target. Readers
see the old file or the whole new one, never half of it; a failed write leaves no file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

from pyomo_puzzles.errors import UserError


class OutputError(UserError):
    """An output file cannot be written (folder missing or read-only, disk full): one line."""


def umask() -> int:
    """The process's umask (read from /proc where it can, without changing it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` to write the file at a temporary path in the target's folder
    (same suffix, so writers that go by the suffix work), then give it the umask's mode and
    rename it over `path`. Returns `path`."""
    path = Path(path)
    tmp = _temporary_beside(path)
    try:
        write(tmp)
        with open(tmp, "rb+") as written:
            os.fsync(written.fileno())
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _temporary_beside(path: Path) -> Path:
    """An empty temporary file in `path`'s folder (created if need be), or OutputError."""
    try:
        if path.is_dir():
            raise OutputError(f"cannot write {path}: it is a folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=f".tmp{path.suffix}", dir=path.parent)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    os.close(handle)
    return Path(name)


def remove_temporaries(path: str | Path) -> None:
    """Remove the temporary files a killed writer of `path` left behind (only one process
    may write `path` at a time: the pipeline holds a lock on its results folder)."""
    path = Path(path)
    for leftover in path.parent.glob(f".{path.stem}.*.tmp{path.suffix}"):
        leftover.unlink(missing_ok=True)


def check_writable(path: str | Path) -> None:
    """Refuse an output path that cannot be written before any work is done (OutputError)."""
    _temporary_beside(Path(path)).unlink()


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write `text` (UTF-8) atomically with the umask's mode."""
    return write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json_atomic(path: str | Path, data: Any) -> Path:
    """Write `data` as indented JSON atomically with the umask's mode."""
    return write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False) + "\n")


def data_file_yaml(data: dict) -> str:
    """A data file's YAML as a person reads it: keys in their order, innermost lists on one
    line (cells, sizes, a cube's faces), and a square grid's rows (n strings of n characters)
    one a line, so that the grid reads as a grid."""
    import yaml  # yaml, 30 ms: only where data files are written

    class _Dumper(yaml.SafeDumper):
        pass

    def _list(dumper: yaml.SafeDumper, items: list):
        if len(items) > 1 and all(isinstance(item, str) and len(item) == len(items) for item in items):
            rows = [yaml.ScalarNode("tag:yaml.org,2002:str", row, style='"') for row in items]
            return yaml.SequenceNode("tag:yaml.org,2002:seq", rows, flow_style=False)
        return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=None)

    _Dumper.add_representer(list, _list)
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=100, allow_unicode=True)

