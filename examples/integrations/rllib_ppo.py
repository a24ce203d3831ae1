"""RLlib (new API stack): PPO self-play with a masked PPO RLModule on draughts_v0.

    pip install -e ".[rllib]"
    python examples/integrations/rllib_ppo.py                 # 20,000 hops, about 2 minutes
    python examples/integrations/rllib_ppo.py --steps 60000   # longer, about 5 minutes

``damas_env.integrations.rllib.rllib_env`` is draughts_v0 in RLlib's ``PettingZooEnv``,
with the observation dict renamed to the ``{"observations", "action_mask"}`` that
``damas_env.integrations.rllib.MaskedPPOTorchRLModule`` (PPO's default torch module over the
planes, the logits of illegal hops set to the float minimum) reads, so only legal hops are
sampled. Both agents map to one shared module (every agent sees the board from its own
side, so one policy plays both), and each env runner steps 8 games at once, so the module's
forward passes are batched. ``channels_last=True`` gives RLlib's CNN encoder the (N, N, 8)
images it expects.

Each iteration (``--batch`` hops of either player) prints a line: hops so far, seconds,
the mean game length, and the module's score in a few games against a random opponent
(``--progress-games``, the module taking either side in turn; +1 a win, -1 a loss). At the
end it plays ``--eval-games`` games against random and prints the mean reward. On a 2-core
machine the default run took 113 s and went from +0.15 before training to +0.78 at the end
(40 games; an iteration's line plays 20, so its figure is noisy, about +-0.3).
``as_agent(algo)`` plays the module's most likely legal hop in the arena or rates it on the
pool: it turns the arena's channels-first planes into the (N, N, 8) images the module learned.
``--rate`` prints its Elo after ``--rate-games`` games; ``--save PATH`` keeps the algorithm
(an RLlib checkpoint folder; ``load_agent(PATH)`` plays it again).
Longer runs do not beat random by much more on this setup: ``--steps 60000`` took 300 s
and ended at +0.72, the per-iteration figure between +0.55 and +0.90 after 20,000 hops.
For a strong player, see ``damas train`` (AlphaZero-style search).

Torch runs on one thread (``--threads``): the networks are small, and on a busy machine two
threads wait on each other (on a 2-core machine under load, an iteration took 4-5 times as
long with two).
"""

from __future__ import annotations

import argparse
import logging
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPO, PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.tune.registry import register_env

from damas_agents.players.base import PolicyAgent
from damas_agents.rating import available_pools, rate
from damas_env.integrations.rllib import MaskedPPOTorchRLModule, rllib_env

ENV_NAME = "damas_draughts"
MODULE = "shared"


class _RLlibInternalDeprecation(logging.Filter):
    """Drops one deprecation notice that RLlib itself causes.

    Every ``RLModule.__init__`` builds a deprecated ``RLModuleConfig`` for old custom models
    (ray 2.60, rl_module.py), whatever the caller passes, so RLlib logs "RLModule(config=
    [RLModuleConfig object]) has been deprecated" even for a module built the current way
    (``RLModuleSpec(module_class=..., model_config=...)``); see ray-project/ray#51630.
    Only that message is dropped; any other deprecation notice still shows.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return "RLModule(config=[RLModuleConfig object])" not in record.getMessage()


logging.getLogger("ray._common.deprecation").addFilter(_RLlibInternalDeprecation())


def shared_module(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Maps both agents to the one module (self-play)."""
    return MODULE


def build(variant: str, batch_size: int, envs_per_runner: int, seed: int) -> PPO:
    """Returns the PPO algorithm: one shared masked module, sampling in this process."""
    register_env(ENV_NAME, lambda config: rllib_env(**config))
    config = (
        PPOConfig()
        .environment(ENV_NAME, env_config={"variant": variant, "channels_last": True})
        .multi_agent(policies={MODULE}, policy_mapping_fn=shared_module)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    MODULE: RLModuleSpec(
                        module_class=MaskedPPOTorchRLModule,
                        model_config={
                            "conv_filters": [[32, [3, 3], 1], [32, [3, 3], 1]],
                            "head_fcnet_hiddens": [256],
                            "vf_share_layers": True,
                        },
                    )
                }
            )
        )
        .env_runners(num_env_runners=0, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=batch_size,
            minibatch_size=min(256, batch_size),
            num_epochs=4,
            lr=3e-4,
        )
        .debugging(seed=seed, log_sys_usage=False)
    )
    return config.build_algo()


def main(
    total_steps: int = 20_000,
    variant: str = "english",
    batch_size: int = 2000,
    eval_games: int = 40,
    progress_games: int = 20,
    envs_per_runner: int = 8,
    seed: int = 0,
) -> tuple[PPO, float]:
    """Trains PPO by self-play for about `total_steps` hops; returns it and its score.

    Args:
        total_steps: environment steps (hops of either player) to train for.
        variant: the ruleset (an 8x8 one keeps the network small).
        batch_size: steps per training iteration.
        eval_games: games of the final evaluation against random (the module takes
            player_0 and player_1 in turn).
        progress_games: games against random after each iteration (0: none).
        envs_per_runner: games the env runner steps together.
        seed: seeds RLlib and the evaluations' random opponent.

    Returns:
        The algorithm and the module's mean final reward against random (+1 win, -1 loss).
    """
    ray.init(num_cpus=1, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    algo = build(variant, batch_size, envs_per_runner, seed)
    start = time.perf_counter()
    if progress_games:
        score = evaluate(algo, variant, progress_games, seed + 999)
        print(f"before training: vs random {score:+.2f} ({progress_games} games)", flush=True)
    steps = 0
    while steps < total_steps:
        result = algo.train()
        runners = result["env_runners"]
        steps = int(runners["num_env_steps_sampled_lifetime"])
        length = runners.get("episode_len_mean", math.nan)  # nan: no game finished yet
        line = (
            f"iteration {algo.iteration:3d}  {steps:7,d} hops  "
            f"{time.perf_counter() - start:6.0f} s  game length "
            + (f"{length:5.1f}" if math.isfinite(length) else "    -")
        )
        if progress_games:
            score = evaluate(algo, variant, progress_games, seed + 999 + algo.iteration)
            line += f"  vs random {score:+.2f} ({progress_games} games)"
        print(line, flush=True)
    return algo, evaluate(algo, variant, eval_games, seed)


def evaluate(algo: PPO, variant: str, games: int, seed: int) -> float:
    """Returns the module's mean final reward against a random opponent.

    The module plays player_0 in the even games and player_1 in the odd ones, and picks
    its most likely hop (illegal hops have the float minimum as their logit).
    """
    module = algo.get_module(MODULE)
    rng = np.random.default_rng(seed)
    env = rllib_env(variant, channels_last=True)
    total = 0.0
    for game in range(games):
        learner = f"player_{game % 2}"
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            (agent, view), *_ = obs.items()
            if agent == learner:
                action = greedy_action(module, view)
            else:
                action = int(rng.choice(np.flatnonzero(view["action_mask"])))
            obs, rewards, terminated, truncated, _ = env.step({agent: action})
            done = terminated["__all__"] or truncated["__all__"]
        total += rewards[learner]
    return total / games if games else 0.0


def greedy_action(module: MaskedPPOTorchRLModule, view: dict[str, np.ndarray]) -> int:
    """Returns the module's most likely hop for one agent's RLlib observation
    (``{"observations": (N, N, 8) planes, "action_mask": int8}``)."""
    batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in view.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return int(logits.argmax())


def as_agent(algo: PPO, name: str = "rllib-ppo") -> PolicyAgent:
    """Returns the shared module as an arena agent: its most likely legal hop.

    The arena observes as draughts_v0 does by default, channels first (8, N, N); the module
    was trained on ``channels_last=True`` images (N, N, 8), so the planes are transposed here.
    """
    module = algo.get_module(MODULE)

    def act(planes: np.ndarray, mask: np.ndarray) -> int:
        image = np.ascontiguousarray(planes.transpose(1, 2, 0))
        return greedy_action(module, {"observations": image, "action_mask": mask})

    return PolicyAgent(act, name)


def load_agent(path: str, name: str = "rllib-ppo") -> PolicyAgent:
    """Returns an algorithm saved with ``--save`` (a checkpoint folder) as an arena agent."""
    ray.init(num_cpus=1, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    register_env(ENV_NAME, lambda config: rllib_env(**config))
    return as_agent(PPO.from_checkpoint(str(Path(path).resolve())), name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="hops to train for")
    parser.add_argument("--batch", type=int, default=2000, help="hops per iteration")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--eval-games", type=int, default=40, help="final games vs random")
    parser.add_argument(
        "--progress-games", type=int, default=20, help="games vs random after each iteration"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="PATH", help="save the algorithm (a folder)")
    parser.add_argument("--rate", action="store_true", help="rate it on the variant's pool")
    parser.add_argument("--rate-games", type=int, default=40, help="games of --rate (40)")
    args = parser.parse_args()
    if args.rate and args.variant not in available_pools():
        parser.error(f"--rate: no rating pool for {args.variant} ({', '.join(available_pools())})")
    torch.set_num_threads(args.threads)
    algo, score = main(
        args.steps,
        args.variant,
        args.batch,
        eval_games=args.eval_games,
        progress_games=args.progress_games,
        seed=args.seed,
    )
    print(
        f"RLlib PPO after {args.steps:,} steps: mean reward {score:+.2f} "
        f"vs random over {args.eval_games} games (either side)"
    )
    if args.save:
        algo.save_to_path(str(Path(args.save).resolve()))
        print(f"saved the algorithm to {args.save}")
    if args.rate:
        print(rate(as_agent(algo), args.variant, games=args.rate_games, progress=True).summary())
    ray.shutdown()
