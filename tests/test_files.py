"""Outputs are written atomically and with the user's umask (0644 by default), so a
collaborator in the same group can read them; a failed write leaves nothing behind."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from pyomo_puzzles.core import files


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def user_umask():
    def set_mask(mask: int) -> None:
        os.umask(mask)
    before = os.umask(0o022)
    os.umask(before)
    yield set_mask
    os.umask(before)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600), (0o002, 0o664)])
def test_a_written_file_has_the_umask_mode(tmp_path, user_umask, mask, expected):
    user_umask(mask)
    assert files.umask() == mask
    files.write_json_atomic(tmp_path / "a" / "record.json", {"x": 1})
    assert mode(tmp_path / "a" / "record.json") == expected
    assert json.loads((tmp_path / "a" / "record.json").read_text()) == {"x": 1}


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "table.csv"
    files.write_text_atomic(target, "old\n")

    def half_then_fail(tmp):
        tmp.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        files.write_atomic(target, half_then_fail)
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["table.csv"]


def test_the_cli_writes_records_and_pictures_with_the_umask(tmp_path):
    script = ("import os, sys; os.umask(0o027); from pyomo_puzzles.cli import main; "
              "sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", script, "solve", "packing/l_tromino_cube",
                           "-o", str(tmp_path / "r.json"), "--picture", str(tmp_path / "p.png")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert mode(tmp_path / "r.json") == 0o640 and mode(tmp_path / "p.png") == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.png", "r.json"]


def test_data_files_are_written_as_a_person_reads_them():
    """A square grid's rows one a line (quoted: a row may start with '...', YAML's document end),
    innermost lists on one line, and the text reads back as the same data."""
    from pyomo_puzzles.core.files import data_file_yaml

    data = {"puzzle": "p", "grid": ["...1", "2.3.", "4...", "1234"], "cubes": [["red", "green"], ["blue", "red"]],
            "board": {"size": [4, 5], "holes": [[0, 0], [1, 2]]}, "colours": ["red", "green", "blue"]}
    text = data_file_yaml(data)
    assert yaml.safe_load(text) == data
    assert '\ngrid:\n- "...1"\n- "2.3."\n- "4..."\n- "1234"\n' in text
    assert "- [red, green]" in text and "size: [4, 5]" in text and "colours: [red, green, blue]" in text
