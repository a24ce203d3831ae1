"""``damas rate`` on the command line: Python agents (``python:FILE.py:ATTR``,
``python:MODULE:ATTR``) with their one-line errors, the ``--pdn`` path checked before any
game, Ctrl-C printing the rating so far, and a failed save that still prints the result.

The pool is a ladder of cheap agents (``load_pool`` is replaced), so each rating takes
seconds; a call to ``load_pool`` marks that the command went on to play.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from damas_agents.players.make import make_agent
from damas_agents.rating import Member, Pool
from damas_agents.rating.rate import main as rate_main

rate_module = importlib.import_module(
    "damas_agents.rating.rate"
)  # the package's `rate` is the function

LADDER = {"random": 0.0, "greedy": 150.0, "alphabeta:depth=1": 800.0, "alphabeta:depth=2": 1000.0}

AGENTS = '''
import numpy as np
from damas_agents.players.classic import RandomAgent

def policy(planes, mask):
    """Plays the first legal hop."""
    return int(np.flatnonzero(mask)[0])

def make(seed=None):
    return RandomAgent(seed=seed)

def make_nothing():
    return 42

def one_argument(planes):
    return 0

instance = RandomAgent(seed=1)
Agent = RandomAgent
number = 3
'''


@pytest.fixture
def pool_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Replaces the shipped pool by a ladder of cheap agents; returns the variants loaded."""
    members = tuple(Member(spec, elo, (elo - 20, elo + 20), 100) for spec, elo in LADDER.items())
    pool = Pool("english", "v1", "random", members, {}, None, "test", 0.0, "test")
    loads: list[str] = []

    def load_pool(variant: str, version: str = "v1") -> Pool:
        loads.append(variant)
        return pool

    monkeypatch.setattr(rate_module, "load_pool", load_pool)
    return loads


@pytest.fixture
def agents_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A Python file of agents in the current folder; sys.path and the modules it imported
    restored after."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "my_agents.py"
    path.write_text(AGENTS)
    before = set(sys.modules)
    yield path
    for name in set(sys.modules) - before:
        if name == "my_agents" or name.startswith("damas_python_agent"):
            del sys.modules[name]


def rate_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    """Runs ``damas rate ARGV --games 4 --ci 400 --no-progress --json``; returns (status,
    the JSON printed, stderr)."""
    status = rate_main([*argv, "--games", "4", "--ci", "400", "--no-progress", "--json"])
    out, err = capsys.readouterr()
    return status, json.loads(out) if out.strip() else {}, err


# --- Python agents --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "name"),
    [
        ("python:my_agents.py:policy", "my_agents.py:policy"),  # a policy, played by PolicyAgent
        ("python:my_agents.py:make", "random"),  # a factory taking seed=
        ("python:my_agents.py:Agent", "random"),  # an agent class
        ("python:my_agents.py:instance", "random"),  # an agent instance, used as it is
        ("python:my_agents:policy", "my_agents:policy"),  # a module of the current folder
    ],
)
def test_damas_rate_plays_a_python_agent(
    target: str,
    name: str,
    agents_file: Path,
    pool_loads: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, data, err = rate_json(capsys, target)
    assert status == 0, err
    assert data["agent"] == name and data["games"] in (2, 4)  # ±400 may take one pair
    assert sum(o["wins"] + o["draws"] + o["losses"] for o in data["opponents"]) == data["games"]


def test_a_python_file_given_by_its_path_from_another_folder(
    agents_file: Path, pool_loads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = agents_file.parent / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    status, data, err = rate_json(capsys, f"python:{agents_file}:policy")
    assert status == 0, err
    assert data["agent"] == f"{agents_file}:policy"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("python:nowhere.py:policy", "python:nowhere.py:policy: no such file "),
        ("python:my_agents.py:policyy", "my_agents.py has no attribute 'policyy' (did you mean"),
        ("python:my_agents.py:number", "python:my_agents.py:number is an int, not an agent"),
        ("python:my_agents.py:one_argument", "takes (planes): a policy takes (planes, mask)"),
        ("python:my_agents.py:make_nothing", "make_nothing() returned an int, not an agent"),
        ("python:broken.py:policy", "importing broken.py failed: NameError: name 'oops'"),
        ("python:no_such_module:policy", "No module named 'no_such_module'"),
        ("python:my_agents.py", "names no object: write python:MODULE:ATTR"),
        ("my_agents.py:policy", "a Python agent is written python:my_agents.py:policy"),
    ],
)
def test_damas_rate_refuses_a_bad_python_agent_in_one_line(
    target: str,
    message: str,
    agents_file: Path,
    pool_loads: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    (agents_file.parent / "broken.py").write_text("x = oops\n")
    status, data, err = rate_json(capsys, target)
    assert status == 2 and not data and not pool_loads  # refused before any game
    assert err.startswith("damas rate: error: ") and message in err
    assert len(err.strip().splitlines()) == 1, err


def test_a_spec_never_names_python_code(agents_file: Path) -> None:
    """Specs come from configs too, which are data: ``python:`` is the command line's only."""
    with pytest.raises(ValueError, match="unknown agent kind 'python'"):
        make_agent("python:my_agents.py:policy")
    assert not [m for m in sys.modules if m.startswith("damas_python_agent")]


def test_python_agents_play_in_worker_processes(
    agents_file: Path, pool_loads: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each worker imports the file itself; an instance cannot be shared and is refused."""
    status, data, err = rate_json(capsys, "python:my_agents.py:policy", "--workers", "2")
    assert status == 0, err
    assert data["games"] in (2, 4) and data["agent"] == "my_agents.py:policy"
    status, data, err = rate_json(capsys, "python:my_agents.py:instance", "--workers", "2")
    assert status == 2 and not data
    assert "python:my_agents.py:instance is an agent instance" in err and "--workers 1" in err


# --- --pdn, Ctrl-C and a failed save --------------------------------------------------------


def test_damas_rate_checks_the_pdn_path_before_any_game(
    tmp_path: Path,
    pool_loads: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checks = [
        (tmp_path / "no" / "games.pdn", "there is no folder"),
        (tmp_path, "is a folder: name a file"),
    ]
    for path, message in checks:
        status, _, err = rate_json(capsys, "random", "--pdn", str(path))
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # as a folder not ours
    status, _, err = rate_json(capsys, "random", "--pdn", str(tmp_path / "games.pdn"))
    assert status == 2 and "is not writable" in err, err
    assert not pool_loads  # no game was played


def test_a_failed_save_still_prints_the_result(
    tmp_path: Path,
    pool_loads: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "games.pdn"
    write_text = Path.write_text

    def full_disk(self: Path, *args: object, **kwargs: object) -> int:
        if self == path:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full_disk)
    status, data, err = rate_json(capsys, "random", "--pdn", str(path))
    assert status == 1
    assert data["games"] in (2, 4) and "pdn" not in data  # the result, printed all the same
    assert f"cannot save the games to {path}: No space left on device" in err


@pytest.mark.parametrize("json_output", [True, False])
def test_ctrl_c_prints_the_rating_of_the_games_finished(
    json_output: bool,
    tmp_path: Path,
    pool_loads: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the third game plays: the two finished games are rated and saved."""
    submit = rate_module.GameRunner.submit
    calls: list[int] = []

    def interrupted(self: object, *args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return submit(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rate_module.GameRunner, "submit", interrupted)
    pdn = tmp_path / "games.pdn"
    argv = ["random", "--games", "20", "--no-progress", "--pdn", str(pdn)]
    status = rate_main(argv + ["--json"] * json_output)
    out, err = capsys.readouterr()
    assert status == 130 and err.strip() == "damas rate: interrupted"
    if json_output:
        data = json.loads(out)
        assert data["games"] == 2 and data["stopped"] == "interrupted"
    else:
        assert "2 games, score" in out and "stopped at Ctrl-C" in out
    assert pdn.read_text().count("[Event ") == 2


def test_ctrl_c_before_the_first_game_ends_prints_no_rating(
    pool_loads: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: object, *args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(rate_module.GameRunner, "submit", interrupted)
    assert rate_main(["random", "--no-progress"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == "damas rate: interrupted"


def test_damas_arena_plays_a_python_agent(
    agents_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from damas_agents.arena.cli import main as arena_main

    argv = ["--agents", "python:my_agents.py:policy", "random", "--games", "2", "--no-progress"]
    assert arena_main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["agent_a"], data["agent_b"], data["games"]) == ("my_agents.py:policy", "random", 2)
    assert arena_main(["--agents", "python:my_agents.py:nothing", "random"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("damas arena: error: python:my_agents.py:nothing: my_agents.py has")
