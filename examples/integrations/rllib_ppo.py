"""RLlib (new API stack): PPO self-play with RLlib's action-masking RLModule on draughts_v0.

    pip install -e ".[rllib]"
    python examples/integrations/rllib_ppo.py --steps 20000

``damas_env.integrations.rllib.rllib_env`` is draughts_v0 in RLlib's ``PettingZooEnv``,
with the observation dict renamed to the ``{"observations", "action_mask"}`` that RLlib's
``ActionMaskingTorchRLModule`` reads; the module adds log(mask) to the logits, so only legal
hops are sampled. Both agents map to one shared module (every agent sees the board from its
own side, so one policy plays both). ``channels_last=True`` gives RLlib's CNN encoder the
(N, N, 8) images it expects. After training, the module plays a few games against a random
opponent.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPO, PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from damas_env.integrations.rllib import rllib_env

ENV_NAME = "damas_draughts"
MODULE = "shared"


def shared_module(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Maps both agents to the one module (self-play)."""
    return MODULE


def main(
    total_steps: int = 20_000,
    variant: str = "english",
    batch_size: int = 2000,
    eval_games: int = 10,
    seed: int = 0,
) -> tuple[PPO, float]:
    """Trains PPO by self-play for about `total_steps` hops; returns it and its score.

    Args:
        total_steps: environment steps (hops of either player) to train for.
        variant: the ruleset (an 8x8 one keeps the network small).
        batch_size: steps per training iteration.
        eval_games: games of the final evaluation, the module as player_0 against random.
        seed: seeds RLlib and the evaluation's random opponent.

    Returns:
        The algorithm and the module's mean final reward against random (+1 win, -1 loss).
    """
    register_env(ENV_NAME, lambda config: rllib_env(**config))
    ray.init(num_cpus=1, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config={"variant": variant, "channels_last": True})
        .multi_agent(policies={MODULE}, policy_mapping_fn=shared_module)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    MODULE: RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={
                            "conv_filters": [[32, [3, 3], 1], [32, [3, 3], 1]],
                            "head_fcnet_hiddens": [256],
                        },
                    )
                }
            )
        )
        .env_runners(num_env_runners=0)  # sample in this process
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=batch_size,
            minibatch_size=min(256, batch_size),
            num_epochs=4,
            lr=3e-4,
        )
        .debugging(seed=seed)
    )
    algo = config.build_algo()
    steps = 0
    while steps < total_steps:
        result = algo.train()
        steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
    return algo, evaluate(algo, variant, eval_games, seed)


def evaluate(algo: PPO, variant: str, games: int, seed: int) -> float:
    """Returns the module's mean final reward as player_0 against a random opponent."""
    module = algo.get_module(MODULE)
    rng = np.random.default_rng(seed)
    env = rllib_env(variant, channels_last=True)
    total = 0.0
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            (agent, view), *_ = obs.items()
            if agent == "player_0":
                batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in view.items()}}
                with torch.no_grad():
                    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
                action = int(logits.argmax())
            else:
                action = int(rng.choice(np.flatnonzero(view["action_mask"])))
            obs, rewards, terminated, truncated, _ = env.step({agent: action})
            done = terminated["__all__"] or truncated["__all__"]
        total += rewards["player_0"]
    return total / games


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="hops to train for")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    _, score = main(args.steps, args.variant, seed=args.seed)
    print(f"RLlib PPO after {args.steps} steps: mean reward {score:+.2f} as player_0 vs random")
    ray.shutdown()
