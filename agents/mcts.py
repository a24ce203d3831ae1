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
    Turn,
    direct_call,
    game_value,
    grown,
    play_hop,
    random_action,
    result_of,
    write_mask,
)

from .base import Observation

__all__ = ["MCTSAgent", "Node", "rollout"]

# --- Compiled rollout -----------------------------------------------------------------------


@kernel()
def rollout(s, g, t, mask, scratch, ws, max_plies):
    """Plays random legal hops in game g (from its stream) until the game ends or max_plies
    complete moves are played.

    Returns (status, value for White, complete moves played); status HOP_OVERFLOW means the
    scratch route list was too small (the caller grows it and goes on), else 0.
    """
    plies = 0
    while result_of(s, g) == K.ONGOING and plies < max_plies:
        if write_mask(s, g, t, mask, scratch, ws) < 0:
            return HOP_OVERFLOW, 0.0, plies
        action = random_action(s, g, mask)
        if action < 0:  # never while the game goes on; a guard against an endless loop
            break
        status = play_hop(s, g, t, action, scratch, ws)
        if status == HOP_OVERFLOW:
            return HOP_OVERFLOW, 0.0, plies
        if status == MOVE_DONE:
            plies += 1
    return 0, game_value(s, g, t, K.WHITE), plies


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

    def rollout(self, max_plies: int) -> float:
        """Plays random hops to the end (or max_plies moves); returns the value for White."""
        return play_out(self.turn, self.mask, max_plies)


def play_out(turn: Turn, mask: np.ndarray, max_plies: int) -> float:
    """Plays random hops from a turn state to the end of the game (or `max_plies` moves) with
    the compiled rollout and the turn's random stream; returns the value for White. Grows the
    route list if needed."""
    s, t = turn.states, turn.tables
    while True:
        status, value, plies = direct_call(
            rollout, (), s, 0, t, mask, turn.routes, turn.ws, int(max_plies)
        )
        if status != HOP_OVERFLOW:
            return float(value)
        max_plies -= int(plies)
        turn.routes = grown(turn.routes)


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
        work.turn.states.rng[0] = np.uint64(self._rng.integers(1, 2**63))  # for the rollouts
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
            turn = work.turn
            return float(direct_call(game_value, (), turn.states, 0, turn.tables, K.WHITE))
        return work.rollout(self.rollout_plies)

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
