"""Where a results folder's software came from: the lock file the environment was installed
from (its digest, and whether the installed packages are the locked ones), the
distribution packages of the solver executables, and where pyomo-puzzles itself and each
plugin were installed from (the git commit, and whether there are uncommitted changes).

The set-up (`bootstrap.sh`) installs the exact versions of ``uv.lock`` at the project's top
level. An environment made another way (``pip install`` into one's own environment, a
package added by hand) is recorded as what it is: the packages whose installed version is
not a locked one, and those the lock does not list.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

LOCK_FILE = Path(__file__).resolve().parents[1] / "uv.lock"
"""The lock of the project this package was installed from (absent for an installed wheel)."""


def normalized(name: str) -> str:
    """A distribution's name as package indexes compare them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_digest(path: Path = LOCK_FILE) -> str | None:
    """The SHA-256 of the lock file, or None where there is none."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def locked_versions(path: Path = LOCK_FILE) -> dict[str, set[str]]:
    """Every package of the lock with its locked versions (more than one where the lock
    resolves differently for other Python versions or platforms)."""
    with path.open("rb") as handle:
        lock = tomllib.load(handle)
    versions: dict[str, set[str]] = {}
    for package in lock.get("package", []):
        if "version" in package:  # the project itself has a dynamic version
            versions.setdefault(normalized(package["name"]), set()).add(package["version"])
    return versions


def installed_versions() -> dict[str, str]:
    """Every distribution this process imports from, by normalized name: where one is
    installed twice on the path (an environment layered on another), the one imports find."""
    versions: dict[str, str] = {}
    for distribution in metadata.distributions():
        name = distribution.metadata["Name"]
        if name:
            versions.setdefault(normalized(name), distribution.version)
    return versions


def lock_facts(path: Path = LOCK_FILE) -> dict | None:
    """The lock file, its digest and how the installed packages stand against it; None
    where the package was not installed from a project with a lock."""
    digest = lock_digest(path)
    if digest is None:
        return None
    locked, installed = locked_versions(path), installed_versions()
    own = normalized("pyomo-puzzles")
    not_as_locked = {name: {"installed": version, "locked": sorted(locked[name])}
                     for name, version in sorted(installed.items())
                     if name in locked and version not in locked[name]}
    not_in_lock = {name: version for name, version in sorted(installed.items())
                   if name not in locked and name != own}
    return {"file": str(path), "sha256": digest, "installed_as_locked": not (not_as_locked or not_in_lock),
            "not_as_locked": not_as_locked, "not_in_lock": not_in_lock}


def git_facts(folder: Path) -> dict:
    """The commit of the git work tree that holds `folder`, and whether files under `folder`
    differ from it (both None where it is in no work tree, or in one that ignores it, as a
    project's ``.venv`` is ignored by the project, or where git is missing)."""
    commit = _git(folder, "rev-parse", "HEAD")
    if commit is None or _git(folder, "check-ignore", "-q", ".") is not None:
        return {"commit": None, "uncommitted_changes": None}
    changes = _git(folder, "status", "--porcelain", "--", ".")
    return {"commit": commit, "uncommitted_changes": None if changes is None else bool(changes)}


def framework_facts(version: str) -> dict:
    """pyomo-puzzles itself: its `version`, the folder its code is imported from, and where that
    folder is in a git work tree (a clone, an editable install) its commit and whether its
    files differ from it, or where pip installed it from a git URL that commit. The version
    alone (0.1.0) does not change between commits."""
    folder = Path(__file__).resolve().parent
    try:
        source = installed_from(metadata.distribution("pyomo-puzzles"))
    except metadata.PackageNotFoundError:
        source = {"installed_from": None, "editable": None, "commit": None}
    git = git_facts(folder)
    return {"version": version, "folder": str(folder), "commit": git["commit"] or source["commit"],
            "uncommitted_changes": git["uncommitted_changes"], "installed_from": source["installed_from"],
            "editable": source["editable"]}


def _git(folder: Path, *args: str) -> str | None:
    """git's output in `folder`, or None where it fails (no work tree, no git)."""
    try:
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def installed_from(distribution: metadata.Distribution) -> dict:
    """Where pip installed a distribution from (its ``direct_url.json``, PEP 610): the URL,
    whether the install is editable, and the commit of a git URL (None where pip says
    nothing, as for a package index's)."""
    try:
        direct = json.loads(distribution.read_text("direct_url.json") or "{}")
    except ValueError:
        direct = {}
    if not isinstance(direct, dict):
        direct = {}
    return {"installed_from": direct.get("url"),
            "editable": bool((direct.get("dir_info") or {}).get("editable")) if "url" in direct else None,
            "commit": (direct.get("vcs_info") or {}).get("commit_id")}


def executable_facts(command: str) -> dict | None:
    """The path of an executable on PATH and, where Debian's dpkg knows the file, its
    package and the package's version; None if it is not on PATH."""
    found = shutil.which(command)
    if found is None:
        return None
    path = str(Path(found).resolve())
    facts = {"path": path, "package": None, "version": None}
    if shutil.which("dpkg-query") is None:
        return facts
    owner = _dpkg_query("-S", found) or _dpkg_query("-S", path)  # dpkg knows one of the two names
    if owner and ":" in owner:
        package = owner.split(":", 1)[0].strip()
        facts.update(package=package, version=_dpkg_query("-W", "-f=${Version}", package) or None)
    return facts


def _dpkg_query(*args: str) -> str:
    try:
        done = subprocess.run(["dpkg-query", *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else ""
