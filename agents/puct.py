"""AlphaZero-style PUCT search over hops, batched over many games, behind an Evaluator.

The search never sees a network: it asks an :class:`Evaluator` for priors and values
(OpenSpiel's lesson), so it is tested with deterministic evaluators and trained with any
model that fills the protocol. The tree is built over the compiled turn state
(:mod:`damas_env.turn`), one hop per edge, exactly as the environment plays::

    node  = the turn state after some hops (the start of a turn, or mid-capture);
            it records the colour to move there
    edge  = one legal hop of that colour, with prior P, visits N and value sum W,
            W kept from the view of the node's colour

A capture of several pieces is several edges in a row chosen by the same colour. A value
is backed up by colour, never by depth: across a hop that keeps the same player
(mid-capture) its sign stays, across a hop that passes the turn it flips.

One round of :meth:`BatchedPUCT.search` walks down up to ``batch_leaves`` paths per game
by PUCT (virtual loss spreads the paths of one game), evaluates every new leaf of every
game in ONE evaluator call, expands the leaves and backs their values up. Terminal leaves
take the engine's result and need no evaluation. Nodes keep no turn state: a walk copies
the root state (a few small arrays) and replays its hops.

    from agents.puct import BatchedPUCT, UniformEvaluator, select_action

    search = BatchedPUCT(UniformEvaluator(), simulations=200, seed=0)
    (visits,) = search.search([turn], add_noise=False)
    action = select_action(visits, temperature=0.0, rng=np.random.default_rng(0))
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as np

from damas_env import Colour
from damas_env import kernels as K
from damas_env.encoding import PLANES
from damas_env.rules import Ruleset, get_ruleset
from damas_env.turn import HOP_ILLEGAL, Turn

from .mcts import play_out

__all__ = [
    "BatchedPUCT",
    "Evaluator",
    "PUCTNode",
    "RolloutEvaluator",
    "UniformEvaluator",
    "copy_turn",
    "select_action",
    "terminal_value",
    "uniform_priors",
]

# --- Evaluators -----------------------------------------------------------------------------


@runtime_checkable
class Evaluator(Protocol):
    """What the search asks of a model: priors over hops and values, for a batch of leaves."""

    def evaluate(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Returns (priors (k, A) over the legal hops, values (k,) in [-1, 1]).

        Args:
            observations: float32 planes (k, PLANES, N, N) in the view of the player to move.
            masks: int8 (k, A), 1 for each legal hop.

        Values are from the view of the player to move at each leaf.
        """
        ...


def uniform_priors(masks: np.ndarray) -> np.ndarray:
    """Returns priors spread evenly over the legal hops of each row (zeros where none)."""
    legal = masks.astype(np.float32)
    total = legal.sum(axis=1, keepdims=True)
    return np.divide(legal, total, out=np.zeros_like(legal), where=total > 0)


class UniformEvaluator:
    """Uniform priors and value 0: search guided by terminal results alone."""

    def evaluate(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Returns uniform priors over the legal hops and zero values."""
        return uniform_priors(masks), np.zeros(len(masks), dtype=np.float32)


class RolloutEvaluator:
    """Uniform priors and the value of one random rollout (a baseline without a network).

    The position is read back from the planes in the mover's view and played as White to
    move (the rules are symmetric under the half turn). Mid-capture, the pieces already
    taken are lifted and the mover plays a fresh turn: an approximation, fine for a baseline.

    Args:
        rules: the ruleset (or its name) of the games searched; planes alone do not say it.
        seed: seed of the rollouts' random stream; None draws fresh entropy.
        max_plies: complete moves a rollout plays before it is scored by material.
    """

    def __init__(self, rules: Ruleset | str, seed: int | None = None, max_plies: int = 200):
        self.turn = Turn(get_ruleset(rules) if isinstance(rules, str) else rules)
        self.mask = np.zeros(self.turn.layout.num_actions, dtype=np.int8)
        self.max_plies = max_plies
        start = np.random.default_rng(seed).integers(1, 2**63)
        self._stream = np.array([start], dtype=np.uint64)

    def evaluate(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Returns uniform priors and one rollout's result per leaf, for the player to move."""
        values = np.array([self._value(obs) for obs in observations], dtype=np.float32)
        return uniform_priors(masks), values

    def _value(self, planes: np.ndarray) -> float:
        """Returns a random rollout's value for the mover of the planes."""
        layout = self.turn.layout
        cells = planes[:, layout.row, layout.col]
        board = cells[0] + 2 * cells[1] - cells[2] - 2 * cells[3]
        board[cells[5] > 0] = 0  # pieces taken in the capture in progress
        self.turn.reset(board.astype(np.int8), Colour.WHITE)
        return self._play_out()

    def _play_out(self) -> float:
        """Plays random hops to the end (or max_plies moves); returns White's value."""
        return play_out(self.turn, self.mask, self._stream, self.max_plies)


# --- Tree -----------------------------------------------------------------------------------


class PUCTNode:
    """A search node: the turn state reached by the hops on the path from the root.

    Attributes:
        side: the colour to move here; ``values`` are summed from its view.
        result: the kernels' result code (kernels.ONGOING while the game goes on).
        actions: the legal hops, increasing (empty until expanded, and at terminal nodes).
        priors: the prior of each hop (root priors include Dirichlet noise if asked for).
        visits: simulations through each hop.
        values: sum of the backed-up values of each hop, for ``side``.
        children: the node each hop leads to, None until first walked.
        is_expanded: the evaluator has been asked about this node.
    """

    __slots__ = (
        "side", "result", "actions", "priors", "visits", "values", "children", "is_expanded",
    )  # fmt: skip

    def __init__(self, side: Colour, result: int) -> None:
        self.side = side
        self.result = result
        self.actions = np.zeros(0, dtype=np.int64)
        self.priors = np.zeros(0)
        self.visits = np.zeros(0)
        self.values = np.zeros(0)
        self.children: list[PUCTNode | None] = []
        self.is_expanded = False

    def expand(self, mask: np.ndarray, priors: np.ndarray) -> None:
        """Lists the legal hops of a mask with their priors (renormalised over them)."""
        self.actions = np.flatnonzero(mask)
        p = np.asarray(priors, dtype=np.float64)[self.actions]
        total = p.sum()
        self.priors = p / total if total > 0 else np.full(len(p), 1.0 / max(len(p), 1))
        self.visits = np.zeros(len(self.actions))
        self.values = np.zeros(len(self.actions))
        self.children = [None] * len(self.actions)
        self.is_expanded = True

    def child(self, action: int) -> PUCTNode | None:
        """Returns the node a hop leads to (None if never walked or not legal)."""
        index = np.flatnonzero(self.actions == action)
        return self.children[int(index[0])] if len(index) else None

    def q(self) -> np.ndarray:
        """Returns the mean value of each hop for ``side`` (0 for unvisited hops)."""
        return np.divide(
            self.values, self.visits, out=np.zeros_like(self.values), where=self.visits > 0
        )

    def select(self, c_puct: float) -> int:
        """Returns the index of the hop with the highest Q + U (the first on ties)."""
        n = self.visits
        explore = c_puct * math.sqrt(n.sum() + 1.0)
        score = self.values / (n + (n == 0)) + explore * self.priors / (1.0 + n)  # Q + U
        return int(score.argmax())

    def __repr__(self) -> str:
        visits = int(self.visits.sum())
        return f"PUCTNode(side={self.side.name.lower()}, visits={visits}, result={self.result})"


def terminal_value(node: PUCTNode) -> float:
    """Returns the engine's result of a finished game for the colour to move there."""
    if node.result == K.DRAW:
        return 0.0
    white = 1.0 if node.result == K.WHITE_WINS else -1.0
    return white if node.side == Colour.WHITE else -white


Path = list[tuple[PUCTNode, int]]  # (node, index of the hop taken there), root first


# --- Search ---------------------------------------------------------------------------------


class BatchedPUCT:
    """PUCT search for many games at once; one evaluator call per round for all games.

    Args:
        evaluator: gives priors and values for leaves (see :class:`Evaluator`).
        simulations: leaves walked per game and search (terminal leaves included); the
            root's own evaluation is not counted.
        c_puct: the exploration constant of U = c * P * sqrt(N + 1) / (1 + n).
        dirichlet_alpha: concentration of the root noise.
        dirichlet_fraction: weight of the noise in the root priors.
        virtual_loss: losses (and visits) added along a walk until its leaf is backed up,
            so that the walks of one round spread out.
        batch_leaves: walks per game and round.
        seed: seed of the Dirichlet noise; None draws fresh entropy.

    After a search ``roots`` holds the trees, one per game.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        simulations: int,
        c_puct: float = 1.5,
        dirichlet_alpha: float = 0.3,
        dirichlet_fraction: float = 0.25,
        virtual_loss: float = 1.0,
        batch_leaves: int = 8,
        seed: int | None = None,
    ) -> None:
        if simulations < 1 or batch_leaves < 1:
            raise ValueError(
                f"simulations and batch_leaves must be >= 1: {simulations}, {batch_leaves}"
            )
        self.evaluator = evaluator
        self.simulations, self.c_puct = simulations, c_puct
        self.dirichlet_alpha, self.dirichlet_fraction = dirichlet_alpha, dirichlet_fraction
        self.virtual_loss, self.batch_leaves = virtual_loss, batch_leaves
        self.rng = np.random.default_rng(seed)
        self.roots: list[PUCTNode] = []
        self._states: list[Turn] = []  # private copies of the roots, reused between searches
        self._work: Turn | None = None

    def search(self, turns: list[Turn], add_noise: bool) -> list[np.ndarray]:
        """Returns the root visit distribution over actions of each game (zeros if over).

        The turn states are not changed. All games must share one ruleset.
        """
        if not turns:
            return []
        states = self._copy_roots(turns)
        self.roots = [PUCTNode(s.side, s.result) for s in states]
        self._expand_roots(states, add_noise)
        remaining = [
            self.simulations if r.is_expanded and len(r.actions) else 0 for r in self.roots
        ]
        while any(remaining):
            self._round(states, remaining)
        return [self._distribution(root) for root in self.roots]

    # --- Rounds -----------------------------------------------------------------------------

    def _round(self, states: list[Turn], remaining: list[int]) -> None:
        """Walks up to batch_leaves paths per game, evaluates the new leaves, backs up."""
        obs, masks = self._buffers(len(states))
        pending: list[tuple[Path, PUCTNode]] = []
        for g, state in enumerate(states):
            for _ in range(min(self.batch_leaves, remaining[g])):
                path, leaf = self._descend(self.roots[g], state)
                if leaf.result != K.ONGOING:
                    self._backup(path, leaf.side, terminal_value(leaf))
                elif leaf.is_expanded:  # a leaf already waiting this round: stop this game
                    self._backup(path, leaf.side, 0.0, visit=0.0)
                    break
                else:
                    assert self._work is not None
                    self._work.write_planes(obs[len(pending)], self._work.side)
                    self._work.write_mask(masks[len(pending)])
                    leaf.is_expanded = True  # marked now, expanded after the evaluation
                    pending.append((path, leaf))
                remaining[g] -= 1
        if pending:
            self._evaluate_and_back_up(pending, obs, masks)

    def _evaluate_and_back_up(
        self, pending: list[tuple[Path, PUCTNode]], obs: np.ndarray, masks: np.ndarray
    ) -> None:
        """Evaluates all pending leaves in one call, expands them and backs up their values."""
        k = len(pending)
        priors, values = self.evaluator.evaluate(obs[:k], masks[:k])
        values = np.clip(np.asarray(values, dtype=np.float64), -1.0, 1.0)
        for i, (path, leaf) in enumerate(pending):
            leaf.expand(masks[i], priors[i])
            self._backup(path, leaf.side, float(values[i]))

    def _descend(self, root: PUCTNode, state: Turn) -> tuple[Path, PUCTNode]:
        """Walks from the root by PUCT with virtual loss; returns the path and its leaf.

        The work state ends at the leaf. The leaf is new, terminal, or already waiting for
        its evaluation in this round (``is_expanded`` with no hops listed yet).
        """
        work = self._work_state(state)
        node, path, vl = root, [], self.virtual_loss
        while True:
            i = node.select(self.c_puct)
            node.visits[i] += vl
            node.values[i] -= vl
            path.append((node, i))
            if work.play(int(node.actions[i])) == HOP_ILLEGAL:  # pragma: no cover
                raise RuntimeError(f"search played illegal hop {node.actions[i]}")
            child = node.children[i]
            if child is None:
                child = node.children[i] = PUCTNode(work.side, work.result)
                return path, child
            if child.result != K.ONGOING or not len(child.actions):
                return path, child
            node = child

    def _backup(self, path: Path, leaf_side: Colour, value: float, visit: float = 1.0) -> None:
        """Adds a leaf's value (for leaf_side) along the path and lifts the virtual loss.

        Each edge keeps the value for the colour of the node it leaves: the same sign when
        that colour is leaf_side (a capture going on), the other sign when it is not.
        """
        vl = self.virtual_loss
        for node, i in path:
            node.visits[i] += visit - vl
            node.values[i] += (value if node.side == leaf_side else -value) * visit + vl

    # --- Roots ------------------------------------------------------------------------------

    def _expand_roots(self, states: list[Turn], add_noise: bool) -> None:
        """Evaluates the roots of the games still going in one call; adds the root noise."""
        live = [g for g, s in enumerate(states) if s.result == K.ONGOING]
        if not live:
            return
        obs, masks = self._buffers(len(live))
        for j, g in enumerate(live):
            states[g].write_planes(obs[j], states[g].side)
            states[g].write_mask(masks[j])
        priors, _ = self.evaluator.evaluate(obs[: len(live)], masks[: len(live)])
        for j, g in enumerate(live):
            root = self.roots[g]
            root.expand(masks[j], priors[j])
            if add_noise and len(root.actions):
                self._add_noise(root)

    def _add_noise(self, root: PUCTNode) -> None:
        """Mixes Dirichlet noise into the root priors (AlphaZero's exploration at the root)."""
        noise = self.rng.dirichlet(np.full(len(root.actions), self.dirichlet_alpha))
        f = self.dirichlet_fraction
        root.priors = (1.0 - f) * root.priors + f * noise

    def _copy_roots(self, turns: list[Turn]) -> list[Turn]:
        """Returns private copies of the caller's turn states (write_mask caches in them)."""
        rules = turns[0].rules
        if any(t.rules != rules for t in turns):
            raise ValueError("all games of one search must share a ruleset")
        if self._states and self._states[0].rules != rules:
            self._states, self._work = [], None
        while len(self._states) < len(turns):
            self._states.append(Turn(rules))
        for state, turn in zip(self._states, turns, strict=False):
            copy_turn(state, turn)
        return self._states[: len(turns)]

    def _work_state(self, root: Turn) -> Turn:
        """Returns the shared work state, set to a copy of the root."""
        if self._work is None:
            self._work = Turn(root.rules)
        copy_turn(self._work, root)
        return self._work

    def _buffers(self, games: int) -> tuple[np.ndarray, np.ndarray]:
        """Returns observation and mask buffers for up to batch_leaves leaves per game."""
        assert self._states
        t = self._states[0]
        n, size = games * self.batch_leaves, t.rules.board_size
        obs = np.zeros((n, PLANES, size, size), dtype=np.float32)
        return obs, np.zeros((n, t.layout.num_actions), dtype=np.int8)

    def _distribution(self, root: PUCTNode) -> np.ndarray:
        """Returns the root's visits as a distribution over all actions."""
        assert self._states
        out = np.zeros(self._states[0].layout.num_actions, dtype=np.float32)
        total = root.visits.sum()
        if total > 0:
            out[root.actions] = root.visits / total
        return out


def copy_turn(dst: Turn, src: Turn) -> None:
    """Makes one turn state equal to another (see Turn.copy_from)."""
    dst.copy_from(src)


def select_action(visits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """Returns an action drawn with probability visits ** (1 / temperature) (0: the argmax)."""
    visits = np.asarray(visits, dtype=np.float64)
    if temperature <= 0.0:
        return int(np.argmax(visits))
    scaled = (visits / visits.max()) ** (1.0 / temperature)
    return int(rng.choice(len(visits), p=scaled / scaled.sum()))
