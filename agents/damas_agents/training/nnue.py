"""Self-play for a learned evaluation inside the compiled alpha-beta search (``algorithm: nnue``).

Each iteration the alpha-beta search plays ``nnue.games_per_iteration`` games to
``nnue.depth`` plies with the current network, in ``nnue.workers`` processes, keeping each
position without a capture and its search score. The network then learns, TD-Leaf style,
``sigmoid(network / K)`` towards ``(1 - r) * sigmoid(score / K) + r * z`` (K
``nnue.score_scale``, z the result as 1, 0.5 or 0, r ``nnue.result_fraction``). It starts as
the classical evaluation (:class:`~damas_agents.models.evalnet.EvalNet`).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from damas_agents.models.config import Config
from damas_agents.models.evalnet import EvalNet, features
from damas_agents.models.network import build_network
from damas_agents.search.alphabeta import (
    ABORT_NONE,
    INF,
    MAX_NODES,
    S_ABORT,
    S_NODES,
    Searcher,
    deepen,
    new_search,
    next_search,
    with_network,
)
from damas_agents.search.nnue import NetWeights
from damas_agents.training.trainer import gradient_steps
from damas_agents.workers import exit_with_parent
from damas_env import kernels as K
from damas_env import turn
from damas_env.kernels import kernel
from damas_env.rules import Ruleset

K.name_kernels(__name__, "the NNUE self-play kernels")  # the first-compile note

__all__ = ["NNUETrainer", "SelfPlay", "play_games"]


# --- One game, compiled ------------------------------------------------------------------------
# Kernels: numba infers their types, so they carry no annotations (hence `type: ignore`).


@kernel()
def _search_move(board, side, t, root, n, depth, order, scores):  # type: ignore[no-untyped-def]
    """Searches a position to `depth` by iterative deepening (:func:`deepen`); returns the best
    score, and leaves order[:n] sorted best first (the moves scoring the best lead). -INF if
    aborted."""
    h = K.hash_position(board, side, t.keys, t.side_key)
    next_search(t)
    for i in range(n):
        order[i] = i
    _, best, _, _, _ = deepen(board, side, h, 1, depth, root[:n], order[:n], scores, MAX_NODES, t)
    if t.stats[S_ABORT] != ABORT_NONE:
        return -INF
    return best


@kernel()
def play_game(s, tt, starts, scratch, ws, t, root, order, scores, depth, max_plies, noise, out):  # type: ignore[no-untyped-def]
    """Plays game 0 of the turn states `s` from a new start to its end (or `max_plies`
    plies) with the search to `depth`, writing each quiet position into `out`; returns
    (rows written, nodes searched).

    out: int32 [max_plies, S + 2], a row: the board, the side to move, the search score.
    noise: the chance (in 1/2**16) of a uniformly random move instead of the search's.
    Ties at the best score are broken with the game's random stream.
    """
    g = np.int64(0)  # typed: a literal 0 would compile new_game and play_route once more
    turn.new_game(s, g, tt, starts, scratch, ws)
    new_search(t)  # the table's entries last the game: each search follows the one before
    squares = s.board.shape[1]
    rows, nodes = 0, 0
    while turn.result_of(s, g) == K.ONGOING and turn.ply_of(s, g) < max_plies:
        board, side = s.board[0], turn.side_of(s, g)
        counters = s.st[0, turn.T_COUNTERS : turn.T_COUNTERS + K.G_LEN]
        n = K.game_moves(board, side, counters, t.ray, t.rules, root, np.bool_(True), ws)
        if n <= 0 or n > root.shape[0]:
            break
        pick = 0
        if n > 1:
            best = _search_move(board, side, t, root, n, depth, order, scores)
            nodes += t.stats[S_NODES]
            if best == -INF:  # a move list too long for the search's buffers
                break
            ties = 1
            while ties < n and scores[order[ties]] == best:
                ties += 1
            pick = order[np.int64(turn.next_random(s.rng, g) % np.uint64(ties))]
            if root[0, K.M_NCAP] == 0 and rows < out.shape[0]:
                for c in range(squares):
                    out[rows, c] = board[c]
                out[rows, squares] = side
                out[rows, squares + 1] = best
                rows += 1
            if noise > 0 and np.int64(turn.next_random(s.rng, g) % np.uint64(1 << 16)) < noise:
                pick = np.int64(turn.next_random(s.rng, g) % np.uint64(n))
        if turn.play_route(s, g, tt, root, pick, scratch, ws) < 0:
            break
    return rows, nodes


# --- Self-play in Python: one object per process ------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """What a self-play worker needs besides the weights (picklable)."""

    rules: Ruleset
    depth: int
    max_plies: int
    opening_plies: int
    noise: float
    tt_bits: int


class SelfPlay:
    """Plays self-play games of one ruleset with the search (its tables, the turn states)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        rules = settings.rules
        self.searcher = Searcher(rules, settings.tt_bits)
        self.searcher._grow_buffers()  # room for every move list (no overflow aborts)
        self.states = turn.new_states(rules, 1)
        self.tables = turn.tables(rules)
        board = np.zeros((1, rules.squares), np.int8)
        from damas_env import Position

        start = Position.start(rules)
        board[0] = start.board
        self.starts = turn.Starts(board, np.array([int(start.turn)]), settings.opening_plies)
        self.scratch = K.new_move_buffer()
        self.ws = K.new_workspace(rules.board_size)
        self.root = K.new_move_buffer()
        self.order = np.zeros(self.root.shape[0], np.int64)
        self.scores = np.zeros(self.root.shape[0], np.int64)
        self.out = np.zeros((max(settings.max_plies, 1), rules.squares + 2), np.int32)

    def load_kernels(self, weights: NetWeights) -> None:
        """Compiles (or loads from numba's cache) the game's kernels for these types by playing
        a game of no plies: a worker forked afterwards has them, and compiles nothing."""
        tables = with_network(self.searcher.tables, weights)
        play_game(
            self.states, self.tables, self.starts, self.scratch, self.ws, tables, self.root,
            self.order, self.scores, self.settings.depth, 0, 0, self.out,
        )  # fmt: skip

    def play(self, weights: NetWeights, seed: int, games: int) -> dict[str, Any]:
        """Plays `games` games with the evaluation `weights`; returns the kept positions
        (``boards`` int8 [N, S], ``sides`` int8 [N], ``scores`` int32 [N], ``results``
        float32 [N]: 1 won, 0.5 drawn, 0 lost for the side to move) and counts."""
        s, st = self.settings, self.searcher
        st.tables = with_network(st.tables, weights)  # searched in integers
        seeds = np.random.SeedSequence(seed).generate_state(games, dtype=np.uint64)
        noise = int(round(s.noise * (1 << 16)))
        parts, nodes, plies = [], 0, 0
        for g in range(games):
            self.states.rng[0] = seeds[g] | np.uint64(1)
            rows, spent = play_game(
                self.states, self.tables, self.starts, self.scratch, self.ws, st.tables,
                self.root, self.order, self.scores, s.depth, s.max_plies, noise, self.out,
            )  # fmt: skip
            nodes += int(spent)
            plies += int(turn.ply_of(self.states, 0))
            kept = self.out[:rows].copy()
            result = int(self.states.st[0, turn.T_RESULT])
            value = np.array([turn.result_value(result, int(side)) for side in (0, 1)])
            results = (value[kept[:, -2]] + 1.0) / 2.0
            parts.append((kept, results))
        kept = np.concatenate([p[0] for p in parts]) if parts else self.out[:0]
        squares = s.rules.squares
        return {
            "boards": kept[:, :squares].astype(np.int8),
            "sides": kept[:, squares].astype(np.int8),
            "scores": kept[:, squares + 1].astype(np.int32),
            "results": np.concatenate([p[1] for p in parts]).astype(np.float32)
            if parts
            else np.zeros(0, np.float32),
            "games": games,
            "plies": plies,
            "nodes": nodes,
        }


_WORKER: dict[Settings, SelfPlay] = {}  # one per process and settings


def play_games(settings: Settings, weights: NetWeights, seed: int, games: int) -> dict[str, Any]:
    """Plays self-play games in this process (a worker's entry point)."""
    worker = _WORKER.get(settings)
    if worker is None:
        worker = _WORKER[settings] = SelfPlay(settings)
    return worker.play(weights, seed, games)


def _worker_init(parent: int, parent_is_main_thread: bool) -> None:
    """Sets a worker up: compiled code on one core (no thread pools of its own), and an end
    when the trainer's process `parent` ends, however it ends (see :func:`exit_with_parent`)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    exit_with_parent(parent, parent_is_main_thread)


# --- The trainer ---------------------------------------------------------------------------------


class NNUETrainer:
    """Trains an :class:`EvalNet` by alpha-beta self-play (see the module docstring)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        c = config.nnue
        rules = config.env.ruleset()
        torch.manual_seed(config.train.seed)
        self.rng = np.random.default_rng(config.train.seed)
        self.device = torch.device("cpu")
        network = build_network(config)
        assert isinstance(network, EvalNet)
        self.network: EvalNet = network.eval()
        self.optimizer = torch.optim.AdamW(
            self.network.parameters(), lr=config.train.lr, weight_decay=config.train.weight_decay
        )
        self.iteration = 0
        self.settings = Settings(
            rules=rules,
            depth=c.depth,
            max_plies=config.env.max_plies or 400,
            opening_plies=config.env.opening_plies,
            noise=c.random_move_fraction,
            tt_bits=c.tt_bits,
        )
        size, squares = config.train.replay_size, rules.squares
        self.boards = np.zeros((size, squares), np.int8)
        self.sides = np.zeros(size, np.int8)
        self.scores = np.zeros(size, np.int32)
        self.results = np.zeros(size, np.float32)
        self.filled = 0  # rows holding positions
        self.cursor = 0  # next row written
        self._pool: ProcessPoolExecutor | None = None
        self._pending: list[Future[dict[str, Any]]] = []  # the next iteration's games

    # --- Self-play ---

    def collect(self) -> dict[str, Any]:
        """Plays one iteration's games (in the worker processes, if any) and waits for them."""
        return self._gather(self._submit())

    def step(self) -> dict[str, float]:
        """One iteration. With worker processes, self-play and learning overlap: the games
        learned from now were started before the previous update (one iteration stale), and
        the next iteration's games start before this update."""
        if self._workers_wanted() <= 1:
            return self.learn([self.collect()])
        games = self._gather(self._pending) if self._pending else self.collect()
        self._pending = self._submit()
        return self.learn([games])

    def _workers_wanted(self) -> int:
        c = self.config.nnue
        return min(c.workers, c.games_per_iteration)

    def _submit(self) -> list[Future[dict[str, Any]]]:
        """Starts one iteration's games with the current weights (played here if one worker:
        the list then holds a finished future)."""
        c = self.config.nnue
        weights = self.network.weights()
        seed = int(self.rng.integers(2**62))
        games, workers = c.games_per_iteration, self._workers_wanted()
        if workers <= 1:
            done: Future[dict[str, Any]] = Future()
            done.set_result(play_games(self.settings, weights, seed, games))
            return [done]
        pool = self._workers(workers)
        shares = [games // workers + (1 if k < games % workers else 0) for k in range(workers)]
        return [
            pool.submit(play_games, self.settings, weights, seed + k, share)
            for k, share in enumerate(shares)
        ]

    @staticmethod
    def _gather(futures: list[Future[dict[str, Any]]]) -> dict[str, Any]:
        return _joined([f.result() for f in futures])

    def _workers(self, workers: int) -> ProcessPoolExecutor:
        """Returns the worker processes, started on first use: forked where the platform can
        (quick, and a script needs no ``if __name__ == "__main__"`` guard; the workers run
        only compiled code, no torch), spawned elsewhere. The kernels are compiled here
        first, once: the workers find them compiled (forked) or in numba's cache (spawned),
        so a first run compiles, and says so, once rather than once per worker."""
        if self._pool is None:
            small = replace(self.settings, tt_bits=4)  # the same types, a table of 16 entries
            SelfPlay(small).load_kernels(self.network.weights())
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            context = multiprocessing.get_context(method)
            main = threading.current_thread() is threading.main_thread()
            self._pool = ProcessPoolExecutor(
                workers,
                mp_context=context,
                initializer=_worker_init,
                initargs=(os.getpid(), main and method == "fork"),
            )
        return self._pool

    def close(self) -> None:
        """Stops the self-play worker processes."""
        self._pending = []
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    # --- Learning ---

    def learn(self, payloads: list[dict[str, Any]]) -> dict[str, float]:
        data = _joined(payloads)
        kept = len(data["scores"])
        self._remember(data)
        train = self.config.train
        metrics = {
            "games": float(data["games"]),
            "positions": float(kept),
            "game_length": data["plies"] / max(data["games"], 1),
            "nnue/kept": float(kept),
            "nnue/replay": float(self.filled),
            "nnue/nodes": float(data["nodes"]),
        }
        if self.filled >= min(train.batch_size, train.replay_size):
            terms = gradient_steps(
                self.network,  # type: ignore[arg-type]
                self.optimizer,
                (self._batch() for _ in range(train.updates_per_iteration)),
                self._losses,
                train.max_grad_norm,
            )
            metrics.update({f"loss/{k}": v for k, v in terms.items() if k != "target"})
            metrics["loss/value"] = terms.get("total", 0.0)
            metrics["nnue/target_mean"] = terms.get("target", 0.0)
            metrics["value_error"] = terms.get("total", 0.0)
        self.iteration += 1
        return metrics

    def _remember(self, data: dict[str, Any]) -> None:
        """Writes positions into the replay ring."""
        size = len(self.scores)
        n = len(data["scores"])
        if n >= size:  # only the newest fit
            rows = np.arange(size)
            take = slice(n - size, n)
        else:
            rows = (self.cursor + np.arange(n)) % size
            take = slice(0, n)
        self.boards[rows] = data["boards"][take]
        self.sides[rows] = data["sides"][take]
        self.scores[rows] = data["scores"][take]
        self.results[rows] = data["results"][take]
        self.cursor = int((self.cursor + n) % size)
        self.filled = min(size, self.filled + n)

    def _batch(self) -> tuple[torch.Tensor, torch.Tensor]:
        rows = self.rng.integers(self.filled, size=self.config.train.batch_size)
        own = features(self.boards[rows], self.sides[rows])
        c = self.config.nnue
        search = 1.0 / (1.0 + np.exp(-self.scores[rows] / c.score_scale))
        target = (1.0 - c.result_fraction) * search + c.result_fraction * self.results[rows]
        return torch.as_tensor(own), torch.as_tensor(target, dtype=torch.float32)

    def _losses(self, batch: tuple[torch.Tensor, ...]) -> dict[str, torch.Tensor]:
        own, target = batch
        value = self.network(own) * 100.0
        predicted = torch.sigmoid(value / self.config.nnue.score_scale)
        loss = ((predicted - target) ** 2).mean()
        return {"total": loss, "target": target.mean().detach()}

    # --- Workers and checkpoints ---

    def worker_state(self) -> dict[str, Any]:
        weights = self.network.weights()._asdict()
        return {"weights": {k: torch.as_tensor(v) for k, v in weights.items()}}

    def load_worker_state(self, state: dict[str, Any]) -> None:
        self.network.load_weights(NetWeights(**{k: v.numpy() for k, v in state["weights"].items()}))

    def extra_state(self) -> dict[str, Any]:
        n = self.filled
        return {
            "rng": self.rng.bit_generator.state,
            "cursor": self.cursor,
            "filled": n,
            "boards": torch.as_tensor(self.boards[:n].copy()),
            "sides": torch.as_tensor(self.sides[:n].copy()),
            "scores": torch.as_tensor(self.scores[:n].copy()),
            "results": torch.as_tensor(self.results[:n].copy()),
        }

    def load_extra_state(self, state: dict[str, Any]) -> None:
        n = int(state["filled"])
        self.rng.bit_generator.state = state["rng"]
        self.boards[:n] = state["boards"].numpy()
        self.sides[:n] = state["sides"].numpy()
        self.scores[:n] = state["scores"].numpy()
        self.results[:n] = state["results"].numpy()
        self.filled, self.cursor = n, int(state["cursor"])


def _joined(payloads: list[dict[str, Any]]) -> dict[str, Any]:
    """Returns several self-play payloads as one."""
    if len(payloads) == 1:
        return payloads[0]
    out: dict[str, Any] = {}
    for key in ("boards", "sides", "scores", "results"):
        out[key] = np.concatenate([p[key] for p in payloads])
    for key in ("games", "plies", "nodes"):
        out[key] = sum(p[key] for p in payloads)
    return out
