"""Compiled engine kernels: move generation, apply/undo, hashing, material, draw counters, perft.

The only place where the rules are executed: everything else calls these functions, and
:mod:`damas_env.engine` wraps them. They work on numpy arrays and integers, compiled by numba
(:func:`kernel`), or as plain Python under ``NUMBA_DISABLE_JIT=1``. Layouts::

    board  int8[S]   0 empty, +1 white man, +2 white king, -1 black man, -2 black king;
                     MARK (3), inside kernels only: a piece taken in the capture being
                     searched (Turkish strike: it still blocks, and cannot be taken twice)
    side   0 = White, 1 = Black (sgn = 1 - 2 * side)
    bits   uint64 bit sets (white men, white kings, black men, black kings, every square)
           where the board fits a word: board_bits; bits_after keeps them move by move;
           on 12x12, sets of two words (damas_env.wide: two_word_bits) for perft's counts
    rules  int64[R_LEN] from compiled_rules.rules_array (slots and codes are that module's);
           ray[sq, slot, k] over the ruleset's lines (compiled_rules.ray_slots): direction
           numbers in the kernels are these slots
    moves  int16[M, MOVE_WIDTH], one row per move:
           col 0 from | 1 to | 2 ncap | 3 crown | 4.. path (ncap landings; 1 for a step)
           | M_CAPS.. captured squares in capture order | M_CODES.. their piece codes | M_MARK
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterable
from enum import IntEnum
from typing import Any

import numpy as np
from numba import njit, typeof, types
from numba.core import event
from numba.extending import intrinsic, overload

from . import kernel_cache  # noqa: F401 - before any kernel: their cache covers every source
from .compiled_rules import (  # the rules array's slots and codes, constants to numba
    ENDGAME_FRISIAN,
    LANDING_IMMEDIATE,
    LANDING_RIGHT_BEHIND,
    PROGRESS_MAN_MOVE,
    PROMO_CROWN,
    PROMO_ENDS,
    R_BIT,
    R_CAP_HI,
    R_CAP_LO,
    R_CROWN,
    R_ENDGAME,
    R_FIRST_KING,
    R_FLYING,
    R_GIVEAWAY,
    R_KING_LIMIT,
    R_KING_WEIGHT,
    R_LANDING,
    R_LIMIT_MATERIAL,
    R_LSH,
    R_MAJORITY,
    R_MAN_DIRS,
    R_MEN_BACK,
    R_MEN_TAKE_KINGS,
    R_MOVE_LO,
    R_NO_PROGRESS,
    R_PLY_LIMIT,
    R_PROGRESS,
    R_PROMO,
    R_RANKED,
    R_REPETITION,
    R_REVERSE,
    R_ROW,
    R_RSH,
    R_SQ,
    R_SQUARES,
    R_SRC,
    R_SRC_HI,
    R_TIEBREAK,
    R_TURKISH,
    R_WORD,
    TB_EARLIEST_KING,
    TB_MOST_KINGS,
    TB_WITH_KING,
    WORD_ONE,
)
from .geometry import NUM_DIRECTIONS  # 4 diagonals, 4 orthogonals
from .wide import WideInt, WideType, wide_from, wide_lowest_bit, wide_popcount


def kernel(
    inline: bool | str = False,
    parallel: bool = False,
    fastmath: bool = False,
    nogil: bool = False,
) -> Callable[[Callable[..., Any]], Any]:
    """Returns numba's ``njit`` set up for engine kernels: cached, no reference counting.

    Kernels never allocate, so numba's reference counting (``_nrt``) is off: with it every
    call that passes an array pays atomic increments and decrements, which made move
    generation 40x slower (and threads would contend for the same counters).

    ``inline`` makes the function a part of each caller. ``inline=True``: numba compiles it
    once for its argument types and LLVM inlines that code at every call (``forceinline``),
    so passing arrays and bundles to it costs nothing; the rules kernels and the search,
    whose helpers are called from many places, inline so (the rules engine's first compile
    a fifth shorter than with numba's inlining, the search's as long; both run as fast or
    faster).
    ``inline="ir"``: numba inlines the function's IR into each caller and types it there
    again. Each compiled unit re-optimises in LLVM all the code linked below it, so a chain
    of helpers each called once (the turn-state, batch and tree kernels) compiles faster
    this way (as compiled units the batch env's first compile took 60% longer). It is also
    the mode of a function that takes a function as an argument (numba resolves it in each
    caller; as a unit, perft's recursion crashed when loaded from the cache) and of the
    search's root, inlined into the iterative deepening so that ``_negamax`` is linked into
    one caller only. ``parallel`` compiles ``prange`` loops to threads;
    ``fastmath`` lets float sums be reordered (SIMD dot products; results differ in the last
    bits); ``nogil`` releases Python's global lock while the kernel runs, so that the
    process's other threads run meanwhile (a long search, while another thread reads input).

    Kernels pass constants to other kernels as typed values (``np.int64(0)``,
    ``np.bool_(True)``), and indexes from ``prange`` (uint64) or int32 arrays as
    ``np.int64(...)``: numba compiles a callee once more for each literal or integer type it
    is called with, and compiling is what a first run waits for. ``tests/test_compile.py``
    and ``benchmarks/cold_start.py --specialisations`` find the kernels built twice.
    """
    if not (inline is False or inline is True or inline == "ir"):
        raise ValueError(f"inline must be False, True or 'ir', not {inline!r}")
    options: dict[str, Any] = {"cache": True, "_nrt": False}
    if inline == "ir":
        options["inline"] = "always"
    elif inline:
        options["forceinline"] = True
    if parallel:
        options["parallel"] = True
    if fastmath:
        options["fastmath"] = True
    if nogil:
        options["nogil"] = True
    return njit(**options)


def load_kernels(calls: Iterable[tuple[Any, tuple[Any, ...]]]) -> None:
    """Loads each kernel for the types of its arguments, from numba's cache, or compiles it
    there (a first run); runs nothing. Under ``NUMBA_DISABLE_JIT`` it does nothing.

    numba compiles a kernel for the types of each first call and caches it on disk, so a
    process that calls a kernel, or a type, that no process called before compiles again,
    whatever else it finds in the cache. Each part of the package therefore calls each of
    its kernels with one set of types (its Python layer normalises what it is given:
    ``int(side)``, int64 actions, a writable int8 board), and loads them all at its first use
    in a process (:class:`EntryPoints`): a first run compiles the whole part at once, and any
    later use of it, in any process, compiles nothing (``tests/test_compile.py``).
    """
    for fn, args in calls:
        if hasattr(fn, "compile"):
            fn.compile(tuple(typeof(a) for a in args))


class EntryPoints:
    """The kernels one part's Python layer calls, each with the one signature it calls it
    with, loaded together at the part's first use in a process (see :func:`load_kernels`).

    Args:
        calls: returns each kernel with sample arguments of the types the part calls it
            with, made from what :meth:`load` is given (an engine, a ruleset, a batch env).
    """

    def __init__(self, calls: Callable[..., Iterable[tuple[Any, tuple[Any, ...]]]]) -> None:
        self.calls = calls
        self.loaded: set[Any] = set()

    def load(self, *args: Any, key: Any = None) -> None:
        """Loads the kernels once per process (per `key`: a type the user chose, such as the
        batch env's observation dtype), with sample arguments made from `args`."""
        if key not in self.loaded:
            self.loaded.add(key)
            load_kernels(self.calls(*args))


#: What compiling each module's kernels is called in the first-compile note: this package's,
#: and those that other packages name with :func:`name_kernels`.
COMPILING = {
    "damas_env.kernels": "the rules kernels",
    "damas_env.turn": "the turn-state kernels",
    "damas_env.vector": "the batch environment's kernels",
    "damas_env.ending": "the ending kernels",
}


def name_kernels(module: str, what: str) -> None:
    """Says what the kernels of `module` are called in the first-compile note ("the tree
    search"), so that compiling them is announced like this package's own."""
    COMPILING[module] = what


def _write_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class CompileNotice(event.Listener):
    """Prints one line to stderr when numba starts compiling a kernel of a module of this
    package (or one named with :func:`name_kernels`) for the first time in the process (a
    cache miss: loading cached code is not compiling), so that a first run says why it is
    silent for a while."""

    def __init__(self) -> None:
        self.noted: set[str] = set()
        self.write: Callable[[str], None] = _write_stderr
        """Writes one line; a caller with a progress bar on screen sets its own (tqdm.write),
        so that the note never lands inside the bar."""

    def on_start(self, ev: event.Event) -> None:
        module = getattr(ev.data["dispatcher"].py_func, "__module__", "") or ""
        ours = module.startswith("damas_env.") or module in COMPILING
        if not ours or module in self.noted:
            return
        self.noted.add(module)
        what = COMPILING.get(module, f"the kernels of {module}")
        self.write(
            f"damas-env: compiling {what} with numba (first run only, cached afterwards; "
            "a minute on a busy machine)"
        )

    def on_end(self, ev: event.Event) -> None:
        pass


NOTICE = CompileNotice()
event.register("numba:compile", NOTICE)


class CompileCollector(event.Listener):
    """Raises the garbage collector's first threshold while numba compiles, and puts back
    the process's own when the outermost compile ends (on an error too).

    numba's compiler holds a great many small objects (IR, types, LLVM wrappers) for as
    long as a kernel compiles; at Python's threshold (a young collection every 700 net
    allocations) the collector walks them over and over, about a tenth of a first run's
    wait (``benchmarks/cold_start.py``: the search stage's compile 4-5 s shorter). Garbage
    left by a compile is collected after it, at the process's thresholds; the peak memory
    of a first run grows by about a tenth. Collections stay on, as the process had them.
    """

    YOUNG = 100_000  # net allocations between young collections while compiling

    def __init__(self) -> None:
        self.depth = 0
        self.saved: tuple[int, int, int] = gc.get_threshold()

    def on_start(self, ev: event.Event) -> None:
        if self.depth == 0:
            self.saved = gc.get_threshold()
            if 0 < self.saved[0] < self.YOUNG:  # 0: the process turned collection off
                gc.set_threshold(self.YOUNG, *self.saved[1:])
        self.depth += 1

    def on_end(self, ev: event.Event) -> None:
        self.depth -= 1
        if self.depth == 0:
            gc.set_threshold(*self.saved)


COLLECTOR = CompileCollector()
event.register("numba:compile", COLLECTOR)


# --- Layout constants -----------------------------------------------------------------------

MARK = 3
WHITE, BLACK = 0, 1

# Move rows.
MAX_CAPTURES = 32  # a move never takes more than 30 pieces (Canadian: 30 men a side)
M_FROM, M_TO, M_NCAP, M_CROWN, M_PATH = 0, 1, 2, 3, 4
M_CAPS = M_PATH + MAX_CAPTURES
M_CODES = M_CAPS + MAX_CAPTURES
M_MARK = M_CODES + MAX_CAPTURES  # scratch flag used while filtering a list
MOVE_WIDTH = M_MARK + 1
MAX_MOVES = 2048  # default list size; generate_moves reports an overflow, callers grow

# Move-generation workspace: one row per capture depth, then the row listing the squares of
# the side to move's pieces (generate_moves).
W_SQ, W_KING, W_DIR, W_X, W_CODE, W_NLAND, W_LI, W_FOUND, W_TERM, W_T, W_LAND = range(11)
WS_PIECES = MAX_CAPTURES + 2
WS_ROWS = WS_PIECES + 1

# Game counters (see after_move / outcome). G_RUN_SQ + 2 * side: the square of the king
# that made side's last non-capturing moves, G_RUN + 2 * side how many in a row (0: none).
G_PLY, G_SINCE_MAN_OR_CAPTURE, G_SINCE_PROMOTION_OR_CAPTURE = 0, 1, 2
G_RUN_SQ, G_RUN = 3, 4
G_LEN = 7

# Results.
ONGOING, WHITE_WINS, BLACK_WINS, DRAW = 0, 1, 2, 3


class Reason(IntEnum):
    """Why a game ended: one code for the kernels, :class:`~damas_env.game.Game`, the envs'
    infos and JSON (:mod:`damas_env.ending` decides the end of a game).

    Kernels use the members as integer constants (numba compiles them so). NO_LEGAL_MOVE to
    ADJUDICATION are the rules' endings (:func:`outcome`); MAX_PLIES is the envs' ply cut
    (a truncation); ILLEGAL_ACTION and TIME are decided outside the rules; FIRST_KING is
    Breakthrough's win (a rules ending, numbered last to keep the older codes). The member is
    ``infos[agent]["reason"]``; ``label`` is its name in JSON and PDN ("" for NONE, the game
    goes on).
    """

    NONE = 0
    NO_LEGAL_MOVE = 1
    REPETITION = 2
    NO_PROGRESS = 3
    ENDGAME_RULE = 4
    PLY_LIMIT = 5
    ADJUDICATION = 6
    MAX_PLIES = 7
    ILLEGAL_ACTION = 8
    TIME = 9
    FIRST_KING = 10

    @property
    def label(self) -> str:
        """Returns the reason's name in infos and JSON: ``"no_legal_move"``, ... ("" for NONE)."""
        return "" if self is Reason.NONE else self.name.lower()

    def __str__(self) -> str:
        """Returns the label (``"none"`` while the game goes on): ``print(info["reason"])``
        shows the name, where an IntEnum would show its number."""
        return self.label or "none"

    def __format__(self, spec: str) -> str:
        """Formats as the label with no format spec (f-strings), as the number with one."""
        return str(self) if not spec else int.__format__(self, spec)

    @classmethod
    def from_label(cls, label: str) -> Reason:
        """Returns the reason a label names.

        Raises:
            ValueError: no reason has this label.
        """
        for reason in cls:
            if reason.label == label:
                return reason
        raise ValueError(f"no reason is labelled {label!r}")


def new_move_buffer(max_moves: int = MAX_MOVES) -> np.ndarray:
    """Returns an empty move list able to hold max_moves moves."""
    return np.zeros((max_moves, MOVE_WIDTH), dtype=np.int16)


def grown_move_buffer(buffer: np.ndarray, need: int, cap: int, what: str = "moves") -> np.ndarray:
    """Returns an empty move list like `buffer` (same leading axes) with more rows.

    It has four times as many rows, or `need` if that is more, and at most `cap`: what every
    caller does when generate_moves reports an overflow.

    Raises:
        OverflowError: `buffer` already has `cap` rows ("more than N `what` in one position").
    """
    rows = buffer.shape[-2]
    if rows >= cap:
        raise OverflowError(f"more than {rows} {what} in one position")
    grown = min(max(4 * rows, need), cap)
    return np.zeros((*buffer.shape[:-2], grown, MOVE_WIDTH), dtype=np.int16)


def new_workspace(size: int) -> np.ndarray:
    """Returns the scratch array the move generator needs on a size x size board (the
    capture search's levels, the list of a side's pieces)."""
    return np.zeros(workspace_shape(size), dtype=np.int16)


def workspace_shape(size: int) -> tuple[int, int]:
    """Returns the shape of the workspace of a size x size board: a capture's landings, or
    every square, fit in a row."""
    return WS_ROWS, max(W_LAND + size, size * size)


# --- Bit sets -------------------------------------------------------------------------------
#
# Where the board fits a 64-bit word (rules[R_WORD]), the move generator tests all the pieces
# of a side at once: a set of squares is a uint64, one bit a square (geometry.Geometry.bit),
# and a step along a ray slot is one shift of the whole set (step_bits). Squares and bits run
# in the same order, so listing a set's squares lowest bit first lists them as the square
# loops do: the same moves in the same order.


def popcount(x):
    """Returns how many bits of the uint64 x are set (compiled: one instruction)."""
    return bin(int(x)).count("1")


def lowest_bit(x):
    """Returns the index of the lowest set bit of the uint64 x, which is not 0 (compiled: one
    instruction)."""
    x = int(x)
    return (x & -x).bit_length() - 1


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return types.uint64(types.uint64), codegen


@overload(popcount, inline="always")
def _popcount_compiled(x):
    if isinstance(x, WideType):
        return lambda x: wide_popcount(x)
    return lambda x: np.int64(_ctpop(np.uint64(x)))


@overload(lowest_bit, inline="always")
def _lowest_bit_compiled(x):
    if isinstance(x, WideType):
        return lambda x: wide_lowest_bit(x)
    return lambda x: np.int64(_cttz(np.uint64(x)))


def source_mask(x, d, rules):
    """Returns the set (of x's type: a word, or two) of the squares that have a square one
    step along ray slot d."""
    if isinstance(x, WideInt):
        return wide_from(np.uint64(rules[R_SRC + d]), np.uint64(rules[R_SRC_HI + d]))
    return np.uint64(rules[R_SRC + d])


@overload(source_mask)
def _source_mask_compiled(x, d, rules):
    if isinstance(x, WideType):
        return lambda x, d, rules: wide_from(
            np.uint64(rules[R_SRC + d]), np.uint64(rules[R_SRC_HI + d])
        )
    return lambda x, d, rules: np.uint64(rules[R_SRC + d])


@kernel(inline=True)
def step_bits(x, d, rules):
    """Returns the squares one step along ray slot d from the squares of the set x (those
    with no square there left out); x a word, or two (damas_env.wide)."""
    x &= source_mask(x, d, rules)
    return (x << np.uint64(rules[R_LSH + d])) >> np.uint64(rules[R_RSH + d])


@kernel(inline=True)
def board_bits(board, rules):
    """Returns the board as its bit-set bundle: (white men, white kings, black men, black
    kings, every square of the board); a marked piece is in none. A board beyond a word
    gives zeros: its generator works square by square (two_word_bits: its sets)."""
    zero = np.uint64(0)
    if rules[R_WORD] != WORD_ONE:
        return zero, zero, zero, zero, zero
    return _bundle(board, rules, np.uint64(1))


@kernel(inline=True)
def two_word_bits(board, rules):
    """board_bits on two words (damas_env.wide), for a board of R_WORD == WORD_TWO."""
    return _bundle(board, rules, wide_from(np.uint64(1), np.uint64(0)))


@kernel(inline=True)
def _bundle(board, rules, one):
    """The board's bundle in sets of `one`'s type (a word, or two), `one` the set of bit 0."""
    zero = one ^ one
    wm, wk, bm, bk, squares = zero, zero, zero, zero, zero
    for s in range(rules[R_SQUARES]):
        b = one << np.uint64(rules[R_BIT + s])
        q = board[s]
        wm |= b if q == 1 else zero
        wk |= b if q == 2 else zero
        bm |= b if q == -1 else zero
        bk |= b if q == -2 else zero
        squares |= b
    return wm, wk, bm, bk, squares


@kernel(inline=True)
def side_sets(bits, side):
    """Returns a bundle's sets for `side` to move: (its men, its kings, the other side's men,
    their kings, the empty squares)."""
    wm, wk, bm, bk, squares = bits
    empty = squares & ~(wm | wk | bm | bk)
    if side == WHITE:
        return wm, wk, bm, bk, empty
    return bm, bk, wm, wk, empty


@kernel(inline=True)
def bits_after(bits, mv, i, rules):
    """Returns the bundle after move row i of mv (the bundle of the board it was listed on):
    the mover's bit from its origin to its destination (a king if crowned), the taken ones
    cleared. The board's own update is apply_move; the bundle needs no undo. Sets of a word
    or of two."""
    wm, wk, bm, bk, squares = bits
    one = (squares ^ squares) + np.uint64(1)
    f = one << np.uint64(rules[R_BIT + mv[i, M_FROM]])
    t = one << np.uint64(rules[R_BIT + mv[i, M_TO]])
    taken = one ^ one
    for k in range(mv[i, M_NCAP]):
        taken |= one << np.uint64(rules[R_BIT + mv[i, M_CAPS + k]])
    white = (wm | wk) & f != 0
    men, kings, opp_m, opp_k = (wm, wk, bm, bk) if white else (bm, bk, wm, wk)
    if men & f == 0:
        kings = (kings ^ f) | t
    elif mv[i, M_CROWN] == 1:
        men, kings = men ^ f, kings | t
    else:
        men = (men ^ f) | t  # f and t may be one square: a capture that comes back
    opp_m, opp_k = opp_m & ~taken, opp_k & ~taken
    if white:
        return men, kings, opp_m, opp_k, squares
    return opp_m, opp_k, men, kings, squares


@kernel(inline=True)
def _capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw):
    """Returns the set of the pieces of own_m and own_k that can capture (no piece marked);
    sets of a word or of two."""
    opp = opp_m | opp_k
    men_take = opp if sw[S_TAKE_KINGS] == 1 else opp_m
    zero = own_m ^ own_m  # the empty set, of the sets' type
    short_k = own_k if sw[S_FLYING] == 0 else zero
    found = zero
    if sw[S_CAP_LO] == 0 and sw[S_CAP_HI] == 4:  # a loop of constant length: unrolled
        for d in range(4):
            found |= _capturers_along(d, own_m, short_k, opp, men_take, empty, rules, sw)
    else:
        for d in range(sw[S_CAP_LO], sw[S_CAP_HI]):
            found |= _capturers_along(d, own_m, short_k, opp, men_take, empty, rules, sw)
    if sw[S_FLYING] == 1 and own_k != zero:
        found |= flying_capturers(own_k, opp, empty, rules, sw)
    return found


@kernel(inline=True)
def _capturers_along(d, men, kings, opp, men_take, empty, rules, sw):
    """Returns the pieces of men and (short) kings that can capture along ray slot d."""
    back = _opposite(d)
    jumpable = step_bits(empty, back, rules)  # pieces with an empty square behind
    men = men if (sw[S_MAN_CAP] >> d) & 1 == 1 else men ^ men
    return men & step_bits(jumpable & men_take, back, rules) | kings & step_bits(
        jumpable & opp, back, rules
    )


@kernel()
def capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw):
    """_capturers compiled once, called: the generator's and the searches' (perft's counting
    inlines _capturers, at a few seconds more of a first compile)."""
    return _capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw)


def flying_capturers(kings, opp, empty, rules, sw):
    """Returns the set of the flying kings of `kings` that can capture: sets of a word
    (compiled: _flying_on_word) or of two (_flying_on_two_words), each kernel compiled for
    one type."""
    return _flying_takers(kings, opp, empty, rules, sw)


@overload(flying_capturers)
def _flying_capturers_compiled(kings, opp, empty, rules, sw):
    if isinstance(kings, WideType):
        return lambda kings, opp, empty, rules, sw: _flying_on_two_words(
            kings, opp, empty, rules, sw
        )
    return lambda kings, opp, empty, rules, sw: _flying_on_word(kings, opp, empty, rules, sw)


@kernel()
def _flying_on_word(kings, opp, empty, rules, sw):
    return _flying_takers(kings, opp, empty, rules, sw)


@kernel()
def _flying_on_two_words(kings, opp, empty, rules, sw):
    return _flying_takers(kings, opp, empty, rules, sw)


@kernel(inline=True)
def _flying_takers(kings, opp, empty, rules, sw):
    """flying_capturers' walk: each king along each line to the first piece."""
    found = kings ^ kings
    while kings != 0:
        king = kings & (~kings + np.uint64(1))
        kings ^= king
        for d in range(sw[S_CAP_LO], sw[S_CAP_HI]):
            x = step_bits(king, d, rules)
            while x & empty != 0:
                x = step_bits(x, d, rules)
            if x & opp != 0 and step_bits(x, d, rules) & empty != 0:
                found |= king
                break
    return found


@kernel(inline=True)
def _count_steps(own_m, own_k, empty, rules, sw):
    """Returns the number of non-capturing moves of the pieces of own_m and own_k."""
    n = np.int64(0)
    if sw[S_MOVE_LO] == 0:  # a loop of constant length: unrolled
        for d in range(4):
            n += _count_steps_along(d, own_m, own_k, empty, rules, sw)
    else:
        for d in range(sw[S_MOVE_LO], sw[S_MOVE_LO] + 4):
            n += _count_steps_along(d, own_m, own_k, empty, rules, sw)
    return n


@kernel(inline=True)
def _count_steps_along(d, own_m, own_k, empty, rules, sw):
    """Returns the number of non-capturing moves along ray slot d."""
    men = own_m if (sw[S_MAN_STEP] >> d) & 1 == 1 else own_m ^ own_m
    n = popcount(step_bits(men, d, rules) & empty)
    if sw[S_FLYING] == 0:
        return n + popcount(step_bits(own_k, d, rules) & empty)
    x = step_bits(own_k, d, rules) & empty
    while x != 0:  # every king one square farther each round
        n += popcount(x)
        x = step_bits(x, d, rules) & empty
    return n


# --- Small predicates -----------------------------------------------------------------------


@kernel(inline=True)
def _on_last_row(sq, side, squares, half):
    if side == WHITE:
        return sq < half
    return sq >= squares - half


# The switches the move generator reads in its loops, as one tuple read from the rules array
# once a call (``sw[S_...]``): values in registers, where reads of the array would be made
# again after every write of a move row or the board. Men's slots are bit masks, one bit a ray
# slot, for the side to move.
S_MAN_CAP, S_MAN_STEP, S_FLYING, S_TAKE_KINGS, S_CAP_LO, S_CAP_HI, S_MOVE_LO = range(7)
S_SQUARES, S_ROW, S_PROMO, S_LANDING, S_TURKISH, S_REVERSE, S_RANKED = range(7, 14)


@kernel(inline=True)
def _switches(rules, side):
    """Returns the move generator's switches for `side` (the S_* fields)."""
    man_step = (rules[R_MAN_DIRS] >> (8 * side)) & 255
    man_cap = np.int64(255) if rules[R_MEN_BACK] == 1 else man_step
    return (
        man_cap, man_step, rules[R_FLYING], rules[R_MEN_TAKE_KINGS], rules[R_CAP_LO],
        rules[R_CAP_HI], rules[R_MOVE_LO], rules[R_SQUARES], rules[R_ROW], rules[R_PROMO],
        rules[R_LANDING], rules[R_TURKISH], rules[R_REVERSE], rules[R_RANKED],
    )  # fmt: skip


@kernel(inline=True)
def _opposite(d):
    return 3 - d if d < 4 else 11 - d


@kernel(inline=True)
def _hop_target(board, c, d, king, slide, sgn, ray, sw):
    """Returns (captured square, step of first landing) of a capture from c along d, or -1;
    `slide`: the piece is a flying king (it may reach the piece it takes from afar)."""
    if not king and (sw[S_MAN_CAP] >> d) & 1 == 0:
        return -1, 0
    k = 0
    if slide:
        while ray[c, d, k] >= 0 and board[ray[c, d, k]] == 0:
            k += 1
    x = ray[c, d, k]
    if x < 0:
        return -1, 0
    q = board[x] * sgn
    if q != -1 and q != -2:
        return -1, 0
    if q == -2 and not king and sw[S_TAKE_KINGS] == 0:
        return -1, 0  # Italian rules art. 5.4: a man may not take a king
    t = ray[c, d, k + 1]
    if t < 0 or board[t] != 0:
        return -1, 0
    return x, k + 1


@kernel(inline=True)
def can_capture_from(board, c, king, side, ray, rules):
    """Returns True if a piece of `side` on c (a king if `king`) can capture now."""
    return _can_capture(
        board, np.int64(c), np.bool_(king), 1 - 2 * side, ray, _switches(rules, side), np.int64(-1)
    )


@kernel(inline=True)
def _can_capture(board, c, king, sgn, ray, sw, banned):
    """Returns True if a piece on c (sign `sgn`) can capture along a ray slot other than
    `banned` (-1: any)."""
    if king and sw[S_FLYING] == 1:  # flying kings apart, in a call: the tests inlined stay small
        return _flying_king_can_capture(
            board, np.int64(c), np.int64(sgn), ray, sw, np.int64(banned)
        )
    # Men and short kings: a loop of constant length over ray slots 0-3 (the diagonals, or
    # Turkish's four lines); numba unrolls it and folds each slot's tests to one square.
    # Frisian's orthogonal slots 4-7 are a call of their own, which keeps this loop small.
    if sw[S_CAP_LO] == 0:
        for d in range(4):
            if d != banned:
                x, _ = _hop_target(board, c, d, king, np.bool_(False), sgn, ray, sw)
                if x >= 0:
                    return True
    if sw[S_CAP_HI] == NUM_DIRECTIONS:
        return _can_capture_on_slots_4_to_7(  # typed: one compiled version (kernel())
            board, np.int64(c), np.bool_(king), np.bool_(False), np.int64(sgn), ray, sw,
            np.int64(banned),
        )  # fmt: skip
    return False


@kernel()
def _flying_king_can_capture(board, c, sgn, ray, sw, banned):
    """_can_capture for a flying king."""
    if sw[S_CAP_LO] == 0:
        for d in range(4):
            if d != banned:
                x, _ = _hop_target(board, c, d, np.bool_(True), np.bool_(True), sgn, ray, sw)
                if x >= 0:
                    return True
    if sw[S_CAP_HI] == NUM_DIRECTIONS:
        return _can_capture_on_slots_4_to_7(
            board, c, np.bool_(True), np.bool_(True), sgn, ray, sw, banned
        )
    return False


@kernel()
def _can_capture_on_slots_4_to_7(board, c, king, slide, sgn, ray, sw, banned):
    """The rest of _can_capture on an eight-slot ray table (Frisian)."""
    for d in range(4, NUM_DIRECTIONS):
        if d != banned:
            x, _ = _hop_target(board, c, d, king, slide, sgn, ray, sw)
            if x >= 0:
                return True
    return False


# --- Capture search -------------------------------------------------------------------------


@kernel(inline=True)
def _open_hops(board, sgn, level, d, ray, sw, ws):
    """Looks for a capture along d from this level's square; marks it and lists landings."""
    king = ws[level, W_KING] == 1
    c = ws[level, W_SQ]
    slide = king and sw[S_FLYING] == 1
    x, k = _hop_target(board, np.int64(c), np.int64(d), king, slide, sgn, ray, sw)
    ws[level, W_NLAND] = 0
    ws[level, W_LI] = 0
    if x < 0:
        return
    ws[level, W_FOUND] = 1
    ws[level, W_X] = x
    ws[level, W_CODE] = board[x]
    # Turkish strike (FMJD art. 4; the Portuguese text): the piece stays on the board, but is
    # marked taken.
    board[x] = MARK if sw[S_TURKISH] == 1 else 0
    # Thai kings stop right behind the piece they take.
    flying = king and sw[S_FLYING] == 1 and sw[S_LANDING] != LANDING_RIGHT_BEHIND
    n = 0
    while ray[c, d, k] >= 0 and board[ray[c, d, k]] == 0:
        ws[level, W_LAND + n] = ray[c, d, k]
        n += 1
        k += 1
        if not flying:
            break
    ws[level, W_TERM] = 0
    if n > 1:
        banned = _opposite(np.int64(d)) if sw[S_REVERSE] == 0 else -1
        n = _keep_continuing_landings(board, sgn, level, n, ray, sw, ws, banned)
    ws[level, W_NLAND] = n


@kernel(inline=True)
def _keep_continuing_landings(board, sgn, level, n, ray, sw, ws, banned):
    """Keeps the landing squares from which the capture goes on; else all or the nearest.

    A capture must be completed (FMJD art. 4.5; Russian rules): where some landing squares
    let the king take more, only those are allowed. Otherwise the king stops on any free
    square (FMJD art. 4.3) or, as the Portuguese rule text reads (`international_land_behind`),
    right behind the taken piece.
    """
    m = 0
    for i in range(n):
        t = ws[level, W_LAND + i]
        # Several landings: a flying king's (typed: one compiled version, kernel()).
        if _flying_king_can_capture(board, np.int64(t), np.int64(sgn), ray, sw, np.int64(banned)):
            ws[level, W_LAND + m] = t
            m += 1
    if m > 0:
        return m
    ws[level, W_TERM] = 1
    return 1 if sw[S_LANDING] == LANDING_IMMEDIATE else n


@kernel(inline=True)
def _init_level(ws, level, sq, king, first_dir):
    ws[level, W_SQ] = sq
    ws[level, W_KING] = 1 if king else 0
    ws[level, W_DIR] = first_dir
    ws[level, W_X] = -1
    ws[level, W_NLAND] = 0
    ws[level, W_LI] = 0
    ws[level, W_FOUND] = 0
    ws[level, W_TERM] = 0


@kernel(inline=True)
def _same_captures(mv, j, ws, ncap):
    for k in range(ncap):
        x = ws[k, W_X]
        hit = False
        for i in range(ncap):
            if mv[j, M_CAPS + i] == x:
                hit = True
                break
        if not hit:
            return False
    return True


@kernel(inline=True)
def _capture_rank(ws, ncap, rules):
    """Returns the rank of the capture held in ws[0:ncap] under the precedence rules: the
    greater must be played (only the captures of the greatest rank are legal).

    The rank is the taken pieces' count or value in hundredths of a man (FMJD art. 4: every
    piece 100; Frisian rules art. 11: a king R_KING_WEIGHT), then one field per tie-break in
    order (Italian rules art. 6): taken by a king (0/1), kings taken (6 bits), and the kings'
    places in the capture, one bit a hop, the first hop highest (32 bits: the capture that
    meets its first king earlier wins, that being equal its next king, and so on). At most
    13 + 6 + 6 + 32 bits.
    """
    kings, order = np.int64(0), np.int64(0)
    for k in range(ncap):
        code = ws[k, W_CODE]
        if code == 2 or code == -2:
            kings += 1
            order |= np.int64(1) << (MAX_CAPTURES - 1 - k)
    return _rank(ncap, kings, ws[0, W_KING] == 1, order, rules)


@kernel(inline=True)
def _rank(ncap, kings, with_king, order, rules):
    """Returns the rank of a capture (see _capture_rank) that takes `ncap` pieces, `kings` of
    them kings (`order`: bit MAX_CAPTURES - 1 - k set where hop k took a king), made by a
    king if `with_king`."""
    rank = np.int64(0)
    if rules[R_MAJORITY] == 1:
        rank = (ncap - kings) * 100 + kings * rules[R_KING_WEIGHT]
    for i in range(3):
        tb = rules[R_TIEBREAK + i]
        if tb == TB_WITH_KING:
            rank = rank * 64 + (1 if with_king else 0)
        elif tb == TB_MOST_KINGS:
            rank = rank * 64 + kings
        elif tb == TB_EARLIEST_KING:  # Italian rules art. 6.5 (FID example 6.9)
            rank = (rank << MAX_CAPTURES) + order
    return rank


@kernel()
def _record_capture(mv, n, best, rules, merge, origin, ncap, crown, ws):
    """Adds the capture held in ws[0:ncap] to the list; returns (count, best rank)."""
    if rules[R_RANKED] == 1:
        rank = _capture_rank(ws, ncap, rules)
        if rank < best:  # FMJD art. 4; the Portuguese text's rule 7: most pieces, tie-breaks
            return n, best
        if rank > best:
            n = 0
            best = rank
    dest = ws[ncap - 1, W_T]
    if n >= mv.shape[0]:  # full: count on so the caller sees the overflow (n > capacity)
        return n + 1, best
    if merge:  # same origin, destination and captured set: one move (perft convention)
        for j in range(n):
            if (
                mv[j, M_FROM] == origin
                and mv[j, M_TO] == dest
                and mv[j, M_NCAP] == ncap
                and _same_captures(mv, j, ws, ncap)
            ):
                return n, best
    mv[n, M_FROM] = origin
    mv[n, M_TO] = dest
    mv[n, M_NCAP] = ncap
    mv[n, M_CROWN] = 1 if crown else 0
    for k in range(ncap):
        mv[n, M_PATH + k] = ws[k, W_T]
        mv[n, M_CAPS + k] = ws[k, W_X]
        mv[n, M_CODES + k] = ws[k, W_CODE]
    return n + 1, best


@kernel()
def _captures_from(board, side, origin, ray, rules, sw, mv, n, best, merge, ws):
    """Adds every capture by the piece on origin (depth-first, explicit stack)."""
    squares, half, promo = sw[S_SQUARES], sw[S_ROW], sw[S_PROMO]
    first_dir, last_dir = sw[S_CAP_LO], sw[S_CAP_HI]
    sgn = 1 - 2 * side
    piece = board[origin]
    was_king = piece == 2 or piece == -2
    board[origin] = 0  # the moving piece is lifted: it may pass its own square
    level = np.int64(0)
    _init_level(ws, level, origin, was_king, first_dir)
    while level >= 0:
        if ws[level, W_LI] < ws[level, W_NLAND]:
            t = ws[level, W_LAND + ws[level, W_LI]]
            ws[level, W_LI] += 1
            ws[level, W_T] = t
            king = ws[level, W_KING] == 1
            last = _on_last_row(t, side, squares, half)
            now_king = king or (last and promo == PROMO_CROWN)  # Russian rules
            ends = not king and last and promo == PROMO_ENDS  # EDA: crowning ends the move
            if ws[level, W_TERM] == 1 or ends:
                crown = not was_king and (now_king or last)
                n, best = _record_capture(mv, n, best, rules, merge, origin, level + 1, crown, ws)
            else:
                level += 1
                _init_level(ws, level, np.int64(t), now_king, first_dir)
            continue
        if ws[level, W_X] >= 0:  # this direction is done: put its taken piece back
            board[ws[level, W_X]] = ws[level, W_CODE]
            ws[level, W_X] = -1
        ws[level, W_NLAND] = 0
        banned = -1  # Turkish rules: no turning back 180 degrees between two hops
        if level > 0 and sw[S_REVERSE] == 0:
            banned = _opposite(ws[level - 1, W_DIR] - 1)
        while ws[level, W_DIR] < last_dir and ws[level, W_NLAND] == 0:
            d = ws[level, W_DIR]
            ws[level, W_DIR] += 1
            if d != banned:
                _open_hops(board, sgn, level, d, ray, sw, ws)
        if ws[level, W_NLAND] > 0:
            continue
        if ws[level, W_FOUND] == 0 and level > 0:  # nothing more to take: the move ends here
            c = ws[level, W_SQ]
            crown = not was_king and (
                ws[level, W_KING] == 1 or _on_last_row(c, side, squares, half)
            )
            n, best = _record_capture(mv, n, best, rules, merge, origin, level, crown, ws)
        level -= 1
    board[origin] = piece
    return n, best


@kernel()
def _captures_on_bits(board, bits, side, origin, rules, sw, mv, n, best, merge, ws):
    """_captures_from on the bundle, where no flying king can take part
    (_counts_captures_on_bits): the same rows, in the same order."""
    own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
    o = np.uint64(1) << np.uint64(rules[R_BIT + origin])
    king = own_k & o != 0
    ws[0, W_KING] = 1 if king else 0
    return _jump_routes(
        board, origin, o, king, king, np.uint64(0), np.int64(0), empty | o, opp_m,
        opp_k, side, rules, sw, mv, n, best, merge, ws,
    )  # fmt: skip


@kernel(inline="ir")  # inlined by LLVM, Frisian and English perft ran 5-7% slower
def _hop(at, d, king, taken, empty, opp_m, opp_k, crowns, rules, sw):
    """One hop of a capture on bit sets, for the walks that list (_jump_routes) and count
    (_jumps) the jumps: the piece on the set `at` (a king or not) takes along ray slot d an
    enemy piece not yet `taken` and lands on a square of `empty`. Returns (the piece taken,
    the landing: zero where no such hop, the sets taken and empty after it, whether the piece
    is then a king, whether it landed on its crowning row `crowns`, whether the capture ends
    there: crowning ends it under EDA rules, or nothing more can be taken)."""
    zero = np.uint64(0)
    if not king and (sw[S_MAN_CAP] >> d) & 1 == 0:
        return zero, zero, taken, empty, king, False, False
    prey = opp_m | opp_k if king or sw[S_TAKE_KINGS] == 1 else opp_m
    x = step_bits(at, d, rules) & prey & ~taken
    t = step_bits(x, d, rules) & empty
    if t == 0:
        return zero, zero, taken, empty, king, False, False
    now_taken = taken | x
    now_empty = empty if sw[S_TURKISH] == 1 else empty | x  # a Turkish strike's piece stays
    last = t & crowns != 0
    now_king = king or (last and sw[S_PROMO] == PROMO_CROWN)
    ends = not king and last and sw[S_PROMO] == PROMO_ENDS
    men, kings = (zero, t) if now_king else (t, zero)
    left_m, left_k = opp_m & ~now_taken, opp_k & ~now_taken
    done = ends or _capturers(men, kings, left_m, left_k, now_empty, rules, sw) == 0
    return x, t, now_taken, now_empty, now_king, last, done


@kernel()
def _jump_routes(board, origin, at, king, was_king, taken, hops, empty, opp_m, opp_k, side,
                 rules, sw, mv, n, best, merge, ws):  # fmt: skip
    """Adds the captures of the piece lifted from `origin`, on the set `at` after `hops` hops
    that took `taken` (their squares and codes in ws rows 0 .. hops - 1, as _captures_from
    keeps them), depth-first, one direction after another; returns (rows, best rank).
    `empty` holds the squares it may land on. The walk of _jumps, listing its routes."""
    crowns = np.uint64(rules[R_CROWN + side])
    for d in range(sw[S_CAP_LO], sw[S_CAP_HI]):
        x, t, now_taken, now_empty, now_king, last, done = _hop(
            at, d, king, taken, empty, opp_m, opp_k, crowns, rules, sw
        )
        if t == 0:
            continue
        sx = rules[R_SQ + lowest_bit(x)]
        ws[hops, W_X], ws[hops, W_T], ws[hops, W_CODE] = sx, rules[R_SQ + lowest_bit(t)], board[sx]
        if done:
            crown = not was_king and (now_king or last)
            n, best = _record_capture(mv, n, best, rules, merge, origin, hops + 1, crown, ws)
        else:
            n, best = _jump_routes(
                board, origin, t, now_king, was_king, now_taken, hops + 1, now_empty, opp_m,
                opp_k, side, rules, sw, mv, n, best, merge, ws,
            )  # fmt: skip
    return n, best


@kernel(inline=True)
def _steps_from(board, side, s, king, slide, ray, sw, mv, n):
    """Adds the non-capturing moves of the piece on s (constant loops: see _can_capture)."""
    if sw[S_MOVE_LO] == 0:
        for d in range(4):
            n = _steps_along(board, side, s, d, king, slide, ray, sw, mv, n)
    else:
        for d in range(4, NUM_DIRECTIONS):
            n = _steps_along(board, side, s, d, king, slide, ray, sw, mv, n)
    return n


@kernel(inline=True)
def _steps_along(board, side, s, d, king, slide, ray, sw, mv, n):
    """Adds the non-capturing moves of the piece on s along ray slot d (`slide`: a flying
    king)."""
    if not king and (sw[S_MAN_STEP] >> d) & 1 == 0:
        return n
    k = 0
    while ray[s, d, k] >= 0 and board[ray[s, d, k]] == 0:
        t = ray[s, d, k]
        if n < mv.shape[0]:  # past the end only count: the caller sees n > capacity
            mv[n, M_FROM] = s
            mv[n, M_TO] = t
            mv[n, M_NCAP] = 0
            crown = not king and _on_last_row(t, side, sw[S_SQUARES], sw[S_ROW])
            mv[n, M_CROWN] = 1 if crown else 0
            mv[n, M_PATH] = t
        n += 1
        if not slide:
            break
        k += 1
    return n


@kernel(inline=True)
def list_pieces(board, sgn, squares, pieces):
    """Writes the squares of the pieces of sign `sgn` into `pieces`; returns how many. No
    branch a square: which squares hold a piece is the least predictable test of a move
    generator, so every square is written and only the count tells."""
    count = np.int64(0)
    for s in range(squares):
        pieces[count] = s
        count += np.int64(board[s] * sgn > 0)
    return count


@kernel(inline=True)
def can_capture(board, side, ray, rules, ws):
    """Returns True if a piece of `side` can capture (captures are compulsory: the position
    is not quiet); `ws`: a workspace, its piece list overwritten."""
    return can_capture_on(board, board_bits(board, rules), side, ray, rules, ws)


@kernel(inline=True)
def can_capture_on(board, bits, side, ray, rules, ws):
    """can_capture, the board's bundle given."""
    sw = _switches(rules, side)
    sgn = 1 - 2 * side
    if rules[R_WORD] == WORD_ONE:
        own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
        return capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw) != 0
    return _capturers_on_squares(board, sgn, ray, sw, ws[WS_PIECES], np.bool_(True)) > 0


@kernel()
def generate_moves(board, side, ray, rules, mv, merge, ws):
    """Fills mv with every legal move of `side`; returns how many (see generate_moves_on)."""
    return generate_moves_on(board, board_bits(board, rules), side, ray, rules, mv, merge, ws)


@kernel()
def generate_moves_on(board, bits, side, ray, rules, mv, merge, ws):
    """Fills mv with every legal move of `side`, the board's bundle given (board_bits, kept
    by bits_after); returns how many.

    Captures are compulsory (FMJD art. 4; EDA; every seed): steps are listed only if no piece can
    capture. With ``merge`` two routes with the same origin, destination and captured set
    are one move (published perft convention); without it every route is listed.

    A result larger than ``mv.shape[0]`` means the list overflowed: the rows are incomplete
    and the caller must list again into a larger buffer (the board is unchanged).

    The pieces that can capture are found all at once on bit sets (a 12x12 board, which
    needs more than a word, tests them square by square); each one's captures, and then
    each piece's steps, are listed lowest square first.
    """
    sw = _switches(rules, side)
    n = _captures_listed(board, bits, side, ray, rules, sw, mv, merge, ws)
    if n > 0:
        return n
    pieces = ws[WS_PIECES]
    if rules[R_WORD] == WORD_ONE:
        own_m, own_k, _, _, _ = side_sets(bits, side)
        listed = list_bits(own_m | own_k, rules, pieces)
    else:
        listed = list_pieces(board, 1 - 2 * side, sw[S_SQUARES], pieces)
    return _steps_of(board, side, pieces, listed, ray, sw, mv, n)


@kernel(inline=True)
def _steps_of(board, side, pieces, listed, ray, sw, mv, n):
    """Adds the non-capturing moves of the first `listed` squares of `pieces` (the pieces of
    `side`, lowest first) to mv from row n; returns n plus how many. Rows past mv's end are
    counted, not written (an overflow, which the caller sees)."""
    sgn = 1 - 2 * side
    for j in range(listed):
        s = pieces[j]
        q = board[s] * sgn
        if q == 1:  # a man: king a constant, each slot's step folds to one square
            n = _steps_from(board, side, np.int64(s), np.bool_(False), np.bool_(False), ray, sw,
                            mv, n)  # fmt: skip
        elif q == 2 and sw[S_FLYING] == 0:
            n = _steps_from(board, side, np.int64(s), np.bool_(True), np.bool_(False), ray, sw,
                            mv, n)  # fmt: skip
        elif q == 2:  # flying kings apart, in a call: the steps inlined stay small
            n = _flying_king_steps(board, np.int64(side), np.int64(s), ray, sw, mv, n)
    return n


@kernel(inline=True)
def _captures_listed(board, bits, side, ray, rules, sw, mv, merge, ws):
    """generate_moves_on's captures: writes them into mv; returns how many (more than mv's
    rows on overflow). The pieces that can capture are listed in ws[WS_PIECES]."""
    pieces = ws[WS_PIECES]
    on_bits = False  # no flying king takes part: the jumps walked on bit sets
    if rules[R_WORD] == WORD_ONE:
        own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
        takers = list_bits(capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw), rules, pieces)
        on_bits = _counts_captures_on_bits(own_m, own_k, opp_m | opp_k, empty, side, rules, sw)
    else:
        takers = _capturers_on_squares(board, 1 - 2 * side, ray, sw, pieces, np.bool_(False))
    return _captures_of(board, bits, side, takers, on_bits, ray, rules, sw, mv, merge, ws)


@kernel(inline=True)
def _captures_of(board, bits, side, takers, on_bits, ray, rules, sw, mv, merge, ws):
    """Writes into mv the captures of the first `takers` pieces of ws[WS_PIECES] (pieces that
    can capture), their jumps walked on the bundle `bits` if `on_bits`; returns how many
    (more than mv's rows on overflow)."""
    n = np.int64(0)
    best = np.int64(-1)
    immediate = sw[S_LANDING] == LANDING_IMMEDIATE
    pieces = ws[WS_PIECES]
    for j in range(takers):
        s = np.int64(pieces[j])  # one type for _record_capture from either walk
        keep_routes = merge and not immediate
        if on_bits:
            n, best = _captures_on_bits(board, bits, side, s, rules, sw, mv, n, best,
                                        keep_routes, ws)  # fmt: skip
        else:
            n, best = _captures_from(board, side, s, ray, rules, sw, mv, n, best, keep_routes,
                                     ws)  # fmt: skip
    if n > mv.shape[0]:
        return n
    if n > 0 and immediate:
        n = _drop_far_landings(mv, n, ray)
        if merge:
            n = _merge_routes(mv, n)
    return n


@kernel()
def _capturers_on_squares(board, sgn, ray, sw, pieces, first):
    """Writes the squares of the pieces of sign `sgn` that can capture into `pieces`, lowest
    first, testing each square by square (a board beyond a word); returns how many (at most
    one if `first`)."""
    count = list_pieces(board, sgn, sw[S_SQUARES], pieces)
    n = np.int64(0)
    for j in range(count):
        s = pieces[j]
        if _can_capture(board, np.int64(s), board[s] * sgn == 2, sgn, ray, sw, np.int64(-1)):
            pieces[n] = s  # n <= j: a square not read again
            n += 1
            if first:
                break
    return n


@kernel(inline=True)
def list_bits(x, rules, out):
    """Writes the squares of the set x into `out`, lowest first; returns how many."""
    n = np.int64(0)
    while x != 0:
        out[n] = rules[R_SQ + lowest_bit(x)]
        n += 1
        x &= x - np.uint64(1)
    return n


LIST_TO_COUNT = -2  # _count_on_bits: a flying king can capture, the moves must be listed


@kernel()
def count_moves(board, bits, side, ray, rules, mv, ws):
    """Returns how many legal moves `side` has, as generate_moves with ``merge`` counts them
    (-1: more than `mv` holds): counted on the bundle `bits` without listing them, or listed
    where a flying king can capture and on a board beyond a word (perft(1) of 12x12 only)."""
    if rules[R_WORD] == WORD_ONE:
        n = _count_on_bits(bits, side, rules, _switches(rules, side), mv)
        if n != LIST_TO_COUNT:
            return n
    n = generate_moves_on(board, bits, side, ray, rules, mv, np.bool_(True), ws)
    return n if n <= mv.shape[0] else -1


@kernel(inline=True)
def _count_on_bits(bits, side, rules, sw, mv):
    """Returns how many legal moves `side` (its switches `sw`) has, counted on the bundle:
    the steps by popcount, the captures by _count_captures (-1: more than `mv` holds), or
    LIST_TO_COUNT where a flying king can capture."""
    own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
    takers = _capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw)
    if takers == 0:
        return _count_steps(own_m, own_k, empty, rules, sw)
    if _counts_captures_on_bits(own_m, own_k, opp_m | opp_k, empty, side, rules, sw):
        return _count_captures(bits, side, takers, rules, mv)
    return LIST_TO_COUNT


@kernel()
def _flying_king_steps(board, side, s, ray, sw, mv, n):
    """_steps_from for a flying king."""
    return _steps_from(board, side, s, np.bool_(True), np.bool_(True), ray, sw, mv, n)


@kernel()
def _nearest_landing(ray, before, taken):
    """Returns the square right behind `taken` seen from `before` (same line)."""
    for d in range(ray.shape[1]):
        k = 0
        while ray[before, d, k] >= 0:
            if ray[before, d, k] == taken:
                return ray[before, d, k + 1]
            k += 1
    return -1


@kernel()
def _lands_far(mv, r, k, ray):
    """Returns the nearest landing of hop k of route r if the route landed farther, else -1."""
    before = mv[r, M_FROM] if k == 0 else mv[r, M_PATH + k - 1]
    nearest = _nearest_landing(ray, before, mv[r, M_CAPS + k])
    return nearest if mv[r, M_PATH + k] != nearest else -1


@kernel()
def _has_near_twin(mv, n, r, k, nearest):
    """Returns True if a route shares route r's first k hops and the piece of hop k, and rests
    right behind that piece."""
    for q in range(n):
        if q == r or mv[q, M_FROM] != mv[r, M_FROM] or mv[q, M_NCAP] <= k:
            continue
        same = mv[q, M_CAPS + k] == mv[r, M_CAPS + k] and mv[q, M_PATH + k] == nearest
        for j in range(k):
            same = same and mv[q, M_PATH + j] == mv[r, M_PATH + j]
            same = same and mv[q, M_CAPS + j] == mv[r, M_CAPS + j]
        if same:
            return True
    return False


@kernel()
def _drop_far_landings(mv, n, ray):
    """Keeps the routes that land farther than right behind a taken piece only where that is
    needed: where no legal route with the same start rests right behind it.

    The Portuguese rule text: the king "repousará na casa livre imediatamente próxima à da
    pedra capturada (exceto quando ocorre a situação descrita na regra 7)". The list already
    holds only routes that take the most pieces (rule 7) and land on squares from which the
    capture goes on, so a far landing is needed exactly when no surviving route rests near at
    that hop.
    """
    for r in range(n):
        mv[r, M_MARK] = 0
        for k in range(mv[r, M_NCAP]):
            nearest = _lands_far(mv, r, k, ray)
            if nearest >= 0 and _has_near_twin(mv, n, r, k, nearest):
                mv[r, M_MARK] = 1
                break
    return _compact(mv, n)


@kernel()
def _merge_routes(mv, n):
    """Keeps one route of each (origin, destination, captured set)."""
    for r in range(n):
        mv[r, M_MARK] = 0
        for q in range(r):
            if mv[q, M_MARK] == 0 and _same_move(mv, q, r):
                mv[r, M_MARK] = 1
                break
    return _compact(mv, n)


@kernel()
def _same_move(mv, q, r):
    ncap = mv[r, M_NCAP]
    if mv[q, M_FROM] != mv[r, M_FROM] or mv[q, M_TO] != mv[r, M_TO] or mv[q, M_NCAP] != ncap:
        return False
    for k in range(ncap):
        hit = False
        for i in range(ncap):
            hit = hit or mv[q, M_CAPS + i] == mv[r, M_CAPS + k]
        if not hit:
            return False
    return True


@kernel()
def _compact(mv, n):
    """Removes the rows whose M_MARK is set; returns the new count."""
    m = 0
    for r in range(n):
        if mv[r, M_MARK] == 0:
            if m != r:
                for c in range(MOVE_WIDTH):
                    mv[m, c] = mv[r, c]
            m += 1
    return m


@kernel()
def has_legal_move(board, side, ray, rules):
    """Returns True if `side` has any legal move (cheaper than listing them)."""
    return has_move_on(board, board_bits(board, rules), side, ray, rules, np.int64(-1))


@kernel()
def has_move_on(board, bits, side, ray, rules, tired):
    """Returns True if `side` has a legal move, the piece on `tired` (if not -1) only
    capturing; the board's bundle given.

    A piece that can step, or one that can capture, gives a legal move (a step, or the
    compulsory capture): the steps are tried first, the captures only where no piece can
    step.
    """
    sw = _switches(rules, side)
    sgn = 1 - 2 * side
    if rules[R_WORD] == WORD_ONE:
        own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
        steppers = own_k
        if tired >= 0:
            steppers &= ~(np.uint64(1) << np.uint64(rules[R_BIT + tired]))
        for d in range(sw[S_MOVE_LO], sw[S_MOVE_LO] + 4):
            men = own_m if (sw[S_MAN_STEP] >> d) & 1 == 1 else np.uint64(0)
            if step_bits(men | steppers, d, rules) & empty != 0:
                return True
        return capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw) != 0
    for s in range(sw[S_SQUARES]):
        q = board[s] * sgn
        if q > 0 and s != tired:
            king = q == 2
            if sw[S_MOVE_LO] == 0:  # constant loops, as in _can_capture
                for d in range(4):
                    if _can_step(board, s, d, king, ray, sw):
                        return True
            else:
                for d in range(4, NUM_DIRECTIONS):
                    if _can_step(board, s, d, king, ray, sw):
                        return True
    for s in range(sw[S_SQUARES]):
        q = board[s] * sgn
        if q > 0 and _can_capture(board, s, q == 2, sgn, ray, sw, np.int64(-1)):
            return True
    return False


@kernel(inline=True)
def _can_step(board, s, d, king, ray, sw):
    """Returns True if the piece on s may step one square along ray slot d."""
    if not king and (sw[S_MAN_STEP] >> d) & 1 == 0:
        return False
    return ray[s, d, 0] >= 0 and board[ray[s, d, 0]] == 0


# --- The king move limit (Frisian rules art. 10) ---------------------------------------------


@kernel()
def tired_king(board, side, counters, rules):
    """Returns the square of `side`'s king that may not make another non-capturing move now,
    or -1: it made R_KING_LIMIT of them in a row and its side still has men."""
    limit = rules[R_KING_LIMIT]
    if limit == 0 or counters[G_RUN + 2 * side] < limit:
        return -1
    sq = counters[G_RUN_SQ + 2 * side]
    if board[sq] * (1 - 2 * side) != 2:
        return -1
    wm, _, bm, _ = _piece_counts(board)
    return sq if (wm if side == WHITE else bm) > 0 else -1  # only kings: the rule lapses


@kernel()
def drop_steps_from(mv, n, tired):
    """Removes the non-capturing moves of the piece on `tired` (-1: none) from a move list
    (captures and steps never share a list); returns the new count."""
    if tired < 0 or n <= 0 or mv[0, M_NCAP] > 0:
        return n
    for r in range(n):
        mv[r, M_MARK] = 1 if mv[r, M_FROM] == tired else 0
    return _compact(mv, n)


@kernel()
def game_moves(board, side, counters, ray, rules, mv, merge, ws):
    """Fills mv with the legal moves of `side` in a game (generate_moves, then the king move
    limit, which needs the game's counters); returns how many (overflow as generate_moves)."""
    n = generate_moves(board, side, ray, rules, mv, merge, ws)
    if n > mv.shape[0] or rules[R_KING_LIMIT] == 0:
        return n
    return drop_steps_from(mv, n, tired_king(board, side, counters, rules))


@kernel()
def game_has_move(board, side, counters, ray, rules):
    """Returns True if `side` has a legal move in a game (has_legal_move with the king move
    limit)."""
    tired = np.int64(-1)
    if rules[R_KING_LIMIT] > 0:
        tired = tired_king(board, side, counters, rules)
    return has_move_on(board, board_bits(board, rules), side, ray, rules, tired)


# --- Applying moves -------------------------------------------------------------------------


@kernel(inline=True)
def apply_move(board, mv, i):
    """Plays move row i of mv on board (captured pieces are removed when the move ends)."""
    origin, dest = mv[i, M_FROM], mv[i, M_TO]
    piece = board[origin]
    board[origin] = 0
    for k in range(mv[i, M_NCAP]):
        board[mv[i, M_CAPS + k]] = 0
    if mv[i, M_CROWN] == 1:
        piece = 2 * piece
    board[dest] = piece


@kernel(inline=True)
def undo_move(board, mv, i):
    """Takes back move row i of mv, which must be the last move applied to board."""
    origin, dest = mv[i, M_FROM], mv[i, M_TO]
    piece = board[dest]
    board[dest] = 0
    if mv[i, M_CROWN] == 1:
        piece = piece // 2
    for k in range(mv[i, M_NCAP]):
        board[mv[i, M_CAPS + k]] = mv[i, M_CODES + k]
    board[origin] = piece


# --- Hashing --------------------------------------------------------------------------------


def zobrist_table(squares: int, seed: int = 20261130) -> tuple[np.ndarray, np.uint64]:
    """Returns the Zobrist keys [piece code + 2, square] and the side-to-move key."""
    rng = np.random.default_rng(seed + squares)
    keys = rng.integers(1, 2**63, size=(5, squares), dtype=np.int64).astype(np.uint64)
    keys[2, :] = 0  # empty squares do not change the hash
    return keys, np.uint64(rng.integers(1, 2**63, dtype=np.int64))


@kernel()
def hash_position(board, side, keys, side_key):
    """Returns the Zobrist hash of a board with `side` to move."""
    h = np.uint64(0)
    for s in range(board.shape[0]):
        h ^= keys[board[s] + 2, s]
    if side == BLACK:
        h ^= side_key
    return h


@kernel(inline=True)
def hash_after(h, board, mv, i, keys, side_key):
    """Returns the hash after move row i, given the hash h of board before it."""
    origin, dest = mv[i, M_FROM], mv[i, M_TO]
    piece = board[origin]
    after = 2 * piece if mv[i, M_CROWN] == 1 else piece
    h ^= keys[piece + 2, origin] ^ keys[after + 2, dest] ^ side_key
    for k in range(mv[i, M_NCAP]):
        h ^= keys[mv[i, M_CODES + k] + 2, mv[i, M_CAPS + k]]
    return h


# --- Material -------------------------------------------------------------------------------

# Piece values in hundredths of a man: the one table behind greedy play, the alpha-beta
# evaluation, the rollouts' material and adjudication.
MAN_VALUE = 100
KING_VALUE_FLYING = 250  # a flying king sweeps whole diagonals (FMJD art. 3): worth 2.5 men
KING_VALUE_SHORT = 150  # a king that steps one square (EDA): worth 1.5 men


def piece_values(flying_kings: bool, king: int | None = None) -> np.ndarray:
    """Returns the int32 values of the piece codes -2..2 (index ``code + 2``), White's positive.

    A man is worth MAN_VALUE and a king KING_VALUE_FLYING where kings fly, KING_VALUE_SHORT
    where they step; ``king`` replaces the king's worth for a caller that weighs it its own way.
    """
    if king is None:
        king = KING_VALUE_FLYING if flying_kings else KING_VALUE_SHORT
    return np.array([-king, -MAN_VALUE, 0, MAN_VALUE, king], dtype=np.int32)


#: The Spanish rule text's adjudication as piece values: more pieces wins and, between equal
#: counts, more kings. A king is worth a man and one hundredth: the difference in kings (a
#: board has at most 72 squares) never outweighs one piece more.
ADJUDICATION_VALUES = piece_values(False, king=MAN_VALUE + 1)


@kernel()
def material(board, values):
    """Returns White's material minus Black's, valued by a table from piece_values."""
    total = 0
    for s in range(board.shape[0]):
        total += values[board[s] + 2]
    return total


# --- Draw counters and results --------------------------------------------------------------


@kernel()
def after_move(counters, board, mv, i):
    """Updates the game counters for move row i; call it before apply_move."""
    piece = board[mv[i, M_FROM]]
    is_man = piece == 1 or piece == -1
    capture = mv[i, M_NCAP] > 0
    counters[G_PLY] += 1
    counters[G_SINCE_MAN_OR_CAPTURE] = (
        0 if (capture or is_man) else counters[G_SINCE_MAN_OR_CAPTURE] + 1
    )
    promoted = mv[i, M_CROWN] == 1
    counters[G_SINCE_PROMOTION_OR_CAPTURE] = (
        0 if (capture or promoted) else counters[G_SINCE_PROMOTION_OR_CAPTURE] + 1
    )
    run = 2 * (0 if piece > 0 else 1)  # the mover's king run (Frisian rules art. 10)
    if is_man or capture:
        counters[G_RUN_SQ + run] = 0
        counters[G_RUN + run] = 0
    else:
        same = counters[G_RUN + run] > 0 and counters[G_RUN_SQ + run] == mv[i, M_FROM]
        counters[G_RUN + run] = counters[G_RUN + run] + 1 if same else 1
        counters[G_RUN_SQ + run] = mv[i, M_TO]


@kernel()
def count_repetitions(hist, hlen, window):
    """Returns how often the newest of `hlen` position hashes occurs among the last `window`
    plies, same side to move only (positions before a capture or man move cannot recur).

    `hist` is a ring: hash i is at ``hist[i % len(hist)]``; older ones are forgotten.
    """
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
def _piece_counts(board):
    """Returns (white men, white kings, black men, black kings)."""
    wm, wk, bm, bk = 0, 0, 0, 0
    for s in range(board.shape[0]):  # sums of comparisons, no branch: the loop vectorises
        p = board[s]
        wm += np.int64(p == 1)
        wk += np.int64(p == 2)
        bm += np.int64(p == -1)
        bk += np.int64(p == -2)
    return wm, wk, bm, bk


@kernel()
def endgame_limit(board, rule):
    """Returns the endgame limit in plies for this material, or 0 if none applies.

    ENDGAME_FMJD (FMJD art. 6): three kings, two kings and a man, or a king and two men
    against a lone king: 16 moves each; two kings, a king and a man, or a king against a
    lone king: 5 moves each. ENDGAME_FRISIAN (Frisian rules art. 13): two kings against a
    king, 7 moves each; a king against a king, 2 moves each.
    """
    wm, wk, bm, bk = _piece_counts(board)
    if rule == ENDGAME_FRISIAN:
        if wm + bm > 0 or min(wk, bk) != 1:
            return 0
        kings = max(wk, bk)
        return 4 if kings == 1 else (14 if kings == 2 else 0)
    if bm + bk == 1 and bk == 1:
        return _endgame_plies(wm, wk)
    if wm + wk == 1 and wk == 1:
        return _endgame_plies(bm, bk)
    return 0


@kernel()
def _endgame_plies(men, kings):
    if kings == 0:
        return 0
    if men + kings == 3:
        return 32
    if men + kings <= 2:
        return 10
    return 0


@kernel()
def outcome(board, side, has_move, counters, repetitions, rules):
    """Returns (result, reason) of the position with `side` to move.

    `repetitions` is how many times this position has occurred (this time included).
    """
    if rules[R_FIRST_KING] == 1:  # Breakthrough: the first king wins
        for who in (1 - side, side):
            if _has_king(board, who):
                return (WHITE_WINS if who == WHITE else BLACK_WINS), Reason.FIRST_KING
    if not has_move:  # seeds 000, 002, 004: a player who cannot move loses; giveaway: wins
        lost = side if rules[R_GIVEAWAY] == 0 else 1 - side
        return (BLACK_WINS if lost == WHITE else WHITE_WINS), Reason.NO_LEGAL_MOVE
    if rules[R_REPETITION] > 0 and repetitions >= rules[R_REPETITION]:
        return DRAW, Reason.REPETITION
    since = counters[G_SINCE_PROMOTION_OR_CAPTURE]
    if rules[R_PROGRESS] == PROGRESS_MAN_MOVE:
        since = counters[G_SINCE_MAN_OR_CAPTURE]
    if rules[R_NO_PROGRESS] > 0 and since >= rules[R_NO_PROGRESS]:
        return DRAW, Reason.NO_PROGRESS
    if rules[R_ENDGAME] > 0:
        limit = endgame_limit(board, rules[R_ENDGAME])
        if limit > 0 and counters[G_SINCE_PROMOTION_OR_CAPTURE] >= limit:
            return DRAW, Reason.ENDGAME_RULE
    if rules[R_PLY_LIMIT] > 0 and counters[G_PLY] >= rules[R_PLY_LIMIT]:
        if rules[R_LIMIT_MATERIAL] == 0:
            return DRAW, Reason.PLY_LIMIT
        return _adjudicate(board), Reason.ADJUDICATION
    return ONGOING, Reason.NONE


@kernel()
def _has_king(board, side):
    _, wk, _, bk = _piece_counts(board)
    return (wk if side == WHITE else bk) > 0


@kernel()
def _adjudicate(board):
    """The Spanish rule text's adjudication: more pieces wins; equal pieces, more kings wins;
    otherwise a draw."""
    balance = material(board, ADJUDICATION_VALUES)
    if balance == 0:
        return DRAW
    return WHITE_WINS if balance > 0 else BLACK_WINS


# --- Perft ----------------------------------------------------------------------------------


@kernel()
def perft(board, side, depth, ray, rules, buffers, ws):
    """Returns the number of leaves of the legal move tree `depth` plies deep.

    `buffers` holds one move list per depth: shape (depth + 1, M, MOVE_WIDTH). Returns -1
    if some position had more moves than a list holds (the board is left unchanged).
    """
    if depth == 0:
        return 1
    return _perft(board, board_bits(board, rules), side, depth, ray, rules, buffers, ws)


@kernel()
def _perft(board, bits, side, depth, ray, rules, buffers, ws):
    """perft below a node of depth >= 1, the board's bundle given and kept along."""
    mv = buffers[depth]
    if depth == 1:  # the leaves counted, not listed, where no piece can capture
        return count_moves(board, bits, side, ray, rules, mv, ws)
    if depth == 2 and rules[R_WORD] == WORD_ONE:
        sw = _switches(rules, side)
        own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
        if _capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw) == 0:
            return _perft_steps_2(board, bits, side, ray, rules, buffers[1], ws)
    return _perft_children(board, bits, side, depth, ray, rules, buffers, ws, _perft)


@kernel(inline="ir")  # `below` is a function: numba resolves it in each caller
def _perft_children(board, bits, side, depth, ray, rules, buffers, ws, below):
    """Lists the moves of a node of `depth` >= 2 and returns the sum over them of
    below(...) at depth - 1 (the recursion: _perft, or _perft_on_two_words), the bundle kept
    along where the board fits a word; -1 if a move list overflowed."""
    mv = buffers[depth]
    n = generate_moves_on(board, bits, side, ray, rules, mv, np.bool_(True), ws)
    if n > mv.shape[0]:
        return -1
    total = 0
    word = rules[R_WORD] == WORD_ONE
    for i in range(n):
        after = bits_after(bits, mv, i, rules) if word else bits
        apply_move(board, mv, i)
        count = below(board, after, 1 - side, depth - 1, ray, rules, buffers, ws)
        undo_move(board, mv, i)
        if count < 0:
            return -1
        total += count
    return total


@kernel()
def perft_two_words(board, side, depth, ray, rules, buffers, ws):
    """perft on a board of two words (R_WORD == WORD_TWO: 12x12), its last two plies
    counted on sets of two words; a kernel of its own, which no other board compiles."""
    if depth == 0:
        return 1
    return _perft_on_two_words(board, board_bits(board, rules), side, depth, ray, rules,
                               buffers, ws)  # fmt: skip


@kernel()
def _perft_on_two_words(board, bits, side, depth, ray, rules, buffers, ws):
    """_perft for perft_two_words."""
    if depth == 1:
        return count_moves(board, bits, side, ray, rules, buffers[1], ws)
    if depth == 2:
        return _perft_two_words_2(board, bits, side, ray, rules, buffers, ws)
    return _perft_children(board, bits, side, depth, ray, rules, buffers, ws, _perft_on_two_words)


@kernel()
def _perft_two_words_2(board, bits, side, ray, rules, buffers, ws):
    """perft(2) on a board of two words (damas_env.wide): its moves listed square by square,
    each one's replies counted on the sets after it, their captures listed for the pieces
    that can capture."""
    mv = buffers[2]
    n = generate_moves_on(board, bits, side, ray, rules, mv, np.bool_(True), ws)
    if n > mv.shape[0]:
        return -1
    sets = two_word_bits(board, rules)
    sw = _switches(rules, 1 - side)
    total = 0
    for i in range(n):
        own_m, own_k, opp_m, opp_k, empty = side_sets(bits_after(sets, mv, i, rules), 1 - side)
        takers = _capturers(own_m, own_k, opp_m, opp_k, empty, rules, sw)
        if takers == 0:
            total += _count_steps(own_m, own_k, empty, rules, sw)
            continue
        listed = list_bits(takers, rules, ws[WS_PIECES])
        apply_move(board, mv, i)
        below = _captures_of(board, bits, 1 - side, listed, False, ray, rules, sw,
                             buffers[1], np.bool_(True), ws)  # fmt: skip
        undo_move(board, mv, i)
        if below > buffers[1].shape[0]:
            return -1
        total += below
    return total


@kernel()
def _perft_steps_2(board, bits, side, ray, rules, mv, ws):
    """perft(2) of a node where no piece can capture: its steps walked on the bundle (men by
    their targets, a direction at once; then each king), not listed, and the moves after
    each counted. -1 as perft."""
    sw = _switches(rules, side)
    own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
    sw_other = _switches(rules, 1 - side)
    promo = np.uint64(rules[R_CROWN + side])
    zero = np.uint64(0)
    total = np.int64(0)
    for d in range(sw[S_MOVE_LO], sw[S_MOVE_LO] + 4):
        back = _opposite(d)
        men = own_m if (sw[S_MAN_STEP] >> d) & 1 == 1 else zero
        targets = step_bits(men, d, rules) & empty  # the men's, then each king's in turn
        kings, f = own_k, zero
        king = False
        while True:
            if targets == 0:
                if kings == 0:
                    break
                f = kings & (~kings + np.uint64(1))
                kings ^= f
                king = True
                x = step_bits(f, d, rules) & empty
                while x != 0:  # a flying king's squares along d; a short king's one
                    targets |= x
                    x = step_bits(x, d, rules) & empty if sw[S_FLYING] == 1 else zero
                continue
            t = targets & (~targets + np.uint64(1))
            targets ^= t
            if not king:
                f = step_bits(t, back, rules)
            crown = not king and t & promo != 0
            below = _moves_after_step(
                board, bits, side, f, t, king, crown, ray, rules, mv, ws, sw_other
            )
            if below < 0:
                return -1
            total += below
    return total


@kernel(inline=True)
def _moves_after_step(board, bits, side, f, t, king, crown, ray, rules, mv, ws, sw):
    """Returns how many moves the other side (its switches `sw`) has after the step of
    `side` from bit f to bit t (a man crowned if `crown`), counted on the bundle where it
    can (count_moves), else listed on the board, played for it (-1: more than `mv` holds).
    The count is inlined here (a call to count_moves a step made perft 10-13% slower)."""
    wm, wk, bm, bk, squares = bits
    men, kings = (wm, wk) if side == WHITE else (bm, bk)
    if king:
        kings ^= f | t
    elif crown:
        men, kings = men ^ f, kings | t
    else:
        men ^= f | t  # a step: f and t differ
    after = (men, kings, bm, bk, squares) if side == WHITE else (wm, wk, men, kings, squares)
    other = 1 - side
    n = _count_on_bits(after, other, rules, sw, mv)
    if n != LIST_TO_COUNT:
        return n
    origin, dest = rules[R_SQ + lowest_bit(f)], rules[R_SQ + lowest_bit(t)]
    piece = board[origin]
    board[origin] = 0
    board[dest] = 2 * piece if crown else piece
    n = generate_moves_on(board, after, other, ray, rules, mv, np.bool_(True), ws)
    board[dest] = 0
    board[origin] = piece
    return n if n <= mv.shape[0] else -1


# --- Counting captures on bit sets ------------------------------------------------------------
#
# perft's last ply counts the moves of a position without listing them: the steps by popcount
# (_count_steps), the captures by a walk of the jumps on bit sets (_count_captures), where no
# flying king takes part. The counts are generate_moves's with ``merge`` (tests compare them
# position by position in every variant).


@kernel(inline=True)
def _counts_captures_on_bits(own_m, own_k, opp, empty, side, rules, sw):
    """Whether the jumps of `side` (its men and kings, the other side's pieces `opp`, the
    empty squares; its switches `sw`) can be walked on bit sets: no flying king can take
    part. None is on the board, and none is made in the middle of a capture: where a man
    crowned by a capture goes on (Russian rules), no enemy piece stands next to a square of
    its crowning row that a jump could land on. The first hop that crowns lands on a square
    empty before the capture (or a man's own), over a piece one step from it."""
    if rules[R_FLYING] == 0:
        return True
    if own_k != 0:
        return False
    if rules[R_PROMO] != PROMO_CROWN:
        return True
    landings = np.uint64(rules[R_CROWN + side]) & (empty | own_m)
    near = np.uint64(0)
    for d in range(sw[S_CAP_LO], sw[S_CAP_HI]):
        near |= step_bits(landings, d, rules)
    return opp & near == 0


@kernel()
def _count_captures(bits, side, takers, rules, mv):
    """Returns how many captures `side` has, its pieces `takers` able to capture, as
    generate_moves with ``merge`` lists them: the routes of the greatest rank, one per
    origin, destination and taken set (-1: more than `mv` holds). Only where
    _counts_captures_on_bits; the rows of `mv` are scratch."""
    sw = _switches(rules, side)
    own_m, own_k, opp_m, opp_k, empty = side_sets(bits, side)
    n, best = np.int64(0), np.int64(-1)
    while takers != 0:
        o = takers & (~takers + np.uint64(1))
        takers ^= o
        king = own_k & o != 0
        n, best = _jumps(
            o, o, king, king, np.uint64(0), np.int64(0), np.int64(0), empty | o,
            opp_m, opp_k, side, rules, sw, mv, n, best,
        )  # fmt: skip
        if n > mv.shape[0]:
            return -1
    return n


@kernel()
def _jumps(origin, at, king, was_king, taken, hops, order, empty, opp_m, opp_k, side, rules,
           sw, mv, n, best):  # fmt: skip
    """Adds the captures of the piece lifted from `origin`, at `at` after `hops` hops that
    took `taken` (`order`: bit MAX_CAPTURES - 1 - k set where hop k took a king), to the rows of mv;
    returns (rows, best rank). `empty` holds the squares it may land on."""
    found = False
    crowns = np.uint64(rules[R_CROWN + side])
    for d in range(sw[S_CAP_LO], sw[S_CAP_HI]):
        x, t, now_taken, now_empty, now_king, _, done = _hop(
            at, d, king, taken, empty, opp_m, opp_k, crowns, rules, sw
        )
        if t == 0:
            continue
        found = True
        king_hop = np.int64(1) << (MAX_CAPTURES - 1 - hops)
        now_order = order | (king_hop if x & opp_k != 0 else np.int64(0))
        if done:
            n, best = _count_capture(origin, t, was_king, now_taken, hops + 1, now_order,
                                     opp_k, rules, mv, n, best)  # fmt: skip
        else:
            n, best = _jumps(origin, t, now_king, was_king, now_taken, hops + 1, now_order,
                             now_empty, opp_m, opp_k, side, rules, sw, mv, n, best)  # fmt: skip
        if n > mv.shape[0]:
            return n, best
    if not found and hops > 0:
        n, best = _count_capture(origin, at, was_king, taken, hops, order, opp_k, rules, mv, n,
                                 best)  # fmt: skip
    return n, best


@kernel(inline=True)
def _count_capture(origin, dest, was_king, taken, hops, order, opp_k, rules, mv, n, best):
    """Adds a capture to the rows of mv unless one of a greater rank, or the same move, is
    there (the rank as _capture_rank's); returns (rows, best rank)."""
    if rules[R_RANKED] == 1:
        rank = _rank(hops, popcount(taken & opp_k), was_king, order, rules)
        if rank < best:
            return n, best
        if rank > best:
            n, best = np.int64(0), rank
    o, t = np.int16(lowest_bit(origin)), np.int16(lowest_bit(dest))
    parts = (
        _int16_part(taken, np.int64(0)), _int16_part(taken, np.int64(1)),
        _int16_part(taken, np.int64(2)), _int16_part(taken, np.int64(3)),
    )  # fmt: skip
    for j in range(min(n, mv.shape[0])):
        if (
            mv[j, M_FROM] == o
            and mv[j, M_TO] == t
            and mv[j, M_CAPS] == parts[0]
            and mv[j, M_CAPS + 1] == parts[1]
            and mv[j, M_CAPS + 2] == parts[2]
            and mv[j, M_CAPS + 3] == parts[3]
        ):
            return n, best
    if n < mv.shape[0]:
        mv[n, M_FROM], mv[n, M_TO] = o, t
        mv[n, M_CAPS], mv[n, M_CAPS + 1] = parts[0], parts[1]
        mv[n, M_CAPS + 2], mv[n, M_CAPS + 3] = parts[2], parts[3]
    return n + 1, best


@kernel(inline=True)
def _int16_part(x, k):
    """Returns the 16 bits k of the uint64 x as an int16 (a move row's field)."""
    v = np.int64((x >> np.uint64(16 * k)) & np.uint64(0xFFFF))
    return np.int16(v - 65536 if v >= 32768 else v)
