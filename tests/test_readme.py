"""The README: every Python block runs; every shell command names real files, extras, flags
and config keys; its test command is what CI runs; it stays short, and its links lead to
files of the checkout. The docs pages get the same checks in ``tests/test_docs.py``."""

import re

import pytest
from helpers import (
    HISTORY,
    INTERNAL,
    ROOT,
    command_problems,
    parse_damas_command,
    python_blocks,
    shell_commands,
)

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = [code for _, _, code in python_blocks(README)]
COMMANDS = shell_commands(README)
#: About 200 lines: what the project is, how to start, and links into the docs.
MAX_LINES = 220


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code: str) -> None:
    exec(compile(code, "README.md", "exec"), {})


def test_readme_has_blocks() -> None:
    assert len(BLOCKS) >= 3
    assert not [marker for marker, _, _ in python_blocks(README) if marker], "README skips none"


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if c.startswith("damas ")], ids=lambda c: c[:60]
)
def test_readme_damas_commands_parse(command: str) -> None:
    parse_damas_command(command)


def test_readme_files_extras_and_flags_exist() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    problems = [f"{c}: {p}" for c in COMMANDS for p in command_problems(c, extras)]
    assert not problems, problems
    assert any(c.startswith("damas train configs/quickstart.yaml") for c in COMMANDS)


def test_ci_runs_the_readme_test_command_exactly() -> None:
    """``.ci/run`` and the README's second command are one command: CI tests what a new user
    is told to run."""
    ci = (ROOT / ".ci" / "run").read_text()
    readme_command = next(
        line
        for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S)
        for line in block.splitlines()
        if "python -m pytest" in line
    )
    assert readme_command in ci


def test_readme_is_short() -> None:
    lines = len(README.splitlines())
    assert lines <= MAX_LINES, f"README.md has {lines} lines; the details go in docs/"


def test_readme_links_lead_to_files() -> None:
    """Relative links (to the docs pages, the changelog, the picture) name files that exist,
    so they work on GitHub as they are."""
    targets = re.findall(r"\]\(([^)\s]+)\)|src=\"([^\"]+)\"", README)
    paths = [a or b for a, b in targets]
    local = [p.split("#")[0] for p in paths if not p.startswith(("http://", "https://", "#"))]
    assert len(local) >= 10
    missing = [p for p in local if not (ROOT / p).exists()]
    assert not missing, f"README links to {missing}, which do not exist"


def test_readme_speaks_to_users() -> None:
    """No issue numbers, revision hashes or internal names: history goes in CHANGELOG.md."""
    found = HISTORY.findall(README) + INTERNAL.findall(README)
    assert not found, f"README.md mentions {found}"
