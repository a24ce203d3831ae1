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
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from damas_env.kernels import M_CAPS, M_CODES, M_CROWN, M_FROM, M_NCAP, M_TO, kernel, name_kernels

name_kernels(__name__, "the learned evaluation")  # the first-compile note

__all__ = [
    "FEATURE_KINDS",
    "SCORE_SCALE",
    "NetWeights",
    "empty_weights",
    "feature_index",
    "full_accumulator",
    "move_accumulator",
    "net_score",
    "net_value",
    "pst_weights",
    "static_net_score",
]

FEATURE_KINDS = 4  # own man, own king, enemy man, enemy king
SCORE_SCALE = 100.0  # centi-men per man: the network's value is in men
MAX_NET_SCORE = 20_000  # a network score is clamped to +-this (below the search's win scores)


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
