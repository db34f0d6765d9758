"""A throwaway Python environment layered on the project's: plugins are installed into it
with pip, as a user would (``pip install -e DIR``), without touching the project's own
environment (whose family list the other tests rely on)."""

from __future__ import annotations

import os
import subprocess
import sysconfig
import venv
from pathlib import Path


class PluginEnv:
    """`python` sees the project's packages and whatever was `install`ed into this env."""

    def __init__(self, root: Path, without: tuple[str, ...] = ()) -> None:
        """`without`: distributions of the project's environment this one does not have
        (e.g. the optional extras' ``ortools``): their packages and metadata are left out."""
        venv.EnvBuilder(with_pip=False).create(root)
        self.python = root / "bin" / "python"
        site = subprocess.run([self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        project_site = Path(sysconfig.get_paths()["purelib"])  # the project's environment (running the tests)
        if without:
            project_site = _site_without(project_site, root / "project-site", without)
        Path(site, "_project_environment.pth").write_text(f"import site; site.addsitedir({str(project_site)!r})\n")

    def install(self, folder: Path) -> None:
        """``pip install -e folder`` (offline: the project's setuptools builds it)."""
        self.run("-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", str(folder),
                 check=True)

    def run(self, *args: str, cwd: Path | None = None, check: bool = False, timeout: float = 600,
            extra_env: dict | None = None) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONWARNINGS": "ignore", **(extra_env or {})}
        env.pop("PYTHONPATH", None)
        result = subprocess.run([str(self.python), *args], cwd=cwd, capture_output=True, text=True, env=env,
                                timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        return result

    def cli(self, *args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
        return self.run("-m", "pyomo_puzzles", *args, cwd=cwd, timeout=timeout)




def _site_without(site: Path, copy: Path, names: tuple[str, ...]) -> Path:
    """A folder of links to every entry of `site` except the distributions `names` (their
    top-level packages, ``.libs`` folders and ``.dist-info``)."""
    copy.mkdir()
    for entry in site.iterdir():
        stem = entry.name.split("-")[0].split(".")[0].lower()
        if stem in names:
            continue
        (copy / entry.name).symlink_to(entry)
    return copy
