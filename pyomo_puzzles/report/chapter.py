"""The experiment as a LaTeX chapter for a thesis: ``latex/chapter.tex`` inputs every table
and includes every figure with its caption; ``latex/experiment.tex`` is a document around it
(the figures' text width, the packages the tables need), compiled to ``experiment.pdf`` by
latexmk where TeX is installed (`compile_chapter`).

A thesis takes the chapter as it is: ``\\newcommand{\\experimentroot}{path/to/results/}``
before ``\\input{path/to/results/latex/chapter}`` says where the tables and figures are
(the default, ``../``, is the results folder seen from ``latex/``). The preamble needs
``booktabs`` and ``graphicx``.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from pyomo_puzzles.core.files import write_text_atomic
from pyomo_puzzles.report import page, tables
from pyomo_puzzles.report.measure import DEFAULT, Statistics

TABLE_ORDER = ("summary", "family_*", "scores_*", "variability", "models", "comparison")
"""The tables of ``tables/`` the chapter inputs, in its order (globs over their stems)."""

CHAPTER, DOCUMENT = "chapter.tex", "experiment.tex"


def markdown_to_latex(text: str) -> str:
    """A line of the report's Markdown (``code``, *emphasis*) as LaTeX text, escaped."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"\\texttt{{{tables.latex_escape(part[1:-1])}}}")
        else:
            escaped = re.sub(r"\*\*([^*]+)\*\*", r"\\textbf{\1}", tables.latex_escape(part))
            out.append(re.sub(r"\*([^*]+)\*", r"\\emph{\1}", escaped))
    return "".join(out)


def chapter_tables(table_dir: Path) -> list[Path]:
    """The tables the chapter inputs, in `TABLE_ORDER` (a file that holds no table, such as
    the models table of an experiment that measured none, is left out)."""
    found: list[Path] = []
    for pattern in TABLE_ORDER:
        found += [path for path in sorted(table_dir.glob(f"{pattern}.tex"))
                  if path not in found and "\\begin{table}" in path.read_text()]
    return found


def _figure_block(stem: str, caption: str | None) -> list[str]:
    return ["\\begin{figure}[htbp]", "  \\centering",
            f"  \\includegraphics[width=\\textwidth]{{\\experimentroot figures/{stem}.pdf}}",
            f"  \\caption{{{markdown_to_latex(caption or stem.replace('_', ' '))}}}",
            f"  \\label{{fig:{stem.replace('_', '-')}}}", "\\end{figure}", ""]


def chapter_latex(results_dir: Path, runs: pd.DataFrame, figure_paths: Sequence[Path], table_paths: Sequence[Path],
                  stats: Statistics = DEFAULT, view: str | None = None) -> str:
    """The chapter: an overview (runs, solvers' versions, what the measures mean), then every
    table (``\\input``) and every figure (PDF) with its caption, in the report's order."""
    overview = [markdown_to_latex(line) for line in page._overview(results_dir, runs, stats) if line]
    lines = ["% The experiment's tables and figures (pyomo-puzzles); needs \\usepackage{booktabs,graphicx}.",
             "% \\experimentroot: the results folder, seen from the document that inputs this file.",
             "\\providecommand{\\experimentroot}{../}", "",
             "\\chapter{Experiment}", "\\label{chap:experiment}", ""]
    lines += [paragraph + "\n" for paragraph in overview]
    if table_paths:
        lines += ["\\section{Tables}", ""]
        lines += [f"\\input{{\\experimentroot tables/{path.stem}}}" for path in table_paths]
        lines += ["\\clearpage  % the tables before the figures", ""]
    stems = [path.with_suffix("") for path in figure_paths if path.suffix == ".pdf"]
    if stems:
        lines += ["\\section{Figures}", ""]
        for stem in stems:
            lines += _figure_block(stem.name, page.figure_caption(stem.name, stats, view or "methods"))
    lines.append("\\clearpage")
    return "\n".join(lines) + "\n"


def document_latex(text_width_pt: float) -> str:
    """A report-class document around the chapter, its text as wide as the figures were drawn."""
    return "\n".join([
        "\\documentclass[11pt]{report}",
        f"\\usepackage[a4paper,textwidth={text_width_pt:g}pt,vmargin=25mm]{{geometry}}",
        "\\usepackage{booktabs,graphicx}",
        "\\usepackage[hidelinks]{hyperref}",
        "\\begin{document}",
        "\\input{chapter}",
        "\\end{document}", ""])


def write_chapter(results_dir: Path, runs: pd.DataFrame, figure_paths: Sequence[Path], stats: Statistics = DEFAULT,
                  view: str | None = None, text_width_pt: float = 418.25) -> list[Path]:
    """``latex/chapter.tex`` and ``latex/experiment.tex`` under `results_dir`: both paths."""
    latex_dir = Path(results_dir) / "latex"
    table_paths = chapter_tables(Path(results_dir) / "tables")
    chapter, document = latex_dir / CHAPTER, latex_dir / DOCUMENT
    write_text_atomic(chapter, chapter_latex(Path(results_dir), runs, figure_paths, table_paths, stats, view))
    write_text_atomic(document, document_latex(text_width_pt))
    return [chapter, document]


def compile_chapter(document: Path, timeout: float = 300) -> Path:
    """``experiment.pdf`` beside `document`, by latexmk (pdflatex, as often as references
    need; its auxiliary files in ``.latexmk/``), moved into place once complete; a
    RuntimeError with the first LaTeX error if it does not compile."""
    document = Path(document)
    build = document.parent / ".latexmk"
    done = subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
                           f"-outdir={build.name}", document.name], cwd=document.parent, capture_output=True,
                          text=True, timeout=timeout, check=False)
    built = build / document.with_suffix(".pdf").name
    if done.returncode != 0 or not built.exists():
        errors = [line for line in done.stdout.splitlines() if ".tex:" in line or line.startswith("!")]
        raise RuntimeError(f"latexmk did not compile {document}: {errors[0] if errors else done.stdout[-300:]}")
    pdf = document.with_suffix(".pdf")
    os.replace(built, pdf)
    return pdf
