"""Self-play PPO (damas_agents.training.ppo): sampling, per-player advantages, the trainer's
iteration, the opponent pool, resume and reproducibility."""

from __future__ import annotations

import dataclasses
import io
import math
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
import torch

from damas_agents.models.config import (
    Config,
    EnvConfig,
    NetworkConfig,
    PPOConfig,
    TrainConfig,
    load_config,
)
from damas_agents.training.ppo import (
    GREEDY,
    SELF,
    PPOTrainer,
    per_player_advantages,
    ppo_losses,
    ppo_update,
    sample_actions,
)
from damas_agents.training.trainer import Trainer, make_trainer

ROOT = Path(__file__).resolve().parents[1]
FIXED_KEYS = (
    "games",
    "positions",
    "game_length",
    "loss/total",
    "loss/policy",
    "loss/value",
    "entropy",
    "value_error",
)


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # conftest.py


def tiny(norm: Literal["batch", "group"] = "batch", seed: int = 0, **ppo: Any) -> Config:
    """A config whose iteration takes a fraction of a second: 8 games of at most 12 plies."""
    return Config(
        algorithm="ppo",
        env=EnvConfig(variant="english", num_envs=8, max_plies=12),
        network=NetworkConfig(channels=8, blocks=1, value_hidden=16, norm=norm, device="cpu"),
        train=TrainConfig(seed=seed, lr=1e-3),
        ppo=PPOConfig(rollout_steps=16, update_epochs=2, num_minibatches=2, pool_size=2, **ppo),
    )


class StepSpy:
    """Wraps a trainer's env.step: checks every action against the mask and counts the
    learner's hops, the games that end and their lengths."""

    def __init__(self, trainer: PPOTrainer) -> None:
        self.trainer = trainer
        self.step = trainer.env.step
        self.learner_hops = 0
        self.ended = 0
        self.plies: list[int] = []
        self.turn_continued = {SELF: 0, GREEDY: 0}  # hops played in the middle of a turn
        trainer.env.step = self  # type: ignore[method-assign, assignment]

    def __call__(self, actions: np.ndarray) -> tuple[Any, ...]:
        t, env = self.trainer, self.trainer.env
        assert (env.masks[np.arange(env.num_envs), actions] == 1).all()
        before = env.to_play.copy()
        self.learner_hops += int(((t.opponent == SELF) | (before == t.learner_side)).sum())
        codes = t.opponent.copy()
        out = self.step(actions)
        _, _, to_play, _, terminated, truncated, info = out
        done = terminated | truncated
        self.ended += int(done.sum())
        self.plies += info["final_plies"][done].tolist()
        for code in self.turn_continued:
            self.turn_continued[code] += int(((codes == code) & ~done & (to_play == before)).sum())
        return out


# --- The masked policy and the advantages -----------------------------------------------------


def test_samples_are_legal_and_follow_the_masked_softmax() -> None:
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 896, generator=gen)
    mask = torch.zeros(3, 896, dtype=torch.bool)
    mask[0, [3, 17, 100, 895]] = True
    mask[1, 0] = True
    mask[2, ::7] = True
    masked = torch.where(mask, logits, torch.tensor(-1e9))
    draws = 8_000
    uniforms = torch.rand(3 * draws, generator=gen, dtype=torch.float64)
    actions, logprobs = sample_actions(masked.repeat_interleave(draws, 0), uniforms)
    actions = actions.view(3, draws)
    assert mask.gather(1, actions).all()
    probs = torch.softmax(masked, dim=1)
    expected = probs.gather(1, actions).log()
    assert torch.allclose(logprobs.view(3, draws), expected, atol=1e-5)
    for row in range(3):
        freq = torch.bincount(actions[row], minlength=896).double() / draws
        assert (freq - probs[row]).abs().max() < 0.03
    # the extremes of [0, 1) pick the first and the last legal action
    first, _ = sample_actions(masked[:1], torch.tensor([0.0], dtype=torch.float64))
    last, _ = sample_actions(masked[:1], torch.tensor([1 - 1e-16], dtype=torch.float64))
    assert (first.item(), last.item()) == (3, 895)


def test_advantages_follow_each_players_own_moves_across_multi_hop_captures() -> None:
    """Game slot 0, self-play: player 0 moves, player 1 takes twice in a row, player 0
    takes twice in a row and wins; a new game starts (player 0, then player 1) and is still
    going after the last step. Slot 1: the learner is player 0 against an opponent (not
    trained on) and loses. Slot 2: self-play, cut by the ply limit after step 3."""
    steps = 7
    movers = np.array(
        [
            [0, 1, 1, 0, 0, 0, 1],
            [0, 1, 0, 1, 1, 0, 1],
            [0, 1, 0, 1, 0, 1, 0],
        ]
    ).T
    learner = np.ones((steps, 3), bool)
    learner[:, 1] = movers[:, 1] == 0
    values = np.array(
        [
            [0.1, 0.2, -0.3, 0.4, 0.5, 0.05, -0.05],
            [0.3, 9.0, 0.2, 9.0, 9.0, 0.0, 9.0],  # 9: the opponent's steps, ignored
            [0.2, 0.1, 0.3, -0.2, 0.6, 0.0, 0.1],
        ],
        np.float32,
    ).T
    rewards = np.zeros((steps, 3, 2), np.float32)
    ended = np.zeros((steps, 3), bool)
    end_values = np.zeros((steps, 3, 2), np.float32)
    rewards[4, 0] = [1.0, -1.0]  # player 0 wins game 1 of slot 0 with its second hop
    ended[4, 0] = True
    rewards[4, 1] = [-1.0, 1.0]  # the opponent (player 1) wins in slot 1 with two hops
    ended[4, 1] = True
    ended[3, 2] = True  # slot 2 is cut after player 1's move; player 0 would move next
    end_values[3, 2] = [0.25, -0.25]
    last_values = np.array([[0.7, -0.7], [0.0, 0.0], [0.4, -0.4]], np.float32)
    args = (values, movers, learner, rewards, ended, end_values, last_values)

    adv, returns = per_player_advantages(*args, gamma=1.0, gae_lambda=1.0)
    np.testing.assert_allclose(returns[:5, 0], [1, -1, -1, 1, 1])
    np.testing.assert_allclose(returns[5:, 0], [0.7, -0.7])  # bootstrapped, by player
    np.testing.assert_allclose(returns[[0, 2], 1], [-1, -1])  # the learner lost
    np.testing.assert_allclose(returns[[1, 3, 4], 1], 0)  # the opponent's: not trained on
    np.testing.assert_allclose(returns[:4, 2], [0.25, -0.25, 0.25, -0.25])
    np.testing.assert_allclose(returns[4:, 2], [0.4, -0.4, 0.4])
    np.testing.assert_allclose(adv, np.where(learner, returns - values, 0), atol=1e-6)

    adv, returns = per_player_advantages(*args, gamma=1.0, gae_lambda=0.5)
    # player 0, slot 0: values 0.1, 0.4, 0.5 then the win
    # adv(t4) = 1 - 0.5 = 0.5; adv(t3) = (0.5 - 0.4) + 0.5 * 0.5 = 0.35;
    # adv(t0) = (0.4 - 0.1) + 0.5 * 0.35 = 0.475
    np.testing.assert_allclose(adv[[0, 3, 4], 0], [0.475, 0.35, 0.5], atol=1e-6)
    # player 1, slot 0: values 0.2, -0.3 then the loss
    # adv(t2) = -1 + 0.3 = -0.7; adv(t1) = (-0.3 - 0.2) + 0.5 * -0.7 = -0.85
    np.testing.assert_allclose(adv[[1, 2], 0], [-0.85, -0.7], atol=1e-6)

    _, returns = per_player_advantages(*args, gamma=0.9, gae_lambda=1.0)
    np.testing.assert_allclose(returns[[0, 3, 4], 0], [0.81, 0.9, 1.0], atol=1e-6)


# --- The trainer ------------------------------------------------------------------------------


def test_step_returns_the_metrics_and_counts_games_and_positions() -> None:
    trainer = PPOTrainer(tiny())
    assert isinstance(trainer, Trainer) and trainer.iteration == 0
    spy = StepSpy(trainer)
    for iteration in (1, 2):
        spy.learner_hops, spy.ended, spy.plies = 0, 0, []
        metrics = trainer.step()
        assert trainer.iteration == iteration
        assert not trainer.network.training  # back in eval mode after the updates
        assert set(FIXED_KEYS) <= set(metrics)
        assert all(math.isfinite(v) for v in metrics.values())
        assert metrics["positions"] == spy.learner_hops
        assert 0 < metrics["positions"] < 16 * 8  # half the games have an opponent
        assert metrics["games"] == spy.ended > 0
        assert metrics["game_length"] == pytest.approx(np.mean(spy.plies))
        assert metrics["game_length"] <= 12
        assert metrics["entropy"] > 0 and metrics["value_error"] >= 0
        for key in ("ppo/clip_fraction", "ppo/approx_kl", "ppo/pool_size"):
            assert key in metrics


def test_self_play_trains_on_every_hop_of_both_sides() -> None:
    trainer = PPOTrainer(tiny(self_play_fraction=1.0))
    spy = StepSpy(trainer)
    weights = {k: v.clone() for k, v in trainer.network.state_dict().items()}
    batch, _ = trainer.rollout()
    for key, value in trainer.network.state_dict().items():  # eval mode: BatchNorm unchanged
        assert torch.equal(value, weights[key])
    assert len(batch) == 16 * 8 == spy.learner_hops
    assert spy.turn_continued[SELF] > 0  # some captures took two hops in a row
    assert batch.masks.gather(1, batch.actions.unsqueeze(1)).all()
    assert (batch.returns.abs() <= 1 + 1e-6).all()


def test_returns_bootstrap_each_player_with_its_own_sign() -> None:
    """With a value head that always says 0.5 for the player to move (gamma = lambda = 1),
    each decision's return is its player's value where its stream stops: the result of a
    game that terminated, else +0.5 if that player is to move next (after a game cut by
    max_plies, or at the end of the rollout) and -0.5 if the other one is."""
    trainer = PPOTrainer(tiny(self_play_fraction=1.0, gae_lambda=1.0))
    forward = trainer.network.forward

    def half(obs: torch.Tensor, mask: torch.Tensor | None = None) -> Any:
        logits, value = forward(obs, mask)
        return logits, torch.full_like(value, 0.5)

    trainer.network.forward = half  # type: ignore[method-assign]
    movers, events = [], []
    step = trainer.env.step

    def record(actions: np.ndarray) -> tuple[Any, ...]:
        movers.append(trainer.env.to_play.copy())
        out = step(actions)
        events.append((out[3].copy(), out[4].copy(), out[5].copy()))
        return out

    trainer.env.step = record  # type: ignore[method-assign, assignment]
    batch, _ = trainer.rollout()
    returns = batch.returns.view(16, 8).numpy()
    expected = np.zeros((16, 8))
    for g in range(8):
        for t in range(16):
            p = movers[t][g]
            value = 0.5 if trainer.env.to_play[g] == p else -0.5  # open at the rollout's end
            for t_end in range(t, 16):
                rewards, terminated, truncated = events[t_end]
                if terminated[g]:
                    value = rewards[g, p]
                    break
                if truncated[g]:
                    value = 0.5 if movers[t_end][g] != p else -0.5
                    break
            expected[t, g] = value
    assert any(truncated.any() for _, _, truncated in events)
    np.testing.assert_allclose(returns, expected, atol=1e-6)


def test_greedy_opponent_plays_whole_moves_and_the_learner_one_side() -> None:
    trainer = PPOTrainer(dataclasses.replace(tiny(), env=EnvConfig("english", num_envs=8)))
    trainer.opponent[:] = GREEDY  # the games in progress: learner against greedy
    spy = StepSpy(trainer)
    batch, _ = trainer.rollout()
    batch2, _ = trainer.rollout()
    assert spy.turn_continued[GREEDY] > 0  # greedy played a multi-capture, hop by hop
    assert 0 < len(batch) + len(batch2) == spy.learner_hops < 2 * 16 * 8


def test_pool_grows_every_snapshot_and_is_capped() -> None:
    trainer = PPOTrainer(tiny(self_play_fraction=0.0))
    trainer.snapshot_every = 1
    sizes = []
    for _ in range(4):
        sizes.append(trainer.step()["ppo/pool_size"])
    assert sizes == [1, 2, 2, 2]
    assert trainer.pool.ids == [2, 3]
    latest = trainer.pool.net(3).state_dict()
    for key, value in trainer.network.state_dict().items():
        assert torch.equal(latest[key], value)
    assert not any(p.requires_grad for p in trainer.pool.net(3).parameters())
    in_use = {int(c) for c in trainer.opponent if c >= 0}
    assert in_use and in_use <= set(trainer.pool._nets)  # games play past selves
    assert set(trainer.pool._nets) <= set(trainer.pool.ids) | in_use


def test_same_seed_same_run_other_seed_other_run() -> None:
    runs = [PPOTrainer(tiny(seed=s)) for s in (3, 3, 4)]
    metrics = [[t.step() for _ in range(2)] for t in runs]
    assert metrics[0] == metrics[1]
    assert metrics[0] != metrics[2]
    for key, value in runs[0].network.state_dict().items():
        assert torch.equal(value, runs[1].network.state_dict()[key])


def test_extra_state_round_trips_and_a_resumed_run_continues_identically() -> None:
    """Games in progress are not saved (the protocol restarts them on resume), so the
    resumed run matches an uninterrupted run whose games restart at the same point:
    every other thing (weights, optimiser, pool, generator) carries over exactly."""
    config = tiny(self_play_fraction=0.25)
    first = PPOTrainer(config)
    first.snapshot_every = 1
    for _ in range(2):
        first.step()
    buffer = io.BytesIO()
    torch.save(
        {
            "network": first.network.state_dict(),
            "optimizer": first.optimizer.state_dict(),
            "iteration": first.iteration,
            "extra": first.extra_state(),
        },
        buffer,
    )
    buffer.seek(0)
    saved = torch.load(buffer, weights_only=True)
    resumed = PPOTrainer(config)
    resumed.snapshot_every = 1
    resumed.network.load_state_dict(saved["network"])
    resumed.optimizer.load_state_dict(saved["optimizer"])
    resumed.iteration = saved["iteration"]
    resumed.load_extra_state(saved["extra"])
    assert resumed.pool.ids == first.pool.ids == [0, 1]

    first.load_extra_state(first.extra_state())  # the same restart of the games in progress
    for _ in range(2):
        assert resumed.step() == first.step()
    assert resumed.iteration == first.iteration == 4
    for key, value in first.network.state_dict().items():
        assert torch.equal(value, resumed.network.state_dict()[key])


def test_updates_lower_the_ppo_loss_on_a_fixed_rollout() -> None:
    config = tiny(norm="group")
    trainer = PPOTrainer(config)
    batch, _ = trainer.rollout()
    rows = torch.arange(len(batch))

    def losses() -> dict[str, torch.Tensor]:
        with torch.no_grad():
            return ppo_losses(trainer.network, batch, rows, config.ppo)

    before = losses()
    assert before["approx_kl"].abs() < 1e-6  # the policy that played: ratio 1
    rng = np.random.default_rng(0)
    for _ in range(5):
        ppo_update(trainer.network, trainer.optimizer, batch, config.ppo, 1.0, rng)
    after = losses()
    assert after["total"] < before["total"] - 0.01
    assert after["value_error"] < before["value_error"]
    assert after["approx_kl"] > 0


def test_the_english_config_is_valid_and_builds_a_ppo_trainer() -> None:
    config = load_config(ROOT / "configs" / "ppo_english.yaml")
    assert config.name == "ppo_english" and config.algorithm == "ppo"
    assert config.eval.opponents == ("random", "greedy", "alphabeta:depth=1", "alphabeta:depth=2")
    small = dataclasses.replace(config, network=dataclasses.replace(config.network, device="cpu"))
    trainer = make_trainer(small)
    assert isinstance(trainer, PPOTrainer) and trainer.env.num_envs == config.env.num_envs
