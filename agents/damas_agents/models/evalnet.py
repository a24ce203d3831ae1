"""The learned evaluation in PyTorch: :class:`EvalNet`, trained by :mod:`damas_agents.training.nnue`
and exported to the compiled search (:mod:`damas_agents.search.nnue`, where the layout is
described) as :class:`~damas_agents.search.nnue.NetWeights`.

    net = EvalNet.for_rules(rules, hidden=64, hidden2=16)   # starts as the classical table
    scores = net.scores(boards, sides)    # centi-men for the side to move, like the search
    weights = net.weights()               # float32 numpy arrays for the search's tables
"""

from __future__ import annotations

import functools

import numpy as np
import torch
from torch import nn

from damas_agents.search.alphabeta import TEMPO, piece_square_table
from damas_agents.search.nnue import (
    FEATURE_KINDS,
    SCORE_SCALE,
    NetWeights,
    pst_weights,
    view_rows,
)
from damas_env.rules import Ruleset

__all__ = ["EvalNet", "features", "other_view"]


@functools.cache
def _rows(squares: int) -> np.ndarray:
    """Returns the search's numbering of the features (:func:`view_rows`), read-only."""
    rows = view_rows(squares)
    rows.setflags(write=False)
    return rows


def features(boards: np.ndarray, sides: np.ndarray) -> np.ndarray:
    """Returns the active features of each board from the side to move's view, as int64
    [N, S] indices into W1's rows (F = 4*S: an empty square), numbered as the search numbers
    them (:func:`~damas_agents.search.nnue.view_rows`: the board turned 180 degrees for
    Black). The other side's view is the same features renumbered (:func:`other_view`).

    Args:
        boards: int8 [N, S] piece codes (White's view, as the engine stores them).
        sides: int [N] the side to move (0: White).
    """
    boards = np.asarray(boards, dtype=np.int64)
    squares = boards.shape[1]
    view = np.asarray(sides, dtype=np.int64)[:, None]
    flat = (boards + 2) * (2 * squares) + 2 * np.arange(squares)[None, :] + view
    index = _rows(squares).ravel()[flat]  # rows[code + 2, square, view], one gather
    return np.where(boards == 0, FEATURE_KINDS * squares, index)


def other_view(squares: int) -> np.ndarray:
    """Returns int64 [4S + 1]: each feature from one side's view as the same piece's feature
    in the other side's view; the empty square F stays F."""
    pieces = _rows(squares)[[0, 1, 3, 4]]  # codes -2, -1, 1, 2 (code + 2): every piece
    other = np.arange(FEATURE_KINDS * squares + 1, dtype=np.int64)
    other[pieces[..., 0].ravel()] = pieces[..., 1].ravel()
    return other


class EvalNet(nn.Module):
    """The evaluation network (shapes in :mod:`damas_agents.search.nnue`).

    Args:
        squares: playable squares of the board (S).
        hidden: H, the accumulator's width (without its piece-square column).
        hidden2: L2, the second layer's width.
        start: weights to start from (float32 numpy, as :meth:`weights` returns).
    """

    other: torch.Tensor  # [4S]: the row of w1 each feature is in the other side's view

    def __init__(
        self, squares: int, hidden: int, hidden2: int, start: NetWeights | None = None
    ) -> None:
        super().__init__()
        self.squares, self.hidden, self.hidden2 = squares, hidden, hidden2
        f = FEATURE_KINDS * squares
        self.w1 = nn.Parameter(torch.zeros(f, hidden + 1))
        self.b1 = nn.Parameter(torch.zeros(hidden + 1))
        self.w2 = nn.Parameter(torch.zeros(hidden2, 2 * hidden))
        self.b2 = nn.Parameter(torch.zeros(hidden2))
        self.w3 = nn.Parameter(torch.zeros(hidden2))
        self.b3 = nn.Parameter(torch.zeros(1))
        # Derived from the squares: kept out of the state dict (and so of checkpoints).
        self.register_buffer("other", torch.as_tensor(other_view(squares)[:f]), persistent=False)
        if start is not None:
            self.load_weights(start)

    @classmethod
    def for_rules(
        cls, rules: Ruleset, hidden: int, hidden2: int, seed: int = 0, zero: bool = False
    ) -> EvalNet:
        """Returns a fresh network: one that evaluates as the classical piece-square table of
        `rules`, or with `zero` one that scores every position 0 (its hidden layers random)."""
        table = piece_square_table(rules) * (0 if zero else 1)
        start = pst_weights(table, 0 if zero else TEMPO, hidden, hidden2, seed)
        return cls(rules.squares, hidden, hidden2, start)

    def load_weights(self, weights: NetWeights) -> None:
        """Copies numpy weights (:meth:`weights`' layout) into the parameters."""
        with torch.no_grad():
            for name, array in weights._asdict().items():
                param = getattr(self, name)
                if tuple(array.shape) != tuple(param.shape):
                    raise ValueError(f"{name} has shape {array.shape}, expected {param.shape}")
                param.copy_(torch.as_tensor(array, dtype=param.dtype))

    def weights(self) -> NetWeights:
        """Returns the weights as float32 numpy arrays for the compiled search."""
        arrays = {
            name: getattr(self, name).detach().cpu().numpy().astype(np.float32).copy()
            for name in NetWeights._fields
        }
        return NetWeights(**arrays)

    def _accumulate(self, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns the accumulators [N, H + 1] of both views, from the side to move's feature
        indices [N, S] (F: none).

        One one-hot matrix times W1 beside W1 renumbered for the other view: the backward pass
        is a matrix product too, several times faster on a CPU than gathering W1's rows and
        scattering their gradients back, and one product for both views halves the calls.
        """
        features = self.w1.shape[0]
        hot = self.w1.new_zeros(index.shape[0], features + 1)
        hot.scatter_(1, index, 1.0)
        both = hot[:, :features] @ torch.cat([self.w1, self.w1[self.other]], dim=1)
        width = self.w1.shape[1]
        return both[:, :width] + self.b1, both[:, width:] + self.b1

    def forward(self, own: torch.Tensor) -> torch.Tensor:
        """Returns the value in men for the side to move, from its view's feature indices
        ([N, S] int64, as :func:`features` gives them)."""
        a, b = self._accumulate(own)
        h = self.hidden
        # Clipped ReLUs as hardtanh, not clamp: the same values, and a backward pass of one
        # kernel where clamp's takes three (a third of a learner's update, timed).
        x = nn.functional.hardtanh(torch.cat([a[:, :h], b[:, :h]], dim=1), 0.0, 1.0)
        y = nn.functional.hardtanh(x @ self.w2.T + self.b2, 0.0, 1.0)
        return y @ self.w3 + self.b3 + (a[:, h] - b[:, h]) * 0.5

    def scores(self, boards: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """Returns the values of boards in centi-men for the side to move (float64, unrounded)."""
        own = features(boards, sides)
        with torch.no_grad():
            value = self(torch.as_tensor(own, device=self.w1.device))
        return value.double().cpu().numpy() * SCORE_SCALE
