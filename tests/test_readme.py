"""Every Python code block in the README runs; every shell command in it names real files,
extras, flags and config keys; its Layout names every module, and only files that exist."""

import re
import shlex
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code: str) -> None:
    exec(compile(code, "README.md", "exec"), {})


def test_readme_has_blocks() -> None:
    assert len(BLOCKS) >= 3


# --- Shell blocks: every command names real files, extras, flags and config keys -----------

SHELL = [
    line.removeprefix("$ ").split("  #")[0].strip()
    for block in re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    for line in block.splitlines()
    if line.strip() and not line.startswith(("English:", "score ", "Elo ", "average", "end", "by "))
]
COMMANDS = [part.strip() for line in SHELL for part in line.split("&&")]
ROOT = Path(__file__).parent.parent


def _argv(command: str) -> list[str]:
    """Returns the words of a command with its optional ``[...]`` parts dropped."""
    return shlex.split(re.sub(r"\[[^\]]*\]", "", command))


@pytest.mark.parametrize(
    "command", [c for c in COMMANDS if c.startswith("damas ")], ids=lambda c: c[:60]
)
def test_readme_damas_commands_parse(command: str) -> None:
    from damas_agents.arena.cli import build_parser as arena_parser
    from damas_agents.arena.hub import build_parser as hub_parser
    from damas_agents.arena.play import build_parser as play_parser
    from damas_agents.models.config import apply_overrides, load_config
    from damas_agents.rating.rate import build_parser as rate_parser
    from damas_agents.training.train import _parser as train_parser
    from damas_env.cli import _parser as damas_parser

    argv = _argv(command)[1:]
    if argv[0] == "train":
        args = train_parser().parse_args(argv[1:])
        if args.config:
            path = ROOT / args.config  # a checkout's path, else a bundled config's name
            apply_overrides(load_config(path if path.exists() else args.config), args.overrides)
    elif argv[0] == "arena":
        arena_parser().parse_args(argv[1:])
    elif argv[0] == "play":
        play_parser().parse_args(argv[1:])
    elif argv[0] == "hub":
        hub_parser().parse_args(argv[1:])
    elif argv[0] == "rate":
        rate_parser().parse_args(argv[1:])
    else:
        damas_parser().parse_args(argv)


@pytest.mark.parametrize(
    "command",
    [c for c in COMMANDS if c.startswith(("damas show", "damas moves", "damas variants"))],
    ids=lambda c: c[:60],
)
def test_readme_rules_commands_run_outside_the_checkout(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The library's commands need nothing from the checkout: an installed package runs them
    from any folder (presets by name, not by the checkout's paths)."""
    from damas_env.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(_argv(command)[1:]) == 0, capsys.readouterr().err


def test_readme_files_and_extras_exist() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for command in COMMANDS:
        for word in _argv(command):
            if word.endswith((".py", ".yaml", ".ipynb")) and "/" in word:
                assert (ROOT / word).exists(), f"README names {word}, which does not exist"
        for group in re.findall(r'"\.\[([\w,]+)\]"', command):
            for extra in group.split(","):
                assert extra in extras, f"README installs the extra {extra!r}, not in pyproject"
    assert any(c.startswith("damas train configs/quickstart.yaml") for c in COMMANDS)


def test_readme_layout_matches_the_tree() -> None:
    """The Layout section names every module of the library and the application (packages'
    ``__init__`` aside), and every path it names exists."""
    layout = README.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    top = "damas_env|agents|tests|benchmarks|examples|notebooks|configs"
    named = set(re.findall(rf"`((?:{top})/[\w/.]*)`", layout))
    singles = r"(?:command|specs|extras|files|workers)\.py"
    layers = rf"{singles}|(?:training|rating|arena|players|models|search)/\w+\.py"
    named |= {f"agents/damas_agents/{path}" for path in re.findall(rf"`({layers})`", layout)}
    for path in named:
        assert (ROOT / path).exists(), f"README's Layout names {path}, which does not exist"
    modules = {
        str(path.relative_to(ROOT))
        for package in ("damas_env", "agents")
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    }
    assert not modules - named, f"README's Layout misses {sorted(modules - named)}"


def test_ci_runs_the_readme_test_command_exactly() -> None:
    """``.ci/run`` and the README's second command are one command: CI tests what a new user
    is told to run."""
    ci = (ROOT / ".ci" / "run").read_text()
    readme_command = next(line for line in SHELL if "python -m pytest" in line)
    assert readme_command in ci
