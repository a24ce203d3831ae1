"""Rulesets: every difference between draughts variants as a named switch.

A named variant is a frozen :class:`Ruleset`, and a derived one a ``replace`` of its parent::

    >>> russian = get_ruleset("russian")
    >>> russian.replace(capture_precedence="most_pieces").name
    'russian (modified: capture_precedence)'

Each field cites its source: FMJD (the official international draughts rules), EDA/ACF
(English Draughts Association, American Checker Federation), the Russian draughts
federation, APCA (American Pool Checkers Association), or the rule documents numbered 000,
002 and 004 behind the presets in ``damas_env/presets``. Only the engine reads the switches.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args, get_origin, get_type_hints

import yaml

from .checks import (
    DuplicateKeyError,
    closest,
    did_you_mean,
    load_yaml,
    plain_fields,
    read_regular_file,
    shown,
    yaml_error_place,
)

__all__ = [
    "Ruleset",
    "RulesetError",
    "check_switches",
    "get_ruleset",
    "ruleset_names",
    "load_ruleset_file",
    "tuples_for_lists",
    "RULES_DIR",
    "SWITCH_CHOICES",
    "MAX_REPETITION_COUNT",
    "MAX_NO_PROGRESS_PLIES",
    "MAX_PLY_LIMIT",
]

CapturePrecedence = Literal["free", "most_pieces"]
PromotionInCapture = Literal["ends_move", "pass_through", "crown_and_continue"]
KingLanding = Literal["any", "immediate", "right_behind"]
BoardLayout = Literal["dark", "mirrored", "all"]
MoveDirections = Literal["diagonal", "orthogonal"]
CaptureDirections = Literal["diagonal", "diagonal_and_orthogonal", "orthogonal"]
KingWeight = Literal["man", "man_and_a_half", "almost_two_men"]
Progress = Literal["capture_or_man_move", "capture_or_promotion"]
PlyLimitResult = Literal["draw", "material"]
Colour = Literal["white", "black"]
CaptureTiebreak = Literal["with_king", "most_kings", "earliest_king"]

#: Folder of the rules presets shipped in the package.
RULES_DIR = Path(__file__).resolve().parent / "presets"

#: Largest accepted ``repetition_count``: no rulebook asks for more than three occurrences.
MAX_REPETITION_COUNT = 100
#: Largest accepted ``no_progress_plies``: the hash ring holds this window (Pool: 100).
MAX_NO_PROGRESS_PLIES = 1000
#: Largest accepted ``ply_limit`` (the website's rules: 200).
MAX_PLY_LIMIT = 100_000
#: Largest accepted ``king_move_limit`` (Frisian: 3).
MAX_KING_MOVE_LIMIT = 100
#: The tie-breaks ``capture_tiebreaks`` may list, in any order (each at most once).
CAPTURE_TIEBREAKS: tuple[str, ...] = get_args(CaptureTiebreak)

#: Largest rules file :func:`load_ruleset_file` reads; the presets are under 2 kB.
MAX_RULES_FILE_BYTES = 64 * 1024

_LIMITS = {
    "repetition_count": MAX_REPETITION_COUNT,
    "no_progress_plies": MAX_NO_PROGRESS_PLIES,
    "ply_limit": MAX_PLY_LIMIT,
    "king_move_limit": MAX_KING_MOVE_LIMIT,
}


class RulesetError(ValueError):
    """Raised for an unknown ruleset name, an unknown switch or a contradictory ruleset."""


@dataclass(frozen=True)
class Ruleset:
    """The rule switches of one draughts variant.

    Squares are the dark squares (all of them on the ``"all"`` layout, see
    ``board_layout``); White starts on the bottom rows (the high PDN square numbers) and
    moves up the board, Black starts on the top rows and moves down, whichever colour
    moves first.

    The switches' notes cite the rulebooks, and the three rule texts behind the presets:
    "the Portuguese text" (International rules, ``international_land_behind``), "the
    website's rules" (8x8 checkers, ``website_checkers``) and "the Spanish text" (English
    rules, ``english_adjudicated``).
    """

    name: str = "international"
    """Name shown in results, PDN headers and error messages. A registered name (a variant,
    alias or preset) stays only on that ruleset's switches: a ruleset that differs from it
    is named after it with the switches that differ, ``"russian (modified:
    capture_precedence)"`` (see :attr:`base_name`), however it was made."""

    board_size: int = 10
    """Squares per side: 8, 10 or 12 (FMJD art. 2.1: 10x10; EDA: 8x8; Canadian: 12x12)."""

    rows_per_side: int = 4
    """Rows of men each side starts on (the Portuguese text and FMJD art. 2: four rows; EDA: three
    rows; Thai rules and Turkish rules: two rows; Frysk!: one row)."""

    empty_back_rows: int = 0
    """Rows left empty behind each side's men at the start (Turkish rules: the men stand on
    the second and third rows, the back row empty)."""

    board_layout: BoardLayout = "dark"
    """Which squares are played on, and the board's orientation (see
    :mod:`damas_env.geometry`). "dark": the dark squares, a dark single corner on each
    player's left (FMJD art. 2.4; the Portuguese text; EDA). "mirrored": the dark squares with the
    board turned, the single corner on the right (Italian rules art. 2; Spanish and
    Portuguese rules). "all": all 64 squares (Turkish rules)."""

    move_directions: MoveDirections = "diagonal"
    """Lines a non-capturing move follows. "diagonal" (FMJD art. 3; EDA; Frisian rules art.
    7 and 9: Frisian kings move only diagonally). "orthogonal": forward, left, right, and
    back for kings (Turkish rules: men step forward or sideways, never back)."""

    capture_directions: CaptureDirections = "diagonal"
    """Lines a capture follows. "diagonal_and_orthogonal": men and kings capture in eight
    directions along diagonals, rows and columns (Frisian rules art. 7: "a choice of
    eight"); "orthogonal" (Turkish rules). Men that may not capture backwards
    (``men_capture_backward``) still capture sideways along a row."""

    first_player: Colour = "white"
    """Colour that moves first (FMJD art. 3 and the Portuguese text: White; EDA and the Spanish
    text: Black; the website's rules: red, which plays Black's side)."""

    men_capture_backward: bool = True
    """Men capture backwards as well as forwards (FMJD art. 4.1; the Portuguese text: "para frente
    e para trás"). English men capture forward only (EDA rules; the Spanish text)."""

    flying_kings: bool = True
    """Kings move and capture along a whole diagonal (FMJD art. 3 and 4.3; the Portuguese text).
    English kings move one square (EDA rules; the Spanish text)."""

    capture_precedence: CapturePrecedence = "most_pieces"
    """"most_pieces": the sequence taking the most pieces is compulsory, men and kings count the
    same (FMJD art. 4; the Portuguese text's rule 7; Turkish, Italian, Spanish rules). "free":
    any capture may be chosen (EDA rules; the website's rules; the Spanish text; Russian, Czech
    and Thai rules)."""

    king_capture_weight: KingWeight = "man"
    """What a taken king counts for under ``most_pieces``. "man": one piece like any other
    (FMJD art. 4). Otherwise the capture of highest value is compulsory (Frisian rules art.
    11: "a king has more value than a man, but less than two men"): "almost_two_men" reads
    that as 1.99 men, so two kings outweigh three men but not four, and three kings five men
    (Lidraughts, py-draughts and Halbersma's dctl play it so); "man_and_a_half" as 1.5 men
    (Wikipedia's summary; pydraughts), where three kings weigh less than five men."""

    capture_tiebreaks: tuple[str, ...] = ()
    """Rules that choose among the captures the precedence rule left, applied in order; each
    keeps the captures best by it. "with_king": a capture by a king before one by a man
    (Frisian rules art. 11; Italian rules art. 6.3; Czech rules: king priority, the only
    rule there). "most_kings": the most kings taken (Italian rules art. 6.4; Spanish and
    Portuguese rules: quality after quantity). "earliest_king": the sequence that meets a
    king first, that being equal its next king first, and so on (Italian rules art. 6.5)."""

    men_capture_kings: bool = True
    """Men may capture kings (FMJD art. 4). Italian men may not (Italian rules art. 5.4:
    "la pedina non può prendere la dama")."""

    promotion_in_capture: PromotionInCapture = "pass_through"
    """What a man reaching the far row during a capture does. "pass_through": it goes on capturing
    as a man if it can and is crowned only if the move ends there (FMJD art. 4; the Portuguese
    text). "ends_move": the move ends and it is crowned (EDA rules; the Spanish text).
    "crown_and_continue": it is crowned at once and goes on capturing as a king (Russian rules)."""

    king_landing: KingLanding = "any"
    """Where a flying king may stop after taking a piece. "any": any free square beyond it (FMJD
    art. 4.3). "immediate": the free square right behind the piece, unless only a farther square
    lets the capture go on (the Portuguese text: "repousará na casa livre imediatamente próxima
    ... (exceto quando ocorre a situação descrita na regra 7)"). "right_behind": always the
    square right behind the piece (Thai rules). Applies to flying kings only."""

    turkish_strike: bool = True
    """Captured pieces stay on the board until the move ends, blocking the capturing piece
    and never taken twice (FMJD art. 4; the Portuguese text: "não serão removidas do Tabuleiro até
    que a jogada esteja completada"). False removes each piece as it is jumped (Turkish and
    Thai rules), which can open squares the capture then crosses again."""

    capture_may_reverse: bool = True
    """A capture may turn back along the line it came (180 degrees) between two hops. Turkish
    rules forbid it ("within a multi-capture, turning 180 degrees between two captures is not
    allowed"); with the Turkish strike the taken piece blocks that line anyway."""

    giveaway: bool = False
    """Losing draughts: a player who cannot move on their turn wins (the giveaway form of
    each variant; every other rule unchanged)."""

    first_king_wins: bool = False
    """The first player to crown a king wins at once (Breakthrough, as Lidraughts plays it on
    International rules)."""

    king_move_limit: int = 0
    """Non-capturing moves in a row one king may make while its side still has men (Frisian
    rules art. 10: three; the rule lapses for a side with only kings). The Game and the envs
    apply it (it needs the game's history, like the draw rules); a bare Position does not.
    0 turns it off; at most ``MAX_KING_MOVE_LIMIT`` (100)."""

    repetition_count: int = 3
    """A position (same pieces, same player to move) occurring this many times is a draw
    (FMJD art. 6: three times). 0 turns the rule off; at most ``MAX_REPETITION_COUNT`` (100)."""

    no_progress_plies: int = 50
    """Plies without progress after which the game is a draw (FMJD art. 6: 25 moves each
    with only kings moved and no capture = 50 plies). 0 turns the rule off; at most
    ``MAX_NO_PROGRESS_PLIES`` (1000), the window the position-hash history must hold."""

    progress: Progress = "capture_or_man_move"
    """What resets the no-progress count: "capture_or_man_move" (FMJD art. 6, EDA 40-move rule) or
    "capture_or_promotion" (the website's rules: "no capture or promotion to king for 40 pairs
    of consecutive moves")."""

    fmjd_endgame: bool = True
    """FMJD endgame limits (FMJD art. 6): three kings, two kings and a man, or a king and two
    men against a lone king are drawn after 16 moves each; two kings, a king and a man, or a
    king against a lone king after 5 moves each, counted from the last capture or
    promotion."""

    frisian_endgame: bool = False
    """Frisian endgame draws (Frisian rules art. 13): two kings against one king are drawn
    after 7 moves each, one king against one king after 2 moves each, counted from the last
    capture or promotion (Lidraughts' reading of "drawn unless a win is forced at once")."""

    ply_limit: int = 0
    """Plies after which the game stops (the website's rules: "automatically drawn ... after 200
    moves (100 each)"). 0 means no limit; at most ``MAX_PLY_LIMIT`` (100000)."""

    ply_limit_result: PlyLimitResult = "draw"
    """Result of a game stopped at the ply limit: "draw", or "material" (the Spanish text: more
    pieces wins; equal pieces, more kings wins; otherwise a draw)."""

    colour_names: tuple[str, str] = ("white", "black")
    """Display names of (White's side, Black's side); the website's rules play white against red."""

    def __new__(cls, *args: Any, **switches: Any) -> Ruleset:
        # A misspelt switch gets the same RulesetError as replace(), listing the known ones,
        # instead of the generated __init__'s bare TypeError.
        check_switches(switches)
        return super().__new__(cls)

    def __post_init__(self) -> None:
        for problem in _problems(self):
            raise RulesetError(f"ruleset {shown(self.name)}: {problem}")
        honest = _honest_name(self)
        if honest != self.name:  # a frozen dataclass sets its own field through object
            object.__setattr__(self, "name", honest)

    @property
    def squares(self) -> int:
        """Returns the number of playable squares (the dark ones, or all on "all")."""
        return self.board_size * self.squares_per_row

    @property
    def squares_per_row(self) -> int:
        """Returns the playable squares of one row (N on the all-squares layout, else N/2)."""
        return self.board_size if self.board_layout == "all" else self.board_size // 2

    @property
    def directions(self) -> int:
        """Returns the directions of the action layout: 4 (diagonals) or 8 (with orthogonals)."""
        orthogonal = self.move_directions != "diagonal" or self.capture_directions != "diagonal"
        return 8 if orthogonal else 4

    @property
    def base_name(self) -> str:
        """Returns the registered name this ruleset is or derives from ("russian" for
        "russian (modified: capture_precedence)"); a ruleset of its own returns its name."""
        modified = _MODIFIED.fullmatch(self.name)
        return modified.group(1) if modified else self.name

    def replace(self, **changes: Any) -> Ruleset:
        """Returns a copy with the given switches changed, checked like a new ruleset.

        Unless `changes` names it, the copy of a registered ruleset takes a name saying what
        changed: ``get_ruleset("russian").replace(capture_precedence="most_pieces").name`` is
        ``"russian (modified: capture_precedence)"``.
        """
        check_switches(changes)
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Returns the switches as plain YAML/JSON-ready values."""
        d = dataclasses.asdict(self)
        d["colour_names"] = list(self.colour_names)
        d["capture_tiebreaks"] = list(self.capture_tiebreaks)
        return d


_FIELD_NAMES = frozenset(f.name for f in fields(Ruleset))


def keywords_of(function: Any) -> tuple[str, ...]:
    """Returns the named keyword parameters of a function (``self`` and ``**kwargs`` left
    out): a constructor's own keywords, for :func:`check_switches`."""
    return tuple(
        name
        for name, parameter in inspect.signature(function).parameters.items()
        if name != "self" and parameter.kind is not parameter.VAR_KEYWORD
    )


def check_switches(names: Iterable[str], keywords: Iterable[str] = (), owner: str = "") -> None:
    """Raises RulesetError naming the names that are neither rule switches nor keywords.

    A constructor that passes its other keyword arguments on as rule switches calls this
    with its own keywords and its name (`owner`), so a misspelt keyword (``max_plys``) is
    reported as such, with the closest keyword or switch suggested and both lists given.

    Raises:
        RulesetError: a name is unknown.
    """
    known = set(keywords)
    unknown = sorted(set(names) - _FIELD_NAMES - known)
    if not unknown:
        return
    shown_names = [k if len(k) <= 60 else k[:57] + "..." for k in unknown]
    if len(unknown) == 1:
        hint = did_you_mean(unknown[0], _FIELD_NAMES | known)
    else:
        pairs = [(closest(k, _FIELD_NAMES | known), k) for k in unknown[:5]]
        guesses = ", ".join(f"{c!r} for {k[:60]!r}" for c, k in pairs if c)
        hint = f" (did you mean {guesses}?)" if guesses else ""
    if not known:
        raise RulesetError(
            f"unknown rule switch(es) {shown_names}{hint}; known: {sorted(_FIELD_NAMES)}"
        )
    raise RulesetError(
        f"unknown keyword argument(s) {shown_names}{hint}; {owner} takes "
        f"{', '.join(sorted(known))} and the rule switches {', '.join(sorted(_FIELD_NAMES))}"
    )


#: The choices of each switch a Literal types, by switch in field order, each in its
#: Literal's order (the kernels' codes follow that order: see damas_env.compiled_rules).
SWITCH_CHOICES: dict[str, tuple[str, ...]] = {
    name: get_args(hint)
    for name, hint in get_type_hints(Ruleset).items()
    if get_origin(hint) is Literal
}


def _problems(r: Ruleset) -> list[str]:
    """Returns what is wrong with a ruleset: wrong types, bad values, contradictions."""
    problems = _type_problems(r)
    if problems:
        return problems
    for check in _CHECKS:
        problems += check(r)
    return problems


def _choice_problems(r: Ruleset) -> list[str]:
    """Returns the switches whose value is not one of their choices."""
    return [
        f"{key} must be one of {list(choices)}, not {getattr(r, key)!r}"
        for key, choices in SWITCH_CHOICES.items()
        if getattr(r, key) not in choices
    ]


def _board_problems(r: Ruleset) -> list[str]:
    """Returns what is wrong with the board and the rows the men start on."""
    if r.board_size not in (8, 10, 12):
        return [f"board_size must be 8, 10 or 12, not {r.board_size}"]
    if r.empty_back_rows < 0:
        return [f"empty_back_rows must be 0 or more, not {r.empty_back_rows}"]
    most = (r.board_size - 2) // 2 - r.empty_back_rows
    if not 1 <= r.rows_per_side <= most:
        return [
            f"rows_per_side must be 1..{most} on a "
            f"{r.board_size}x{r.board_size} board with {r.empty_back_rows} empty back rows "
            f"(two empty rows in the middle), not {r.rows_per_side}"
        ]
    return []


def _count_problems(r: Ruleset) -> list[str]:
    """Returns the counts of the draw rules and limits that are out of range."""
    problems = []
    if r.repetition_count == 1 or r.repetition_count < 0:
        problems.append(f"repetition_count must be 0 (off) or at least 2, not {r.repetition_count}")
    for key in ("no_progress_plies", "ply_limit"):
        if getattr(r, key) < 0:
            problems.append(f"{key} must be 0 (off) or positive, not {getattr(r, key)}")
    for key, most in _LIMITS.items():
        if getattr(r, key) > most:
            problems.append(f"{key} must be at most {most}, not {shown(getattr(r, key))}")
    return problems


def _capture_problems(r: Ruleset) -> list[str]:
    """Returns the capture switches that contradict each other or are malformed."""
    problems = []
    if r.king_landing != "any" and not r.flying_kings:
        problems.append(f"king_landing={r.king_landing!r} only applies to flying kings")
    sideways = r.capture_directions != "diagonal"
    if r.promotion_in_capture == "pass_through" and not (r.men_capture_backward or sideways):
        problems.append(
            "promotion_in_capture='pass_through' needs men_capture_backward (or orthogonal "
            "captures): a man on the far row can only go on capturing backwards or sideways"
        )
    bad = [t for t in r.capture_tiebreaks if t not in CAPTURE_TIEBREAKS]
    if bad or len(set(r.capture_tiebreaks)) != len(r.capture_tiebreaks):
        problems.append(
            f"capture_tiebreaks must list each of {list(CAPTURE_TIEBREAKS)} at most once, "
            f"not {shown(list(r.capture_tiebreaks))}"
        )
    if r.king_capture_weight != "man" and r.capture_precedence != "most_pieces":
        problems.append("king_capture_weight only applies with capture_precedence='most_pieces'")
    return problems


def _ending_problems(r: Ruleset) -> list[str]:
    """Returns the contradictions among the endgame rules, the king move limit and the ply
    limit's result."""
    problems = []
    if r.fmjd_endgame and r.frisian_endgame:
        problems.append("fmjd_endgame and frisian_endgame are two different endgame rules")
    if r.king_move_limit < 0:
        problems.append(f"king_move_limit must be 0 (off) or positive, not {r.king_move_limit}")
    if r.ply_limit_result == "material" and r.ply_limit == 0:
        problems.append("ply_limit_result='material' needs a ply_limit")
    if r.ply_limit_result == "material" and r.giveaway:
        problems.append("material adjudication contradicts giveaway play (fewer pieces is better)")
    return problems


def _name_problems(r: Ruleset) -> list[str]:
    """Returns what is wrong with the ruleset's name and the colours' names."""
    problems = []
    if len(r.colour_names) != 2 or len(set(r.colour_names)) != 2:
        problems.append(f"colour_names must be two different names, not {shown(r.colour_names)}")
    for label in (r.name, *r.colour_names):  # shown on boards, in PDN tags and terminals
        if not 1 <= len(label) <= 64 or not label.isprintable():
            problems.append(f"names must be 1-64 printable characters, not {shown(label)}")
    return problems


#: The checks of a well-typed ruleset, in the order their problems are reported.
_CHECKS = (
    _choice_problems,
    _board_problems,
    _count_problems,
    _capture_problems,
    _ending_problems,
    _name_problems,
)


def _type_problems(r: Ruleset) -> list[str]:
    """Returns the fields whose value has the wrong type."""
    problems = []
    for f in fields(Ruleset):
        value = getattr(r, f.name)
        expected = {"int": int, "bool": bool, "str": str}.get(str(f.type))
        if f.name in ("colour_names", "capture_tiebreaks"):
            ok = isinstance(value, tuple) and all(isinstance(v, str) for v in value)
        elif expected is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif expected is not None:
            ok = isinstance(value, expected)
        else:  # a Literal of strings
            ok = isinstance(value, str)
        if not ok:
            problems.append(f"{f.name} must be {f.type}, not {shown(value)}")
    return problems


# --- Names ---------------------------------------------------------------------------------

#: The name a ruleset derived from a registered one takes, "russian (modified: ply_limit)".
_MODIFIED = re.compile(r"(.+) \(modified: [a-z0-9_, ]+\)")


def _honest_name(r: Ruleset) -> str:
    """Returns the name a ruleset may carry.

    A registered name (the name's base, for a "(modified: ...)" name) goes with that
    ruleset's switches only; a ruleset that differs is named after it with the switches
    that differ, in field order, so equal rulesets get equal names however they were made.
    """
    base = _registered(r.base_name)
    if base is None:
        return r.name
    changed = [
        f.name
        for f in fields(Ruleset)
        if f.name != "name" and getattr(r, f.name) != getattr(base, f.name)
    ]
    if not changed:
        return r.base_name
    name = f"{base.name} (modified: {', '.join(changed)})"
    return name if len(name) <= 64 else f"{base.name} (modified: {len(changed)} switches)"


def _registered(name: str) -> Ruleset | None:
    """Returns the named ruleset, alias or preset called `name` (any case), else None.

    Nothing is registered while this module builds its named rulesets (_NAMED is filled
    at once, after them).
    """
    if not _NAMED:
        return None
    key = name.lower() if name.isascii() else name  # "\u212a".lower() is "k"
    key = _ALIASES.get(key) or _FORMER_NAMES.get(key, key)
    return _NAMED.get(key) or _presets().get(key)


# --- Named rulesets -------------------------------------------------------------------------

_NAMED: dict[str, Ruleset] = {}  # filled below, once the named rulesets are made

INTERNATIONAL = Ruleset()

BRAZILIAN = replace(INTERNATIONAL, name="brazilian", board_size=8, rows_per_side=3)
"""International rules on 8x8 (FMJD Brazilian rules: same articles, smaller board)."""

CANADIAN = replace(INTERNATIONAL, name="canadian", board_size=12, rows_per_side=5)
"""International rules on 12x12 with 30 men each."""

ENGLISH = Ruleset(
    name="english",
    board_size=8,
    rows_per_side=3,
    first_player="black",  # EDA; the Spanish text: Black moves first
    men_capture_backward=False,  # EDA; the Spanish text
    flying_kings=False,  # EDA; the Spanish text
    capture_precedence="free",  # EDA; the Spanish text
    promotion_in_capture="ends_move",  # EDA; the Spanish text: crowning ends the move
    repetition_count=3,
    no_progress_plies=80,  # EDA/ACF 40-move rule: 40 moves each without capture or man move
    progress="capture_or_man_move",
    fmjd_endgame=False,
)

RUSSIAN = Ruleset(
    name="russian",
    board_size=8,
    rows_per_side=3,
    first_player="white",  # Russian rules: White starts
    men_capture_backward=True,
    flying_kings=True,
    capture_precedence="free",  # any capture sequence may be chosen
    promotion_in_capture="crown_and_continue",
    repetition_count=3,
    no_progress_plies=30,  # 15 moves each with only kings moved and no capture
    progress="capture_or_man_move",
    fmjd_endgame=False,
)

POOL = replace(
    RUSSIAN,
    name="pool",
    first_player="black",  # APCA: Black (dark) moves first
    promotion_in_capture="pass_through",  # APCA: a man passing the king row stays a man
    no_progress_plies=100,
)

# --- The rest of the family. Where a rulebook sets no draw rule we keep FMJD's
# threefold repetition and 25-move rule (no_progress_plies=50), and say so here.

FRISIAN = Ruleset(
    name="frisian",
    capture_directions="diagonal_and_orthogonal",  # Frisian rules art. 7: eight directions
    king_capture_weight="almost_two_men",  # art. 11: the shot of highest value
    capture_tiebreaks=("with_king",),  # art. 11: at equal value a king captures
    king_move_limit=3,  # art. 10: three non-capturing moves in a row with one king
    fmjd_endgame=False,
    frisian_endgame=True,  # art. 13
    no_progress_plies=0,  # the Frisian rules have no 25-move rule
)
"""Frisian draughts (Official Rules for Frisian Draughts, 2011): International's board, men and
flying kings, with orthogonal captures, the value rule, the king move limit and its endgame
draws. Kings move only along diagonals (art. 9)."""

FRYSK = replace(FRISIAN, name="frysk", rows_per_side=1)
"""Frysk!: Frisian rules with 5 men each on the back row (Lidraughts)."""

ITALIAN = Ruleset(
    name="italian",
    board_size=8,
    rows_per_side=3,
    board_layout="mirrored",  # Italian rules art. 2: the single corner on the right
    first_player="white",  # art. 4: White moves first
    men_capture_backward=False,  # art. 5
    flying_kings=False,  # art. 5: the king steps one square
    men_capture_kings=False,  # art. 5.4: a man may not take a king
    capture_precedence="most_pieces",  # art. 6.2
    capture_tiebreaks=("with_king", "most_kings", "earliest_king"),  # art. 6.3-6.5
    promotion_in_capture="ends_move",
    no_progress_plies=80,  # 40 moves each without a capture or man move (as pydraughts)
    fmjd_endgame=False,
)
"""Italian draughts (Federazione Italiana Dama rules)."""

TURKISH = Ruleset(
    name="turkish",
    board_size=8,
    rows_per_side=2,
    empty_back_rows=1,  # Turkish rules: 16 men on the second and third rows
    board_layout="all",  # all 64 squares
    first_player="white",
    men_capture_backward=False,  # men step and capture forward or sideways, never back
    flying_kings=True,  # kings move and capture any distance along rows and columns
    move_directions="orthogonal",
    capture_directions="orthogonal",
    capture_precedence="most_pieces",  # kings and men count the same
    promotion_in_capture="pass_through",  # "promoted to a king at the end of the move"
    turkish_strike=False,  # "pieces are removed immediately after being jumped"
    capture_may_reverse=False,  # "turning 180 degrees between two captures is not allowed"
    fmjd_endgame=False,
)
"""Turkish draughts (Dama), as the Turkish rules and Wikipedia's summary of them give it."""

BREAKTHROUGH = replace(INTERNATIONAL, name="breakthrough", first_king_wins=True)
"""Breakthrough draughts (Lidraughts): International rules; the first king wins."""

SPANISH = Ruleset(
    name="spanish",
    board_size=8,
    rows_per_side=3,
    board_layout="mirrored",  # Spanish rules: the single corner on the right
    first_player="white",
    men_capture_backward=False,
    flying_kings=True,
    capture_precedence="most_pieces",  # quantity,
    capture_tiebreaks=("most_kings",),  # then quality: the most kings
    promotion_in_capture="ends_move",
    fmjd_endgame=False,
)
"""Spanish draughts (Federación Española de Damas rules)."""

PORTUGUESE = replace(SPANISH, name="portuguese")
"""Portuguese draughts (Federação Portuguesa de Damas, clássicas): the Spanish rules. (The
Portuguese rule text behind the ``international_land_behind`` preset describes International
draughts.)"""

CZECH = Ruleset(
    name="czech",
    board_size=8,
    rows_per_side=3,
    first_player="white",
    men_capture_backward=False,
    flying_kings=True,
    capture_precedence="free",  # Czech rules: no majority rule,
    capture_tiebreaks=("with_king",),  # but a king that can capture must
    promotion_in_capture="ends_move",
    fmjd_endgame=False,
)
"""Czech draughts (Česká dáma, Czech draughts federation rules)."""

THAI = Ruleset(
    name="thai",
    board_size=8,
    rows_per_side=2,  # 8 men each on the two nearest rows
    first_player="white",
    men_capture_backward=False,
    flying_kings=True,
    king_landing="right_behind",  # a king stops right behind each piece it takes
    capture_precedence="free",  # "there are no priorities of capture"
    promotion_in_capture="ends_move",  # "a man in a capture reaching the back rank: the move ends"
    turkish_strike=False,  # "removal of the captured piece is immediate"
    fmjd_endgame=False,
)
"""Thai draughts (Mak-hot), as Mindsports and the Checkers Wiki give its rules."""

_BASE: dict[str, Ruleset] = {
    r.name: r
    for r in (
        INTERNATIONAL, BRAZILIAN, CANADIAN, ENGLISH, RUSSIAN, POOL,
        FRISIAN, FRYSK, ITALIAN, TURKISH, BREAKTHROUGH, SPANISH, PORTUGUESE, CZECH, THAI,
    )
}  # fmt: skip
_GIVEAWAY = {  # the giveaway forms of the six first variants (Lidraughts' Antidraughts is
    # international_giveaway); any other takes ``giveaway=True`` as a switch
    f"{r.name}_giveaway": replace(r, name=f"{r.name}_giveaway", giveaway=True)
    for r in (INTERNATIONAL, BRAZILIAN, CANADIAN, ENGLISH, RUSSIAN, POOL)
}
_ALIASES = {  # other names players and programs use (Lidraughts' PDN Variant tags among them)
    "american": "english",
    "checkers": "english",
    "frysk!": "frysk",
    "antidraughts": "international_giveaway",
    "american_giveaway": "english_giveaway",
    "checkers_giveaway": "english_giveaway",
}
_NAMED.update(_BASE | _GIVEAWAY)
#: The presets' names before they were named for what they are; still read (configs,
#: checkpoints and game files may carry them), no longer listed.
_FORMER_NAMES = {
    "seed000_international": "international_land_behind",
    "seed002_website_checkers": "website_checkers",
    "seed004_english": "english_adjudicated",
}


def ruleset_names() -> list[str]:
    """Returns the names :func:`get_ruleset` accepts: variants, aliases and presets."""
    return sorted(_NAMED) + sorted(_ALIASES) + sorted(_presets())


_PRESETS: dict[str, Ruleset] = {}
_PRESETS_READ = False


def _presets() -> dict[str, Ruleset]:
    """Returns the rules presets shipped in the package, by name, read once.

    Reading them all at once (the first time any name is looked up) means no name from
    data ever decides which file is opened. While they are read, the presets not yet read
    are not registered (a preset's own name is checked against the presets read before it).
    """
    global _PRESETS_READ
    if not _PRESETS_READ:
        _PRESETS_READ = True
        paths = sorted(RULES_DIR.glob("*.yaml")) if RULES_DIR.is_dir() else []
        try:
            for p in (p for p in paths if _PRESET_NAME.fullmatch(p.stem)):
                _PRESETS[p.stem] = load_ruleset_file(p)
        except BaseException:
            _PRESETS.clear()
            _PRESETS_READ = False
            raise
    return _PRESETS


_PRESET_NAME = re.compile(r"[a-z0-9_]+")


def get_ruleset(
    variant: str | os.PathLike | Ruleset = "international", **overrides: Any
) -> Ruleset:
    """Returns a named ruleset, a preset from ``damas_env/presets`` or the ruleset of a rules file.

    A string is only ever a name: text from a game file, a checkpoint or a config cannot make
    the library open a file. A rules file is read only when the caller passes a path object
    (``pathlib.Path``) or calls :func:`load_ruleset_file`.

    Args:
        variant: a name from :func:`ruleset_names`, a ``pathlib.Path`` to a rules YAML file,
            or a Ruleset.
        **overrides: switches to change, e.g. ``ply_limit=200``.

    Raises:
        RulesetError: the name is unknown (the message lists the known names and suggests
            the closest one), a switch is unknown or the result contradicts itself.
    """
    if isinstance(variant, Ruleset):
        base = variant
    elif isinstance(variant, os.PathLike):
        base = load_ruleset_file(variant)
    elif isinstance(variant, str):
        base = _named(variant)
    else:
        raise RulesetError(
            f"variant must be a ruleset name, a pathlib.Path or a Ruleset, "
            f"not {type(variant).__name__}"
        )
    return base.replace(**overrides) if overrides else base


def _named(name: str) -> Ruleset:
    """Returns the named ruleset, alias or preset called `name` (any case)."""
    found = _registered(name)
    if found is not None:
        return found
    key = name.lower() if name.isascii() else name  # "\u212a".lower() is "k"
    hint = did_you_mean(key, ruleset_names(), cutoff=0.75)
    if name.endswith((".yaml", ".yml")) or "/" in name or os.sep in name:
        hint = " (a rules file is read only from a pathlib.Path or load_ruleset_file)"
    raise RulesetError(f"unknown variant {shown(name)}{hint}; known: {', '.join(ruleset_names())}")


def load_ruleset_file(path: str | os.PathLike) -> Ruleset:
    """Returns the ruleset a YAML file describes.

    The file is a mapping of switches; an optional ``base`` names the ruleset the others
    change (default ``international``). Unknown keys are an error. Error messages name the
    file and the problem but never repeat its contents.

    Raises:
        RulesetError: the file is missing, too large, not YAML, or describes a bad ruleset.
    """
    path = Path(path)
    data = _read_mapping(path)
    base_name = data.pop("base", "international")
    if not isinstance(base_name, str) or (
        base_name.lower() not in _NAMED and base_name.lower() not in _ALIASES
    ):
        hint = did_you_mean(base_name, _NAMED, cutoff=0.75) if isinstance(base_name, str) else ""
        raise RulesetError(
            f"{path}: unknown base {shown(base_name)}{hint}; known: {sorted(_NAMED)}"
        )
    data = tuples_for_lists(data)
    data.setdefault("name", path.stem)
    try:
        return _named(base_name).replace(**data)
    except RulesetError as e:
        raise RulesetError(f"{path}: {e}") from None


def tuples_for_lists(switches: dict[str, Any]) -> dict[str, Any]:
    """Returns switches read from YAML or JSON with the lists of tuple switches as tuples;
    the Ruleset checks the switches themselves."""
    return plain_fields(Ruleset, switches)


def _read_mapping(path: Path, max_bytes: int = MAX_RULES_FILE_BYTES) -> dict[str, Any]:
    """Returns the mapping a small YAML file holds, with string keys.

    Raises:
        RulesetError: the file cannot be read, is larger than `max_bytes`, is not YAML, or is
            not a mapping; the message gives the line of a YAML error, not its text.
    """
    try:
        raw = read_regular_file(path, max_bytes + 1)
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        reason = e.strerror if isinstance(e, OSError) else "not a valid path"
        raise RulesetError(f"cannot read rules file {shown(str(path))}: {reason}") from None
    if len(raw) > max_bytes:
        raise RulesetError(f"rules file {path} is larger than {max_bytes} bytes")
    try:
        data = load_yaml(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RulesetError(f"rules file {path} is not UTF-8 text") from None
    except RecursionError:
        raise RulesetError(f"rules file {path} is nested too deeply") from None
    except (yaml.YAMLError, ValueError) as e:  # ValueError: an int of too many digits
        what = f": {e.problem}" if isinstance(e, DuplicateKeyError) else ""
        raise RulesetError(
            f"rules file {path} is not valid YAML{yaml_error_place(e)}{what}"
        ) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise RulesetError(f"rules file {path} must hold a mapping of rule switches")
    return dict(data)
