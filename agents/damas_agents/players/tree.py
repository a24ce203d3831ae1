"""One tree search over hops, batched over many games: PUCT behind an Evaluator, or UCT with
random rollouts.

    search = BatchedPUCT(UniformEvaluator(), simulations=200, seed=0)
    (visits,) = search.search([turn], add_noise=False)
    action = select_action(visits, temperature=0.0, rng=np.random.default_rng(0))
    agent = MCTSAgent(sims=400, seed=0)     # the mcts:sims=N player: UCT with random rollouts

The search asks an :class:`Evaluator` for priors and values, never a network, or plays
random rollouts itself (:class:`RolloutEvaluator`). Nodes are turn states
(:mod:`damas_env.turn`) and edges single hops; values are backed up by colour. Each round
evaluates the new leaves of every game in one call. The trees live in compiled flat arrays
(layout above ``N_LEN``); :attr:`BatchedPUCT.roots` gives read-only views. A round runs
without Python's global lock in slices of walks, and a set
:class:`~damas_agents.search.alphabeta.Halt` ends a search after its slice in progress.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from damas_agents.players.base import Observation
from damas_agents.search.alphabeta import Halt
from damas_env import Colour, Position
from damas_env import kernels as K
from damas_env.encoding import action_layout, planes_for
from damas_env.kernels import kernel
from damas_env.rules import Ruleset
from damas_env.turn import (
    HOP_ILLEGAL,
    HOP_OVERFLOW,
    MOVE_DONE,
    States,
    Turn,
    copy_game,
    direct_call,
    game_value,
    grown,
    new_states,
    next_random,
    play_hop,
    random_action,
    result_of,
    result_value,
    side_of,
    tables,
    write_mask,
    write_planes,
)

K.name_kernels(__name__, "the tree search")  # the first-compile note

__all__ = [
    "BatchedPUCT",
    "Evaluator",
    "MCTSAgent",
    "PUCTNode",
    "RolloutEvaluator",
    "UniformEvaluator",
    "select_action",
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
            observations: float32 planes (k, P, N, N) in the view of the player to move, P
                the ruleset's planes (:func:`damas_env.encoding.planes_for`).
            masks: int8 (k, A), 1 for each legal hop.

        Values are from the view of the player to move at each leaf. The arrays passed are
        the search's buffers, rewritten in the next round: copy what you keep.
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
    """Uniform priors and the value of one uniformly random rollout from each leaf.

    Not an :class:`Evaluator`: the search recognises it and runs the rollouts itself, inside
    its compiled walk, from each leaf's turn state (no planes, no Python call per leaf) and
    with its own random stream. A rollout plays random legal hops to the end of the game or
    for ``max_plies`` complete moves; it scores the result, else the sign of the material
    balance (:func:`damas_env.turn.game_value`: a man 1, a king 2; under giveaway rules
    having less is better), for the player to move at the leaf.

    Args:
        max_plies: complete moves a rollout plays before it is scored by material (0: the
            leaf is scored at once).
    """

    def __init__(self, max_plies: int = 200) -> None:
        if max_plies < 0:
            raise ValueError(f"max_plies must be >= 0, not {max_plies}")
        self.max_plies = max_plies


# --- Compiled tree --------------------------------------------------------------------------
# The tree of one search lives in three arrays (see the module docstring):
#   nodes   int64[nodes, N_LEN]     side, result, state, first edge, edges, parent, parent edge
#   edge_i  int64[edges, EI_LEN]    hop action, child node (-1 until walked), pending walks
#   edge_f  float64[edges, EF_LEN]  prior, visits, value sum (for the colour of the edge's node)
# and used int64[2] counts the nodes and edges taken. The kernels take them as one tuple.

N_SIDE, N_RESULT, N_STATE, N_FIRST, N_COUNT, N_PARENT, N_EDGE = range(7)
N_LEN = 7
EI_ACTION, EI_CHILD, EI_PENDING = range(3)
EI_LEN = 3
EF_PRIOR, EF_VISITS, EF_VALUE = range(3)
EF_LEN = 3
#: Node states: created but never evaluated (a terminal leaf), waiting for its evaluation in
#: this round, expanded (its hops listed with their priors).
NEW, PENDING, EXPANDED = 0, 1, 2
WALK_OK = 0  # _walk_round finished the round (else HOP_OVERFLOW, EDGES_FULL or HOP_ILLEGAL)
WALK_SLICED = 1  # _walk_round walked its slice of the round: call it again to go on
EDGES_FULL = -3  # a leaf expanded in the walk needs more edges than the arrays hold
#: Selection rules (BatchedPUCT's ``selection``).
PUCT, UCT = 0, 1
SELECTIONS = {"puct": PUCT, "uct": UCT}


@kernel(inline="ir")
def _new_node(nodes, used, side, result, state, parent, edge):
    """Takes the next free node; returns its index."""
    n = used[0]
    used[0] = n + 1
    nodes[n, N_SIDE] = side
    nodes[n, N_RESULT] = result
    nodes[n, N_STATE] = state
    nodes[n, N_FIRST] = 0
    nodes[n, N_COUNT] = 0
    nodes[n, N_PARENT] = parent
    nodes[n, N_EDGE] = edge
    return n


@kernel()
def _init_roots(nodes, used, roots, games):
    """Makes nodes 0..games-1 the roots of the games (from their turn states); no edges."""
    used[0] = 0
    used[1] = 0
    for g in range(games):
        _new_node(nodes, used, side_of(roots, g), result_of(roots, g), NEW, -1, -1)


@kernel()
def _select(nodes, edge_i, edge_f, node, c_puct, vl):
    """Returns the edge of `node` with the highest Q + U (the first on ties).

    Pending walks count as ``vl`` visits that lost (virtual loss).
    """
    first = nodes[node, N_FIRST]
    end = first + nodes[node, N_COUNT]
    total = 0.0
    for e in range(first, end):
        total += edge_f[e, EF_VISITS] + vl * edge_i[e, EI_PENDING]
    explore = c_puct * math.sqrt(total + 1.0)
    best, best_score = first, -math.inf
    for e in range(first, end):
        n = edge_f[e, EF_VISITS] + vl * edge_i[e, EI_PENDING]
        w = edge_f[e, EF_VALUE] - vl * edge_i[e, EI_PENDING]
        score = w / (n if n != 0.0 else 1.0) + explore * edge_f[e, EF_PRIOR] / (1.0 + n)
        if score > best_score:
            best, best_score = e, score
    return best


@kernel()
def _select_uct(nodes, edge_i, edge_f, node, c, vl, rng):
    """Returns the edge of `node` to walk by UCB1: an edge never walked if there is one (a
    random one, from the stream rng[0]), else the highest Q + c * sqrt(ln N / n) (the first
    on ties), N the walks through the node: its edges' and, below the root, the walk that
    added it.

    Pending walks count as ``vl`` visits that lost (virtual loss).
    """
    first = nodes[node, N_FIRST]
    end = first + nodes[node, N_COUNT]
    total, untried = 0.0, 0
    for e in range(first, end):
        n = edge_f[e, EF_VISITS] + vl * edge_i[e, EI_PENDING]
        total += n
        if n == 0.0:
            untried += 1
    if untried > 0:
        pick = np.int64(next_random(rng, 0) % np.uint64(untried))
        for e in range(first, end):
            if edge_f[e, EF_VISITS] + vl * edge_i[e, EI_PENDING] == 0.0:
                if pick == 0:
                    return e
                pick -= 1
    if nodes[node, N_PARENT] >= 0:
        total += 1.0
    log_n = math.log(total)
    best, best_score = first, -math.inf
    for e in range(first, end):
        n = edge_f[e, EF_VISITS] + vl * edge_i[e, EI_PENDING]
        w = edge_f[e, EF_VALUE] - vl * edge_i[e, EI_PENDING]
        score = w / n + c * math.sqrt(log_n / n)
        if score > best_score:
            best, best_score = e, score
    return best


@kernel()
def _back_up(nodes, edge_i, edge_f, node, side, value, visit):
    """Walks from `node` up to its root: lifts one pending walk from each edge and, if
    `visit`, adds a visit and `value` (for `side`) there, signed by the colour of the node
    the edge leaves: the same sign for `side` (a capture going on), the other sign if not."""
    while nodes[node, N_PARENT] >= 0:
        e = nodes[node, N_EDGE]
        parent = nodes[node, N_PARENT]
        edge_i[e, EI_PENDING] -= 1
        if visit:
            edge_f[e, EF_VISITS] += 1.0
            edge_f[e, EF_VALUE] += value if nodes[parent, N_SIDE] == side else -value
        node = parent


@kernel(inline="ir")
def _write_edges(edge_i, edge_f, first, mask):
    """Writes one edge per legal hop of `mask` from edge `first` on, in increasing action
    order, never walked, prior 0; returns their count (the caller checked the room)."""
    count = 0
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            e = first + count
            edge_i[e, EI_ACTION] = a
            edge_i[e, EI_CHILD] = -1
            edge_i[e, EI_PENDING] = 0
            edge_f[e, EF_PRIOR] = 0.0
            edge_f[e, EF_VISITS] = 0.0
            edge_f[e, EF_VALUE] = 0.0
            count += 1
    return count


@kernel(inline="ir")
def _spread_priors(edge_f, first, count):
    """Renormalises the priors of `count` edges from `first` on to sum to 1 (uniform where
    they sum to 0)."""
    total = 0.0
    for e in range(first, first + count):
        total += edge_f[e, EF_PRIOR]
    for e in range(first, first + count):
        if total > 0:
            edge_f[e, EF_PRIOR] = edge_f[e, EF_PRIOR] / total
        else:
            edge_f[e, EF_PRIOR] = 1.0 / count


@kernel()
def _rollout(s, g, t, mask, scratch, ws, max_plies):
    """Plays uniformly random legal hops in game g (from its stream) until the game ends or
    `max_plies` complete moves are played; returns HOP_OVERFLOW if the scratch route list
    was too small (the game is left part-played), else 0."""
    plies = 0
    while result_of(s, g) == K.ONGOING and plies < max_plies:
        if write_mask(s, g, t, mask, scratch, ws) < 0:
            return HOP_OVERFLOW
        action = random_action(s, g, mask)
        if action < 0:  # never while the game goes on; a guard against an endless loop
            break
        status = play_hop(s, g, t, action, scratch, ws)
        if status == HOP_OVERFLOW:
            return HOP_OVERFLOW
        if status == MOVE_DONE:
            plies += 1
    return 0


@kernel()
def _roll_out_leaf(tree, work, t, mask, scratch, ws, max_plies):
    """Evaluates the new leaf in the work state (game 0), its legal hops in `mask`: writes
    their edges after the edges in use, uniform priors, without taking them, then plays a
    random rollout from it (:func:`_rollout`).

    Returns (status, edges written, the rollout's value for the colour to move at the
    leaf); status WALK_OK, EDGES_FULL (nothing written) or HOP_OVERFLOW.
    """
    nodes, edge_i, edge_f, used = tree
    first, count = used[1], 0
    for a in range(mask.shape[0]):
        count += mask[a]
    if first + count > edge_i.shape[0]:
        return EDGES_FULL, 0, 0.0
    _write_edges(edge_i, edge_f, first, mask)
    _spread_priors(edge_f, first, count)
    side = side_of(work, 0)
    if _rollout(work, np.int64(0), t, mask, scratch, ws, max_plies) < 0:
        return HOP_OVERFLOW, 0, 0.0
    return WALK_OK, count, game_value(work, np.int64(0), t, side)


@kernel()
def _encode_roots(roots, live, obs, masks, t, scratch, ws):
    """Writes the planes and mask of each live game's root into obs[j], masks[j]; returns
    HOP_OVERFLOW if the scratch route list is too small (start again with a larger one)."""
    for j in range(live.shape[0]):
        g = live[j]
        write_planes(roots, g, t, obs[j], side_of(roots, g))
        # the routes are listed into the root's cache here, once for all walks
        if write_mask(roots, g, t, masks[j], scratch, ws) == HOP_OVERFLOW:
            return HOP_OVERFLOW
    return WALK_OK


@kernel(nogil=True)
def _walk_round(tree, roots, work, t, scratch, ws, walks, leaves, obs, masks, params):
    """Walks up to ``batch`` paths per game by the selection rule with virtual loss, from
    ``walks``' cursor.

    Each walk copies the game's root state into the work state (game 0 of ``work``), replays
    the hops of its path and ends at a leaf: a new node that is not terminal waits for its
    evaluation (planes and mask written into ``obs[k]``, ``masks[k]``, its node into
    ``leaves[k]``) or, with rollouts, is expanded and its rollout's value backed up at once;
    a terminal node takes the engine's result at once; a node already waiting in this round
    ends the game's round (its virtual loss is lifted, nothing counted).

    walks: int64[games + 3]: the simulations left per game, then the cursor (game, walks done
        in it this round, leaves written) where the round goes on.
    params: float64[6]: the exploration constant, virtual loss, walks per game and round,
        the selection rule (PUCT or UCT), the rollout plies (-1: leaves wait for the
        evaluator), the walks of one call (its slice of the round).

    Returns WALK_OK at the end of the round, WALK_SLICED when the call has walked its slice
    (the cursor stays where the round goes on: call again, or stop the round and evaluate
    the leaves written so far), HOP_OVERFLOW or EDGES_FULL (the scratch route
    list or the edge arrays were too small: the walk in progress is undone, its random draws
    included, and the cursor stays on it, so grow them and call again) or HOP_ILLEGAL (a hop
    of the tree was refused: a bug).
    """
    nodes, edge_i, edge_f, used = tree
    c, vl, batch = params[0], params[1], np.int64(params[2])
    uct, plies, slice_walks = params[3] == UCT, np.int64(params[4]), np.int64(params[5])
    games = walks.shape[0] - 3
    g, j, k = walks[games], walks[games + 1], walks[games + 2]
    walked = 0
    while g < games:
        collided = False
        while j < batch and walks[g] > 0 and not collided:
            if walked == slice_walks:  # the slice is walked: the caller may stop the round
                walks[games], walks[games + 1], walks[games + 2] = g, j, k
                return WALK_SLICED
            walked += 1
            stream = work.rng[0]  # restored if the walk is undone
            copy_game(roots, g, work, np.int64(0))
            node = g  # the root
            while True:
                if uct:
                    e = _select_uct(nodes, edge_i, edge_f, node, c, vl, work.rng)
                else:
                    e = _select(nodes, edge_i, edge_f, node, c, vl)
                edge_i[e, EI_PENDING] += 1
                status = play_hop(work, 0, t, edge_i[e, EI_ACTION], scratch, ws)
                child = edge_i[e, EI_CHILD]
                result, side = result_of(work, 0), side_of(work, 0)
                count, value = 0, 0.0
                if status >= 0 and child < 0 and result == K.ONGOING:
                    # a new leaf to evaluate: its mask first (it may overflow the scratch list)
                    status = write_mask(work, 0, t, masks[k], scratch, ws)
                    if status >= 0 and plies >= 0:
                        status, count, value = _roll_out_leaf(
                            tree, work, t, masks[k], scratch, ws, plies
                        )
                if status < 0:  # HOP_OVERFLOW, EDGES_FULL or HOP_ILLEGAL: undo, stop here
                    edge_i[e, EI_PENDING] -= 1
                    _back_up(nodes, edge_i, edge_f, node, np.int64(0), 0.0, np.bool_(False))
                    work.rng[0] = stream
                    walks[games], walks[games + 1], walks[games + 2] = g, j, k
                    return status
                if child < 0:  # a new leaf
                    if result != K.ONGOING:
                        child = _new_node(nodes, used, side, result, NEW, node, e)
                        edge_i[e, EI_CHILD] = child
                        value = result_value(result, side)
                        _back_up(nodes, edge_i, edge_f, child, side, value, np.bool_(True))
                    elif plies >= 0:  # expanded and rolled out already
                        child = _new_node(nodes, used, side, result, EXPANDED, node, e)
                        nodes[child, N_FIRST] = used[1]
                        nodes[child, N_COUNT] = count
                        used[1] += count
                        edge_i[e, EI_CHILD] = child
                        _back_up(nodes, edge_i, edge_f, child, side, value, np.bool_(True))
                    else:
                        write_planes(work, 0, t, obs[k], side)
                        child = _new_node(nodes, used, side, result, PENDING, node, e)
                        edge_i[e, EI_CHILD] = child
                        leaves[k] = child
                        k += 1
                    walks[g] -= 1
                    break
                if nodes[child, N_RESULT] != K.ONGOING:  # a terminal leaf walked again
                    side = nodes[child, N_SIDE]
                    value = result_value(nodes[child, N_RESULT], side)
                    _back_up(nodes, edge_i, edge_f, child, side, value, np.bool_(True))
                    walks[g] -= 1
                    break
                if nodes[child, N_STATE] != EXPANDED or nodes[child, N_COUNT] == 0:
                    _back_up(
                        nodes, edge_i, edge_f, child, np.int64(0), 0.0, np.bool_(False)
                    )  # waiting already
                    collided = True
                    break
                node = child
            if not collided:
                j += 1
        g += 1
        j = 0
    walks[games], walks[games + 1], walks[games + 2] = g, 0, k
    return WALK_OK


@kernel()
def _expand(tree, leaves, masks, priors, values, back_up):
    """Lists the legal hops of each leaf with its priors (renormalised over them; uniform if
    they sum to 0) and, if `back_up`, backs up its value (for its colour to move).

    Returns 0, or the number of edges the tree needs if it holds fewer (nothing changed:
    grow it and call again).
    """
    nodes, edge_i, edge_f, used = tree
    need = used[1]
    for i in range(leaves.shape[0]):
        for a in range(masks.shape[1]):
            if masks[i, a] != 0:
                need += 1
    if need > edge_i.shape[0]:
        return need
    for i in range(leaves.shape[0]):
        leaf = leaves[i]
        first = used[1]
        count = _write_edges(edge_i, edge_f, first, masks[i])
        for e in range(first, first + count):
            edge_f[e, EF_PRIOR] = np.float64(priors[i, edge_i[e, EI_ACTION]])
        _spread_priors(edge_f, first, count)
        used[1] = first + count
        nodes[leaf, N_FIRST] = first
        nodes[leaf, N_COUNT] = count
        nodes[leaf, N_STATE] = EXPANDED
        if back_up:
            _back_up(nodes, edge_i, edge_f, leaf, nodes[leaf, N_SIDE], values[i], np.bool_(True))
    return 0


@kernel()
def _distributions(nodes, edge_i, edge_f, out):
    """Writes each root's visits as a distribution over all actions into out[g]."""
    for g in range(out.shape[0]):
        first = nodes[g, N_FIRST]
        end = first + nodes[g, N_COUNT]
        total = 0.0
        for e in range(first, end):
            total += edge_f[e, EF_VISITS]
        for a in range(out.shape[1]):
            out[g, a] = 0.0
        if total > 0:
            for e in range(first, end):
                out[g, edge_i[e, EI_ACTION]] = edge_f[e, EF_VISITS] / total


# --- Tree storage and views -----------------------------------------------------------------


class _Tree:
    """The arrays of one BatchedPUCT's trees (see the module docstring), reused by searches.

    ``generation`` counts the searches, so that views of an older search can tell they are
    stale.
    """

    def __init__(self) -> None:
        self.nodes = np.zeros((0, N_LEN), dtype=np.int64)
        self.edge_i = np.zeros((0, EI_LEN), dtype=np.int64)
        self.edge_f = np.zeros((0, EF_LEN), dtype=np.float64)
        self.used = np.zeros(2, dtype=np.int64)
        self.games = 0
        self.generation = 0

    def start(self, games: int, simulations: int, edges_per_node: int) -> None:
        """Makes room for a new search: games * (simulations + 1) nodes, some edges."""
        self.generation += 1
        self.games = games
        nodes = games * (simulations + 1)
        if self.nodes.shape[0] < nodes:
            self.nodes = np.zeros((nodes, N_LEN), dtype=np.int64)
        edges = nodes * edges_per_node
        if self.edge_i.shape[0] < edges:
            self.edge_i = np.zeros((edges, EI_LEN), dtype=np.int64)
            self.edge_f = np.zeros((edges, EF_LEN), dtype=np.float64)

    def grow_edges(self, need: int) -> None:
        """Enlarges the edge arrays to hold at least `need` edges, keeping those in use."""
        size = max(need, 2 * self.edge_i.shape[0])
        used = int(self.used[1])
        edge_i = np.zeros((size, EI_LEN), dtype=np.int64)
        edge_f = np.zeros((size, EF_LEN), dtype=np.float64)
        edge_i[:used] = self.edge_i[:used]
        edge_f[:used] = self.edge_f[:used]
        self.edge_i, self.edge_f = edge_i, edge_f

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Returns the tuple the kernels take."""
        return self.nodes, self.edge_i, self.edge_f, self.used


class PUCTNode:
    """A read-only view of a search node: the turn state reached by the hops from the root.

    Views come from :attr:`BatchedPUCT.roots` (or :meth:`MCTSAgent.search`) and :meth:`child`;
    they read the search's compiled tree, so they are valid until the next search (then
    they raise RuntimeError). The arrays they return are copies.

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

    __slots__ = ("_tree", "_index", "_generation")

    def __init__(self, tree: _Tree, index: int) -> None:
        self._tree = tree
        self._index = index
        self._generation = tree.generation

    def _row(self) -> np.ndarray:
        if self._generation != self._tree.generation:
            raise RuntimeError("this PUCTNode belongs to an earlier search")
        return self._tree.nodes[self._index]

    def _edges(self) -> slice:
        row = self._row()
        first = int(row[N_FIRST])
        return slice(first, first + int(row[N_COUNT]))

    @property
    def side(self) -> Colour:
        """The colour to move here."""
        return Colour(int(self._row()[N_SIDE]))

    @property
    def result(self) -> int:
        """The kernels' result code of the turn state here."""
        return int(self._row()[N_RESULT])

    @property
    def is_expanded(self) -> bool:
        """True once the evaluator has been asked about this node (or it waits for it)."""
        return int(self._row()[N_STATE]) != NEW

    @property
    def actions(self) -> np.ndarray:
        """The legal hops, increasing (int64)."""
        return self._tree.edge_i[self._edges(), EI_ACTION].copy()

    @property
    def priors(self) -> np.ndarray:
        """The prior of each hop."""
        return self._tree.edge_f[self._edges(), EF_PRIOR].copy()

    @property
    def visits(self) -> np.ndarray:
        """The simulations through each hop."""
        return self._tree.edge_f[self._edges(), EF_VISITS].copy()

    @property
    def values(self) -> np.ndarray:
        """The sum of the values backed up through each hop, for ``side``."""
        return self._tree.edge_f[self._edges(), EF_VALUE].copy()

    @property
    def children(self) -> list[PUCTNode | None]:
        """The node each hop leads to (None until first walked)."""
        kids = self._tree.edge_i[self._edges(), EI_CHILD]
        return [PUCTNode(self._tree, int(c)) if c >= 0 else None for c in kids]

    def child(self, action: int) -> PUCTNode | None:
        """Returns the node a hop leads to (None if never walked or not legal)."""
        edges = self._edges()
        index = np.flatnonzero(self._tree.edge_i[edges, EI_ACTION] == action)
        if not len(index):
            return None
        c = int(self._tree.edge_i[edges.start + int(index[0]), EI_CHILD])
        return PUCTNode(self._tree, c) if c >= 0 else None

    def q(self) -> np.ndarray:
        """Returns the mean value of each hop for ``side`` (0 for unvisited hops)."""
        values, visits = self.values, self.visits
        return np.divide(values, visits, out=np.zeros_like(values), where=visits > 0)

    def __repr__(self) -> str:
        visits = int(self.visits.sum())
        return f"PUCTNode(side={self.side.name.lower()}, visits={visits}, result={self.result})"


# --- Search ---------------------------------------------------------------------------------


class _Tables:
    """What the kernels need of one ruleset: its tables, the roots and one work state,
    scratch, the evaluation buffers."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.num_actions = action_layout(rules).num_actions
        self.tab = tables(rules)
        self.scratch = K.new_move_buffer()
        self.ws = K.new_workspace(rules.board_size)
        self.work = new_states(rules, 1)
        self.roots: States = new_states(rules, 0)
        self.planes = planes_for(rules)
        self.obs = np.zeros((0, self.planes, rules.board_size, rules.board_size), np.float32)
        self.masks = np.zeros((0, self.num_actions), np.int8)
        self.leaves = np.zeros(0, np.int64)

    def load_roots(self, turns: list[Turn]) -> None:
        """Copies the caller's turn states into the roots (games 0..len(turns)-1)."""
        if self.roots.board.shape[0] < len(turns):
            self.roots = new_states(self.rules, len(turns))
        for g, t in enumerate(turns):
            direct_call(copy_game, (), t.states, 0, self.roots, g)

    def buffers(self, leaves: int) -> None:
        """Makes the evaluation buffers hold at least `leaves` leaves."""
        if self.obs.shape[0] < leaves:
            size = self.rules.board_size
            self.obs = np.zeros((leaves, self.planes, size, size), np.float32)
            self.masks = np.zeros((leaves, self.num_actions), np.int8)
            self.leaves = np.zeros(leaves, np.int64)

    def grow_scratch(self) -> None:
        """Enlarges the route scratch list after an overflow (many flying kings)."""
        self.scratch = grown(self.scratch)


class BatchedPUCT:
    """Tree search for many games at once; one evaluator call per round for all games.

    Args:
        evaluator: gives priors and values for leaves (see :class:`Evaluator`), or a
            :class:`RolloutEvaluator`, whose rollouts the search plays itself.
        simulations: leaves walked per game and search (terminal leaves included); the
            root's own evaluation is not counted.
        c_puct: the exploration constant c of the selection rule.
        dirichlet_alpha: concentration of the root noise.
        dirichlet_fraction: weight of the noise in the root priors.
        virtual_loss: losses (and visits) added along a walk until its leaf is backed up,
            so that the walks of one round spread out.
        batch_leaves: walks per game and round (with rollouts a round is the whole search).
        seed: seed of the Dirichlet noise and of the search's stream (UCT picks, rollouts);
            None draws fresh entropy.
        selection: ``"puct"`` (Q + c * P * sqrt(N + 1) / (1 + n)) or ``"uct"`` (UCB1: each
            edge once, in a random order, then Q + c * sqrt(ln N / n)); see the module
            docstring.

    After a search ``roots`` holds read-only views of the trees, one per game (valid until
    the next search).
    """

    #: Edges reserved per node at the start of a search (the arrays grow if needed).
    EDGES_PER_NODE = 8
    #: Walks per compiled call: a halt is seen between calls (a slice of rollouts takes
    #: milliseconds), and the walks are the same however they are sliced.
    SLICE_WALKS = 256

    def __init__(
        self,
        evaluator: Evaluator | RolloutEvaluator,
        simulations: int,
        c_puct: float = 1.5,
        dirichlet_alpha: float = 0.3,
        dirichlet_fraction: float = 0.25,
        virtual_loss: float = 1.0,
        batch_leaves: int = 8,
        seed: int | None = None,
        selection: str = "puct",
    ) -> None:
        if simulations < 1 or batch_leaves < 1:
            raise ValueError(
                f"simulations and batch_leaves must be >= 1: {simulations}, {batch_leaves}"
            )
        if selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {sorted(SELECTIONS)}, not {selection!r}")
        self.evaluator = evaluator
        self.simulations, self.c_puct = simulations, c_puct
        self.dirichlet_alpha, self.dirichlet_fraction = dirichlet_alpha, dirichlet_fraction
        self.virtual_loss, self.batch_leaves = virtual_loss, batch_leaves
        self.selection = selection
        self.rng = np.random.default_rng(seed)
        self._tree = _Tree()
        self._tables: _Tables | None = None

    @property
    def roots(self) -> list[PUCTNode]:
        """Views of the root of each game of the last search (empty before the first)."""
        return [PUCTNode(self._tree, g) for g in range(self._tree.games)]

    def search(self, turns: list[Turn], add_noise: bool) -> list[np.ndarray]:
        """Returns the root visit distribution over actions of each game (zeros if over).

        The turn states are not changed. All games must share one ruleset.

        Args:
            turns: the games' turn states, the roots (with the game's counters: a position's
                king runs go in with ``Turn.reset(board, side, king_runs)``).
            add_noise: mix Dirichlet noise into the root priors.

        Under a :class:`~damas_agents.search.alphabeta.Halt` that is set, the search ends
        after the slice of walks in progress (at least one walk) with the visits so far.
        """
        if not turns:
            return []
        t = self._prepare(turns)
        games = len(turns)
        self._tree.start(games, self.simulations, self.EDGES_PER_NODE)
        tree = self._tree
        t.buffers(games * self.batch_leaves)
        direct_call(_init_roots, (), tree.nodes, tree.used, t.roots, games)
        walks = np.zeros(games + 3, dtype=np.int64)
        live = self._expand_roots(t, games, add_noise)
        counts = tree.nodes[live, N_COUNT]
        walks[live[counts > 0]] = self.simulations
        params = self._params(t)
        halt = Halt.current()
        while walks[:games].any():
            self._round(t, walks, params, halt)
            if halt is not None and halt.is_set():
                break
        out = np.zeros((games, t.num_actions), dtype=np.float32)
        _distributions(tree.nodes, tree.edge_i, tree.edge_f, out)
        return list(out)

    def _params(self, t: _Tables) -> np.ndarray:
        """Returns the walks' parameters (see :func:`_walk_round`); seeds the search's stream
        where the search draws from it (PUCT with an Evaluator draws nothing from it)."""
        evaluator, selection = self.evaluator, SELECTIONS[self.selection]
        plies, batch = -1, self.batch_leaves
        if isinstance(evaluator, RolloutEvaluator):
            plies, batch = evaluator.max_plies, self.simulations  # one round, no evaluator call
        if plies >= 0 or selection == UCT:
            t.work.rng[0] = np.uint64(self.rng.integers(1, 2**63))
        slice_walks = self.SLICE_WALKS
        return np.array(
            [self.c_puct, self.virtual_loss, batch, selection, plies, slice_walks], np.float64
        )

    def _evaluate(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Returns the evaluator's priors and values for leaves; with rollouts (asked only for
        the roots: the walks roll out their leaves) uniform priors and no values."""
        if isinstance(self.evaluator, RolloutEvaluator):
            return uniform_priors(masks), np.zeros(len(masks), dtype=np.float32)
        return self.evaluator.evaluate(obs, masks)

    # --- Rounds -----------------------------------------------------------------------------

    def _round(self, t: _Tables, walks: np.ndarray, params: np.ndarray, halt: Halt | None) -> None:
        """Walks up to batch_leaves paths per game, evaluates the new leaves, backs up (with
        rollouts: walks them all, evaluated and backed up on the way). The walks go in
        slices of SLICE_WALKS; a set `halt` ends the round after the slice in progress."""
        games = walks.shape[0] - 3
        walks[games:] = 0  # the cursor: from the first game
        while True:
            status = direct_call(
                _walk_round, (), self._tree.arrays(), t.roots, t.work, t.tab, t.scratch, t.ws,
                walks, t.leaves, t.obs, t.masks, params,
            )  # fmt: skip
            if status == HOP_OVERFLOW:
                t.grow_scratch()
            elif status == EDGES_FULL:
                self._tree.grow_edges(0)
            elif status != WALK_SLICED or (halt is not None and halt.is_set()):
                break
        if status == HOP_ILLEGAL:  # pragma: no cover - the tree lists legal hops only
            raise RuntimeError("the search played an illegal hop")
        k = int(walks[games + 2])
        if k:
            priors, values = self._evaluate(t.obs[:k], t.masks[:k])
            values = np.clip(np.asarray(values, dtype=np.float64), -1.0, 1.0)
            self._expand(t.leaves[:k], t.masks[:k], priors, values, back_up=True)

    def _expand(
        self,
        leaves: np.ndarray,
        masks: np.ndarray,
        priors: np.ndarray,
        values: np.ndarray,
        back_up: bool,
    ) -> None:
        """Expands evaluated leaves (growing the edge arrays if they must) and backs up."""
        # One type for the compiled kernel (what the shipped evaluators return): an evaluator
        # giving float64 or a non-contiguous view would compile _expand again in every process.
        priors = np.ascontiguousarray(priors, dtype=np.float32)
        values = np.ascontiguousarray(values, dtype=np.float64)
        while True:
            need = int(_expand(self._tree.arrays(), leaves, masks, priors, values, back_up))
            if not need:
                return
            self._tree.grow_edges(need)

    # --- Roots ------------------------------------------------------------------------------

    def _expand_roots(self, t: _Tables, games: int, add_noise: bool) -> np.ndarray:
        """Evaluates the roots of the games still going in one call and adds the root noise;
        returns those games."""
        live = np.flatnonzero(t.roots.results[:games] == K.ONGOING)
        if not len(live):
            return live
        n = len(live)
        while direct_call(_encode_roots, (), t.roots, live, t.obs, t.masks, t.tab, t.scratch, t.ws):
            t.grow_scratch()
        priors, _ = self._evaluate(t.obs[:n], t.masks[:n])
        self._expand(live, t.masks[:n], priors, np.zeros(n), back_up=False)
        if add_noise:
            tree, f = self._tree, self.dirichlet_fraction
            for g in live:
                first, count = tree.nodes[g, N_FIRST], tree.nodes[g, N_COUNT]
                if count:
                    noise = self.rng.dirichlet(np.full(count, self.dirichlet_alpha))
                    priors = tree.edge_f[first : first + count, EF_PRIOR]
                    tree.edge_f[first : first + count, EF_PRIOR] = (1.0 - f) * priors + f * noise
        return live

    def _prepare(self, turns: list[Turn]) -> _Tables:
        """Returns the tables of the games' ruleset, their roots loaded."""
        rules = turns[0].rules
        if any(t.rules != rules for t in turns):
            raise ValueError("all games of one search must share a ruleset")
        if self._tables is None or self._tables.rules != rules:
            self._tables = _Tables(rules)
        self._tables.load_roots(turns)
        return self._tables


def select_action(visits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """Returns an action drawn with probability visits ** (1 / temperature) (0: the argmax)."""
    visits = np.asarray(visits, dtype=np.float64)
    if temperature <= 0.0:
        return int(np.argmax(visits))
    scaled = (visits / visits.max()) ** (1.0 / temperature)
    return int(rng.choice(len(visits), p=scaled / scaled.sum()))


# --- The UCT player ---------------------------------------------------------------------------


class MCTSAgent:
    """UCT over hops with random rollouts (``mcts:sims=N``); plays the most visited hop.

    A player over :class:`BatchedPUCT` with ``selection="uct"`` and a
    :class:`RolloutEvaluator`, one game at a time: each simulation walks down by UCB1 (each
    hop of a node once, in a random order, first), adds one node and scores it by one random
    rollout, backed up by colour.

    Args:
        sims: simulations per decision.
        c: the UCT exploration constant.
        seed: seed of the search's stream (UCT picks and rollouts); the same seed plays the
            same games (``reset`` restarts the stream). None draws fresh entropy.
        rollout_plies: complete moves a rollout plays before it is scored by material.

    The agent sees only the position at the start of the turn: the draw counters and the
    repetition history of the game so far are not known to the search (they start afresh at
    the root). The position's king runs are (the Frisian king move limit): the search starts
    from them, so its hops are the game's.
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
        self._search = BatchedPUCT(
            RolloutEvaluator(rollout_plies), sims, c_puct=c, seed=seed, selection="uct"
        )
        self._turns: dict[Ruleset, Turn] = {}

    def reseed(self, seed: int | None) -> None:
        """Restarts the search's stream from `seed` (and from it at every reset)."""
        self.seed = seed
        self.reset()

    def reset(self) -> None:
        """Restarts the search's stream from the seed (games replay for a seed)."""
        self._search.rng = np.random.default_rng(self.seed)

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the most visited hop after ``sims`` simulations (the better mean, then the
        lower action, on ties; at once if only one hop is legal).

        Raises:
            ValueError: no position was given, or ``hops`` are not legal hops in it.
        """
        if position is None:
            raise ValueError(f"{self.name} needs the engine position: act(obs, position, hops)")
        turn = self._root(position, hops)
        actions = turn.legal_actions()
        if not actions:
            raise ValueError(f"{self.name}: no legal hop (the game is over)")
        if len(actions) == 1:
            return int(actions[0])
        self._search.search([turn], add_noise=False)
        root = self._search.roots[0]
        best = np.lexsort((-root.actions, root.q(), root.visits))[-1]
        return int(root.actions[best])

    def search(self, position: Position, hops: Sequence[int] = ()) -> PUCTNode:
        """Returns the root of the tree grown by ``sims`` simulations from a position (after
        the hops already played this turn); valid until the next search."""
        self._search.search([self._root(position, hops)], add_noise=False)
        return self._search.roots[0]

    def _root(self, position: Position, hops: Sequence[int]) -> Turn:
        """Returns the turn state of a position (its king runs too) after the hops already
        played this turn."""
        turn = self._turns.get(position.rules)
        if turn is None:
            turn = self._turns[position.rules] = Turn(position.rules)
        turn.reset(position.board, position.turn, position.king_runs)
        for hop in hops:
            if turn.play(int(hop)) == HOP_ILLEGAL:
                raise ValueError(
                    f"{self.name}: hop {hop} of {list(hops)} is illegal in {position!r}"
                )
        return turn
