"""Compiled alpha-beta search over the engine kernels: the thinking part of AlphaBetaAgent.

Iterative deepening over a negamax with a transposition table, move ordering, quiescence on
captures, and a piece-square or learned (:mod:`damas_agents.search.nnue`) evaluation, in
centi-men. Time limits become node budgets (:class:`NodeRate`). The root moves are the
position's legal moves (its king runs apply the Frisian king move limit); below the root the
search knows the pieces only. Arrays (:class:`Tables`), S squares, M rows per move list,
P = MAX_PLY::

    buffers  int16[P, M, MOVE_WIDTH]  one move list per ply; M_MARK holds ordering scores
    tt_keys  uint64[2**tt_bits]       Zobrist hash of the slot's position
    tt_vals  int32[2**tt_bits, 5]     score | depth | flag | best move row | generation
    killers  int32[P, 2]              quiet moves that cut off at that ply (from*256 + to)
    history  int32[2, S, S]           cut-off counts of quiet moves by side, from, to
    path     uint64[P]                hashes of the positions on the current line
    rev      int32[P]                 plies since the last capture or man move on the line
    stats    int64[S_LEN]             nodes, node budget, abort reason, generation
    counters int64[G_LEN]             zeros: the game counters of a position with no history
    net      int16[P + 3 + 5S + 2L, 2A]  the learned evaluation in integers, and the
                                      accumulators of each ply's position (nnue.pack_network;
                                      zero-sized: the table's; float32: the reference, in tests)
    netv     int64[...]               the rest of it, and the piece-square sum of each ply
    h        int32[L2]                scratch of its second layer

Every search deepens in one compiled loop (:func:`deepen`): NNUE self-play and the
:class:`Searcher`, which reads the clock between iterations under a time limit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from damas_agents.search.nnue import (
    NetWeights,
    empty_weights,
    pack_network,
    search_advance,
    search_refresh,
    search_score,
    search_weights,
)
from damas_env import Move, Position
from damas_env import kernels as K
from damas_env.compiled_rules import R_FIRST_KING, R_GIVEAWAY
from damas_env.engine import Engine
from damas_env.geometry import geometry
from damas_env.kernels import (
    M_CODES,
    M_CROWN,
    M_FROM,
    M_MARK,
    M_NCAP,
    M_TO,
    apply_move,
    generate_moves,
    hash_after,
    kernel,
    undo_move,
)
from damas_env.moves import move_from_row
from damas_env.rules import Ruleset

K.name_kernels(__name__, "the alpha-beta search")  # the first-compile note

__all__ = [
    "MATE",
    "MAX_DEPTH",
    "MIN_SECONDS",
    "NodeRate",
    "SearchResult",
    "Searcher",
    "piece_square_table",
    "with_network",
]

# --- Scores and limits ----------------------------------------------------------------------

MATE = 30_000  # a side with no move at ply p scores -(MATE - p) (giveaway: +(MATE - p))
INF = 32_000
MAX_PLY = 128  # plies of one line, quiescence included
MAX_DEPTH = 64  # nominal depth of iterative deepening
#: The shortest time a search (or an engine's answer) can be given: a tinier number, down to
#: 5e-324, only means "no time".
MIN_SECONDS = 0.001
QS_PLIES = 48  # capture plies searched past the nominal depth (MAX_DEPTH + QS_PLIES < MAX_PLY)
MATE_BOUND = MATE - MAX_PLY  # scores beyond this are wins or losses with a distance
MAX_NODES = 1 << 62  # a node budget that never runs out

# Time limits (shares of the time given to a move).
BUDGET_SHARE = 0.9  # of the time left, as the node budget of a call: the driver's margin
DEEPEN_BEFORE = 0.6  # no new iteration starts once this share of the time is spent
RESUME_LEFT = 0.2  # a call cut short by its budget runs again if this share is still left
RERUN_GROWTH = 1.25  # ... and if its budget is that many times the last: so reruns end
FIRST_NODES = 500  # the first iteration's least budget (under a node limit, that limit)

# Evaluation weights, in centi-men (material: kernels.piece_values).
ADVANCE_MAX = 24  # a man one step from crowning; grows with the square of the rows advanced
CENTRE_MAN = 2  # per column away from the side edges (at most 3)
CENTRE_KING = 3  # per row and column away from the edges (at most 3 each)
TEMPO = 3  # having the move

# Transposition table columns and flags.
T_SCORE, T_DEPTH, T_FLAG, T_MOVE, T_GEN = range(5)
T_LEN = 5
FLAG_EXACT, FLAG_LOWER, FLAG_UPPER = 1, 2, 3

# Search counters.
S_NODES, S_STOP, S_ABORT, S_GEN = range(4)
S_LEN = 4
ABORT_NONE, ABORT_BUDGET, ABORT_OVERFLOW = 0, 1, 2

# Move-ordering scores, written into the M_MARK column of a move list (int16).
O_TT = 30_000
O_CAPTURE = 20_000  # + 64 per piece taken + 16 per king taken
O_CROWN = 2_000
O_KILLER = (1_500, 1_400)
O_HISTORY = 1_000  # history scores run 0 .. O_HISTORY - 1
O_DONE = -32_768  # already searched
HISTORY_CAP = 1 << 16  # a history entry reaching it halves the side's table

FIRST_ROWS = 64  # rows of each ply's move list at first; grown (up to MAX_MOVES) on overflow


class Tables(NamedTuple):
    """The arrays one compiled search works on (layout in the module docstring)."""

    ray: np.ndarray
    rules: np.ndarray
    keys: np.ndarray
    side_key: np.uint64
    pst: np.ndarray
    buffers: np.ndarray
    ws: np.ndarray
    tt_keys: np.ndarray
    tt_vals: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    path: np.ndarray
    rev: np.ndarray
    stats: np.ndarray
    counters: np.ndarray
    net: np.ndarray
    netv: np.ndarray
    h: np.ndarray


# --- Evaluation -----------------------------------------------------------------------------


def piece_square_table(rules: Ruleset) -> np.ndarray:
    """Returns the int32 table [code + 2, square] of piece values from White's view.

    A white man is worth its material (:func:`damas_env.kernels.piece_values`) plus
    advancement (ADVANCE_MAX * a**2 / (N-2)**2 after a rows) plus CENTRE_MAN per column away
    from the side edges; a white king its material plus CENTRE_KING per row and column away
    from the edges. Black's entries are White's turned 180 degrees and negated, so the
    evaluation is colour-symmetric. Under giveaway rules only material counts, negated: fewer
    pieces are better.
    """
    geo = geometry(rules.board_size, rules.board_layout)
    n, squares = rules.board_size, rules.squares
    values = K.piece_values(rules.flying_kings)
    man, king = int(values[2 + 1]), int(values[2 + 2])
    pst = np.zeros((5, squares), dtype=np.int32)
    for s in range(squares):
        row, col = int(geo.row[s]), int(geo.col[s])
        across = min(col, n - 1 - col, 3)
        down = min(row, n - 1 - row, 3)
        advanced = n - 1 - row
        pst[2 + 1, s] = man + ADVANCE_MAX * advanced**2 // (n - 2) ** 2 + CENTRE_MAN * across
        pst[2 + 2, s] = king + CENTRE_KING * (across + down)
        if rules.giveaway:
            pst[2 + 1, s], pst[2 + 2, s] = -man, -king
    for code in (1, 2):  # Black = White turned 180 degrees: square s <-> S-1-s
        pst[2 - code, ::-1] = -pst[2 + code, :]
    return pst


@kernel(inline=True)
def evaluate(board, side, ply, t):
    """Returns the static score of a position for the side to move: the network's from the
    accumulators of `ply` when the tables hold one, else the piece-square table's."""
    if t.net.shape[1] > 0:
        return search_score(t.net, t.netv, t.h, ply, side)
    total = 0
    for s in range(board.shape[0]):
        total += t.pst[board[s] + 2, s]
    return (total if side == 0 else -total) + TEMPO


@kernel(inline=True)
def _advance(t, board, mv, i, ply):
    """Before move i of mv is applied at `ply`: the accumulators of ply + 1 (if a network)."""
    if t.net.shape[1] > 0:
        search_advance(board, mv, i, t.net, t.netv, np.int64(ply))


# --- Small kernels ----------------------------------------------------------------------------


@kernel(inline=True)
def _no_move_score(rules, ply):
    """Returns the score of a side with no legal move: lost, or won in giveaway (seed rules)."""
    return MATE - ply if rules[R_GIVEAWAY] == 1 else -(MATE - ply)


@kernel(inline=True)
def _decided(board, side, ply, t):
    """Returns (True, the score for the side to move) if the game is over at this node by a
    rule that needs no history, the first king wins (Breakthrough), else (False, 0)."""
    if t.rules[R_FIRST_KING] == 0:
        return False, np.int64(0)
    result, _ = K.outcome(board, side, np.bool_(True), t.counters, np.int64(1), t.rules)
    if result == K.ONGOING or result == K.DRAW:
        return result == K.DRAW, np.int64(0)
    won = (result == K.WHITE_WINS) == (side == K.WHITE)
    return True, np.int64(MATE - ply if won else -(MATE - ply))


@kernel(inline=True)
def _to_tt(score, ply):
    """Returns a score as stored in the table: win/loss distances counted from this node."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@kernel(inline=True)
def _from_tt(score, ply):
    """Returns a stored score as seen from a node `ply` plies below the root."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@kernel(inline=True)
def _slot(t, h):
    return h & np.uint64(t.tt_keys.shape[0] - 1)


@kernel(inline=True)
def _probe(t, h, depth, ply, alpha, beta):
    """Returns (best move row or -1, True and a score if the entry settles the node)."""
    slot = _slot(t, h)
    v = t.tt_vals
    if t.tt_keys[slot] != h or v[slot, T_GEN] != t.stats[S_GEN]:
        return -1, False, 0
    score = _from_tt(np.int64(v[slot, T_SCORE]), ply)
    if v[slot, T_DEPTH] >= depth:
        flag = v[slot, T_FLAG]
        if flag == FLAG_EXACT:
            return v[slot, T_MOVE], True, score
        if (flag == FLAG_LOWER and score >= beta) or (flag == FLAG_UPPER and score <= alpha):
            return v[slot, T_MOVE], True, score
    return v[slot, T_MOVE], False, 0


@kernel(inline=True)
def _store(t, h, depth, ply, score, flag, move):
    """Writes a node's result, unless the slot holds a deeper result of this position."""
    slot = _slot(t, h)
    v = t.tt_vals
    gen = t.stats[S_GEN]
    if t.tt_keys[slot] == h and v[slot, T_GEN] == gen and v[slot, T_DEPTH] > depth:
        return
    t.tt_keys[slot] = h
    v[slot, T_SCORE] = _to_tt(score, ply)
    v[slot, T_DEPTH] = depth
    v[slot, T_FLAG] = flag
    v[slot, T_MOVE] = move
    v[slot, T_GEN] = gen


@kernel(inline=True)
def _is_repetition(t, ply, h):
    """Returns True if the position at `ply` occurred earlier on the line (same side to move)."""
    k = ply - 2
    while k >= 0 and ply - k <= t.rev[ply]:
        if t.path[k] == h:
            return True
        k -= 2
    return False


@kernel(inline=True)
def _push(t, board, mv, i, ply, h):
    """Records the line's next position (hash h) before move i of mv is applied."""
    piece = board[mv[i, M_FROM]]
    progress = mv[i, M_NCAP] > 0 or piece == 1 or piece == -1  # such moves cannot be undone
    t.path[ply] = h
    t.rev[ply] = 0 if progress else t.rev[ply - 1] + 1


@kernel(inline=True)
def _quiet_key(mv, i):
    return np.int32(mv[i, M_FROM]) * 256 + mv[i, M_TO]


@kernel(inline=True)
def _order(mv, n, tt_move, side, ply, t):
    """Writes each move's ordering score into its M_MARK column."""
    for i in range(n):
        ncap = mv[i, M_NCAP]
        if i == tt_move:
            score = O_TT
        elif ncap > 0:
            score = O_CAPTURE + 64 * ncap
            for k in range(ncap):
                if mv[i, M_CODES + k] == 2 or mv[i, M_CODES + k] == -2:
                    score += 16
        elif mv[i, M_CROWN] == 1:
            score = O_CROWN
        else:
            key = _quiet_key(mv, i)
            if key == t.killers[ply, 0]:
                score = O_KILLER[0]
            elif key == t.killers[ply, 1]:
                score = O_KILLER[1]
            else:
                hist = t.history[side, mv[i, M_FROM], mv[i, M_TO]]
                score = hist * O_HISTORY // (HISTORY_CAP + 1)
        mv[i, M_MARK] = score


@kernel(inline=True)
def _pick(mv, n):
    """Returns the unsearched move with the best ordering score, and marks it searched."""
    best, pick = -32_768, np.int64(0)
    for i in range(n):
        if mv[i, M_MARK] > best:
            best, pick = mv[i, M_MARK], i
    mv[pick, M_MARK] = O_DONE
    return pick


@kernel(inline=True)
def _reward(t, mv, i, side, ply, depth):
    """Remembers a quiet move that cut off: as a killer at this ply and in the history."""
    if mv[i, M_NCAP] > 0:
        return
    key = _quiet_key(mv, i)
    if t.killers[ply, 0] != key:
        t.killers[ply, 1] = t.killers[ply, 0]
        t.killers[ply, 0] = key
    h = t.history
    h[side, mv[i, M_FROM], mv[i, M_TO]] += depth * depth
    if h[side, mv[i, M_FROM], mv[i, M_TO]] >= HISTORY_CAP:  # aging: halve the whole table
        for a in range(h.shape[1]):
            for b in range(h.shape[2]):
                h[side, a, b] //= 2


# --- The search -------------------------------------------------------------------------------


@kernel()
def _negamax(board, side, h, depth, ply, alpha, beta, t):
    """Returns the score of the position for `side`, searched `depth` plies (alpha-beta).

    At depth <= 0 only captures are searched (quiescence). Sets stats[S_ABORT] and returns 0
    when the node budget is spent or a move list overflows.
    """
    stats = t.stats
    if stats[S_NODES] >= stats[S_STOP]:
        stats[S_ABORT] = ABORT_BUDGET
        return 0
    stats[S_NODES] += 1
    over, score = _decided(board, side, ply, t)
    if over:
        return score
    if t.rev[ply] >= 4 and _is_repetition(t, ply, h):
        return 0  # policy: a cycle gains nothing, whatever the game's repetition rule
    tt_move = -1
    if depth > 0:
        tt_move, settled, score = _probe(t, h, depth, ply, alpha, beta)
        if settled:
            return score
    mv = t.buffers[ply]
    n = generate_moves(board, side, t.ray, t.rules, mv, np.bool_(True), t.ws)
    if n > mv.shape[0]:
        stats[S_ABORT] = ABORT_OVERFLOW
        return 0
    if n == 0:
        return _no_move_score(t.rules, ply)
    quiet = mv[0, M_NCAP] == 0  # captures are compulsory: all moves capture, or none
    if (depth <= 0 and (quiet or depth <= -QS_PLIES)) or ply >= MAX_PLY - 1:
        return evaluate(board, side, ply, t)
    _order(mv, n, tt_move, side, ply, t)
    best, best_i, alpha0 = -INF, -1, alpha
    for _ in range(n):
        i = _pick(mv, n)
        child = hash_after(h, board, mv, i, t.keys, t.side_key)
        _push(t, board, mv, i, ply + 1, child)
        _advance(t, board, mv, i, ply)
        apply_move(board, mv, i)
        score = -_negamax(board, 1 - side, child, depth - 1, ply + 1, -beta, -alpha, t)
        undo_move(board, mv, i)
        if stats[S_ABORT] != ABORT_NONE:
            return 0
        if score > best:
            best, best_i = score, i
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    if depth > 0:
                        _reward(t, mv, i, side, ply, depth)
                    break
    if depth > 0:
        flag = FLAG_LOWER if best >= beta else (FLAG_EXACT if best > alpha0 else FLAG_UPPER)
        _store(t, h, depth, ply, best, flag, best_i)
    return best


@kernel()
def search_root(board, side, h, depth, root, order, scores, t):
    """Searches the root moves in `order` to `depth`; returns (best score, moves completed).

    ``scores[i]`` receives move i's score: exact for the first move and for any move scoring
    at least the best so far (each later move is searched with alpha = best - 1, so equal
    scores are exact and ties can be broken fairly); a smaller upper bound otherwise.
    Moves not searched before an abort keep their score.
    """
    t.path[0] = h
    t.rev[0] = 0
    if t.net.shape[1] > 0:
        search_refresh(board, t.net, t.netv, np.int64(0))
    # np.int64, not the literal 1: a second specialisation of the recursive _negamax (for
    # Literal[int](1)) crashes when numba loads it from its cache.
    ply = np.int64(1)
    best, best_i, done = -INF, -1, 0
    for k in range(order.shape[0]):
        i = order[k]
        child = hash_after(h, board, root, i, t.keys, t.side_key)
        _push(t, board, root, i, ply, child)
        _advance(t, board, root, i, 0)
        apply_move(board, root, i)
        alpha = -INF if k == 0 else best - 1
        score = -_negamax(board, 1 - side, child, depth - 1, ply, -INF, -alpha, t)
        undo_move(board, root, i)
        if t.stats[S_ABORT] != ABORT_NONE:
            break
        scores[i] = score
        done += 1
        if score > best:
            best, best_i = score, i
    if done == order.shape[0]:
        _store(t, h, depth, 0, best, FLAG_EXACT, best_i)
    return best, done


@kernel()
def _sort_best_first(order, scores):
    """Sorts `order` by descending scores[order]; stable (insertion sort: root lists are short),
    so moves scoring alike keep their order."""
    for a in range(1, order.shape[0]):
        item = order[a]
        b = a - 1
        while b >= 0 and scores[order[b]] < scores[item]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = item


@kernel()
def deepen(board, side, h, first, last, root, order, scores, nodes, t):
    """Iterative deepening, the one loop of every search: depths `first` to `last` over the
    root moves in `order`, within `nodes` nodes in all.

    Each iteration resets the scores of the moves in `order`, searches them in that order
    (:func:`search_root`) and, when complete, sorts `order` best first (stable, so the moves
    scoring the best lead, in the order they were searched). It stops after a forced result
    (a mate score), or when an iteration is cut short: stats[S_ABORT] says why (the budget,
    or a full move list), `order` stays as that iteration searched it and `scores` holds the
    moves it completed. stats[S_NODES] counts the last iteration's nodes.

    Returns (the last complete depth, first - 1 if none; its score; how many moves lead
    `order` with that score; the moves the iteration cut short completed; the nodes visited).
    """
    stats = t.stats
    spent, reached, score, ties, completed = 0, first - 1, -INF, 0, 0
    for depth in range(first, last + 1):
        stats[S_ABORT] = ABORT_NONE
        left = nodes - spent
        if left <= 0:
            stats[S_ABORT] = ABORT_BUDGET
            break
        for k in range(order.shape[0]):
            scores[order[k]] = -INF - 1
        stats[S_NODES] = 0
        stats[S_STOP] = left
        best, done = search_root(board, side, h, depth, root, order, scores, t)
        spent += stats[S_NODES]
        if stats[S_ABORT] != ABORT_NONE:
            completed = done
            break
        _sort_best_first(order, scores)
        reached, score, ties = depth, best, 1
        while ties < order.shape[0] and scores[order[ties]] == best:
            ties += 1
        if abs(best) > MATE_BOUND:
            break
    return reached, score, ties, completed, spent


@kernel()
def new_search(t):
    """Makes table entries of earlier searches stale and forgets killers and history."""
    t.stats[S_GEN] = (t.stats[S_GEN] + 1) % (1 << 30)
    if t.stats[S_GEN] == 0:  # generation numbers wrapped: really clear the table
        t.tt_vals[:] = 0
        t.stats[S_GEN] = 1
    t.killers[:] = -1
    t.history[:] = 0


@kernel()
def table_line(board, side, h, t, out):
    """Follows the table's best moves from a position, copying them into out; returns how many.

    Stops at a missing entry, a repeated position, or out's length. Plays on `board`.
    """
    count = 0
    t.path[0] = h
    while count < out.shape[0] and count + 1 < MAX_PLY:
        slot = _slot(t, h)
        v = t.tt_vals
        if t.tt_keys[slot] != h or v[slot, T_GEN] != t.stats[S_GEN] or v[slot, T_MOVE] < 0:
            break
        mv = t.buffers[count + 1]
        n = generate_moves(board, side, t.ray, t.rules, mv, np.bool_(True), t.ws)
        i = np.int64(v[slot, T_MOVE])
        if n > mv.shape[0] or i >= n:
            break
        h = hash_after(h, board, mv, i, t.keys, t.side_key)
        for k in range(count + 1):
            if t.path[k] == h:
                return count
        apply_move(board, mv, i)
        for c in range(mv.shape[1]):  # a loop: slice copies would need numba's runtime
            out[count, c] = mv[i, c]
        count += 1
        t.path[count] = h
        side = 1 - side
    return count


@kernel()
def static_score(board, side, t):
    """Returns the evaluation of a position for the side to move (no search); a network's is
    computed from scratch."""
    if t.net.shape[1] > 0:
        search_refresh(board, t.net, t.netv, np.int64(0))
    return evaluate(board, side, 0, t)


# --- Python driver ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """What one search found.

    Attributes:
        move: the move chosen (ties at the best score broken by the caller's rng): the
            deepest completed iteration's, or a better one that the next iteration had found
            before a limit cut it short.
        score: its score in centi-men for the side to move; beyond ``MATE - 128`` a forced
            win (``MATE - plies``), below ``-(MATE - 128)`` a forced loss.
        depth: the nominal depth of the deepest completed iteration (0: none completed).
        nodes: positions visited, quiescence included.
        seconds: wall-clock time of the search.
        pv: the principal variation, starting with ``move`` (from the table; may be short).
    """

    move: Move
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...]

    @property
    def mate_in(self) -> int | None:
        """Returns the plies to a forced end of game (positive: a win, negative: a loss)."""
        if abs(self.score) <= MATE_BOUND:
            return None
        return MATE - self.score if self.score > 0 else -(MATE + self.score)


@dataclass
class _Iteration:
    """An iteration's result: its depth, best score and the root moves scoring it; complete,
    or cut short after finding a move better than the previous iteration's best."""

    depth: int
    score: int
    ties: list[int]
    complete: bool = True


class NodeRate:
    """One searcher's estimate of its speed in nodes per second: it turns time into node budgets.

    Every compiled call corrects it with the nodes it visited and the time it took: a moving
    average of the logarithm, each call weighing ``WEIGHT`` (less for a call of fewer than
    ``FULL_WEIGHT_NODES`` nodes, which times the call more than the search). So one slow call
    (the process descheduled, a page fault storm) moves it by a bounded factor, and the calls
    after it bring it back. It stays within ``[FLOOR, CEILING]``.

    Attributes:
        value: the estimate, in nodes per second.
    """

    START = 200_000.0  # a slow machine's speed: a fresh searcher's first budgets rather run short
    FLOOR = 10_000.0
    CEILING = 50_000_000.0
    WEIGHT = 0.3
    FULL_WEIGHT_NODES = 2_000

    def __init__(self, value: float = START) -> None:
        if math.isnan(value):
            raise ValueError("a speed is a number of nodes per second, not nan")
        self.value = min(max(value, self.FLOOR), self.CEILING)

    def update(self, nodes: int, seconds: float) -> None:
        """Corrects the estimate with a call that visited `nodes` nodes in `seconds`."""
        if nodes <= 0 or not 0 < seconds < math.inf:
            return
        measured = min(max(nodes / seconds, self.FLOOR), self.CEILING)
        weight = self.WEIGHT * min(1.0, nodes / self.FULL_WEIGHT_NODES)
        self.value = math.exp((1 - weight) * math.log(self.value) + weight * math.log(measured))


@dataclass
class _Limits:
    """The limits of one search and what it has spent: nodes, and seconds of compiled calls."""

    nodes: int | None
    seconds: float | None
    start: float
    used: int = 1
    searched: float = 0.0

    def observed_rate(self) -> float:
        """Returns this search's own speed so far (0 before its first call): a lower bound of
        the real speed, since a delay can only slow a call down."""
        return self.used / self.searched if self.searched > 0 else 0.0


def _new_tables(engine: Engine, rules: Ruleset, tt_bits: int, net: NetWeights) -> Tables:
    """Returns fresh search tables for a ruleset, evaluating with `net` in integers."""
    squares = rules.squares
    tables = Tables(
        ray=engine.ray,
        rules=engine.rule_array,
        keys=engine.zobrist,
        side_key=engine.side_key,
        pst=piece_square_table(rules),
        buffers=np.zeros((MAX_PLY, FIRST_ROWS, K.MOVE_WIDTH), dtype=np.int16),
        ws=K.new_workspace(rules.board_size),
        tt_keys=np.zeros(1 << tt_bits, dtype=np.uint64),
        tt_vals=np.zeros((1 << tt_bits, T_LEN), dtype=np.int32),
        killers=np.full((MAX_PLY, 2), -1, dtype=np.int32),
        history=np.zeros((2, squares, squares), dtype=np.int32),
        path=np.zeros(MAX_PLY, dtype=np.uint64),
        rev=np.zeros(MAX_PLY, dtype=np.int32),
        stats=np.zeros(S_LEN, dtype=np.int64),
        counters=np.zeros(K.G_LEN, dtype=np.int64),
        net=np.zeros((0, 0), dtype=np.int16),
        netv=np.zeros(0, dtype=np.int64),
        h=np.zeros(0, dtype=np.int32),
    )
    return with_network(tables, net)


def with_network(t: Tables, net: NetWeights, integer: bool = True) -> Tables:
    """Returns the tables `t` evaluating with the network `net` (zero-sized: the
    piece-square table), quantised (:func:`~damas_agents.search.nnue.search_weights`), or
    with `integer` False in float32: the reference the integer search is tested against.

    Raises:
        ValueError: the weights are too large to compute in integers.
    """
    w = search_weights(net, integer)
    if w.is_empty:
        matrix, vector = w.w1.reshape(0, 0), w.vals[:0]
    else:
        matrix, vector = pack_network(w, MAX_PLY)
    sums = np.int32 if integer else np.float32
    return t._replace(net=matrix, netv=vector, h=np.zeros(w.w2.shape[1], dtype=sums))


def _cut_short(depth: int, searched: np.ndarray, scores: np.ndarray) -> _Iteration | None:
    """Returns what an iteration cut short found: its best among the root moves it completed
    (their scores are exact where at least the best so far) if that beats the first move, the
    previous iteration's best; in the first iteration, its best. Else None."""
    if searched.size == 0:
        return None
    values = scores[searched]
    best = int(values.max())
    if depth > 1 and best <= int(values[0]):
        return None
    return _Iteration(depth, best, [int(i) for i in searched if scores[i] == best], False)


class Searcher:
    """The search tables of one ruleset, and iterative deepening over the compiled search.

    Not thread-safe: one Searcher per thread.

    Args:
        rules: the rules searched.
        tt_bits: the transposition table holds 2**tt_bits entries (28 bytes each).
        weights: a learned evaluation instead of the piece-square table.
        clock: the time source of time limits, in seconds (a fake one in tests).

    Attributes:
        rate: this searcher's speed estimate (:class:`NodeRate`): its own, so another
            searcher's slow searches do not shorten its budgets.
    """

    _warm = False  # the compiled code is loaded (done once per process)

    def __init__(
        self,
        rules: Ruleset,
        tt_bits: int = 20,
        weights: NetWeights | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not 4 <= tt_bits <= 30:
            raise ValueError(f"tt_bits must be 4..30, not {tt_bits}")
        net = empty_weights() if weights is None else weights
        if not net.is_empty and net.squares != rules.squares:
            raise ValueError(
                f"the evaluation network is for {net.squares} squares, the rules have "
                f"{rules.squares}"
            )
        engine = Engine.for_rules(rules)
        self.rules, self._engine, self.clock = rules, engine, clock
        self.tables = _new_tables(engine, rules, tt_bits, net)
        self.rate = NodeRate()
        if not Searcher._warm:
            # Loads the compiled code now, not in the first timed move: depth 2, so that the
            # principal variation's kernels load too (numba loads each on its first call).
            self.search(Position.start(rules), depth=2)
            Searcher._warm = True
            self.rate = NodeRate()  # loading is not searching

    def evaluate(self, position: Position) -> int:
        """Returns the static evaluation of a position for the side to move."""
        return int(static_score(position.board, int(position.turn), self.tables))

    def search(
        self,
        position: Position,
        depth: int | None = None,
        nodes: int | None = None,
        seconds: float | None = None,
        rng: np.random.Generator | None = None,
    ) -> SearchResult:
        """Returns the best move of a position within the limits (at least one is needed).

        The root searches the position's legal moves, in the engine's order (see the module
        docstring).

        Raises:
            ValueError: no limit given, or the position has no legal move.
        """
        if depth is None and nodes is None and seconds is None:
            raise ValueError("search needs a limit: depth, nodes or seconds")
        limits = _Limits(nodes, seconds, self.clock())
        board, side = position.board.copy(), int(position.turn)
        root, n = self._root_moves(position)
        if n == 0:
            raise ValueError(f"no legal move in {position!r}: the game is over")
        self._new_search()
        h = np.uint64(self._engine.hash(board, side))
        max_depth = min(depth or MAX_DEPTH, MAX_DEPTH)
        if n == 1 and depth is None:  # policy: a forced move is not worth the clock
            max_depth = 1
        done, order, depth = None, np.arange(n, dtype=np.int64), 1
        while depth <= max_depth and (done is None or self._may_deepen(limits)):
            # Under a time limit one iteration per compiled call, the clock read between them.
            last = depth if limits.seconds is not None else max_depth
            found, over = self._deepen(board, side, h, depth, last, root, order, limits)
            done = found or done
            if over:
                break  # cut short, or a forced result that deeper search cannot change
            depth = last + 1
        seconds_spent = self.clock() - limits.start
        return self._result(position, root, done, order, limits.used, seconds_spent, rng)

    # --- Iterations ---------------------------------------------------------------------------

    def _deepen(
        self,
        board: np.ndarray,
        side: int,
        h: np.uint64,
        first: int,
        last: int,
        root: np.ndarray,
        order: np.ndarray,
        limits: _Limits,
    ) -> tuple[_Iteration | None, bool]:
        """Runs iterations `first` to `last` (:func:`deepen`); returns (the deepest complete
        one, or what an iteration cut short found, else None; whether the search is over).

        A move list overflow grows the lists and calls again; so does a call cut short by a
        time budget while time is left (the speed was underestimated) if the time left buys
        RERUN_GROWTH times its budget: the table keeps the work done, so the next call soon
        gets back to where this one stopped.
        """
        stats, scores = self.tables.stats, np.full(root.shape[0], -INF - 1, dtype=np.int64)
        done: _Iteration | None = None
        last_budget, completed = 0, 0
        while True:
            budget = self._budget(limits, first)
            if budget <= 0 or budget < RERUN_GROWTH * last_budget:
                break
            stats[S_NODES] = 0  # a call's count starts at zero (a clock may read it: tests)
            begin = self.clock()
            reached, score, ties, completed, nodes = deepen(
                board, side, h, first, last, root, order, scores, budget, self.tables
            )
            self._count(limits, int(nodes), self.clock() - begin)
            last_budget = 0
            if reached >= first:
                done = _Iteration(int(reached), int(score), [int(i) for i in order[:ties]])
                first = int(reached) + 1
            if stats[S_ABORT] == ABORT_NONE:
                return done, abs(int(score)) > MATE_BOUND or reached < last
            if stats[S_ABORT] == ABORT_OVERFLOW and self._grow_buffers():
                continue
            if stats[S_ABORT] != ABORT_BUDGET or not self._time_is_left(limits):
                break
            last_budget = budget
        return _cut_short(first, order[: int(completed)], scores) or done, True

    def _count(self, limits: _Limits, nodes: int, seconds: float) -> None:
        """Adds a compiled call's nodes and time to the search, and corrects the speed."""
        limits.used += nodes
        limits.searched += seconds
        self.rate.update(nodes, seconds)

    def _budget(self, limits: _Limits, depth: int) -> int:
        """Returns the node budget of the next call at `depth`: the nodes left, and for a time
        limit the nodes that fit in BUDGET_SHARE of the time left, at the speed estimated or
        this search's own, whichever is higher; at depth 1 at least FIRST_NODES (a move chosen
        without a search is worse than a late one)."""
        budget = MAX_NODES if limits.nodes is None else limits.nodes - limits.used
        if limits.seconds is not None:
            left = limits.seconds - (self.clock() - limits.start)
            rate = max(self.rate.value, limits.observed_rate())
            in_time = int(min(max(left * rate * BUDGET_SHARE, 0.0), MAX_NODES))
            budget = min(budget, max(in_time, FIRST_NODES if depth == 1 else 0))
        return budget

    def _elapsed_share(self, limits: _Limits) -> float:
        """Returns the share of the time limit spent so far (0 without one)."""
        if limits.seconds is None:
            return 0.0
        return (self.clock() - limits.start) / limits.seconds

    def _may_deepen(self, limits: _Limits) -> bool:
        """Returns True if a new iteration may start: less than DEEPEN_BEFORE of the time is
        spent (a cut-short iteration's better root move is used, so starting one is worth it)."""
        return self._elapsed_share(limits) < DEEPEN_BEFORE

    def _time_is_left(self, limits: _Limits) -> bool:
        """Returns True if a call cut short by a time budget should run again: nodes are left
        and RESUME_LEFT of the time (the budget assumed a slower speed than the call had)."""
        if limits.seconds is None or (limits.nodes is not None and limits.used >= limits.nodes):
            return False
        return self._elapsed_share(limits) <= 1 - RESUME_LEFT

    def _new_search(self) -> None:
        """Makes table entries of earlier searches stale and forgets killers and history."""
        new_search(self.tables)

    def _grow_buffers(self) -> bool:
        """Enlarges every ply's move list (after an overflow); False if already at its largest."""
        try:
            bigger = K.grown_move_buffer(self.tables.buffers, 0, K.MAX_MOVES)
        except OverflowError:
            return False
        self.tables = self.tables._replace(buffers=bigger)
        return True

    def _root_moves(self, position: Position) -> tuple[np.ndarray, int]:
        """Returns a copy of the position's legal moves (the engine's list) and their count."""
        n = self._engine.generate(position)
        return self._engine.moves[:n].copy(), n

    # --- Result -------------------------------------------------------------------------------

    def _result(
        self,
        position: Position,
        root: np.ndarray,
        done: _Iteration | None,
        order: np.ndarray,
        nodes: int,
        seconds: float,
        rng: np.random.Generator | None,
    ) -> SearchResult:
        """Returns the SearchResult: a tie among the best moves drawn with rng."""
        if done is None:  # nothing of depth 1 finished: the first move in order
            done = _Iteration(0, 0, [int(order[0])])
        ties = done.ties
        pick = ties[int(rng.integers(len(ties)))] if rng is not None and len(ties) > 1 else ties[0]
        move = move_from_row(root[pick])
        pv = (move, *self._line_after(position, root, pick, done.depth - 1))
        depth = done.depth if done.complete else done.depth - 1
        return SearchResult(move, done.score, depth, nodes, seconds, pv)

    def _line_after(self, position: Position, root: np.ndarray, i: int, plies: int) -> list[Move]:
        """Returns the table's best line after root move i, at most `plies` long."""
        if plies <= 0:
            return []
        board, side, t = position.board.copy(), int(position.turn), self.tables
        h = np.uint64(self._engine.hash(board, side))
        # numba hands a uint64 back as a Python int, which would type as int64 below 2**63
        h = np.uint64(hash_after(h, board, root, np.int64(i), t.keys, t.side_key))
        apply_move(board, root, i)
        out = np.zeros((plies, K.MOVE_WIDTH), dtype=np.int16)
        count = int(table_line(board, 1 - side, h, t, out))
        return [move_from_row(out[k]) for k in range(count)]
