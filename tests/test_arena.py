"""The arena: statistics, ballots and openings, reproducible matches, PDN, round robins, CLI."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import pickle
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from damas_agents import specs
from damas_agents.arena import (
    GameRecord,
    MatchResult,
    MoveTimes,
    Opening,
    RoundRobinResult,
    elo_difference,
    openings_for,
    play_match,
    round_robin,
    score_stats,
    uses_ballots,
)
from damas_agents.arena.ballots import ACF_OPENINGS, BARRED, DECK
from damas_agents.arena.cli import main as arena_main
from damas_agents.command import main as damas_main
from damas_env import Position, draughts_v0
from damas_env.encoding import move_to_actions
from damas_env.game import Game
from damas_env.notation import read_pdn, write_pdn

HAS_CLASSIC = importlib.util.find_spec("damas_agents.players.classic") is not None


class StubRandom:
    """A uniformly random hop from the mask, seeded (stands in for damas_agents.players.classic)."""

    name = "stub-random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.reset()

    def reseed(self, seed: int | None) -> None:
        self.seed = seed
        self.reset()

    def reset(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


class StubLogged(StubRandom):
    """A StubRandom that writes "built PID" and "closed PID" lines to a log file."""

    name = "stub-logged"

    def __init__(self, seed: int | None = None, log: Path | None = None) -> None:
        super().__init__(seed)
        self.log = log
        self._write("built")

    def close(self) -> None:
        self._write("closed")

    def _write(self, event: str) -> None:
        if self.log is not None:
            with self.log.open("a") as file:
                file.write(f"{event} {os.getpid()}\n")


class StubFirst(StubRandom):
    """Always the lowest legal hop: a deterministic agent."""

    name = "stub-first"

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


class StubIllegal(StubRandom):
    """Plays an action the mask forbids."""

    name = "stub-illegal"

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


class StubSlow(StubRandom):
    """A random hop after 10 ms of sleep: an agent that thinks slowly."""

    name = "stub-slow"

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        time.sleep(0.01)
        return super().act(observation, position, hops)


class StubCompiling(StubRandom):
    """Slow on its first hop in a process only, as an agent whose kernels compile then."""

    name = "stub-compiling"
    compiled = False

    def act(self, observation: Any, position: Any = None, hops: Any = ()) -> int:
        if not StubCompiling.compiled:
            StubCompiling.compiled = True
            time.sleep(0.5)
        return super().act(observation, position, hops)


@pytest.fixture
def random_spec(monkeypatch: pytest.MonkeyPatch) -> str:
    """Returns "random", backed by StubRandom until damas_agents.players.classic exists (here)."""
    if not HAS_CLASSIC:
        stub = specs.Kind(f"{__name__}:StubRandom", usage="random")
        monkeypatch.setitem(specs.KINDS, "random", stub)
    return "random"


# --- Statistics -----------------------------------------------------------------------------


def test_score_stats_on_synthetic_results() -> None:
    s = score_stats(60, 20, 20)
    # per-game variance (60·0.3² + 20·0.2² + 20·0.7²)/100 = 0.16, so σ/√n = 0.04
    assert s.score == pytest.approx(0.7) and s.interval == "normal"
    assert s.score_ci == pytest.approx((0.7 - 1.959964 * 0.04, 0.7 + 1.959964 * 0.04))
    assert s.score_ci == pytest.approx((0.621601, 0.778399), abs=1e-6)
    assert s.elo == pytest.approx(400 * math.log10(7 / 3)) and round(s.elo) == 147
    assert s.elo_ci == pytest.approx((86.225, 218.252), abs=1e-3)
    assert (s.games, s.wins, s.draws, s.losses) == (100, 60, 20, 20)


def test_perfect_scores_have_a_wilson_interval_open_at_one_end() -> None:
    wins, losses = score_stats(10, 0, 0), score_stats(0, 0, 10)
    assert wins.score == 1.0 and wins.interval == "wilson"
    assert wins.score_ci == pytest.approx((10 / (10 + 1.959964**2), 1.0))
    assert wins.elo == pytest.approx(400 * math.log10(19))  # scored as 9.5/10, for logs
    assert losses.elo == pytest.approx(-wins.elo) and losses.score_ci[0] == 0.0
    assert wins.elo_ci[1] == math.inf and losses.elo_ci[0] == -math.inf
    assert wins.elo_ci[0] == pytest.approx(-losses.elo_ci[1]) and math.isfinite(wins.elo_ci[0])
    draws = score_stats(0, 10, 0)
    assert draws.elo == 0.0 and draws.score_ci == pytest.approx((0.236593, 0.763407), abs=1e-6)
    for stats in (wins, losses, draws):
        json.dumps(stats.to_dict(), allow_nan=False)  # no infinities or NaN


def test_a_whitewash_reports_an_elo_bound_not_an_interval() -> None:
    """Every game won (lost): the text says "Elo >" ("Elo <") the interval's end and that it
    is a bound; the JSON says which bound, with no estimate; an ordinary score keeps its
    interval."""
    wins, losses, mixed = score_stats(20, 0, 0), score_stats(0, 0, 20), score_stats(5, 10, 5)
    assert (wins.elo_bound, losses.elo_bound, mixed.elo_bound) == ("lower", "upper", None)
    assert (
        wins.elo_text()
        == f"Elo > {wins.elo_ci[0]:+.0f} (95% bound: every game won, so no estimate)"
    )
    assert losses.elo_text().startswith(
        f"Elo < {losses.elo_ci[1]:+.0f} (95% bound: every game lost"
    )
    assert mixed.elo_text() == "Elo +0  95% CI [-111, +111]"
    assert wins.to_dict()["elo"] is None and wins.to_dict()["elo_ci"] == [wins.elo_ci[0], None]
    assert losses.to_dict()["elo_ci"] == [None, losses.elo_ci[1]]
    match = play_match("alphabeta:depth=2", "random", "english", games=2, seed=0, progress=False)
    assert match.stats.score == 1.0
    data = json.loads(json.dumps(match.to_dict(), allow_nan=False))
    assert data["elo_bound"] == "lower" and data["elo"] is None and data["elo_ci"][1] is None
    assert "Elo > " in match.summary() and "95% CI [" not in match.summary().split("\n")[3]


@pytest.mark.parametrize(
    ("results", "text", "elo_ci"),
    [
        ((38, 2, 0), "Elo +636  95% CI [+482, +inf)", [481.815, None]),
        ((9, 1, 0), "Elo +512  95% CI [+311, +inf)", [311.101, None]),
        ((0, 2, 38), "Elo -636  95% CI (-inf, -482]", [None, -481.815]),
        ((1, 0, 1), "Elo +0  95% CI (-inf, +inf)", [None, None]),
        ((36, 4, 0), "Elo +512  95% CI [+389, +981]", [388.591, 980.9997]),
    ],
)
def test_an_interval_that_reaches_a_score_of_0_or_1_has_an_open_end(
    results: tuple[int, int, int], text: str, elo_ci: list[float | None]
) -> None:
    """Near a perfect score the normal interval reaches past 1: the Elo interval then has no
    upper end, written "+inf)" and null in the JSON, never the Elo of a clamped score (which
    once printed [+311, +512] for a score of 9.5/10, the upper end equal to the estimate)."""
    stats = score_stats(*results)
    assert stats.elo_text() == text and stats.elo_bound is None
    data = stats.to_dict()
    assert [None if end is None else round(end, 3) for end in data["elo_ci"]] == [
        None if end is None else pytest.approx(end, abs=1e-3) for end in elo_ci
    ]
    assert data["elo"] == stats.elo
    json.dumps(data, allow_nan=False)
    low, high = stats.elo_ci
    assert low < stats.elo < high  # the estimate lies inside its interval


def test_elo_difference_is_odd_and_clamped() -> None:
    assert elo_difference(0.5, 10) == 0.0
    assert elo_difference(0.76, 100) == pytest.approx(-elo_difference(0.24, 100))
    assert elo_difference(1.0, 100) == elo_difference(0.995, 100) < elo_difference(0.999, 200)
    with pytest.raises(ValueError):
        score_stats(0, 0, 0)


# --- Openings -------------------------------------------------------------------------------


def test_the_deck_has_156_distinct_ballots_of_the_174_acf_openings() -> None:
    assert len(ACF_OPENINGS) == 174 and len(BARRED) == 18
    assert len(DECK) == 156 and len({moves for _, moves in DECK}) == 156
    assert DECK[0] == (1, "9-13 21-17 5-9") and (46, "9-14 23-18 14x23") in DECK


@pytest.mark.parametrize("number", range(1, 175))
def test_every_acf_opening_is_legal_in_the_engine_and_the_env(number: int) -> None:
    game, env = Game("english"), draughts_v0.raw_env("english")
    env.reset()
    for text in ACF_OPENINGS[number - 1].split():
        move = game.position.find_move(text)
        for action in move_to_actions(move, game.turn, 8):
            env.step(action)
        game.push(move)
    assert env.position == game.position and not game.is_over and game.ply == 3


def test_ballots_apply_to_rulesets_that_open_like_english() -> None:
    for name in ("english", "checkers", "english_adjudicated", "website_checkers"):
        assert uses_ballots(name)
    for name in ("international", "russian", "pool", "brazilian", "english_giveaway"):
        assert not uses_ballots(name)
    names = {o.name for o in openings_for("english", 156, seed=0)}
    assert len(names) == 156  # the whole deck before any repeat


def test_random_openings_are_reproducible_legal_and_distinct() -> None:
    openings = openings_for("international", 12, seed=3)
    assert openings == openings_for("international", 12, seed=3)
    assert openings != openings_for("international", 12, seed=4)
    assert len({o.moves for o in openings}) == 12
    for opening in openings:
        assert 2 <= len(opening.moves) <= 4
        position = Position.start("international")
        for text in opening.moves:
            position = position.play(text)


def test_each_opening_is_played_with_both_colours() -> None:
    result = play_match(StubRandom, StubFirst, "russian", games=6, seed=2, progress=False)
    records = result.records
    assert [r.a_first for r in records] == [True, False] * 3
    assert [r.a_colour for r in records] == ["white", "black"] * 3  # White starts in Russian
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.opening == second.opening and first.opening.name.startswith("random")
    assert len({r.opening for r in records}) == 3


# --- Matches --------------------------------------------------------------------------------


def test_a_match_is_reproducible_and_the_same_with_two_workers(tmp_path: Path) -> None:
    """Each process builds its agents once and reuses them (the games it plays differ from
    run to run), yet every game is the same; a worker closes its agents when it exits."""
    a = "random" if HAS_CLASSIC else partial(StubRandom)  # a spec, built in each worker
    b = partial(StubLogged, log=tmp_path / "agents.log")  # a picklable factory
    one = play_match(a, b, "english", games=6, seed=5, progress=False)
    again = play_match(a, b, "english", games=6, seed=5, progress=False)
    (tmp_path / "agents.log").unlink()
    two = play_match(a, b, "english", games=6, seed=5, workers=2, progress=False)
    assert one.records == again.records == two.records  # the times differ, and do not count
    log = Counter(
        tuple(line.split()) for line in (tmp_path / "agents.log").read_text().split("\n") if line
    )
    pids = {pid for _, pid in log}
    assert 2 <= len(pids) <= 3  # this process (the name) and the workers that played
    assert all(log["built", pid] == 1 == log["closed", pid] for pid in pids), log
    assert all(t.moves > 0 for r in two.records for t in r.times)  # they came back from workers
    assert play_match(a, b, "english", games=6, seed=6, progress=False).records != one.records
    assert (one.agent_a, one.agent_b) == ("random", "stub-logged") or not HAS_CLASSIC


def test_pdn_reads_back_to_the_same_final_positions() -> None:
    result = play_match(StubRandom, StubFirst, "english", games=4, seed=0, progress=False)
    games = read_pdn(result.pdn())
    assert len(games) == 4
    for pdn, record in zip(games, result.records, strict=True):
        game = Game.from_pdn(write_pdn(pdn))
        assert game.position.fen() == record.final_fen and game.ply == record.plies
        assert pdn.moves[:3] == list(record.opening.moves)
        assert pdn.tags["Termination"] == record.reason
        a_is_white = record.a_colour == "white"
        assert pdn.tags["White" if a_is_white else "Black"] == "stub-random"
        if record.reason != "max_plies":  # decided by the rules: the PDN result agrees
            expected = {1.0: "1-0", 0.0: "0-1"}.get(
                record.score if a_is_white else 1 - record.score
            )
            assert pdn.result == (expected or "1/2-1/2")


def test_max_plies_ends_games_as_draws_and_stats_add_up() -> None:
    result = play_match(
        StubRandom, StubRandom, "international", games=4, max_plies=10, progress=False
    )
    assert all(r.plies == 10 and r.reason == "max_plies" and r.score == 0.5 for r in result.records)
    assert (result.stats.draws, result.average_plies) == (4, 10.0)
    data = result.to_dict()
    assert data["by_opening"] and sum(sum(v.values()) for v in data["by_opening"].values()) == 4


def test_an_illegal_action_loses_the_game() -> None:
    result = play_match(StubIllegal, StubRandom, "english", games=2, progress=False)
    assert [(r.score, r.reason) for r in result.records] == [(0.0, "illegal_action")] * 2
    assert result.stats.losses == 2


def test_agent_instances_play_here_but_not_in_workers() -> None:
    a, b = StubRandom(seed=1), StubFirst()
    result = play_match(a, b, "english", games=2, progress=False)
    assert (result.agent_a, result.agent_b, result.games) == ("stub-random", "stub-first", 2)
    with pytest.raises(ValueError, match="workers"):
        play_match(a, b, "english", games=2, workers=2, progress=False)
    with pytest.raises(ValueError):
        play_match(a, b, "no-such-variant", games=2, progress=False)
    with pytest.raises(ValueError):
        play_match(a, b, "english", games=0, progress=False)


def test_each_side_thinking_time_is_measured(random_spec: str) -> None:
    result = play_match(StubSlow, random_spec, "english", games=2, max_plies=16, progress=False)
    slow, fast = result.move_times()
    timed = sum(r.plies - len(r.opening.moves) for r in result.records)  # openings are not
    assert slow.moves + fast.moves == timed and slow.moves > 0 and fast.moves > 0
    for t in (slow, fast, *(t for r in result.records for t in r.times)):
        assert math.isfinite(t.seconds) and 0 <= t.mean <= t.longest <= t.seconds
    assert slow.mean >= 0.01 and slow.mean > fast.mean
    data = json.loads(json.dumps(result.to_dict()))  # finite numbers only
    times = data["seconds_per_move"]
    assert list(times) == ["stub-slow", result.agent_b]
    assert times["stub-slow"]["mean"] == pytest.approx(slow.mean) and times["stub-slow"]["max"]
    assert set(data["records"][0]["seconds_per_move"]) == {"a", "b"}
    assert "seconds per move: stub-slow mean " in result.summary()


def test_a_one_time_cost_per_process_is_not_thinking_time() -> None:
    result = play_match(StubCompiling, StubFirst, "english", games=2, max_plies=8, progress=False)
    assert StubCompiling.compiled and result.move_times()[0].longest < 0.5


def test_move_times_add_up_and_pickle() -> None:
    times = MoveTimes().added(0.5).added(0.25) + MoveTimes().added(1.0)
    assert (times.moves, times.seconds, times.longest, times.mean) == (3, 1.75, 1.0, 1.75 / 3)
    assert MoveTimes().mean == 0.0 and MoveTimes().to_dict()["max"] == 0.0
    record = play_match(StubRandom, StubFirst, "english", games=1, progress=False).records[0]
    again = pickle.loads(pickle.dumps(record))
    assert again == record and again.times == record.times and record.times[0].moves > 0


def test_progress_counter_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    play_match(StubRandom, StubFirst, "english", games=2, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "2/2" in err  # tqdm's bar or the plain counter


# --- Round robin ----------------------------------------------------------------------------


def _record(score: float) -> GameRecord:
    return GameRecord(0, Opening("x", ()), True, "black", score, "no_legal_move", 3, "", "")


def _match(a: str, b: str, wins: int, losses: int) -> MatchResult:
    records = [_record(1.0)] * wins + [_record(0.0)] * losses
    return MatchResult(a, b, "english", 0, records)


def test_ladder_is_the_least_squares_fit_of_pairwise_elo() -> None:
    matches = {
        (0, 1): _match("a", "b", 1, 3),  # a scores 0.25 against b
        (0, 2): _match("a", "c", 1, 9),  # 0.10 against c
        (1, 2): _match("b", "c", 3, 1),  # b scores 0.75 against c
    }
    result = RoundRobinResult(["a", "b", "c"], "english", 0, matches)
    e_ab, e_ac, e_bc = elo_difference(0.25, 4), elo_difference(0.1, 10), elo_difference(0.75, 4)
    fit = {"a": (e_ab + e_ac) / 3, "b": (-e_ab + e_bc) / 3, "c": (-e_ac - e_bc) / 3}
    ladder = dict(result.ladder())
    assert ladder == pytest.approx({k: v - fit["a"] for k, v in fit.items()})
    assert [a for a, _ in result.ladder()] == ["b", "c", "a"] and ladder["a"] == 0.0
    assert result.points(1, 0) == (3.0, 4) and result.points(2, 2) == (0.0, 0)
    assert "10.0" in result.crosstable() and "Elo ladder" in result.summary()


def test_round_robin_plays_every_pair() -> None:
    result = round_robin(
        [StubRandom, StubFirst, partial(StubRandom)], "english", games=2, seed=1, progress=False
    )
    assert result.agents == ["stub-random", "stub-first", "stub-random#2"]
    assert sorted(result.matches) == [(0, 1), (0, 2), (1, 2)]
    for (i, j), match in result.matches.items():
        assert match.games == 2 and match.agent_a == result.agents[i]
        replay = play_match(
            [StubRandom, StubFirst, partial(StubRandom)][i],
            [StubRandom, StubFirst, partial(StubRandom)][j],
            "english",
            games=2,
            seed=match.seed,
            progress=False,
        )
        same = [(r.opening, r.a_first, r.score, r.plies, r.final_fen) for r in replay.records]
        assert same == [
            (r.opening, r.a_first, r.score, r.plies, r.final_fen) for r in match.records
        ]
    assert len(read_pdn(result.pdn())) == 6
    times = result.move_times()
    assert list(times) == result.agents and all(t.moves > 0 for t in times.values())
    assert sum(t.moves for t in times.values()) == sum(
        t.moves for m in result.matches.values() for t in m.move_times()
    )
    assert set(result.to_dict()["seconds_per_move"]) == set(result.agents)
    assert "seconds per move:" in result.summary()
    with pytest.raises(ValueError):
        round_robin(["random"], progress=False)


# --- Command line ---------------------------------------------------------------------------


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = arena_main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_json_has_the_keys_and_the_pdn_file_reads_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, random_spec: str
) -> None:
    pdn = tmp_path / "games.pdn"
    status, out, _ = arena(
        capsys, "--agents", random_spec, random_spec, "--games", "4", "--pdn", str(pdn), "--json"
    )
    data = json.loads(out)
    assert status == 0 and out.count("\n") == 1
    keys = {"games", "wins", "draws", "losses", "score", "score_ci", "elo", "elo_ci"}
    keys |= {"seconds_per_move"}
    assert keys <= set(data) and data["games"] == 4 == data["wins"] + data["draws"] + data["losses"]
    assert len(data["score_ci"]) == 2 and data["variant"] == "english"
    games = read_pdn(pdn.read_text())
    assert [Game.from_pdn(write_pdn(g)).position.fen() for g in games] == [
        r["final_fen"] for r in data["records"]
    ]


def test_cli_text_match_and_round_robin(
    capsys: pytest.CaptureFixture[str], random_spec: str
) -> None:
    status, out, _ = arena(
        capsys, "--agents", random_spec, random_spec, "--games", "2", "--no-progress"
    )
    assert status == 0 and "score" in out and "Elo" in out and "by opening" in out
    assert "seconds per move: " in out
    status = damas_main(
        [
            "arena",
            "--agents",
            random_spec,
            random_spec,
            random_spec,
            "--games",
            "2",
            "--variant",
            "russian",
            "--no-progress",
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0 and "crosstable" in out and "Elo ladder" in out and err == ""


def test_cli_round_robin_json(capsys: pytest.CaptureFixture[str], random_spec: str) -> None:
    status, out, _ = arena(
        capsys,
        "--agents",
        random_spec,
        random_spec,
        random_spec,
        "--games",
        "2",
        "--json",
        "--no-progress",
    )
    data = json.loads(out)
    assert status == 0 and len(data["ladder"]) == 3 and len(data["matches"]) == 3
    assert data["ladder"][0]["agent"] in data["agents"]
    assert set(data["seconds_per_move"]) == set(data["agents"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "random", "nosuch"], "unknown agent kind 'nosuch'"),
        (["--agents", "random", "alphabeta:depth=x"], "must be an integer"),
        (["--agents", "random", "random", "--variant", "nosuch"], "unknown variant"),
        (
            ["--agents", "random", "random", "random", "--games", "50000"],
            "games per pair (3 pairs) must be an int in [1, 33333], not 50000",
        ),
        (["--agents", "random"], "at least two"),
        (["--agents", "random", "checkpoint:x.pt"], "no checkpoint file at 'x.pt'"),
    ],
)
def test_cli_errors_exit_2_on_stderr(
    capsys: pytest.CaptureFixture[str], random_spec: str, argv: list[str], message: str
) -> None:
    status, out, err = arena(capsys, *argv, "--no-progress")
    assert status == 2 and out == "" and message in err and err.startswith("damas arena: error")


def test_cli_variant_reads_a_rules_file_only_as_a_path(
    capsys: pytest.CaptureFixture[str], random_spec: str
) -> None:
    preset = str(Path(__file__).parent.parent / "damas_env" / "presets" / "website_checkers.yaml")
    status, out, _ = arena(
        capsys, "--variant", preset, "--agents", random_spec, random_spec, "--games", "2", "--json"
    )
    assert status == 0 and json.loads(out)["variant"] == "website_checkers"
    status, _, err = arena(
        capsys, "--variant", "no_such_rules", "--agents", random_spec, random_spec
    )
    assert status == 2 and "unknown variant 'no_such_rules'" in err
