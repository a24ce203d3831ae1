"""The site's pictures (``docs/gen_pictures.py``): the script draws them all without a display,
the committed ones are up to date and each is shown on the page it belongs to."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.sax.saxutils import unescape

import pytest
from helpers import ROOT, load_script

DOCS = ROOT / "docs"
ASSETS = DOCS / "assets"
#: Each picture and the pages that show it.
PAGES = {
    "play-window.png": ["tutorials/play.md", "index.md"],
    "play-terminal.svg": ["tutorials/play.md"],
    "rating-ladder.svg": ["agents/leaderboard.md"],
}
#: A hang guard: a first run compiles the kernels the games use.
HANG = 900


def _gen_pictures() -> Any:
    return load_script("gen_pictures", DOCS / "gen_pictures.py")


def _png_size(path: Path) -> tuple[int, int]:
    """Returns a PNG's width and height, read from its header."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", header[16:24])


def _description(svg: str) -> str:
    """Returns the Dublin Core description matplotlib wrote into an SVG."""
    start = svg.index("<dc:description>") + len("<dc:description>")
    return unescape(svg[start : svg.index("</dc:description>")])


def test_every_picture_is_committed_and_shown_on_its_pages() -> None:
    assert set(PAGES) == set(_gen_pictures().PICTURES)
    for name, pages in PAGES.items():
        assert (ASSETS / name).stat().st_size > 1000, name
        for page in pages:
            assert f"assets/{name})" in (DOCS / page).read_text(encoding="utf-8"), (name, page)


def test_ladder_picture_draws_the_shipped_pools() -> None:
    """A pool changed without the picture redrawn fails here: run docs/gen_pictures.py."""
    svg = (ASSETS / "rating-ladder.svg").read_text(encoding="utf-8")
    assert _description(svg) == _gen_pictures().ladder_description()


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a folder the script drew every picture into, run as its docstring says, with
    no display."""
    pytest.importorskip("pygame")
    pytest.importorskip("matplotlib")
    out = tmp_path_factory.mktemp("pictures")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    drawn = subprocess.run(
        [sys.executable, str(DOCS / "gen_pictures.py"), str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert drawn.returncode == 0, drawn.stdout + drawn.stderr
    return out


def test_script_draws_every_picture_headless(drawn: Path) -> None:
    assert sorted(path.name for path in drawn.iterdir()) == sorted(PAGES)


def test_committed_pictures_are_up_to_date(drawn: Path) -> None:
    """The terminal game and the ladder's data are the script's own; the window has the
    committed one's size (its pixels depend on pygame's fonts)."""
    terminal = "play-terminal.svg"
    redraw = "the committed picture is stale: run python docs/gen_pictures.py"
    assert (drawn / terminal).read_text() == (ASSETS / terminal).read_text(), redraw
    ladder = (drawn / "rating-ladder.svg").read_text()
    assert _description(ladder) == _description((ASSETS / "rating-ladder.svg").read_text())
    assert _png_size(drawn / "play-window.png") == _png_size(ASSETS / "play-window.png")
