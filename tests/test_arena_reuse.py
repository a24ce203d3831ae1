"""The arena builds each agent once per process and reuses it game after game: counted
builds, reseeding that keeps every game as a fresh agent would play it, thinking time that
leaves out building, reset() and the first hop, and engines that quit when the match ends."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
from collections import Counter
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from damas_agents import specs
from damas_agents.arena import play_match, round_robin
from damas_env import get_ruleset

match = importlib.import_module("damas_agents.arena.match")


class Counted:
    """A random hop from the mask, drawn from a seeded ``rng`` that ``reseed`` restarts; counts
    its builds, resets and closes in class attributes."""

    name = "counted"
    built = resets = closed = 0

    def __init__(self, seed: int | None = None) -> None:
        Counted.built += 1
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        Counted.resets += 1

    def close(self) -> None:
        Counted.closed += 1

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


class Unseedable(Counted):
    """A random hop from a stream the arena cannot restart (no ``reseed``)."""

    name = "unseedable"

    reseed = None  # type: ignore[assignment]  # not Reseedable

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._stream = self.__dict__.pop("rng")

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        return int(self._stream.choice(np.flatnonzero(observation["action_mask"])))


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> str:
    """Returns the spec "counted" (a :class:`Counted`), its counters zeroed."""
    monkeypatch.setitem(specs.KINDS, "counted", specs.Kind(f"{__name__}:Counted", usage="counted"))
    for counter in ("built", "resets", "closed"):
        monkeypatch.setattr(Counted, counter, 0)
    return "counted"


# --- Built once, closed at the end ----------------------------------------------------------


def test_a_match_builds_each_agent_once_and_closes_it_at_the_end(counted: str) -> None:
    """Six games: each side's agent is built once (not once a game), reset before every game,
    and closed when the match ends; a factory's agent too (built once, for its name)."""
    play_match(counted, counted, "english", games=6, max_plies=12, progress=False)
    assert (Counted.built, Counted.resets, Counted.closed) == (2, 12, 2)
    play_match(Counted, counted, "english", games=6, max_plies=12, progress=False)
    assert (Counted.built, Counted.resets, Counted.closed) == (4, 24, 4)


def test_a_round_robin_builds_each_agent_once(counted: str) -> None:
    round_robin([counted, Counted, counted], "russian", games=2, max_plies=8, progress=False)
    assert (Counted.built, Counted.resets, Counted.closed) == (3, 12, 3)


def test_an_agent_the_arena_cannot_reseed_is_built_for_each_game(counted: str) -> None:
    """Reusing it would make a game depend on the games before it, so it is built for each
    game, as a throwaway warms up first, and every one is closed."""
    one = play_match(Unseedable, counted, "english", games=4, max_plies=12, seed=3, progress=False)
    assert Counted.built == 1 + 1 + 1 + 4  # counted; the name's; the warm-up's; one a game
    assert Counted.closed == Counted.built
    again = play_match(
        Unseedable, Counted, "english", games=4, max_plies=12, seed=3, progress=False
    )
    assert again.records == one.records


def test_agent_instances_are_used_as_they_are_and_left_open(counted: str) -> None:
    mine = Counted(seed=1)
    play_match(mine, counted, "english", games=4, max_plies=8, progress=False)
    assert (Counted.built, Counted.closed) == (2, 1)  # mine and the spec's; the spec's closed


# --- Reused, yet each game as a fresh agent plays it ----------------------------------------

HAS = {name: importlib.util.find_spec(name) is not None for name in ("torch", "pyspiel")}


def _checkpoint(folder: Path, sims: int) -> str:
    """Returns the spec of a tiny AlphaZero network's checkpoint (untrained: it plays)."""
    sys.path.insert(0, str(Path(__file__).parent))
    from helpers import tiny_config

    from damas_agents.models.checkpoint import save_checkpoint
    from damas_agents.training.alphazero import AlphaZeroTrainer

    path = folder / "tiny.pt"
    if not path.exists():
        save_checkpoint(path, AlphaZeroTrainer(tiny_config()), with_trainer=False)
    return f"checkpoint:{path},sims={sims}" if sims else f"checkpoint:{path}"


#: Every seeded kind a spec names, with a cheap spec of it (None: its own module's spec).
SEEDED = {
    "random": "random",
    "greedy": "greedy",
    "alphabeta": "alphabeta:depth=2",
    "mcts": "mcts:sims=12",
    "openspiel-mcts": "openspiel-mcts:sims=8",
    "checkpoint": None,
    "pretrained": "pretrained:english,depth=1",
}


def test_every_seeded_kind_is_checked_for_reuse() -> None:
    """A new kind that takes a seed must join SEEDED: the arena reseeds it between games only
    if it has a ``reseed(seed)`` method (``players.base.Reseedable``)."""
    seeded = {name for name, kind in specs.KINDS.items() if kind.seeded}
    assert seeded <= set(SEEDED), seeded - set(SEEDED)


def _jobs(spec: str, seed: int, games: int = 4) -> list[Any]:
    rules = get_ruleset("english")
    pair = (spec, "random")
    return match._schedule(pair, (0, 1), pair, rules, games, seed, 24)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(k, marks=pytest.mark.skipif(not HAS["pyspiel"], reason="no OpenSpiel"))
        if k == "openspiel-mcts"
        else pytest.param(k, marks=pytest.mark.skipif(not HAS["torch"], reason="no torch"))
        if k in ("checkpoint", "pretrained")
        else k
        for k in SEEDED
    ]
    + [pytest.param("checkpoint-sims", marks=pytest.mark.skipif(not HAS["torch"], reason="torch"))],
)
def test_a_reused_agent_plays_each_game_as_a_fresh_one(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The games played by agents kept across games, in reverse order (and after a warm-up
    hop), equal the games of agents built for each game with its seed and never warmed up:
    what the arena did before it kept agents."""
    spec = SEEDED.get(kind) or _checkpoint(tmp_path, sims=2 if kind == "checkpoint-sims" else 0)
    jobs = _jobs(spec, seed=11)
    with monkeypatch.context() as patch:
        patch.setattr(match._Players, "_warm_up", staticmethod(lambda *args: None))
        fresh = []
        for job in jobs:
            with match._Players() as players:
                fresh.append(match._run_job(job, players))
    with match._Players() as players:
        kept = {job.index: match._run_job(job, players) for job in reversed(jobs)}
    assert [kept[i] for i in range(len(jobs))] == fresh
    assert len({r.pdn for r in fresh}) == len(fresh)  # the games differ: seeds mattered


# --- Thinking time ----------------------------------------------------------------------------


class Clock:
    """A fake perf_counter: it moves only when an agent says it spends time."""

    now = 0.0

    def __call__(self) -> float:
        return Clock.now


class Costly(Counted):
    """Its building costs 1000 fake seconds, reset() 100 and its first hop 10 (tables to
    allocate, an engine's first search); every later hop costs one."""

    name = "costly"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        Clock.now += 1000
        self.first = True

    def reset(self) -> None:
        Clock.now += 100

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        Clock.now += 10 if self.first else 1
        self.first = False
        return super().act(observation, position, hops)


def test_thinking_time_leaves_out_building_reset_and_the_first_hop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a fake clock, each timed move costs its hops (one second each, fewer than ten
    hops a move here): no move carries a build (1000), a reset (100) or a first hop (10)."""
    monkeypatch.setattr(
        match, "time", SimpleNamespace(perf_counter=Clock(), monotonic=time.monotonic)
    )
    result = play_match(Costly, partial(Costly), "english", games=4, max_plies=14, progress=False)
    for times in result.move_times():
        assert times.moves > 0 and times.seconds >= times.moves
        assert times.longest < 10, times


# --- A Hub engine ---------------------------------------------------------------------------

ENGINE = """\
import os, shlex, sys
from damas_env import Colour, Position
from damas_env.rules import get_ruleset

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine.log")
PIECES = {"e": 0, "w": 1, "W": 2, "b": -1, "B": -2}


def log(event):
    with open(LOG, "a") as file:
        file.write(f"{event} {os.getpid()}\\n")


def say(line):
    print(line, flush=True)


log("start")
position = None
for line in sys.stdin:
    words = shlex.split(line)
    if not words:
        continue
    command, args = words[0], dict(w.partition("=")[::2] for w in words[1:])
    if command == "hub":
        say("id name=logged")
        say("wait")
    elif command == "init":
        say("ready")
    elif command == "ping":
        say("pong")
    elif command == "new-game":
        log("new-game")
    elif command == "pos":
        board = [PIECES[c] for c in args["pos"][1:]]
        side = Colour.WHITE if args["pos"][0] == "W" else Colour.BLACK
        position = Position(get_ruleset("english"), board, side)
    elif command == "go":
        m = position.legal_moves()[0]
        squares = (m.origin, m.destination, *sorted(m.captures))
        say("done move=" + ("x" if m.captures else "-").join(str(s + 1) for s in squares))
    elif command == "quit":
        break
log("quit")
"""


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_hub_engine_starts_once_per_process_and_quits_at_the_end(
    tmp_path: Path, workers: int
) -> None:
    """Six games: one engine per process that plays (not one a game), told of each new game,
    and every engine quits before the match returns. Two workers play the same games."""
    script = tmp_path / "logged_hub.py"
    script.write_text(f"#!{sys.executable}\n{ENGINE}")
    script.chmod(0o755)
    spec = f"hub:{script},depth=1"
    result = play_match(
        spec, "random", "english", games=6, max_plies=16, seed=2, workers=workers, progress=False
    )
    events = [line.split() for line in (tmp_path / "engine.log").read_text().splitlines()]
    counts = Counter(event for event, _ in events)
    starts = {pid for event, pid in events if event == "start"}
    assert 1 <= counts["start"] <= workers and counts["new-game"] == 6
    assert {pid for event, pid in events if event == "quit"} == starts
    if workers == 2:
        alone = play_match(spec, "random", "english", games=6, max_plies=16, seed=2, progress=False)
        assert alone.records == result.records
