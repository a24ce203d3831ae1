"""Self-play PPO: a masked categorical policy learning from both sides' moves, against its
current self, a pool of its past selves and the baseline agents.

One iteration (:meth:`PPOTrainer.step`) reads top to bottom, CleanRL-style: a rollout of
``ppo.rollout_steps`` batch-env steps, in which each game is played by the learner on both
sides (probability ``ppo.self_play_fraction``) or by the learner against an opponent from
the pool (its past selves, "random" and "greedy"); GAE over each player's own decisions
(:func:`per_player_advantages`); ``ppo.update_epochs`` passes of clipped-surrogate updates;
and every ``ppo.snapshot_every`` iterations a frozen copy into the pool. Everything random
comes from ``train.seed``. ``network.norm: group`` keeps the rollout's and the update's
policies equal (batch norm makes the PPO ratio start off 1).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from damas_agents.models.config import Config, NetworkConfig, PPOConfig
from damas_agents.models.network import DraughtsNet
from damas_agents.players.classic import GreedyAgent
from damas_agents.training.trainer import gradient_steps, make_learner
from damas_env.encoding import planes_for
from damas_env.rules import Ruleset
from damas_env.vector import DraughtsBatchEnv

__all__ = [
    "GREEDY",
    "RANDOM",
    "SELF",
    "FinishedGames",
    "OpponentPool",
    "PPOTrainer",
    "Rollout",
    "per_player_advantages",
    "ppo_losses",
    "ppo_update",
    "sample_actions",
]

#: Opponent codes of a game (a code >= 0 is the id of a past self in the pool).
SELF, RANDOM, GREEDY = -1, -2, -3
_BASELINES = (RANDOM, GREEDY)


# --- 1. The masked categorical policy ---------------------------------------------------------


def sample_actions(
    logits: torch.Tensor, uniforms: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Returns (actions (B,), their log-probabilities (B,)) drawn from masked logits (B, A).

    The draw inverts each row's cumulative distribution at a given uniform in [0, 1), so the
    caller's generator decides it. A masked action (logit -1e9) has probability exactly 0
    and is never drawn.
    """
    log_p = torch.log_softmax(logits.float(), dim=1)
    cdf = torch.softmax(logits.double(), dim=1).cumsum(dim=1)
    target = uniforms.to(cdf).unsqueeze(1) * cdf[:, -1:]
    actions = torch.searchsorted(cdf, target, right=True).squeeze(1)
    actions = actions.clamp_(max=logits.shape[1] - 1)
    # Rounding at the top of the cdf could land on a zero-probability tail: take the mode.
    chosen = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
    actions = torch.where(chosen > -1e6, actions, log_p.argmax(dim=1))
    return actions, log_p.gather(1, actions.unsqueeze(1)).squeeze(1)


# --- 2. Advantages per player -----------------------------------------------------------------


def per_player_advantages(
    values: np.ndarray,
    movers: np.ndarray,
    learner: np.ndarray,
    rewards: np.ndarray,
    ended: np.ndarray,
    end_values: np.ndarray,
    last_values: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Returns GAE (advantages, returns), both (T, B), over each player's own decisions.

    Step t of game g is a decision of player ``movers[t, g]``; the decisions of one player in
    one game slot form a stream (it goes on into the slot's next game, cut at each game's
    end). Along a stream, with v its values, r the reward the player receives after the
    decision and before its next one, and d whether the game ended in between::

        delta_i = r_i + gamma * (1 - d_i) * v_{i+1} - v_i
        adv_i   = delta_i + gamma * lambda * (1 - d_i) * adv_{i+1}

    so gamma discounts per own decision. A game truncated after step t counts as ended with
    ``end_values[t, g, p]`` as the value after it (its bootstrap); the last decision of a
    stream still open after step T-1 is bootstrapped with ``last_values[g, p]``.

    Args:
        values: (T, B) value of the mover's position at each step (read where `learner`).
        movers: (T, B) player (0/1) who moved at each step.
        learner: (T, B) bool, the step is a decision to train on (others are skipped: the
            opponent's hops, and both sides are learners in self-play games).
        rewards: (T, B, 2) rewards by player after each step (nonzero at a game's end).
        ended: (T, B) bool, the game ended with step t (terminated or truncated).
        end_values: (T, B, 2) value by player of the final position where a game was
            truncated (0 where it terminated).
        last_values: (B, 2) value by player of each game's position after the last step.
        gamma: discount per own decision.
        gae_lambda: GAE's lambda.

    Returns:
        (advantages, returns = advantages + values), (T, B); 0 where not `learner`.
    """
    steps, games = values.shape
    advantages = np.zeros((steps, games), np.float32)
    next_value = last_values.astype(np.float64).copy()  # (B, 2): value after the decision
    next_adv = np.zeros((games, 2))
    pending = np.zeros((games, 2))  # reward received after the decision
    for t in reversed(range(steps)):
        end = ended[t]
        next_value[end] = end_values[t][end]
        next_adv[end] = 0.0
        pending[end] = 0.0
        pending += rewards[t]
        g = np.flatnonzero(learner[t])
        p = movers[t, g]
        v = values[t, g].astype(np.float64)
        delta = pending[g, p] + gamma * next_value[g, p] - v
        adv = delta + gamma * gae_lambda * next_adv[g, p]
        advantages[t, g] = adv
        next_value[g, p] = v
        next_adv[g, p] = adv
        pending[g, p] = 0.0
    returns = np.where(learner, advantages + values, 0.0).astype(np.float32)
    return advantages, returns


# --- 3. The PPO loss and update ---------------------------------------------------------------


@dataclass
class Rollout:
    """The learner's decisions of one rollout, flattened (N rows), on the network's device."""

    obs: torch.Tensor
    """(N, 8, n, n) observation planes, in the mover's view."""
    masks: torch.Tensor
    """(N, A) bool legal actions."""
    actions: torch.Tensor
    """(N,) int64 actions played."""
    logprobs: torch.Tensor
    """(N,) their log-probabilities under the policy that played them."""
    values: torch.Tensor
    """(N,) the value head's estimate when they were played."""
    advantages: torch.Tensor
    """(N,) GAE advantages (per_player_advantages)."""
    returns: torch.Tensor
    """(N,) value targets: advantages + values."""

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def ppo_losses(
    network: DraughtsNet, batch: Rollout, rows: torch.Tensor, ppo: PPOConfig
) -> dict[str, torch.Tensor]:
    """Returns PPO's loss terms on some rows of a rollout (differentiable, network in its
    current mode).

    Keys: total (minimised: policy + value - ent_coef * entropy), policy (clipped surrogate),
    value (vf_coef * 0.5 * mean squared error), entropy (mean, of the masked policy),
    value_error (mean squared error), approx_kl (CleanRL's (r - 1) - log r estimator) and
    clip_fraction (share of rows whose ratio left [1 - clip, 1 + clip]).
    """
    logits, value = network(batch.obs[rows], batch.masks[rows])
    log_p = F.log_softmax(logits.float(), dim=1)
    new_logprob = log_p.gather(1, batch.actions[rows].unsqueeze(1)).squeeze(1)
    entropy = -(log_p.exp() * log_p).sum(dim=1).mean()
    log_ratio = new_logprob - batch.logprobs[rows]
    ratio = log_ratio.exp()
    adv = batch.advantages[rows]
    adv = (adv - adv.mean()) / (adv.std(correction=0) + 1e-8)
    clipped = ratio.clamp(1 - ppo.clip_coef, 1 + ppo.clip_coef)
    policy = torch.max(-adv * ratio, -adv * clipped).mean()
    value_error = (value.float() - batch.returns[rows]).pow(2).mean()
    value_loss = ppo.vf_coef * 0.5 * value_error
    with torch.no_grad():
        approx_kl = ((ratio - 1) - log_ratio).mean()
        clip_fraction = ((ratio - 1).abs() > ppo.clip_coef).float().mean()
    return {
        "total": policy + value_loss - ppo.ent_coef * entropy,
        "policy": policy,
        "value": value_loss,
        "entropy": entropy,
        "value_error": value_error,
        "approx_kl": approx_kl,
        "clip_fraction": clip_fraction,
    }


def ppo_update(
    network: DraughtsNet,
    optimizer: torch.optim.Optimizer,
    batch: Rollout,
    ppo: PPOConfig,
    max_grad_norm: float,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Runs ppo.update_epochs passes of ppo.num_minibatches gradient steps over a rollout
    (network in train mode, back in eval mode after); returns the terms of
    :func:`ppo_losses`, averaged over the gradient steps."""
    size = len(batch)
    if size == 0:
        return {}
    minibatch = math.ceil(size / ppo.num_minibatches)

    def minibatches() -> Iterator[torch.Tensor]:
        for _ in range(ppo.update_epochs):
            order = torch.from_numpy(rng.permutation(size)).to(batch.actions.device)
            for start in range(0, size, minibatch):
                yield order[start : start + minibatch]

    return gradient_steps(
        network,
        optimizer,
        minibatches(),
        lambda rows: ppo_losses(network, batch, rows, ppo),
        max_grad_norm,
    )


# --- 4. The opponent pool ---------------------------------------------------------------------


class OpponentPool:
    """Frozen past selves of the network, by id, at most `capacity` (the oldest leaves first).

    A snapshot that leaves the pool stays available under its id (:meth:`net`) until
    :meth:`forget` is told no game uses it any more. ``config`` and ``rules`` build the
    snapshots' networks (:class:`~damas_agents.models.network.DraughtsNet`'s arguments).
    """

    def __init__(
        self, capacity: int, config: NetworkConfig, rules: Ruleset | int, device: torch.device
    ) -> None:
        self.capacity = capacity
        self.config = config
        self.rules = rules
        self.device = device
        self.ids: list[int] = []
        self.next_id = 0
        self._nets: dict[int, DraughtsNet] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, network: DraughtsNet) -> int:
        """Adds a frozen copy of `network` (eval mode); returns its id."""
        snapshot = copy.deepcopy(network).eval().requires_grad_(False)
        sid = self.next_id
        self.next_id += 1
        self._nets[sid] = snapshot
        self.ids.append(sid)
        del self.ids[: -self.capacity]
        return sid

    def net(self, sid: int) -> DraughtsNet:
        """Returns the snapshot with id `sid`."""
        return self._nets[sid]

    def forget(self, in_use: set[int]) -> None:
        """Drops the snapshots that left the pool and no game in `in_use` plays any more."""
        for sid in [s for s in self._nets if s not in self.ids and s not in in_use]:
            del self._nets[sid]

    def state(self) -> dict[str, Any]:
        """Returns the pool as plain values (CPU tensors), ``torch.load(weights_only)``-safe."""
        return {
            "next_id": self.next_id,
            "ids": list(self.ids),
            "weights": [
                {k: v.detach().cpu().clone() for k, v in self._nets[s].state_dict().items()}
                for s in self.ids
            ],
        }

    def sync(self, state: dict[str, Any]) -> None:
        """Makes the pool match :meth:`state` of another pool (a learner's), loading only the
        snapshots it lacks; snapshots that left are kept until :meth:`forget`."""
        ids = [int(s) for s in state["ids"]]
        for sid, weights in zip(ids, state["weights"], strict=True):
            if sid not in self._nets:
                net = DraughtsNet(self.config, self.rules).to(self.device)
                net.load_state_dict(weights)
                self._nets[sid] = net.eval().requires_grad_(False)
        self.ids = ids
        self.next_id = int(state["next_id"])

    def load_state(self, state: dict[str, Any]) -> None:
        """Restores :meth:`state` (replacing every snapshot)."""
        self._nets = {}
        self.ids = [int(s) for s in state["ids"]]
        self.next_id = int(state["next_id"])
        for sid, weights in zip(self.ids, state["weights"], strict=True):
            net = DraughtsNet(self.config, self.rules).to(self.device)
            net.load_state_dict(weights)
            self._nets[sid] = net.eval().requires_grad_(False)


# --- 5. The trainer ---------------------------------------------------------------------------


@dataclass
class FinishedGames:
    """The games that ended during a rollout."""

    plies: list[int]
    """Length of each, in plies (openings included)."""
    scores: dict[str, list[float]]
    """The learner's results (+1, 0, -1) by opponent kind: "random", "greedy", "past"
    (self-play games have none)."""


class PPOTrainer:
    """Self-play PPO against a pool (see the module docstring); a
    :class:`~damas_agents.training.trainer.Trainer`.

    Attributes beyond the protocol's:
        env: the batch env of the self-play games.
        pool: the past selves.
        opponent: (B,) per game, SELF, RANDOM, GREEDY or the id of a past self.
        learner_side: (B,) per game, the player (0/1) the learner is (any in self-play).
        snapshot_every: iterations between snapshots (ppo.snapshot_every).
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self.rules = config.env.ruleset()
        seed = config.train.seed
        self.rng, self.device, self.network, self.optimizer = make_learner(config)
        self.iteration = 0
        self.snapshot_every = config.ppo.snapshot_every
        self.pool = OpponentPool(config.ppo.pool_size, config.network, self.rules, self.device)
        e = config.env
        self.env = DraughtsBatchEnv(
            e.num_envs,
            variant=e.variant,
            seed=seed,
            max_plies=e.max_plies or None,
            opening_plies=e.opening_plies,
            **e.rules,
        )
        self.num_envs = e.num_envs
        self.num_actions = self.env.num_actions
        self.opponent = np.full(self.num_envs, SELF, np.int64)
        self.learner_side = np.zeros(self.num_envs, np.int64)
        self.greedy: list[GreedyAgent] = []
        self.turn_hops: list[list[int]] = []
        self._restart_games()

    # --- Games ------------------------------------------------------------------------------

    def _restart_games(self) -> None:
        """Starts every game afresh (new env streams from the generator) and draws players."""
        self.env.seed(int(self.rng.integers(2**63)))
        self.env.reset()
        self.greedy = [
            GreedyAgent(seed=int(s)) for s in self.rng.integers(2**63, size=self.num_envs)
        ]
        self.turn_hops = [[] for _ in range(self.num_envs)]
        for g in range(self.num_envs):
            self._draw_players(g)

    def _draw_players(self, g: int) -> None:
        """Draws who plays game g (at its start): the learner on both sides, or the learner
        on a random side against a random member of the pool or a baseline."""
        self.turn_hops[g] = []
        self.greedy[g].reset()
        self.learner_side[g] = self.rng.integers(2)
        if self.rng.random() < self.config.ppo.self_play_fraction:
            self.opponent[g] = SELF
        else:
            choices = [*_BASELINES, *self.pool.ids]
            self.opponent[g] = choices[int(self.rng.integers(len(choices)))]

    def _opponent_actions(
        self, actions: np.ndarray, theirs: np.ndarray, uniforms: torch.Tensor
    ) -> None:
        """Writes into `actions` the hops of the opponents to move in games `theirs` (bool)."""
        env = self.env
        codes = self.opponent
        for sid in np.unique(codes[theirs & (codes >= 0)]):
            idx = np.flatnonzero(theirs & (codes == sid))
            obs = torch.from_numpy(env.obs[idx]).to(self.device)
            with torch.no_grad():
                logits, _ = self.pool.net(int(sid))(obs, torch.from_numpy(env.masks[idx]))
            picked, _ = sample_actions(logits, uniforms[idx])
            actions[idx] = picked.cpu().numpy()
        randoms = theirs & (codes == RANDOM)
        if randoms.any():
            actions[randoms] = env.random_actions()[randoms]
        for g in np.flatnonzero(theirs & (codes == GREEDY)):
            observation = {"observation": env.obs[g], "action_mask": env.masks[g]}
            actions[g] = self.greedy[g].act(observation, env.position(int(g)), self.turn_hops[g])

    # --- Rollout ----------------------------------------------------------------------------

    def rollout(self) -> tuple[Rollout, FinishedGames]:
        """Plays ppo.rollout_steps steps of every game (network in eval mode); returns the
        learner's decisions with their advantages, and the games that ended."""
        ppo, env, device = self.config.ppo, self.env, self.device
        steps, games, n = ppo.rollout_steps, self.num_envs, self.rules.board_size
        self.network.eval()
        obs_buf = torch.zeros((steps, games, planes_for(self.rules), n, n), device=device)
        mask_buf = torch.zeros((steps, games, self.num_actions), dtype=torch.bool, device=device)
        actions = np.zeros((steps, games), np.int64)
        logprobs = np.zeros((steps, games), np.float32)
        values = np.zeros((steps, games), np.float32)
        movers = np.zeros((steps, games), np.int64)
        learner = np.zeros((steps, games), np.bool_)
        rewards = np.zeros((steps, games, 2), np.float32)
        ended = np.zeros((steps, games), np.bool_)
        end_values = np.zeros((steps, games, 2), np.float32)
        finished = FinishedGames([], {"random": [], "greedy": [], "past": []})
        rows = np.arange(games)
        for t in range(steps):
            to_play = env.to_play.copy()
            movers[t] = to_play
            mine = (self.opponent == SELF) | (to_play == self.learner_side)
            learner[t] = mine
            uniforms = torch.from_numpy(self.rng.random(games))
            step_actions = np.zeros(games, np.int64)
            idx = np.flatnonzero(mine)
            if idx.size:
                obs = torch.from_numpy(env.obs[idx]).to(device)
                mask = torch.from_numpy(env.masks[idx]).to(device).bool()
                with torch.no_grad():
                    logits, value = self.network(obs, mask)
                picked, logprob = sample_actions(logits, uniforms[idx])
                index = torch.from_numpy(idx).to(device)
                obs_buf[t, index] = obs
                mask_buf[t, index] = mask
                step_actions[idx] = picked.cpu().numpy()
                logprobs[t, idx] = logprob.cpu().numpy()
                values[t, idx] = value.float().cpu().numpy()
            self._opponent_actions(step_actions, ~mine, uniforms)
            actions[t] = step_actions
            _, _, new_to_play, reward, terminated, truncated, info = env.step(step_actions)
            rewards[t] = reward
            done = terminated | truncated
            ended[t] = done
            if truncated.any():  # bootstrap from the final position, for both players
                cut = np.flatnonzero(truncated)
                final = torch.from_numpy(info["final_observation"][cut]).to(device)
                with torch.no_grad():
                    _, v_final = self.network(final)
                v = v_final.float().cpu().numpy()
                nxt = 1 - to_play[cut]  # the final planes are in the next mover's view
                end_values[t, cut, nxt] = v
                end_values[t, cut, 1 - nxt] = -v
            for g in np.flatnonzero(~mine & (self.opponent == GREEDY)):
                if done[g] or new_to_play[g] != to_play[g]:
                    self.turn_hops[g] = []
                else:
                    self.turn_hops[g].append(int(step_actions[g]))
            for g in np.flatnonzero(done):
                finished.plies.append(int(info["final_plies"][g]))
                code = int(self.opponent[g])
                if code != SELF:
                    kind = {RANDOM: "random", GREEDY: "greedy"}.get(code, "past")
                    finished.scores[kind].append(float(reward[g, self.learner_side[g]]))
                self._draw_players(int(g))
        self.pool.forget({int(c) for c in self.opponent if c >= 0})
        # Bootstrap: the value of each game's current position, for its mover and the other.
        with torch.no_grad():
            _, v_now = self.network(
                torch.from_numpy(env.obs).to(device), torch.from_numpy(env.masks).to(device)
            )
        v_last = v_now.float().cpu().numpy()
        last_values = np.zeros((games, 2), np.float32)
        last_values[rows, env.to_play] = v_last
        last_values[rows, 1 - env.to_play] = -v_last
        advantages, returns = per_player_advantages(
            values,
            movers,
            learner,
            rewards,
            ended,
            end_values,
            last_values,
            ppo.gamma,
            ppo.gae_lambda,
        )
        keep = torch.from_numpy(learner).to(device)

        def flat(array: np.ndarray) -> torch.Tensor:
            return torch.from_numpy(array).to(device)[keep]

        batch = Rollout(
            obs=obs_buf[keep],
            masks=mask_buf[keep],
            actions=flat(actions),
            logprobs=flat(logprobs),
            values=flat(values),
            advantages=flat(advantages),
            returns=flat(returns),
        )
        return batch, finished

    # --- Trainer ----------------------------------------------------------------------------

    def step(self) -> dict[str, float]:
        """Runs one iteration (rollout, PPO updates, maybe a snapshot); returns its metrics.

        ``game_length`` and the ``ppo/score_vs_*`` keys (the learner's mean result, in
        [-1, 1], in the games against that kind of opponent) are left out when no such game
        ended this iteration; the loss keys when the learner made no decision (a rollout
        shorter than a move, with every game against an opponent).
        """
        return self.learn([self.collect()])

    def collect(self) -> dict[str, Any]:
        """Plays one rollout; returns the learner's decisions (CPU tensors) and the games that
        ended (what a distributed worker sends to the learner)."""
        batch, finished = self.rollout()
        rollout = {f.name: getattr(batch, f.name).cpu() for f in dataclasses.fields(batch)}
        return {"rollout": rollout, "plies": finished.plies, "scores": finished.scores}

    def learn(self, payloads: list[dict[str, Any]]) -> dict[str, float]:
        """Runs the PPO update on the rollouts of :meth:`collect` payloads (from this trainer
        or from workers), maybe adds a snapshot to the pool; returns the iteration's metrics.
        """
        fields = payloads[0]["rollout"].keys()
        batch = Rollout(
            **{k: torch.cat([p["rollout"][k] for p in payloads]).to(self.device) for k in fields}
        )
        finished = FinishedGames(
            [n for p in payloads for n in p["plies"]],
            {k: [x for p in payloads for x in p["scores"][k]] for k in payloads[0]["scores"]},
        )
        losses = ppo_update(
            self.network,
            self.optimizer,
            batch,
            self.config.ppo,
            self.config.train.max_grad_norm,
            self.rng,
        )
        self.iteration += 1
        if self.iteration % self.snapshot_every == 0:
            self.pool.add(self.network)
        metrics: dict[str, float] = {
            "games": float(len(finished.plies)),
            "positions": float(len(batch)),
            "ppo/pool_size": float(len(self.pool)),
        }
        if finished.plies:
            metrics["game_length"] = float(np.mean(finished.plies))
        for kind, scores in finished.scores.items():
            if scores:
                metrics[f"ppo/score_vs_{kind}"] = float(np.mean(scores))
        if losses:
            for key in ("total", "policy", "value"):
                metrics[f"loss/{key}"] = losses[key]
            metrics["entropy"] = losses["entropy"]
            metrics["value_error"] = losses["value_error"]
            metrics["ppo/approx_kl"] = losses["approx_kl"]
            metrics["ppo/clip_fraction"] = losses["clip_fraction"]
            var = float(batch.returns.var(correction=0))
            if var > 0:
                unexplained = float((batch.returns - batch.values).var(correction=0))
                metrics["ppo/explained_variance"] = 1.0 - unexplained / var
        return metrics

    def worker_state(self) -> dict[str, Any]:
        """Returns what a self-play worker needs each iteration: the network's weights and
        the opponent pool."""
        model = {k: v.detach().cpu() for k, v in self.network.state_dict().items()}
        return {"model": model, "pool": self.pool.state()}

    def load_worker_state(self, state: dict[str, Any]) -> None:
        """Loads :meth:`worker_state` into this trainer acting as a self-play worker (games in
        progress go on; snapshots it already holds are kept)."""
        self.network.load_state_dict(state["model"])
        self.pool.sync(state["pool"])

    def extra_state(self) -> dict[str, Any]:
        """Returns the opponent pool and the generator's state (games in progress are not
        kept)."""
        return {"rng": self.rng.bit_generator.state, "pool": self.pool.state()}

    def load_extra_state(self, state: dict[str, Any]) -> None:
        """Restores :meth:`extra_state`; every game restarts (new env streams drawn from the
        restored generator, so a resume is reproducible)."""
        self.rng.bit_generator.state = state["rng"]
        self.pool.load_state(state["pool"])
        self._restart_games()
