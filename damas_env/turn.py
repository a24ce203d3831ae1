"""The turn state: games played hop by hop, compiled, shared by the env, the batch env and
the searches.

At the start of a turn the engine lists every legal capture route; the mask allows the next
hops of the routes that begin with the hops played, and a complete move is applied. All
turn states live in one bundle, :class:`States` (one row a game; :class:`Turn` is a batch
of one), allocated by :func:`new_states`. The public kernels take ``(s, g, t, ...)``: the
states, the game's row and the ruleset's :class:`Tables`; a row is read through accessors
(:func:`side_of`, ...). A kernel short of scratch returns HOP_OVERFLOW and changes nothing:
grow it (:func:`grown`) and call again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np

from . import kernels as K
from .checks import shown
from .compiled_rules import (
    PROGRESS_MAN_MOVE,
    PROMO_CROWN,
    R_BIT,
    R_DIRS,
    R_GIVEAWAY,
    R_KING_LIMIT,
    R_NO_PROGRESS,
    R_PROGRESS,
    R_PROMO,
    R_REPETITION,
    R_ROW,
    R_SIZE,
    R_SQ,
    R_SQUARES,
    R_WORD,
)
from .encoding import Plane, action_layout, planes_for
from .engine import (
    MAX_LIST_ROWS,
    NO_RUNS,
    Colour,
    Engine,
    KingRuns,
    Move,
    Position,
    checked_king_runs,
    king_run_counters,
    move_from_row,
)
from .kernels import kernel
from .notation import NotationError
from .rules import Ruleset

# Columns of States.st.
T_SIDE, T_HOP, T_RESULT, T_REASON, T_REPS, T_HLEN, T_LAST, T_NROUTES, T_NLEGAL = range(9)
T_COUNTERS = 9
T_LEN = T_COUNTERS + K.G_LEN
CACHE_ROWS = 32  # routes kept per game; a turn with more lists them again at each hop
LEGAL_CAP = 256  # legal next hops kept per game for sampling; more are read from the mask

# Columns of States.cur.
CUR_ORIGIN = 0
CUR_PATH = 1
CUR_CAPS = CUR_PATH + K.MAX_CAPTURES
CUR_LEN = CUR_CAPS + K.MAX_CAPTURES

# Results of play_hop (and HOP_OVERFLOW from write_mask).
HOP_ILLEGAL, HOP_PLAYED, MOVE_DONE = -1, 0, 1
HOP_OVERFLOW = -2  # the scratch list is too small for this turn's routes: nothing changed


class States(NamedTuple):
    """The turn states of a batch of games, one row a game (B rows).

    Attributes:
        board: int8[B, S], the position at the start of the turn.
        st: int64[B, T_LEN], side, hops played, result, reason, repetitions, history
            length, last-move flag, routes listed, legal hops listed, counters (kernels.G_*).
        hist: uint64[B, H], ring of position hashes (H >= the no-progress window).
        cur: int16[B, CUR_LEN], the move in progress: origin, landing squares, taken squares.
        last: int16[B, MOVE_WIDTH], the last complete move, in the kernels' move-row layout.
        cache: int16[B, CACHE_ROWS, MOVE_WIDTH], this turn's routes, once listed, if they fit.
        legal: int16[B, LEGAL_CAP], the legal next hops, once listed with the mask.
        hop_route: int8[B, LEGAL_CAP], the first route in cache that each listed hop plays
            (-1 where the routes were not in cache): a hop finds its route without a search.
        rng: uint64[B], each game's xorshift64* stream (:func:`next_random`); never 0.

    The properties read one column of every game (views, in Python); kernels read one game
    with the accessors (:func:`side_of`, ...).
    """

    board: np.ndarray
    st: np.ndarray
    hist: np.ndarray
    cur: np.ndarray
    last: np.ndarray
    cache: np.ndarray
    legal: np.ndarray
    hop_route: np.ndarray
    rng: np.ndarray

    @property
    def sides(self) -> np.ndarray:
        """The colour to move in each game (kernels.WHITE or BLACK)."""
        return self.st[:, T_SIDE]

    @property
    def results(self) -> np.ndarray:
        """Each game's result code (kernels.ONGOING, WHITE_WINS, BLACK_WINS, DRAW)."""
        return self.st[:, T_RESULT]

    @property
    def reasons(self) -> np.ndarray:
        """Each game's reason code (a kernels.Reason code; Reason.NONE while it goes on)."""
        return self.st[:, T_REASON]

    @property
    def plies(self) -> np.ndarray:
        """The complete moves played in each game."""
        return self.st[:, T_COUNTERS + K.G_PLY]

    @property
    def hops(self) -> np.ndarray:
        """The hops played in each game's current turn."""
        return self.st[:, T_HOP]

    @property
    def counters(self) -> np.ndarray:
        """Each game's counters (kernels.G_* layout, shared with Game)."""
        return self.st[:, T_COUNTERS:]

    def listed_hops(self, g: int) -> list[int] | None:
        """Returns the legal next hops of game g listed with its last mask, sorted (None if
        they were too many to list)."""
        n = int(self.st[g, T_NLEGAL])
        return sorted(self.legal[g, :n].tolist()) if n >= 0 else None


class Tables(NamedTuple):
    """The read-only arrays of one ruleset that the turn kernels read (see :func:`tables`)."""

    action_of: np.ndarray  # int64[S, S]: the action of a hop (origin, target), -1 if none
    rows: np.ndarray  # the row of each square on the board planes
    cols: np.ndarray  # its column
    keys: np.ndarray  # the Zobrist keys
    side_key: Any  # the Zobrist key of the side to move
    ray: np.ndarray  # the board's rays
    rules: np.ndarray  # the ruleset as integers (the compiled_rules.R_* slots)


class Starts(NamedTuple):
    """Where new games start (:func:`new_game`): a position drawn from ``boards`` (int8[K, S])
    and ``sides`` (int64[K]) with each game's stream, then ``plies`` random opening plies."""

    boards: np.ndarray
    sides: np.ndarray
    plies: int


def new_states(rules: Ruleset, n: int) -> States:
    """Returns the zeroed turn states of n games of a ruleset (start each with
    :func:`start_game` or :func:`new_game`); every random stream is 1 until seeded."""
    return States(
        board=np.zeros((n, rules.squares), np.int8),
        st=np.zeros((n, T_LEN), np.int64),
        hist=np.zeros((n, history_size(rules)), np.uint64),
        cur=np.zeros((n, CUR_LEN), np.int16),
        last=np.zeros((n, K.MOVE_WIDTH), np.int16),
        cache=np.zeros((n, CACHE_ROWS, K.MOVE_WIDTH), np.int16),
        legal=np.zeros((n, LEGAL_CAP), np.int16),
        hop_route=np.zeros((n, LEGAL_CAP), np.int8),
        rng=np.ones(n, np.uint64),
    )


def tables(rules: Ruleset) -> Tables:
    """Returns the tables of a ruleset (the engine's and the action layout's arrays)."""
    e = Engine.for_rules(rules)
    layout = action_layout(rules)
    return Tables(
        layout.action_of, layout.row, layout.col, e.zobrist, e.side_key, e.ray, e.rule_array
    )


def history_size(rules: Ruleset) -> int:
    """Returns the hash ring size: enough for the no-progress window (1024 without one).

    Without a no-progress limit a repetition is detected only within the last 1024 plies.
    """
    window = rules.no_progress_plies + 2 if rules.no_progress_plies else 1024
    return 1 << int(np.ceil(np.log2(max(window, 4))))


def grown(scratch: np.ndarray) -> np.ndarray:
    """Returns an empty route scratch list like `scratch` (one thread's, or one per thread),
    four times longer: what a caller does after a HOP_OVERFLOW (many flying kings).

    Raises:
        OverflowError: `scratch` already holds engine.MAX_LIST_ROWS routes.
    """
    return K.grown_move_buffer(scratch, 0, MAX_LIST_ROWS, "routes")


def direct_call(fn: Any, key: Any, *args: Any) -> Any:
    """Calls a kernel with `args` through its compiled entry point, skipping numba's dispatch.

    Numba types a NamedTuple argument in Python at every call (about 4 us for the States,
    a quarter of an env step); the entry point compiled for the argument types skips that.
    `key` must name those types: ``()`` where a caller always passes the same types,
    :func:`array_key` of a caller's array, or None to go through numba's dispatch (a wrong
    key would make the kernel read the wrong bytes: arrays are not checked). Under
    NUMBA_DISABLE_JIT it calls the function.
    """
    entry = _ENTRIES.get((fn, key))
    if entry is None:
        if key is None or not hasattr(fn, "overloads"):
            return fn(*args)
        entry = _ENTRIES[fn, key] = compiled_entry(fn, *args)
    return entry(*args)


def compiled_entry(fn: Any, *sample: Any) -> Callable[..., Any]:
    """Returns a kernel's compiled entry point for the types of the `sample` arguments (loaded
    from numba's cache, or compiled), or the kernel itself under NUMBA_DISABLE_JIT.

    The entry point skips numba's dispatch, which types every argument at every call (about
    0.1 us an array): a caller must pass arguments of exactly the sample's types, since the
    entry point reads them unchecked.
    """
    if not hasattr(fn, "overloads"):
        return fn  # type: ignore[no-any-return]
    sig = tuple(numba.typeof(a) for a in sample)
    fn.compile(sig)
    return fn.overloads[sig].entry_point  # type: ignore[no-any-return]


_ENTRIES: dict[tuple[Any, Any], Callable[..., Any]] = {}


def array_key(a: Any) -> tuple[Any, ...] | None:
    """Returns what numba's type of an array argument depends on, as a key for
    :func:`direct_call` (None if it is not a numpy array)."""
    if type(a) is not np.ndarray:
        return None
    f = a.flags
    return (a.dtype, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned)


# --- Accessors (in kernels) -------------------------------------------------------------------


@kernel(inline="ir")
def side_of(s, g):
    """Returns the colour to move in game g."""
    return s.st[g, T_SIDE]


@kernel(inline="ir")
def result_of(s, g):
    """Returns game g's result code (kernels.ONGOING while it goes on)."""
    return s.st[g, T_RESULT]


@kernel(inline="ir")
def reason_of(s, g):
    """Returns game g's reason code (a kernels.Reason code)."""
    return s.st[g, T_REASON]


@kernel(inline="ir")
def ply_of(s, g):
    """Returns the complete moves played in game g."""
    return s.st[g, T_COUNTERS + K.G_PLY]


# --- Random numbers (one xorshift64* stream per game) ------------------------------------


@kernel(inline="ir")
def next_random(rng, g):
    """Returns the next number of the xorshift64* stream rng[g] (a uint64 of 53 bits)."""
    x = rng[g]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[g] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@kernel()
def random_action(s, g, mask):
    """Returns a uniformly random legal hop of game g from its stream (-1 if none): from the
    hops listed with its mask, or from `mask` (its mask) when they were too many to list."""
    n = s.st[g, T_NLEGAL]
    if n > 0:
        return np.int64(s.legal[g, np.int64(next_random(s.rng, g) % np.uint64(n))])
    if n == 0:
        return np.int64(-1)
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    if count == 0:
        return np.int64(-1)
    pick = next_random(s.rng, g) % np.uint64(count)
    for a in range(mask.shape[0]):
        if mask[a] == 1:
            if pick == 0:
                return np.int64(a)
            pick -= np.uint64(1)
    return np.int64(-1)


# --- Values -----------------------------------------------------------------------------------


@kernel(inline="ir")
def result_value(result, side):
    """Returns a finished game's result for `side`: 1 won, -1 lost, 0 drawn (or going on)."""
    if result == K.DRAW or result == K.ONGOING:
        return 0.0
    white = 1.0 if result == K.WHITE_WINS else -1.0
    return white if side == K.WHITE else -white


#: Piece values of :func:`game_value`: a man 1 and a king 2, whatever the ruleset's kings do
#: (in the engine's hundredths of a man, so the sign is that of men + 2 * kings).
_GAME_VALUE_PIECES = K.piece_values(False, king=2 * K.MAN_VALUE)


@kernel()
def game_value(s, g, t, side):
    """Returns game g's value for `side`: its result if it ended, else the sign of the
    material balance (a man 1, a king 2; under giveaway rules having less is better)."""
    result = s.st[g, T_RESULT]
    if result != K.ONGOING:
        return result_value(result, side)
    balance = K.material(s.board[g], _GAME_VALUE_PIECES)
    if t.rules[R_GIVEAWAY] == 1:
        balance = -balance
    if side == K.BLACK:
        balance = -balance
    return 1.0 if balance > 0 else (-1.0 if balance < 0 else 0.0)


# --- Games ------------------------------------------------------------------------------------


@kernel()
def copy_game(src, i, dst, j):
    """Makes game j of `dst` equal to game i of `src` (same ruleset; a cheap clone for search:
    the listed routes and hops travel with it). The random stream stays."""
    for c in range(src.board.shape[1]):
        dst.board[j, c] = src.board[i, c]
    for c in range(src.st.shape[1]):
        dst.st[j, c] = src.st[i, c]
    for c in range(src.hist.shape[1]):
        dst.hist[j, c] = src.hist[i, c]
    for c in range(src.cur.shape[1]):
        dst.cur[j, c] = src.cur[i, c]
    for c in range(src.last.shape[1]):
        dst.last[j, c] = src.last[i, c]
    for r in range(max(src.st[i, T_NROUTES], 0)):  # only the listed routes are ever read
        for c in range(src.cache.shape[2]):
            dst.cache[j, r, c] = src.cache[i, r, c]
    for k in range(max(src.st[i, T_NLEGAL], 0)):
        dst.legal[j, k] = src.legal[i, k]
        dst.hop_route[j, k] = src.hop_route[i, k]


@kernel(inline="ir")
def start_game(s, g, t, side):
    """Starts game g on its board (already set) with `side` to move."""
    _reset_state(s.board[g], s.st[g], s.hist[g], side, t.keys, t.side_key, t.ray, t.rules)


@kernel()
def new_game(s, g, t, starts, scratch, ws):
    """Starts game g afresh: a start position drawn from `starts` with the game's stream,
    then the opening plies (random hops); an opening that ends the game is drawn again, up
    to 15 times, then the game starts with none. Opening plies count as plies of the game
    (ply limits, draw counters)."""
    for attempt in range(16):
        pick = 0
        if starts.boards.shape[0] > 1:  # uint64 and int64 mixed would make a float index
            pick = np.int64(next_random(s.rng, g) % np.uint64(starts.boards.shape[0]))
        for i in range(s.board.shape[1]):
            s.board[g, i] = starts.boards[pick, i]
        start_game(s, g, t, starts.sides[pick])
        plies = starts.plies if attempt < 15 else 0
        while s.st[g, T_COUNTERS + K.G_PLY] < plies and s.st[g, T_RESULT] == K.ONGOING:
            if random_move(s, g, t, scratch, ws) < 0:
                break
        if s.st[g, T_RESULT] == K.ONGOING:
            break


@kernel()
def random_move(s, g, t, scratch, ws):
    """Plays one uniformly random legal route (a complete move, hop by hop) in game g, at
    the start of a turn, from its stream; returns 0, or a negative status if none was played.

    Uniform over routes, not the mask's distribution: openings only need variety.
    """
    side = s.st[g, T_SIDE]
    counters = s.st[g, T_COUNTERS : T_COUNTERS + K.G_LEN]
    n = K.game_moves(s.board[g], side, counters, t.ray, t.rules, scratch, np.bool_(False), ws)
    if n <= 0 or n > scratch.shape[0]:
        return -1
    r = np.int64(next_random(s.rng, g) % np.uint64(n))
    return play_route(s, g, t, scratch, r, scratch, ws)


@kernel()
def play_route(s, g, t, routes, r, scratch, ws):
    """Plays route r of `routes` (a move list of game g's position, kernels' row layout) in
    game g, hop by hop, at the start of a turn; returns 0, or the negative status of the hop
    that was refused. `routes` may be `scratch` itself only when it holds the routes as the
    hops list them (unmerged, as :func:`random_move` does): the hops rewrite scratch."""
    side = s.st[g, T_SIDE]
    squares = t.rules[R_SQUARES]
    hops = max(routes[r, K.M_NCAP], 1)
    for k in range(hops):
        origin = routes[r, K.M_FROM] if k == 0 else routes[r, K.M_PATH + k - 1]
        target = routes[r, K.M_PATH + k]
        if side == K.BLACK:
            origin, target = squares - 1 - origin, squares - 1 - target
        status = play_hop(s, g, t, t.action_of[origin, target], scratch, ws)
        if status < 0:
            return status
    return 0


# --- Hops, mask and planes -------------------------------------------------------------------
# The public kernels take the bundles and are inlined where they are called; the work is
# done by private kernels over one game's arrays, so that a call between compiled functions
# passes a few arrays, not the whole bundles (that made a batch step twice as slow).


@kernel(inline="ir")
def check_hop(s, g, t, action, scratch, ws):
    """Returns HOP_PLAYED if `action` is a legal next hop of game g, else HOP_ILLEGAL (or
    HOP_OVERFLOW if the scratch list is too small to tell); plays nothing.

    Reads the hops listed with the mask, or the routes when they were too many to list,
    never the mask itself: the caller may have written into that.
    """
    n = s.st[g, T_NLEGAL]
    if n >= 0 and s.st[g, T_RESULT] == K.ONGOING:  # the hops listed with the mask: no call
        for i in range(n):
            if s.legal[g, i] == action:
                return HOP_PLAYED
        return HOP_ILLEGAL
    return _check_route(
        s.board[g], s.st[g], s.cur[g], s.cache[g], np.int64(action), t.action_of, t.ray,
        t.rules, scratch, ws,
    )  # fmt: skip


@kernel(inline="ir")
def play_hop(s, g, t, action, scratch, ws):
    """Plays one hop in game g; returns HOP_ILLEGAL or HOP_OVERFLOW (nothing changed),
    HOP_PLAYED or MOVE_DONE."""
    return _play_hop(
        s.board[g], s.st[g], s.hist[g], s.cur[g], s.last[g], s.cache[g], s.legal[g],
        s.hop_route[g], np.int64(action), t.action_of, t.keys, t.side_key, t.ray, t.rules,
        scratch, ws,
    )  # fmt: skip


@kernel(inline="ir")
def write_mask(s, g, t, mask, scratch, ws):
    """Writes game g's legal next hops into mask (zeros once the game ended) and lists them;
    returns HOP_OVERFLOW if the scratch list is too small, else 0."""
    return _write_mask(
        s.board[g], s.st[g], s.cur[g], s.cache[g], s.legal[g], s.hop_route[g], mask,
        t.action_of, t.ray, t.rules, scratch, ws,
    )  # fmt: skip


@kernel(inline="ir")
def write_planes(s, g, t, obs, view_side):
    """Writes game g's observation planes in the view of `view_side` (see
    damas_env.encoding)."""
    _write_planes(s.board[g], s.st[g], s.cur[g], obs, view_side, t.rows, t.cols, t.rules)


# --- One game's arrays ------------------------------------------------------------------------


@kernel()
def _begin_turn(board, st, hist, ray, rules):
    """Starts the turn of the side to move: no hops played, the game's result so far."""
    counters = st[T_COUNTERS : T_COUNTERS + K.G_LEN]
    has_move = K.game_has_move(board, st[T_SIDE], counters, ray, rules)
    _open_turn(board, st, hist, has_move, -1, rules)


@kernel()
def _begin_listed_turn(board, st, hist, cache, ray, rules, ws):
    """Starts the turn of the side to move as _begin_turn does, with its routes listed in
    cache if they fit (a mask or a hop would list them next): the side has a move if it
    has a route, and no other search is made for one."""
    counters = st[T_COUNTERS : T_COUNTERS + K.G_LEN]
    n = K.game_moves(board, st[T_SIDE], counters, ray, rules, cache, np.bool_(False), ws)
    fits = n <= cache.shape[0]
    has_move = n > 0 if fits else K.game_has_move(board, st[T_SIDE], counters, ray, rules)
    _open_turn(board, st, hist, has_move, n if fits else -1, rules)


@kernel(inline="ir")
def _open_turn(board, st, hist, has_move, routes, rules):
    """Sets a new turn's state: no hops played, `routes` routes in cache (-1: none listed),
    no hop listed, the game's result so far."""
    st[T_HOP] = 0
    st[T_NROUTES] = routes
    st[T_NLEGAL] = -1
    counters = st[T_COUNTERS : T_COUNTERS + K.G_LEN]
    reps = K.count_repetitions(hist, st[T_HLEN], counters[K.G_SINCE_MAN_OR_CAPTURE])
    st[T_REPS] = reps
    result, reason = K.outcome(board, st[T_SIDE], has_move, counters, reps, rules)
    st[T_RESULT] = result
    st[T_REASON] = reason


@kernel()
def _reset_state(board, st, hist, side, keys, side_key, ray, rules):
    """Starts a game on `board` (already set) with `side` to move."""
    for i in range(st.shape[0]):
        st[i] = 0
    st[T_SIDE] = side
    st[T_HLEN] = 1
    hist[0] = K.hash_position(board, side, keys, side_key)
    _begin_turn(board, st, hist, ray, rules)


@kernel(inline="ir")
def hop_action(routes, r, k, flip, squares, action_of):
    """Returns the action of hop k of route r, in the view of the side to move."""
    origin = routes[r, K.M_FROM] if k == 0 else routes[r, K.M_PATH + k - 1]
    target = routes[r, K.M_PATH + k]
    if flip:
        origin = squares - 1 - origin
        target = squares - 1 - target
    return action_of[origin, target]


@kernel(inline="ir")
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
    counters = st[T_COUNTERS : T_COUNTERS + K.G_LEN]
    n = K.game_moves(board, st[T_SIDE], counters, ray, rules, cache, np.bool_(False), ws)
    if n <= cache.shape[0]:
        st[T_NROUTES] = n
        return True, n
    n = K.game_moves(board, st[T_SIDE], counters, ray, rules, scratch, np.bool_(False), ws)
    return False, (n if n <= scratch.shape[0] else -1)


@kernel()
def _find_route(board, st, cur, cache, action, action_of, ray, rules, scratch, ws):
    """Returns (in cache, the first route in play whose next hop is `action`), the route
    HOP_ILLEGAL if there is none and HOP_OVERFLOW if the scratch list is too small."""
    num_actions = rules[R_SQUARES] * rules[R_DIRS] * (rules[R_SIZE] - 1)
    if st[T_RESULT] != K.ONGOING or action < 0 or action >= num_actions:
        return True, HOP_ILLEGAL
    in_cache, n = _listed(board, st, cache, scratch, ray, rules, ws)
    if n < 0:
        return in_cache, HOP_OVERFLOW
    routes = cache if in_cache else scratch
    squares, k, flip = rules[R_SQUARES], st[T_HOP], st[T_SIDE] == K.BLACK
    for r in range(n):
        if (
            _in_play(routes, r, st, cur)
            and hop_action(routes, r, k, flip, squares, action_of) == action
        ):
            return in_cache, r
    return in_cache, HOP_ILLEGAL


_UNLISTED = -4  # _listed_route: the hops or their routes are not listed: search the routes


@kernel(inline="ir")
def _listed_route(st, legal, hop_route, action):
    """Returns the route in cache of hop `action`, read from the hops listed with the mask:
    HOP_ILLEGAL if the hop is not listed, _UNLISTED if the hops or their routes were not
    listed (_find_route searches then). The route is the one _find_route finds."""
    n = st[T_NLEGAL]
    if n < 0 or st[T_NROUTES] < 0 or st[T_RESULT] != K.ONGOING:
        return np.int64(_UNLISTED)
    for i in range(n):
        if legal[i] == action:
            r = np.int64(hop_route[i])
            return r if r >= 0 else np.int64(_UNLISTED)
    return np.int64(HOP_ILLEGAL)


@kernel()
def _check_route(board, st, cur, cache, action, action_of, ray, rules, scratch, ws):
    """check_hop where the legal hops were not listed (or the game ended): returns HOP_PLAYED
    if a route in play goes on with `action`, else HOP_ILLEGAL (or HOP_OVERFLOW if the
    scratch list is too small to tell); plays nothing."""
    found = _find_route(board, st, cur, cache, action, action_of, ray, rules, scratch, ws)[1]
    return found if found < 0 else HOP_PLAYED


@kernel(inline="ir")
def _play_hop(
    board, st, hist, cur, last, cache, legal, hop_route, action, action_of, keys, side_key, ray,
    rules, scratch, ws,
):  # fmt: skip
    """Plays one hop; returns HOP_ILLEGAL or HOP_OVERFLOW (nothing changed), HOP_PLAYED or
    MOVE_DONE."""
    in_cache, found = True, _listed_route(st, legal, hop_route, action)
    if found == _UNLISTED:
        in_cache, found = _find_route(
            board, st, cur, cache, action, action_of, ray, rules, scratch, ws
        )  # fmt: skip
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
    _begin_listed_turn(board, st, hist, cache, ray, rules, ws)
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
def _write_mask(board, st, cur, cache, legal, hop_route, mask, action_of, ray, rules, scratch, ws):
    """Writes the legal next hops of the side to move into mask (zeros once the game ended)
    and lists them in legal, with the first route of each in hop_route (-1 if the routes are
    not in cache); returns HOP_OVERFLOW if the scratch list is too small, else 0."""
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
            a = hop_action(routes, r, k, flip, rules[R_SQUARES], action_of)
            if mask[a] == 0:
                mask[a] = 1
                if count < legal.shape[0]:
                    legal[count] = a
                    hop_route[count] = r if in_cache else -1
                count += 1
    st[T_NLEGAL] = count if count <= legal.shape[0] else -1
    return 0


@kernel()
def _write_planes(board, st, cur, obs, view_side, rows, cols, rules):
    """Writes the observation planes of `view_side` (see damas_env.encoding)."""
    for p in range(obs.shape[0]):
        for i in range(obs.shape[1]):
            for j in range(obs.shape[2]):
                obs[p, i, j] = 0
    squares = rules[R_SQUARES]
    sgn = 1 - 2 * view_side
    flip = view_side == K.BLACK
    moving = cur[CUR_ORIGIN] if st[T_HOP] > 0 else -1
    if rules[R_WORD] == 1:
        _write_pieces_on_bits(board, obs, view_side, moving, rows, cols, rules)
    else:
        _write_pieces(board, obs, sgn, moving, rows, cols, rules)
    if moving >= 0:
        _write_capture_in_progress(board, st, cur, obs, sgn, flip, rows, cols, rules)
    _fill_counter_planes(st, obs, rules)
    if obs.shape[0] > Plane.OWN_KING_RUN:  # a king move limit (Frisian rules art. 10)
        for who in range(2):  # OWN_KING_RUN, then OPPONENT_KING_RUN
            side = view_side if who == 0 else 1 - view_side
            run = st[T_COUNTERS + K.G_RUN + 2 * side]
            sq = st[T_COUNTERS + K.G_RUN_SQ + 2 * side]
            if run > 0 and rules[R_KING_LIMIT] > 0 and board[sq] * (1 - 2 * side) == 2:
                v = squares - 1 - sq if flip else sq
                run_plane = Plane.OWN_KING_RUN + who
                obs[run_plane, rows[v], cols[v]] = min(1.0, run / rules[R_KING_LIMIT])


@kernel(inline="ir")
def _write_pieces_on_bits(board, obs, view_side, moving, rows, cols, rules):
    """Writes the pieces' planes (but the moving piece's) from the board's bit sets: one
    write a piece, no test of each square (the board fits a word)."""
    own_m, own_k, opp_m, opp_k, _ = K.side_sets(K.board_bits(board, rules), view_side)
    keep = ~np.uint64(0)
    if moving >= 0:
        keep = ~(np.uint64(1) << np.uint64(rules[R_BIT + moving]))
    flip = view_side == K.BLACK
    _write_set(own_m & keep, Plane.OWN_MEN, obs, flip, rows, cols, rules)
    _write_set(own_k & keep, Plane.OWN_KINGS, obs, flip, rows, cols, rules)
    _write_set(opp_m & keep, Plane.OPPONENT_MEN, obs, flip, rows, cols, rules)
    _write_set(opp_k & keep, Plane.OPPONENT_KINGS, obs, flip, rows, cols, rules)


@kernel(inline="ir")
def _write_set(x, plane, obs, flip, rows, cols, rules):
    """Writes a 1 on `plane` at each square of the bit set x (in the view: flipped for
    black)."""
    last = rules[R_SQUARES] - 1
    while x != 0:
        sq = rules[R_SQ + K.lowest_bit(x)]
        v = last - sq if flip else sq
        obs[plane, rows[v], cols[v]] = 1
        x &= x - np.uint64(1)


@kernel(inline="ir")
def _write_pieces(board, obs, sgn, moving, rows, cols, rules):
    """Writes the pieces' planes (but the moving piece's) square by square (a board beyond a
    word)."""
    squares = rules[R_SQUARES]
    for s in range(squares):
        p = board[s]
        if p == 0 or s == moving:
            continue
        v = squares - 1 - s if sgn < 0 else s
        men = Plane.OWN_MEN if p * sgn > 0 else Plane.OPPONENT_MEN
        obs[men + (1 if p == 2 or p == -2 else 0), rows[v], cols[v]] = 1  # kings: the next plane


@kernel()
def _write_capture_in_progress(board, st, cur, obs, sgn, flip, rows, cols, rules):
    """Writes the moving piece (its piece plane and MOVING_PIECE) and the pieces it has taken
    (TAKEN_THIS_MOVE)."""
    squares, half = rules[R_SQUARES], rules[R_ROW]
    piece = board[cur[CUR_ORIGIN]]
    king = piece == 2 or piece == -2
    side = 0 if piece > 0 else 1
    hops = st[T_HOP]
    for k in range(hops):  # Russian rules: crowned on the far row mid-capture
        far = _far_row(cur[CUR_PATH + k], side, squares, half)
        king = king or (rules[R_PROMO] == PROMO_CROWN and far)
        x = cur[CUR_CAPS + k]
        vx = squares - 1 - x if flip else x
        obs[Plane.TAKEN_THIS_MOVE, rows[vx], cols[vx]] = 1
    at = cur[CUR_PATH + hops - 1]
    v = squares - 1 - at if flip else at
    men = Plane.OWN_MEN if piece * sgn > 0 else Plane.OPPONENT_MEN
    obs[men + (1 if king else 0), rows[v], cols[v]] = 1  # kings: the next plane
    obs[Plane.MOVING_PIECE, rows[v], cols[v]] = 1


@kernel(inline="ir")
def _far_row(sq, side, squares, half):
    return sq < half if side == K.WHITE else sq >= squares - half


@kernel()
def _fill_counter_planes(st, obs, rules):
    limit = rules[R_NO_PROGRESS]
    since = st[T_COUNTERS + K.G_SINCE_PROMOTION_OR_CAPTURE]
    if rules[R_PROGRESS] == PROGRESS_MAN_MOVE:
        since = st[T_COUNTERS + K.G_SINCE_MAN_OR_CAPTURE]
    progress = min(1.0, since / limit) if limit > 0 else 0.0
    reps = rules[R_REPETITION]
    repetition = min(1.0, (st[T_REPS] - 1) / (reps - 1)) if reps > 1 else 0.0
    if progress == 0.0 and repetition == 0.0:
        return
    for i in range(obs.shape[1]):
        for j in range(obs.shape[2]):
            obs[Plane.NO_PROGRESS, i, j] = progress
            obs[Plane.REPETITION, i, j] = repetition


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


_COLOURS = (Colour.WHITE, Colour.BLACK)  # by code


class Turn:
    """One game's turn state with its compiled kernels: the core of ``draughts_v0``.

    A batch of one: ``states`` holds one game (row 0); ``board``, ``st``, ``hist``, ``cur``,
    ``last``, ``cache``, ``legal`` and ``hop_route`` are views of its rows. Everything is
    preallocated; a hop is one compiled call, the mask and the planes one each: the per-game
    kernels on those views, which numba's dispatch types in C (a call with the bundles goes through
    :func:`direct_call`).
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.engine = Engine.for_rules(rules)
        self.layout = action_layout(rules)
        self.tables = tables(rules)
        self.states = new_states(rules, 1)
        self.board = self.states.board[0]
        self.st = self.states.st[0]
        self.hist = self.states.hist[0]
        self.cur = self.states.cur[0]
        self.last = self.states.last[0]
        self.cache = self.states.cache[0]
        self.legal = self.states.legal[0]
        self.hop_route = self.states.hop_route[0]
        self.routes = K.new_move_buffer()  # the route scratch list (grown on overflow)
        self.ws = self.engine.workspace
        self.planes = planes_for(rules)
        TURN_KERNELS.load(rules)
        # The env's calls, past numba's dispatch: their arguments' types never change (a grown
        # route list is int16 too; the env's masks and planes are new arrays made here).
        t = self.tables
        self._play_hop = compiled_entry(
            _play_hop, self.board, self.st, self.hist, self.cur, self.last, self.cache,
            self.legal, self.hop_route, 0, t.action_of, t.keys, t.side_key, t.ray, t.rules,
            self.routes, self.ws,
        )  # fmt: skip
        self._write_mask = compiled_entry(
            _write_mask, self.board, self.st, self.cur, self.cache, self.legal, self.hop_route,
            np.zeros(self.layout.num_actions, np.int8), t.action_of, t.ray, t.rules,
            self.routes, self.ws,
        )  # fmt: skip
        size = rules.board_size
        self._write_planes = compiled_entry(
            _write_planes, self.board, self.st, self.cur,
            np.zeros((self.planes, size, size), np.float32), 0, t.rows, t.cols, t.rules,
        )  # fmt: skip

    def reset(self, board: np.ndarray, side: Colour | int, king_runs: KingRuns = NO_RUNS) -> None:
        """Starts a game from a board with `side` to move and the king runs of the game that
        led to it (:attr:`Position.king_runs`: the Frisian king move limit), so that the turn
        allows the game's moves: ``turn.reset(p.board, p.turn, p.king_runs)``.

        Raises:
            TypeError, ValueError: bad king runs (as :class:`Position` says).
        """
        runs = checked_king_runs(king_runs, self.rules)  # NO_RUNS without a king move limit
        self.board[:] = board
        direct_call(start_game, (), self.states, 0, self.tables, int(side))
        if runs != NO_RUNS:  # the runs in the counters (zeros now), then the turn begun again
            self.counters[:] = king_run_counters(runs)
            t = self.tables
            _begin_turn(self.board, self.st, self.hist, t.ray, t.rules)

    def copy_from(self, other: Turn) -> None:
        """Makes this turn state equal to another of the same ruleset (a cheap clone for
        search: the listed routes travel with it).

        Raises:
            ValueError: other plays another ruleset (the kernel does not check sizes).
        """
        if other.rules is not self.rules and other.rules != self.rules:
            raise ValueError(
                f"copy_from: this turn state plays {self.rules.name!r}, not {other.rules.name!r}"
            )
        direct_call(copy_game, (), other.states, 0, self.states, 0)

    def forget_listing(self) -> None:
        """Drops the routes and hops listed for this turn, so that the next hop or mask lists
        them again: what a caller does after writing the board or the counters (an undo)."""
        self.st[T_NROUTES] = -1
        self.st[T_NLEGAL] = -1

    def play(self, action: int) -> int:
        """Plays one hop; returns HOP_ILLEGAL (nothing changed), HOP_PLAYED or MOVE_DONE.

        Raises:
            TypeError: action is not an int (a float would compile another kernel).
        """
        if type(action) is not int:
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
                raise TypeError(
                    f"action must be an int, not {type(action).__name__} {shown(action)}"
                )
            action = int(action)  # a numpy int32 or uint64 would compile the kernels again
        if not 0 <= action < self.layout.num_actions:  # also keeps it within int64
            return HOP_ILLEGAL
        t = self.tables
        while True:
            status = int(
                self._play_hop(
                    self.board,
                    self.st,
                    self.hist,
                    self.cur,
                    self.last,
                    self.cache,
                    self.legal,
                    self.hop_route,
                    action,
                    t.action_of,
                    t.keys,
                    t.side_key,
                    t.ray,
                    t.rules,
                    self.routes,
                    self.ws,
                )  # fmt: skip
            )
            if status != HOP_OVERFLOW:
                return status
            self.routes = grown(self.routes)

    def play_move(self, squares: tuple[int, ...]) -> None:
        """Plays a complete legal move, given by its squares (origin, then each landing),
        hop by hop in the view of the side to move.

        Raises:
            RuntimeError: the hops do not complete a move (the move was not legal here); the
                hops played before the refused one stay played.
        """
        side, status = self.side, MOVE_DONE
        for a, b in zip(squares, squares[1:], strict=False):
            status = self.play(self.layout.hop_action(a, b, side))
        if status != MOVE_DONE:
            raise RuntimeError(f"the turn state refused the legal move through {squares}")

    def write_mask(self, mask: np.ndarray) -> None:
        """Writes the legal next hops (int8 0/1 per action) into mask."""
        self._mask_into(_write_mask, mask)

    def new_mask(self) -> np.ndarray:
        """Returns a new int8 array of the legal next hops (0/1 per action)."""
        mask = np.empty(self.layout.num_actions, np.int8)
        self._mask_into(self._write_mask, mask)
        return mask

    def _mask_into(self, write: Any, mask: np.ndarray) -> None:
        """Writes the mask with `write` (the kernel, or its entry point for a new mask)."""
        t = self.tables
        while (
            write(
                self.board,
                self.st,
                self.cur,
                self.cache,
                self.legal,
                self.hop_route,
                mask,
                t.action_of,
                t.ray,
                t.rules,
                self.routes,
                self.ws,
            )  # fmt: skip
            == HOP_OVERFLOW
        ):
            self.routes = grown(self.routes)

    def write_planes(self, obs: np.ndarray, view: Colour | int) -> None:
        """Writes the observation planes (C, N, N) of the agent playing `view` into obs."""
        t = self.tables
        _write_planes(self.board, self.st, self.cur, obs, int(view), t.rows, t.cols, t.rules)

    def new_planes(self, view: Colour | int) -> np.ndarray:
        """Returns a new float32 array of the observation planes (C, N, N) of the agent
        playing `view`."""
        size = self.rules.board_size
        obs = np.empty((self.planes, size, size), np.float32)
        t = self.tables
        self._write_planes(self.board, self.st, self.cur, obs, int(view), t.rows, t.cols, t.rules)
        return obs

    # --- Reading the state ------------------------------------------------------------------

    @property
    def side(self) -> Colour:
        """Returns the colour to move."""
        return _COLOURS[self.st[T_SIDE]]  # a tuple index: Colour(code) costs 4x more

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
        """Returns the reason code (a kernels.Reason code; Reason.NONE while the game goes on)."""
        return int(self.st[T_REASON])

    @property
    def ply(self) -> int:
        """Returns the plies (complete moves) played."""
        return int(self.st[T_COUNTERS + K.G_PLY])

    @property
    def counters(self) -> np.ndarray:
        """Returns the game counters (kernels.G_* layout), shared with Game."""
        return self.st[T_COUNTERS:]

    @property
    def repetitions(self) -> int:
        """Returns how many times the position of this turn has occurred (this time
        included), counted in the history ring."""
        return int(self.st[T_REPS])

    def last_move(self) -> Move | None:
        """Returns the last complete move, or None before the first."""
        return move_from_row(self.last) if self.st[T_LAST] else None

    def routes_in_play(self) -> list[Move]:
        """Returns the legal routes that begin with the hops played this turn."""
        position = Position.of_game(self.rules, self.board, self.side, self.counters)
        position_routes = self.engine.legal_moves(position, merge=False)
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


def _turn_calls(rules: Ruleset) -> list[tuple[Any, tuple[Any, ...]]]:
    """Returns the kernels :class:`Turn` calls, with arguments of the types it calls them with
    (a hop is an int, the planes float32)."""
    s, t = new_states(rules, 1), tables(rules)
    routes, ws = K.new_move_buffer(), Engine.for_rules(rules).workspace
    one = (s.board[0], s.st[0], s.hist[0], s.cur[0], s.last[0], s.cache[0], s.legal[0])
    board, st, hist, cur, last, cache, legal = one
    hop_route = s.hop_route[0]
    mask = np.zeros(action_layout(rules).num_actions, np.int8)
    planes = np.zeros((1, rules.board_size, rules.board_size), np.float32)
    return [
        (start_game, (s, 0, t, 0)),
        (_begin_turn, (board, st, hist, t.ray, t.rules)),
        (copy_game, (s, 0, s, 0)),
        (_play_hop, (board, st, hist, cur, last, cache, legal, hop_route, 0, t.action_of, t.keys,
                     t.side_key, t.ray, t.rules, routes, ws)),
        (_write_mask, (board, st, cur, cache, legal, hop_route, mask, t.action_of, t.ray,
                       t.rules, routes, ws)),
        (_write_planes, (board, st, cur, planes, 0, t.rows, t.cols, t.rules)),
    ]  # fmt: skip


#: The turn-state kernels, loaded (or compiled, on a first run) with a process's first Turn.
TURN_KERNELS = K.EntryPoints(_turn_calls)
