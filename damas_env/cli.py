"""The library's commands of ``damas``: perft, legal moves and boards for any ruleset.

    damas perft --variant english --depth 8 [--fen FEN] [--divide] [--json]
    damas moves --variant international [--fen FEN] [--json]
    damas show  --variant my_rules.yaml [--fen FEN]
    damas variants [--names] [--json]

``--variant`` is a ruleset name (``damas variants`` lists them) or a rules YAML path. Errors
exit with status 2, Ctrl-C with 130. The application (``damas_agents.command``) adds its
commands through :func:`main`'s ``commands``: the library never imports the agents.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from . import __version__
from .engine import MAX_PERFT_DEPTH, Position
from .notation import format_move
from .rules import Ruleset, get_ruleset, ruleset_names

__all__ = ["Command", "main", "ruleset_summary", "variant_arg"]

#: A command added by the application: (help line, its main taking the remaining argv).
Command = tuple[str, Callable[[list[str]], int]]


def variant_arg(text: str) -> str | Path:
    """Returns a ``--variant`` argument as a ruleset name, or as a Path if it names a file.

    A rules file typed on the command line is explicit, so it is passed on as a Path, the
    only form :func:`~damas_env.rules.get_ruleset` reads a file from: a ``.yaml``/``.yml``
    name or anything with a path separator. Every other text stays a name.
    """
    separators = tuple(sep for sep in ("/", os.sep, os.altsep) if sep)
    if text.endswith((".yaml", ".yml")) or any(sep in text for sep in separators):
        return Path(text)
    return text


def _position(args: argparse.Namespace) -> Position:
    rules = get_ruleset(args.variant)
    return Position.start(rules) if args.fen is None else Position.from_fen(args.fen, rules)


def _emit(args: argparse.Namespace, data: dict, text: str) -> None:
    print(json.dumps(data) if args.json else text)


def cmd_perft(args: argparse.Namespace) -> None:
    """Prints the perft count (and, with --divide, the count below each move)."""
    if not 1 <= args.depth <= MAX_PERFT_DEPTH:
        raise ValueError(
            f"--depth must be at least 1 and at most {MAX_PERFT_DEPTH}, not {args.depth}"
        )
    pos = _position(args)
    pos.perft(1)  # compile (or load from cache) before timing
    start = time.perf_counter()
    divide: dict[str, int] = {}
    if args.divide:
        legal = pos.legal_moves()
        for move in legal:
            divide[format_move(move, legal)] = pos.play(move).perft(args.depth - 1)
        nodes = sum(divide.values())
    else:
        nodes = pos.perft(args.depth)
    seconds = time.perf_counter() - start
    data = {"variant": pos.rules.name, "fen": pos.fen(), "depth": args.depth, "nodes": nodes}
    data |= {"seconds": round(seconds, 6), "leaves_per_second": round(nodes / max(seconds, 1e-9))}
    if args.divide:
        data["divide"] = divide
    lines = [f"{move}: {count}" for move, count in divide.items()]
    lines.append(
        f"perft({args.depth}) = {nodes}  "
        f"[{seconds:.3f} s, {nodes / max(seconds, 1e-9):,.0f} leaves/s]"
    )
    _emit(args, data, "\n".join(lines))


def cmd_moves(args: argparse.Namespace) -> None:
    """Prints every legal move with its path and captured squares (PDN numbers)."""
    pos = _position(args)
    legal = pos.legal_moves()
    rows = [
        {
            "pdn": format_move(m, legal),
            "from": m.origin + 1,
            "to": m.destination + 1,
            "path": [s + 1 for s in m.squares],
            "captures": [s + 1 for s in m.captures],
            "crowns": m.crowns,
        }
        for m in legal
    ]
    data = {"variant": pos.rules.name, "fen": pos.fen(), "turn": _turn(pos)[0], "moves": rows}
    name, note = _turn(pos)
    who = f"{name} ({note})" if note else name
    text = f"{len(rows)} legal moves for {who}: " + " ".join(str(r["pdn"]) for r in rows)
    _emit(args, data, text)


def cmd_show(args: argparse.Namespace) -> None:
    """Prints the board as text with the FEN and the colour to move."""
    pos = _position(args)
    data = {"variant": pos.rules.name, "fen": pos.fen(), "turn": _turn(pos)[0], "board": str(pos)}
    name, note = _turn(pos)
    _emit(args, data, f"{pos}\n{pos.fen()}  ({name} to move{'; ' + note if note else ''})")


def cmd_variants(args: argparse.Namespace) -> None:
    """Prints the names --variant accepts, each with its summary (an alias names its ruleset)."""
    names = ruleset_names()
    rulesets = {name: get_ruleset(name) for name in names}
    summaries = {name: ruleset_summary(r) for name, r in rulesets.items()}
    aliases = {name: r.name for name, r in rulesets.items() if r.name != name}
    data = {"variants": names, "summaries": summaries, "aliases": aliases}
    width = max(map(len, names))
    lines = [
        f"{name:<{width}}  " + (f"= {aliases[name]}" if name in aliases else summaries[name])
        for name in names
    ]
    _emit(args, data, "\n".join(names if args.names else lines))


#: Words for a switch's value, in :func:`ruleset_summary`; a value not here (FMJD's, mostly)
#: goes unsaid.
_PHRASES: dict[tuple[str, Any], str] = {
    ("board_layout", "mirrored"): "single corner right",
    ("board_layout", "all"): "all squares played",
    ("move_directions", "orthogonal"): "orthogonal moves",
    ("capture_directions", "diagonal_and_orthogonal"): "orthogonal captures too",
    ("capture_directions", "orthogonal"): "orthogonal captures",
    ("men_capture_backward", False): "men never capture backward",
    ("flying_kings", True): "flying kings",
    ("flying_kings", False): "short kings",
    ("capture_precedence", "free"): "free capture choice",
    ("men_capture_kings", False): "men cannot take kings",
    ("promotion_in_capture", "ends_move"): "crowning ends a capture",
    ("promotion_in_capture", "crown_and_continue"): "crowned mid-capture",
    ("king_landing", "immediate"): "a king lands right behind unless it takes on",
    ("king_landing", "right_behind"): "a king lands right behind",
    ("turkish_strike", False): "pieces removed as taken",
    ("capture_may_reverse", False): "no turning back in a capture",
    ("giveaway", True): "giveaway: no move left wins",
    ("first_king_wins", True): "the first king wins",
}
_TIEBREAKS = {
    "with_king": "with a king",
    "most_kings": "most kings",
    "earliest_king": "earliest king",
}
#: The switches a summary starts with: the board, the men and who moves first.
_LEAD = ("board_size", "board_layout", "rows_per_side", "empty_back_rows", "first_player")


def ruleset_summary(rules: Ruleset) -> str:
    """Returns a one-line summary of a ruleset made from its switches: the board, the men,
    who moves first, then each rule that is not FMJD's in field order (``8x8, single
    corner right, 12 men each, white moves first, men never capture backward, ...``).
    Draw rules are left out but for a ply limit; ``damas variants --json`` and
    :meth:`~damas_env.rules.Ruleset.to_dict` give every switch."""
    order = _LEAD + tuple(f.name for f in fields(rules) if f.name not in _LEAD)
    phrases = (_phrase(rules, name, getattr(rules, name)) for name in order)
    return ", ".join(p for p in phrases if p)


def _phrase(rules: Ruleset, name: str, value: Any) -> str:
    """Returns the words for one switch of a ruleset, or "" when it goes unsaid."""
    if name == "board_size":
        return f"{value}x{value}"
    if name == "rows_per_side":
        return f"{value * rules.squares_per_row} men each"
    if name == "empty_back_rows" and value:
        return "back row empty" if value == 1 else f"{value} back rows empty"
    if name == "first_player":
        return f"{rules.colour_names[0 if value == 'white' else 1]} moves first"
    if name == "capture_precedence" and value == "most_pieces":
        worth = {"man_and_a_half": "1.5", "almost_two_men": "1.99"}.get(rules.king_capture_weight)
        return f"value majority (a king worth {worth} men)" if worth else "majority capture"
    if name == "capture_tiebreaks" and value:
        return "capture priority: " + " > ".join(_TIEBREAKS.get(t, t) for t in value)
    if name == "king_move_limit" and value:
        return f"king move limit {value}"
    if name == "ply_limit" and value:
        material = rules.ply_limit_result == "material"
        return f"{value}-ply limit" + (" (material decides)" if material else "")
    return _PHRASES.get((name, value), "") if isinstance(value, str | bool) else ""


def _turn(pos: Position) -> tuple[str, str]:
    """Returns the colour to move as the rules call it, and a note giving its FEN letter
    where the name does not start with it ("B in the FEN": a ruleset that calls Black red)."""
    name = pos.rules.colour_names[int(pos.turn)]
    letter = "WB"[int(pos.turn)]
    return name, "" if name[:1].upper() == letter else f"{letter} in the FEN"


def _parser(more: Mapping[str, Command] | None = None) -> argparse.ArgumentParser:
    """Returns the parser of the library's commands, listing the `more` commands by name."""
    description = "Draughts rules, environments and agents for reinforcement learning."
    parser = argparse.ArgumentParser(prog="damas", description=description)
    parser.add_argument(
        "--version", action="version", version=f"damas-env {__version__}", help="show the version"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    commands: dict[str, tuple[Callable[[argparse.Namespace], None], str]] = {
        "perft": (cmd_perft, "count the leaves of the legal move tree"),
        "moves": (cmd_moves, "list the legal moves of a position"),
        "show": (cmd_show, "draw a position as text"),
        "variants": (cmd_variants, "list the rulesets --variant accepts, with summaries"),
    }
    for name, (func, help_text) in commands.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(func=func)
        p.add_argument("--json", action="store_true", help="print one JSON object")
        if name == "variants":
            p.add_argument("--names", action="store_true", help="list the names only")
            continue
        p.add_argument(
            "--variant",
            type=variant_arg,
            default="international",
            help="ruleset name or rules YAML",
        )
        p.add_argument("--fen", help="PDN FEN of the position (default: the start position)")
        if name == "perft":
            p.add_argument(
                "--depth", type=int, required=True, help=f"plies to search (1-{MAX_PERFT_DEPTH})"
            )
            p.add_argument("--divide", action="store_true", help="show the count below each move")
    for name, (help_text, _) in (more or {}).items():
        sub.add_parser(name, help=help_text)  # parsed by the command's own main
    return parser


def main(argv: Sequence[str] | None = None, commands: Mapping[str, Command] | None = None) -> int:
    """Runs a command; returns the exit status: 2 on a bad input, 130 on Ctrl-C, 1 when the
    reader of its output went away (``damas show | head``), silently.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).
        commands: more commands by name, each run by its own main on the arguments after
            its name (the application's ``arena``, ``play`` and ``train``).
    """
    try:
        return _run(list(sys.argv[1:] if argv is None else argv), commands)
    except BrokenPipeError:  # `damas show | head`: the reader left; say nothing more
        _silence_stdout()
        return 1


def _silence_stdout() -> None:
    """Points stdout at /dev/null, so that flushing it at exit raises no second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture)
        pass


def _run(argv: list[str], commands: Mapping[str, Command] | None) -> int:
    if argv[:1] and commands and argv[0] in commands:
        try:
            return commands[argv[0]][1](argv[1:])
        except KeyboardInterrupt:
            print(f"damas {argv[0]}: interrupted", file=sys.stderr)
            return 130
    parser = _parser(commands)
    args = parser.parse_args(argv)
    try:
        args.func(args)
    except (ValueError, OverflowError) as e:  # RulesetError, NotationError, bad depth
        print(f"damas {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: a perft stops between compiled calls
        print(f"damas {args.command}: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
