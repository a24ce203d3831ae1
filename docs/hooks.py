"""The site's build steps (``hooks:`` in ``mkdocs.yml``), so that no page can drift from the
code: the notebooks come from ``notebooks/``, the variant catalogue from ``gen_variants.py``,
the leaderboard from the package's rating pools and the recipes' saved results
(``docs/assets/leaderboard/``; ``python docs/hooks.py`` writes them into its page too, so
that it reads without the site), the ``damas web`` screenshot from headless chromium
(``gen_screenshot.py``, in the site only). A notebook's table of contents is read from its page's
headings, so that its links find them. The Sphinx roles of docstrings become links in
``sphinx_roles.py``, a griffe extension.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("mkdocs.hooks")
#: Where the rating pools' tables go, in ``docs/agents/leaderboard.md``.
POOLS_MARKER = "<!-- rating pools -->"
#: Where the recipes' leaderboard goes, on the same page.
RECIPES_MARKER = "<!-- recipes leaderboard -->"
#: The saved results of ``benchmarks/leaderboard.py`` that the page shows.
RECIPES_RESULTS = ROOT / "docs" / "assets" / "leaderboard"
#: The leaderboard page: its tables are kept in it, each between its marker and the marker's
#: end (``<!-- end of ... -->``), so that it reads without the site too.
LEADERBOARD_PAGE = ROOT / "docs" / "agents" / "leaderboard.md"
#: The screenshot of ``damas web`` (``gen_screenshot.py``), made at each build, in the site only.
WEB_PICTURE = "assets/web-board.png"
#: A heading of a notebook's page as nbconvert writes it: level, id, and its HTML.
NOTEBOOK_HEADING = re.compile(r'<h([1-6]) id="([^"]+)">(.*?)</h\1>', re.DOTALL)


def _on_path() -> None:
    """Puts this checkout's packages first on ``sys.path``."""
    for path in (str(ROOT / "agents"), str(ROOT)):
        if path not in sys.path:
            sys.path.insert(0, path)


def _module(name: str, path: Path) -> Any:
    """Returns the module of a script (``docs/gen_variants.py``, ``benchmarks/...``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _gen_variants() -> Any:
    """Returns the ``docs/gen_variants.py`` module."""
    return _module("gen_variants", ROOT / "docs" / "gen_variants.py")


def recipes_table() -> str:
    """Returns the recipes' leaderboard: the table ``benchmarks/leaderboard.py --render``
    prints for the saved results in ``docs/assets/leaderboard/``, oldest run first."""
    _on_path()
    files = sorted(RECIPES_RESULTS.glob("*.json"))
    if not files:
        return "No leaderboard results are saved in this version."
    leaderboard = _module("leaderboard", ROOT / "benchmarks" / "leaderboard.py")
    results = sorted((json.loads(f.read_text()) for f in files), key=lambda r: r["started"])
    return str(leaderboard.table(results))


@event_priority(100)  # before mkdocs-jupyter, which turns the notebooks into pages
def on_files(files: Files, config: Any) -> Files:
    """Adds the notebooks and the generated variant pages to the site."""
    _on_path()
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        uri = f"notebooks/{notebook.name}"
        files.append(File(uri, str(ROOT), config.site_dir, config.use_directory_urls))
    for path, text in _gen_variants().pages().items():
        files.append(File.generated(config, path, content=text))
    picture, problem = _module("gen_screenshot", ROOT / "docs" / "gen_screenshot.py").page_picture()
    if problem:
        log.warning(problem)
    files.append(File.generated(config, WEB_PICTURE, content=picture))
    return files


def pool_tables() -> str:
    """Returns a Markdown table for each rating pool shipped in the package."""
    _on_path()
    from damas_agents.rating.pool import available_pools, load_pool

    out: list[str] = []
    for variant in available_pools():
        pool = load_pool(variant)
        stopped = (
            f"; games stopped at {pool.max_plies} plies count as draws" if pool.max_plies else ""
        )
        out += [
            f"## {variant.capitalize()}, pool {pool.version}",
            "",
            f"`{pool.anchor}` is Elo 0. Played and fitted by `{pool.command}` in "
            f"{pool.seconds:.0f} s ({pool.seconds / 60:.0f} minutes) on {pool.machine}{stopped}.",
            "",
            "| member | Elo | 95% interval | games |",
            "|---|---:|---|---:|",
            *[
                f"| `{m.spec}` | {m.elo:+.0f} | [{m.ci[0]:+.0f}, {m.ci[1]:+.0f}] | {m.games} |"
                for m in reversed(pool.members)
            ],
            "",
        ]
    return "\n".join(out) if out else "No rating pool ships in this version."


def leaderboard_page(markdown: str, markers: bool = True) -> str:
    """Returns the leaderboard page with the recipes' table and the rating pools' tables
    rendered afresh, each in place of the text from its marker to the marker's end (or of
    the marker alone); `markers` False leaves the markers out, as the site does."""
    for marker, render in ((RECIPES_MARKER, recipes_table), (POOLS_MARKER, pool_tables)):
        start = markdown.find(marker)
        if start < 0:
            continue
        end = marker.replace("<!-- ", "<!-- end of ")
        stop = markdown.find(end, start)
        stop = stop + len(end) if stop >= 0 else start + len(marker)
        part = f"{marker}\n\n{render()}\n\n{end}" if markers else render()
        markdown = markdown[:start] + part + markdown[stop:]
    return markdown


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Fills the leaderboard page with the recipes' table and the rating pools' tables."""
    if RECIPES_MARKER in markdown or POOLS_MARKER in markdown:
        markdown = leaderboard_page(markdown, markers=False)
    return markdown


def notebook_toc(page_html: str) -> list[dict[str, Any]]:
    """Returns the table of contents of a notebook's page (as ``toc_tokens``) from the
    headings it shows, nested by level."""
    tokens: list[dict[str, Any]] = []
    open_: list[dict[str, Any]] = []  # the last heading of each level above
    for level, anchor, inner in NOTEBOOK_HEADING.findall(page_html):
        name = re.sub(r'<a class="anchor-link".*?</a>|<[^>]+>', "", inner).strip()
        token = {"level": int(level), "id": anchor, "name": name, "children": []}
        while open_ and open_[-1]["level"] >= token["level"]:
            open_.pop()
        (open_[-1]["children"] if open_ else tokens).append(token)
        open_.append(token)
    return tokens


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """Gives a notebook's page the table of contents of its own headings: mkdocs-jupyter
    names a heading with code in it one way on the page and another in its contents."""
    if page.file.src_uri.endswith(".ipynb"):
        page.toc = get_toc(notebook_toc(html))
    return html


if __name__ == "__main__":  # python docs/hooks.py: writes the tables into the page
    LEADERBOARD_PAGE.write_text(leaderboard_page(LEADERBOARD_PAGE.read_text()))
