"""The documentation site: ``sphinx-build -W -b html docs docs/_build/html`` (warnings are
errors; tests/test_docs_site.py builds it). Pages are Markdown (MyST); the reference is
generated from the code: the API from its docstrings (autodoc), the command line, the
configuration schema and the run record's fields by docs/_ext/generated.py."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "docs" / "_ext")]

from pyomo_puzzles.version import __version__  # noqa: E402 - after the path is set

project = "pyomo-puzzles"
author = "the pyomo-puzzles authors"
copyright = "2026, " + author
release = version = __version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "generated"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_ext"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
default_role = "code"  # `name` in a docstring is code, as in the Markdown pages
autodoc_member_order = "bysource"
autodoc_typehints = "description"
html_theme = "furo"
html_title = f"pyomo-puzzles {release}"
html_static_path: list[str] = []
nitpicky = False
