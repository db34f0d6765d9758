"""The README and the tutorial, run as written: every file a page shows (a ``yaml`` or
``python`` block whose first line is ``# file: PATH``) is written, every command of its
``console`` blocks (``$ ...``) is run in page order, and the output lines the page shows
under a command must appear in what it printed.

A block the suite cannot run is preceded by ``<!-- not run: REASON -->`` (the set-up
commands, which run the suite itself); any other ``bash``, ``python`` or ``console`` block is
an error, so that no example of these pages goes unchecked. ``export`` lines are the
reader's set-up: the test sets the same variables itself."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from plugin_env import PluginEnv

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- not run: (?P<reason>[^>]*?) -->\n)?```(?P<language>\w*)\n(?P<body>.*?)```", re.S)
TOOLS = {"pyomo-puzzles": "-m pyomo_puzzles", "pip": "-m pip", "pytest": "-m pytest -p no:cacheprovider",
         "snakemake": "-m snakemake", "python": ""}
RUN_LANGUAGES = ("console", "bash", "python", "yaml")
"""Blocks that are files or commands; other languages (latex, text) are shown, not run."""


@dataclass
class Step:
    kind: str  # "file" or "run"
    what: str  # the file's path, or the command
    lines: list[str] = field(default_factory=list)  # the file's text, or the output lines shown


def steps(text: str, page: str) -> tuple[list[Step], list[str]]:
    """The page's steps in order, and the reasons of the blocks it marks as not run."""
    found, not_run = [], []
    for match in BLOCK.finditer(text):
        language, body = match["language"], match["body"]
        lines = body.splitlines()
        if match["reason"] is not None:
            assert match["reason"].strip(), f"{page}: a block marked 'not run' says no reason"
            not_run.append(match["reason"])
        elif language in ("yaml", "python") and lines and lines[0].startswith("# file: "):
            found.append(Step("file", lines[0].removeprefix("# file: "), ["\n".join(lines[1:]) + "\n"]))
        elif language == "console":
            for line in lines:
                if line.startswith("$ "):
                    found.append(Step("run", line[2:]))
                elif line.strip():
                    found[-1].lines.append(line.strip())
        elif language in RUN_LANGUAGES and language != "yaml":
            raise AssertionError(f"{page}: a {language} block that is neither a '# file:' nor a console block, "
                                 f"nor marked '<!-- not run: reason -->':\n{body[:200]}")
    return found, not_run


def shims(folder: Path, python: Path) -> Path:
    """The commands of the pages as the reader has them, in the given Python environment."""
    folder.mkdir()
    for name, module in TOOLS.items():
        path = folder / name
        path.write_text(f'#!/bin/sh\nexec "{python}" {module} "$@"\n')
        path.chmod(0o755)
    return folder


def run_pages(pages: list[Path], work: Path, python: Path, bin_dir: Path) -> int:
    """Every step of `pages`, in order, in `work`: the number of commands run."""
    variables = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{python.parent}{os.pathsep}{os.environ['PATH']}",
                 "PYOMO_PUZZLES": str(ROOT), "PIP_NO_BUILD_ISOLATION": "0", "PYTHONWARNINGS": "ignore"}
    variables.pop("PYTHONPATH", None)
    ran = 0
    for page in pages:
        found, _ = steps(page.read_text(), page.name)
        for step in found:
            if step.kind == "file":
                (work / step.what).parent.mkdir(parents=True, exist_ok=True)
                (work / step.what).write_text(step.lines[0])
                continue
            if step.what.startswith("export "):
                continue
            done = subprocess.run(["bash", "-c", step.what], cwd=work, capture_output=True, text=True,
                                  env=variables, timeout=900)
            assert done.returncode == 0, f"{page.name}: $ {step.what}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            for line in step.lines:
                assert line in done.stdout, \
                    f"{page.name}: $ {step.what}: the page shows {line!r}; the output was:\n{done.stdout[-2000:]}"
            ran += 1
    return ran


def test_the_tutorial_runs_as_written(tmp_path):
    """Parts 2 and 3 of the tutorial, one after the other in one folder: a family of one's own
    with two formulations (docs/writing_a_family.md), then its experiment carried into LaTeX
    (docs/tutorial/thesis.md)."""
    env = PluginEnv(tmp_path / "env")
    work = tmp_path / "work"
    work.mkdir()
    pages = [ROOT / "docs" / "writing_a_family.md", ROOT / "docs" / "tutorial" / "thesis.md"]
    ran = run_pages(pages, work, env.python, shims(tmp_path / "bin", env.python))
    assert ran >= 14
    assert (work / "results" / "report.md").is_file() and (work / "knuth.png").is_file()
    assert (work / "results" / "figures" / "runtime.png").is_file()  # a figure of the reader's own family


def test_the_first_experiment_runs_as_written(tmp_path):
    """Part 1: from an empty folder to the figures of a configured experiment."""
    import sys

    work = tmp_path / "work"
    work.mkdir()
    python = Path(sys.executable)
    ran = run_pages([ROOT / "docs" / "tutorial" / "first_experiment.md"], work, python,
                    shims(tmp_path / "bin", python))
    assert ran >= 4 and (work / "results" / "first" / "figures" / "runtime.pdf").is_file()


def _working_tree_copy(destination: Path) -> Path:
    """The repository's files as a clone of the working tree has them (tracked and new, not
    ignored): where the README's commands run."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def test_the_readme_runs_as_written(tmp_path):
    """The README's tour, in a copy of the clone; its set-up commands are marked as not run."""
    import sys

    if shutil.which("git") is None:
        pytest.skip("git not installed")
    readme = ROOT / "README.md"
    found, not_run = steps(readme.read_text(), "README.md")
    assert not_run and all("suite" in reason for reason in not_run)
    clone = _working_tree_copy(tmp_path / "clone")
    python = Path(sys.executable)
    ran = run_pages([readme], clone, python, shims(tmp_path / "bin", python))
    assert ran == sum(step.kind == "run" for step in found) >= 5
    assert (clone / "challenge_19.png").stat().st_size > 0


def test_every_readme_link_into_the_documentation_names_a_page():
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#]+\.(?:md|png))(?:#[^)]*)?\)", readme)
    assert targets and all((ROOT / target).is_file() for target in targets), targets
    assert len(readme.splitlines()) <= 150
