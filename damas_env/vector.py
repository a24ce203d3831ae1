"""DraughtsBatchEnv: thousands of games stepped in one compiled, multi-threaded call.

    env = DraughtsBatchEnv(4096, variant="english", seed=0)
    obs, masks, to_play = env.reset()
    obs, masks, to_play, rewards, terminated, truncated, info = env.step(env.random_actions())

Same rules, actions and planes as :mod:`damas_env.draughts_v0`, one hop per game per step for
the player to move there (``to_play``). A game that ends is reset in the same step: the
observation, mask and ``to_play`` are the new game's, the rewards and flags the ended one's,
whose end is in ``info["final_observation"]``, ``info["final_reason"]`` and
``info["final_plies"]``. Outputs are preallocated arrays that ``step`` overwrites: copy what
you keep. A bad action raises ValueError and no game changes. Results depend on the seed,
not on the thread count; ``num_threads=None`` picks threads or one thread as it runs.
"""

from __future__ import annotations

import time
import types
from statistics import median
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import prange

from . import kernels as K
from .checks import checked_bool, checked_int, checked_seed, shown
from .encoding import action_layout, planes_for
from .ending import Reason, end_of_move, truncates
from .engine import Colour, Position
from .kernels import kernel
from .rules import Ruleset, check_switches, get_ruleset, keywords_of
from .turn import (
    HOP_ILLEGAL,
    HOP_OVERFLOW,
    MOVE_DONE,
    Starts,
    Turn,
    array_key,
    check_hop,
    direct_call,
    grown,
    new_game,
    new_states,
    play_hop,
    ply_of,
    position_from_fen,
    random_action,
    reason_of,
    side_of,
    tables,
    write_mask,
    write_planes,
)

__all__ = ["DraughtsBatchEnv", "MAX_OPENING_PLIES"]

_MAX_THREADS: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
_SCRATCH_ROWS = 1 << 12  # routes one chunk lists at once; a step that needs more grows it
#: Chunks of games per thread (each with its own scratch lists, lazily backed by memory).
CHUNKS_PER_THREAD = 8
_MASK_OVERFLOW = -3  # status of a game whose new mask needs a larger scratch list
_MAX_ENVS = 1 << 24  # about 10 kB a game on 10x10: 160 GB
_OBS_DTYPES = (np.dtype(np.float32), np.dtype(np.uint8))  # native byte order: the kernels'
#: The most random plies ``opening_plies`` may ask for (the training config's cap too).
MAX_OPENING_PLIES = 60


class Outputs(NamedTuple):
    """What the batch kernels write for the caller (B games, C threads)."""

    obs: np.ndarray  # float32 or uint8[B, C, N, N], C = encoding.planes_for(rules)
    masks: np.ndarray  # int8[B, A]
    to_play: np.ndarray  # int64[B]
    rewards: np.ndarray  # float32[B, 2]
    terminated: np.ndarray  # bool[B]
    truncated: np.ndarray  # bool[B]
    plies: np.ndarray  # int64[B]
    reasons: np.ndarray  # int64[B]: Reason codes
    final_obs: np.ndarray  # like obs
    final_reason: np.ndarray  # int64[B]: Reason codes
    final_plies: np.ndarray  # int64[B]
    status: np.ndarray  # int64[B]: each game's status in the last call (< 0: retry it)
    trouble: np.ndarray  # int64[C]: the games to retry, per chunk


# --- Per-game kernels ----------------------------------------------------------------------
# Inlined into a chunk's loop (_run_chunk): a compiled call a game passed the bundles, which
# cost more than some games' work. Besides the bundles, they take the colour of player_0
# (``first``), the ply limit (``max_plies``, 0: none) and where new games start (``starts``).


@kernel(inline="ir")
def _player(side, first):
    return 0 if side == first else 1


@kernel(inline="ir")
def _write_outputs(g, s, out, t, first, scratch, ws):
    """Writes game g's planes, mask, player to move, ply count and reason."""
    side = side_of(s, g)
    write_planes(s, g, t, out.obs[g], side)
    if write_mask(s, g, t, out.masks[g], scratch, ws) == HOP_OVERFLOW:
        out.status[g] = _MASK_OVERFLOW
    out.to_play[g] = _player(side, first)
    out.plies[g] = ply_of(s, g)
    out.reasons[g] = reason_of(s, g)


@kernel(inline="ir")
def _end_of_move(g, s, out, t, starts, first, max_plies, scratch, ws):
    """After a complete move: the game's ending (:func:`damas_env.ending.end_of_move`:
    rewards, flags, reason, final observation) if it ended, then a new game."""
    reason = end_of_move(s, g, t, first, max_plies, out.rewards[g], out.final_obs[g])
    if reason != Reason.NONE:
        out.terminated[g] = not truncates(reason)
        out.truncated[g] = truncates(reason)
        out.final_reason[g] = reason
        out.final_plies[g] = ply_of(s, g)
        new_game(s, g, t, starts, scratch, ws)


@kernel(inline="ir")
def _step_game(g, action, s, out, t, starts, first, max_plies, scratch, ws):
    """Plays game g's hop (its rewards and flags cleared by _run_chunk)."""
    result = play_hop(s, g, t, action, scratch, ws)
    out.status[g] = result
    if result in (HOP_ILLEGAL, HOP_OVERFLOW):
        return
    if result == MOVE_DONE:
        _end_of_move(g, s, out, t, starts, first, max_plies, scratch, ws)
    _write_outputs(g, s, out, t, first, scratch, ws)


# --- Batch kernels (parallel over chunks of games) ------------------------------------------


STEP, RESET, ENCODE = 0, 1, 2  # modes of _run_batch


def _run_batch(mode, actions, active, s, out, t, starts, first, max_plies, scratch, ws):
    """Steps (mode STEP), resets (RESET) or encodes (ENCODE) the active games, in chunks.

    Counts per chunk, in out.trouble, the games that need a retry (refused or overflowed).
    """
    games = active.shape[0]
    chunks = scratch.shape[0]
    for c in prange(chunks):
        i = np.int64(c)  # prange's c is a uint64
        out.trouble[i] = _run_chunk(
            mode, i * games // chunks, (i + 1) * games // chunks, actions, active, s, out, t,
            starts, first, max_plies, scratch[i], ws[i],
        )  # fmt: skip


@kernel()
def _run_chunk(mode, lo, hi, actions, active, s, out, t, starts, first, max_plies, scratch, ws):
    """Runs one chunk of _run_batch, games lo to hi - 1, on the chunk's scratch lists; returns
    how many need a retry. One call a chunk: the per-game kernels are inlined in its loop."""
    trouble = 0
    for g in range(lo, hi):
        if active[g] == 0:
            continue
        out.rewards[g, 0] = 0.0
        out.rewards[g, 1] = 0.0
        out.terminated[g] = False
        out.truncated[g] = False
        out.status[g] = 0
        if mode == STEP:
            _step_game(g, actions[g], s, out, t, starts, first, max_plies, scratch, ws)
        else:
            if mode == RESET:
                new_game(s, g, t, starts, scratch, ws)
            _write_outputs(g, s, out, t, first, scratch, ws)
        trouble += 1 if out.status[g] < 0 else 0
    return trouble


@kernel()
def _check_batch(actions, active, s, t, scratch, ws, status):
    """Writes check_hop's verdict on each active game's action into status (0 elsewhere);
    returns how many were refused or need a larger scratch list. Plays nothing.

    The verdict comes from the games' own state, never from the masks handed to the caller.
    """
    refused = 0
    for g in range(active.shape[0]):
        status[g] = 0
        if active[g] == 1:
            status[g] = check_hop(s, g, t, actions[g], scratch, ws)
            refused += 1 if status[g] < 0 else 0
    return refused


def _random_batch(s, masks, out):
    for g in prange(masks.shape[0]):
        out[g] = random_action(s, np.int64(g), masks[g])  # prange's g is a uint64


def _renamed(fn: Any, suffix: str) -> Any:
    """Returns a copy of a function under another name: numba caches compiled code by name,
    so the threaded and the serial build of one kernel need two names."""
    copy = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__
    )
    copy.__qualname__ = fn.__qualname__ + suffix
    return copy


# Each batch kernel is compiled twice: threaded, and serial for small batches (where waking
# threads costs more than the work).
_PARALLEL = {
    f: (kernel(parallel=True)(f), kernel()(_renamed(f, "_serial")))
    for f in (_run_batch, _random_batch)
}
_SERIAL_BELOW = 32


def _batch_calls(env: DraughtsBatchEnv) -> list[tuple[Any, tuple[Any, ...]]]:
    """Returns the batch kernels an env calls, both builds of each, with its own arrays: which
    build a call runs depends on how many games it steps (the README's 256 games run the
    threaded one, a Gymnasium view's opponent stepping a few games the serial one), and
    every process must find both in the cache."""
    s, out, t, starts = env._games, env._outputs, env._tables, env._starts
    run: tuple[Any, ...] = (
        STEP, env._actions, env._all, s, out, t, starts, env._first, env.max_plies, env._scratch,
        env._ws,
    )  # fmt: skip
    draw: tuple[Any, ...] = (s, env.masks, env._actions)
    check = (env._actions, env._all, s, t, env._scratch[0], env._ws[0], env._status)
    calls = [(build, run) for build in _PARALLEL[_run_batch]]
    calls += [(build, draw) for build in _PARALLEL[_random_batch]]
    return [*calls, (_check_batch, check)]


#: The batch kernels, loaded (or compiled, on a first run) with a process's first batch env
#: of each observation dtype.
BATCH_KERNELS = K.EntryPoints(_batch_calls)


# --- The Python shell -----------------------------------------------------------------------


class ThreadChooser:
    """Chooses, from measured step times, between an env's threads and one thread.

    The env times each full-batch step's cycle, from one ``step`` call to the next
    (:meth:`record`), on the side :attr:`serial` names. After :data:`FIRST` steps, and then
    every :data:`EVERY` steps, the next :data:`PROBE` steps run on the other side; if their
    median time is below that of the :data:`PROBE` steps just before by more than
    :data:`MARGIN`, the env stays on that side (a median, so that one long pause between two
    steps, a learner's update, does not decide). Games and seeds make the
    same moves either way: only the speed depends on the choice. On a quiet machine that
    keeps the threads and costs the probes (4 steps in 256 run on one thread); on a machine
    whose cores other work holds it steps on one thread when that measures faster.
    """

    FIRST, EVERY, PROBE, MARGIN = 8, 256, 4, 0.05

    def __init__(self) -> None:
        self.serial = False  # the side chosen now
        self.steps = 0
        self._before: list[float] = []  # the last PROBE step times on the chosen side
        self._probe: list[float] = []  # the probe's step times on the other side

    def probing(self) -> bool:
        """Returns whether the next step runs on the other side (a probe)."""
        start = self.FIRST if self.steps < self.EVERY else self.steps - self.steps % self.EVERY
        return start <= self.steps < start + self.PROBE

    def use_serial(self) -> bool:
        """Returns whether the next step runs on one thread."""
        return self.serial != self.probing()

    def record(self, seconds: float) -> None:
        """Counts a step that took `seconds` on the side :meth:`use_serial` gave."""
        if self.probing():
            self._probe.append(seconds)
        else:
            self._before = [*self._before[-(self.PROBE - 1) :], seconds]
        self.steps += 1
        if len(self._probe) == self.PROBE:
            if len(self._before) == self.PROBE and median(self._probe) < (1 - self.MARGIN) * median(
                self._before
            ):
                self.serial = not self.serial
                self._before = list(self._probe)
            self._probe = []


# --- The Python shell -----------------------------------------------------------------------


def _set_threads(n: int) -> None:
    """Sets numba's thread count for the next parallel kernel."""
    if numba.get_num_threads() != n:
        numba.set_num_threads(n)


class DraughtsBatchEnv:
    """Many games of one ruleset, stepped together (see the module docstring).

    Args:
        num_envs: games in the batch (B), 1 to 2**24; a Python or numpy int.
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset;
            ``**rule_overrides`` change switches.
        seed: seed of the per-game random streams (openings, start positions,
            random_actions), an int >= 0; None draws one.
        num_threads: threads for the compiled loops, 1 to numba's maximum (None: all cores,
            or one while the env measures one to be faster; see :class:`ThreadChooser`).
        max_plies: truncate a game after this many plies (None: only the rules end games).
        opening_plies: random plies played from the start position at each reset, 0 to
            :data:`MAX_OPENING_PLIES`. An opening that ends the game is drawn again, up to 15
            times; then the game starts from its start position with no opening.
        fens: a list of start positions (PDN FEN) to draw from at each reset (None: the
            start position); a single FEN goes in a list of one. Each must leave the side
            to move a move: a game over before its first move is refused.
        obs_dtype: dtype of the observation planes, float32 (default) or uint8 (halves the
            memory traffic but turns the two counter planes into 0/1), in native byte order.
        as_torch: return torch tensors sharing the numpy buffers (needs torch).

    Raises:
        TypeError: an argument of the wrong type (a bool where an int is due, a string
            for ``fens``...); the message names it.
        ValueError: an argument out of range, an empty ``fens``, or a FEN whose game is over
            before its first move (the side to move has no move): a batch game must start
            with a move to play.
        NotationError: a malformed FEN in ``fens``.
        RulesetError: an unknown variant or rule switch.
    """

    def __init__(
        self,
        num_envs: int,
        variant: str | Ruleset = "international",
        seed: int | None = None,
        num_threads: int | None = None,
        max_plies: int | None = None,
        opening_plies: int = 0,
        fens: list[str] | None = None,
        obs_dtype: Any = np.float32,
        as_torch: bool = False,
        **rule_overrides: Any,
    ) -> None:
        self.num_envs = checked_int("num_envs", num_envs, 1, _MAX_ENVS)
        self._chooser = ThreadChooser() if num_threads is None and _MAX_THREADS > 1 else None
        self._last_step: float | None = None
        self.num_threads = (
            _MAX_THREADS
            if num_threads is None
            else checked_int("num_threads", num_threads, 1, _MAX_THREADS)
        )
        self.max_plies = 0 if max_plies is None else checked_int("max_plies", max_plies, 1)
        self.opening_plies = checked_int("opening_plies", opening_plies, 0, MAX_OPENING_PLIES)
        self.as_torch = checked_bool("as_torch", as_torch)
        dtype, seed = _checked_obs_dtype(obs_dtype), checked_seed(seed)
        check_switches(rule_overrides, keywords_of(DraughtsBatchEnv.__init__), "DraughtsBatchEnv")
        self.rules = get_ruleset(variant, **rule_overrides)
        first = Colour.WHITE if self.rules.first_player == "white" else Colour.BLACK
        self._first = int(first)
        self._tables = tables(self.rules)
        self.layout = action_layout(self.rules)
        self.num_actions = self.layout.num_actions
        self._starts = Starts(*self._start_positions(fens), self.opening_plies)
        self._allocate(dtype)
        BATCH_KERNELS.load(self, key=self.obs.dtype)
        self.seed(seed)
        self.reset()

    # --- Setup ------------------------------------------------------------------------------

    def _start_positions(self, fens: Any) -> tuple[np.ndarray, np.ndarray]:
        """Returns the boards and sides to move of the start positions (only None: the start).

        Raises:
            ValueError: a FEN's game is over before its first move (see
                :func:`_refuse_finished`).
        """
        if fens is None:
            positions = [Position.start(self.rules)]
        else:
            fens = _checked_fens(fens)
            positions = [position_from_fen(f"fens[{i}]", f, self.rules) for i, f in enumerate(fens)]
        turn = Turn(self.rules)
        for i, position in enumerate(positions):
            _refuse_finished(turn, position, f"fens[{i}]")
        boards = np.stack([p.board for p in positions]).astype(np.int8)
        return boards, np.array([int(p.turn) for p in positions], dtype=np.int64)

    def _allocate(self, obs_dtype: np.dtype) -> None:
        b, n = self.num_envs, self.rules.board_size
        self._games = new_states(self.rules, b)
        self.boards = self._games.board  # the position at the start of each game's turn
        self.rng = self._games.rng  # each game's random stream
        c = planes_for(self.rules)
        self.obs = np.zeros((b, c, n, n), obs_dtype)
        self.masks = np.zeros((b, self.num_actions), np.int8)
        self.to_play = np.zeros(b, np.int64)
        self.rewards = np.zeros((b, 2), np.float32)
        self.terminated = np.zeros(b, np.bool_)
        self.truncated = np.zeros(b, np.bool_)
        self.plies = np.zeros(b, np.int64)
        self.reasons = np.zeros(b, np.int64)
        self.final_obs = np.zeros((b, c, n, n), obs_dtype)
        self.final_reason = np.zeros(b, np.int64)
        self.final_plies = np.zeros(b, np.int64)
        self._status = np.zeros(b, np.int64)
        chunks = 1 if self.num_threads == 1 else min(b, CHUNKS_PER_THREAD * self.num_threads)
        self._trouble = np.zeros(chunks, np.int64)  # games to retry, per chunk
        self._all = np.ones(b, np.uint8)
        self._actions = np.zeros(b, np.int64)
        self._scratch = np.zeros((chunks, _SCRATCH_ROWS, K.MOVE_WIDTH), np.int16)
        self._ws = np.zeros((chunks, *K.workspace_shape(n)), np.int16)
        self._outputs = Outputs(
            self.obs,
            self.masks,
            self.to_play,
            self.rewards,
            self.terminated,
            self.truncated,
            self.plies,
            self.reasons,
            self.final_obs,
            self.final_reason,
            self.final_plies,
            self._status,
            self._trouble,
        )
        self._info = {
            "reason": self._out(self.reasons),
            "plies": self._out(self.plies),
            "final_observation": self._out(self.final_obs),
            "final_reason": self._out(self.final_reason),
            "final_plies": self._out(self.final_plies),
        }

    def seed(self, seed: int | None) -> None:
        """Seeds every game's random stream (distinct, non-zero, from one SeedSequence).

        Raises:
            TypeError: seed is neither None nor an int.
            ValueError: seed is negative.
        """
        seq = np.random.SeedSequence(checked_seed(seed))
        self.rng[:] = seq.generate_state(self.num_envs, np.uint64) | np.uint64(1)

    # --- API --------------------------------------------------------------------------------

    def reset(self, seed: int | None = None) -> tuple[Any, Any, Any]:
        """Starts every game; returns (observations, masks, to_play).

        Raises:
            TypeError: seed is neither None nor an int.
            ValueError: seed is negative.
        """
        if seed is not None:
            self.seed(seed)
        self._last_step = None  # the time since the last step is not a step's
        if self._run(RESET, self._all):
            self._retry_overflows(None)  # the kernel cleared rewards and flags
        return self._out(self.obs), self._out(self.masks), self._out(self.to_play)

    def step(self, actions: Any, games: Any = None) -> tuple[Any, ...]:
        """Plays one hop in each game (or only where `games` is True); see the module doc.

        Returns:
            (observations, masks, to_play, rewards (B, 2) by player, terminated, truncated,
            info) where info holds "reason", "plies", and for games that ended this step
            "final_observation", "final_reason", "final_plies".

        Raises:
            ValueError: actions of the wrong shape or type, out of range, or illegal in some
                game (the message names the first such game); no game changes. Legality is
                read from the games' own state, so writing into the returned masks cannot
                let an illegal action through.
        """
        acts = self._checked_actions(actions)
        active = self._checked_games(games)
        self._check_legal(acts, active, actions)
        self._time_step(games is None)  # after the checks: a refused step changes nothing
        if games is not None:  # the games left out this step report nothing
            idle = active == 0
            self.rewards[idle] = 0.0
            self.terminated[idle] = False
            self.truncated[idle] = False
        if self._run(STEP, active, acts):
            self._retry_overflows(acts)
            refused = (self._status == HOP_ILLEGAL) & (active == 1)
            if refused.any():  # _check_legal asks the same kernels: this is a bug
                bad = int(np.flatnonzero(refused)[0])
                raise RuntimeError(f"game {bad}: the engine refused a checked action")
        return (
            self._out(self.obs),
            self._out(self.masks),
            self._out(self.to_play),
            self._out(self.rewards),
            self._out(self.terminated),
            self._out(self.truncated),
            self._info,
        )

    def encode(self) -> tuple[Any, Any]:
        """Rewrites every game's observation and mask (step and reset already do)."""
        if self._run(ENCODE, self._all):
            self._retry_overflows(None)
        return self._out(self.obs), self._out(self.masks)

    def random_actions(self) -> Any:
        """Returns one uniformly random legal action per game (one compiled call)."""
        per_chunk = max(1, self.num_envs // self._trouble.shape[0])
        self._call(_random_batch, (), self._games, self.masks, self._actions, chunk=per_chunk)
        return self._out(self._actions)

    def position(self, game: int) -> Position:
        """Returns the position at the start of the current turn of one game, with its king
        runs (its legal moves are the game's).

        Raises:
            TypeError: game is not an int.
            ValueError: game is not in [0, num_envs).
        """
        g = checked_int("game", game, 0, self.num_envs - 1)
        counters = self._games.counters[g]
        return Position.of_game(self.rules, self.boards[g], int(self._games.sides[g]), counters)

    def _time_step(self, full: bool) -> None:
        """Gives the chooser the time since the last full-batch step began: that step's cycle
        (its kernels, random_actions, and the caller's own work between two steps, which
        the threads' choice also speeds up or slows down)."""
        now = time.perf_counter()
        if self._chooser is not None and self._last_step is not None:
            self._chooser.record(now - self._last_step)
        self._last_step = now if full else None

    @property
    def threads_in_use(self) -> int:
        """Returns the threads the next full-batch step runs on: ``num_threads``, or 1 where
        the batch is too small to share, or where the env measured one thread to be faster
        (``num_threads=None``; see :class:`ThreadChooser`)."""
        if self.num_threads == 1 or self.num_envs < _SERIAL_BELOW:
            return 1
        return 1 if self._chooser is not None and self._chooser.serial else self.num_threads

    def _call(self, fn: Any, key: Any, *args: Any, games: int | None = None, chunk: int = 1) -> Any:
        """Calls the threaded or the serial build of a batch kernel (for this many games; None:
        all), the threaded one with its prange iterations handed out `chunk` at a time to
        whichever thread is idle. numba's chunk size is per calling thread: it is restored."""
        threaded, serial = _PARALLEL[fn]
        if self.num_threads == 1 or (games or self.num_envs) < _SERIAL_BELOW:
            return direct_call(serial, key, *args)
        # The chooser's one thread runs the threaded build: the serial one would be one more
        # kernel to compile (half a minute on a first run) for steps that may never use it.
        one = self._chooser is not None and self._chooser.use_serial()
        _set_threads(1 if one else self.num_threads)
        previous = numba.set_parallel_chunksize(chunk)
        try:
            return direct_call(threaded, key, *args)
        finally:
            numba.set_parallel_chunksize(previous)

    def _run(self, mode: int, active: np.ndarray, actions: np.ndarray | None = None) -> bool:
        """Runs the batch kernel in a mode; returns True if some game needs a retry."""
        acts = self._actions if actions is None else actions
        games = None if active is self._all else int(np.count_nonzero(active))
        key = (array_key(acts), self.obs.dtype)
        self._call(
            _run_batch, key, mode, acts, active, self._games, self._outputs, self._tables,
            self._starts, self._first, self.max_plies, self._scratch, self._ws, games=games,
        )  # fmt: skip
        return bool(self._trouble.any())

    def _check_legal(self, acts: np.ndarray, active: np.ndarray, actions: Any) -> None:
        """Raises the ValueError for the first active game whose action is not legal there,
        before any game moves (`actions` as the caller gave them, for the message)."""
        while direct_call(
            _check_batch, array_key(acts), acts, active, self._games, self._tables,
            self._scratch[0], self._ws[0], self._status,
        ):  # fmt: skip
            if not (self._status == HOP_OVERFLOW).any():
                self._refuse(int(np.flatnonzero(self._status == HOP_ILLEGAL)[0]), actions)
            self._grow_scratch()

    def _retry_overflows(self, acts: np.ndarray | None) -> None:
        """Replays the games whose routes did not fit the scratch lists, with larger ones.

        A hop that overflows changes nothing, so it is played again; a new position whose
        mask overflowed is encoded again.
        """
        while True:
            hop = self._status == HOP_OVERFLOW
            mask = self._status == _MASK_OVERFLOW
            if not (hop.any() or mask.any()):
                return
            self._grow_scratch()
            if hop.any() and acts is not None:
                self._run(STEP, hop.astype(np.uint8), acts)
            if mask.any():
                self._run(ENCODE, mask.astype(np.uint8))

    def _grow_scratch(self) -> None:
        """Makes every thread's route scratch list four times larger."""
        self._scratch = grown(self._scratch)

    # --- Checks -----------------------------------------------------------------------------

    def _checked_actions(self, actions: Any) -> np.ndarray:
        """Returns the actions as an int64 array of shape (B,), or raises the ValueError.

        A uint64 beyond int64 becomes negative here, so it is refused as out of range (its
        message shows the value given).
        """
        if type(actions) is np.ndarray and actions.dtype == np.int64 and actions.ndim == 1:
            arr = actions  # the fast path: what random_actions returns
        else:
            arr = _as_array("actions", actions)
            if arr.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers, not {arr.dtype} {_sample(arr)}")
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {arr.shape}")
        if arr.dtype == np.int64 and arr.flags.c_contiguous and arr.flags.writeable:
            return arr
        # a strided or read-only array would make numba compile the kernels again (minutes)
        return np.array(arr, dtype=np.int64, order="C")

    def _checked_games(self, games: Any) -> np.ndarray:
        """Returns the games to step as a uint8 array of shape (B,) (all for None)."""
        if games is None:
            return self._all
        arr = _as_array("games", games)
        if arr.shape != (self.num_envs,) or arr.dtype != np.bool_:
            raise ValueError(
                f"games must be a bool array of shape ({self.num_envs},), not {arr.dtype} "
                f"of shape {arr.shape}"
            )
        return arr.astype(np.uint8)

    def _refuse(self, g: int, actions: Any) -> None:
        """Raises the ValueError for game g's action, out of range or illegal there (the
        legal hops from the game's state: the masks may have been written to)."""
        given = _as_array("actions", actions)[g].item()  # the value given, not its int64
        if not 0 <= given < self.num_actions:
            raise ValueError(
                f"game {g}: action {given} is out of range [0, {self.num_actions}); no game changed"
            )
        side = int(self._games.sides[g])
        a, b = self.layout.hop_squares(given, Colour(side))
        hop = f"{a + 1}->{b + 1}" if b >= 0 else f"{a + 1} off the board"
        listed = self._games.listed_hops(g)
        legal = listed if listed is not None else f"more than {self._games.legal.shape[1]}"
        raise ValueError(
            f"game {g}: illegal action {given} (hop {hop}) for player "
            f"{0 if side == self._first else 1}; legal actions there: {legal}; no game changed"
        )

    def _out(self, array: np.ndarray) -> Any:
        if not self.as_torch:
            return array
        import torch  # only when asked for: damas_env does not depend on torch

        return torch.from_numpy(array)


def _checked_obs_dtype(obs_dtype: Any) -> np.dtype:
    """Returns the observation dtype: float32 or uint8, in native byte order.

    Raises:
        TypeError: obs_dtype is not a dtype at all.
        ValueError: obs_dtype is a dtype the planes are not written in (a byte-swapped
            float32 included: the kernels write native bytes).
    """
    try:
        dtype = np.dtype(obs_dtype)
    except (TypeError, ValueError):
        raise TypeError(f"obs_dtype must be a numpy dtype, not {shown(obs_dtype)}") from None
    if obs_dtype is None or dtype not in _OBS_DTYPES:
        raise ValueError(
            "obs_dtype must be one of ['float32', 'uint8'] in native byte order, "
            f"not {shown(obs_dtype)} ({dtype.str})"
        )
    return dtype


def _refuse_finished(turn: Turn, position: Position, name: str) -> None:
    """Raises the ValueError for a start position whose game is over before its first move
    (the side to move has no move; a king already on the board in Breakthrough), as the
    turn state, the AEC env's, decides at its reset.

    The AEC env ends such a game at once; a batch game could not: it would have no legal
    action to be stepped with, and its auto-reset (same-step) would start it again.
    """
    turn.reset(position.board, position.turn)
    if turn.result == K.ONGOING:
        return
    names = position.rules.colour_names
    result = {K.WHITE_WINS: f"{names[0]} wins", K.BLACK_WINS: f"{names[1]} wins"}
    end = f"{Reason(turn.reason).label}: {result.get(turn.result, 'a draw')}"
    if turn.reason == Reason.NO_LEGAL_MOVE:
        end = f"{names[int(position.turn)]} to move has no legal move: {result[turn.result]}"
    raise ValueError(
        f"{name} {shown(position.fen())}: the game is over before its first move ({end}); "
        "every start position of a batch must leave a move to play"
    )


def _checked_fens(fens: Any) -> list[Any] | tuple[Any, ...]:
    """Returns fens if it is a non-empty list or tuple (its items are checked one by one).

    Raises:
        TypeError: fens is not a list or tuple (a single FEN string included).
        ValueError: fens is empty (None, not [], asks for the start position).
    """
    if not isinstance(fens, (list, tuple)):
        hint = "; put a single FEN in a list: fens=[fen]" if isinstance(fens, str) else ""
        raise TypeError(
            f"fens must be a list of FEN strings or None, not {type(fens).__name__}{hint}"
        )
    if not fens:
        raise ValueError("fens is empty: give at least one FEN, or None for the start position")
    return fens


def _as_array(name: str, values: Any) -> np.ndarray:
    """Returns a numpy array of values given as an array, a torch tensor or a sequence."""
    if hasattr(values, "detach"):  # a torch tensor: no torch import needed
        values = values.detach().cpu().numpy()
    try:
        return np.asarray(values)
    except (TypeError, ValueError) as e:  # ragged nested sequences
        raise ValueError(f"{name} must be an array of shape (num_envs,): {e}") from None


def _sample(arr: np.ndarray) -> str:
    """Returns a short view of an array's first values, for error messages."""
    return shown(arr.ravel()[:4].tolist())
