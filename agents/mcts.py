"""Monte Carlo tree search: UCT with random rollouts, one hop per edge.

The tree is built over the compiled turn state (:mod:`damas_env.turn`), so the search sees
exactly the hops the environment allows and never decides legality itself::

    node  = the turn state after some hops (the start of a turn, or mid-capture)
    edge  = one legal hop action of the side to move there
    value = kept by each node from the view of the colour that chose the edge into it

A capture of several pieces is several edges in a row chosen by the same colour, so a
parent and its child may belong to one player: values are backed up by the colour stored
at each node, never by alternating signs with depth.

A simulation copies the root state into a work state (a few small arrays), walks down the
tree by UCT, adds one child, then plays uniformly random hops to the end of the game or for
``rollout_plies`` complete moves in one compiled call (:func:`rollout`). The value is
+1/-1/0 for White from the engine's result (giveaway rulesets are already inverted there);
a rollout cut short scores the sign of the material balance (a man 1, a king 2; reversed
under giveaway rules), or 0 when it is even.

    from agents.mcts import MCTSAgent

    agent = MCTSAgent(sims=400, seed=0)
    action = agent.act(observation, position, hops)

Speed (one core, start position, full rollouts): about 17,000 simulations/s on English and
10,000 on International; the tree walk alone (``rollout_plies=0``) runs about 50,000/s.

The agent sees only the position at the start of the turn: the draw counters and the
repetition history of the game so far are not known to the search (they start afresh at
the root).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from damas_env import Colour, Position
from damas_env import kernels as K
from damas_env.kernels import kernel
from damas_env.rules import Ruleset
from damas_env.turn import (
    HOP_ILLEGAL,
    HOP_OVERFLOW,
    MOVE_DONE,
    T_NLEGAL,
    T_RESULT,
    Turn,
    play_hop,
    write_mask,
)

from .base import Observation

__all__ = ["MCTSAgent", "Node", "rollout"]

# --- Compiled rollout -----------------------------------------------------------------------


@kernel(inline=True)
def _next_random(rng):
    """Returns the next number of an xorshift64* stream kept in rng[0]."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@kernel()
def _random_legal(st, legal, mask, rng):
    """Returns a uniformly random legal hop from the list write_mask made (or the mask)."""
    n = st[T_NLEGAL]
    if n > 0:
        return legal[np.int64(_next_random(rng) % np.uint64(n))]
    count = 0  # more hops than the list holds: count them in the mask
    for a in range(mask.shape[0]):
        count += mask[a]
    pick = np.int64(_next_random(rng) % np.uint64(max(count, 1)))
    for a in range(mask.shape[0]):
        if mask[a] == 1:
            if pick == 0:
                return a
            pick -= 1
    return -1


@kernel()
def white_value(board, st, rules):
    """Returns the game's value for White: the result if it ended, else the material sign.

    Material counts the piece codes (a man 1, a king 2); under giveaway rules having less is
    better, so the sign turns.
    """
    result = st[T_RESULT]
    if result == K.WHITE_WINS:
        return 1.0
    if result == K.BLACK_WINS:
        return -1.0
    if result == K.DRAW:
        return 0.0
    balance = 0
    for s in range(board.shape[0]):
        balance += board[s]
    if rules[K.R_GIVEAWAY] == 1:
        balance = -balance
    return 1.0 if balance > 0 else (-1.0 if balance < 0 else 0.0)


@kernel()
def rollout(
    board, st, hist, cur, last, cache, legal, mask, action_of, keys, side_key, ray, rules,
    scratch, ws, rng, max_plies,
):  # fmt: skip
    """Plays random legal hops until the game ends or max_plies complete moves are played.

    Returns (status, value for White, complete moves played); status HOP_OVERFLOW means the
    scratch route list was too small (the caller grows it and goes on), else 0.
    """
    plies = 0
    while st[T_RESULT] == K.ONGOING and plies < max_plies:
        if write_mask(board, st, cur, cache, legal, mask, action_of, ray, rules, scratch, ws) < 0:
            return HOP_OVERFLOW, 0.0, plies
        action = _random_legal(st, legal, mask, rng)
        if action < 0:  # never while the game goes on; a guard against an endless loop
            break
        status = play_hop(
            board, st, hist, cur, last, cache, action, action_of, keys, side_key, ray, rules,
            scratch, ws,
        )  # fmt: skip
        if status == HOP_OVERFLOW:
            return HOP_OVERFLOW, 0.0, plies
        if status == MOVE_DONE:
            plies += 1
    return 0, white_value(board, st, rules), plies


# --- Search state ---------------------------------------------------------------------------


class _SearchState:
    """A turn state that can be copied cheaply: the root, or the work copy of a simulation."""

    def __init__(self, rules: Ruleset) -> None:
        self.turn = Turn(rules)
        self.mask = np.zeros(self.turn.layout.num_actions, dtype=np.int8)

    def copy_from(self, other: _SearchState) -> None:
        """Makes this state equal to another (the listed routes travel with it)."""
        self.turn.copy_from(other.turn)

    def legal_actions(self) -> list[int]:
        """Returns the legal next hops, in increasing order."""
        self.turn.write_mask(self.mask)
        return np.flatnonzero(self.mask).tolist()

    def rollout(self, max_plies: int, rng: np.ndarray) -> float:
        """Plays random hops to the end (or max_plies moves); returns the value for White."""
        return play_out(self.turn, self.mask, rng, max_plies)


def play_out(turn: Turn, mask: np.ndarray, rng: np.ndarray, max_plies: int) -> float:
    """Plays random hops from a turn state to the end of the game (or `max_plies` moves) with
    the compiled rollout; returns the value for White. Grows the route list if needed."""
    e = turn.engine
    while True:
        status, value, plies = rollout(
            turn.board, turn.st, turn.hist, turn.cur, turn.last, turn.cache, turn.legal, mask,
            turn.layout.action_of, e.zobrist, e.side_key, e.ray, e.rule_array, turn.routes,
            e.workspace, rng, max_plies,
        )  # fmt: skip
        if status != HOP_OVERFLOW:
            return float(value)
        max_plies -= int(plies)
        turn.routes = K.new_move_buffer(4 * turn.routes.shape[0])  # many flying kings


# --- Tree -----------------------------------------------------------------------------------


class Node:
    """A search node: the turn state reached by the hops on the path from the root.

    Attributes:
        mover: the colour that chose the hop into this node (None at the root); ``value``
            is summed from its point of view.
        action: the hop into this node (-1 at the root).
        visits: simulations through this node.
        value: sum of the simulation values for ``mover``.
        children: expanded children by hop action.
        untried: legal hops not expanded yet (None until the node is first expanded).
        result: the kernels' result code of the state (kernels.ONGOING while it goes on).
    """

    __slots__ = ("mover", "action", "visits", "value", "children", "untried", "result")

    def __init__(self, mover: Colour | None, action: int, result: int) -> None:
        self.mover = mover
        self.action = action
        self.visits = 0
        self.value = 0.0
        self.children: dict[int, Node] = {}
        self.untried: list[int] | None = None
        self.result = result

    @property
    def mean(self) -> float:
        """Returns the mean value for ``mover`` (0 before the first visit)."""
        return self.value / self.visits if self.visits else 0.0

    def best_child(self) -> Node:
        """Returns the most visited child (the better mean, then the lower action, on ties)."""
        return max(self.children.values(), key=lambda n: (n.visits, n.mean, -n.action))

    def __repr__(self) -> str:
        mover = self.mover.name.lower() if self.mover is not None else "-"
        stats = f"visits={self.visits}, mean={self.mean:+.3f}"
        return f"Node(action={self.action}, mover={mover}, {stats})"


class MCTSAgent:
    """UCT over hops with random rollouts; plays the most visited hop.

    Args:
        sims: simulations per decision.
        c: the UCT exploration constant.
        seed: seed of the tree's tie-breaks and of the rollouts; the same seed plays the
            same games (``reset`` restarts the stream). None draws fresh entropy.
        rollout_plies: complete moves a rollout plays before it is scored by material.
    """

    def __init__(
        self, sims: int = 400, c: float = 1.4, seed: int | None = None, rollout_plies: int = 200
    ) -> None:
        if sims < 1:
            raise ValueError(f"sims must be at least 1, not {sims}")
        if not (math.isfinite(c) and c >= 0):
            raise ValueError(f"c must be a finite number >= 0, not {c}")
        if rollout_plies < 0:
            raise ValueError(f"rollout_plies must be >= 0, not {rollout_plies}")
        self.sims, self.c, self.seed, self.rollout_plies = sims, c, seed, rollout_plies
        self.name = f"mcts:sims={sims}"
        self._states: dict[Ruleset, tuple[_SearchState, _SearchState]] = {}
        self.reset()

    def reset(self) -> None:
        """Restarts the random stream from the seed (games replay for a seed)."""
        self._rng = np.random.default_rng(self.seed)
        self._stream = np.ones(1, dtype=np.uint64)  # the rollouts' xorshift state

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the most visited hop after ``sims`` simulations (at once if only one).

        Raises:
            ValueError: no position was given, or ``hops`` are not legal hops in it.
        """
        if position is None:
            raise ValueError(f"{self.name} needs the engine position: act(obs, position, hops)")
        root = self._root_state(position, hops)
        actions = root.legal_actions()
        if not actions:
            raise ValueError(f"{self.name}: no legal hop (the game is over)")
        if len(actions) == 1:
            return int(actions[0])
        return self._search(root).best_child().action

    def search(self, position: Position, hops: Sequence[int] = ()) -> Node:
        """Returns the root of the tree grown by ``sims`` simulations from a position (after
        the hops already played this turn)."""
        return self._search(self._root_state(position, hops))

    def _search(self, root_state: _SearchState) -> Node:
        """Returns the root of a tree grown by ``sims`` simulations from a root state."""
        work = self._states[root_state.turn.rules][1]
        root = Node(None, -1, root_state.turn.result)
        self._stream[0] = np.uint64(self._rng.integers(1, 2**63))
        for _ in range(self.sims):
            work.copy_from(root_state)
            path = self._descend(root, work)
            value = self._evaluate(path[-1], work)
            for node in path:
                node.visits += 1
                node.value += value if node.mover == Colour.WHITE else -value
        return root

    # --- One simulation ---------------------------------------------------------------------

    def _descend(self, root: Node, work: _SearchState) -> list[Node]:
        """Walks down by UCT and adds one child; returns the path (root first)."""
        node, path = root, [root]
        while node.result == K.ONGOING:
            if node.untried is None:
                node.untried = work.legal_actions()
                self._rng.shuffle(node.untried)
            if node.untried:
                return [*path, self._expand(node, work)]
            node = self._select(node)
            self._play(work, node.action)
            path.append(node)
        return path

    def _expand(self, node: Node, work: _SearchState) -> Node:
        """Plays an untried hop of node in the work state; returns the new child."""
        assert node.untried is not None
        action = node.untried.pop()
        mover = work.turn.side
        self._play(work, action)
        child = Node(mover, action, work.turn.result)
        node.children[action] = child
        return child

    def _select(self, node: Node) -> Node:
        """Returns the child with the highest UCT score (mean + c * sqrt(ln N / n))."""
        log_n = math.log(node.visits)
        best, best_score = None, -math.inf
        for child in node.children.values():
            score = child.value / child.visits + self.c * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        assert best is not None
        return best

    def _evaluate(self, leaf: Node, work: _SearchState) -> float:
        """Returns the leaf's value for White: its result, or a random rollout's."""
        if leaf.result != K.ONGOING:
            return float(white_value(work.turn.board, work.turn.st, work.turn.engine.rule_array))
        return work.rollout(self.rollout_plies, self._stream)

    @staticmethod
    def _play(work: _SearchState, action: int) -> None:
        if work.turn.play(action) == HOP_ILLEGAL:  # pragma: no cover - the tree lists legal hops
            raise RuntimeError(f"search played illegal hop {action}")

    # --- Root -------------------------------------------------------------------------------

    def _root_state(self, position: Position, hops: Sequence[int]) -> _SearchState:
        """Returns the turn state of a position after the hops already played this turn."""
        if position.rules not in self._states:
            self._states[position.rules] = (
                _SearchState(position.rules),
                _SearchState(position.rules),
            )
        state = self._states[position.rules][0]
        state.turn.reset(position.board, position.turn)
        for hop in hops:
            if state.turn.play(int(hop)) == HOP_ILLEGAL:
                raise ValueError(
                    f"{self.name}: hop {hop} of {list(hops)} is illegal in {position!r}"
                )
        return state
