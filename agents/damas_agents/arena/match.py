"""The arena: matches between agents with fair openings, statistics and PDN.

    result = play_match("alphabeta:depth=2", "random", variant="english", games=20)
    print(result.summary())          # W/D/L, score and Elo with 95% intervals, by opening
    open("games.pdn", "w").write(result.pdn())

Colours alternate and each opening (ACF ballots, or 2-4 random plies) is played with both.
A match is reproducible from its seed with any number of workers: agents given as specs are
built once per process and reseeded before each game; instances are used as they are.
:func:`score_stats` gives the score ``(W + D/2) / n``, its 95% interval (normal, or Wilson's
when every game had one result) and the Elo ``-400 log10(1/s - 1)`` with its interval (an
end is ``±inf`` where the score's reaches 0 or 1; a perfect score gives a bound,
``elo_bound``). Round robins rank by a least-squares fit of the pairwise Elo differences.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.util
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, TypeAlias

import numpy as np

from damas_agents.arena.ballots import DECK
from damas_agents.players.base import Agent, Reseedable, play_hop
from damas_agents.players.make import make_agent
from damas_agents.workers import exit_with_parent
from damas_env import Colour, Ruleset, get_ruleset
from damas_env.checks import checked_int
from damas_env.draughts_v0 import IllegalActionError, raw_env
from damas_env.encoding import actions_to_move, move_to_actions
from damas_env.ending import Reason
from damas_env.engine import Move
from damas_env.game import Game

__all__ = [
    "MAX_AGENTS",
    "MAX_GAMES",
    "MAX_PLIES",
    "MAX_SEED",
    "MAX_WORKERS",
    "AgentSource",
    "GameRecord",
    "GameRunner",
    "MatchResult",
    "MoveTimes",
    "Opening",
    "RoundRobinResult",
    "ScoreStats",
    "elo_difference",
    "openings_for",
    "play_match",
    "round_robin",
    "score_stats",
    "uses_ballots",
]

#: What the arena accepts as a player: a spec string (``"alphabeta:depth=4"``), an agent,
#: or a factory called as ``factory(seed=...)``. Processes other than the caller's
#: (``workers > 1``) need a spec or a picklable factory.
AgentSource: TypeAlias = str | Agent | Callable[..., Agent]

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054

#: Games one call plays, a round robin's pairs together (the schedule is built up front).
MAX_GAMES = 100_000
#: Worker processes one call starts.
MAX_WORKERS = 256
#: Agents in a round robin (2016 pairs).
MAX_AGENTS = 64
#: The largest ``max_plies`` (longer games are not draughts, they are a stuck agent).
MAX_PLIES = 100_000
#: The largest seed: the per-game seeds are derived from it as 32-bit numbers.
MAX_SEED = 2**32 - 1

# --- Statistics -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreStats:
    """A match from agent A's side: results, score and Elo with 95% intervals."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_ci: tuple[float, float]
    elo: float
    """The Elo difference; for a whitewash, the Elo a score of n - ½ would give (see
    :attr:`elo_bound`)."""
    elo_ci: tuple[float, float]
    """The 95% interval of the Elo difference: ``-inf`` or ``+inf`` where the score's
    interval reaches 0 or 1 (then there is no bound on that side)."""
    interval: str
    """How score_ci was computed: "normal" (per-game variance) or "wilson" (σ = 0)."""

    @property
    def elo_bound(self) -> str | None:
        """ "upper" when every game was lost, "lower" when every game was won: then there is
        no Elo estimate, only a bound (the 95% interval's end: ``elo_ci[1]``, ``elo_ci[0]``).
        None otherwise."""
        if self.score == 0:
            return "upper"
        if self.score == 1:
            return "lower"
        return None

    def elo_text(self) -> str:
        """Returns the Elo difference with its 95% interval (an open end written ``+inf)``),
        or the bound a whitewash gives."""
        if self.elo_bound == "upper":
            return f"Elo < {self.elo_ci[1]:+.0f} (95% bound: every game lost, so no estimate)"
        if self.elo_bound == "lower":
            return f"Elo > {self.elo_ci[0]:+.0f} (95% bound: every game won, so no estimate)"
        low, high = self.elo_ci
        opening, closing = "(" if low == -math.inf else "[", ")" if high == math.inf else "]"
        return f"Elo {self.elo:+.0f}  95% CI {opening}{low:+.0f}, {high:+.0f}{closing}"

    def to_dict(self) -> dict[str, Any]:
        """Returns the statistics as JSON-ready values: an interval's open end is null, and
        so is ``elo`` when there is no estimate (``elo_bound`` says which bound there is)."""
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "score_ci": list(self.score_ci),
            "score_ci_method": self.interval,
            "elo": None if self.elo_bound else self.elo,
            "elo_ci": [end if math.isfinite(end) else None for end in self.elo_ci],
            "elo_bound": self.elo_bound,
        }


def score_stats(wins: int, draws: int, losses: int, z: float = Z95) -> ScoreStats:
    """Returns the score, its interval, and the Elo difference with its interval.

    Raises:
        ValueError: a count is negative or there are no games.
    """
    if min(wins, draws, losses) < 0 or wins + draws + losses == 0:
        raise ValueError(
            f"need non-negative results and at least one game, not {wins, draws, losses}"
        )
    n = wins + draws + losses
    score = (wins + draws / 2) / n
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    if variance > 0:
        half = z * math.sqrt(variance / n)
        low, high, method = max(0.0, score - half), min(1.0, score + half), "normal"
    else:
        low, high = _wilson(score, n, z)
        method = "wilson"
    elo_ci = (_elo(low), _elo(high))  # unclamped: an end at a score of 0 or 1 is infinite
    return ScoreStats(
        n, wins, draws, losses, score, (low, high), elo_difference(score, n), elo_ci, method
    )


def _wilson(p: float, n: int, z: float) -> tuple[float, float]:
    """Returns the Wilson score interval of a proportion p observed over n trials."""
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low = 0.0 if p == 0 else max(0.0, centre - half)  # exact ends: rounding leaves 1e-17
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return low, high


def elo_difference(score: float, games: int) -> float:
    """Returns ``-400 log10(1/s - 1)``, with s clamped to [1/(2n), 1 - 1/(2n)] over n games."""
    eps = 1 / (2 * games)
    return _elo(min(max(score, eps), 1 - eps))


def _elo(score: float) -> float:
    """Returns ``-400 log10(1/s - 1)``: -inf at a score of 0, +inf at 1."""
    if score <= 0 or score >= 1:
        return math.copysign(math.inf, score - 0.5)
    if score == 0.5:
        return 0.0
    return -400 * math.log10(1 / score - 1)


# --- Openings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opening:
    """Moves played from the start position before the agents take over."""

    name: str
    moves: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.name}: {' '.join(self.moves)}" if self.moves else self.name


# The switches that decide which openings are legal and sound: rulesets equal to English on
# these (whatever their draw rules) open like English checkers and use its ballot deck.
_OPENING_SWITCHES = ("board_size", "rows_per_side", "first_player", "men_capture_backward")


def uses_ballots(rules: Ruleset | str) -> bool:
    """Returns True if a ruleset opens like English checkers (so the ACF ballots apply)."""
    rules = get_ruleset(rules)
    english = get_ruleset("english")
    same = all(getattr(rules, key) == getattr(english, key) for key in _OPENING_SWITCHES)
    return same and not rules.giveaway  # a ballot's soundness means nothing when losing wins


def openings_for(rules: Ruleset | str, count: int, seed: int) -> list[Opening]:
    """Returns `count` openings for a ruleset, reproducible from the seed.

    English-like rulesets get ACF ballots in an order shuffled by the seed (cycling after
    156); others get 2-4 random plies, distinct while the seed allows.
    """
    rules = get_ruleset(rules)
    if uses_ballots(rules):
        deck = [Opening(f"ACF {number:03d}", tuple(moves.split())) for number, moves in DECK]
        order = np.random.default_rng(seed).permutation(len(deck))
        return [deck[order[k % len(deck)]] for k in range(count)]
    return _random_openings(rules, count, seed)


def _random_openings(rules: Ruleset, count: int, seed: int) -> list[Opening]:
    """Returns openings of 2-4 uniformly random legal plies, avoiding repeats (20 tries)."""
    rng = np.random.default_rng(seed)
    seen: set[tuple[str, ...]] = set()
    openings = []
    for k in range(count):
        for _ in range(20):
            moves = _random_plies(rules, rng)
            if moves not in seen:
                break
        seen.add(moves)
        openings.append(Opening(f"random {k + 1:03d}", moves))
    return openings


def _random_plies(rules: Ruleset, rng: np.random.Generator) -> tuple[str, ...]:
    game = Game(rules)
    for _ in range(int(rng.integers(2, 5))):
        legal = game.legal_moves()
        if not legal:
            break
        game.push(legal[int(rng.integers(len(legal)))])
    return tuple(game.move_strings())


# --- One game -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoveTimes:
    """One side's thinking time: the moves timed, their total and the longest, in seconds."""

    moves: int = 0
    seconds: float = 0.0
    longest: float = 0.0

    @property
    def mean(self) -> float:
        """Returns the mean seconds per move (0 when no move was timed)."""
        return self.seconds / self.moves if self.moves else 0.0

    def added(self, seconds: float) -> MoveTimes:
        """Returns these times with one more move that took `seconds`."""
        return MoveTimes(self.moves + 1, self.seconds + seconds, max(self.longest, seconds))

    def __add__(self, other: MoveTimes) -> MoveTimes:
        """Returns the times of both together (moves and seconds summed, the longest kept)."""
        longest = max(self.longest, other.longest)
        return MoveTimes(self.moves + other.moves, self.seconds + other.seconds, longest)

    def to_dict(self) -> dict[str, float]:
        """Returns ``{"mean", "max", "moves", "total"}`` (seconds, and the moves timed)."""
        return {"mean": self.mean, "max": self.longest, "moves": self.moves, "total": self.seconds}

    def __str__(self) -> str:
        return f"mean {self.mean:.3g} max {self.longest:.3g}"


def _summed(times: Iterable[MoveTimes]) -> MoveTimes:
    """Returns the sum of some MoveTimes (of none: no moves)."""
    return sum(times, MoveTimes())


@dataclass(frozen=True)
class GameRecord:
    """One game of a match, from agent A's side."""

    index: int
    opening: Opening
    a_first: bool
    """Agent A moved first (played the ruleset's first colour)."""
    a_colour: str
    score: float
    """A's points: 1 win, 0.5 draw, 0 loss."""
    reason: str
    """Why the game ended: the label of the env's ``infos[agent]["reason"]`` (a ``Reason``)
    (``max_plies``: a draw; ``illegal_action``: the loser played one)."""
    plies: int
    """Plies played, the opening's included."""
    final_fen: str
    pdn: str
    times: tuple[MoveTimes, MoveTimes] = field(default=(MoveTimes(), MoveTimes()), compare=False)
    """A's and B's thinking time (measured, so left out of equality)."""

    @property
    def result(self) -> str:
        """Returns "win", "draw" or "loss" for agent A."""
        return {1.0: "win", 0.5: "draw", 0.0: "loss"}[self.score]

    def to_dict(self) -> dict[str, Any]:
        """Returns the record as JSON-ready values (without the PDN text)."""
        return {
            "index": self.index,
            "opening": self.opening.name,
            "opening_moves": list(self.opening.moves),
            "a_colour": self.a_colour,
            "result": self.result,
            "score": self.score,
            "reason": self.reason,
            "plies": self.plies,
            "final_fen": self.final_fen,
            "seconds_per_move": {"a": self.times[0].to_dict(), "b": self.times[1].to_dict()},
        }


def _play(
    env: raw_env, players: dict[str, Agent], opening: Opening
) -> tuple[Game, dict[str, MoveTimes]]:
    """Plays one game from an opening in the env (which then holds its ending); returns the
    game record and each env agent's thinking time. An illegal action loses: it ends the
    game (Reason.ILLEGAL_ACTION)."""
    env.reset()
    game = Game(env.rules)
    for text in opening.moves:
        _push(env, game, game.position.find_move(text))
    for agent in players.values():
        agent.reset()
    times = {name: MoveTimes() for name in players}
    while not _is_over(env):
        mover, start, hops, thinking = env.agent_selection, env.position, [], 0.0
        while env.agent_selection == mover and not _is_over(env):
            clock = time.perf_counter()
            action = play_hop(players[mover], env)
            thinking += time.perf_counter() - clock
            try:
                env.step(action)
            except IllegalActionError:  # the agent's bug costs it the game, not the match
                times[mover] = times[mover].added(thinking)
                env.end_game(next(a for a in env.agents if a != mover), Reason.ILLEGAL_ACTION)
                return game, times
            hops.append(action)
        times[mover] = times[mover].added(thinking)
        game.push(actions_to_move(hops, start))
    return game, times


def _push(env: raw_env, game: Game, move: Move) -> None:
    """Plays a move in both the env (hop by hop) and the game record."""
    for action in move_to_actions(move, game.turn, env.rules):
        env.step(action)
    game.push(move)


def _is_over(env: raw_env) -> bool:
    return any(env.terminations.values()) or any(env.truncations.values())


# --- Jobs: one game each, run here or in worker processes -----------------------------------


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs to play one game (picklable for spec and factory agents)."""

    index: int
    sources: tuple[AgentSource, AgentSource]
    keys: tuple[int, int]
    """The agents' places among the call's agents (0 and 1 in a match, i and j in a round
    robin): a process builds one agent per key and reuses it (:class:`_Players`)."""
    names: tuple[str, str]
    seeds: tuple[int, int]
    a_first: bool
    opening: Opening
    rules: Ruleset
    max_plies: int | None
    event: str


_ENVS: dict[tuple[Ruleset, int | None], raw_env] = {}  # one env per process and ruleset


def _env_for(job: _Job) -> raw_env:
    """Returns this process's env for a job's ruleset, its observation warmed up."""
    key = (job.rules, job.max_plies)
    if key not in _ENVS:
        env = raw_env(job.rules, max_plies=job.max_plies)  # type: ignore[arg-type]
        env.reset()
        env.observe(env.agent_selection)  # compiles (or loads) the observation kernels now:
        _ENVS[key] = env  # seconds that are not the first mover's thinking time
    return _ENVS[key]


class _Players:
    """The agents one process plays with: each built once, then reused game after game.

    An agent is known by its key (:attr:`_Job.keys`). The first game that needs it builds it
    from its spec or factory and asks it for one hop from the start position, so that a
    one-time cost (compiling kernels, allocating tables, an engine's first search) is not
    thinking time. Before every game its random streams restart from the game's seed
    (:func:`_reseed`), so it plays as an agent built for that game would, and a match does
    not depend on which process played which game. A factory's agent that :func:`_reseed`
    does not know how to reseed is built for each game instead (and a throwaway one warms
    up). Agents given as instances are the caller's: used as they are, never closed.
    """

    def __init__(self) -> None:
        self._kept: dict[int, Agent] = {}
        self._once: list[Agent] = []  # built for one game: closed by release()
        self._warm: set[int] = set()

    def take(self, key: int, source: AgentSource, seed: int, env: raw_env | None = None) -> Agent:
        """Returns agent `key` seeded for a game (`reset()` then starts the game); warmed up
        on `env` the first time one is given."""
        if _is_instance(source):
            return source  # type: ignore[return-value]
        agent = self._kept.get(key)
        if agent is None:
            agent = _build(source, seed)
            if isinstance(source, str) or _reseed(agent, seed):  # every kind a spec names
                self._kept[key] = agent  # is reseeded or has no random stream (tested)
            else:
                self._once.append(agent)
        if env is not None and key not in self._warm:
            self._warm.add(key)
            self._warm_up(agent if self._kept.get(key) is agent else None, source, seed, env)
        _reseed(agent, seed)  # what the warm-up hop and earlier games drew is forgotten
        return agent

    @staticmethod
    def _warm_up(agent: Agent | None, source: AgentSource, seed: int, env: raw_env) -> None:
        """Asks an agent (None: a throwaway one) for one hop from the start position."""
        player = agent if agent is not None else _build(source, seed)
        try:
            env.reset()
            play_hop(player, env)
        finally:
            if agent is None:
                _close(player)

    def release(self, *agents: Agent) -> None:
        """Closes the agents built for one game only (kept ones stay open)."""
        for agent in agents:
            if any(agent is once for once in self._once):
                self._once = [once for once in self._once if once is not agent]
                _close(agent)

    def close(self) -> None:
        """Closes every agent built here (ends engine processes); the next game rebuilds."""
        agents = [*self._kept.values(), *self._once]
        self._kept, self._once, self._warm = {}, [], set()
        for agent in agents:
            _close(agent)

    def __enter__(self) -> _Players:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _reseed(agent: Agent, seed: int) -> bool:
    """Restarts an agent's random streams from a seed, as building it with that seed would
    (:class:`damas_agents.players.base.Reseedable`); returns False if it cannot."""
    if isinstance(agent, Reseedable):
        agent.reseed(seed)
        return True
    return False


def _close(agent: object) -> None:
    """Closes an agent that holds a resource (an external engine's process)."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()


_WORKER_PLAYERS: list[_Players] = []  # a worker process's agents (one _Players)


def _worker_players() -> _Players:
    """Returns this worker process's agents, closed when the process exits."""
    if not _WORKER_PLAYERS:
        _WORKER_PLAYERS.append(_Players())
        multiprocessing.util.Finalize(None, _WORKER_PLAYERS[0].close, exitpriority=10)
    return _WORKER_PLAYERS[0]


def _run_in_worker(job: _Job) -> GameRecord:
    """Plays one scheduled game in a worker process, with the worker's agents."""
    return _run_job(job, _worker_players())


def _run_job(job: _Job, players: _Players) -> GameRecord:
    """Plays one scheduled game with the process's agents and returns its record."""
    env = _env_for(job)
    a, b = (
        players.take(key, source, seed, env)
        for key, source, seed in zip(job.keys, job.sources, job.seeds, strict=True)
    )
    order = (0, 1) if job.a_first else (1, 0)
    by_env_name = dict(zip(env.possible_agents, ((a, b)[i] for i in order), strict=True))
    try:
        game, times = _play(env, by_env_name, job.opening)
    finally:
        players.release(a, b)
    a_name, b_name = env.possible_agents if job.a_first else env.possible_agents[::-1]
    reason = Reason(env.infos["player_0"]["reason"]).label
    reward = float(env.rewards["player_0" if job.a_first else "player_1"])
    a_info = env.infos["player_0" if job.a_first else "player_1"]
    a_colour = job.rules.colour_names[a_info["colour"]]  # a Colour: the ruleset names it
    first = Colour.WHITE if job.rules.first_player == "white" else Colour.BLACK
    names = [job.names[i] for i in order]  # names of player_0, player_1
    white, black = names if first == Colour.WHITE else names[::-1]
    pdn = game.to_pdn(
        Event=job.event,
        Round=str(job.index + 1),
        White=white,
        Black=black,
        Opening=str(job.opening),
        Termination=reason,
    )
    return GameRecord(
        job.index,
        job.opening,
        job.a_first,
        a_colour,
        (reward + 1) / 2,
        reason,
        game.ply,
        game.position.fen(),
        pdn,
        (times[a_name], times[b_name]),
    )


def _build(source: AgentSource, seed: int) -> Agent:
    """Returns a new agent of a spec or factory, seeded."""
    if isinstance(source, str):
        return make_agent(source, seed=seed)
    return source(seed=seed)  # type: ignore[operator]


def _name(source: AgentSource, key: int, players: _Players) -> str:
    """Returns an agent's name: its spec, or the name of the agent (built once, kept)."""
    if isinstance(source, str):
        return source
    agent = players.take(key, source, 0)
    players.release(agent)
    return str(agent.name)


def _derive(*numbers: int) -> int:
    """Returns a 32-bit seed drawn from a tuple of non-negative ints (independent streams)."""
    return int(np.random.SeedSequence([n & 0xFFFFFFFF for n in numbers]).generate_state(1)[0])


def _schedule(
    sources: tuple[AgentSource, AgentSource],
    keys: tuple[int, int],
    names: tuple[str, str],
    rules: Ruleset,
    games: int,
    seed: int,
    max_plies: int | None,
) -> list[_Job]:
    """Returns the games of a match: opening k//2 twice, colours swapped, seeds per game."""
    openings = openings_for(rules, (games + 1) // 2, seed)
    event = f"damas arena: {names[0]} vs {names[1]} (seed {seed})"
    return [
        _Job(
            index=i,
            sources=sources,
            keys=keys,
            names=names,
            seeds=(_derive(seed, i, 0), _derive(seed, i, 1)),
            a_first=i % 2 == 0,
            opening=openings[i // 2],
            rules=rules,
            max_plies=max_plies,
            event=event,
        )
        for i in range(games)
    ]


def _run(jobs: Sequence[_Job], workers: int, progress: bool, players: _Players) -> list[GameRecord]:
    """Plays every job, here (with `players`) or in `workers` processes (each with its own
    agents); returns the records in job order."""
    if workers > 1 and any(_is_instance(s) for job in jobs for s in job.sources):
        raise ValueError(
            "workers > 1 builds agents in each process: pass spec strings or picklable "
            "factories, not agent instances"
        )
    bar = _Progress(len(jobs), progress)
    try:
        if workers <= 1:
            return [_counted(bar, _run_job(job, players)) for job in jobs]
        players.close()  # the workers build their own: none idles here meanwhile
        # spawn, not fork: numba's thread pools and torch (learned agents) do not survive fork.
        context = multiprocessing.get_context("spawn")
        main = threading.current_thread() is threading.main_thread()
        with ProcessPoolExecutor(
            min(workers, len(jobs)),
            mp_context=context,
            initializer=exit_with_parent,  # a killed arena takes its workers with it
            initargs=(os.getpid(), main),
        ) as pool:
            futures = [pool.submit(_run_in_worker, job) for job in jobs]
            try:
                for future in as_completed(futures):
                    _counted(bar, future.result())
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
            return [future.result() for future in futures]
    finally:
        bar.close()


class GameRunner:
    """Plays games one at a time as a caller asks for them, in this process or in `workers`
    processes, each keeping its agents from game to game: for schedules decided as results
    come in (``damas rate``), where :func:`play_match` knows every game up front.

        with GameRunner(["alphabeta:depth=3", "greedy", "random"], "english") as runner:
            future = runner.submit(0, 1, opening, a_first=True, seed=7, index=0)
            future.result().score                  # agent 0's score in that game

    A game depends only on its arguments (its seed seeds both agents), never on the process
    that plays it.
    """

    def __init__(
        self,
        sources: Sequence[AgentSource],
        variant: str | Ruleset = "english",
        workers: int = 1,
        max_plies: int | None = None,
        event: str = "damas arena",
    ) -> None:
        """Builds the agents' names (a bad spec raises ValueError here) and the workers.

        Raises:
            TypeError, ValueError: as :func:`play_match`; instances with `workers` > 1.
        """
        self.rules = _checked(variant, (1, workers, max_plies, 0))
        if workers > 1 and any(_is_instance(s) for s in sources):
            raise ValueError(
                "workers > 1 builds agents in each process: pass spec strings or picklable "
                "factories, not agent instances"
            )
        self.sources, self.max_plies, self.event = list(sources), max_plies, event
        self._players = _Players()
        self.names = _names(self.sources, self._players)
        self._pool: ProcessPoolExecutor | None = None
        if workers > 1:
            self._players.close()  # the workers build their own
            self._pool = ProcessPoolExecutor(
                workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=exit_with_parent,
                initargs=(os.getpid(), threading.current_thread() is threading.main_thread()),
            )

    def submit(
        self, a: int, b: int, opening: Opening, a_first: bool, seed: int, index: int = 0
    ) -> Future[GameRecord]:
        """Returns the future record of a game of agent `a` against agent `b` (indexes into
        the sources), from agent a's side; played at once when there are no workers."""
        job = _Job(
            index=index,
            sources=(self.sources[a], self.sources[b]),
            keys=(a, b),
            names=(self.names[a], self.names[b]),
            seeds=(_derive(seed, index, 0), _derive(seed, index, 1)),
            a_first=a_first,
            opening=opening,
            rules=self.rules,
            max_plies=self.max_plies,
            event=self.event,
        )
        if self._pool is not None:
            return self._pool.submit(_run_in_worker, job)
        future: Future[GameRecord] = Future()
        future.set_result(_run_job(job, self._players))
        return future

    def close(self) -> None:
        """Stops the workers (games not started are dropped) and closes this process's
        agents."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        self._players.close()

    def __enter__(self) -> GameRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_instance(source: AgentSource) -> bool:
    return isinstance(source, Agent) and not isinstance(source, type)


def _counted(bar: _Progress, record: GameRecord) -> GameRecord:
    bar.update()
    return record


class _Progress:
    """A progress bar on stderr: tqdm if installed, else a counter (a line per 10% in logs)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.done, self._shown = total, enabled, 0, 0.0
        self._tty = enabled and sys.stderr.isatty()
        self._bar: Any = None
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, desc="arena", unit="game", file=sys.stderr)
            except ImportError:
                pass

    def update(self) -> None:
        self.done += 1
        if self._bar is not None:
            self._bar.update()
        elif self.enabled and self._due():
            end = "" if self._tty else "\n"
            print(f"\rarena: {self.done}/{self.total} games", end=end, file=sys.stderr, flush=True)

    def _due(self) -> bool:
        """Returns True when the counter should be shown again (5 times a second at most)."""
        if self._tty:
            now = time.monotonic()
            due = self.done == self.total or now - self._shown > 0.2
        else:
            now = self.done / self.total
            due = self.done == self.total or now - self._shown >= 0.1
        if due:
            self._shown = now
        return due

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self._tty and self.done:
            print(file=sys.stderr, flush=True)


# --- Matches --------------------------------------------------------------------------------


@dataclass
class MatchResult:
    """The games of a match between agents A and B, and their statistics from A's side."""

    agent_a: str
    agent_b: str
    variant: str
    seed: int
    records: list[GameRecord] = field(default_factory=list)

    @property
    def stats(self) -> ScoreStats:
        """Returns W/D/L, score and Elo with their 95% intervals (see the module docstring)."""
        counts = Counter(r.result for r in self.records)
        return score_stats(counts["win"], counts["draw"], counts["loss"])

    @property
    def games(self) -> int:
        """Returns the number of games played."""
        return len(self.records)

    @property
    def average_plies(self) -> float:
        """Returns the average game length in plies (openings included)."""
        return sum(r.plies for r in self.records) / max(1, len(self.records))

    def by_opening(self) -> dict[str, tuple[int, int, int]]:
        """Returns A's (wins, draws, losses) for each opening, in opening name order."""
        table: dict[str, list[int]] = {}
        for r in sorted(self.records, key=lambda r: r.opening.name):
            row = table.setdefault(str(r.opening), [0, 0, 0])
            row[("win", "draw", "loss").index(r.result)] += 1
        return {name: (w, d, lo) for name, (w, d, lo) in table.items()}

    def reasons(self) -> dict[str, int]:
        """Returns how many games ended for each reason."""
        return dict(Counter(r.reason for r in self.records).most_common())

    def move_times(self) -> tuple[MoveTimes, MoveTimes]:
        """Returns A's and B's thinking time over all games."""
        return _summed(r.times[0] for r in self.records), _summed(r.times[1] for r in self.records)

    def _named_times(self) -> dict[str, MoveTimes]:
        return dict(zip((self.agent_a, self.agent_b), self.move_times(), strict=True))

    def pdn(self) -> str:
        """Returns every game as one PDN text."""
        return "\n".join(r.pdn for r in self.records)

    def to_dict(self, records: bool = True) -> dict[str, Any]:
        """Returns the match as JSON-ready values: counts, score, Elo (see
        :meth:`ScoreStats.to_dict`), per-opening results."""
        data: dict[str, Any] = {
            "variant": self.variant,
            "agent_a": self.agent_a,
            "agent_b": self.agent_b,
            "seed": self.seed,
            **self.stats.to_dict(),
            "average_plies": self.average_plies,
            "seconds_per_move": {name: t.to_dict() for name, t in self._named_times().items()},
            "reasons": self.reasons(),
            "by_opening": {
                name: {"wins": w, "draws": d, "losses": lo}
                for name, (w, d, lo) in self.by_opening().items()
            },
        }
        if records:
            data["records"] = [r.to_dict() for r in self.records]
        return data

    def summary(self, openings: bool = True) -> str:
        """Returns the result as text: W/D/L, score, Elo, length, reasons, by opening."""
        s = self.stats
        lines = [
            f"{self.variant}: {self.agent_a} vs {self.agent_b}, {s.games} games (seed {self.seed})",
            f"{self.agent_a}: +{s.wins} ={s.draws} -{s.losses}",
            f"score {s.score:.3f}  95% CI [{s.score_ci[0]:.3f}, {s.score_ci[1]:.3f}]",
            s.elo_text(),
            f"average length {self.average_plies:.1f} plies",
            "seconds per move: " + " | ".join(f"{n} {t}" for n, t in self._named_times().items()),
            "endings: " + ", ".join(f"{k} {v}" for k, v in self.reasons().items()),
        ]
        if openings:
            lines.append(f"by opening ({self.agent_a}'s +wins =draws -losses):")
            table = self.by_opening()
            width = max(len(name) for name in table)
            lines += [f"  {n:<{width}}  +{w} ={d} -{lo}" for n, (w, d, lo) in table.items()]
        return "\n".join(lines)


def play_match(
    agent_a: AgentSource,
    agent_b: AgentSource,
    variant: str | Ruleset = "english",
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    max_plies: int | None = None,
    progress: bool = True,
) -> MatchResult:
    """Returns the result of `games` games between two agents, colours alternating.

    Args:
        agent_a: a spec string, an agent, or a factory (see :data:`AgentSource`).
        agent_b: its opponent, in the same forms.
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset.
        games: games to play (1 to :data:`MAX_GAMES`); each opening is played twice,
            colours swapped.
        seed: decides the openings and the agents' seeds; same seed, same match (0 to
            :data:`MAX_SEED`).
        workers: processes to play in (1 to :data:`MAX_WORKERS`; the result does not depend
            on it). They are spawned, so a script calling this needs
            ``if __name__ == "__main__":``.
        max_plies: stop a game after this many plies (counted as a draw; at most
            :data:`MAX_PLIES`).
        progress: show a progress bar on stderr.

    Raises:
        TypeError: games, seed, workers or max_plies is not an int.
        ValueError: a bad spec or variant, or games, seed, workers or max_plies out of its
            bounds (:data:`MAX_GAMES`, :data:`MAX_SEED`, :data:`MAX_WORKERS`,
            :data:`MAX_PLIES`).
    """
    rules = _checked(variant, (games, workers, max_plies, seed))
    with _Players() as players:  # this process's agents, closed at the end
        a, b = _names((agent_a, agent_b), players)
        jobs = _schedule((agent_a, agent_b), (0, 1), (a, b), rules, games, seed, max_plies)
        records = _run(jobs, workers, progress, players)
    return MatchResult(a, b, rules.name, seed, records)


def _checked(
    variant: str | Ruleset, budget: tuple[int, int, int | None, int], pairs: int = 1
) -> Ruleset:
    """Returns the ruleset once the arguments are within the limits.

    Args:
        budget: (games per pair, workers, max_plies, seed).
        pairs: the pairs that play `games` games each.

    Raises:
        TypeError: games, workers, max_plies or seed is not an int.
        ValueError: one of them is out of its bounds, or the variant is bad.
    """
    games, workers, max_plies, seed = budget
    rules = get_ruleset(variant)
    per_pair = "games" if pairs == 1 else f"games per pair ({pairs} pairs)"
    checked_int(per_pair, games, 1, MAX_GAMES // pairs)
    checked_int("workers", workers, 1, MAX_WORKERS)
    if max_plies is not None:
        checked_int("max_plies", max_plies, 1, MAX_PLIES)
    checked_int("seed", seed, 0, MAX_SEED)
    return rules


def _names(sources: Sequence[AgentSource], players: _Players) -> list[str]:
    """Returns the agents' names, repeats numbered (see :func:`_name`).

    Raises:
        ValueError: a spec is bad.
    """
    return _unique([_name(source, key, players) for key, source in enumerate(sources)])


def _unique(names: list[str]) -> list[str]:
    """Returns the names with repeats numbered: random, random#2, random#3."""
    return [f"{n}#{names[:i].count(n) + 1}" if n in names[:i] else n for i, n in enumerate(names)]


# --- Round robin ----------------------------------------------------------------------------


@dataclass
class RoundRobinResult:
    """Every pair's match of a round robin, a crosstable and an Elo ladder."""

    agents: list[str]
    variant: str
    seed: int
    matches: dict[tuple[int, int], MatchResult]
    """The match of agents i < j, from agent i's side."""

    def points(self, i: int, j: int) -> tuple[float, int]:
        """Returns agent i's points against agent j, and the games they played."""
        if i == j:
            return 0.0, 0
        match = self.matches[(min(i, j), max(i, j))]
        mine = sum(r.score for r in match.records)
        return (mine if i < j else match.games - mine), match.games

    def ladder(self) -> list[tuple[str, float]]:
        """Returns (agent, Elo) best first: the least-squares fit of pairwise Elo, first = 0."""
        n = len(self.agents)
        elo = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                points, games = self.points(i, j)
                elo[i, j] = elo_difference(points / games, games) if games else 0.0
        ratings = elo.mean(axis=1)
        ratings -= ratings[0]
        return sorted(zip(self.agents, ratings.tolist(), strict=True), key=lambda t: -t[1])

    def crosstable(self) -> str:
        """Returns the crosstable as text: row's points against each column, and the total."""
        n = len(self.agents)
        width = max(len(a) for a in self.agents) + 4
        header = " " * width + "".join(f"{j + 1:>8}" for j in range(n)) + "     total"
        lines = [header]
        for i, name in enumerate(self.agents):
            cells = [self.points(i, j) for j in range(n)]
            row = "".join(f"{p:>8.1f}" if g else f"{'-':>8}" for p, g in cells)
            total, games = sum(p for p, _ in cells), sum(g for _, g in cells)
            lines.append(f"{i + 1:>2}. {name:<{width - 4}}{row}  {total:>6.1f}/{games}")
        return "\n".join(lines)

    def move_times(self) -> dict[str, MoveTimes]:
        """Returns each agent's thinking time over all its games, in the agents' order."""
        times = {name: MoveTimes() for name in self.agents}
        for (i, j), match in self.matches.items():
            a, b = match.move_times()
            times[self.agents[i]] += a
            times[self.agents[j]] += b
        return times

    def summary(self) -> str:
        """Returns the crosstable, the Elo ladder and the seconds per move as text."""
        games = next(iter(self.matches.values())).games
        ladder = self.ladder()
        width = max(len(a) for a in self.agents)
        lines = [
            f"{self.variant}: round robin of {len(self.agents)} agents, {games} games per pair "
            f"(seed {self.seed})",
            "crosstable (row's points against column):",
            self.crosstable(),
            f"Elo ladder (least-squares fit of pairwise Elo, {self.agents[0]} = 0):",
        ]
        lines += [f"{k + 1:>2}. {a:<{width}}  {e:+6.0f}" for k, (a, e) in enumerate(ladder)]
        lines.append("seconds per move:")
        lines += [f"    {a:<{width}}  {t}" for a, t in self.move_times().items()]
        return "\n".join(lines)

    def pdn(self) -> str:
        """Returns every game of every match as one PDN text."""
        return "\n".join(m.pdn() for m in self.matches.values())

    def to_dict(self) -> dict[str, Any]:
        """Returns JSON-ready values: the crosstable in points, the ladder and every match."""
        n = len(self.agents)
        return {
            "variant": self.variant,
            "seed": self.seed,
            "agents": self.agents,
            "crosstable": [[self.points(i, j)[0] for j in range(n)] for i in range(n)],
            "ladder": [{"agent": a, "elo": e} for a, e in self.ladder()],
            "seconds_per_move": {name: t.to_dict() for name, t in self.move_times().items()},
            "matches": [m.to_dict(records=False) for m in self.matches.values()],
        }


def round_robin(
    agents: Sequence[AgentSource],
    variant: str | Ruleset = "english",
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    max_plies: int | None = None,
    progress: bool = True,
) -> RoundRobinResult:
    """Returns a round robin: `games` games between every pair of agents (as play_match).

    Each pair (i, j) plays with the seed ``_derive(seed, i, j)``, stored in its MatchResult,
    so ``play_match`` with that seed replays the pair's match.

    Raises:
        TypeError: games, seed, workers or max_plies is not an int.
        ValueError: fewer than 2 or more than :data:`MAX_AGENTS` agents, more than
            :data:`MAX_GAMES` games in all, or a bad spec, variant, seed, workers or max_plies.
    """
    if not 2 <= len(agents) <= MAX_AGENTS:
        raise ValueError(f"a round robin needs 2 to {MAX_AGENTS} agents, not {len(agents)}")
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    rules = _checked(variant, (games, workers, max_plies, seed), len(pairs))
    seeds = {(i, j): _derive(seed, i, j) for i, j in pairs}
    with _Players() as players:  # this process's agents, closed at the end
        names = _names(agents, players)
        jobs = [
            job
            for i, j in pairs
            for job in _schedule(
                (agents[i], agents[j]),
                (i, j),
                (names[i], names[j]),
                rules,
                games,
                seeds[i, j],
                max_plies,
            )
        ]
        records = _run(jobs, workers, progress, players)
    matches = {
        (i, j): MatchResult(
            names[i], names[j], rules.name, seeds[i, j], records[k * games :][:games]
        )
        for k, (i, j) in enumerate(pairs)
    }
    return RoundRobinResult(names, rules.name, seed, matches)
