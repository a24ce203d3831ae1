"""Notation: the only place where strings become moves, positions and games, and back.

PDN square numbers are 1-based and follow FMJD art. 2.6: the dark squares numbered row by
row, left to right, from the top-left as White sees the board (1-50 on 10x10, 1-32
on 8x8, 1-72 on 12x12). Internally squares are 0-based: ``number = index + 1``.

- FEN: ``W:W31-50:B1-20`` — colour to move, then each colour's pieces as numbers,
  ranges (``31-50``) or kings (``K45``), comma separated.
- Moves: ``32-28`` (a step), ``28x19`` (a capture), ``28x19x10`` (every landing square,
  written when origin and destination alone are ambiguous).
- PDN games: tag pairs (``[Event "..."]``) then movetext (``1. 32-28 19-23 2. ...``),
  read by :func:`read_pdn` and written by :func:`write_pdn`.

Malformed input raises :class:`NotationError` (a ``ValueError``) saying what and where.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .engine import Colour, IllegalMoveError, Move
from .geometry import geometry

__all__ = [
    "NotationError",
    "parse_fen",
    "format_fen",
    "parse_move",
    "format_move",
    "board_text",
    "PdnGame",
    "read_pdn",
    "write_pdn",
    "square_to_pdn",
    "pdn_to_square",
]


class NotationError(ValueError):
    """Raised for a malformed FEN, move or PDN text; says what is wrong and where."""


def square_to_pdn(square: int) -> int:
    """Returns the PDN number (1-based) of a 0-based square index."""
    return square + 1


def pdn_to_square(number: int, squares: int) -> int:
    """Returns the 0-based square of a PDN number, checking it is on the board."""
    if not 1 <= number <= squares:
        raise NotationError(f"square {number} is not on the board (1-{squares})")
    return number - 1


# --- FEN ------------------------------------------------------------------------------------

_FEN_ITEM = re.compile(r"^(K?)(\d+)(?:-(\d+))?$")


def parse_fen(fen: str, board_size: int) -> tuple[np.ndarray, Colour]:
    """Returns (board, colour to move) from a PDN FEN string.

    Raises:
        NotationError: the string is malformed, a square is off the board or repeated.
    """
    squares = board_size * board_size // 2
    text = fen.strip().strip('"').rstrip(".")
    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 3 or parts[0].upper() not in ("W", "B"):
        raise NotationError(
            f"bad FEN {fen!r}: expected 'W:W<white pieces>:B<black pieces>' "
            "with W or B to move first"
        )
    board = np.zeros(squares, dtype=np.int8)
    seen: set[str] = set()
    for part in parts[1:]:
        colour = part[:1].upper()
        if colour not in ("W", "B") or colour in seen:
            raise NotationError(f"bad FEN {fen!r}: section {part!r} must start with W or B once")
        seen.add(colour)
        sign = 1 if colour == "W" else -1
        for item in filter(None, (i.strip() for i in part[1:].split(","))):
            for sq, king in _fen_item(item, fen, squares):
                if board[sq] != 0:
                    raise NotationError(f"bad FEN {fen!r}: square {sq + 1} is given twice")
                board[sq] = sign * (2 if king else 1)
    return board, Colour.WHITE if parts[0].upper() == "W" else Colour.BLACK


def _fen_item(item: str, fen: str, squares: int) -> list[tuple[int, bool]]:
    """Returns the (square, is_king) pairs of one FEN list item (number, range, K prefix)."""
    m = _FEN_ITEM.match(item.upper())
    if not m:
        raise NotationError(f"bad FEN {fen!r}: {item!r} is not a square, range or K<square>")
    first, last = int(m[2]), int(m[3] or m[2])
    if first > last:
        raise NotationError(f"bad FEN {fen!r}: range {item!r} runs backwards")
    try:
        return [(pdn_to_square(n, squares), bool(m[1])) for n in range(first, last + 1)]
    except NotationError as e:
        raise NotationError(f"bad FEN {fen!r}: {e}") from None


def format_fen(board: np.ndarray, turn: Colour | int) -> str:
    """Returns the PDN FEN of a board; runs of three or more men are written as ranges."""
    sections = []
    for colour, sign in (("W", 1), ("B", -1)):
        items: list[str] = []
        run: list[int] = []
        for sq, code in enumerate(board):
            if code == sign:
                run.append(sq + 1)
                continue
            items += _men_items(run)
            run = []
            if code == 2 * sign:
                items.append(f"K{sq + 1}")
        items += _men_items(run)
        sections.append(colour + ",".join(sorted(items, key=_item_order)))
    return f"{'W' if Colour(turn) == Colour.WHITE else 'B'}:{sections[0]}:{sections[1]}"


def _men_items(run: list[int]) -> list[str]:
    if len(run) >= 3:
        return [f"{run[0]}-{run[-1]}"]
    return [str(n) for n in run]


def _item_order(item: str) -> int:
    return int(re.split(r"-", item.lstrip("K"))[0])


# --- Moves ----------------------------------------------------------------------------------

_MOVE = re.compile(r"^\d+(?:[-x:]\d+)+$")


def format_move(move: Move, legal: Sequence[Move] = ()) -> str:
    """Returns the PDN string of a move: ``32-28``, ``28x19`` or, if ambiguous, ``28x19x10``.

    The full path is written when another legal move has the same origin and destination
    but takes other pieces, and for a king's capture that returns to its own square.
    """
    if not move.captures:
        return f"{move.origin + 1}-{move.destination + 1}"
    ambiguous = any(
        m.origin == move.origin and m.destination == move.destination and m.key != move.key
        for m in legal
    )
    circular = move.origin == move.destination  # a king's round trip: "20x20" says nothing
    squares = move.squares if ambiguous or circular else (move.origin, move.destination)
    return "x".join(str(s + 1) for s in squares)


def parse_move(text: str, legal: Sequence[Move], board_size: int) -> Move:
    """Returns the legal move a PDN move string names.

    Two squares name the move with that origin and destination (``-`` and ``x`` are both
    accepted); more squares must match a capture route's landing squares in order.

    Raises:
        NotationError: the string is not a move, or names squares off the board.
        IllegalMoveError: no legal move, or more than one, matches; lists the legal moves.
    """
    token = text.strip().rstrip("!?*+")
    if not _MOVE.match(token):
        raise NotationError(f"bad move {text!r}: expected squares joined by '-' or 'x'")
    squares = board_size * board_size // 2
    path = [pdn_to_square(int(n), squares) for n in re.split(r"[-x:]", token)]
    if len(path) == 2:
        found = [m for m in legal if m.origin == path[0] and m.destination == path[1]]
    else:
        found = [m for m in legal if list(m.squares) == path]
    unique = {m.key: m for m in found}
    if len(unique) == 1:
        return found[0]
    names = ", ".join(dict.fromkeys(format_move(m, legal) for m in legal)) or "none"
    why = "is ambiguous" if unique else "is not legal"
    raise IllegalMoveError(f"move {text!r} {why} here; legal moves: {names}")


# --- Text board -----------------------------------------------------------------------------

_SYMBOL = {0: ".", 1: "w", 2: "W", -1: "b", -2: "B"}


def board_text(board: np.ndarray, board_size: int) -> str:
    """Returns a text diagram: ``w``/``b`` men, ``W``/``B`` kings, square numbers on the right."""
    geo = geometry(board_size)
    lines = []
    for row in range(board_size):
        cells = []
        for col in range(board_size):
            sq = geo.square_at(row, col)
            cells.append(" " if sq < 0 else _SYMBOL[int(board[sq])])
        first = row * geo.half + 1
        lines.append(" ".join(cells) + f"   {first:>2}-{first + geo.half - 1}")
    return "\n".join(lines)


# --- PDN games ------------------------------------------------------------------------------

RESULTS = ("2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "0-0", "*")
_TAG = re.compile(r'^\s*\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_TOKEN = re.compile(
    r"(?P<result>2-0|0-2|1-1|1-0|0-1|1/2-1/2|0-0|\*)(?=\s|$)"
    r"|(?P<number>\d+\.+)"
    r"|(?P<move>\d+(?:[-x:]\d+)+)[!?]*"
    r"|(?P<nag>\$\d+)"
    r"|(?P<other>\S+)"
)


@dataclass
class PdnGame:
    """One PDN game as text: its tags, its moves as PDN strings, and its result."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str = "*"


def read_pdn(text: str) -> list[PdnGame]:
    """Returns every game in a PDN text (comments and variations are skipped).

    Raises:
        NotationError: a tag line is malformed or the movetext has an unknown token; the
            message gives the line number.
    """
    games: list[PdnGame] = []
    game: PdnGame | None = None
    in_moves = False
    movetext: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("["):
            if game is None or in_moves:
                if game is not None:
                    _read_movetext(game, movetext)
                game, in_moves, movetext = PdnGame(), False, []
                games.append(game)
            m = _TAG.match(line)
            if not m:
                raise NotationError(f"PDN line {lineno}: bad tag {line.strip()!r}")
            game.tags[m[1]] = m[2].replace('\\"', '"')
        elif line.strip():
            if game is None:
                game = PdnGame()
                games.append(game)
            in_moves = True
            movetext.append((lineno, line))
    if game is not None:
        _read_movetext(game, movetext)
    return games


def _read_movetext(game: PdnGame, lines: list[tuple[int, str]]) -> None:
    """Fills a game's moves and result from its movetext lines.

    Comments (``{...}``, which may span lines, and ``;`` to the end of a line), variations
    (``(...)``, nested), move numbers and NAGs (``$1``) are skipped.
    """
    first_line = lines[0][0] if lines else 0
    text = _COMMENT.sub(lambda m: "\n" * m[0].count("\n"), "\n".join(line for _, line in lines))
    text = text.replace("(", " ( ").replace(")", " ) ")
    depth = 0
    for m in _TOKEN.finditer(text):
        lineno = first_line + text.count("\n", 0, m.start())
        if m["other"] in ("(", ")"):
            depth += 1 if m["other"] == "(" else -1
        elif depth > 0 or m["number"] or m["nag"]:
            continue
        elif m["result"]:
            game.result = m["result"]
        elif m["move"]:
            game.moves.append(m["move"])
        else:
            raise NotationError(f"PDN line {lineno}: unexpected {m['other']!r} in movetext")
    if depth != 0:
        raise NotationError(f"PDN line {first_line}: unbalanced parentheses in movetext")
    if game.result == "*":
        game.result = game.tags.get("Result", "*")


_COMMENT = re.compile(r"\{[^}]*\}|;[^\n]*")


def write_pdn(game: PdnGame) -> str:
    """Returns the PDN text of a game: tags, then numbered moves ten to a line."""
    tags = dict(game.tags)
    tags["Result"] = game.result
    lines = [f'[{k} "{v}"]' for k, v in tags.items()]
    words = []
    for i, move in enumerate(game.moves):
        words.append(f"{i // 2 + 1}. {move}" if i % 2 == 0 else move)
    words.append(game.result)
    body = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    return "\n".join(lines + [""] + body) + "\n"
