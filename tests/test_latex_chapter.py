"""The experiment as a thesis chapter: the pipeline writes ``latex/chapter.tex`` (every table
and figure with its caption) and compiles ``latex/experiment.pdf`` with latexmk, with the
figures' text set by matplotlib (``figures.latex: false``, the shared smoke run) and by LaTeX
itself (``figures.latex: true``). And Snakemake's own report (``snakemake --report``) holds
the figures and tables the workflow flags.

TeX comes with the set-up (bootstrap.sh installs Debian's TeX Live); without it these are
skipped with the reason."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from pyomo_puzzles import experiment
from pyomo_puzzles.report import figures

SNAKEMAKE = Path(sys.executable).parent / "snakemake"


def _needs_tex() -> None:
    missing = experiment.tex_missing()
    if missing or shutil.which("pdftotext") is None:
        pytest.skip(missing or "pdftotext not installed (Debian: poppler-utils)")


def _pdf_text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def _fonts(pdf: Path) -> list[str]:
    """The fonts a PDF embeds (pdffonts' first column, subset prefix removed)."""
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout.splitlines()
    return [line.split()[0].split("+")[-1] for line in out[2:] if line.strip()]


def _snakemake(results: Path, *extra: str, configfile: Path = ROOT / "workflows/config/smoke.yaml"
               ) -> subprocess.CompletedProcess:
    return subprocess.run([str(SNAKEMAKE), "--cores", "2", "--configfile", str(configfile),
                           "--config", f"results={results}", *extra], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def _assert_chapter_holds_everything(results: Path) -> str:
    """Every table of tables/ and every figure of figures/ is in the chapter and in its PDF
    (one numbered caption each); the PDF's text. The expected sets are the folder's files."""
    chapter = (results / "latex" / "chapter.tex").read_text()
    table_stems = sorted(path.stem for path in (results / "tables").glob("*.tex") if "\\begin{table}" in path.read_text())
    figure_stems = sorted(path.stem for path in (results / "figures").glob("*.pdf"))
    assert table_stems and figure_stems
    for stem in table_stems:
        assert f"\\input{{\\experimentroot tables/{stem}}}" in chapter, stem
    for stem in figure_stems:
        assert f"\\includegraphics[width=\\textwidth]{{\\experimentroot figures/{stem}.pdf}}" in chapter, stem
    pdf = results / "latex" / "experiment.pdf"
    text = _pdf_text(pdf)
    assert len(re.findall(r"^\s*Figure 1\.\d+:", text, re.M)) == len(figure_stems), text[:3000]
    assert len(re.findall(r"^\s*Table 1\.\d+:", text, re.M)) == len(table_stems), text[:3000]
    return text


def test_the_pipeline_compiles_the_chapter_with_every_table_and_figure(smoke_results):
    _needs_tex()
    text = _assert_chapter_holds_everything(smoke_results)
    assert "Experiment" in text and "runs of" in text
    # the figures are included, not only captioned: their own text (axis labels) is in the PDF
    assert "fraction of instances" in text  # the performance profile's y axis
    assert oct((smoke_results / "latex" / "experiment.pdf").stat().st_mode & 0o777)[-2] in "46"  # the group reads it


def test_figures_set_by_latex_and_the_chapter_compile(smoke_results, tmp_path):
    """figures.latex: true: the report's figures are typeset by pdflatex (LaTeX's Computer
    Modern in every figure PDF, no DejaVu), and the chapter with them compiles."""
    _needs_tex()
    if figures.latex_missing():
        pytest.skip(", ".join(figures.latex_missing()))
    results = tmp_path / "results"
    shutil.copytree(smoke_results, results, symlinks=True, copy_function=shutil.copy2)  # mtimes kept: no rerun
    config = tmp_path / "latex.yaml"
    config.write_text((ROOT / "workflows/config/smoke.yaml").read_text() + "figures: {latex: true}\n")
    done = _snakemake(results, "--forcerun", "report", configfile=config)
    assert done.returncode == 0, done.stderr[-3000:]
    for pdf in sorted((results / "figures").glob("*.pdf")):
        fonts = _fonts(pdf)
        assert fonts and all(font.startswith("CM") for font in fonts), (pdf.name, fonts)
        assert pdf.with_suffix(".png").stat().st_size > 0
    plain = _fonts(smoke_results / "figures" / "cactus.pdf")
    assert not any(font.startswith("CM") for font in plain), plain  # without latex: matplotlib's own fonts
    _assert_chapter_holds_everything(results)
    assert (results / "latex" / "experiment.pdf").stat().st_mtime > (smoke_results / "latex" / "experiment.pdf").stat().st_mtime


def _path_without_tex(folder: Path) -> Path:
    """A folder of links to every command of /usr/bin and /bin but TeX's."""
    folder.mkdir()
    for directory in (Path("/usr/bin"), Path("/bin")):
        for command in directory.iterdir():
            if command.name not in ("latexmk", "pdflatex") and not (folder / command.name).exists():
                (folder / command.name).symlink_to(command)
    return folder


def test_chapter_pdf_true_without_tex_is_one_line_naming_the_option(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text((ROOT / "workflows/config/smoke.yaml").read_text() + "chapter: {pdf: true}\n")
    done = subprocess.run([str(SNAKEMAKE), "-n", "--configfile", str(config), "--config",
                           f"results={tmp_path / 'results'}"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PATH": f"{Path(sys.executable).parent}:{_path_without_tex(tmp_path / 'bin')}",
                               "HOME": str(tmp_path)})
    assert done.returncode == 2, done.stderr[-2000:]
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "chapter.pdf" in errors[0] and "latexmk" in errors[0], done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_snakemake_report_holds_the_flagged_figures_and_tables(smoke_results, tmp_path):
    """``snakemake --report``: Snakemake's self-contained report with every figure of the
    experiment (PNG), the flagged tables and the chapter."""
    report = tmp_path / "snakemake-report.zip"
    done = _snakemake(smoke_results, "--report", str(report))
    assert done.returncode == 0, done.stderr[-3000:]
    with zipfile.ZipFile(report) as archive:
        names = archive.namelist()
    figure_pngs = sorted(path.name for path in (smoke_results / "figures").glob("*.png"))
    assert figure_pngs
    for name in [*figure_pngs, "summary.csv", "scores.csv", "models.csv", "report.html"]:
        assert any(entry.endswith("/" + name) for entry in names), (name, names)
    if experiment.tex_missing() is None:
        assert any(entry.endswith("/experiment.pdf") for entry in names), names
    assert any(entry.endswith("report.html") and "data" not in entry for entry in names)  # the report's own page


def test_an_experiment_without_models_has_a_valid_models_file_and_no_models_table(tmp_path):
    """``models: false``: tables/models.tex is still valid LaTeX (it was an empty tabular that
    stopped the chapter's compilation), and the chapter does not input it."""
    import pandas as pd

    from pyomo_puzzles.report import chapter, formulations

    (tmp_path / "tables").mkdir()
    formulations.write_models(pd.DataFrame(), tmp_path / "tables" / "models.csv", tmp_path / "tables" / "models.tex")
    assert "\\begin{tabular}" not in (tmp_path / "tables" / "models.tex").read_text()
    assert chapter.chapter_tables(tmp_path / "tables") == []
    if shutil.which("pdflatex"):
        (tmp_path / "doc.tex").write_text("\\documentclass{article}\\begin{document}x\\input{tables/models}"
                                          "\\end{document}\n")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-1500:]
