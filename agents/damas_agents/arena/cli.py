"""``damas arena``: matches and round robins between agents, from the command line.

    damas arena --variant english --agents alphabeta:depth=2 mcts:sims=200 --games 200
                [--workers 2] [--seed 0] [--max-plies N] [--pdn out.pdn] [--json]

Two agents play a match (W/D/L, score and Elo with 95% intervals, seconds per move); three
or more a round robin (``--games`` per pair). ``--pdn`` saves the games, ``--json`` prints
one JSON object. An agent is a spec or, on this command line only, a Python agent
(``python:FILE.py:ATTR``). Every agent is built before the first game, so a bad one stops the
command at once; errors exit with status 2. Limits: ``--games`` 1 to 100000, ``--workers``
1 to 256, ``--max-plies`` 1 to 100000, ``--seed`` 0 to 2**32 - 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor
from pathlib import Path
from typing import Any

from damas_agents.arena.match import MAX_GAMES, MAX_PLIES, MAX_SEED, MAX_WORKERS
from damas_agents.players.external import EngineError
from damas_agents.players.make import PYTHON_USAGE, command_line_agent, make_agent
from damas_agents.specs import spec_usage
from damas_env.checks import checked_int, shown
from damas_env.cli import variant_arg
from damas_env.rules import get_ruleset

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of ``damas arena``."""
    parser = argparse.ArgumentParser(
        prog="damas arena",
        description="Plays agents against each other: a match of two, or a round robin.",
        epilog=f"agent specs: {spec_usage()}; or a Python agent, {PYTHON_USAGE} (an agent, "
        "an agent class or factory, or a policy function policy(planes, mask) -> action), on "
        "the command line only",
    )
    parser.add_argument(
        "--variant", type=variant_arg, default="english", help="ruleset name or rules YAML path"
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="AGENT",
        help="two or more agents: specs, or python:MODULE:ATTR or python:FILE.py:ATTR",
    )
    parser.add_argument(
        "--games",
        type=int_arg(1, MAX_GAMES),
        default=200,
        help=f"games per pair (default 200; at most {MAX_GAMES} in all)",
    )
    parser.add_argument(
        "--workers", type=int_arg(1, MAX_WORKERS), default=1, help="processes to play in"
    )
    parser.add_argument(
        "--seed", type=int_arg(0, MAX_SEED), default=0, help="seed of openings and agents"
    )
    parser.add_argument(
        "--max-plies", type=int_arg(1, MAX_PLIES), help="stop games after N plies (a draw)"
    )
    parser.add_argument("--pdn", type=Path, help="save every game to this PDN file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def int_arg(low: int, high: int) -> Callable[[str], int]:
    """Returns an argparse type: an int in [low, high], written in ASCII digits.

    argparse names the option in its message (``argument --games: must be an int in ...``).
    """

    def parse(text: str) -> int:
        if not (text.isascii() and text.lstrip("+-").isdigit() and len(text) <= 40):
            raise argparse.ArgumentTypeError(
                f"must be an int in [{low}, {high}], not {shown(text)}"
            )
        try:
            return checked_int("value", int(text), low, high)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an int in [{low}, {high}], not {shown(text)}"
            ) from None

    return parse


def run(args: argparse.Namespace) -> None:
    """Plays the match or round robin the arguments ask for and prints the result."""
    from damas_agents.arena.match import play_match, round_robin

    if len(args.agents) < 2:
        raise ValueError(f"--agents needs at least two specs, not {len(args.agents)}")
    rules = get_ruleset(args.variant)
    agents = [command_line_agent(text, rules, args.workers) for text in args.agents]
    for spec in dict.fromkeys(a for a in agents if isinstance(a, str)):
        _close(make_agent(spec, rules=rules))  # fail now, before any game: a bad spec, a
        # missing or misconfigured engine (a Hub engine starts and shakes hands when built),
        # or an agent of other rules (a checkpoint, a one-variant engine)
    options: dict[str, Any] = {
        "variant": args.variant,
        "games": args.games,
        "seed": args.seed,
        "workers": args.workers,
        "max_plies": args.max_plies,
        "progress": not args.no_progress,
    }
    if len(agents) == 2:
        result: Any = play_match(agents[0], agents[1], **options)
    else:
        result = round_robin(agents, **options)
    if args.pdn:
        args.pdn.write_text(result.pdn())
    data = result.to_dict()
    if args.pdn:
        data["pdn"] = str(args.pdn)
    print(json.dumps(data) if args.json else result.summary())


def _close(agent: object) -> None:
    """Closes an agent that holds a resource (an external engine's process)."""
    close = getattr(agent, "close", None)
    if callable(close):
        close()


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas arena``; returns the exit status (2 on a usage or input error)."""
    args = build_parser().parse_args(argv)
    try:
        run(args)
    except (ValueError, ImportError, NotImplementedError, OSError, EngineError) as e:
        print(f"damas arena: error: {e}", file=sys.stderr)
        return 2
    except BrokenExecutor as e:  # a worker killed (out of memory, a signal): no traceback
        print(f"damas arena: error: a worker process died: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
