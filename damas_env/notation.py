"""Notation: the only place where strings become moves, positions and games, and back.

PDN square numbers are 1-based (FMJD art. 2.6), ``number = index + 1``.

- FEN: ``W:W31-50:B1-20``: the colour to move, then each colour's pieces as numbers, ranges
  or kings (``K45``).
- Moves: ``32-28`` (a step), ``28x19`` (a capture), ``28x19x10`` (every landing square,
  when origin and destination alone are ambiguous).
- PDN games: tag pairs then movetext, up to a termination marker (``1-0``, ``0-1``,
  ``1/2-1/2``, ``2-0``, ``0-2``, ``1-1``, ``0-0``, ``*``): :func:`read_pdn`, :func:`write_pdn`.

PDN is ASCII. Malformed input raises :class:`NotationError` (a ``ValueError``) saying what
and where.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import groupby

import numpy as np

from .checks import shown
from .geometry import Geometry
from .moves import (
    Colour,
    IllegalMoveError,
    Move,
    board_codes,
    board_geometry,
    checked_colour,
    checked_move,
    move_text,
)

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


def _square(digits: str, squares: int) -> int:
    """Returns the 0-based square of a PDN number written in ASCII digits.

    A number of more than four digits is refused before it is converted: no board is that
    large, and ``int`` of a long string is slow (or refused outright by Python).
    """
    if len(digits) > 4:
        raise NotationError(f"square {shown(digits)} is not on the board (1-{squares})")
    return pdn_to_square(int(digits), squares)


#: The whitespace PDN allows; ``str.strip()`` with no argument would also strip Unicode spaces.
ASCII_SPACE = " \t\n\r\x0b\x0c"


def _text(value: object, name: str) -> str:
    """Returns `value` if it is a str.

    Raises:
        TypeError: it is not; the message names the argument.
    """
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


def _ascii_text(value: object, name: str) -> str:
    """Returns `value` with ASCII whitespace stripped, if it is an ASCII str.

    Raises:
        TypeError: it is not a str.
        NotationError: it holds a character that is not ASCII.
    """
    text = _text(value, name)
    if not text.isascii():
        raise NotationError(f"bad {name} {shown(text)}: PDN is ASCII")
    return text.strip(ASCII_SPACE)


# --- FEN ------------------------------------------------------------------------------------

_FEN_ITEM = re.compile(r"(K?)([0-9]+)(?:-([0-9]+))?")  # PDN is ASCII: no other digits


def parse_fen(fen: str, board_size: int | Geometry) -> tuple[np.ndarray, Colour]:
    """Returns (board, colour to move) from a PDN FEN string.

    Raises:
        TypeError: fen is not a str, or board_size not an int.
        ValueError: board_size is not 8, 10 or 12.
        NotationError: the string is malformed, not ASCII, a square is off the board or
            repeated, or the board has no pieces.
    """
    squares = board_geometry(board_size).squares
    text = _ascii_text(fen, "fen").strip('"').rstrip(".")
    if not text:
        raise NotationError("empty FEN: expected 'W:W<white pieces>:B<black pieces>'")
    parts = [p.strip(ASCII_SPACE) for p in text.split(":")]
    if len(parts) != 3 or parts[0].upper() not in ("W", "B"):
        raise NotationError(
            f"bad FEN {shown(fen)}: expected 'W:W<white pieces>:B<black pieces>' "
            "with W or B to move first"
        )
    board = np.zeros(squares, dtype=np.int8)
    seen: set[str] = set()
    for part in parts[1:]:
        colour = part[:1].upper()
        if colour not in ("W", "B") or colour in seen:
            raise NotationError(
                f"bad FEN {shown(fen)}: section {shown(part)} must start with W or B once"
            )
        seen.add(colour)
        sign = 1 if colour == "W" else -1
        for item in filter(None, (i.strip(ASCII_SPACE) for i in part[1:].split(","))):
            for sq, king in _fen_item(item, fen, squares):
                if board[sq] != 0:
                    raise NotationError(f"bad FEN {shown(fen)}: square {sq + 1} is given twice")
                board[sq] = sign * (2 if king else 1)
    if not board.any():  # no game is played on it, and no game reaches it
        raise NotationError(f"bad FEN {shown(fen)}: the board has no pieces")
    return board, Colour.WHITE if parts[0].upper() == "W" else Colour.BLACK


def _fen_item(item: str, fen: str, squares: int) -> list[tuple[int, bool]]:
    """Returns the (square, is_king) pairs of one FEN list item (number, range, K prefix)."""
    m = _FEN_ITEM.fullmatch(item.upper())
    if not m:
        raise NotationError(
            f"bad FEN {shown(fen)}: {shown(item)} is not a square, range or K<square>"
        )
    try:
        first, last = _square(m[2], squares), _square(m[3] or m[2], squares)
    except NotationError as e:
        raise NotationError(f"bad FEN {shown(fen)}: {e}") from None
    if first > last:
        raise NotationError(f"bad FEN {shown(fen)}: range {shown(item)} runs backwards")
    return [(sq, bool(m[1])) for sq in range(first, last + 1)]


def format_fen(board: np.ndarray, turn: Colour | int) -> str:
    """Returns the PDN FEN of a board; runs of three or more men are written as ranges.

    Raises:
        TypeError: board is not a sequence of int codes, or turn not a Colour or 0/1.
        ValueError: board is not 32, 50, 64 or 72 squares of codes 0, +-1, +-2, or turn not 0/1.
    """
    side = checked_colour("turn", turn)
    if isinstance(board, (str, bytes)) or not hasattr(board, "__len__"):
        raise TypeError(f"board must be a sequence of ints, not {type(board).__name__}")
    if np.shape(board) not in ((32,), (50,), (64,), (72,)):
        raise ValueError(f"board must hold 32, 50, 64 or 72 squares, not shape {np.shape(board)}")
    board = board_codes(board, len(board))
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
    return f"{'W' if side == Colour.WHITE else 'B'}:{sections[0]}:{sections[1]}"


def _men_items(run: list[int]) -> list[str]:
    if len(run) >= 3:
        return [f"{run[0]}-{run[-1]}"]
    return [str(n) for n in run]


def _item_order(item: str) -> int:
    return int(re.split(r"-", item.lstrip("K"))[0])


# --- Moves ----------------------------------------------------------------------------------

_MOVE = re.compile(r"[0-9]+(?:[-x:][0-9]+)+")  # ASCII digits only


def format_move(move: Move, legal: Sequence[Move] = ()) -> str:
    """Returns the PDN string of a move: ``32-28``, ``28x19`` or, if ambiguous, ``28x19x10``.

    The full path is written when another legal move has the same origin and destination
    but takes other pieces, and for a king's capture that returns to its own square.

    Raises:
        TypeError: move is not a Move, or a field has the wrong type.
        ValueError: the move is malformed (an empty path, a negative square).
    """
    checked_move(move)
    ambiguous = move.is_capture and any(
        m.origin == move.origin and m.destination == move.destination and m.key != move.key
        for m in legal
    )
    return move_text(move, full_path=ambiguous)


def parse_move(text: str, legal: Sequence[Move], board_size: int | Geometry) -> Move:
    """Returns the legal move a PDN move string names.

    Two squares name the move with that origin and destination (``-`` and ``x`` are both
    accepted); more squares must match a capture route's landing squares in order.

    Raises:
        TypeError: text is not a str, legal not a list or tuple of Moves, or board_size
            not an int.
        ValueError: board_size is not 8, 10 or 12.
        NotationError: the string is not a move, or names squares off the board.
        IllegalMoveError: no legal move, or more than one, matches; lists the legal moves.
    """
    squares = board_geometry(board_size).squares
    _check_moves(legal)
    token = _ascii_text(text, "move").rstrip("!?*+")
    if not _MOVE.fullmatch(token):
        raise NotationError(f"bad move {shown(text)}: expected squares joined by '-' or 'x'")
    path = [_square(n, squares) for n in re.split(r"[-x:]", token)]
    if len(path) == 2:
        found = [m for m in legal if m.origin == path[0] and m.destination == path[1]]
    else:
        found = [m for m in legal if list(m.squares) == path]
    unique = {m.key: m for m in found}
    if len(unique) == 1:
        return found[0]
    names = ", ".join(dict.fromkeys(format_move(m, legal) for m in legal)) or "none"
    why = "is ambiguous" if unique else "is not legal"
    raise IllegalMoveError(f"move {shown(text)} {why} here; legal moves: {names}")


def _check_moves(legal: object) -> None:
    """Refuses a legal-move list that is not a list or tuple of Moves (TypeError)."""
    if not isinstance(legal, (list, tuple)):
        raise TypeError(f"legal must be a list of Moves, not {type(legal).__name__}")
    for i, move in enumerate(legal):
        if not isinstance(move, Move):
            raise TypeError(f"legal[{i}] must be a Move, not {type(move).__name__} {shown(move)}")


# --- Text board -----------------------------------------------------------------------------

_SYMBOL = {0: ".", 1: "w", 2: "W", -1: "b", -2: "B"}


def board_text(board: np.ndarray, board_size: int | Geometry) -> str:
    """Returns a text diagram: ``w``/``b`` men, ``W``/``B`` kings, square numbers on the right.

    `board_size` is a size (the dark squares) or the Geometry of any layout."""
    geo = board_geometry(board_size)
    lines = []
    for row in range(geo.size):
        cells = []
        for col in range(geo.size):
            sq = geo.square_at(row, col)
            cells.append(" " if sq < 0 else _SYMBOL[int(board[sq])])
        first = row * geo.per_row + 1
        lines.append(" ".join(cells) + f"   {first:>2}-{first + geo.per_row - 1}")
    return "\n".join(lines)


# --- PDN games ------------------------------------------------------------------------------

#: Game termination markers; each ends a game in the movetext (PDN 3.0). ``2-0``, ``0-2`` and
#: ``1-1`` are the draughts forms (two points a game), ``0-0`` a double loss.
RESULTS = ("2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "0-0", "*")
_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")
_TAG = re.compile(rf'\s*\[\s*({_TAG_NAME.pattern})\s+"((?:[^"\\]|\\.)*)"\s*\]\s*', re.ASCII)
_TAG_ESCAPE = re.compile(r'\\([\\"])')
# One pass over the movetext, every alternative linear (no backtracking across tokens); an
# unclosed comment is its own token, reported. Digits and whitespace (\s) are ASCII only.
_TOKEN = re.compile(
    r"(?P<comment>\{[^}]*\}|;[^\n]*)"
    r"|(?P<result>2-0|0-2|1-1|1-0|0-1|1/2-1/2|0-0|\*)(?![^\s(){;])"
    r"|(?P<number>[0-9]+\.+)"
    r"|(?P<move>[0-9]+(?:[-x:][0-9]+)+)[!?]*"
    r"|(?P<nag>\$[0-9]+)"
    r"|(?P<open>\()"
    r"|(?P<close>\))"
    r"|(?P<unclosed>\{)"
    r"|(?P<other>[^\s(){;]+)",
    re.ASCII,
)
_NESTING = frozenset({"open", "close", "unclosed"})
_SKIPPED = frozenset({"comment", "number", "nag"})


@dataclass
class PdnGame:
    """One PDN game as text: its tags, its moves as PDN strings, and its result."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str = "*"


def read_pdn(text: str) -> list[PdnGame]:
    """Returns every game in a PDN text (comments and variations are skipped).

    A game starts with its tag lines or, without tags, after the previous game's result:
    ``1. 11-15 23-19 1-0 1. 9-13 22-18 0-1`` is two games. Time is linear in the text.

    Raises:
        TypeError: text is not a str.
        NotationError: a tag line is malformed or the movetext has an unknown token; the
            message gives the line number.
    """
    games: list[PdnGame] = []
    tagged: PdnGame | None = None  # the game whose tags were just read
    # Lines end at "\n" only: str.splitlines() would also split at Unicode line separators.
    for first, lines, is_tags in _sections(_text(text, "text").split("\n")):
        if is_tags:
            if tagged is None:
                tagged = PdnGame()
                games.append(tagged)
            tagged.tags.update(_read_tags(lines, first))
            tagged.result = _result(None, tagged.tags)
            continue
        if not any(line.strip(ASCII_SPACE) for line in lines):
            continue  # blank lines between tag lines keep them in one game
        for i, (moves, result) in enumerate(_read_movetext("\n".join(lines), first)):
            if i == 0 and tagged is not None:
                tagged.moves, tagged.result = moves, _result(result, tagged.tags)
            elif moves or result:
                games.append(PdnGame({}, moves, result or "*"))
        tagged = None
    return games


def _sections(lines: list[str]) -> Iterator[tuple[int, list[str], bool]]:
    """Yields (first line number, lines, is_tags) for each run of tag or movetext lines."""
    numbered = enumerate(lines, 1)
    for is_tags, run in groupby(numbered, key=lambda i: i[1].lstrip(ASCII_SPACE).startswith("[")):
        block = list(run)
        yield block[0][0], [line for _, line in block], is_tags


def _read_tags(lines: list[str], first: int) -> dict[str, str]:
    """Returns the tag pairs of consecutive tag lines (``\\"`` and ``\\\\`` unescaped)."""
    tags = {}
    for lineno, line in enumerate(lines, first):
        m = _TAG.fullmatch(line)
        if not m:
            raise NotationError(f"PDN line {lineno}: bad tag {shown(line.strip(ASCII_SPACE))}")
        tags[m[1]] = _TAG_ESCAPE.sub(r"\1", m[2])
    return tags


def _result(marker: str | None, tags: dict[str, str]) -> str:
    """Returns a game's result: its termination marker, else a valid ``Result`` tag, else *."""
    if marker not in (None, "*"):
        return marker
    return tags["Result"] if tags.get("Result") in RESULTS else "*"


def _read_movetext(text: str, first_line: int) -> list[tuple[list[str], str | None]]:
    """Returns (moves, termination marker) for each game in a stretch of movetext.

    A marker ends a game; the last entry holds the moves after the last marker (None).
    Comments (``{...}``, which may span lines, and ``;`` to the end of a line), variations
    (``(...)``, nested), move numbers and NAGs (``$1``) are skipped.
    """
    games: list[tuple[list[str], str | None]] = []
    moves: list[str] = []
    depth = 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in _NESTING:
            depth = _nesting(m, depth, text, first_line)
        elif depth or kind in _SKIPPED:
            continue
        elif kind == "move":
            moves.append(m[kind])
        elif kind == "result":
            games.append((moves, m[kind]))
            moves = []
        else:
            raise _movetext_error(f"unexpected {shown(m[0])} in movetext", m, text, first_line)
    if depth != 0:
        raise NotationError(f"PDN line {first_line}: unbalanced parentheses in movetext")
    return [*games, (moves, None)]


def _nesting(m: re.Match[str], depth: int, text: str, first_line: int) -> int:
    """Returns the variation depth after ``(`` or ``)``; refuses a stray ``)`` or ``{``."""
    if m.lastgroup == "unclosed":
        raise _movetext_error("comment '{' is never closed", m, text, first_line)
    if m.lastgroup == "close" and depth == 0:
        raise _movetext_error("')' closes no variation", m, text, first_line)
    return depth + (1 if m.lastgroup == "open" else -1)


def _movetext_error(problem: str, m: re.Match[str], text: str, first_line: int) -> NotationError:
    """Returns the error for a token, with its line number (counted once, on error only)."""
    return NotationError(f"PDN line {first_line + text.count(chr(10), 0, m.start())}: {problem}")


def write_pdn(game: PdnGame) -> str:
    """Returns the PDN text of a game: tags, then numbered moves ten to a line.

    Everything is checked first, so that the text reads back as the same one game.

    Raises:
        TypeError: game is not a PdnGame.
        NotationError: a tag name is not letters, digits and ``_``, a tag value is not a
            one-line str, a move is not a PDN move token, or the result is not a result.
    """
    if not isinstance(game, PdnGame):
        raise TypeError(f"game must be a PdnGame, not {type(game).__name__}")
    if not isinstance(game.result, str) or game.result not in RESULTS:
        raise NotationError(f"PDN result {shown(game.result)} is not one of {list(RESULTS)}")
    if not isinstance(game.tags, dict):
        raise NotationError(f"PDN tags must be a dict, not {type(game.tags).__name__}")
    tags = dict(game.tags)
    tags["Result"] = game.result
    lines = [_tag_line(k, v) for k, v in tags.items()]
    words = []
    for i, move in enumerate(_checked_move_tokens(game.moves)):
        words.append(f"{i // 2 + 1}. {move}" if i % 2 == 0 else move)
    words.append(game.result)
    body = [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    return "\n".join(lines + [""] + body) + "\n"


def _checked_move_tokens(moves: object) -> list[str]:
    """Returns a game's moves, each checked to be one PDN move token (``32-28``, ``28x19``).

    Raises:
        NotationError: moves is not a list, or a move is not a str of the move grammar, or
            is spelt like a result (``1-0`` would end the game when read back).
    """
    if not isinstance(moves, (list, tuple)):
        raise NotationError(f"PDN moves must be a list of str, not {type(moves).__name__}")
    for i, move in enumerate(moves):
        if not isinstance(move, str) or not _MOVE.fullmatch(move) or move in RESULTS:
            raise NotationError(f"PDN move {i + 1} {shown(move)} is not a move like '32-28'")
    return list(moves)


def _tag_line(name: object, value: object) -> str:
    """Returns one tag line, with ``\\`` and ``"`` escaped in the value."""
    if (
        not isinstance(name, str)
        or not isinstance(value, str)
        or not _TAG_NAME.fullmatch(name)
        or "\n" in value  # a line ends at "\n" only (see read_pdn)
    ):
        raise NotationError(
            f"PDN tag {shown(name)} = {shown(value)} cannot be written: a tag is a name of "
            "letters, digits and '_' and a one-line str value"
        )
    text = value
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'
