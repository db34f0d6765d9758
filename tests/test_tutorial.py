"""docs/writing_a_family.md, run as written: every file it shows is written, every command
it shows is run in order in an empty folder, and the output lines it shows must appear.
`export` lines are the reader's set-up; the test sets the same variables itself."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from plugin_env import PluginEnv

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "writing_a_family.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)
TOOLS = {"pyomo-puzzles": "-m pyomo_puzzles", "pip": "-m pip", "pytest": "-m pytest -p no:cacheprovider",
         "snakemake": "-m snakemake", "python": ""}


def steps(text: str) -> list[tuple[str, str, list[str]]]:
    """('file', path, [content]) and ('run', command, [expected output lines]) in page order."""
    found = []
    for language, body in BLOCK.findall(text):
        lines = body.splitlines()
        if language in ("yaml", "python") and lines and lines[0].startswith("# file: "):
            found.append(("file", lines[0].removeprefix("# file: "), ["\n".join(lines[1:]) + "\n"]))
        elif language == "console":
            for line in lines:
                if line.startswith("$ "):
                    found.append(("run", line[2:], []))
                elif line.strip():
                    found[-1][2].append(line.strip())
    return found


def shims(folder: Path, python: Path) -> Path:
    """The commands of the page as the reader has them, in the plugin environment."""
    folder.mkdir()
    for name, module in TOOLS.items():
        path = folder / name
        path.write_text(f'#!/bin/sh\nexec "{python}" {module} "$@"\n')
        path.chmod(0o755)
    return folder


def test_the_tutorial_runs_as_written(tmp_path):
    env = PluginEnv(tmp_path / "env")
    work = tmp_path / "work"
    work.mkdir()
    bin_dir = shims(tmp_path / "bin", env.python)
    variables = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{env.python.parent}{os.pathsep}{os.environ['PATH']}",
                 "PYOMO_PUZZLES": str(ROOT), "PIP_NO_BUILD_ISOLATION": "0", "PYTHONWARNINGS": "ignore"}
    variables.pop("PYTHONPATH", None)
    ran = 0
    for kind, what, extra in steps(TUTORIAL.read_text()):
        if kind == "file":
            (work / what).parent.mkdir(parents=True, exist_ok=True)
            (work / what).write_text(extra[0])
            continue
        if what.startswith("export "):
            continue
        done = subprocess.run(["bash", "-c", what], cwd=work, capture_output=True, text=True, env=variables,
                              timeout=900)
        assert done.returncode == 0, f"$ {what}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        for line in extra:
            assert line in done.stdout, f"$ {what}: the page shows {line!r}; the output was:\n{done.stdout[-2000:]}"
        ran += 1
    assert ran >= 10
    assert (work / "results" / "report.md").is_file() and (work / "knuth.png").is_file()
