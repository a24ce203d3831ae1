"""The turn state: a game played hop by hop, compiled, shared by the env and the batch env.

At the start of a turn the engine lists every legal capture route (after the capture
precedence rule). The turn state holds the hops played so far: the mask allows exactly the
next hops of the routes that begin with them, and when the hops form a complete move that
move is applied and the turn passes. Two routes to one move are both playable and end in
the same position.

State of one game, all plain arrays (the batch env stacks them):

    board   int8[S]           the position at the start of the turn
    st      int64[T_LEN]      side, routes, hop, current square, result, reason,
                              repetitions, history length, game counters (kernels.G_*)
    hist    uint64[H]         ring of position hashes (H >= the no-progress window)
    routes  int16[M, W]       the legal routes of this turn (kernels' move-row layout)
    active  uint8[M]          routes still matching the hops played
    last    int16[W]          the last complete move (for rendering)

The encoding (actions and planes) is documented in :mod:`damas_env.encoding`.
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .encoding import PLANES, action_layout
from .engine import Colour, Engine, Move, move_from_row
from .kernels import kernel
from .rules import Ruleset

T_SIDE, T_NROUTES, T_HOP, T_CUR, T_RESULT, T_REASON, T_REPS, T_HLEN, T_LAST = range(9)
T_COUNTERS = 9
T_LEN = T_COUNTERS + K.G_LEN

# Results of play_hop.
HOP_ILLEGAL, HOP_PLAYED, MOVE_DONE = -1, 0, 1


@kernel()
def count_repetitions(hist, hlen, window):
    """Returns how often the newest hash occurs among the last `window` plies (same side)."""
    size = hist.shape[0]
    last = hlen - 1
    now = hist[last % size]
    count = 0
    i = last
    while i >= 0 and i >= last - window and i > last - size:
        if hist[i % size] == now:
            count += 1
        i -= 2
    return count


@kernel()
def begin_turn(board, st, hist, routes, active, ray, rules, ws):
    """Lists the routes of the side to move and the game's result so far."""
    n = K.generate_moves(board, st[T_SIDE], ray, rules, routes, False, ws)
    st[T_NROUTES] = n
    st[T_HOP] = 0
    st[T_CUR] = -1
    for r in range(n):
        active[r] = 1
    counters = st[T_COUNTERS : T_COUNTERS + K.G_LEN]
    reps = count_repetitions(hist, st[T_HLEN], counters[K.G_SINCE_MAN_OR_CAPTURE])
    st[T_REPS] = reps
    result, reason = K.outcome(board, st[T_SIDE], n > 0, counters, reps, rules)
    st[T_RESULT] = result
    st[T_REASON] = reason


@kernel(inline=True)
def hop_action(routes, r, k, flip, squares, action_of):
    """Returns the action of hop k of route r, in the view of the side to move."""
    origin = routes[r, K.M_FROM] if k == 0 else routes[r, K.M_PATH + k - 1]
    target = routes[r, K.M_PATH + k]
    if flip:
        origin = squares - 1 - origin
        target = squares - 1 - target
    return action_of[origin, target]


@kernel()
def play_hop(
    board, st, hist, routes, active, last, action, action_of, keys, side_key, ray, rules, ws
):
    """Plays one hop; returns HOP_ILLEGAL (nothing changed), HOP_PLAYED or MOVE_DONE."""
    num_actions = rules[K.R_SQUARES] * 4 * (rules[K.R_SIZE] - 1)
    if st[T_RESULT] != K.ONGOING or action < 0 or action >= num_actions:
        return HOP_ILLEGAL
    squares, k, flip = rules[K.R_SQUARES], st[T_HOP], st[T_SIDE] == K.BLACK
    found = -1
    for r in range(st[T_NROUTES]):
        if active[r] == 1 and hop_action(routes, r, k, flip, squares, action_of) == action:
            found = r
            break
    if found < 0:
        return HOP_ILLEGAL
    for r in range(st[T_NROUTES]):
        if active[r] == 1 and hop_action(routes, r, k, flip, squares, action_of) != action:
            active[r] = 0
    st[T_HOP] = k + 1
    st[T_CUR] = routes[found, K.M_PATH + k]
    if k + 1 < max(routes[found, K.M_NCAP], 1):
        return HOP_PLAYED
    _finish_move(board, st, hist, routes, found, last, keys, side_key)
    begin_turn(board, st, hist, routes, active, ray, rules, ws)
    return MOVE_DONE


@kernel()
def _finish_move(board, st, hist, routes, r, last, keys, side_key):
    """Applies route r: hash, counters, board, history and side to move."""
    size = hist.shape[0]
    hlen = st[T_HLEN]
    h = K.hash_after(hist[(hlen - 1) % size], board, routes, r, keys, side_key)
    K.after_move(st[T_COUNTERS : T_COUNTERS + K.G_LEN], board, routes, r)
    K.apply_move(board, routes, r)
    hist[hlen % size] = h
    st[T_HLEN] = hlen + 1
    st[T_SIDE] = 1 - st[T_SIDE]
    for c in range(K.MOVE_WIDTH):
        last[c] = routes[r, c]
    st[T_LAST] = 1


@kernel()
def write_mask(st, routes, active, mask, action_of, rules):
    """Writes the legal next hops of the side to move into mask (zeros once the game ended)."""
    for a in range(mask.shape[0]):
        mask[a] = 0
    if st[T_RESULT] != K.ONGOING:
        return
    flip, k = st[T_SIDE] == K.BLACK, st[T_HOP]
    for r in range(st[T_NROUTES]):
        if active[r] == 1:
            mask[hop_action(routes, r, k, flip, rules[K.R_SQUARES], action_of)] = 1


@kernel()
def write_planes(board, st, routes, active, obs, view_side, rows, cols, rules):
    """Writes the observation planes of `view_side` (see damas_env.encoding)."""
    for p in range(obs.shape[0]):
        for i in range(obs.shape[1]):
            for j in range(obs.shape[2]):
                obs[p, i, j] = 0
    squares = rules[K.R_SQUARES]
    sgn = 1 - 2 * view_side
    flip = view_side == K.BLACK
    r0 = _first_active(st, active)
    moving = -1 if st[T_HOP] == 0 or r0 < 0 else routes[r0, K.M_FROM]
    for s in range(squares):
        p = board[s]
        if p == 0 or s == moving:
            continue
        v = squares - 1 - s if flip else s
        plane = (0 if p * sgn > 0 else 2) + (1 if p == 2 or p == -2 else 0)
        obs[plane, rows[v], cols[v]] = 1
    if moving >= 0:
        _write_capture_in_progress(board, st, routes, r0, obs, sgn, flip, rows, cols, rules)
    _fill_counter_planes(st, obs, rules)


@kernel()
def _first_active(st, active):
    for r in range(st[T_NROUTES]):
        if active[r] == 1:
            return r
    return -1


@kernel()
def _write_capture_in_progress(board, st, routes, r, obs, sgn, flip, rows, cols, rules):
    """Planes 0-1 and 4 for the moving piece, plane 5 for the pieces it has taken."""
    squares, half = rules[K.R_SQUARES], rules[K.R_SIZE] // 2
    piece = board[routes[r, K.M_FROM]]
    king = piece == 2 or piece == -2
    side = 0 if piece > 0 else 1
    for k in range(st[T_HOP]):  # Russian rules: crowned on the far row mid-capture
        king = king or (
            rules[K.R_PROMO] == K.PROMO_CROWN
            and _far_row(routes[r, K.M_PATH + k], side, squares, half)
        )
        x = routes[r, K.M_CAPS + k]
        vx = squares - 1 - x if flip else x
        obs[5, rows[vx], cols[vx]] = 1
    cur = st[T_CUR]
    v = squares - 1 - cur if flip else cur
    plane = (0 if piece * sgn > 0 else 2) + (1 if king else 0)
    obs[plane, rows[v], cols[v]] = 1
    obs[4, rows[v], cols[v]] = 1


@kernel(inline=True)
def _far_row(sq, side, squares, half):
    return sq < half if side == K.WHITE else sq >= squares - half


@kernel()
def _fill_counter_planes(st, obs, rules):
    limit = rules[K.R_NO_PROGRESS]
    since = st[T_COUNTERS + K.G_SINCE_PROMOTION_OR_CAPTURE]
    if rules[K.R_PROGRESS] == K.PROGRESS_MAN_MOVE:
        since = st[T_COUNTERS + K.G_SINCE_MAN_OR_CAPTURE]
    progress = min(1.0, since / limit) if limit > 0 else 0.0
    reps = rules[K.R_REPETITION]
    repetition = min(1.0, (st[T_REPS] - 1) / (reps - 1)) if reps > 1 else 0.0
    for i in range(obs.shape[1]):
        for j in range(obs.shape[2]):
            obs[6, i, j] = progress
            obs[7, i, j] = repetition


def history_size(rules: Ruleset) -> int:
    """Returns the hash ring size: enough for the no-progress window (1024 without one)."""
    window = rules.no_progress_plies + 2 if rules.no_progress_plies else 1024
    return 1 << int(np.ceil(np.log2(max(window, 4))))


class Turn:
    """One game's turn state with its compiled kernels: the core of ``draughts_v0``.

    Everything is preallocated; a hop is one compiled call, and the observation and mask
    one more. See the module docstring for the arrays.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.engine = Engine.for_rules(rules)
        self.layout = action_layout(rules.board_size)
        self.board = np.zeros(rules.squares, dtype=np.int8)
        self.st = np.zeros(T_LEN, dtype=np.int64)
        self.hist = np.zeros(history_size(rules), dtype=np.uint64)
        self.routes = K.new_move_buffer()
        self.active = np.zeros(self.routes.shape[0], dtype=np.uint8)
        self.last = np.zeros(K.MOVE_WIDTH, dtype=np.int16)

    def reset(self, board: np.ndarray, side: Colour | int) -> None:
        """Starts a game from a board with `side` to move."""
        self.board[:] = board
        self.st[:] = 0
        self.st[T_SIDE] = int(side)
        self.st[T_HLEN] = 1
        self.hist[0] = self.engine.hash(self.board, int(side))
        self._begin()

    def _begin(self) -> None:
        e = self.engine
        while True:
            try:
                begin_turn(
                    self.board,
                    self.st,
                    self.hist,
                    self.routes,
                    self.active,
                    e.ray,
                    e.rule_array,
                    e.workspace,
                )
                return
            except OverflowError:  # more capture routes than the list holds: grow it
                self.routes = K.new_move_buffer(4 * self.routes.shape[0])
                self.active = np.zeros(self.routes.shape[0], dtype=np.uint8)

    def play(self, action: int) -> int:
        """Plays one hop; returns HOP_ILLEGAL (nothing changed), HOP_PLAYED or MOVE_DONE."""
        e = self.engine
        try:
            return int(
                play_hop(
                    self.board,
                    self.st,
                    self.hist,
                    self.routes,
                    self.active,
                    self.last,
                    action,
                    self.layout.action_of,
                    e.zobrist,
                    e.side_key,
                    e.ray,
                    e.rule_array,
                    e.workspace,
                )
            )
        except OverflowError:  # the next turn has more routes than the list holds
            self.routes = K.new_move_buffer(4 * self.routes.shape[0])
            self.active = np.zeros(self.routes.shape[0], dtype=np.uint8)
            self._begin()
            return MOVE_DONE

    def write_mask(self, mask: np.ndarray) -> None:
        """Writes the legal next hops (int8 0/1 per action) into mask."""
        write_mask(
            self.st, self.routes, self.active, mask, self.layout.action_of, self.engine.rule_array
        )

    def write_planes(self, obs: np.ndarray, view: Colour | int) -> None:
        """Writes the observation planes (C, N, N) of the agent playing `view` into obs."""
        write_planes(
            self.board,
            self.st,
            self.routes,
            self.active,
            obs,
            int(view),
            self.layout.row,
            self.layout.col,
            self.engine.rule_array,
        )

    # --- Reading the state ------------------------------------------------------------------

    @property
    def side(self) -> Colour:
        """Returns the colour to move."""
        return Colour(int(self.st[T_SIDE]))

    @property
    def hop(self) -> int:
        """Returns the number of hops played in the current turn."""
        return int(self.st[T_HOP])

    @property
    def result(self) -> int:
        """Returns the kernels' result code (kernels.ONGOING, WHITE_WINS, ...)."""
        return int(self.st[T_RESULT])

    @property
    def reason(self) -> int:
        """Returns the kernels' reason code (kernels.REASON_*)."""
        return int(self.st[T_REASON])

    @property
    def ply(self) -> int:
        """Returns the plies (complete moves) played."""
        return int(self.st[T_COUNTERS + K.G_PLY])

    def last_move(self) -> Move | None:
        """Returns the last complete move, or None before the first."""
        return move_from_row(self.last) if self.st[T_LAST] else None

    def routes_in_play(self) -> list[Move]:
        """Returns the routes still matching the hops played this turn."""
        n = int(self.st[T_NROUTES])
        return [move_from_row(self.routes[r]) for r in range(n) if self.active[r]]

    def legal_actions(self) -> list[int]:
        """Returns the legal next hop actions."""
        mask = np.zeros(self.layout.num_actions, dtype=np.int8)
        self.write_mask(mask)
        return np.flatnonzero(mask).tolist()

    @staticmethod
    def planes() -> int:
        """Returns the number of observation planes."""
        return PLANES
