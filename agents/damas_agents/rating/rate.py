"""``damas rate``: an agent's Elo on a variant's reference pool, by an adaptive match.

    damas rate pretrained:english,depth=2 --variant english [--ci 50] [--games 600]
               [--workers 2] [--seed 0] [--json] [--pdn games.pdn]

    from damas_agents.rating import rate
    result = rate("alphabeta:depth=5", variant="english")
    result.rating.elo, result.rating.ci         # on the pool's scale, random = 0

The agent plays pool members in colour-swapped pairs of games from the arena's openings. Each
pair goes to the member nearest the running estimate (of the two around it, the one it has
played less); an agent that has won (lost) every game so far moves up (down) the pool. The
match stops once the 95% interval is at most ``±ci``, after ``games`` games, or when the
agent has won (lost) every one of :data:`BOUND_GAMES` games against the strongest (weakest)
member: the pool can then only bound its rating, and says so. With ``workers`` processes,
pairs are decided from the results of the pairs before them in order, so the games depend on
the seed and the number of workers, never on timing.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import os
import sys
from collections.abc import Sequence
from concurrent.futures import BrokenExecutor, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from damas_agents.arena.match import (
    MAX_SEED,
    MAX_WORKERS,
    AgentSource,
    GameRecord,
    GameRunner,
    MoveTimes,
    Opening,
    openings_for,
)
from damas_agents.players.external import EngineError
from damas_agents.players.make import PYTHON_USAGE, command_line_agent, make_agent
from damas_agents.rating.fit import Rating, Results, rate_against
from damas_agents.rating.pool import POOL_VERSION, Pool, PoolError, load_pool
from damas_agents.specs import spec_usage
from damas_env.checks import checked_int
from damas_env.rules import Ruleset, get_ruleset

__all__ = ["BOUND_GAMES", "MAX_RATE_GAMES", "RateInterrupted", "RateResult", "main", "rate"]

#: Games won (lost) in a row against the strongest (weakest) member that end a match with a
#: bound: more games would raise it by only about 125 Elo per doubling.
BOUND_GAMES = 20
#: The most games one rating plays.
MAX_RATE_GAMES = 10_000
#: Where an agent that has won (lost) every game so far looks next: this far above (below)
#: the strongest (weakest) member it has played.
STEP = 200.0


@dataclass
class RateResult:
    """A rating on a pool: the estimate, and the games behind it."""

    agent: str
    variant: str
    pool: Pool
    rating: Rating
    stopped: str
    """Why the match ended: "interval", "games", "bound" or "interrupted" (Ctrl-C)."""
    records: list[tuple[str, GameRecord]] = field(repr=False)
    """Every game, with the member played, from the agent's side."""

    def by_opponent(self) -> dict[str, Results]:
        """Returns the agent's wins, draws and losses against each member played, weakest
        member first."""
        table = {m.spec: [0, 0, 0] for m in self.pool.members}
        for member, record in self.records:
            table[member][{1.0: 0, 0.5: 1, 0.0: 2}[record.score]] += 1
        return {spec: (w, d, lo) for spec, (w, d, lo) in table.items() if w + d + lo}

    def move_times(self) -> dict[str, tuple[MoveTimes, MoveTimes]]:
        """Returns (the agent's, the member's) thinking time against each member played."""
        times: dict[str, tuple[MoveTimes, MoveTimes]] = {}
        for member, record in self.records:
            mine, theirs = times.get(member, (MoveTimes(), MoveTimes()))
            times[member] = (mine + record.times[0], theirs + record.times[1])
        return times

    def summary(self) -> str:
        """Returns the rating, why it stopped, and each opponent's results and times."""
        pool, rating = self.pool, self.rating
        why = {
            "interval": f"the 95% interval is within ±{self.rating.half_width:.0f}",
            "games": "the game limit",
            "bound": f"{BOUND_GAMES} games {'won' if rating.bound == 'lower' else 'lost'} "
            f"against the pool's {'strongest' if rating.bound == 'lower' else 'weakest'} member",
            "interrupted": "Ctrl-C",
        }[self.stopped]
        ratings, times = pool.ratings(), self.move_times()
        width = max(len(spec) for spec in [*ratings, "opponent"])
        lines = [
            f"{self.agent} on the {self.variant} pool {pool.version} ({pool.anchor} = "
            f"{ratings[pool.anchor]:.0f}): {rating.text()}",
            f"{rating.games} games, score {rating.score:.3f}; stopped at {why}",
            f"{'opponent':<{width}}  rating  +win =draw -loss  score  s/move agent vs opponent",
        ]
        for spec, (w, d, lo) in self.by_opponent().items():
            mine, theirs = times[spec]
            score = (w + d / 2) / (w + d + lo)
            lines.append(
                f"{spec:<{width}}  {ratings[spec]:6.0f}  {f'+{w} ={d} -{lo}':<16} {score:.3f}  "
                f"{mine.mean:.4f} vs {theirs.mean:.4f}"
            )
        return "\n".join(lines)

    def pdn(self) -> str:
        """Returns every game as one PDN text."""
        return "\n".join(record.pdn for _, record in self.records)

    def to_dict(self) -> dict[str, Any]:
        """Returns JSON-ready values: the rating (null ends where open), the results and the
        seconds per move against each member."""
        rating, times = self.rating, self.move_times()
        return {
            "agent": self.agent,
            "variant": self.variant,
            "pool": self.pool.version,
            "anchor": self.pool.anchor,
            "elo": rating.elo,
            "elo_ci": [end if math.isfinite(end) else None for end in rating.ci],
            "elo_bound": rating.bound,
            "games": rating.games,
            "score": rating.score,
            "stopped": self.stopped,
            "opponents": [
                {
                    "spec": spec,
                    "elo": self.pool.ratings()[spec],
                    "wins": w,
                    "draws": d,
                    "losses": lo,
                    "seconds_per_move": {
                        "agent": times[spec][0].to_dict(),
                        "opponent": times[spec][1].to_dict(),
                    },
                }
                for spec, (w, d, lo) in self.by_opponent().items()
            ],
        }


class RateInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`rate`: :attr:`result` is the rating from the games finished so
    far (None before the first game ended)."""

    def __init__(self, result: RateResult | None) -> None:
        super().__init__()
        self.result = result


class _Schedule:
    """The adaptive choice of opponents, from the results so far (in pair order)."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.elos = [m.elo for m in pool.members]
        self.results: dict[str, list[int]] = {m.spec: [0, 0, 0] for m in pool.members}

    def add(self, member: str, score: float) -> None:
        self.results[member][{1.0: 0, 0.5: 1, 0.0: 2}[score]] += 1

    def rating(self) -> Rating | None:
        played = {spec: (w, d, lo) for spec, (w, d, lo) in self.results.items() if w + d + lo}
        return rate_against(self.pool.ratings(), played) if played else None

    def target(self) -> float:
        """Returns the rating to look for an opponent at."""
        rating = self.rating()
        if rating is None:
            return self.elos[len(self.elos) // 2]
        if rating.elo is not None:
            return rating.elo
        played = [m.elo for m in self.pool.members if sum(self.results[m.spec])]
        return max(played) + STEP if rating.bound == "lower" else min(played) - STEP

    def next_member(self) -> int:
        """Returns the member to play next: of the two around the target, the one played
        less (the nearer on a tie)."""
        target = self.target()
        k = bisect.bisect_left(self.elos, target)
        if k == 0 or k == len(self.elos):
            return min(k, len(self.elos) - 1)
        below, above = k - 1, k
        games = [sum(self.results[self.pool.members[i].spec]) for i in (below, above)]
        if games[0] != games[1]:
            return below if games[0] < games[1] else above
        return below if target - self.elos[below] <= self.elos[above] - target else above

    def stop(self, ci: float, games: int, max_games: int) -> str | None:
        """Returns why to stop now ("interval", "bound", "games"), or None to go on."""
        rating = self.rating()
        if rating is None:
            return None
        if rating.elo is not None and rating.half_width <= ci:
            return "interval"
        if rating.bound is not None:
            edge = self.pool.members[-1 if rating.bound == "lower" else 0].spec
            if sum(self.results[edge]) >= BOUND_GAMES:
                return "bound"
        return "games" if games >= max_games else None


def rate(
    agent: AgentSource,
    variant: str | Ruleset = "english",
    ci: float = 50.0,
    games: int = 600,
    seed: int = 0,
    workers: int = 1,
    pool: str | Pool = POOL_VERSION,
    progress: bool = False,
    out: TextIO | None = None,
) -> RateResult:
    """Returns an agent's rating on a variant's pool (see the module docstring).

    Args:
        agent: a spec string, an agent, or a factory (as the arena takes: instances only with
            one worker).
        variant: a variant with a pool (:func:`damas_agents.rating.available_pools`).
        ci: stop once the 95% interval is within ±ci Elo (> 0).
        games: the most games to play (2 to :data:`MAX_RATE_GAMES`; pairs, so an odd number
            plays one more).
        seed: decides the openings, the agents' seeds and so the games.
        workers: processes to play in.
        pool: the pool version, or a :class:`Pool` of the variant's rules.
        progress: write the running estimate to `out` (default stderr) after each pair.

    Raises:
        PoolError: no pool for the variant.
        TypeError, ValueError: a bad spec, or a number out of its bounds.
        RateInterrupted: Ctrl-C; it holds the rating from the games finished so far.
    """
    checked_int("games", games, 2, MAX_RATE_GAMES)
    checked_int("seed", seed, 0, MAX_SEED)
    if not (isinstance(ci, int | float) and math.isfinite(ci) and ci > 0):
        raise ValueError(f"ci must be a finite number of Elo > 0, not {ci!r}")
    rules = get_ruleset(variant)
    table = pool if isinstance(pool, Pool) else load_pool(rules.name, pool)
    if table.variant != rules.name or rules != get_ruleset(rules.name):
        raise PoolError(
            f"the {table.variant} pool rates agents of the standard {table.variant} rules, "
            f"not of these {rules.name} rules"
        )
    if isinstance(agent, str):  # fail now, before any game: a bad spec, an engine that does
        _close(make_agent(agent, rules=rules))  # not start, an agent of other rules
    out = (out or sys.stderr) if progress else None
    schedule = _Schedule(table)
    pairs = (games + 1) // 2
    openings = openings_for(rules, pairs, seed)
    sources = [agent, *(m.spec for m in table.members)]
    event = f"damas rate on the {rules.name} pool {table.version}"
    flying: list[tuple[int, list[Future[GameRecord]]]] = []
    name = "agent"
    try:
        with GameRunner(sources, rules, workers, table.max_plies, event) as runner:
            name = runner.names[0]
            stopped = _play(runner, schedule, openings, flying, (ci, pairs, workers, seed), out)
            for _, futures in flying:  # started already: their games count too
                for future in futures:
                    future.result()
    except KeyboardInterrupt:  # the runner has stopped: the games finished so far count
        raise RateInterrupted(_result(name, rules, table, flying, "interrupted")) from None
    result = _result(name, rules, table, flying, stopped)
    assert result is not None
    return result


def _play(
    runner: GameRunner,
    schedule: _Schedule,
    openings: list[Opening],
    flying: list[tuple[int, list[Future[GameRecord]]]],
    limits: tuple[float, int, int, int],
    out: TextIO | None,
) -> str:
    """Plays pairs (appended to `flying`, member and futures) until the schedule stops;
    returns why. `limits` is (ci, pairs, workers, seed); `out` gets the progress, if any."""
    ci, pairs, workers, seed = limits
    done, stopped = 0, None
    while stopped is None:
        while len(flying) < done + workers and len(flying) < pairs:
            k, member = len(flying), schedule.next_member()
            games = [
                runner.submit(0, member + 1, openings[k], first, seed, 2 * k + i)
                for i, first in enumerate((True, False))
            ]
            flying.append((member, games))
        member, futures = flying[done]
        for future in futures:
            schedule.add(schedule.pool.members[member].spec, future.result().score)
        done += 1
        stopped = schedule.stop(ci, 2 * done, 2 * pairs)
        if out is not None:
            _report(schedule, 2 * done, out, last=stopped is not None)
    return stopped


def _result(
    name: str,
    rules: Ruleset,
    table: Pool,
    flying: list[tuple[int, list[Future[GameRecord]]]],
    stopped: str,
) -> RateResult | None:
    """Returns the rating from the games of `flying` that finished (None before the first)."""
    schedule = _Schedule(table)
    records: list[tuple[str, GameRecord]] = []
    for member, futures in flying:
        for future in futures:
            if future.done() and not future.cancelled() and future.exception() is None:
                records.append((table.members[member].spec, future.result()))
                schedule.add(records[-1][0], records[-1][1].score)
    rating = schedule.rating()
    return None if rating is None else RateResult(name, rules.name, table, rating, stopped, records)


def _close(agent: object) -> None:
    close = getattr(agent, "close", None)
    if callable(close):
        close()


def _report(schedule: _Schedule, games: int, out: TextIO, last: bool = False) -> None:
    """Writes the running estimate: one line rewritten on a terminal, else a line every 20
    games."""
    rating = schedule.rating()
    assert rating is not None
    line = f"damas rate: {games} games, {rating.text()}"
    if out.isatty():
        print(f"\r{line:<100}", end="\n" if last else "", file=out, flush=True)
    elif games % 20 == 0 or last:
        print(line, file=out, flush=True)


# --- The command ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of ``damas rate``."""
    from damas_agents.arena.cli import int_arg
    from damas_env.cli import variant_arg

    parser = argparse.ArgumentParser(
        prog="damas rate",
        description="Rates an agent on a variant's reference pool: Elo on the pool's scale "
        "(random = 0) with a 95%% interval, from an adaptive match against the pool.",
        epilog=f"AGENT is an agent spec ({spec_usage()}) or a Python agent, "
        f"{PYTHON_USAGE}: ATTR is an agent, an agent class or factory (called with no "
        "arguments or with seed=), or a policy function policy(planes, mask) -> action. Only "
        "the command line takes a Python agent, never a config. Exit status: 2 on a bad "
        "argument (before any game), 1 when the games were played but --pdn could not be "
        "written (the rating is printed first), 130 on Ctrl-C (the rating of the games "
        "finished is printed).",
    )
    parser.add_argument(
        "agent", metavar="AGENT", help="the agent: a spec, or python:MODULE:ATTR or FILE.py:ATTR"
    )
    parser.add_argument("--variant", type=variant_arg, default="english", help="ruleset name")
    parser.add_argument(
        "--ci", type=_elo_arg, default=50.0, help="stop at a 95%% interval of ±CI Elo (50)"
    )
    parser.add_argument(
        "--games",
        type=int_arg(2, MAX_RATE_GAMES),
        default=600,
        help="stop after this many games (default 600)",
    )
    parser.add_argument(
        "--workers", type=int_arg(1, MAX_WORKERS), default=1, help="processes to play in"
    )
    parser.add_argument(
        "--seed", type=int_arg(0, MAX_SEED), default=0, help="seed of openings and agents"
    )
    parser.add_argument("--pool", default=POOL_VERSION, help=f"pool version ({POOL_VERSION})")
    parser.add_argument("--pdn", type=Path, help="save every game to this PDN file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no running estimate on stderr")
    return parser


def _elo_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 10_000):
        raise argparse.ArgumentTypeError(f"must be a number of Elo in (0, 10000], not {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas rate``; returns the exit status (2 on a usage or input error, 1 when the
    games could not be saved, 130 on Ctrl-C)."""
    args = build_parser().parse_args(argv)
    try:
        agent = command_line_agent(args.agent, args.variant, args.workers)
        if args.pdn is not None:
            _check_writable(args.pdn)
        result = rate(
            agent,
            variant=args.variant,
            ci=args.ci,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            pool=args.pool,
            progress=not args.no_progress,
        )
    except RateInterrupted as interrupted:
        if interrupted.result is not None:
            _output(interrupted.result, args)
        print("damas rate: interrupted", file=sys.stderr)
        return 130
    except (PoolError, ValueError, ImportError, OSError, EngineError) as error:
        print(f"damas rate: error: {error}", file=sys.stderr)
        return 2
    except BrokenExecutor as error:
        print(f"damas rate: error: a worker process died: {error}", file=sys.stderr)
        return 2
    return _output(result, args)


def _check_writable(path: Path) -> None:
    """Raises ValueError unless the games can be saved at `path`: checked before any game."""
    folder = path.parent
    if path.is_dir():
        raise ValueError(f"--pdn {path} is a folder: name a file")
    if not folder.is_dir():
        raise ValueError(f"--pdn {path}: there is no folder {folder}")
    if not os.access(path if path.exists() else folder, os.W_OK):
        what = "the file" if path.exists() else f"the folder {folder}"
        raise ValueError(f"--pdn {path}: {what} is not writable")


def _output(result: RateResult, args: argparse.Namespace) -> int:
    """Saves the games (--pdn) and prints the result (JSON with --json); returns 1 if the
    games could not be saved (said after the result is printed), else 0."""
    data = result.to_dict()
    failed = None
    if args.pdn is not None:
        try:
            args.pdn.write_text(result.pdn())
            data["pdn"] = str(args.pdn)
        except OSError as error:
            failed = error.strerror or str(error)
    print(json.dumps(data) if args.json else result.summary(), flush=True)
    if failed is not None:
        print(f"damas rate: error: cannot save the games to {args.pdn}: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
