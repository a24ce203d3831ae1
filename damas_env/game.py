"""A game: a position plus its history, with undo, draw rules and a result.

    >>> from damas_env.game import Game
    >>> game = Game("english")
    >>> game.push("11-15")
    Move(origin=10, path=(14,), captures=(), crowns=False)
    >>> game.pop().origin
    10

A game is a :class:`~damas_env.turn.Turn` played move by move through the envs' kernels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from . import kernels as K
from .checks import shown
from .engine import Position
from .kernels import Reason
from .moves import Colour, IllegalMoveError, Move
from .notation import NotationError, PdnGame, format_fen, format_move, read_pdn, write_pdn
from .render import Highlights, board_html, svg
from .rules import Ruleset, RulesetError, get_ruleset, tuples_for_lists
from .turn import Turn

__all__ = ["Game", "Outcome", "Reason"]


# PDN GameType numbers of the named rulesets: PDN 3.0 (20-31) and Lidraughts' Frisian (40).
# Frysk! and Breakthrough have none; their Variant tag names them.
GAME_TYPES = {
    "international": 20,
    "english": 21,
    "italian": 22,
    "pool": 23,
    "spanish": 24,
    "russian": 25,
    "brazilian": 26,
    "canadian": 27,
    "portuguese": 28,
    "czech": 29,
    "turkish": 30,
    "thai": 31,
    "frisian": 40,
}


#: Tags :meth:`Game.to_pdn` writes from the game itself; a caller may not set them.
GAME_TAGS = ("FEN", "SetUp", "Variant", "GameType", "Result", "Rules")

#: Longest ``Rules`` tag read: every switch changed fits in well under 1 kB.
MAX_RULES_TAG = 4096


class _Undo(NamedTuple):
    """What taking back a move restores: the board, the turn state's row of numbers, the
    history ring slot the move's hash took, and the move before it. (A copy of the board,
    not the kernels' undo_move: that would be one more kernel to compile, in the middle of
    a game, for a process that never took a move back before.)"""

    board: np.ndarray
    st: np.ndarray
    overwritten: np.uint64
    last: np.ndarray


@dataclass(frozen=True)
class Outcome:
    """The end of a game: the winner (None for a draw) and the reason (``reason.label`` is
    its name, ``"no_legal_move"``, ...)."""

    winner: Colour | None
    reason: Reason

    def pdn_result(self, board_size: int) -> str:
        """Returns the PDN result string (``2-0``/``0-2``/``1-1`` on 10x10 and up)."""
        win, loss, draw = ("2-0", "0-2", "1-1") if board_size >= 10 else ("1-0", "0-1", "1/2-1/2")
        if self.winner is None:
            return draw
        return win if self.winner == Colour.WHITE else loss


class Game:
    """A game in progress: push and pop moves, ask for the result.

    The game is not over-written by a bad move: :meth:`push` checks legality first and
    raises :class:`~damas_env.engine.IllegalMoveError`, leaving everything as it was.

    The game lives in a turn state (:class:`~damas_env.turn.Turn`, a batch of one) and its
    moves are played by the turn kernels the envs run, hop by hop: hashing, the draw
    counters, repetitions and the result are those of the envs. A repetition counts the
    positions in the turn state's history ring (:func:`~damas_env.turn.history_size`): all
    of the no-progress window, or the last 1024 plies for rules without a no-progress limit.
    """

    def __init__(self, rules: Ruleset | str = "international", fen: str | None = None) -> None:
        """Starts a game from the start position, or from `fen` if given.

        Raises:
            TypeError: fen is neither None nor a str.
            NotationError: fen is malformed; an empty string is not the start position.
        """
        self.rules = get_ruleset(rules)
        start = Position.start(self.rules) if fen is None else Position.from_fen(fen, self.rules)
        self.start_fen = None if fen is None else start.fen()
        self.engine = start.engine
        self.moves: list[Move] = []
        self._turn = Turn(self.rules)
        self._turn.reset(start.board, start.turn)
        self._undo: list[_Undo] = []

    # --- State ------------------------------------------------------------------------------

    @property
    def board(self) -> np.ndarray:
        """Returns the board (int8 piece codes), the turn state's own array: do not write it."""
        return self._turn.board

    @property
    def turn(self) -> Colour:
        """Returns the colour to move."""
        return self._turn.side

    @property
    def counters(self) -> np.ndarray:
        """Returns the draw counters (kernels.G_* layout), the turn state's own array."""
        return self._turn.counters

    @property
    def position(self) -> Position:
        """Returns the current position as a value, with the game's king runs (so that its
        legal moves are the game's: the king move limit applies)."""
        return Position.of_game(self.rules, self.board, self.turn, self.counters)

    @property
    def ply(self) -> int:
        """Returns the number of plies played from the start position."""
        return len(self.moves)

    @property
    def plies_without_progress(self) -> int:
        """Returns the plies played since the last progress (``Ruleset.progress``): the count
        the no-progress draw rule (``Ruleset.no_progress_plies``) watches."""
        if self.rules.progress == "capture_or_man_move":
            return int(self.counters[K.G_SINCE_MAN_OR_CAPTURE])
        return int(self.counters[K.G_SINCE_PROMOTION_OR_CAPTURE])

    def legal_moves(self) -> list[Move]:
        """Returns the legal moves, or [] once the game is over by a draw rule or limit."""
        if self.is_over:
            return []
        return self.position.legal_moves()

    def repetitions(self) -> int:
        """Returns how many times the current position has occurred (this time included)."""
        return self._turn.repetitions

    def outcome(self) -> Outcome | None:
        """Returns how the game ended, or None while it goes on."""
        result = self._turn.result
        if result == K.ONGOING:
            return None
        winner = {K.WHITE_WINS: Colour.WHITE, K.BLACK_WINS: Colour.BLACK}.get(result)
        return Outcome(winner, Reason(self._turn.reason))

    @property
    def is_over(self) -> bool:
        """Returns True once the game has a result."""
        return self._turn.result != K.ONGOING

    # --- Moving -----------------------------------------------------------------------------

    def push(self, move: Move | str) -> Move:
        """Plays a move (a Move, any capture route, or a PDN string); returns the legal Move.

        Raises:
            IllegalMoveError: the move is not legal or the game is over.
            NotationError: the string is not a move.
            TypeError: move is neither a Move nor a str.

        Whatever the error, nothing changes.
        """
        if self.is_over:
            raise IllegalMoveError(f"the game is over ({self.outcome()}); no move can be played")
        legal = self.position.find_move(move)
        turn = self._turn
        slot = (self.ply + 1) % turn.hist.size  # the ring slot this move's hash takes
        undo = _Undo(turn.board.copy(), turn.st.copy(), turn.hist[slot], turn.last.copy())
        turn.play_move(legal.squares)
        self._undo.append(undo)
        self.moves.append(legal)
        return legal

    def pop(self) -> Move:
        """Takes back the last move and returns it.

        Raises:
            IndexError: no move has been played.
        """
        if not self.moves:
            raise IndexError("no move to take back")
        turn = self._turn
        undo = self._undo.pop()
        turn.board[:] = undo.board
        turn.hist[self.ply % turn.hist.size] = undo.overwritten
        turn.st[:] = undo.st
        turn.last[:] = undo.last
        turn.forget_listing()  # the listed routes are those of a position after this one
        return self.moves.pop()

    # --- PDN --------------------------------------------------------------------------------

    def move_strings(self) -> list[str]:
        """Returns the PDN strings of the moves played, each unambiguous in its position."""
        replay = Game(self.rules, self.start_fen)
        out = []
        for move in self.moves:
            out.append(format_move(move, replay.legal_moves()))
            replay.push(move)
        return out

    def to_pdn(self, **tags: str) -> str:
        """Returns the game as PDN text, with the given tags added.

        ``Variant`` names the registered ruleset the game's rules come from; a ruleset
        derived from it (``get_ruleset("international", ply_limit=200)``) adds a ``Rules``
        tag holding the changed switches as JSON, so :meth:`from_pdn` replays the same rules.

        Raises:
            ValueError: a tag is one the game writes itself (GAME_TAGS).
            NotationError: a tag name or value cannot be written.
        """
        owned = sorted(set(tags) & set(GAME_TAGS))
        if owned:
            raise ValueError(f"to_pdn: tag(s) {owned} are written from the game, not given")
        header = {"Event": "?", "White": "?", "Black": "?"}
        header.update(tags)
        header.update(_rules_tags(self.rules))
        if self.start_fen:
            header["FEN"] = self.start_fen
        outcome = self.outcome()
        result = outcome.pdn_result(self.rules.board_size) if outcome else "*"
        return write_pdn(PdnGame(header, self.move_strings(), result))

    @classmethod
    def from_pdn(cls, text: str, rules: Ruleset | str | None = None) -> Game:
        """Returns the game the first PDN game in text records, every move checked.

        The ruleset is, in order: `rules` if given, the ``Variant`` tag, the ``GameType`` tag,
        else international; a ``Rules`` tag (see :meth:`to_pdn`) then changes its switches.

        Raises:
            TypeError: text is not a str.
            NotationError: the PDN is malformed, or its Variant, GameType, Rules or FEN tag
                is bad.
            IllegalMoveError: a move is illegal; the message gives its number.
        """
        games = read_pdn(text)
        if not games:
            raise NotationError("no game found in the PDN text")
        pdn = games[0]
        game = cls(_pdn_rules(pdn, rules), pdn.tags.get("FEN"))
        for i, move in enumerate(pdn.moves):
            try:
                game.push(move)
            except IllegalMoveError as e:
                raise IllegalMoveError(f"PDN move {i + 1}: {e}") from None  # e quotes it
        return game

    def status(self) -> str:
        """Returns the game's state in words: the colour to move, or the result and why."""
        names = self.rules.colour_names
        outcome = self.outcome()
        if outcome is None:
            return f"{self.rules.name}, ply {self.ply}: {names[int(self.turn)]} to move"
        who = "draw" if outcome.winner is None else f"{names[int(outcome.winner)]} wins"
        result = outcome.pdn_result(self.rules.board_size)
        return f"{self.rules.name}, ply {self.ply}: {result}, {who} ({outcome.reason.label})"

    def _repr_svg_(self) -> str:
        """Returns the board as SVG, the last move highlighted, so a notebook draws it."""
        last = self.moves[-1] if self.moves else None
        marks = Highlights(last.squares, last_capture=last.is_capture) if last else Highlights()
        return svg(self.board, self.engine.geometry, marks, colour_names=self.rules.colour_names)

    def _repr_html_(self) -> str:
        """Returns the board over a caption saying who is to move or how the game ended."""
        return board_html(self._repr_svg_(), self.status())

    def __repr__(self) -> str:
        return f"Game({self.rules.name!r}, {format_fen(self.board, self.turn)!r}, ply={self.ply})"


def _rules_tags(rules: Ruleset) -> dict[str, str]:
    """Returns the PDN tags naming a ruleset: Variant, and GameType or Rules.

    The Variant is the registered ruleset the rules are named after (``base_name``: a
    changed ruleset keeps its variant), else international (a ruleset loaded from a file);
    the switches that differ from it, its name included, go in ``Rules`` as compact JSON.
    """
    try:
        base = get_ruleset(rules.base_name)
    except RulesetError:
        base = get_ruleset("international")
    theirs = base.to_dict()
    changes = {k: v for k, v in rules.to_dict().items() if theirs[k] != v}
    if changes:
        return {"Variant": base.name, "Rules": json.dumps(changes, separators=(",", ":"))}
    if base.name in GAME_TYPES:
        return {"GameType": str(GAME_TYPES[base.name]), "Variant": base.name}
    return {"Variant": base.name}


def _rules_switches(text: str) -> dict[str, Any]:
    """Returns the rule switches a ``Rules`` tag holds, read strictly.

    Raises:
        NotationError: the tag is too long, not JSON, not an object, or holds a value
            that is no switch value (a number that is not an int, a nested object).
    """
    if len(text) > MAX_RULES_TAG:
        raise NotationError(f"PDN Rules tag is longer than {MAX_RULES_TAG} characters")
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise NotationError(f"PDN Rules tag {shown(text)} is not a JSON object") from None
    if not isinstance(data, dict):
        raise NotationError(f"PDN Rules tag {shown(text)} is not a JSON object of switches")
    data = tuples_for_lists(data)
    for key, value in data.items():
        if isinstance(value, (dict, list, float)) or value is None:
            raise NotationError(f"PDN Rules tag: {shown(key)} cannot be {shown(value)}")
    return data


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Returns a JSON object's pairs as a dict, refusing a key given twice."""
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("a key is given twice")
    return data


def _no_constant(name: str) -> None:
    """Refuses NaN and Infinity, which JSON does not have."""
    raise ValueError(f"{name} is not JSON")


def _pdn_rules(pdn: PdnGame, rules: Ruleset | str | None) -> Ruleset:
    """Returns the ruleset of a PDN game (argument, Variant tag, GameType tag, default).

    A ``Variant`` tag is only ever a ruleset name (get_ruleset never opens a file for a str)
    and a ``Rules`` tag only switches: a game file cannot make the library read local files.

    Raises:
        NotationError: the Variant or GameType tag names no known ruleset, or the Rules tag
            is malformed or makes a bad ruleset.
    """
    if rules is not None:
        return get_ruleset(rules)
    base = _pdn_variant(pdn)
    if "Rules" not in pdn.tags:
        return base
    switches = _rules_switches(pdn.tags["Rules"])
    try:
        return get_ruleset(base, **switches)
    except RulesetError as e:
        raise NotationError(f"PDN Rules tag: {e}") from None


def _pdn_variant(pdn: PdnGame) -> Ruleset:
    """Returns the ruleset named by the Variant tag, else the GameType tag, else international.

    Raises:
        NotationError: the Variant tag names no known ruleset, or without it the GameType
            tag does not; or the two name rulesets played on different boards.
    """
    if "Variant" not in pdn.tags:
        return _pdn_game_type(pdn)
    try:
        variant = get_ruleset(pdn.tags["Variant"])
    except RulesetError as e:
        raise NotationError(f"PDN Variant tag: {e}") from None
    if "GameType" not in pdn.tags or _game_type_number(pdn) not in _BY_NUMBER:
        return variant  # no number, or one we do not know: the Variant decides
    numbered = _pdn_game_type(pdn)  # Frysk! and Antidraughts carry their board's number
    if (numbered.board_size, numbered.board_layout) != (variant.board_size, variant.board_layout):
        raise NotationError(
            f"PDN GameType {shown(pdn.tags['GameType'])} ({numbered.name}) and Variant "
            f"{shown(pdn.tags['Variant'])} ({variant.name}) name different boards"
        )
    return variant


def _pdn_game_type(pdn: PdnGame) -> Ruleset:
    """Returns the ruleset the GameType tag numbers (international when there is none).

    Raises:
        NotationError: the number is no known GameType.
    """
    game_type = _game_type_number(pdn)
    if game_type not in _BY_NUMBER:
        raise NotationError(
            f"unsupported PDN GameType {game_type[:20]!r}; known: {sorted(_BY_NUMBER)}"
        )
    return get_ruleset(_BY_NUMBER[game_type])


_BY_NUMBER = {str(v): k for k, v in GAME_TYPES.items()}


def _game_type_number(pdn: PdnGame) -> str:
    """Returns the number a GameType tag starts with ("20" when there is none)."""
    return pdn.tags.get("GameType", "20").split(",")[0].strip()
