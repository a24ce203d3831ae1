"""The turn state: a game played hop by hop, compiled, shared by the env and the batch env.

At the start of a turn the engine lists every legal capture route (after the capture
precedence rule). The turn state holds the hops played so far: the mask allows exactly the
next hops of the routes that begin with them, and when the hops form a complete move that
move is applied and the turn passes. Two routes to one move are both playable and end in
the same position.

The routes of a turn are listed once into a small per-game cache (or, when a turn has more
routes than it holds, into a per-thread scratch list, again at each hop), so the state of
one game stays small and the batch env can stack thousands:

    board   int8[S]                the position at the start of the turn
    st      int64[T_LEN]           side, hops played, result, reason, repetitions,
                                   history length, last-move flag, routes listed, legal
                                   hops listed, counters (kernels.G_*)
    hist    uint64[H]              ring of position hashes (H >= the no-progress window)
    cur     int16[CUR_LEN]         the move in progress: origin, landing squares, taken
                                   squares (CUR_PATH.., CUR_CAPS..)
    last    int16[MOVE_WIDTH]      the last complete move, in the kernels' move-row layout
    cache   int16[CACHE_ROWS, MOVE_WIDTH]   this turn's routes, once listed, if they fit
    legal   int16[LEGAL_CAP]       the legal next hops, once listed (st[T_NLEGAL] of them)

Scratch (one per thread): ``routes`` int16[M, MOVE_WIDTH] for turns with more routes than
the cache holds, and the capture-search workspace.
The encoding (actions and planes) is documented in :mod:`damas_env.encoding`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import kernels as K
from .checks import shown
from .encoding import action_layout
from .engine import Colour, Engine, Move, Position, move_from_row
from .kernels import kernel
from .notation import NotationError
from .rules import Ruleset

T_SIDE, T_HOP, T_RESULT, T_REASON, T_REPS, T_HLEN, T_LAST, T_NROUTES, T_NLEGAL = range(9)
T_COUNTERS = 9
T_LEN = T_COUNTERS + K.G_LEN
CACHE_ROWS = 32  # routes kept per game; a turn with more lists them again at each hop
LEGAL_CAP = 256  # legal next hops kept per game for sampling; more are read from the mask

CUR_ORIGIN = 0
CUR_PATH = 1
CUR_CAPS = CUR_PATH + K.MAX_CAPTURES
CUR_LEN = CUR_CAPS + K.MAX_CAPTURES

# Results of play_hop (and HOP_OVERFLOW from write_mask).
HOP_ILLEGAL, HOP_PLAYED, MOVE_DONE = -1, 0, 1
HOP_OVERFLOW = -2  # the scratch list is too small for this turn's routes: nothing changed


@kernel()
def begin_turn(board, st, hist, ray, rules):
    """Starts the turn of the side to move: no hops played, the game's result so far."""
    st[T_HOP] = 0
    st[T_NROUTES] = -1
    st[T_NLEGAL] = -1
    counters = st[T_COUNTERS : T_COUNTERS + K.G_LEN]
    reps = K.count_repetitions(hist, st[T_HLEN], counters[K.G_SINCE_MAN_OR_CAPTURE])
    st[T_REPS] = reps
    has_move = K.has_legal_move(board, st[T_SIDE], ray, rules)
    result, reason = K.outcome(board, st[T_SIDE], has_move, counters, reps, rules)
    st[T_RESULT] = result
    st[T_REASON] = reason


@kernel()
def reset_state(board, st, hist, side, keys, side_key, ray, rules):
    """Starts a game on `board` (already set) with `side` to move."""
    for i in range(st.shape[0]):
        st[i] = 0
    st[T_SIDE] = side
    st[T_HLEN] = 1
    hist[0] = K.hash_position(board, side, keys, side_key)
    begin_turn(board, st, hist, ray, rules)


@kernel(inline=True)
def hop_action(routes, r, k, flip, squares, action_of):
    """Returns the action of hop k of route r, in the view of the side to move."""
    origin = routes[r, K.M_FROM] if k == 0 else routes[r, K.M_PATH + k - 1]
    target = routes[r, K.M_PATH + k]
    if flip:
        origin = squares - 1 - origin
        target = squares - 1 - target
    return action_of[origin, target]


@kernel(inline=True)
def _in_play(routes, r, st, cur):
    """Returns True if route r begins with the hops played this turn."""
    k = st[T_HOP]
    if k == 0:
        return True
    if routes[r, K.M_FROM] != cur[CUR_ORIGIN] or max(routes[r, K.M_NCAP], 1) <= k:
        return False
    for j in range(k):  # noqa: SIM110 - numba compiles loops, not generators
        if routes[r, K.M_PATH + j] != cur[CUR_PATH + j]:
            return False
    return True


@kernel()
def _listed(board, st, cache, scratch, ray, rules, ws):
    """Lists this turn's routes; returns (in cache, count), count -1 if scratch is too small."""
    if st[T_NROUTES] >= 0:
        return True, st[T_NROUTES]
    n = K.generate_moves(board, st[T_SIDE], ray, rules, cache, False, ws)
    if n <= cache.shape[0]:
        st[T_NROUTES] = n
        return True, n
    n = K.generate_moves(board, st[T_SIDE], ray, rules, scratch, False, ws)
    return False, (n if n <= scratch.shape[0] else -1)


@kernel()
def _find_route(board, st, cur, cache, action, action_of, ray, rules, scratch, ws):
    """Returns (in cache, the first route in play whose next hop is `action`), the route
    HOP_ILLEGAL if there is none and HOP_OVERFLOW if the scratch list is too small."""
    num_actions = rules[K.R_SQUARES] * 4 * (rules[K.R_SIZE] - 1)
    if st[T_RESULT] != K.ONGOING or action < 0 or action >= num_actions:
        return True, HOP_ILLEGAL
    in_cache, n = _listed(board, st, cache, scratch, ray, rules, ws)
    if n < 0:
        return in_cache, HOP_OVERFLOW
    routes = cache if in_cache else scratch
    squares, k, flip = rules[K.R_SQUARES], st[T_HOP], st[T_SIDE] == K.BLACK
    for r in range(n):
        if (
            _in_play(routes, r, st, cur)
            and hop_action(routes, r, k, flip, squares, action_of) == action
        ):
            return in_cache, r
    return in_cache, HOP_ILLEGAL


@kernel()
def check_hop(board, st, cur, cache, legal, action, action_of, ray, rules, scratch, ws):
    """Returns HOP_PLAYED if `action` is a legal next hop, else HOP_ILLEGAL (or HOP_OVERFLOW
    if the scratch list is too small to tell); plays nothing.

    Reads the hops listed with the mask (``legal``), or the routes when they were too many
    to list, never the mask itself: the caller may have written into that.
    """
    n = st[T_NLEGAL]
    if n < 0 or st[T_RESULT] != K.ONGOING:
        found = _find_route(board, st, cur, cache, action, action_of, ray, rules, scratch, ws)[1]
        return found if found < 0 else HOP_PLAYED
    for i in range(n):
        if legal[i] == action:
            return HOP_PLAYED
    return HOP_ILLEGAL


@kernel()
def play_hop(
    board, st, hist, cur, last, cache, action, action_of, keys, side_key, ray, rules, scratch, ws
):
    """Plays one hop; returns HOP_ILLEGAL or HOP_OVERFLOW (nothing changed), HOP_PLAYED or
    MOVE_DONE."""
    in_cache, found = _find_route(board, st, cur, cache, action, action_of, ray, rules, scratch, ws)
    if found < 0:
        return found
    routes = cache if in_cache else scratch
    k = st[T_HOP]
    cur[CUR_ORIGIN] = routes[found, K.M_FROM]
    cur[CUR_PATH + k] = routes[found, K.M_PATH + k]
    cur[CUR_CAPS + k] = routes[found, K.M_CAPS + k]
    st[T_HOP] = k + 1
    st[T_NLEGAL] = -1
    if k + 1 < max(routes[found, K.M_NCAP], 1):
        return HOP_PLAYED
    _finish_move(board, st, hist, routes, found, last, keys, side_key)
    begin_turn(board, st, hist, ray, rules)
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
def write_mask(board, st, cur, cache, legal, mask, action_of, ray, rules, scratch, ws):
    """Writes the legal next hops of the side to move into mask (zeros once the game ended)
    and lists them in legal; returns HOP_OVERFLOW if the scratch list is too small, else 0."""
    for a in range(mask.shape[0]):
        mask[a] = 0
    st[T_NLEGAL] = 0
    if st[T_RESULT] != K.ONGOING:
        return 0
    in_cache, n = _listed(board, st, cache, scratch, ray, rules, ws)
    if n < 0:
        return HOP_OVERFLOW
    routes = cache if in_cache else scratch
    flip, k, count = st[T_SIDE] == K.BLACK, st[T_HOP], 0
    for r in range(n):
        if _in_play(routes, r, st, cur):
            a = hop_action(routes, r, k, flip, rules[K.R_SQUARES], action_of)
            if mask[a] == 0:
                mask[a] = 1
                if count < legal.shape[0]:
                    legal[count] = a
                count += 1
    st[T_NLEGAL] = count if count <= legal.shape[0] else -1
    return 0


@kernel()
def write_planes(board, st, cur, obs, view_side, rows, cols, rules):
    """Writes the observation planes of `view_side` (see damas_env.encoding)."""
    for p in range(obs.shape[0]):
        for i in range(obs.shape[1]):
            for j in range(obs.shape[2]):
                obs[p, i, j] = 0
    squares = rules[K.R_SQUARES]
    sgn = 1 - 2 * view_side
    flip = view_side == K.BLACK
    moving = cur[CUR_ORIGIN] if st[T_HOP] > 0 else -1
    for s in range(squares):
        p = board[s]
        if p == 0 or s == moving:
            continue
        v = squares - 1 - s if flip else s
        plane = (0 if p * sgn > 0 else 2) + (1 if p == 2 or p == -2 else 0)
        obs[plane, rows[v], cols[v]] = 1
    if moving >= 0:
        _write_capture_in_progress(board, st, cur, obs, sgn, flip, rows, cols, rules)
    _fill_counter_planes(st, obs, rules)


@kernel()
def _write_capture_in_progress(board, st, cur, obs, sgn, flip, rows, cols, rules):
    """Planes 0-1 and 4 for the moving piece, plane 5 for the pieces it has taken."""
    squares, half = rules[K.R_SQUARES], rules[K.R_SIZE] // 2
    piece = board[cur[CUR_ORIGIN]]
    king = piece == 2 or piece == -2
    side = 0 if piece > 0 else 1
    hops = st[T_HOP]
    for k in range(hops):  # Russian rules: crowned on the far row mid-capture
        far = _far_row(cur[CUR_PATH + k], side, squares, half)
        king = king or (rules[K.R_PROMO] == K.PROMO_CROWN and far)
        x = cur[CUR_CAPS + k]
        vx = squares - 1 - x if flip else x
        obs[5, rows[vx], cols[vx]] = 1
    at = cur[CUR_PATH + hops - 1]
    v = squares - 1 - at if flip else at
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
    if progress == 0.0 and repetition == 0.0:
        return
    for i in range(obs.shape[1]):
        for j in range(obs.shape[2]):
            obs[6, i, j] = progress
            obs[7, i, j] = repetition


def history_size(rules: Ruleset) -> int:
    """Returns the hash ring size: enough for the no-progress window (1024 without one).

    Without a no-progress limit a repetition is detected only within the last 1024 plies.
    """
    window = rules.no_progress_plies + 2 if rules.no_progress_plies else 1024
    return 1 << int(np.ceil(np.log2(max(window, 4))))


# --- Arguments of the envs ------------------------------------------------------------------


def position_from_fen(name: str, fen: Any, rules: Ruleset) -> Position:
    """Returns the position of a FEN argument (only None means the start position, and
    that is the caller's choice, not this function's).

    Raises:
        TypeError: fen is not a string.
        NotationError: the string is not a FEN of this board (an empty one included).
    """
    if not isinstance(fen, str):
        raise TypeError(f"{name} must be a PDN FEN string, not {type(fen).__name__} {shown(fen)}")
    try:
        return Position.from_fen(fen, rules)
    except NotationError as e:
        raise NotationError(f"{name}: {e}") from None


class Turn:
    """One game's turn state with its compiled kernels: the core of ``draughts_v0``.

    Everything is preallocated; a hop is one compiled call, the mask and the planes one
    each. See the module docstring for the arrays.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.engine = Engine.for_rules(rules)
        self.layout = action_layout(rules.board_size)
        self.board = np.zeros(rules.squares, dtype=np.int8)
        self.st = np.zeros(T_LEN, dtype=np.int64)
        self.hist = np.zeros(history_size(rules), dtype=np.uint64)
        self.cur = np.zeros(CUR_LEN, dtype=np.int16)
        self.last = np.zeros(K.MOVE_WIDTH, dtype=np.int16)
        self.cache = K.new_move_buffer(CACHE_ROWS)
        self.legal = np.zeros(LEGAL_CAP, dtype=np.int16)
        self.routes = K.new_move_buffer()

    def reset(self, board: np.ndarray, side: Colour | int) -> None:
        """Starts a game from a board with `side` to move."""
        e = self.engine
        self.board[:] = board
        reset_state(
            self.board, self.st, self.hist, int(side), e.zobrist, e.side_key, e.ray, e.rule_array
        )

    def copy_from(self, other: Turn) -> None:
        """Makes this turn state equal to another of the same ruleset (a cheap clone for
        search: the listed routes travel with it)."""
        for name in ("board", "st", "hist", "cur", "last", "cache"):
            np.copyto(getattr(self, name), getattr(other, name))

    def _grow(self) -> None:
        """Enlarges the route scratch list after an overflow (many flying kings)."""
        self.routes = K.new_move_buffer(4 * self.routes.shape[0])

    def play(self, action: int) -> int:
        """Plays one hop; returns HOP_ILLEGAL (nothing changed), HOP_PLAYED or MOVE_DONE.

        Raises:
            TypeError: action is not an int (a float would compile another kernel).
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise TypeError(f"action must be an int, not {type(action).__name__} {shown(action)}")
        if not 0 <= action < self.layout.num_actions:  # also keeps it within int64
            return HOP_ILLEGAL
        e = self.engine
        while True:
            status = int(
                play_hop(
                    self.board,
                    self.st,
                    self.hist,
                    self.cur,
                    self.last,
                    self.cache,
                    action,
                    self.layout.action_of,
                    e.zobrist,
                    e.side_key,
                    e.ray,
                    e.rule_array,
                    self.routes,
                    e.workspace,
                )
            )
            if status != HOP_OVERFLOW:
                return status
            self._grow()

    def write_mask(self, mask: np.ndarray) -> None:
        """Writes the legal next hops (int8 0/1 per action) into mask."""
        e = self.engine
        while (
            write_mask(
                self.board,
                self.st,
                self.cur,
                self.cache,
                self.legal,
                mask,
                self.layout.action_of,
                e.ray,
                e.rule_array,
                self.routes,
                e.workspace,
            )
            == HOP_OVERFLOW
        ):
            self._grow()

    def write_planes(self, obs: np.ndarray, view: Colour | int) -> None:
        """Writes the observation planes (C, N, N) of the agent playing `view` into obs."""
        write_planes(
            self.board,
            self.st,
            self.cur,
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

    @property
    def counters(self) -> np.ndarray:
        """Returns the game counters (kernels.G_* layout), shared with Game."""
        return self.st[T_COUNTERS:]

    def last_move(self) -> Move | None:
        """Returns the last complete move, or None before the first."""
        return move_from_row(self.last) if self.st[T_LAST] else None

    def routes_in_play(self) -> list[Move]:
        """Returns the legal routes that begin with the hops played this turn."""
        position_routes = self.engine.legal_moves(self.board, int(self.st[T_SIDE]), merge=False)
        k = self.hop
        if k == 0:
            return position_routes
        played = tuple(int(s) for s in self.cur[CUR_PATH : CUR_PATH + k])
        origin = int(self.cur[CUR_ORIGIN])
        return [r for r in position_routes if r.origin == origin and r.path[:k] == played]

    def legal_actions(self) -> list[int]:
        """Returns the legal next hop actions, in increasing order."""
        mask = np.zeros(self.layout.num_actions, dtype=np.int8)
        self.write_mask(mask)
        return np.flatnonzero(mask).tolist()
