"""A learned evaluation for the compiled alpha-beta search: a small NNUE-style network.

One shared first layer reads the board from each side's view; its outputs (the
*accumulators*) are updated move by move. With :class:`NetWeights` (float32)::

    features(p)  4*S one-hot inputs from side p's view: own man, own king, enemy man,
                 enemy king, on each square (the board turned 180 degrees for Black)
    acc(p)       = b1 + sum of w1's rows of the active features   w1 [4S, H + 1], b1 [H + 1]
    x            = clip(acc(stm)[:H], 0, 1) ++ clip(acc(other)[:H], 0, 1)            [2H]
    h            = clip(w2 @ x + b2, 0, 1)                        w2 [L2, 2H], b2 [L2]
    value        = w3 . h + b3 + (acc(stm)[H] - acc(other)[H]) / 2, in men   w3 [L2], b3 [1]
    score        = round(100 * value), in centi-men

w1's last column is a piece-square term, so a fresh network (w3 = 0) is the classical
evaluation. :class:`damas_agents.models.evalnet.EvalNet` is the same arithmetic in PyTorch.

The search computes in integers (:func:`search_weights` gives :class:`SearchWeights`, whose
docstring draws the arithmetic): int16 rows and accumulators, both views side by side in one
row, int32 sums, scales chosen per network so that nothing can overflow and the scores are
the float ones within a few centi-men (tests/test_nnue.py). :func:`pack_network` packs it
with its accumulators for :func:`search_refresh`, :func:`search_advance`, :func:`search_score`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from damas_env.kernels import M_CAPS, M_CODES, M_CROWN, M_FROM, M_NCAP, M_TO, kernel, name_kernels

name_kernels(__name__, "the learned evaluation")  # the first-compile note

__all__ = [
    "ACC_ALIGN",
    "FEATURE_KINDS",
    "SCORE_SCALE",
    "NetWeights",
    "SearchWeights",
    "empty_weights",
    "feature_index",
    "full_accumulator",
    "move_accumulator",
    "net_score",
    "net_value",
    "pack_network",
    "pst_weights",
    "search_advance",
    "search_advance_piece",
    "search_refresh",
    "search_score",
    "search_weights",
    "static_net_score",
    "static_search_score",
    "view_rows",
]

FEATURE_KINDS = 4  # own man, own king, enemy man, enemy king
SCORE_SCALE = 100.0  # centi-men per man: the network's value is in men
CENTI = 100  # SCORE_SCALE as an integer
MAX_NET_SCORE = 20_000  # a network score is clamped to +-this (below the search's win scores)

# The search's layout (SearchWeights).
ACC_ALIGN = 16  # each view's part of an accumulator is a multiple of this wide
INT16_MAX = 2**15 - 1
INT32_MAX = 2**31 - 1
OUT_BITS = 44  # the integer value's unit: 2**-44 men
MAX_ACC_BITS = 13  # 2**a: at most this fine (for a network of tiny weights)
MAX_W2_BITS = 15  # 2**b
MAX_PSQ_BITS = 24  # 2**p
MAX_SUM_BITS = 30  # 2**(a+b), the second layer's 1, fits int32
# SearchWeights.vals: these scalars, then b2 [L2], then w3 [L2].
V_HMAX, V_B3, V_PSQ, V_HALF, V_UNIT = range(5)
V_LEN = 5
# A packed network (pack_network): its vector starts with where things are, then vals.
P_W1, P_W2, P_P1, P_PSQ = range(4)  # first row of w1, of w2 in the matrix; p1, psq in the vector
P_LEN = 4


class NetWeights(NamedTuple):
    """The weights of one evaluation network as float32 numpy arrays (shapes above)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray

    @property
    def hidden(self) -> int:
        """H: the accumulator's width without the piece-square column."""
        return int(self.w1.shape[1]) - 1

    @property
    def squares(self) -> int:
        return int(self.w1.shape[0]) // FEATURE_KINDS

    @property
    def is_empty(self) -> bool:
        """True for :func:`empty_weights`: the search uses its piece-square table."""
        return int(self.w1.shape[0]) == 0


def empty_weights() -> NetWeights:
    """Returns the zero-sized weights that stand for "no network" in a search's tables."""
    f = np.float32
    return NetWeights(
        np.zeros((0, 1), f), np.zeros(1, f), np.zeros((0, 0), f), np.zeros(0, f),
        np.zeros(0, f), np.zeros(1, f),
    )  # fmt: skip


def pst_weights(
    pst: np.ndarray, tempo: int, hidden: int, hidden2: int, seed: int = 0
) -> NetWeights:
    """Returns weights that evaluate exactly as the piece-square table `pst` (int32
    [code + 2, square], White's view, centi-men) plus `tempo` centi-men for the side to move:
    W1's last column holds the table, W2 and W1's other columns small random values, w3 = 0.

    The hidden layers start random, so gradients reach them once w3 moves.
    """
    squares = pst.shape[1]
    rng = np.random.default_rng(seed)
    w1 = np.zeros((FEATURE_KINDS * squares, hidden + 1), dtype=np.float32)
    w1[:, :hidden] = rng.normal(0.0, 0.5 / np.sqrt(8), size=(w1.shape[0], hidden))
    for kind, code in enumerate((1, 2, -1, -2)):  # from White's view: the table itself
        w1[kind * squares : (kind + 1) * squares, hidden] = pst[code + 2] / SCORE_SCALE
    b1 = np.full(hidden + 1, 0.25, dtype=np.float32)
    b1[hidden] = 0.0
    w2 = rng.normal(0.0, 1.0 / np.sqrt(2 * hidden), size=(hidden2, 2 * hidden))
    b2 = np.full(hidden2, 0.1, dtype=np.float32)
    return NetWeights(
        w1, b1, w2.astype(np.float32), b2, np.zeros(hidden2, np.float32),
        np.full(1, tempo / SCORE_SCALE, np.float32),
    )  # fmt: skip


class SearchWeights(NamedTuple):
    """A network in the layout the search computes with (:func:`search_weights`): integers,
    or float32 and float64 where the integer form has int16 and int64 (the reference).

    The arithmetic of a position (side to move `side`)::

        acc          int16 [2A]  b1 + the rows of (code, square) of each piece: White's view, then
                                 Black's
        psq          int64       the piece-square column's sum, White's view minus Black's
        x            = clip(acc, 0, 2**a)                                             int16 [2A]
        h            = clip(w2[side] @ x + b2, 0, 2**(a+b))    int16 weights, int32 sums  [L2]
        value        = b3 + w3 . h +- psq * 2**(43-p), in 2**-44 men                  int64
        score        = floor((100 * value + 2**43) / 2**44), in centi-men (the float rounding)

    The scales 2**a, 2**b, 2**p are the finest at which no accumulator of any board leaves
    int16 and no sum leaves int32 (or int64).

    A = H rounded up to a multiple of ACC_ALIGN, L = L2, S squares; padding is zero::

        w1    int16 [5, S, 2A]    code + 2, square: round(2**a * the piece's row of w1[:, :H])
                                  from White's view, then from Black's (code 0: zeros)
        b1    int16 [2A + 1]      round(2**a * b1[:H]) for each view, then 2**a (the clip's 1)
        p1    int64 [5, S]        code + 2, square: round(2**p * (the piece's piece-square
                                  entry from White's view - from Black's))
        w2    int16 [2, L, 2A]    round(2**b * w2), its columns arranged per side to move so
                                  that w2[side] @ x reads the side to move's view first
        vals  int64 [V_LEN + 2L]  2**(a+b) (the second layer's 1), round(2**44 * b3),
                                  2**(43-p) (psq's weight), 2**43, 2**44 (a man), then
                                  round(2**(a+b) * b2), round(2**(44-a-b) * w3)

    The float form has a = b = p = 0 and 2**44 = 1: the weights themselves.
    """

    w1: np.ndarray
    b1: np.ndarray
    p1: np.ndarray
    w2: np.ndarray
    vals: np.ndarray

    @property
    def is_empty(self) -> bool:
        """True for no network (the piece-square table's search)."""
        return int(self.w1.shape[1]) == 0

    @property
    def width(self) -> int:
        """2A: an accumulator's width (both views)."""
        return int(self.w1.shape[2])

    @property
    def is_integer(self) -> bool:
        """True for the integer form, False for the float reference."""
        return bool(self.w1.dtype == np.int16)


def pack_network(w: SearchWeights, plies: int) -> tuple[np.ndarray, np.ndarray]:
    """Returns a network packed for a search of `plies` plies, with room for its state::

        matrix [plies + 3 + 5S + 2L, 2A]  (w1's type): rows 0 .. plies - 1 the accumulators
                 of each ply, then a scratch row, b1, the clip's 1 (first column), w1's rows
                 by (code + 2) * S + square, w2's rows by side * L + k
        vector [P_LEN + V_LEN + 2L + 5S + plies]  (vals' type): the first rows of w1 and
                 w2 and the offsets of p1 and psq (P_W1 ...), vals, p1 by (code + 2) * S +
                 square, then the piece-square sum of each ply

    Two arrays rather than a tuple of ten: numba hands each array to a kernel as 7 to 11
    machine words, so fewer arrays make the search's tables smaller to pass.
    """
    squares, width, outputs = int(w.w1.shape[1]), w.width, int(w.w2.shape[1])
    w1_row = plies + 3
    w2_row = w1_row + 5 * squares
    matrix = np.zeros((w2_row + 2 * outputs, width), w.w1.dtype)
    matrix[plies + 1] = w.b1[:width]
    matrix[plies + 2, 0] = w.b1[width]
    matrix[w1_row:w2_row] = w.w1.reshape(5 * squares, width)
    matrix[w2_row:] = w.w2.reshape(2 * outputs, width)
    p1 = P_LEN + len(w.vals)
    header = np.array([w1_row, w2_row, p1, p1 + 5 * squares], w.vals.dtype)
    state = np.zeros(plies, w.vals.dtype)
    return matrix, np.concatenate([header, w.vals, w.p1.ravel(), state])


def view_rows(squares: int) -> np.ndarray:
    """Returns the rows of W1 [5, S, 2] that a piece (code + 2, square) activates in White's
    view and in Black's (code 0: row 0, unused): :func:`feature_index` for every piece."""
    rows = np.zeros((5, squares, 2), dtype=np.int64)
    square = np.arange(squares)
    for code in (-2, -1, 1, 2):
        for view in (0, 1):
            seen, on = (code, square) if view == 0 else (-code, squares - 1 - square)
            kind = seen - 1 if seen > 0 else 1 - seen
            rows[code + 2, :, view] = kind * squares + on
    return rows


def _finest(top: int, fits: Callable[[int], bool], what: str) -> int:
    """Returns the largest bits in top..0 for which fits(bits).

    Raises:
        ValueError: none fits (`what` names the weights).
    """
    for bits in range(top, -1, -1):
        if fits(bits):
            return bits
    raise ValueError(f"the network's {what} are too large to compute in integers")


def search_weights(weights: NetWeights, integer: bool = True) -> SearchWeights:
    """Returns a network in the search's layout (:class:`SearchWeights`): quantised, or with
    `integer` False in float32 (the reference). Zero-sized weights give zero-sized ones.

    Each scale is the finest power of two (up to a cap) at which nothing can overflow on any
    board: an accumulator entry is bounded by its bias plus, per square, the largest entry a
    piece there adds, and that must fit int16 (a partial sum of an update may wrap: the
    result is exact); a second-layer sum is bounded by its bias plus 2**a times its row's
    absolute sum, within int32; 100 times the value within int64.

    Raises:
        ValueError: the weights are too large for these integer types.
    """
    squares, hidden = weights.squares, weights.hidden
    width = -(-hidden // ACC_ALIGN) * ACC_ALIGN
    outputs = int(weights.w2.shape[0])
    acc_type, val_type = (np.int16, np.int64) if integer else (np.float32, np.float64)
    if weights.is_empty:
        return SearchWeights(
            np.zeros((5, 0, 0), acc_type), np.zeros(1, acc_type), np.zeros((5, 0), val_type),
            np.zeros((2, 0, 0), acc_type), np.zeros(V_LEN, val_type),
        )  # fmt: skip
    pieces = weights.w1.astype(np.float64)[view_rows(squares)]  # code + 2, square, view, column
    pieces[2] = 0.0
    b1 = weights.b1[:hidden].astype(np.float64)
    w2 = weights.w2.astype(np.float64)
    b2 = weights.b2.astype(np.float64)
    table = pieces[:, :, 0, hidden] - pieces[:, :, 1, hidden]  # White's entry minus Black's
    a = b = p = 0
    unit = 1.0
    if integer:

        def first_fits(bits: int) -> bool:
            rows, bias = np.rint(pieces[..., :hidden] * 2**bits), np.rint(b1 * 2**bits)
            bound = np.abs(bias) + np.abs(rows).max(axis=0).sum(axis=0)
            return bool((bound <= INT16_MAX).all())

        def second_fits(bits: int) -> bool:
            w, bias = np.rint(w2 * 2**bits), np.rint(b2 * 2 ** (a + bits))
            sums = np.abs(bias) + 2**a * np.abs(w).sum(axis=1)
            return (
                a + bits <= MAX_SUM_BITS
                and np.abs(w).max(initial=0) <= INT16_MAX
                and sums.max(initial=0) <= INT32_MAX
            )

        def psq_fits(bits: int) -> bool:
            return np.abs(np.rint(table * 2**bits)).max(axis=0).sum() <= INT32_MAX

        a = _finest(MAX_ACC_BITS, first_fits, "first-layer weights")
        b = _finest(MAX_W2_BITS, second_fits, "second-layer weights")
        p = _finest(MAX_PSQ_BITS, psq_fits, "piece-square weights")
        unit = float(2**OUT_BITS)
        pieces, b1 = np.rint(pieces * 2**a), np.rint(b1 * 2**a)
        w2, b2 = np.rint(w2 * 2**b), np.rint(b2 * 2 ** (a + b))
        table = np.rint(table * 2**p)
    w1 = np.zeros((5, squares, 2 * width), acc_type)
    w1[:, :, :hidden], w1[:, :, width : width + hidden] = (
        pieces[:, :, 0, :hidden],
        pieces[:, :, 1, :hidden],
    )
    bias = np.zeros(2 * width + 1, acc_type)
    bias[:hidden] = bias[width : width + hidden] = b1
    bias[-1] = 2**a
    q2 = np.zeros((2, outputs, 2 * width), acc_type)
    for side, (own, other) in enumerate(((0, width), (width, 0))):
        q2[side, :, own : own + hidden] = w2[:, :hidden]
        q2[side, :, other : other + hidden] = w2[:, hidden:]
    w3 = weights.w3.astype(np.float64) * unit / 2 ** (a + b)
    b3 = weights.b3.astype(np.float64)[:1] * unit
    scalars = [2 ** (a + b), b3[0], unit / 2 / 2**p, unit / 2, unit]
    vals = np.concatenate([scalars, b2, w3])
    if integer:
        vals = np.rint(vals)
        bound = (
            abs(vals[V_B3])
            + np.abs(vals[V_LEN + outputs : V_LEN + 2 * outputs]).sum() * 2 ** (a + b)
            + np.abs(table).max(axis=0).sum() * vals[V_PSQ]
        )
        if not bound * CENTI + vals[V_HALF] < 2**62:
            raise ValueError("the network's values are too large to compute in integers")
    return SearchWeights(w1, bias, table.astype(val_type), q2, vals.astype(val_type))


# --- Kernels -----------------------------------------------------------------------------------


@kernel(inline=True)
def feature_index(view, square, code, squares):
    """Returns the feature of a piece (`code` on `square`) seen from side `view`."""
    if view == 1:
        square = squares - 1 - square
        code = -code
    kind = code - 1 if code > 0 else 1 - code
    return kind * squares + square


@kernel()
def full_accumulator(board, w1, b1, acc):
    """Writes both sides' accumulators of a board into acc [2, H + 1] (from scratch)."""
    squares = board.shape[0]
    width = acc.shape[1]
    for view in range(2):
        a = acc[view]
        for j in range(width):
            a[j] = b1[j]
        for s in range(squares):
            code = board[s]
            if code != 0:
                row = w1[feature_index(view, s, code, squares)]
                for j in range(width):
                    a[j] += row[j]


@kernel(inline=True)
def move_accumulator(board, mv, i, w1, parent, child):
    """Writes into child [2, H + 1] the accumulators after move row i of mv, from the
    parent's; call it before the move is applied to board."""
    squares = board.shape[0]
    width = parent.shape[1]
    origin, dest = mv[i, M_FROM], mv[i, M_TO]
    piece = board[origin]
    placed = 2 * piece if mv[i, M_CROWN] == 1 else piece
    for view in range(2):
        gone = w1[feature_index(view, origin, piece, squares)]
        come = w1[feature_index(view, dest, placed, squares)]
        a, p = child[view], parent[view]
        for j in range(width):
            a[j] = p[j] - gone[j] + come[j]
        for k in range(mv[i, M_NCAP]):
            taken = w1[feature_index(view, mv[i, M_CAPS + k], mv[i, M_CODES + k], squares)]
            for j in range(width):
                a[j] -= taken[j]


@kernel(inline=True)
def net_score(acc, side, w2, b2, w3, b3, x):
    """Returns the network's score (centi-men, side to move's view, rounded and clamped to
    +-MAX_NET_SCORE) from the accumulators acc [2, H + 1]; x [2H] is scratch."""
    score = np.int64(np.floor(net_value(acc, side, w2, b2, w3, b3, x) * SCORE_SCALE + 0.5))
    return max(-MAX_NET_SCORE, min(MAX_NET_SCORE, score))


@kernel(fastmath=True)  # the dot products in SIMD
def net_value(acc, side, w2, b2, w3, b3, x):
    """Returns the network's value in men (float, side to move's view) from the
    accumulators acc [2, H + 1]; x [2H] is scratch."""
    hidden = acc.shape[1] - 1
    own, other = acc[side], acc[1 - side]
    for j in range(hidden):
        x[j] = min(max(own[j], 0.0), 1.0)
        x[hidden + j] = min(max(other[j], 0.0), 1.0)
    value = b3[0] + (own[hidden] - other[hidden]) * 0.5
    for k in range(w2.shape[0]):
        row = w2[k]
        total = b2[k]
        for j in range(2 * hidden):
            total += row[j] * x[j]
        value += w3[k] * min(max(total, 0.0), 1.0)
    return value


@kernel()
def static_net_score(board, side, w1, b1, w2, b2, w3, b3, acc, x):
    """Returns the network's score of a board for `side`, computed from scratch."""
    full_accumulator(board, w1, b1, acc)
    return net_score(acc, side, w2, b2, w3, b3, x)


# --- The second layer's products in SIMD ------------------------------------------------------
#
# numba's loop vectoriser compiles an int16 dot product `sum(row[j] * x[j])` into 128-bit
# multiply-adds whose sums fill half the lanes of its 256-bit accumulators, then sums each row
# across its lanes on its own. The code below is the same sums written as vector operations in
# LLVM's own IR, which each target lowers to its own integer multiply-adds (on x86 pmaddwd, or
# vpdpwssd where the processor has it, 256 bits at a time): four rows at a time share each
# load of x, and their four totals leave the vector registers in one pairwise reduction. The
# sums are exact in int32 either way (search_weights bounds them), so the scores are the same.

SIMD_LANES = 16  # int16 products a step: a multiple of 16 columns goes through the vectors
SIMD_ROWS = 4  # rows a block
# The last reduction leaves SIMD_LANES // 4 lanes, one a row of the block, and stores them all:
# the two move together (a wider step alone would write past h).
assert SIMD_LANES // 4 == SIMD_ROWS


def _hadd(builder: Any, a: Any, b: Any, lanes: int) -> Any:
    """Emits the pairwise sums of a ++ b (`lanes` each): [a0 + a1, a2 + a3, ..., b0 + b1, ...]."""
    even = ir.Constant(ir.VectorType(ir.IntType(32), lanes), [2 * i for i in range(lanes)])
    odd = ir.Constant(ir.VectorType(ir.IntType(32), lanes), [2 * i + 1 for i in range(lanes)])
    return builder.add(builder.shuffle_vector(a, b, even), builder.shuffle_vector(a, b, odd))


def _row_blocks_codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """Emits h[k] = sum over j < 16 * (len(x) // 16) of w[first + k, j] * x[j] for k < 4 * blocks
    (int16 w and x, int32 sums and h; w C-contiguous)."""
    w_type, _, x_type, h_type, _ = signature.args
    w = context.make_array(w_type)(context, builder, args[0])
    x = context.make_array(x_type)(context, builder, args[2])
    h = context.make_array(h_type)(context, builder, args[3])
    first, blocks = args[1], args[4]
    i64, i32 = ir.IntType(64), ir.IntType(32)
    step = ir.VectorType(ir.IntType(16), SIMD_LANES)
    wide = ir.VectorType(i32, SIMD_LANES)
    half = ir.VectorType(i32, SIMD_LANES // 2)
    quarter = ir.VectorType(i32, SIMD_LANES // 4)
    columns = builder.extract_value(w.shape, 1)
    steps = builder.udiv(builder.extract_value(x.shape, 0), i64(SIMD_LANES))
    sums = [cgutils.alloca_once(builder, half) for _ in range(SIMD_ROWS)]
    even = ir.Constant(half, [2 * i for i in range(SIMD_LANES // 2)])
    odd = ir.Constant(half, [2 * i + 1 for i in range(SIMD_LANES // 2)])
    low = ir.Constant(quarter, list(range(SIMD_LANES // 4)))
    high = ir.Constant(quarter, list(range(SIMD_LANES // 4, SIMD_LANES // 2)))
    with cgutils.for_range(builder, blocks) as block:
        k = builder.mul(block.index, i64(SIMD_ROWS))
        rows = [
            builder.gep(w.data, [builder.mul(builder.add(first, builder.add(k, i64(r))), columns)])
            for r in range(SIMD_ROWS)
        ]
        for total in sums:
            builder.store(ir.Constant(half, None), total)
        with cgutils.for_range(builder, steps) as loop:
            column = builder.mul(loop.index, i64(SIMD_LANES))
            pointer = builder.bitcast(builder.gep(x.data, [column]), step.as_pointer())
            xs = builder.sext(builder.load(pointer, align=2), wide)
            for row, total in zip(rows, sums, strict=True):
                pointer = builder.bitcast(builder.gep(row, [column]), step.as_pointer())
                products = builder.mul(builder.sext(builder.load(pointer, align=2), wide), xs)
                pairs = builder.add(
                    builder.shuffle_vector(products, products, even),
                    builder.shuffle_vector(products, products, odd),
                )
                builder.store(builder.add(builder.load(total), pairs), total)
        halves = []
        for total in sums:
            value = builder.load(total)
            halves.append(
                builder.add(
                    builder.shuffle_vector(value, value, low),
                    builder.shuffle_vector(value, value, high),
                )
            )
        lanes = SIMD_LANES // 4
        four = _hadd(builder, _hadd(builder, halves[0], halves[1], lanes),
                     _hadd(builder, halves[2], halves[3], lanes), lanes)  # fmt: skip
        out = builder.bitcast(builder.gep(h.data, [k]), quarter.as_pointer())
        builder.store(four, out, align=4)
    return context.get_dummy_value()


@intrinsic
def _row_blocks(typingctx: Any, w: Any, first: Any, x: Any, h: Any, blocks: Any) -> Any:
    """The products of blocks of four rows of w with x into h (:func:`_row_blocks_codegen`)."""
    return types.void(w, types.int64, x, h, types.int64), _row_blocks_codegen


def layer_products(w: np.ndarray, first: int, x: np.ndarray, h: np.ndarray) -> None:
    """Writes h[k] = w[first + k] . x for each k < len(h), rows as long as x.

    In compiled kernels, int16 rows and x with int32 h go through the vectors (above); the float
    reference sums in a loop. This plain-Python form runs under ``NUMBA_DISABLE_JIT``.
    """
    rows = w[first : first + h.shape[0], : x.shape[0]]
    if h.dtype == np.int32:
        h[:] = rows.astype(np.int64) @ x.astype(np.int64)  # exact, as the int32 sums are
    else:
        h[:] = rows @ x


def _is_int16_c(array: Any) -> bool:
    return isinstance(array, types.Array) and array.dtype == types.int16 and array.layout == "C"


_OVERLOAD_OPTIONS: Any = {"fastmath": True, "_nrt": False}  # as kernel(fastmath=True)


@overload(layer_products, jit_options=_OVERLOAD_OPTIONS)
def _layer_products(w, first, x, h):  # type: ignore[no-untyped-def]  # numba matches names
    if _is_int16_c(w) and _is_int16_c(x) and h.dtype == types.int32 and h.layout == "C":

        def vectors(w, first, x, h):  # type: ignore[no-untyped-def]
            outputs, n = h.shape[0], x.shape[0]
            blocks, done = outputs // SIMD_ROWS, n - n % SIMD_LANES
            first = np.int64(first)
            _row_blocks(w, first, x, h, np.int64(blocks))
            for k in range(SIMD_ROWS * blocks, outputs):  # rows past the last block
                row, total = w[first + k], 0
                for j in range(n):
                    total += row[j] * x[j]
                h[k] = total
            if done < n:  # columns past the last step, for the blocks' rows
                for k in range(SIMD_ROWS * blocks):
                    row, total = w[first + k], h[k]
                    for j in range(done, n):
                        total += row[j] * x[j]
                    h[k] = total

        return vectors

    def loops(w, first, x, h):  # type: ignore[no-untyped-def]
        for k in range(h.shape[0]):
            row, total = w[first + k], 0
            for j in range(x.shape[0]):
                total += row[j] * x[j]
            h[k] = total

    return loops


# --- Kernels of a packed network (pack_network), integer or float ------------------------------


@kernel()
def search_refresh(board, net, vec, ply):
    """Writes the accumulator and piece-square sum of ply from a board (from scratch)."""
    squares = board.shape[0]
    w1, p1 = np.int64(vec[P_W1]), np.int64(vec[P_P1])
    a, b1 = net[ply], net[w1 - 2]
    for j in range(a.shape[0]):
        a[j] = b1[j]
    total = vec[p1 + 2 * squares]  # zero (code 0), of vec's type
    for s in range(squares):
        code = board[s]
        if code != 0:
            row = net[w1 + (code + 2) * squares + s]
            for j in range(a.shape[0]):
                a[j] += row[j]
            total += vec[p1 + (code + 2) * squares + s]
    vec[np.int64(vec[P_PSQ]) + ply] = total


@kernel()
def search_advance(board, mv, i, net, vec, ply):
    """Writes the accumulator and piece-square sum of ply + 1, the position's after move row i
    of mv, from those of ply; call it before the move is applied to board."""
    piece, squares = np.int64(board[mv[i, M_FROM]]), np.int64(board.shape[0])
    search_advance_piece(piece, squares, mv, i, net, vec, ply)


@kernel()
def search_advance_piece(piece, squares, mv, i, net, vec, ply):
    """:func:`search_advance` for a board of `squares` squares whose move row i of mv moves
    `piece` (its code before the move): the board itself is not read, so the update can be
    made later, once the board has moved on (the search's lazy accumulators)."""
    w1, p1, psq = np.int64(vec[P_W1]), np.int64(vec[P_P1]), np.int64(vec[P_PSQ])
    parent, child = net[ply], net[ply + 1]
    origin, dest = mv[i, M_FROM], mv[i, M_TO]
    placed = 2 * piece if mv[i, M_CROWN] == 1 else piece
    gone = (piece + 2) * squares + origin
    come = (placed + 2) * squares + dest
    a, b = net[w1 + gone], net[w1 + come]
    for j in range(child.shape[0]):
        child[j] = parent[j] - a[j] + b[j]
    total = vec[psq + ply] + vec[p1 + come] - vec[p1 + gone]
    for k in range(mv[i, M_NCAP]):
        taken = (mv[i, M_CODES + k] + 2) * squares + mv[i, M_CAPS + k]
        row = net[w1 + taken]
        for j in range(child.shape[0]):
            child[j] -= row[j]
        total -= vec[p1 + taken]
    vec[psq + ply + 1] = total


@kernel(fastmath=True)  # the float reference's sums in SIMD; the integer ones are exact
def search_score(net, vec, h, ply, side):
    """Returns the network's score (centi-men, side to move's view, clamped to
    +-MAX_NET_SCORE) from the accumulator and piece-square sum of ply; h [L2] is scratch."""
    w1, w2 = np.int64(vec[P_W1]), np.int64(vec[P_W2])
    a, x, top = net[ply], net[w1 - 3], net[w1 - 1, 0]
    zero = top - top
    for j in range(a.shape[0]):  # clipped ReLU: int16 lanes
        v = a[j]
        x[j] = top if v > top else (zero if v < zero else v)
    outputs = h.shape[0]
    layer_products(net, w2 + side * outputs, x, h)  # int16 products, int32 sums; b2 below
    vals = P_LEN
    psq = vec[np.int64(vec[P_PSQ]) + ply]
    value = vec[vals + V_B3] + (psq if side == 0 else -psq) * vec[vals + V_PSQ]
    h_max = vec[vals + V_HMAX]
    for k in range(outputs):
        out = min(max(h[k] + vec[vals + V_LEN + k], 0), h_max)
        value += out * vec[vals + V_LEN + outputs + k]
    score = np.int64((value * CENTI + vec[vals + V_HALF]) // vec[vals + V_UNIT])
    return max(-MAX_NET_SCORE, min(MAX_NET_SCORE, score))


@kernel()
def static_search_score(board, side, net, vec, h):
    """Returns a packed network's score of a board for `side` (from scratch, at ply 0)."""
    ply = np.int64(0)
    search_refresh(board, net, vec, ply)
    return search_score(net, vec, h, ply, side)
