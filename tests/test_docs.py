"""The documentation site: it builds with ``mkdocs build --strict`` (no warning, no broken
link or reference), every Python block of its pages runs, every shell command names real
files, extras, flags and config keys, its Layout page names every module, and its text
speaks to users (no issue numbers, revision hashes or internal names).

The README gets the same checks in ``tests/test_readme.py``, with the same helpers. A block
that cannot run here carries a marker on the line before its fence:
``<!-- docs-test: needs MODULE -->`` (skipped without that module) or
``<!-- docs-test: skip REASON -->``; there are few.
"""

from __future__ import annotations

import ast
import html
import importlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from helpers import (
    HISTORY,
    INTERNAL,
    ROOT,
    command_argv,
    command_problems,
    load_script,
    parse_damas_command,
    python_blocks,
    shell_commands,
)

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
TEXTS = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in PAGES}
BLOCKS = [
    pytest.param(marker, argument, code, id=f"{page}:{i}")
    for page, text in TEXTS.items()
    for i, (marker, argument, code) in enumerate(python_blocks(text))
]
COMMANDS = sorted({command for text in TEXTS.values() for command in shell_commands(text)})
#: A hang guard, not a speed claim: the first build compiles the kernels the catalogue runs.
HANG = 1800
#: The most blocks that may carry a marker: the docs run their examples.
MAX_MARKED = 3


def _gen_variants() -> Any:
    return load_script("gen_variants", DOCS / "gen_variants.py")


# --- The pages' code ------------------------------------------------------------------------


def test_pages_found() -> None:
    assert {"docs/index.md", "docs/install.md", "docs/layout.md"} <= set(TEXTS)
    assert len(BLOCKS) >= 20


@pytest.mark.parametrize(("marker", "argument", "code"), BLOCKS)
def test_docs_block_runs(marker: str, argument: str, code: str) -> None:
    if marker == "skip":
        pytest.skip(argument)
    if marker == "needs":
        try:
            importlib.import_module(argument)
        except ImportError as error:  # RLlib without ray[tune] is an ImportError, not missing
            pytest.skip(f"needs {argument}: {error}")
    exec(compile(code, "docs", "exec"), {})


def test_few_blocks_are_marked_and_each_says_why() -> None:
    marked = [(m, a) for text in TEXTS.values() for m, a, _ in python_blocks(text) if m]
    assert len(marked) <= MAX_MARKED, marked
    assert all(argument.strip() for _, argument in marked)


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if c.startswith("damas ")], ids=lambda c: c[:60]
)
def test_docs_damas_commands_parse(command: str) -> None:
    parse_damas_command(command)


@pytest.mark.parametrize(
    "command",
    [c for c in COMMANDS if c.startswith(("damas show", "damas moves", "damas variants"))],
    ids=lambda c: c[:60],
)
def test_docs_rules_commands_run_outside_the_checkout(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The library's commands need nothing from the checkout: an installed package runs them
    from any folder."""
    from damas_env.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(command_argv(command)[1:]) == 0, capsys.readouterr().err


def test_docs_files_extras_and_flags_exist() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    problems = [f"{c}: {p}" for c in COMMANDS for p in command_problems(c, extras)]
    assert not problems, problems


def test_install_page_gives_the_readme_commands() -> None:
    """The two commands of the README (set up and run the main job, and the tests) are on
    the install page byte for byte."""
    readme = shell_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    main_job = " && ".join(readme[: readme.index("damas train configs/quickstart.yaml") + 1])
    assert main_job in TEXTS["docs/install.md"]
    tests = next(line for line in TEXTS["docs/install.md"].splitlines() if "pytest" in line)
    assert tests in (ROOT / "README.md").read_text(encoding="utf-8")
    assert tests in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_command_checks_catch_mistakes() -> None:
    extras = ["train"]
    assert command_problems('pip install -e ".[trian]"', extras)
    assert command_problems("python benchmarks/perft.py --no-such-flag", extras)
    assert command_problems("python benchmarks/nowhere.py", extras)
    assert not command_problems("python benchmarks/perft.py --family", extras)
    with pytest.raises(SystemExit):
        parse_damas_command("damas arena --no-such-flag")


# --- The text speaks to users ---------------------------------------------------------------


def _user_texts() -> dict[str, str]:
    """Returns the docs pages and the generated ones, by name (the changelog aside)."""
    generated = {k: v for k, v in _gen_variants().pages().items() if k.endswith(".md")}
    return TEXTS | {f"generated {name}": text for name, text in generated.items()}


def test_docs_speak_to_users() -> None:
    """No issue numbers, revision hashes or internal names: history goes in CHANGELOG.md,
    and the presets are described by what they are."""
    found = {
        name: HISTORY.findall(text) + INTERNAL.findall(text) for name, text in _user_texts().items()
    }
    assert not {name: words for name, words in found.items() if words}


def test_docstrings_speak_to_users() -> None:
    """The docstrings (the API reference) and comments of the packages describe the presets'
    rule texts by what they are, and name no issue."""
    found = {
        str(path.relative_to(ROOT)): INTERNAL.findall("\n".join(_prose(path)))
        for folder in (ROOT / "damas_env", ROOT / "agents" / "damas_agents")
        for path in sorted(folder.rglob("*.py"))
    }
    assert not {name: words for name, words in found.items() if words}


def _prose(path: Path) -> list[str]:
    """Returns a module's docstrings (of the module, its classes and functions, and those
    under attributes) and comments."""
    source = path.read_text(encoding="utf-8")
    strings = [
        node.value.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]  # fmt: skip
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return strings + [t.string for t in tokens if t.type == tokenize.COMMENT]


@pytest.mark.parametrize(
    "text", ["Issue 14 measured it", "the issue's target", "seed000_international", "seed 002"]
)
def test_internal_words_are_caught(text: str) -> None:
    assert INTERNAL.search(text) or HISTORY.search(text)


@pytest.mark.parametrize("text", ["--seed 2026", "seeded random openings", "seed=0"])
def test_plain_words_are_not_internal(text: str) -> None:
    assert not INTERNAL.search(text)


# --- Layout ---------------------------------------------------------------------------------


def test_layout_page_matches_the_tree() -> None:
    """The Layout page names every module of the library and the application (packages'
    ``__init__`` aside), and every path it names exists."""
    layout = TEXTS["docs/layout.md"]
    top = "damas_env|agents|tests|benchmarks|examples|notebooks|configs|docs"
    named = set(re.findall(rf"`((?:{top})/[\w/.]*)`", layout))
    singles = r"(?:command|specs|extras|files|workers)\.py"
    layers = rf"{singles}|(?:training|rating|arena|players|models|search)/\w+\.py"
    named |= {f"agents/damas_agents/{path}" for path in re.findall(rf"`({layers})`", layout)}
    for path in named:
        assert (ROOT / path).exists(), f"docs/layout.md names {path}, which does not exist"
    modules = {
        str(path.relative_to(ROOT))
        for package in ("damas_env", "agents")
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    }
    assert not modules - named, f"docs/layout.md misses {sorted(modules - named)}"


# --- The site -------------------------------------------------------------------------------


def test_board_picture_is_up_to_date() -> None:
    """The picture of the README and the home page is the renderer's own drawing."""
    picture = (DOCS / "assets" / "board.svg").read_text(encoding="utf-8")
    assert picture == _gen_variants().board_svg("international")


def test_api_reference_options_pass_validation() -> None:
    """The site is built with pydantic (the dev extra installs it), so mkdocstrings-python
    validates the API reference's options as strictly as it can: those of ``mkdocs.yml``
    pass."""
    assert importlib.util.find_spec("pydantic"), 'pydantic is missing: pip install -e ".[dev]"'
    from mkdocs.config import load_config
    from mkdocstrings_handlers.python import PythonOptions

    config = load_config(str(ROOT / "mkdocs.yml"))
    options = config.plugins["mkdocstrings"].config.handlers["python"]["options"]
    assert PythonOptions.from_data(**options).extensions


def test_variants_page_keeps_the_catalogue_table() -> None:
    """The variants page keeps the catalogue's summary table, so that it reads where the
    generated pages are not (on GitHub); it is the code's table of today."""
    gen = _gen_variants()
    page = TEXTS["docs/variants/index.md"]
    assert all(mark in page for mark in gen.INDEX_MARKS)
    assert page == gen.index_page(page), "run: python docs/gen_variants.py --index"
    assert all(f"`{name}`" in page for name in gen.rulesets())


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns the folder of the site, built once with ``mkdocs build --strict``."""
    out = tmp_path_factory.mktemp("site")
    env = os.environ | {"NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "agents"), env.get("PYTHONPATH", "")]
    )
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    log = built.stdout + built.stderr
    assert built.returncode == 0, log
    assert "WARNING" not in log, log
    return out


@pytest.mark.xdist_group("mkdocs")  # one build per test run (--dist loadgroup)
def test_site_builds_strict_with_every_page(site: Path) -> None:
    for page in PAGES:
        name = page.relative_to(DOCS).with_suffix("")
        folder = site / (name.parent if name.name == "index" else name)
        assert (folder / "index.html").is_file(), f"{page} was not built"
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        assert (site / "notebooks" / notebook.stem / "index.html").is_file(), notebook.name


@pytest.mark.xdist_group("mkdocs")
def test_site_catalogue_draws_every_ruleset(site: Path) -> None:
    from damas_env.rules import get_ruleset, ruleset_names

    distinct = {name for name in ruleset_names() if get_ruleset(name).name == name}
    boards = list((site / "variants" / "boards").glob("*.svg"))
    assert len(boards) == len(distinct)
    catalogue = (site / "variants" / "catalogue" / "index.html").read_text(encoding="utf-8")
    assert catalogue.count("<h2") >= len(distinct)


@pytest.mark.xdist_group("mkdocs")
def test_site_leaderboard_lists_every_pool(site: Path) -> None:
    from damas_agents.rating import available_pools, load_pool

    board = (site / "agents" / "leaderboard" / "index.html").read_text(encoding="utf-8")
    assert "rating pools -->" not in board and "recipes leaderboard -->" not in board
    for saved in sorted((DOCS / "assets" / "leaderboard").glob("*.json")):
        for row in json.loads(saved.read_text(encoding="utf-8"))["rows"]:
            assert row["title"] in board, (saved.name, row["row"])
            if row["status"] == "ok":
                assert html.escape(row["rating_text"], quote=False) in board, row["row"]
    for variant in available_pools():
        pool = load_pool(variant)
        assert pool.command in board
        assert all(f"<code>{m.spec}</code>" in board for m in pool.members)


@pytest.mark.xdist_group("mkdocs")
def test_site_links_the_sphinx_roles_of_docstrings(site: Path) -> None:
    """A Sphinx role of a docstring is a link to its target, found where Sphinx finds it (a
    name of the docstring's module, a full path; ``~`` shows the last name), and no role is
    left as text on any page."""
    page = (site / "reference" / "environments" / "index.html").read_text(encoding="utf-8")
    link = r'<a class="autorefs autorefs-internal"[^>]* href="#{}"><code>{}</code></a>'
    # draughts_v0's docstring: :class:`IllegalActionError`, :class:`~damas_env.ending.Reason`
    # and :mod:`damas_env.encoding`.
    assert re.search(
        link.format(r"damas_env\.draughts_v0\.IllegalActionError", "IllegalActionError"), page
    )
    assert re.search(link.format(r"damas_env\.ending\.Reason", "Reason"), page)
    assert re.search(link.format(r"damas_env\.encoding", r"damas_env\.encoding"), page)
    role = re.compile(r":(?:func|meth|class|data|attr|mod|exc|obj|const):(?:<code>|`)")
    left = [
        str(html.relative_to(site))
        for html in site.rglob("*.html")
        if role.search(html.read_text(encoding="utf-8"))
    ]
    assert not left, left


@pytest.mark.xdist_group("mkdocs")
def test_site_links_within_a_page_find_their_place(site: Path) -> None:
    """Every link to a place on its own page (the table of contents, a heading's anchor)
    finds it, the notebooks' among them: mkdocs-jupyter names a heading with code in it
    otherwise in its contents than on the page."""
    missing = {}
    for page in sorted(site.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        places = set(re.findall(r'\sid="([^"]+)"', text))
        links = {unquote(html.unescape(link)) for link in re.findall(r'href="#([^"]+)"', text)}
        if links - places:
            missing[page.relative_to(site).as_posix()] = sorted(links - places)
    assert not missing


#: Folders of the machine that builds the site: none of them is any reader's.
MACHINE_FOLDERS = ("/work", "/root", "/home", "/tmp", "/Users", "/private/var")


#: Built pages that still show such a folder, each with where its text comes from; each is
#: checked by an expected failure below, so a fixed page must leave this list.
def machine_paths(page: str) -> list[str]:
    """Returns the paths of the building machine in a page's text: its checkout, home and
    temporary folders, and those of any machine's (``/home/...``, ``/tmp/...``)."""
    here = {str(ROOT), str(Path.home()), tempfile.gettempdir()}
    folders = {*MACHINE_FOLDERS, *(folder for folder in here if folder.strip("/"))}
    either = "|".join(sorted(map(re.escape, folders), key=len, reverse=True))
    text = html.unescape(re.sub(r"<[^>]*>", "", page))  # highlighted code splits paths in tags
    return re.findall(rf"(?<![\w./~-])(?:{either})(?![\w.-])[^\s\"'<>`]*", text)


def _pages_with_machine_paths(site: Path) -> dict[str, list[str]]:
    """Returns the built pages that show a path of the building machine, with the paths."""
    pages = {
        page.relative_to(site).as_posix(): machine_paths(page.read_text(encoding="utf-8"))
        for page in sorted(site.rglob("*.html"))
    }
    return {name: paths for name, paths in pages.items() if paths}


@pytest.mark.xdist_group("mkdocs")
def test_site_shows_no_path_of_the_building_machine(site: Path) -> None:
    """No page shows where the site was built (an output's checkpoint, a run folder): a
    reader's paths differ, and the pages show relative ones."""
    found = _pages_with_machine_paths(site)
    assert not found


@pytest.mark.parametrize(
    "text",
    [
        "checkpoint: /work/runs/lb/default/quickstart/checkpoints/latest.pt",
        "--opponent checkpoint:/home/ann/runs/q/latest.pt",
        '<span class="w"> </span>--runs<span class="w"> </span>/tmp/lb/az',
        "--out=/root/runs",
        f"cd {ROOT}",
    ],
)
def test_machine_paths_are_caught(text: str) -> None:
    assert machine_paths(text)


@pytest.mark.parametrize(
    "text",
    [
        "checkpoint: runs/quickstart-<time>/checkpoints/latest.pt",
        "https://example.org/home/index.html",
        "hub:/opt/scan/scan,book=false",
        "python docs/gen_variants.py site-gen",
        "a /tmpfile or ./tmp/x",
    ],
)
def test_relative_and_remote_paths_are_not_machine_paths(text: str) -> None:
    assert not machine_paths(text)
