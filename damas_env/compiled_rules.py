"""The compiled rules: a Ruleset as the kernels read it, an int64 array of switches.

The kernels see a ruleset only through :func:`rules_array` (each switch in its slot of an
``int64[R_LEN]`` array; a Literal switch as its choice's code, derived from the Literal) and
:func:`ray_table` (the rays of its lines). Slots and codes are plain ints, read by numba as
compile-time constants; the switches in :data:`PYTHON_ONLY` never reach the kernels.

Slots of the rules array::

    R_SIZE            board_size                  R_RANKED          a capture order applies
    R_SQUARES         playable squares            R_KING_WEIGHT     king_capture_weight
    R_ROW             playable squares per row    R_TIEBREAK..+2    capture_tiebreaks, 0 none
    R_MEN_BACK        men_capture_backward        R_MEN_TAKE_KINGS  men_capture_kings
    R_FLYING          flying_kings                R_REVERSE         capture_may_reverse
    R_MAJORITY        capture_precedence          R_FIRST_KING      first_king_wins
    R_PROMO           promotion_in_capture        R_KING_LIMIT      king_move_limit
    R_LANDING         king_landing                R_DIRS            directions (4 or 8)
    R_TURKISH         turkish_strike              R_MOVE_LO..HI     ray slots of moves
    R_GIVEAWAY        giveaway                    R_CAP_LO..HI      ray slots of captures
    R_REPETITION      repetition_count            R_MAN_DIRS        the slots men may use
    R_NO_PROGRESS     no_progress_plies           R_ENDGAME         fmjd_endgame or
    R_PROGRESS        progress                                      frisian_endgame
    R_PLY_LIMIT       ply_limit                   R_LIMIT_MATERIAL  ply_limit_result
Then the board as bit sets (R_WORD to R_SRC_HI, :data:`BLOCKS`; see their comments).
"""

from __future__ import annotations

import numpy as np

from .geometry import geometry
from .rules import CAPTURE_TIEBREAKS, SWITCH_CHOICES, Ruleset

__all__ = [
    "rules_array",
    "ray_table",
    "ray_slots",
    "SWITCH_CODES",
    "PYTHON_ONLY",
    "R_LEN",
]

# --- Slots of the rules array ---------------------------------------------------------------

R_SIZE, R_SQUARES, R_MEN_BACK, R_FLYING, R_MAJORITY, R_PROMO, R_LANDING = 0, 1, 2, 3, 4, 5, 6
R_TURKISH, R_GIVEAWAY, R_REPETITION, R_NO_PROGRESS, R_PROGRESS, R_ENDGAME = 7, 8, 9, 10, 11, 12
R_PLY_LIMIT, R_LIMIT_MATERIAL = 13, 14
R_ROW, R_MOVE_LO, R_MOVE_HI, R_CAP_LO, R_CAP_HI = 15, 16, 17, 18, 19  # squares a row; directions
R_RANKED, R_KING_WEIGHT, R_TIEBREAK = 20, 21, 22  # R_TIEBREAK..+2: TB_* codes in order
R_MEN_TAKE_KINGS, R_REVERSE, R_FIRST_KING, R_KING_LIMIT = 25, 26, 27, 28
R_DIRS = 29  # directions of the action layout: 4 or 8 (damas_env.encoding)
R_MAN_DIRS = 30  # bit 8 * side + d: a man of side may go along ray slot d (kernels._switches)
# R_WORD: the board as bit sets (the blocks below): WORD_ONE, in one word; WORD_TWO, in two
# (12x12: damas_env.wide's sets, where the kernels count on them; their listing and the
# rest work square by square); 0: squares only.
R_WORD = 31
R_LSH, R_RSH, R_SRC = 32, 40, 48  # +slot: a step along a ray slot on a bit set
R_BIT, R_SQ = 56, 128  # +square: its bit; +bit: its square, -1 a ghost
R_CROWN = 256  # +side: the set of the squares where that side's men are crowned (one word)
R_SRC_HI = 258  # +slot: R_SRC's high word (two words)
R_LEN = 266
#: The slots that open a block, with its length.
BLOCKS = {"R_TIEBREAK": 3, "R_LSH": 8, "R_RSH": 8, "R_SRC": 8, "R_BIT": 72, "R_SQ": 128}
BLOCKS |= {"R_CROWN": 2, "R_SRC_HI": 8}
WORD_ONE, WORD_TWO = 1, 2

# --- Codes of the switches ------------------------------------------------------------------


def _positions(choices: tuple[str, ...], first: int = 0) -> dict[str, int]:
    """Returns each choice's code: its position among `choices`, counted from `first`."""
    return {choice: first + i for i, choice in enumerate(choices)}


#: What a taken king weighs under ``most_pieces``, in hundredths of a man, in the order of
#: the choices of ``king_capture_weight`` (Frisian rules art. 11).
_KING_WEIGHTS = (100, 150, 199)

#: The code of each choice of the switches written as codes, by switch. A tie-break's code
#: is its position in CAPTURE_TIEBREAKS plus one (0: no tie-break in that slot).
SWITCH_CODES: dict[str, dict[str, int]] = {
    "capture_precedence": _positions(SWITCH_CHOICES["capture_precedence"]),
    "promotion_in_capture": _positions(SWITCH_CHOICES["promotion_in_capture"]),
    "king_landing": _positions(SWITCH_CHOICES["king_landing"]),
    "progress": _positions(SWITCH_CHOICES["progress"]),
    "ply_limit_result": _positions(SWITCH_CHOICES["ply_limit_result"]),
    "king_capture_weight": dict(
        zip(SWITCH_CHOICES["king_capture_weight"], _KING_WEIGHTS, strict=True)
    ),
    "capture_tiebreaks": _positions(CAPTURE_TIEBREAKS, first=1),
}

PROMO_ENDS = SWITCH_CODES["promotion_in_capture"]["ends_move"]
PROMO_CROWN = SWITCH_CODES["promotion_in_capture"]["crown_and_continue"]  # Russian rules
PROGRESS_MAN_MOVE = SWITCH_CODES["progress"]["capture_or_man_move"]
LANDING_IMMEDIATE = SWITCH_CODES["king_landing"]["immediate"]
LANDING_RIGHT_BEHIND = SWITCH_CODES["king_landing"]["right_behind"]
TB_NONE = 0
TB_WITH_KING = SWITCH_CODES["capture_tiebreaks"]["with_king"]
TB_MOST_KINGS = SWITCH_CODES["capture_tiebreaks"]["most_kings"]
TB_EARLIEST_KING = SWITCH_CODES["capture_tiebreaks"]["earliest_king"]
ENDGAME_FMJD, ENDGAME_FRISIAN = 1, 2  # R_ENDGAME; 0: none

#: The switches the kernels never read, each with where it acts instead.
PYTHON_ONLY = (
    ("name", "a label for results, PDN headers and messages"),
    ("rows_per_side", "the start position, which Engine.start_board sets up"),
    ("empty_back_rows", "the start position, which Engine.start_board sets up"),
    ("first_player", "the side to move, which a position holds (Position.start)"),
    ("colour_names", "labels for boards, PDN tags and terminals"),
)

# --- The translation ------------------------------------------------------------------------


def rules_array(rules: Ruleset) -> np.ndarray:
    """Returns the int64 array of switches the kernels read (the R_* slots above)."""
    r = np.zeros(R_LEN, dtype=np.int64)
    r[R_SIZE], r[R_SQUARES], r[R_ROW] = rules.board_size, rules.squares, rules.squares_per_row
    r[R_MEN_BACK] = rules.men_capture_backward
    r[R_FLYING] = rules.flying_kings
    r[R_MAJORITY] = _code(rules, "capture_precedence")
    r[R_PROMO] = _code(rules, "promotion_in_capture")
    r[R_LANDING] = _code(rules, "king_landing")
    r[R_TURKISH] = rules.turkish_strike
    r[R_GIVEAWAY] = rules.giveaway
    r[R_REPETITION] = rules.repetition_count
    r[R_NO_PROGRESS] = rules.no_progress_plies
    r[R_PROGRESS] = _code(rules, "progress")
    r[R_PLY_LIMIT] = rules.ply_limit
    r[R_LIMIT_MATERIAL] = _code(rules, "ply_limit_result")
    r[R_ENDGAME] = _endgame_code(rules)
    r[R_RANKED] = rules.capture_precedence == "most_pieces" or bool(rules.capture_tiebreaks)
    r[R_KING_WEIGHT] = _code(rules, "king_capture_weight")
    for i, tiebreak in enumerate(rules.capture_tiebreaks):
        r[R_TIEBREAK + i] = SWITCH_CODES["capture_tiebreaks"][tiebreak]
    r[R_MEN_TAKE_KINGS] = rules.men_capture_kings
    r[R_REVERSE] = rules.capture_may_reverse
    r[R_FIRST_KING] = rules.first_king_wins
    r[R_KING_LIMIT] = rules.king_move_limit
    _write_directions(r, rules)
    _write_bits(r, rules)
    return r


def _code(rules: Ruleset, switch: str) -> int:
    """Returns the code of a ruleset's choice for a switch written as a code."""
    return SWITCH_CODES[switch][getattr(rules, switch)]


def _endgame_code(rules: Ruleset) -> int:
    """Returns the code of a ruleset's endgame draw rule (at most one applies)."""
    if rules.frisian_endgame:
        return ENDGAME_FRISIAN
    return ENDGAME_FMJD if rules.fmjd_endgame else 0


def _write_directions(r: np.ndarray, rules: Ruleset) -> None:
    """Writes the directions slots: the ray slots of moves, of captures and of men."""
    slots = ray_slots(rules)
    r[R_MOVE_LO], r[R_MOVE_HI] = _slot_range(slots, _LINES[rules.move_directions])
    r[R_CAP_LO], r[R_CAP_HI] = _slot_range(slots, _LINES[rules.capture_directions])
    r[R_MAN_DIRS] = sum(
        1 << (8 * side + slot)
        for side, allowed in enumerate(_MAN_LINES)
        for slot, d in enumerate(slots)
        if d in allowed
    )
    r[R_DIRS] = rules.directions


def _write_bits(r: np.ndarray, rules: Ruleset) -> None:
    """Writes the bit-set slots where the board fits a word or two (R_WORD; else they stay
    0)."""
    geo = geometry(rules.board_size, rules.board_layout)
    r[R_SQ : R_SQ + 128] = -1
    if not geo.word and not geo.two_words:
        return
    r[R_WORD] = WORD_ONE if geo.word else WORD_TWO
    r[R_BIT : R_BIT + geo.squares] = geo.bit
    r[R_SQ + geo.bit.astype(np.int64)] = np.arange(geo.squares)
    for slot, d in enumerate(ray_slots(rules)):
        shift = geo.shift[d]
        assert shift is not None  # geo.word or geo.two_words
        r[R_LSH + slot], r[R_RSH + slot] = max(shift, 0), max(-shift, 0)
        src = sum(1 << int(geo.bit[s]) for s in range(geo.squares) if geo.ray[s, d, 0] >= 0)
        r[R_SRC + slot] = np.array(src & WORD_MASK, dtype=np.uint64).view(np.int64)
        r[R_SRC_HI + slot] = np.array(src >> 64, dtype=np.uint64).view(np.int64)
    if not geo.word:
        return
    row = rules.squares_per_row  # as kernels._on_last_row
    for side, squares in enumerate((range(row), range(geo.squares - row, geo.squares))):
        crown = sum(1 << int(geo.bit[s]) for s in squares)
        r[R_CROWN + side] = np.array(crown, dtype=np.uint64).view(np.int64)


WORD_MASK = (1 << 64) - 1


#: The absolute directions (damas_env.geometry) of each kind of line.
_LINES = {
    "diagonal": (0, 1, 2, 3),
    "orthogonal": (4, 5, 6, 7),
    "diagonal_and_orthogonal": (0, 1, 2, 3, 4, 5, 6, 7),
}
#: The directions a man of White, of Black may go where it may not go back: forward, or
#: sideways along its row.
_MAN_LINES = ((0, 1, 4, 5, 6), (2, 3, 5, 6, 7))


def ray_slots(rules: Ruleset) -> tuple[int, ...]:
    """Returns the absolute directions of the kernels' ray table, slot by slot.

    The kernels walk only the lines a ruleset uses, so that their loops have a constant
    length of four wherever four directions suffice: the diagonals (most variants), the
    orthogonals (Turkish, in the order up, left, right, down: the opposite of slot d is
    3 - d in both), or all eight where moves and captures use different lines (Frisian).
    """
    used = set(_LINES[rules.move_directions]) | set(_LINES[rules.capture_directions])
    if used == set(_LINES["diagonal"]):
        return _LINES["diagonal"]
    if used == set(_LINES["orthogonal"]):
        return _LINES["orthogonal"]
    return _LINES["diagonal_and_orthogonal"]


def ray_table(rules: Ruleset) -> np.ndarray:
    """Returns the kernels' ray table, ``ray[sq, slot, k]``: the board's rays along the
    lines of :func:`ray_slots`, slot by slot."""
    rays = geometry(rules.board_size, rules.board_layout).ray
    return np.ascontiguousarray(rays[:, list(ray_slots(rules)), :])


def _slot_range(slots: tuple[int, ...], lines: tuple[int, ...]) -> tuple[int, int]:
    """Returns the slots [lo, hi) of `lines` in a ray table of `slots` (a block of four)."""
    first = slots.index(lines[0])
    return first, first + len(lines)
