"""Differential tests for the rest of the draughts family against pydraughts 0.6.7: Frisian,
Frysk!, Italian, Turkish, Breakthrough and Antidraughts (our ``international_giveaway``).

The method and helpers are ``test_differential.py``'s, and so is its tally (``COMPARED``,
printed at the end of the run): moves compared as sets of (origin, destination, captured
set) in PDN numbers, from seeded random games and seeded random placements with kings.

Games are played through :class:`damas_env.game.Game`, not :class:`~damas_env.Position`:
Frisian's king move limit (a king may make at most three non-capturing moves in a row while
its side has men, Frisian rules art. 10) depends on the game's history, which ``Game`` and
pydraughts' board keep and a bare ``Position`` does not. A placement is a position without a
history on both sides (pydraughts starts its count there too), so placements compare
``Position.legal_moves()``; the Frisian placement games then play on from them, kings first,
to reach the limit.

Where the two differ by design, nothing is compared:

- Draw rules. pydraughts' move lists ignore its draws, and its draws are not ours in places:
  no repetition draw in Frisian, no draw at all in Breakthrough, only repetition in
  Antidraughts, one piece against one drawn after two moves each in Turkish. A game is
  compared until our ``Game`` ends: ended by a draw rule, it stops there; ended because the
  side to move has no legal move, pydraughts must list none either; Breakthrough's first king
  ends it, where pydraughts goes on listing moves.

Where pydraughts departs from the rulebook, its error is made good before the comparison and
counted in ``PYDRAUGHTS_ERRORS`` (each is pinned in ``test_known_pydraughts_errors``):

- ``turkish_king_through_pieces``: pydraughts lets a Turkish king's non-capturing move run along
  a row or column through other pieces (its ``get_directional_orthogonal_multiple_squares_
  adjacent_positions`` checks no square on the way). Turkish rules: a king moves any distance
  along an empty line. Those moves are dropped from pydraughts' list; the rest must match.
- ``frisian_float_values``: pydraughts adds up a Frisian capture's value in floating point in
  capture order (man 1, king 1.501), so two sequences of equal value that take the kings at
  different places can differ in the last bit (1 + 1.501 + 1 + 1 + 1.501 is
  6.001999999999999, 1 + 1.501 + 1.501 + 1 + 1 is 6.002) and it keeps only the larger.
  Frisian rules art. 11: the sequence of highest value is compulsory, and equal values are
  equal. The position counts as compared when pydraughts' list is exactly our moves whose
  routes reach its largest float sum.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable

import pytest
from test_differential import COMPARED, ordered, pdn_keys, random_placement

from damas_agents.players.peers import PeerMove, PydraughtsPeer
from damas_env import Move, Position
from damas_env.game import Game, Reason
from damas_env.rules import Ruleset, get_ruleset

pytest.importorskip("draughts")

#: Our names of the variants compared here.
FAMILY = ["frisian", "frysk", "italian", "turkish", "breakthrough", "international_giveaway"]

#: The variants whose capture precedence weighs kings (Frisian art. 11).
FRISIAN = ["frisian", "frysk"]


def our_rules(variant: str) -> Ruleset:
    """Returns the ruleset compared with pydraughts' `variant`: ours, except that Frisian's
    capture values take pydraughts' reading of art. 11 ("a king has more value than a man,
    but less than two men"): a king worth 1.501 men, so at equal value the kings, where our
    ``frisian`` weighs a king 1.99 men (Lidraughts, dctl). The two differ from three kings
    against five men on (``test_frisian_readings_differ_from_three_kings_on``)."""
    if variant in FRISIAN:
        return get_ruleset(
            variant,
            king_capture_weight="man_and_a_half",
            capture_tiebreaks=("most_kings", "with_king"),
        )
    return get_ruleset(variant)


#: Positions where a known pydraughts error showed, by "error variant" (see the docstring).
PYDRAUGHTS_ERRORS: Counter[str] = Counter()

NONE: frozenset[int] = frozenset()


def pydraughts_moves(pos: Position, theirs: set[PeerMove], ours: set[PeerMove]) -> set[PeerMove]:
    """Returns pydraughts' moves with its known errors made good (see the module docstring),
    tallying each error that showed."""
    variant = pos.rules.base_name
    if variant == "turkish":
        through = {m for m in theirs if not m[2] and _crosses_a_piece(pos, m)}
        if through:
            PYDRAUGHTS_ERRORS[f"turkish_king_through_pieces {variant}"] += 1
            theirs = theirs - through
    is_capture = any(captured for _, _, captured in ours)
    if variant in FRISIAN and is_capture and theirs != ours and theirs == _largest_float_sums(pos):
        PYDRAUGHTS_ERRORS[f"frisian_float_values {variant}"] += 1
        return ours
    return theirs


def _crosses_a_piece(pos: Position, move: PeerMove) -> bool:
    """Returns whether the straight line of a move passes over an occupied square."""
    geo = pos.engine.geometry
    a, b = move[0] - 1, move[1] - 1
    row, col = int(geo.row[a]), int(geo.col[a])
    d_row, d_col = _sign(int(geo.row[b]) - row), _sign(int(geo.col[b]) - col)
    row, col = row + d_row, col + d_col
    while (row, col) != (geo.row[b], geo.col[b]):
        square = geo.square_at(row, col)
        if square >= 0 and pos.board[square] != 0:
            return True
        row, col = row + d_row, col + d_col
    return False


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _largest_float_sums(pos: Position) -> set[PeerMove]:
    """Returns our moves with a route whose value, summed in floats in capture order as
    pydraughts does (man 1, king 1.501), is the largest."""
    routes = pos.capture_routes()

    def value(route: Move) -> float:
        total = 0.0
        for square in route.captures:
            total += 1.501 if abs(pos.board[square]) == 2 else 1.0
        return total

    best = max((value(r) for r in routes), default=0.0)
    return pdn_keys(r for r in routes if r.captures and value(r) == best)


def assert_agree(pos: Position, ours: set[PeerMove], peer: PydraughtsPeer) -> set[PeerMove]:
    """Asserts our moves equal pydraughts' (its known errors made good), tallies the position
    and returns the moves both engines allow."""
    theirs = peer.moves()
    expected = pydraughts_moves(pos, theirs, ours)
    assert ours == expected, (
        f"pydraughts {pos.rules.base_name} {pos.fen()}: ours only {ordered(ours - expected)}, "
        f"pydraughts only {ordered(expected - ours)}"
    )
    COMPARED[f"pydraughts {pos.rules.base_name}"] += 1
    return ours & theirs


Chooser = Callable[[Game, list[PeerMove]], PeerMove]
"""Picks the next move of a compared game from the moves both engines allow (in order)."""


def compare_game(game: Game, peer: PydraughtsPeer, plies: int, choose: Chooser) -> int:
    """Plays moves both engines allow, comparing the moves at every ply until our game ends or
    `plies` are played; returns the number of positions compared."""
    for ply in range(plies):
        outcome = game.outcome()
        if outcome is not None:
            if outcome.reason == Reason.NO_LEGAL_MOVE:
                assert_agree(game.position, set(), peer)
                return ply + 1
            return ply  # a draw rule, or Breakthrough's first king: pydraughts plays on
        both = assert_agree(game.position, pdn_keys(game.legal_moves()), peer)
        move = choose(game, ordered(both))
        game.push(Move(move[0] - 1, (move[1] - 1,), tuple(sq - 1 for sq in move[2])))
        peer.play(move)
    return plies


def uniform(rng: random.Random) -> Chooser:
    """Returns a chooser of uniformly random moves."""
    return lambda game, moves: rng.choice(moves)


def kings_first(rng: random.Random, held: Counter[str]) -> Chooser:
    """Returns a chooser that moves a king four times in five when it can, counting in `held`
    the positions where the king move limit held a king back."""

    def choose(game: Game, moves: list[PeerMove]) -> PeerMove:
        pieces_only = Position(game.rules, game.board, game.turn)  # no king runs
        held[game.rules.base_name] += pdn_keys(game.legal_moves()) != pdn_keys(
            pieces_only.legal_moves()
        )
        kings = [m for m in moves if abs(game.board[m[0] - 1]) == 2]
        return rng.choice(kings if kings and rng.random() < 0.8 else moves)

    return choose


def compare_games(variant: str, seeds: Iterable[int], plies: int) -> int:
    """Compares seeded random games from the start; returns the positions compared."""
    return sum(
        compare_game(
            Game(our_rules(variant)), PydraughtsPeer(variant), plies, uniform(random.Random(seed))
        )
        for seed in seeds
    )


def compare_placements(variant: str, rng: random.Random, count: int) -> None:
    """Compares the moves of `count` random placements (no game history on either side)."""
    for _ in range(count):
        pos = random_placement(our_rules(variant), rng)
        assert_agree(pos, pdn_keys(pos.legal_moves()), PydraughtsPeer(variant, pos.fen()))


def compare_placement_games(variant: str, rng: random.Random, count: int, plies: int) -> int:
    """Plays on from `count` random placements, kings first; returns how many positions had a
    king held back by the move limit."""
    held: Counter[str] = Counter()
    for _ in range(count):
        fen = random_placement(our_rules(variant), rng).fen()
        compare_game(
            Game(our_rules(variant), fen),
            PydraughtsPeer(variant, fen),
            plies,
            kings_first(rng, held),
        )
    return held[variant]


# --- Default run: about a minute on a busy two-core machine (pydraughts takes some 0.1 s to
# list the moves of a 10x10 position) ------------------------------------------------------

#: Placements compared per variant in the default run (more where pydraughts is quicker).
PLACEMENTS = {"italian": 150, "turkish": 60, "breakthrough": 60}


@pytest.mark.parametrize("variant", FAMILY)
def test_random_game_against_pydraughts(variant: str) -> None:
    assert compare_games(variant, range(1), 60) > 30


@pytest.mark.parametrize("variant", FAMILY)
def test_random_placements_against_pydraughts(variant: str) -> None:
    compare_placements(variant, random.Random(variant), PLACEMENTS.get(variant, 40))


def test_games_from_placements_against_pydraughts() -> None:
    """Frisian games from placements, kings first: the king move limit with a history (this
    seed reaches it twice)."""
    assert compare_placement_games("frisian", random.Random("frisian kings 5"), 10, 30) > 0


@pytest.mark.parametrize("variant", FRISIAN)
def test_king_move_limit_against_pydraughts(variant: str) -> None:
    """Each king shuttles three times; then each side must move its man (Frisian art. 10)."""
    game, peer = (
        Game(our_rules(variant), "W:WK47,45:BK4,6"),
        PydraughtsPeer(variant, "W:WK47,45:BK4,6"),
    )
    for text in ("47-42", "4-9", "42-47", "9-4", "47-42", "4-9", "45-40", "6-11"):
        if text in ("45-40", "6-11"):  # the king is held back: the man's move is the only one
            assert pdn_keys(game.legal_moves()) == pdn_keys([game.position.find_move(text)])
        assert_agree(game.position, pdn_keys(game.legal_moves()), peer)
        [move] = pdn_keys([game.push(text)])
        peer.play(move)
    assert (42, 47, NONE) in pdn_keys(game.legal_moves())  # a man moved: the count starts again
    assert_agree(game.position, pdn_keys(game.legal_moves()), peer)


@pytest.mark.parametrize(
    ("variant", "fen", "error"),
    [
        # pydraughts 0.6.7 also lists 57-1, 57-9, ..., 57-41: up the column through the man on 49.
        ("turkish", "W:W49,K57:B8", "turkish_king_through_pieces"),
        # pydraughts 0.6.7 leaves out 16x5 (16x36x40x12x1x5, the kings 37 and 4 taken second
        # and last: 6.001999999999999 in its floats, against 6.002 for 16x46x5x1x12x23).
        ("frisian", "B:WK4,7,18,26,K37:BK16", "frisian_float_values"),
    ],
)
def test_known_pydraughts_errors(variant: str, fen: str, error: str) -> None:
    """Pins each known pydraughts error: our moves as the rules give them, and pydraughts'
    moves equal to ours once the error is made good (whether or not it still shows)."""
    expected = {
        "turkish": {(49, 41, NONE), (49, 50, NONE)} | {(57, sq, NONE) for sq in range(58, 65)},
        "frisian": {
            (16, sq, frozenset({4, 7, 18, 26, 37})) for sq in (5, 19, 20, 23, 29, 34, 40, 45)
        },
    }[variant]
    pos = Position.from_fen(fen, our_rules(variant))
    assert pdn_keys(pos.legal_moves()) == expected
    assert pydraughts_moves(pos, PydraughtsPeer(variant, fen).moves(), expected) == expected


# --- Slow: many more of each ----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("variant", FAMILY)
def test_many_random_games_against_pydraughts(variant: str) -> None:
    assert compare_games(variant, range(1000, 1020), 200) > 500  # Frysk games are short


@pytest.mark.slow
@pytest.mark.parametrize("variant", FAMILY)
def test_many_random_placements_against_pydraughts(variant: str) -> None:
    compare_placements(variant, random.Random(f"slow-{variant}"), 1500)


@pytest.mark.slow
@pytest.mark.parametrize("variant", FRISIAN)
def test_many_games_from_placements_against_pydraughts(variant: str) -> None:
    assert compare_placement_games(variant, random.Random(f"slow-{variant}"), 400, 40) > 10
