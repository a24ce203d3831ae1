"""Agent strength ladder: random < greedy < alpha-beta by depth < MCTS by budget, with outsiders.

    python benchmarks/agent_ladder.py                       # 200 games per rung (hours)
    python benchmarks/agent_ladder.py --quick               # 20 games per rung, small budgets
    python benchmarks/agent_ladder.py --games 40 --json ladder.json

For each variant every rung plays one colour-swapped match (:func:`damas_agents.arena.play_match`:
ACF ballots on English, seeded random opening plies elsewhere, each opening played with both
colours) against the rung below it, and optionally against a fixed ``--anchor`` too. A rung
prints as soon as its match ends: W/D/L, score and Elo difference with 95% intervals, the
Elo summed down the ladder from random = 0, average plies, games stopped at ``--max-plies``
(counted as draws) and seconds.

The ladder is a tree rooted at random, each rung measured against a close opponent so that
its match says something (a whitewash only bounds the Elo difference):

    random < greedy < alphabeta:depth=1 < ... < alphabeta:depth=6
    alphabeta:depth=1 < mcts:sims=100 < mcts:sims=400 < mcts:sims=1000
    mcts:sims=N < openspiel-mcts:sims=N       (English; the same budget, OpenSpiel's MCTSBot)
    alphabeta:depth=N < dame:depth=N          (International; the same depth, dame-rs)

Before the matches it prints the search speeds on positions from a seeded self-play game:
alpha-beta nodes/s per depth (:class:`damas_agents.search.alphabeta.SearchResult`), MCTS
simulations/s per budget, and the outside engines' nodes/s or simulations/s. Outside engines
that are not installed are skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from damas_agents.arena import MatchResult, play_match, uses_ballots
from damas_agents.players.classic import AlphaBetaAgent
from damas_agents.players.make import make_agent
from damas_agents.players.tree import MCTSAgent
from damas_env import Move, Position

FULL = {"games": 200, "depths": [1, 2, 3, 4, 5, 6], "mcts": [100, 400, 1000]}
FULL |= {"dame": [2, 4, 6], "openspiel": [100, 1000]}
QUICK = {"games": 20, "depths": [1, 2, 3, 4], "mcts": [100, 400], "dame": [2, 4]}
QUICK |= {"openspiel": [100]}
SPEED_POSITIONS = 8  # positions for the speed tables: every SPEED_STRIDE plies of one game
SPEED_STRIDE = 8

# --- The ladder -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rung:
    """An agent on the ladder and the opponent its match is played against."""

    spec: str
    opponent: str | None
    """The rung below (None for random, the root at Elo 0)."""


@dataclass
class RungResult:
    """A rung's match (and anchor match), its Elo from random and the time it took."""

    rung: Rung
    elo: float
    is_bound: bool
    """A whitewash on the path from random: the Elo is a bound, not an estimate."""
    seconds: float = 0.0
    match: MatchResult | None = None
    anchor: MatchResult | None = None
    anchor_elo: float | None = None


def mcts(sims: int) -> str:
    return f"mcts:sims={sims}"


def alphabeta(depth: int) -> str:
    return f"alphabeta:depth={depth}"


def nearest(values: Sequence[int], target: int) -> int | None:
    """Returns the value closest to target (the smaller on ties), or None if there is none."""
    return min(values, key=lambda v: (abs(v - target), v)) if values else None


def core_ladder(depths: Sequence[int], sims: Sequence[int]) -> list[Rung]:
    """Returns random, greedy, alpha-beta by depth, and the MCTS branch."""
    rungs = [Rung("random", None), Rung("greedy", "random")]
    below = "greedy"
    for depth in sorted(depths):
        rungs.append(Rung(alphabeta(depth), below))
        below = alphabeta(depth)
    # MCTS with 100 simulations plays about level with depth 1 (+4 =5 -1 in 10 English
    # games), so the branch starts there: a close match measures, a whitewash only bounds.
    below = alphabeta(min(depths)) if depths else "greedy"
    for n in sorted(sims):
        rungs.append(Rung(mcts(n), below))
        below = mcts(n)
    return rungs


def openspiel_rungs(args: argparse.Namespace) -> list[Rung]:
    """Returns OpenSpiel's MCTS, each against our MCTS at the nearest budget (or greedy)."""
    return [
        Rung(f"openspiel-mcts:sims={n}", mcts(m) if (m := nearest(args.mcts, n)) else "greedy")
        for n in sorted(args.openspiel)
    ]


def dame_rungs(args: argparse.Namespace) -> list[Rung]:
    """Returns dame-rs by depth, each against our alpha-beta at the nearest depth (or greedy)."""
    return [
        Rung(f"dame:depth={d}", alphabeta(m) if (m := nearest(args.depths, d)) else "greedy")
        for d in sorted(args.dame)
    ]


# The outside engine that plays each variant (OpenSpiel has only English checkers, dame-rs
# only International draughts).
OUTSIDERS: dict[str, Callable[[argparse.Namespace], list[Rung]]] = {
    "english": openspiel_rungs,
    "international": dame_rungs,
}


def ladder(variant: str, args: argparse.Namespace) -> list[Rung]:
    """Returns the variant's rungs whose agents can be built (missing engines are noted)."""
    outsiders = OUTSIDERS[variant](args) if variant in OUTSIDERS else []
    return core_ladder(args.depths, args.mcts) + [r for r in outsiders if is_available(r.spec)]


def is_available(spec: str) -> bool:
    """Returns True if the agent can be built here; prints why not otherwise."""
    try:
        make_agent(spec, seed=0)
    except (ImportError, FileNotFoundError) as e:
        print(f"  ({spec} skipped: {e})", flush=True)
        return False
    return True


# --- Matches --------------------------------------------------------------------------------


def match(a: str, b: str, variant: str, args: argparse.Namespace) -> MatchResult:
    """Returns a colour-swapped match between two agents with the run's settings."""
    return play_match(
        a,
        b,
        variant=variant,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        max_plies=args.max_plies,
        progress=False,
    )


def climb(
    rung: Rung, done: dict[str, RungResult], variant: str, args: argparse.Namespace
) -> RungResult:
    """Plays a rung's match(es) and returns its result, Elo summed from the rung below."""
    if rung.opponent is None:
        return RungResult(rung, 0.0, False)
    start = time.perf_counter()
    result = match(rung.spec, rung.opponent, variant, args)
    below, stats = done[rung.opponent], result.stats
    is_whitewash = stats.score in (0.0, 1.0)
    out = RungResult(rung, below.elo + stats.elo, below.is_bound or is_whitewash, match=result)
    anchor = args.anchor
    if anchor and anchor not in (rung.spec, rung.opponent):
        out.anchor = match(rung.spec, anchor, variant, args)
        if anchor in done:
            out.anchor_elo = done[anchor].elo + out.anchor.stats.elo
    out.seconds = time.perf_counter() - start
    return out


def elo_text(elo: float, score: float) -> str:
    """Returns an Elo difference, marked '>' or '<' when a whitewash makes it a bound."""
    mark = ">" if score == 1.0 else "<" if score == 0.0 else " "
    return f"{mark}{elo:+5.0f}"


def cells(*columns: str, width: int) -> str:
    """Returns a table row: two agent names, W, D, L, score, Elo, plies, cap, random=0, s."""
    a, b, w, d, lo, score, elo, plies, cap, cumulative, seconds = columns
    return (
        f"  {a:<{width}} {b:<{width}} {w:>4} {d:>4} {lo:>4}  {score:<21}  {elo:<21}"
        f"  {plies:>6} {cap:>4}  {cumulative:>8} {seconds:>7}"
    )


def match_cells(result: MatchResult) -> list[str]:
    """Returns a match's columns from W to cap."""
    s = result.stats
    return [
        str(s.wins),
        str(s.draws),
        str(s.losses),
        f"{s.score:.3f} [{s.score_ci[0]:.3f}, {s.score_ci[1]:.3f}]",
        f"{elo_text(s.elo, s.score)} [{s.elo_ci[0]:+5.0f}, {s.elo_ci[1]:+5.0f}]",
        f"{result.average_plies:.1f}",
        str(result.reasons().get("max_plies", 0)),
    ]


def show(result: RungResult, width: int) -> None:
    """Prints a rung's row (and its anchor row) as soon as it is played."""
    rung, played = result.rung, result.match
    cumulative = f"{result.elo:+.0f}{'*' if result.is_bound else ' '}"
    stats = match_cells(played) if played else [""] * 7
    seconds = f"{result.seconds:.1f}" if played else ""
    print(cells(rung.spec, rung.opponent or "-", *stats, cumulative, seconds, width=width))
    if result.anchor is not None:
        via = f"{result.anchor_elo:+.0f} " if result.anchor_elo is not None else ""
        anchor = match_cells(result.anchor)
        print(cells("  (anchor)", result.anchor.agent_b, *anchor, via, "", width=width))
    sys.stdout.flush()


def header(width: int) -> str:
    names = ("rung", "vs (below)", "+W", "=D", "-L", "score [95% CI]", "Elo    [95% CI]")
    return cells(*names, "plies", "cap", "random=0", "seconds", width=width)


def play_ladder(variant: str, rungs: list[Rung], args: argparse.Namespace) -> list[RungResult]:
    """Plays every rung in order, printing each; returns the results."""
    width = max(len(r.spec) for r in rungs)
    openings = "ACF three-move ballots" if uses_ballots(variant) else "seeded random openings"
    print(
        f"\n{variant} ladder: {args.games} games per rung, colours swapped, {openings}, "
        f"seed {args.seed}; games reaching {args.max_plies} plies stop there and count as "
        "draws (column cap)",
        flush=True,
    )
    print(header(width), flush=True)
    done: dict[str, RungResult] = {}
    for rung in rungs:
        done[rung.spec] = climb(rung, done, variant, args)
        show(done[rung.spec], width)
    return list(done.values())


def summary(variant: str, results: list[RungResult]) -> None:
    """Prints the variant's ladder from weakest to strongest."""
    ranked = sorted(results, key=lambda r: r.elo)
    text = ""
    for k, r in enumerate(ranked):
        if k:
            text += " < " if round(r.elo) > round(ranked[k - 1].elo) else " = "
        text += f"{r.rung.spec} {r.elo:+.0f}{'*' if r.is_bound else ''}"
    print(f"{variant}: {text}")


# --- Speeds ---------------------------------------------------------------------------------


def speed_positions(variant: str, seed: int) -> list[tuple[list[Move], Position]]:
    """Returns positions (with the moves leading there) every few plies of a depth-2 game."""
    agent = AlphaBetaAgent(depth=2, seed=seed)
    position, moves = Position.start(variant), list[Move]()
    found: list[tuple[list[Move], Position]] = []
    while len(found) < SPEED_POSITIONS and position.legal_moves() and len(moves) < 300:
        if len(moves) % SPEED_STRIDE == 0:
            found.append((list(moves), position))
        move = agent.choose(position)
        moves.append(move)
        position = position.play(move)
    return found


def speed(name: str, budget: int, count: int, seconds: float, unit: str) -> dict[str, Any]:
    """Prints one speed line (count per second) and returns it as JSON-ready values."""
    per_second = count / seconds if seconds > 0 else 0.0
    print(f"  {name:<26} {count:>12,} {unit} {seconds:8.3f} s {per_second:>12,.0f} {unit}/s")
    return {"agent": name, "budget": budget, unit: count, "seconds": seconds, "rate": per_second}


def alphabeta_speed(positions: list[Position], depths: Sequence[int]) -> list[dict[str, Any]]:
    """Returns alpha-beta's nodes and seconds per depth, summed over the positions."""
    AlphaBetaAgent(depth=1).search(positions[0])  # load the compiled kernels
    rows = []
    for depth in sorted(depths):
        agent = AlphaBetaAgent(depth=depth, seed=0)
        results = [agent.search(p) for p in positions]
        nodes, seconds = sum(r.nodes for r in results), sum(r.seconds for r in results)
        rows.append(speed(alphabeta(depth), depth, nodes, seconds, "nodes"))
    return rows


def mcts_speed(positions: list[Position], budgets: Sequence[int]) -> list[dict[str, Any]]:
    """Returns MCTS simulations and seconds per budget, summed over the positions."""
    MCTSAgent(sims=10, seed=0).search(positions[0])  # load the compiled kernels
    rows = []
    for sims in sorted(budgets):
        agent = MCTSAgent(sims=sims, seed=0)
        start = time.perf_counter()
        for position in positions:
            agent.search(position)
        seconds = time.perf_counter() - start
        rows.append(speed(mcts(sims), sims, sims * len(positions), seconds, "sims"))
    return rows


def dame_speed(positions: list[Position], depths: Sequence[int]) -> list[dict[str, Any]]:
    """Returns dame-rs's nodes and seconds per depth over the positions (its own counts)."""
    import dame  # dame-rs, checked by is_available

    rows = []
    for depth in sorted(depths):
        engine = dame.Engine(hash_mb=64)
        results = [engine.search(dame.Board(p.fen()), depth=depth) for p in positions]
        nodes = sum(int(r.nodes) for r in results)
        seconds = sum(float(r.elapsed) for r in results)
        rows.append(speed(f"dame:depth={depth}", depth, nodes, seconds, "nodes"))
    return rows


def openspiel_speed(
    games: list[tuple[list[Move], Position]], budgets: Sequence[int]
) -> list[dict[str, Any]]:
    """Returns OpenSpiel MCTS's simulations and seconds per budget (one decision a position)."""
    from damas_agents.players.external import OpenSpielMCTSAgent

    rows = []
    for sims in sorted(budgets):
        agent, seconds, count = OpenSpielMCTSAgent(sims=sims, seed=0), 0.0, 0
        for moves, position in games:
            agent.reset()
            agent.set_history(moves)
            start = time.perf_counter()
            agent.act({}, position)
            if agent.in_step:  # else OpenSpiel's game had ended and it played at random
                seconds, count = seconds + time.perf_counter() - start, count + sims
        rows.append(speed(f"openspiel-mcts:sims={sims}", sims, count, seconds, "sims"))
    return rows


def speeds(variant: str, rungs: list[Rung], args: argparse.Namespace) -> dict[str, Any]:
    """Prints and returns the search speeds of the variant's agents."""
    games = speed_positions(variant, args.seed)
    positions = [p for _, p in games]
    print(f"\n{variant} search speed, one core, {len(positions)} positions of a depth-2 game")
    out: dict[str, Any] = {"positions": [p.fen() for p in positions]}
    out["alphabeta"] = alphabeta_speed(positions, args.depths) if args.depths else []
    out["mcts"] = mcts_speed(positions, args.mcts) if args.mcts else []
    kinds = {r.spec.partition(":")[0] for r in rungs}
    if "dame" in kinds:
        out["dame"] = dame_speed(positions, args.dame)
    if "openspiel-mcts" in kinds:
        out["openspiel_mcts"] = openspiel_speed(games, args.openspiel)
    sys.stdout.flush()
    return out


# --- Main -----------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--games", type=int, help="games per rung (200; --quick 20)")
    add("--workers", type=int, default=2, help="processes playing games (default 2)")
    add("--variants", nargs="+", default=["english", "international"])
    add("--quick", action="store_true", help="20 games per rung, smaller depths and budgets")
    add("--max-plies", type=int, default=300, help="stop a game here, a draw (default 300)")
    add("--depths", type=int, nargs="*", help="alpha-beta depths (1-6; --quick 1-4)")
    add("--mcts", type=int, nargs="*", help="MCTS simulations (100 400 1000; --quick 100 400)")
    add("--dame", type=int, nargs="*", help="dame-rs depths, International (2 4 6; --quick 2 4)")
    add("--openspiel", type=int, nargs="*", help="OpenSpiel MCTS sims, English (100 1000)")
    add("--anchor", help="an agent spec every rung also plays (e.g. alphabeta:depth=2)")
    add("--seed", type=int, default=0, help="seeds openings and agents (same for every rung)")
    add("--json", metavar="PATH", help="write every result to this JSON file")
    args = parser.parse_args(argv)
    defaults = QUICK if args.quick else FULL
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return args


def to_dict(result: RungResult) -> dict[str, Any]:
    """Returns a rung's result as JSON-ready values."""
    out: dict[str, Any] = {"agent": result.rung.spec, "opponent": result.rung.opponent}
    out |= {"elo_from_random": result.elo, "is_bound": result.is_bound}
    out["seconds"] = result.seconds
    out["match"] = result.match.to_dict(records=False) if result.match else None
    if result.anchor is not None:
        out["anchor_match"] = result.anchor.to_dict(records=False)
        out["anchor_elo_from_random"] = result.anchor_elo
    return out


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    start = time.perf_counter()
    report: dict[str, Any] = {"command": sys.argv, "settings": vars(args).copy(), "variants": {}}
    report["note"] = f"games reaching {args.max_plies} plies are stopped and count as draws"
    ladders = {}
    for variant in args.variants:
        print(f"\n=== {variant} ===", flush=True)
        rungs = ladder(variant, args)
        speed = speeds(variant, rungs, args)
        ladders[variant] = play_ladder(variant, rungs, args)
        rows = [to_dict(r) for r in ladders[variant]]
        report["variants"][variant] = {"speed": speed, "ladder": rows}
    print("\nladders (Elo from random = 0, summed down each rung's opponents; * = a whitewash")
    print("on the way, so that Elo is a bound; '>' and '<' mark such matches above):")
    for variant, results in ladders.items():
        summary(variant, results)
    report["wall_seconds"] = time.perf_counter() - start
    print(f"\nwall time {report['wall_seconds']:.0f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"results written to {args.json}")


if __name__ == "__main__":
    main()
