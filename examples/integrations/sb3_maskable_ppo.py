"""sb3-contrib's MaskablePPO on the single-agent Gymnasium view, against a random opponent.

    pip install -e ".[sb3]"
    python examples/integrations/sb3_maskable_ppo.py                  # 40,000 hops, ~2 minutes
    python examples/integrations/sb3_maskable_ppo.py --steps 100000   # ~5.5 minutes

``gymnasium.make("damas/Draughts-v0")`` is the learner's side of an English game (each
episode the learner is drawn to move first or second); ``DraughtsGymEnv.action_masks()``
is the method MaskablePPO looks for, through the vector env and Gymnasium's wrappers, so
no glue code is needed. The script trains, printing every 10 s the hops so far and the mean
reward of the last 100 training games against random, then scores the masked policy
(deterministic) in ``--eval-games`` new games against random. ``as_agent(model)`` plays it in
the arena or rates it on the pool (``damas_agents.rating.rate``): ``--rate`` prints its Elo
after ``--rate-games`` games, ``--save PATH`` keeps the model (``load_agent(PATH)`` plays it
again, ``damas rate python:FILE.py:ATTR`` rates it later). On a 2-core machine (load
0.5-2.5) the default run took 136 s: the training games' mean reward rose from +0.07 to
+0.68 and the final 50 games scored +0.88; ``--steps 100000`` took 325 s (load 1.8-3),
the training games reached +0.86 and the final 50 games scored +0.98.

Torch runs on one thread (``--threads``): the network is small, and on a busy 2-core
machine two torch threads wait on each other (2,048 hops took 174 s with two, 8.5 s with
one; the old 50,000-hop default took 19 minutes).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import Logger

import damas_env  # noqa: F401 - registers damas/Draughts-v0
from damas_agents.players.base import PolicyAgent
from damas_agents.rating import available_pools, rate
from damas_env.integrations.sb3 import ProgressPrinter

ENV_ID = "damas/Draughts-v0"


def main(
    total_steps: int = 40_000,
    variant: str = "english",
    n_envs: int = 4,
    eval_games: int = 50,
    seed: int = 0,
    every: float = 10.0,
) -> tuple[MaskablePPO, float]:
    """Trains MaskablePPO for `total_steps` hops; returns the model and its score vs random.

    Args:
        total_steps: environment steps (learner hops) to train for.
        variant: the ruleset (an 8x8 one keeps the network small).
        n_envs: games played side by side (a DummyVecEnv).
        eval_games: games of the evaluation against the random opponent.
        seed: seeds the envs, the opponent and the network.
        every: seconds between progress lines.

    Returns:
        The trained model and its mean reward against random (+1 win, -1 loss, 0 draw).
    """
    env_kwargs = {"variant": variant, "opponent": "random", "play_as": "random"}
    env = make_vec_env(ENV_ID, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, seed=seed, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # no empty log folder in /tmp
    model.learn(total_timesteps=total_steps, callback=ProgressPrinter(every))

    eval_env = make_vec_env(ENV_ID, n_envs=1, seed=seed + 1000, env_kwargs=env_kwargs)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=eval_games, warn=False)
    return model, float(mean_reward)


def as_agent(model: MaskablePPO, name: str = "sb3-maskable-ppo") -> PolicyAgent:
    """Returns the model as an arena agent (``damas_agents.arena``, ``damas_agents.rating``):
    its deterministic masked action.

    The arena's observation is draughts_v0's planes from the mover's side, channels first:
    the array the single-agent view gives the learner, so it goes in as it is.
    """

    def policy(planes: np.ndarray, mask: np.ndarray) -> int:
        action, _ = model.predict(planes, action_masks=mask.astype(bool), deterministic=True)
        return int(action)

    return PolicyAgent(policy, name)


def load_agent(path: str, name: str = "sb3-maskable-ppo") -> PolicyAgent:
    """Returns a model saved with ``--save`` as an arena agent (see :func:`as_agent`)."""
    return as_agent(MaskablePPO.load(path, device="cpu"), name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40_000, help="learner hops to train for")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--eval-games", type=int, default=50, help="games vs random at the end")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between lines")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="PATH", help="save the trained model (a .zip)")
    parser.add_argument("--rate", action="store_true", help="rate it on the variant's pool")
    parser.add_argument("--rate-games", type=int, default=40, help="games of --rate (40)")
    args = parser.parse_args()
    if args.rate and args.variant not in available_pools():
        parser.error(f"--rate: no rating pool for {args.variant} ({', '.join(available_pools())})")
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model, score = main(
        args.steps, args.variant, eval_games=args.eval_games, seed=args.seed, every=args.every
    )
    print(
        f"MaskablePPO after {args.steps:,} steps ({time.perf_counter() - start:.0f} s): "
        f"mean reward {score:+.2f} vs random over {args.eval_games} games"
    )
    if args.save:
        model.save(args.save)
        print(f"saved the model to {args.save}")
    if args.rate:
        print(rate(as_agent(model), args.variant, games=args.rate_games, progress=True).summary())
