"""Compiled alpha-beta search over the engine kernels: the thinking part of AlphaBetaAgent.

Iterative deepening over a principal-variation search (aspiration window, late-move
reductions, ProbCut, transposition table, quiescence on captures) with a piece-square or
learned (:mod:`damas_agents.search.nnue`) evaluation, in centi-men, pruning as its search
version says (:data:`SEARCH_VERSIONS`, each frozen once shipped). Time limits become node
budgets (:class:`NodeRate`). Below the root the search knows the pieces only. Arrays
(:class:`Tables`), P = MAX_PLY::

    buffers  int16[P, M, MOVE_WIDTH]  one move list per ply; M_MARK holds ordering scores
    tt       int64[2**tt_bits, 2]     a slot: its position's hash, its entry packed (T_*)
    killers  int32[P, 2]; history int32[2, S, S]  quiet cut-off moves by ply; side, from, to
    path     uint64[P]; rev int32[P]  the line's hashes; plies since a capture or man move
    bits     uint64[P+1, 5]; material int64[P+1]  each ply's bit sets, piece-square sum
    frames   int64[P+2, F_LEN]        the search's stack: a frame per node of the line
    stats    int64[S_LEN]             counters and flags (S_*; S_HALT: set by Searcher.halt)
    plan     int64[P_LEN]             the search version's settings (search_plan)
    counters int64[G_LEN]             zeros: the game counters of a position with no history
    net, netv, h                      the network, each ply's accumulators (pack_network)
    line     int64[P+1, 2]            each ply's move (piece, row): accumulators catch up
                                      from stats[S_FRESH] only for positions evaluated
    evals    uint64[2**EVAL_BITS]     the network's scores by position hash (EVAL_*)

Every search deepens in one compiled loop (:func:`deepen`) without Python's global lock, so
another thread can end it (:class:`Halt`); the :class:`Searcher` reads the clock in between.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from damas_agents.search.nnue import (
    NetWeights,
    empty_weights,
    pack_network,
    search_advance,
    search_advance_piece,
    search_refresh,
    search_score,
    search_weights,
)
from damas_env import Move, Position
from damas_env import kernels as K
from damas_env.compiled_rules import R_FIRST_KING, R_GIVEAWAY, R_WORD
from damas_env.engine import Engine
from damas_env.geometry import geometry
from damas_env.kernels import (
    M_CAPS,
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
    "Halt",
    "LATEST_SEARCH",
    "MATE",
    "MAX_DEPTH",
    "MIN_SECONDS",
    "NodeRate",
    "SEARCH_VERSIONS",
    "SearchResult",
    "Searcher",
    "piece_square_table",
    "search_plan",
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

# Time limits. A search given T seconds aims to end RESERVE_SHARE * T + RESERVE_SECONDS
# before T (its answer and its caller's work take the rest) and never starts an iteration that
# it predicts will not even re-search the previous iteration's best move in the time left.
RESERVE_SHARE = 0.03  # of the time given, kept for what follows the search
RESERVE_SECONDS = 0.00015  # ... and this much more (at most half of the time given)
BUDGET_SHARE = 0.97  # of the nodes that fit in the time left: the estimate's margin of error
FIRST_MOVE_SHARE = 0.3  # about the first root move's share of an iteration's nodes
EBF_START = 3.0  # the branching factor assumed before two iterations have been measured
EBF_RANGE = (1.2, 10.0)  # the branching factors an estimate is held within
RERUN_SHARE = 0.5  # a call cut short with time left runs again if its budget is this share
MAX_RERUNS = 4  # ... of the last call's (at most this many times an iteration)
FIRST_NODES = 500  # the first iteration's least budget (under a node limit, that limit)

# Evaluation weights, in centi-men (material: kernels.piece_values).
ADVANCE_MAX = 24  # a man one step from crowning; grows with the square of the rows advanced
CENTRE_MAN = 2  # per column away from the side edges (at most 3)
CENTRE_KING = 3  # per row and column away from the edges (at most 3 each)
TEMPO = 3  # having the move

# Transposition table entries: one int64 each, its bit fields from the lowest: score + 2**15
# (16 bits), depth (8), flag (2), best move row + 1 (16; 0: none), generation (21). A slot,
# hash and entry, takes 16 bytes: four to a cache line, so a probe costs one memory access.
T_SCORE_BIAS = 1 << 15
T_DEPTH, T_FLAG, T_MOVE, T_GEN = 16, 24, 26, 42  # each field's lowest bit
T_NO_MOVE = (1 << 16) - 1  # a move row this high is not kept
GENERATIONS = 1 << 21
FLAG_EXACT, FLAG_LOWER, FLAG_UPPER = 1, 2, 3

# Search counters.
# S_PROBING: 1 in ProbCut's search; S_HALT: 1 when another thread has halted the search.
# S_FRESH: the deepest ply of the line whose accumulators are current (a network's).
S_NODES, S_STOP, S_ABORT, S_GEN, S_GUESS, S_PROBING, S_HALT, S_FRESH = range(8)
S_LEN = 8
ABORT_NONE, ABORT_BUDGET, ABORT_OVERFLOW, ABORT_HALT = 0, 1, 2, 3

# The network's scores by position (Tables.evals), a uint64 each: the position's hash with its
# lowest 16 bits replaced by the score + EVAL_BIAS, in slot hash % 2**EVAL_BITS; a probe
# compares the other 48 bits. A slot holds the last position evaluated among those its hash
# sends there; a score is exact (it is the network's), so the search is the same with or
# without it, only faster where positions come back (transpositions, the searches again of a
# move, the next iteration, the next move of the game). 2**14 slots (128 KB) stay in the
# processor's second-level cache; 2**16 and more were slower.
EVAL_BITS = 14
EVAL_BIAS = 1 << 15
EVAL_SCORE = np.uint64(0xFFFF)

# Move-ordering scores, written into the M_MARK column of a move list (int16).
O_TT = 30_000
O_CAPTURE = 20_000  # + 64 per piece taken + 16 per king taken
O_CROWN = 2_000
O_KILLER = (1_500, 1_400)
O_HISTORY = 1_000  # history scores run 0 .. O_HISTORY - 1
O_DONE = -32_768  # already searched
HISTORY_CAP = 1 << 16  # a history entry reaching it halves the side's table

# Search refinements.
ASPIRATION = 30  # half the first root move's window around the last iteration's score
LMR_DEPTH = 3  # late-move reductions from this depth (every search version)
NEVER = 1 << 30  # a move index or depth no node reaches: the refinement is off

# Search versions: what a search prunes and reduces, as data the compiled search reads
# (Tables.plan). Each version is frozen once shipped, since a rating pool's members play with
# one (damas_agents.rating); a change to how the search prunes is a new version.
#   P_PROBCUT_DEPTH  ProbCut (Scan's) from this depth: a null-window node is first searched to
#                    P_PROBCUT_SHARE percent of its depth against a bound raised by
#                    P_PROBCUT_MARGIN centi-men a ply; a score over it is a cut (less the margin)
#   P_LMR_SPARED     quiet moves of this ordering score or more are never reduced
#   P_LMR_NULL       in a null window, moves from this index on (the first: 0) a ply shallower
#   P_LMR_PV         in the principal variation, moves from this index on a ply shallower
#   P_LMR_LATE, P_LMR_LATE_DEPTH  two plies from this index on, at this depth or more
(
    P_PROBCUT_DEPTH,
    P_PROBCUT_SHARE,
    P_PROBCUT_MARGIN,
    P_LMR_SPARED,
    P_LMR_NULL,
    P_LMR_PV,
    P_LMR_LATE,
    P_LMR_LATE_DEPTH,
) = range(8)
P_LEN = 8
SEARCH_VERSIONS: dict[int, tuple[int, ...]] = {
    # 1: late-move reductions in null windows only, from the fourth move, killers spared.
    1: (NEVER, 0, 0, O_KILLER[1], 3, NEVER, 8, LMR_DEPTH + 2),
    # 2: Scan's: ProbCut, and reductions from the second move in a null window (the third in
    # the principal variation), two plies from the sixth; only the table's move and crowning
    # moves spared. Kept for the games it wins at equal time on English (International even).
    2: (3, 40, 5, O_CROWN, 1, 3, 6, LMR_DEPTH),
    # 3: version 2 with ProbCut's margin doubled, 10 centi-men a ply: as strong as version 2 at
    # equal time (English even, International ahead), stronger at equal depth.
    3: (3, 40, 10, O_CROWN, 1, 3, 6, LMR_DEPTH),
}
#: The search version agents use unless told otherwise (``alphabeta:depth=4,search=1``).
LATEST_SEARCH = max(SEARCH_VERSIONS)


def search_plan(version: int) -> np.ndarray:
    """Returns a search version's settings as the int64 array the compiled search reads.

    Raises:
        ValueError: there is no such version.
    """
    if isinstance(version, bool) or not isinstance(version, int) or version not in SEARCH_VERSIONS:
        known = ", ".join(map(str, SEARCH_VERSIONS))
        raise ValueError(f"there is no search version {version!r}; the versions are {known}")
    return np.array(SEARCH_VERSIONS[version], dtype=np.int64)


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
    tt: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    path: np.ndarray
    rev: np.ndarray
    stats: np.ndarray
    plan: np.ndarray
    counters: np.ndarray
    net: np.ndarray
    netv: np.ndarray
    h: np.ndarray
    bits: np.ndarray
    material: np.ndarray
    frames: np.ndarray
    line: np.ndarray
    evals: np.ndarray


# --- Memory ---------------------------------------------------------------------------------


def _prefetch_row_codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """Emits LLVM's prefetch (read, keep in all cache levels) of row args[1] of array args[0]."""
    array_type = signature.args[0]
    array = context.make_array(array_type)(context, builder, args[0])
    zero = context.get_constant(types.intp, 0)
    index = [args[1]] + [zero] * (array_type.ndim - 1)
    pointer = cgutils.get_item_pointer(context, builder, array_type, array, index)
    byte_pointer, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
    prefetch_type = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
    prefetch = cgutils.get_or_insert_function(builder.module, prefetch_type, "llvm.prefetch.p0")
    builder.call(prefetch, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
    return context.get_dummy_value()


if getattr(numba.config, "DISABLE_JIT", False):

    def prefetch_row(array: np.ndarray, row: int) -> None:
        """Does nothing: plain Python has no cache to warm."""

else:

    @intrinsic
    def prefetch_row(typingctx: Any, array: Any, row: Any) -> Any:
        """Asks the processor to load row `row` of `array` into its caches (a hint: it
        changes nothing else), so that a later read of it does not wait for memory."""
        return types.void(array, types.intp), _prefetch_row_codegen


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
    """Returns the static score of the line's position at `ply` for the side to move: the
    network's when the tables hold one (:func:`_net_score`), else the piece-square table's
    (its sum kept move by move in ``t.material``)."""
    if t.net.shape[1] > 0:
        return _net_score(board, side, ply, t)
    total = t.material[ply]
    return (total if side == 0 else -total) + TEMPO


@kernel(inline=True)
def _net_score(board, side, ply, t):
    """Returns the network's score of the line's position at `ply` (hash ``t.path[ply]``):
    the one kept in ``t.evals``, else computed from the accumulators of `ply`, brought up to
    date first from the deepest current ply along the line's moves (``t.line``)."""
    h = t.path[ply]
    slot = h & np.uint64(t.evals.shape[0] - 1)
    kept = t.evals[slot]
    if (kept ^ h) & ~EVAL_SCORE == 0:
        return np.int64(kept & EVAL_SCORE) - EVAL_BIAS
    squares = np.int64(board.shape[0])
    for r in range(t.stats[S_FRESH], ply):
        mv, piece, i = t.buffers[r], t.line[r + 1, 0], t.line[r + 1, 1]
        search_advance_piece(piece, squares, mv, i, t.net, t.netv, np.int64(r))
    t.stats[S_FRESH] = ply
    score = np.int64(search_score(t.net, t.netv, t.h, ply, side))
    t.evals[slot] = (h & ~EVAL_SCORE) | np.uint64(score + EVAL_BIAS)
    return score


@kernel(inline=True)
def _pst_total(board, t):
    """Returns the piece-square table's sum over the board (White's view)."""
    total = 0
    for s in range(board.shape[0]):
        total += t.pst[board[s] + 2, s]
    return total


@kernel(inline=True)
def _pst_change(board, mv, i, t):
    """Returns how move i of mv (not yet applied) changes the piece-square table's sum."""
    origin, dest = mv[i, M_FROM], mv[i, M_TO]
    piece = board[origin]
    now = 2 * piece if mv[i, M_CROWN] == 1 else piece
    change = t.pst[now + 2, dest] - t.pst[piece + 2, origin]
    for k in range(mv[i, M_NCAP]):
        change -= t.pst[mv[i, M_CODES + k] + 2, mv[i, M_CAPS + k]]
    return change


@kernel(inline=True)
def _bits(t, ply):
    """Returns the board's bundle at `ply` (damas_env.kernels.board_bits)."""
    b = t.bits[ply]
    return b[0], b[1], b[2], b[3], b[4]


@kernel(inline=True)
def _set_bits(t, ply, bits):
    b = t.bits[ply]
    b[0], b[1], b[2], b[3], b[4] = bits


@kernel(inline=True)
def _advance(t, board, mv, i, ply):
    """Before move i of ``t.buffers[ply]`` is applied: notes it for the accumulators of
    ply + 1 (if a network), which are computed only if a position below is evaluated."""
    if t.net.shape[1] > 0:
        t.line[ply + 1, 0] = board[mv[i, M_FROM]]
        t.line[ply + 1, 1] = i
        if t.stats[S_FRESH] > ply:
            t.stats[S_FRESH] = ply


# --- Small kernels ----------------------------------------------------------------------------


@kernel(inline=True)
def _no_move_score(rules, ply):
    """Returns the score of a side with no legal move: lost, or won in giveaway."""
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
    return h & np.uint64(t.tt.shape[0] - 1)


@kernel(inline=True)
def _entry(t, h):
    """Returns the entry of position h (hash) of this search's generation, or -1."""
    slot = _slot(t, h)
    if t.tt[slot, 0] != np.int64(h):
        return np.int64(-1)
    entry = t.tt[slot, 1]
    if entry >> T_GEN != t.stats[S_GEN]:
        return np.int64(-1)
    return entry


@kernel(inline=True)
def _entry_move(entry):
    """Returns the best move row of an entry (-1: none)."""
    return ((entry >> T_MOVE) & 0xFFFF) - 1


@kernel(inline=True)
def _probe(t, h, depth, ply, alpha, beta):
    """Returns (best move row or -1, True and a score if the entry settles the node)."""
    entry = _entry(t, h)
    if entry < 0:
        return np.int64(-1), False, 0
    move = _entry_move(entry)
    if (entry >> T_DEPTH) & 0xFF >= depth:
        score = _from_tt((entry & 0xFFFF) - T_SCORE_BIAS, ply)
        flag = (entry >> T_FLAG) & 3
        if flag == FLAG_EXACT:
            return move, True, score
        if (flag == FLAG_LOWER and score >= beta) or (flag == FLAG_UPPER and score <= alpha):
            return move, True, score
    return move, False, 0


@kernel(inline=True)
def _store(t, h, depth, ply, score, flag, move):
    """Writes a node's result, unless the slot holds a deeper result of this position."""
    entry = _entry(t, h)
    if entry >= 0 and (entry >> T_DEPTH) & 0xFF > depth:
        return
    row = np.int64(move) + 1 if 0 <= move < T_NO_MOVE else np.int64(0)
    entry = (
        (_to_tt(np.int64(score), ply) + T_SCORE_BIAS)
        | (np.int64(depth) << T_DEPTH)
        | (np.int64(flag) << T_FLAG)
        | (row << T_MOVE)
        | (t.stats[S_GEN] << T_GEN)
    )
    slot = _slot(t, h)
    t.tt[slot, 0] = np.int64(h)
    t.tt[slot, 1] = entry


@kernel(inline=True)
def _prefetch_entry(t, h):
    """Asks the processor to fetch the slot of position h (hash) while other work is done."""
    prefetch_row(t.tt, np.int64(_slot(t, h)))


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
    if t.rules[R_WORD] == 1:
        _set_bits(t, ply, K.bits_after(_bits(t, ply - 1), mv, i, t.rules))
    if t.net.shape[1] == 0:  # the piece-square table evaluates: its sum kept along
        t.material[ply] = t.material[ply - 1] + _pst_change(board, mv, i, t)


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
    """Returns the unsearched move with the best ordering score and that score, and marks the
    move searched."""
    best, pick = -32_768, np.int64(0)
    for i in range(n):
        if mv[i, M_MARK] > best:
            best, pick = mv[i, M_MARK], i
    mv[pick, M_MARK] = O_DONE
    return pick, best


@kernel(inline=True)
def _reduction(depth, k, quiet, order_score, beta, alpha, plan):
    """Returns how many plies less the k-th move of a node (the first: 0) is searched, as the
    search version's `plan` says: none for captures (all moves capture, or none), spared
    moves and near the leaves; else one from a move index on, two for later moves."""
    if not quiet or depth < LMR_DEPTH or order_score >= plan[P_LMR_SPARED]:
        return 0
    if beta - alpha > 1:
        return 1 if k >= plan[P_LMR_PV] else 0
    if k < plan[P_LMR_NULL]:
        return 0
    return 2 if k >= plan[P_LMR_LATE] and depth >= plan[P_LMR_LATE_DEPTH] else 1


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


# The search's stack (Tables.frames): a frame per node on the line being searched, holding
# what the node was called with and where its move loop stands. The search runs as one loop
# over it, not as a recursion: a call passes every table by value (170 machine words, about a
# fifth of the search's time went to pushing them), a frame is written in a few words.
(
    F_SIDE,
    F_HASH,
    F_DEPTH,
    F_PLY,
    F_ALPHA,
    F_BETA,
    F_STAGE,  # what the node does next (G_*)
    F_MOVES,  # moves listed
    F_K,  # moves searched before the current one
    F_MOVE,  # the current move's row
    F_CHILD,  # the current move's hash
    F_REDUCTION,  # plies the current move's first search was reduced by
    F_BEST,
    F_BEST_MOVE,
    F_ALPHA0,  # alpha as the node was called
    F_QUIET,
    F_TT_MOVE,  # the table's move while ProbCut's search runs
    F_MARGIN,  # ProbCut's margin
) = range(18)
F_LEN = 18
# Stages of a frame: to enter the node, to search its next move, or to take the score of the
# search it called (ProbCut's; a move's first, reduced, null-window or full-window search).
G_ENTER, G_NEXT, G_PROBCUT, G_FIRST, G_REDUCED, G_NULL, G_FULL = range(7)
# What a stage asks of the loop: run the frame above (a call), go on here, return, or expand
# the node (list its moves, or score a leaf) with the table's move it gives.
CALL, GO, RETURN, EXPAND = range(4)


@kernel(inline=True)
def _call(fr, sp, side, h, depth, ply, alpha, beta, stage):
    """Sets frame sp to resume at `stage` and frame sp + 1 to enter a node; returns CALL."""
    fr[sp, F_STAGE] = stage
    c = fr[sp + 1]
    c[F_SIDE], c[F_HASH], c[F_DEPTH], c[F_PLY] = side, np.int64(h), depth, ply
    c[F_ALPHA], c[F_BETA], c[F_STAGE] = alpha, beta, G_ENTER
    return CALL, np.int64(0)


@kernel(inline=True)
def _enter(board, fr, sp, t):
    """A node's first stage: the budget, the rules' end, repetition, the table and ProbCut;
    returns EXPAND and the table's move (-1: none) where the node is to be expanded."""
    f = fr[sp]
    side, h, depth, ply = f[F_SIDE], np.uint64(f[F_HASH]), f[F_DEPTH], f[F_PLY]
    alpha, beta = f[F_ALPHA], f[F_BETA]
    stats = t.stats
    # One branch for both ends (`|`, not `or`): the halt is read at every node from the
    # cache line the count is written to, so it costs next to nothing.
    if (stats[S_NODES] >= stats[S_STOP]) | (stats[S_HALT] != 0):
        stats[S_ABORT] = ABORT_HALT if stats[S_HALT] != 0 else ABORT_BUDGET
        return RETURN, np.int64(0)
    stats[S_NODES] += 1
    over, score = _decided(board, side, ply, t)
    if over:
        return RETURN, score
    if t.rev[ply] >= 4 and _is_repetition(t, ply, h):
        return RETURN, np.int64(0)  # policy: a cycle gains nothing, whatever the game's rule
    tt_move = np.int64(-1)
    if depth > 0:
        tt_move, settled, score = _probe(t, h, depth, ply, alpha, beta)
        if settled:
            return RETURN, np.int64(score)
        if (
            depth >= t.plan[P_PROBCUT_DEPTH]
            and beta - alpha == 1
            and stats[S_PROBING] == 0
            and -MATE_BOUND < beta < MATE_BOUND
        ):  # ProbCut: a shallow search of this node shows a cut with a margin to spare
            margin = t.plan[P_PROBCUT_MARGIN] * depth
            raised = beta + margin
            stats[S_PROBING] = 1
            f[F_MARGIN], f[F_TT_MOVE] = margin, tt_move
            shallow = depth * t.plan[P_PROBCUT_SHARE] // 100
            return _call(fr, sp, side, h, shallow, ply, raised - 1, raised, np.int64(G_PROBCUT))
    return EXPAND, tt_move


@kernel(inline=True)
def _after_probcut(board, fr, sp, score, t):
    """Takes ProbCut's score: a cut, or EXPAND with the shallow search's best move, to be
    searched first."""
    f = fr[sp]
    t.stats[S_PROBING] = 0
    if t.stats[S_ABORT] != ABORT_NONE:
        return RETURN, np.int64(0)
    raised = f[F_BETA] + f[F_MARGIN]
    if score >= raised:
        return RETURN, score - f[F_MARGIN]
    tt_move = f[F_TT_MOVE]
    entry = _entry(t, np.uint64(f[F_HASH]))
    if entry >= 0:  # the shallow search's best move leads
        tt_move = _entry_move(entry)
    return EXPAND, tt_move


@kernel(inline=True)
def _expand(board, fr, sp, tt_move, t):
    """Lists and orders a node's moves, or returns its score where it is a leaf: a quiet
    position at the horizon, the end of the quiescence, or a side with no move."""
    f = fr[sp]
    side, depth, ply = f[F_SIDE], f[F_DEPTH], f[F_PLY]
    bits = _bits(t, ply)
    mv, n, quiet = t.buffers[ply], np.int64(0), True
    if depth <= 0 and not K.can_capture_on(board, bits, side, t.ray, t.rules, t.ws):
        if not K.has_move_on(board, bits, side, t.ray, t.rules, np.int64(-1)):  # a quiet leaf
            return RETURN, np.int64(_no_move_score(t.rules, ply))
        leaf = True
    else:
        n = K.generate_moves_on(board, bits, side, t.ray, t.rules, mv, np.bool_(True), t.ws)
        if n > mv.shape[0]:
            t.stats[S_ABORT] = ABORT_OVERFLOW
            return RETURN, np.int64(0)
        if n == 0:
            return RETURN, np.int64(_no_move_score(t.rules, ply))
        quiet = mv[0, M_NCAP] == 0  # captures are compulsory: all moves capture, or none
        leaf = (depth <= 0 and (quiet or depth <= -QS_PLIES)) or ply >= MAX_PLY - 1
    if leaf:  # one call: the evaluation is compiled into the loop once
        return RETURN, np.int64(evaluate(board, side, ply, t))
    _order(mv, n, tt_move, side, ply, t)
    if depth > 1:  # the children will probe the table: their slots load while they wait
        h = np.uint64(f[F_HASH])
        for i in range(n):
            _prefetch_entry(t, hash_after(h, board, mv, np.int64(i), t.keys, t.side_key))
    f[F_MOVES], f[F_K], f[F_QUIET] = n, 0, quiet
    f[F_BEST], f[F_BEST_MOVE], f[F_ALPHA0] = -INF, -1, f[F_ALPHA]
    f[F_STAGE] = G_NEXT
    return GO, np.int64(0)


@kernel(inline=True)
def _next(board, fr, sp, t):
    """Makes a node's next move and calls its first search; after the last, stores the
    node's result and returns its score."""
    f = fr[sp]
    side, depth, ply, k = f[F_SIDE], f[F_DEPTH], f[F_PLY], f[F_K]
    alpha, beta = f[F_ALPHA], f[F_BETA]
    if k == f[F_MOVES]:
        return _finish(fr, sp, t)
    mv = t.buffers[ply]
    i, order_score = _pick(mv, f[F_MOVES])
    child = hash_after(np.uint64(f[F_HASH]), board, mv, i, t.keys, t.side_key)
    if depth > 1:  # again: a sibling's subtree may have pushed the slot out of the cache
        _prefetch_entry(t, child)
    _push(t, board, mv, i, ply + 1, child)
    _advance(t, board, mv, i, ply)
    apply_move(board, mv, i)
    f[F_MOVE], f[F_CHILD] = i, np.int64(child)
    if k == 0:
        return _call(fr, sp, 1 - side, child, depth - 1, ply + 1, -beta, -alpha, np.int64(G_FIRST))
    # principal-variation search: a null window first, the full one if it fails high
    r = _reduction(depth, k, f[F_QUIET] == 1, order_score, beta, alpha, t.plan)
    f[F_REDUCTION] = r
    stage = np.int64(G_REDUCED)
    return _call(fr, sp, 1 - side, child, depth - 1 - r, ply + 1, -alpha - 1, -alpha, stage)


@kernel(inline=True)
def _searched(board, fr, sp, stage, score, t):
    """Takes the score of a move's search (stage G_FIRST ... G_FULL): searches the move again
    where a null window failed high, else unmakes it and keeps the best."""
    f = fr[sp]
    side, depth, ply = f[F_SIDE], f[F_DEPTH], f[F_PLY]
    alpha, beta = f[F_ALPHA], f[F_BETA]
    child = np.uint64(f[F_CHILD])
    going = t.stats[S_ABORT] == ABORT_NONE
    if stage == G_REDUCED and score > alpha and f[F_REDUCTION] > 0 and going:
        stage = np.int64(G_NULL)
        return _call(fr, sp, 1 - side, child, depth - 1, ply + 1, -alpha - 1, -alpha, stage)
    window = stage != G_FIRST and stage != G_FULL  # a null window, which may fail high
    if window and alpha < score < beta and beta - alpha > 1 and going:
        stage = np.int64(G_FULL)
        return _call(fr, sp, 1 - side, child, depth - 1, ply + 1, -beta, -alpha, stage)
    mv = t.buffers[ply]
    i = f[F_MOVE]
    undo_move(board, mv, i)
    if not going:
        return RETURN, np.int64(0)
    f[F_K] += 1
    f[F_STAGE] = G_NEXT
    if score > f[F_BEST]:
        f[F_BEST], f[F_BEST_MOVE] = score, i
        if score > alpha:
            f[F_ALPHA] = score
            if score >= beta:
                if depth > 0:
                    _reward(t, mv, i, side, ply, depth)
                return _finish(fr, sp, t)
    return GO, np.int64(0)


@kernel(inline=True)
def _finish(fr, sp, t):
    """Stores a node's result in the table (above the horizon) and returns its score."""
    f = fr[sp]
    best, depth = f[F_BEST], f[F_DEPTH]
    if depth > 0:
        flag = (
            FLAG_LOWER if best >= f[F_BETA] else (FLAG_EXACT if best > f[F_ALPHA0] else FLAG_UPPER)
        )
        _store(t, np.uint64(f[F_HASH]), depth, f[F_PLY], best, flag, f[F_BEST_MOVE])
    return RETURN, best


@kernel()
def _negamax(board, side, h, depth, ply, alpha, beta, t):
    """Returns the score of the position for `side`, searched `depth` plies (alpha-beta).

    At depth <= 0 only captures are searched (quiescence). Sets stats[S_ABORT] and returns 0
    when the node budget is spent, the search is halted or a move list overflows.

    The nodes are frames of an explicit stack (t.frames), run by one loop: a stage either
    calls a node (the frame above), goes on with its own frame, or returns a score to the
    frame below, which resumes at the stage it set before the call. A node's expansion (its
    move list, or a leaf's score) is reached from two stages (on entry, after ProbCut) and
    called at one place in the loop, so that numba compiles it once.
    """
    fr = t.frames
    sp = np.int64(0)
    fr[0, F_SIDE], fr[0, F_HASH], fr[0, F_DEPTH], fr[0, F_PLY] = side, np.int64(h), depth, ply
    fr[0, F_ALPHA], fr[0, F_BETA], fr[0, F_STAGE] = alpha, beta, G_ENTER
    score = np.int64(0)
    while True:
        stage = fr[sp, F_STAGE]
        if stage == G_ENTER:
            action, value = _enter(board, fr, sp, t)
        elif stage == G_NEXT:
            action, value = _next(board, fr, sp, t)
        elif stage == G_PROBCUT:
            action, value = _after_probcut(board, fr, sp, score, t)
        else:  # a move's search: the child's score is the negation of its own
            action, value = _searched(board, fr, sp, stage, -score, t)
        if action == EXPAND:  # one call site: the move listing and the evaluation compile once
            action, value = _expand(board, fr, sp, value, t)
        if action == CALL:
            sp += 1
        elif action == RETURN:
            if sp == 0:
                return value
            sp -= 1
            score = value


@kernel(inline="ir")  # _negamax linked into one caller (deepen): one compile of it
def search_root(board, side, h, depth, root, order, scores, guess, t):
    """Searches the root moves in `order` to `depth`; returns (best score, moves completed).

    ``scores[i]`` receives move i's score: exact for the first move and for any move scoring
    at least the best so far (each later move is searched with alpha = best - 1, so equal
    scores are exact and ties can be broken fairly); a smaller upper bound otherwise.
    Moves not searched before an abort keep their score. `guess` is the score expected (the
    last iteration's; -INF: none), the centre of the first move's aspiration window.
    """
    t.path[0] = h
    t.rev[0] = 0
    _set_bits(t, np.int64(0), K.board_bits(board, t.rules))
    if t.net.shape[1] > 0:
        search_refresh(board, t.net, t.netv, np.int64(0))
    else:
        t.material[0] = _pst_total(board, t)
    ply0 = np.int64(0)
    # np.int64, not the literal 1: numba would compile _negamax a second time, for
    # Literal[int](1).
    ply = np.int64(1)
    best, best_i, done = -INF, -1, 0
    for k in range(order.shape[0]):
        i = order[k]
        child = hash_after(h, board, root, i, t.keys, t.side_key)
        _push(t, board, root, i, ply, child)
        if t.net.shape[1] > 0:  # the root's moves are not in t.buffers: no lazy update
            search_advance(board, root, i, t.net, t.netv, ply0)
            t.stats[S_FRESH] = ply
        apply_move(board, root, i)
        if k == 0:
            score = _first_root_move(board, side, child, depth, ply, guess, t)
        else:  # a null window (best - 1, best): fails low under the best, else searched again
            score = -_negamax(board, 1 - side, child, depth - 1, ply, -best, -best + 1, t)
            if score >= best and t.stats[S_ABORT] == ABORT_NONE:
                score = -_negamax(board, 1 - side, child, depth - 1, ply, -INF, -best + 1, t)
        undo_move(board, root, i)
        if t.stats[S_ABORT] != ABORT_NONE:
            break
        scores[i] = score
        done += 1
        if score > best:
            best, best_i = score, i
    if done == order.shape[0]:
        _store(t, h, depth, np.int64(0), best, np.int64(FLAG_EXACT), np.int64(best_i))
    return best, done


@kernel(inline="ir")
def _first_root_move(board, side, child, depth, ply, guess, t):
    """Returns the exact score of the first root move (applied, hash `child`): searched in an
    aspiration window around `guess`, widened to the side it fails on until the score is in."""
    alpha, beta = -INF, INF
    if -MATE_BOUND < guess < MATE_BOUND:
        alpha, beta = guess - ASPIRATION, guess + ASPIRATION
    while True:
        score = -_negamax(board, 1 - side, child, depth - 1, ply, -beta, -alpha, t)
        if t.stats[S_ABORT] != ABORT_NONE:
            return score
        if score <= alpha and alpha > -INF:
            alpha = max(-INF, alpha - 4 * (beta - alpha))
        elif score >= beta and beta < INF:
            beta = min(INF, beta + 4 * (beta - alpha))
        else:
            return score


@kernel(inline="ir")
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


@kernel(nogil=True)
def deepen(board, side, h, first, last, root, order, scores, nodes, t):
    """Iterative deepening, the one loop of every search: depths `first` to `last` over the
    root moves in `order`, within `nodes` nodes in all.

    Each iteration resets the scores of the moves in `order`, searches them in that order
    (:func:`search_root`) and, when complete, sorts `order` best first (stable, so the moves
    scoring the best lead, in the order they were searched). It stops after a forced result
    (a mate score), or when an iteration is cut short: stats[S_ABORT] says why (the budget,
    a halt, or a full move list), `order` stays as that iteration searched it and `scores`
    holds the moves it completed. stats[S_NODES] counts the last iteration's nodes. It runs
    without Python's global lock: another thread may set stats[S_HALT] meanwhile.

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
        guess = stats[S_GUESS] if depth > 1 else -INF
        best, done = search_root(board, side, h, depth, root, order, scores, guess, t)
        spent += stats[S_NODES]
        if stats[S_ABORT] != ABORT_NONE:
            completed = done
            break
        _sort_best_first(order, scores)
        stats[S_GUESS] = best
        reached, score, ties = depth, best, 1
        while ties < order.shape[0] and scores[order[ties]] == best:
            ties += 1
        if abs(best) > MATE_BOUND:
            break
    return reached, score, ties, completed, spent


@kernel()
def new_search(t):
    """Makes table entries of earlier searches stale and forgets killers and history."""
    t.stats[S_GEN] = (t.stats[S_GEN] + 1) % GENERATIONS
    if t.stats[S_GEN] == 0:  # generation numbers wrapped: really clear the table
        t.tt[:] = 0
        t.stats[S_GEN] = 1
    t.killers[:] = -1
    t.history[:] = 0
    t.stats[S_GUESS] = -INF


@kernel()
def next_search(t):
    """Prepares a search of a position that follows the last one searched in the same game:
    the table's entries stay valid (the search finds there what the last one learned of the
    lines it leads to), the history is halved and the killers forgotten."""
    t.killers[:] = -1
    for side in range(t.history.shape[0]):
        for a in range(t.history.shape[1]):
            for b in range(t.history.shape[2]):
                t.history[side, a, b] //= 2
    t.stats[S_GUESS] = -INF


@kernel()
def table_line(board, side, h, t, out):
    """Follows the table's best moves from a position, copying them into out; returns how many.

    Stops at a missing entry, a repeated position, or out's length. Plays on `board`.
    """
    count = 0
    t.path[0] = h
    while count < out.shape[0] and count + 1 < MAX_PLY:
        entry = _entry(t, h)
        i = _entry_move(entry) if entry >= 0 else np.int64(-1)
        if i < 0:
            break
        mv = t.buffers[count + 1]
        n = generate_moves(board, side, t.ray, t.rules, mv, np.bool_(True), t.ws)
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
        return np.int64(search_score(t.net, t.netv, t.h, np.int64(0), side))
    t.material[0] = _pst_total(board, t)
    return evaluate(board, side, 0, t)


# --- Python driver ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """What one search found.

    Attributes:
        move: the move chosen (ties at the best score broken by the caller's rng): the
            deepest completed iteration's or, when a limit cut the next iteration short after
            it had searched that move again, the best of the moves it had searched (that
            move, or one scoring better or equal at the deeper depth).
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
    or cut short after completing at least the previous iteration's best move."""

    depth: int
    score: int
    ties: list[int]
    complete: bool = True


class NodeRate:
    """One searcher's estimate of its speed: it turns time into node budgets.

    Two parts, each a moving average of the logarithm that one call moves by a bounded
    factor (so one odd call, a page fault storm or a long wait for the processor, is
    forgotten over the calls after it):

    - ``speed``, nodes per second of the searching thread's own processor time: what the
      search costs, whatever else runs on the machine. Each call weighs ``WEIGHT`` (less for a
      call of fewer than ``FULL_WEIGHT_NODES`` nodes, which times the call more than the
      search). It stays within ``[FLOOR, CEILING]``.
    - ``share``, the processor time the thread gets per second of the clock: below 1 when
      other processes take turns on its core. A call of less than ``SHARE_SECONDS`` weighs
      less (it either ran whole or waited out another's time slice: a coin toss), and a call
      counts as getting at least ``SHARE_FLOOR``.

    Attributes:
        speed: nodes per second of processor time.
        share: processor seconds per second of the clock, in ``[SHARE_FLOOR, 1]``.
    """

    START = 200_000.0  # a slow machine's speed: a fresh searcher's first budgets rather run short
    FLOOR = 10_000.0
    CEILING = 50_000_000.0
    WEIGHT = 0.3
    FULL_WEIGHT_NODES = 2_000
    SHARE_FLOOR = 0.1
    SHARE_SECONDS = 0.01  # a few of the scheduler's time slices

    def __init__(self, value: float = START) -> None:
        if math.isnan(value):
            raise ValueError("a speed is a number of nodes per second, not nan")
        self.speed = min(max(value, self.FLOOR), self.CEILING)
        self.share = 1.0

    @property
    def value(self) -> float:
        """Returns the nodes searched per second of the clock: speed times share."""
        return self.speed * self.share

    def update(self, nodes: int, seconds: float, cpu_seconds: float | None = None) -> None:
        """Corrects the estimate with a call that visited `nodes` nodes in `seconds` of the
        clock and `cpu_seconds` of the thread's processor time (None: all of `seconds`)."""
        if nodes <= 0 or not 0 < seconds < math.inf:
            return
        if cpu_seconds is None:
            cpu_seconds = seconds
        elif not 0 < cpu_seconds < math.inf:
            return
        measured = min(max(nodes / cpu_seconds, self.FLOOR), self.CEILING)
        weight = self.WEIGHT * min(1.0, nodes / self.FULL_WEIGHT_NODES)
        self.speed = _log_mix(self.speed, measured, weight)
        share = min(max(cpu_seconds / seconds, self.SHARE_FLOOR), 1.0)
        weight = self.WEIGHT * min(1.0, seconds / self.SHARE_SECONDS)
        self.share = min(_log_mix(self.share, share, weight), 1.0)


def _log_mix(old: float, new: float, weight: float) -> float:
    """Returns the weighted geometric mean of two positive numbers (`weight` on `new`)."""
    return math.exp((1 - weight) * math.log(old) + weight * math.log(new))


@dataclass
class _Limits:
    """The limits of one search (under a time limit, the clock reading it aims to end by) and
    what it has spent: nodes, processor seconds in compiled calls, and the nodes of each
    complete iteration (one depth a call, under a time limit)."""

    nodes: int | None
    seconds: float | None
    start: float
    deadline: float = math.inf
    used: int = 1
    cpu: float = 0.0
    iterations: list[int] = field(default_factory=list)

    def observed_speed(self) -> float:
        """Returns this search's own nodes per processor second so far (0 before its first
        call): how fast it goes on this position, whatever the clock."""
        return self.used / self.cpu if self.cpu > 0 else 0.0


def _reserve(seconds: float) -> float:
    """Returns the seconds a search given `seconds` leaves unspent for its answer and its
    caller: RESERVE_SHARE of them plus RESERVE_SECONDS, at most half."""
    return min(RESERVE_SHARE * seconds + RESERVE_SECONDS, seconds / 2)


def _next_iteration_nodes(iterations: list[int]) -> float:
    """Returns the nodes the next iteration is expected to take: the last one's times the
    effective branching factor, the geometric mean of the last two growths (the odd and even
    depths' alternate), held within EBF_RANGE; EBF_START before two iterations."""
    n = [max(k, 1) for k in iterations[-3:]]
    if len(n) < 2:
        return n[-1] * EBF_START if n else float(FIRST_NODES)
    ebf = math.sqrt(n[-1] / n[-3]) if len(n) == 3 else n[-1] / n[-2]
    return n[-1] * min(max(ebf, EBF_RANGE[0]), EBF_RANGE[1])


def _new_tables(
    engine: Engine, rules: Ruleset, tt_bits: int, net: NetWeights, search: int
) -> Tables:
    """Returns fresh search tables for a ruleset, evaluating with `net` in integers and
    pruning as search version `search` does."""
    squares = rules.squares
    tables = Tables(
        ray=engine.ray,
        rules=engine.rule_array,
        keys=engine.zobrist,
        side_key=engine.side_key,
        pst=piece_square_table(rules),
        buffers=np.zeros((MAX_PLY, FIRST_ROWS, K.MOVE_WIDTH), dtype=np.int16),
        ws=K.new_workspace(rules.board_size),
        tt=np.zeros((1 << tt_bits, 2), dtype=np.int64),
        killers=np.full((MAX_PLY, 2), -1, dtype=np.int32),
        history=np.zeros((2, squares, squares), dtype=np.int32),
        path=np.zeros(MAX_PLY, dtype=np.uint64),
        rev=np.zeros(MAX_PLY, dtype=np.int32),
        stats=np.zeros(S_LEN, dtype=np.int64),
        plan=search_plan(search),
        counters=np.zeros(K.G_LEN, dtype=np.int64),
        net=np.zeros((0, 0), dtype=np.int16),
        netv=np.zeros(0, dtype=np.int64),
        h=np.zeros(0, dtype=np.int32),
        bits=np.zeros((MAX_PLY + 1, 5), dtype=np.uint64),
        material=np.zeros(MAX_PLY + 1, dtype=np.int64),
        frames=np.zeros((MAX_PLY + 2, F_LEN), dtype=np.int64),
        line=np.zeros((MAX_PLY + 1, 2), dtype=np.int64),
        evals=np.zeros(1, dtype=np.uint64),
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
    evals = np.zeros(1 if w.is_empty else 1 << EVAL_BITS, dtype=np.uint64)  # none kept yet
    return t._replace(net=matrix, netv=vector, h=np.zeros(w.w2.shape[1], dtype=sums), evals=evals)


def _cut_short(depth: int, searched: np.ndarray, scores: np.ndarray) -> _Iteration | None:
    """Returns what an iteration cut short found, once it completed its first root move (the
    previous iteration's best): its best among the moves it completed, which is that move or
    one scoring better or equal at this depth (their scores are exact where at least the best
    so far). Else (nothing completed) None."""
    if searched.size == 0:
        return None
    best = int(scores[searched].max())
    return _Iteration(depth, best, [int(i) for i in searched if scores[i] == best], False)


class Halt:
    """Ends, from another thread, the searches that a thread runs under it.

        halt = Halt()
        with halt.applied():          # in the searching thread
            agent.act(observation, position)
        halt.set()                    # in another: the search returns its move at once

    A :class:`Searcher` that searches under a halt that is set (or is set during the search)
    stops at its next node and returns the best move found so far (the first legal move if
    no iteration was complete). Any other search can take part through :meth:`watch`. A halt
    stays set: use a new one for each search.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._is_set = False
        self._stops: list[Callable[[], None]] = []

    def is_set(self) -> bool:
        """Returns whether :meth:`set` has been called."""
        return self._is_set

    def set(self) -> None:
        """Ends the searches watching this halt, now and from now on (from any thread)."""
        with self._lock:
            self._is_set = True
            for stop in self._stops:
                stop()

    @contextlib.contextmanager
    def applied(self) -> Iterator[Halt]:
        """Makes this the halt of the searches that the calling thread runs in the block."""
        token = _HALT.set(self)
        try:
            yield self
        finally:
            _HALT.reset(token)

    @contextlib.contextmanager
    def watch(self, stop: Callable[[], None]) -> Iterator[None]:
        """Calls `stop` (quick, from the halting thread) when the halt is set during the block,
        or at once if it is set already."""
        with self._lock:
            self._stops.append(stop)
            if self._is_set:
                stop()
        try:
            yield
        finally:
            with self._lock:
                self._stops.remove(stop)

    @staticmethod
    def current() -> Halt | None:
        """Returns the halt applied in the calling thread (None: its searches run to their
        limits)."""
        return _HALT.get()


_HALT: ContextVar[Halt | None] = ContextVar("damas_halt", default=None)


class Searcher:
    """The search tables of one ruleset, and iterative deepening over the compiled search.

    Not thread-safe: one Searcher per thread, except :meth:`halt`, which another thread calls.

    Args:
        rules: the rules searched.
        tt_bits: the transposition table holds 2**tt_bits entries (16 bytes each).
        weights: a learned evaluation instead of the piece-square table.
        clock: the time source of time limits, in seconds (a fake one in tests).
        cpu_clock: the processor time of the searching thread, in seconds; by default
            ``time.thread_time`` with the default clock, else `clock` itself (a fake clock
            then stands for both, as for a process that has its core to itself).
        search: the search version (:data:`SEARCH_VERSIONS`): how it prunes and reduces.
            Each version plays the same moves forever; the latest is the strongest.

    Under a time limit T the search runs one iteration per compiled call and reads the clock
    between calls. It aims to end RESERVE_SHARE * T + RESERVE_SECONDS before T; each call's
    node budget is what fits in the time left to that end (at :attr:`rate`, with
    BUDGET_SHARE of margin), so an iteration that runs late is cut short there, and its best
    move so far is played once it has searched the previous best again. A new iteration
    starts only if FIRST_MOVE_SHARE of its predicted time (the last iteration's nodes times
    the effective branching factor, at the estimated speed) fits in the time left: then it
    will probably complete, or at least search the previous best again and so tell whether
    another move is better.

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
        cpu_clock: Callable[[], float] | None = None,
        search: int = LATEST_SEARCH,
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
        if cpu_clock is None:
            cpu_clock = time.thread_time if clock is time.perf_counter else clock
        self.cpu_clock = cpu_clock
        self.tables = _new_tables(engine, rules, tt_bits, net, search)
        self.search_version = search
        # Writes the table's memory now: the first touch of each page is a fault that would
        # otherwise slow the first timed moves (tens of milliseconds in all).
        self.tables.tt.fill(0)
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

    def halt(self) -> None:
        """Ends the search in progress at its next node: it returns the best move found so far
        (the first legal move if no iteration was complete). Thread-safe; a search that starts
        later runs to its limits (:class:`Halt` halts those too)."""
        self.tables.stats[S_HALT] = 1

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
        docstring). A :meth:`halt`, or the thread's :class:`Halt`, ends it early.

        Raises:
            ValueError: no limit given, or the position has no legal move.
        """
        if depth is None and nodes is None and seconds is None:
            raise ValueError("search needs a limit: depth, nodes or seconds")
        self.tables.stats[S_HALT] = 0
        halt = Halt.current()
        if halt is None:
            return self._search(position, depth, nodes, seconds, rng)
        with halt.watch(self.halt):
            return self._search(position, depth, nodes, seconds, rng)

    def _search(
        self,
        position: Position,
        depth: int | None,
        nodes: int | None,
        seconds: float | None,
        rng: np.random.Generator | None,
    ) -> SearchResult:
        """Returns the best move of a position within the limits (see :meth:`search`)."""
        limits = _Limits(nodes, seconds, self.clock())
        if seconds is not None:
            limits.deadline = limits.start + seconds - _reserve(seconds)
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
        while depth <= max_depth and (done is None or self._worth_starting(limits)):
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

        A move list overflow grows the lists and calls again. So does a call cut short by a
        time budget while time is left (the speed was underestimated), up to MAX_RERUNS
        times, if its budget is at least RERUN_SHARE of the last: the table keeps the work
        done, so the next call soon gets back to where this one stopped.
        """
        stats, scores = self.tables.stats, np.full(root.shape[0], -INF - 1, dtype=np.int64)
        done: _Iteration | None = None
        last_budget, completed, reruns, spent = 0, 0, 0, 0
        while True:
            budget = self._budget(limits, first)
            if budget <= 0 or budget < RERUN_SHARE * last_budget:
                break
            stats[S_NODES] = 0  # a call's count starts at zero (a clock may read it: tests)
            begin, begin_cpu = self.clock(), self.cpu_clock()
            reached, score, ties, completed, nodes = deepen(
                board, side, h, first, last, root, order, scores, budget, self.tables
            )
            end, end_cpu = self.clock(), self.cpu_clock()
            self._count(limits, int(nodes), end - begin, end_cpu - begin_cpu)
            spent += int(nodes)
            if reached >= first:
                done = _Iteration(int(reached), int(score), [int(i) for i in order[:ties]])
                if first == last:  # the nodes of one iteration (reruns included)
                    limits.iterations.append(spent)
                first, spent, reruns = int(reached) + 1, 0, 0
            if stats[S_ABORT] == ABORT_NONE:
                return done, abs(int(score)) > MATE_BOUND or reached < last
            if stats[S_ABORT] == ABORT_OVERFLOW and self._grow_buffers():
                continue
            if stats[S_ABORT] != ABORT_BUDGET or reruns >= MAX_RERUNS:
                break
            if not self._time_is_left(limits):
                break
            last_budget, reruns = budget, reruns + 1
        return _cut_short(first, order[: int(completed)], scores) or done, True

    def _count(self, limits: _Limits, nodes: int, seconds: float, cpu_seconds: float) -> None:
        """Adds a compiled call's nodes and time to the search, and corrects the speed."""
        limits.used += nodes
        limits.cpu += cpu_seconds
        self.rate.update(nodes, seconds, cpu_seconds)

    def _clock_rate(self, limits: _Limits) -> float:
        """Returns the nodes expected per second of the clock: the speed estimated or this
        search's own, whichever is higher (a slow call then costs this search little), times
        the share of the processor the thread gets."""
        return max(self.rate.speed, limits.observed_speed()) * self.rate.share

    def _budget(self, limits: _Limits, depth: int) -> int:
        """Returns the node budget of the next call at `depth`: the nodes left, and for a time
        limit BUDGET_SHARE of the nodes that fit in the time left to the search's aimed end
        (:meth:`_clock_rate`); at depth 1 at least FIRST_NODES (a move chosen without a
        search is worse than a late one)."""
        budget = MAX_NODES if limits.nodes is None else limits.nodes - limits.used
        if limits.seconds is not None:
            left = limits.deadline - self.clock()
            in_time = left * self._clock_rate(limits) * BUDGET_SHARE
            in_time = int(min(max(in_time, 0.0), MAX_NODES))
            budget = min(budget, max(in_time, FIRST_NODES if depth == 1 else 0))
        return budget

    def _worth_starting(self, limits: _Limits) -> bool:
        """Returns True if the next iteration should start: always without a time limit,
        else if FIRST_MOVE_SHARE of its predicted nodes (:func:`_next_iteration_nodes`) fit
        in the time left: it will then most likely complete, or at least re-search the
        previous best move and so tell whether another is better."""
        if limits.seconds is None:
            return True
        left = limits.deadline - self.clock()
        nodes = FIRST_MOVE_SHARE * _next_iteration_nodes(limits.iterations)
        return left > 0 and nodes <= left * self._clock_rate(limits)

    def _time_is_left(self, limits: _Limits) -> bool:
        """Returns True if a call cut short by a time budget may run again: nodes are left,
        and time before the search's aimed end (the budget assumed a slower speed)."""
        if limits.seconds is None or (limits.nodes is not None and limits.used >= limits.nodes):
            return False
        return self.clock() < limits.deadline

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
