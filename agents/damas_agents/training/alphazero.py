"""AlphaZero-style self-play: batched PUCT search guided by the network, a replay buffer,
and a policy-value loss.

Each iteration (:meth:`AlphaZeroTrainer.step`) advances ``env.num_envs`` games by
``mcts.steps_per_iteration`` hops, each searched by one BatchedPUCT call for all games
(Dirichlet noise at the roots; a forced hop is played at once), drawn from the visits for
the first ``mcts.temperature_moves`` plies. Each position is recorded with its root visits
and, when its game ends, the result z for the player to move there (a game past
``env.max_plies`` is a draw). Learning: minibatches of the replay buffer,
cross-entropy(visits, masked policy) + value_loss_weight * (value - z)^2.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from damas_agents.models.config import Config
from damas_agents.players.learned import NetworkEvaluator
from damas_agents.players.tree import BatchedPUCT, select_action
from damas_agents.training.trainer import gradient_steps, make_learner
from damas_env import Position
from damas_env import kernels as K
from damas_env.encoding import PLANES, planes_for
from damas_env.ending import Reason, ending_reason
from damas_env.turn import Starts, Turn, direct_call, new_game, result_value

__all__ = ["AlphaZeroTrainer", "ReplayBuffer"]


class ReplayBuffer:
    """The last `capacity` self-play positions with their search policy and value targets.

    Planes and policies are stored as float16 and masks as bools to halve the memory; a ring
    replaces the oldest positions first. ``planes`` is the ruleset's plane count
    (:func:`damas_env.encoding.planes_for`), ``num_actions`` its action layout's.
    """

    def __init__(
        self, capacity: int, board_size: int, num_actions: int, planes: int = PLANES
    ) -> None:
        n = board_size
        self.capacity = capacity
        self.obs = np.zeros((capacity, planes, n, n), dtype=np.float16)
        self.masks = np.zeros((capacity, num_actions), dtype=bool)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float16)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, obs: np.ndarray, masks: np.ndarray, policies: np.ndarray, values: Any) -> None:
        """Appends k positions (arrays with k rows), overwriting the oldest when full."""
        values = np.asarray(values, dtype=np.float32)
        k = len(obs)
        if k == 0:
            return
        if k > self.capacity:  # only the newest fit
            c = self.capacity
            obs, masks, policies, values = obs[-c:], masks[-c:], policies[-c:], values[-c:]
            k = c
        rows = (self.next + np.arange(k)) % self.capacity
        self.obs[rows] = obs
        self.masks[rows] = masks
        self.policies[rows] = policies
        self.values[rows] = values
        self.next = int((self.next + k) % self.capacity)
        self.size = min(self.size + k, self.capacity)
        self.added += k

    def sample(self, batch: int, rng: np.random.Generator) -> np.ndarray:
        """Returns `batch` row indices drawn uniformly (with replacement) from the buffer."""
        return rng.integers(0, self.size, size=batch)

    def state(self) -> dict[str, Any]:
        """Returns the buffer's filled rows as tensors (for a checkpoint)."""
        order = (self.next - self.size + np.arange(self.size)) % self.capacity  # oldest first
        return {
            "obs": torch.from_numpy(self.obs[order]),
            "masks": torch.from_numpy(self.masks[order]),
            "policies": torch.from_numpy(self.policies[order]),
            "values": torch.from_numpy(self.values[order]),
            "added": self.added,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Refills the buffer from :meth:`state` (keeping the newest rows if it is smaller)."""
        self.size = self.next = 0
        self.add(
            state["obs"].numpy(), state["masks"].numpy(), state["policies"].numpy(),
            state["values"].numpy(),
        )  # fmt: skip
        self.added = int(state["added"])


class _Record:
    """Positions of one game in progress, waiting for its result."""

    __slots__ = ("obs", "masks", "policies", "sides")

    def __init__(self) -> None:
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.policies: list[np.ndarray] = []
        self.sides: list[int] = []


class AlphaZeroTrainer:
    """AlphaZero-style self-play and learning (see the module docstring); a Trainer."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.rules = config.env.ruleset()
        seed = config.train.seed
        self.rng, self.device, self.network, self.optimizer = make_learner(config)
        self.iteration = 0
        self.evaluator = NetworkEvaluator(self.network)
        m = config.mcts
        self.search = BatchedPUCT(
            self.evaluator,
            m.simulations,
            c_puct=m.c_puct,
            dirichlet_alpha=m.dirichlet_alpha,
            dirichlet_fraction=m.dirichlet_fraction,
            virtual_loss=m.virtual_loss,
            batch_leaves=m.leaves_per_game,
            seed=seed + 1,
        )
        start = Position.start(self.rules)
        self.starts = Starts(
            start.board[None].astype(np.int8),
            np.array([int(start.turn)], np.int64),
            config.env.opening_plies,
        )
        self.games = [Turn(self.rules) for _ in range(config.env.num_envs)]
        self.records = [_Record() for _ in self.games]
        num_actions = self.games[0].layout.num_actions
        n, planes = self.rules.board_size, planes_for(self.rules)
        self.replay = ReplayBuffer(config.train.replay_size, n, num_actions, planes)
        self._outbox: list[tuple[np.ndarray, ...]] = []  # finished games' positions
        self._obs = np.zeros((planes, n, n), dtype=np.float32)
        self._mask = np.zeros(num_actions, dtype=np.int8)
        self._restart_games()

    # --- Self-play --------------------------------------------------------------------------

    def _restart_games(self) -> None:
        """Seeds each game's random stream from the run generator's current state (read, not
        advanced: the run's own draws stay as they were), then starts every game afresh."""
        entropy = self.rng.bit_generator.state["state"]["state"]
        seeds = np.random.SeedSequence(entropy).generate_state(len(self.games), np.uint64)
        for g, turn in enumerate(self.games):
            turn.states.rng[0] = seeds[g] | np.uint64(1)  # xorshift streams must not be 0
            self._new_game(g)

    def _new_game(self, g: int) -> None:
        """Restarts game g from the start position and env.opening_plies random plies (whole
        moves, uniform over the legal ones, drawn from the game's stream; an opening that
        ends the game is drawn again, up to 15 times), as the batch env starts its games."""
        turn = self.games[g]
        new_game(turn.states, 0, turn.tables, self.starts, turn.routes, turn.ws)
        self.records[g] = _Record()

    def _play_forced(self, g: int, finished: list[tuple[int, float]]) -> bool:
        """Plays game g's hops while it has a single legal hop; True if it needs a search."""
        turn = self.games[g]
        while True:
            if self._game_over(turn):
                self._finish(g, finished)
                turn = self.games[g]
            legal = turn.legal_actions()
            if len(legal) != 1:
                return True
            turn.play(legal[0])

    def _game_over(self, turn: Turn) -> bool:
        """Returns whether the game has ended, by the rules or at the env.max_plies cut (the
        envs' ending, :func:`damas_env.ending.ending_reason`)."""
        limit = self.config.env.max_plies
        return direct_call(ending_reason, (), turn.states, 0, limit) != Reason.NONE

    def _finish(self, g: int, finished: list[tuple[int, float]]) -> None:
        """Scores game g's records with its result, queues them and restarts the game."""
        turn, record = self.games[g], self.records[g]
        if record.sides:
            self._outbox.append(
                (
                    np.stack(record.obs),
                    np.stack(record.masks),
                    np.stack(record.policies),
                    np.array([result_value(turn.result, side) for side in record.sides]),
                )
            )
        decisive = result_value(turn.result, K.WHITE) != 0.0  # a cut game counts as a draw
        finished.append((turn.ply, 1.0 if decisive else 0.0))
        self._new_game(g)

    def _self_play(self) -> tuple[int, list[tuple[int, float]]]:
        """Advances every game by steps_per_iteration searched hops; returns (positions
        recorded, (plies, decisive) of each game finished)."""
        finished: list[tuple[int, float]] = []
        positions = 0
        m = self.config.mcts
        for _ in range(m.steps_per_iteration):
            for g in range(len(self.games)):
                self._play_forced(g, finished)
            visits = self.search.search(self.games, add_noise=m.dirichlet_fraction > 0)
            for g, turn in enumerate(self.games):
                turn.write_planes(self._obs, turn.side)
                turn.write_mask(self._mask)
                record = self.records[g]
                record.obs.append(self._obs.astype(np.float16))
                record.masks.append(self._mask.astype(bool))
                record.policies.append(visits[g].astype(np.float16))
                record.sides.append(int(turn.side))
                temperature = 1.0 if turn.ply < m.temperature_moves else 0.0
                turn.play(select_action(visits[g], temperature, self.rng))
                positions += 1
        for g in range(len(self.games)):  # leave no game over for the next iteration
            if self._game_over(self.games[g]):
                self._finish(g, finished)
        return positions, finished

    # --- Learning ---------------------------------------------------------------------------

    def losses(self, rows: np.ndarray) -> dict[str, torch.Tensor]:
        """Returns the loss terms of replay rows (differentiable, network in its mode)."""
        r = self.replay
        device = self.device
        obs = torch.from_numpy(r.obs[rows]).to(device, torch.float32)
        masks = torch.from_numpy(r.masks[rows]).to(device)
        target = torch.from_numpy(r.policies[rows]).to(device, torch.float32)
        z = torch.from_numpy(r.values[rows]).to(device)
        logits, value = self.network(obs, masks)
        log_p = F.log_softmax(logits.float(), dim=1)
        policy_loss = -(target * log_p).sum(1).mean()
        value_loss = F.mse_loss(value.float(), z)
        total = policy_loss + self.config.train.value_loss_weight * value_loss
        entropy = -(log_p.exp() * log_p).sum(1).mean()
        return {"total": total, "policy": policy_loss, "value": value_loss, "entropy": entropy}

    def _learn(self) -> dict[str, float]:
        """Runs the iteration's gradient steps; returns the mean loss terms."""
        t = self.config.train
        if self.replay.size == 0:
            return {}
        batches = (
            self.replay.sample(min(t.batch_size, self.replay.size), self.rng)
            for _ in range(t.updates_per_iteration)
        )
        return gradient_steps(self.network, self.optimizer, batches, self.losses, t.max_grad_norm)

    # --- Trainer ----------------------------------------------------------------------------

    def step(self) -> dict[str, float]:
        """Runs one iteration: self-play, then learning; returns its metrics."""
        return self.learn([self.collect()])

    def collect(self) -> dict[str, Any]:
        """Plays one iteration's self-play; returns the finished games' scored positions
        and the counts (what a distributed worker sends to the learner)."""
        self.network.eval()
        evals_before = self.evaluator.positions
        started = time.perf_counter()
        positions, finished = self._self_play()
        seconds = time.perf_counter() - started
        games, self._outbox = self._outbox, []
        return {
            "obs": [g[0] for g in games],
            "masks": [g[1] for g in games],
            "policies": [g[2] for g in games],
            "values": [g[3] for g in games],
            "positions": positions,
            "finished": finished,
            "evaluations": self.evaluator.positions - evals_before,
            "seconds": seconds,
        }

    def learn(self, payloads: list[dict[str, Any]]) -> dict[str, float]:
        """Stores the positions of :meth:`collect` payloads (from this trainer or from
        workers) in the replay buffer, learns, and returns the iteration's metrics."""
        finished: list[tuple[int, float]] = []
        for payload in payloads:
            for game in zip(
                payload["obs"], payload["masks"], payload["policies"], payload["values"],
                strict=True,
            ):  # fmt: skip
                self.replay.add(*game)
            finished += payload["finished"]
        losses = self._learn()
        self.iteration += 1
        self_play_s = max(p["seconds"] for p in payloads) if payloads else 0.0
        metrics: dict[str, float] = {
            "games": float(len(finished)),
            "positions": float(sum(p["positions"] for p in payloads)),
            "alphazero/replay": float(self.replay.size),
            "alphazero/evaluations_per_s": sum(p["evaluations"] for p in payloads)
            / max(self_play_s, 1e-9),
            "alphazero/self_play_s": self_play_s,
        }
        if finished:
            metrics["game_length"] = float(np.mean([plies for plies, _ in finished]))
            metrics["alphazero/decisive"] = float(np.mean([d for _, d in finished]))
        if losses:
            metrics["loss/total"] = losses["total"]
            metrics["loss/policy"] = losses["policy"]
            metrics["loss/value"] = losses["value"]
            metrics["value_error"] = losses["value"]
            metrics["entropy"] = losses["entropy"]
        return metrics

    def worker_state(self) -> dict[str, Any]:
        """Returns what a self-play worker needs each iteration: the network's weights."""
        return {"model": {k: v.detach().cpu() for k, v in self.network.state_dict().items()}}

    def load_worker_state(self, state: dict[str, Any]) -> None:
        """Loads :meth:`worker_state` into this trainer acting as a self-play worker."""
        self.network.load_state_dict(state["model"])

    def extra_state(self) -> dict[str, Any]:
        """Returns the replay buffer and the generators (games in progress are not kept)."""
        return {
            "replay": self.replay.state(),
            "rng": self.rng.bit_generator.state,
            "search_rng": self.search.rng.bit_generator.state,
        }

    def load_extra_state(self, state: dict[str, Any]) -> None:
        """Restores :meth:`extra_state`; the games in progress restart from the start."""
        self.replay.load_state(state["replay"])
        self.rng.bit_generator.state = state["rng"]
        self.search.rng.bit_generator.state = state["search_rng"]
        self._restart_games()
