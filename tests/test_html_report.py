"""report.html opened in a real headless browser (Chromium): the smoke pipeline's page loads,
embeds every figure and solution picture as a PNG data: URI, refers to nothing on the
network, has no scripts, and renders a page that is not blank."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from pyomo_puzzles.report.html import write_html

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
DATA_PNG = "data:image/png;base64,"


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of every figcaption."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.captions: list[str] = []
        self._in_caption = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        self._in_caption = self._in_caption or tag == "figcaption"
        if tag == "figcaption":
            self.captions.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "figcaption":
            self._in_caption = False

    def handle_data(self, data: str) -> None:
        if self._in_caption:
            self.captions[-1] += data

    def images(self) -> dict[str, str]:
        """alt text -> src of every <img>."""
        return {attrs.get("alt", ""): attrs.get("src", "") for tag, attrs in self.tags if tag == "img"}


def parse(page: str) -> Elements:
    elements = Elements()
    elements.feed(page)
    return elements


def decode_png(src: str) -> bytes:
    assert src.startswith(DATA_PNG), src[:60]
    data = base64.b64decode(src[len(DATA_PNG):], validate=True)
    assert data.startswith(PNG_MAGIC)
    return data


@dataclass
class Rendered:
    results: Path
    html: str
    dom: str
    screenshot: Path
    browser_log: str


def chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    # a profile of its own, so a Chromium already running on the machine is not reused
    return subprocess.run([binary, "--headless=new", "--disable-gpu", "--no-sandbox", f"--user-data-dir={profile}",
                           *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, smoke_results) -> Rendered:
    """The smoke experiment's report.html, its DOM as Chromium loaded it, and a screenshot."""
    binary = shutil.which("chromium")
    if binary is None:
        pytest.skip("chromium not installed: no `chromium` on PATH (bash bootstrap.sh test installs it)")
    work = tmp_path_factory.mktemp("html")
    results = smoke_results
    url = (results / "report.html").as_uri()
    screenshot = work / "report.png"
    shot = chromium(binary, work / "profile", f"--screenshot={screenshot}", "--window-size=1200,3000", url)
    assert shot.returncode == 0, shot.stderr[-3000:]
    dom = chromium(binary, work / "profile", "--enable-logging=stderr", "--v=0", "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-3000:]
    return Rendered(results, (results / "report.html").read_text(encoding="utf-8"), dom.stdout, screenshot,
                    dom.stderr)


def test_page_loads_without_scripts_or_console_errors(rendered):
    assert "<h1>Solver comparison</h1>" in rendered.dom
    for heading in ("Overview", "Environment", "Summary per family", "Figures", "Counts", "Solutions"):
        assert f"<h2>{heading}</h2>" in rendered.dom
    assert "<script" not in rendered.html.lower()
    assert "Uncaught" not in rendered.browser_log and "CONSOLE" not in rendered.browser_log


def test_every_figure_is_embedded_as_its_png(rendered):
    figures = json.loads((rendered.results / "figures.json").read_text())["figures"]
    pngs = [Path(f) for f in figures if f.endswith(".png")]
    images = parse(rendered.dom).images()
    assert pngs
    for png in pngs:
        assert decode_png(images[png.name]) == png.read_bytes()
        assert f'href="figures/{png.stem}.pdf"' in rendered.html


def test_solution_pictures_are_embedded_and_named(rendered):
    elements = parse(rendered.dom)
    pictures = sorted((rendered.results / "pictures").glob("**/*.png"))
    assert pictures
    for picture in pictures:
        name = picture.relative_to(rendered.results / "pictures").with_suffix("").as_posix()
        # named by its instance and by the run it was drawn from (the best checked run)
        assert any(caption.startswith(name) and " / " in caption for caption in elements.captions), name
        assert decode_png(elements.images()[name]) == picture.read_bytes()


def test_nothing_is_fetched_from_outside_the_page(rendered):
    elements = parse(rendered.dom)
    assert all(attrs["src"].startswith("data:") for _, attrs in elements.tags if "src" in attrs)
    links = [attrs["href"] for _, attrs in elements.tags if "href" in attrs]
    assert links and all(not link.startswith(("http://", "https://", "//")) for link in links)
    assert all((rendered.results / link).exists() for link in links)  # the figures' PDFs next to the page
    assert not any(tag == "link" for tag, _ in elements.tags)
    assert "@import" not in rendered.html and "url(" not in rendered.html


def test_screenshot_is_not_blank(rendered):
    pixels = matplotlib.image.imread(rendered.screenshot)[..., :3]
    assert pixels.shape[:2] == (3000, 1200)
    ink = (pixels < 0.9).any(axis=-1).mean()
    levels = np.round(pixels * 255).astype(np.uint32)
    colours = np.unique(levels[..., 0] << 16 | levels[..., 1] << 8 | levels[..., 2]).size
    assert ink > 0.01 and colours > 16, (ink, colours)


def test_text_is_escaped_and_a_comparison_is_a_table(tmp_path):
    runs = pd.DataFrame({"puzzle": ["p<q>"], "instance": ["p<q>/a&b"], "formulation": ["f"], "solver": ["s"],
                         "status": ["optimal"], "checked": [True], "wall_time": [0.5], "time_limit": [10.0]})
    comparison = pd.DataFrame({"solver": ["<script>alert(1)</script>"], "speed-up": [2.5]})
    out = write_html(tmp_path, runs, pd.DataFrame(), [], {"host": "a<b"}, tmp_path / "report.html",
                     comparison=comparison)
    page = out.read_text(encoding="utf-8")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<h3>p&lt;q&gt;</h3>" in page and "a&lt;b" in page and "<th>speed-up</th>" in page
    assert "1/1<br><small>0.500 s</small>" in page
    assert not list(tmp_path.glob("*.tmp"))
