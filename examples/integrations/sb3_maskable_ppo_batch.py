"""sb3-contrib's MaskablePPO on the batch view: B games stepped in one compiled call.

    pip install -e ".[sb3]"
    python examples/integrations/sb3_maskable_ppo_batch.py                 # 100,000 hops, ~2.5 min
    python examples/integrations/sb3_maskable_ppo_batch.py --steps 200000  # ~4.5 min

``DraughtsVectorEnv`` is the single-agent view of a batch of games (the learner against a
batched random opponent). SB3 does not take a ``gymnasium.vector.VectorEnv``, so
``damas_env.integrations.sb3.SB3VecEnv`` presents it as an SB3 ``VecEnv``, masks included;
``VecMonitor`` adds the episode statistics SB3 logs and evaluates with. The script trains,
printing every 10 s the hops so far and the mean reward of the last 100 training games
against random, then scores the masked policy (deterministic) in ``--eval-games`` new
games against random; ``as_agent(model)`` plays it in the arena, ``--rate`` prints its Elo on
the pool after ``--rate-games`` games, and ``--save PATH`` keeps the model (``load_agent(PATH)``
plays it again). On a 2-core machine under
load (2.5-3.4) the default run took 156 s: the training games' mean reward rose from +0.07
to +0.91 and the final 64 games scored +0.94; ``--steps 200000`` took 273 s, the training
games at +0.80 to +0.98 from 100,000 hops on, and also scored +0.94.

Torch runs on one thread (``--threads``): the network is small, and on a busy 2-core
machine two torch threads wait on each other. The batch env's compiled step also takes one
thread (``--env-threads``; 0: all cores, fastest on free cores). On the busy machine 20,480
hops took 144 s with two torch threads and both cores for the env, 43 s with one torch
thread, 27 s with one thread for each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.vec_env import VecMonitor

from damas_agents.players.base import PolicyAgent
from damas_agents.rating import available_pools, rate
from damas_env.integrations.sb3 import ProgressPrinter, SB3VecEnv
from damas_env.vector_gym import DraughtsVectorEnv


def make_env(num_envs: int, variant: str, seed: int, num_threads: int | None) -> VecMonitor:
    """Returns B games of the learner (either side, drawn per game) against random."""
    games = DraughtsVectorEnv(
        num_envs, variant=variant, play_as="random", seed=seed, num_threads=num_threads
    )
    return VecMonitor(SB3VecEnv(games))


def main(
    total_steps: int = 100_000,
    variant: str = "english",
    num_envs: int = 64,
    eval_games: int = 64,
    seed: int = 0,
    num_threads: int | None = 1,
    every: float = 10.0,
) -> tuple[MaskablePPO, float]:
    """Trains MaskablePPO for `total_steps` hops over `num_envs` games; returns its score.

    Args:
        total_steps: learner hops to train for, summed over the games.
        variant: the ruleset (an 8x8 one keeps the network small).
        num_envs: games stepped together.
        eval_games: games of the evaluation against the random opponent.
        seed: seeds the games, the opponent and the network.
        num_threads: threads of the batch env's compiled step (None: all cores).
        every: seconds between progress lines.

    Returns:
        The trained model and its mean reward against random (+1 win, -1 loss, 0 draw).
    """
    env = make_env(num_envs, variant, seed, num_threads)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, seed=seed, verbose=0)
    model.set_logger(Logger(folder=None, output_formats=[]))  # no empty log folder in /tmp
    model.learn(total_timesteps=total_steps, callback=ProgressPrinter(every))

    eval_env = make_env(min(num_envs, eval_games), variant, seed + 1000, num_threads)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=eval_games, warn=False)
    return model, float(mean_reward)


def as_agent(model: MaskablePPO, name: str = "sb3-maskable-ppo-batch") -> PolicyAgent:
    """Returns the model as an arena agent (``damas_agents.arena``, ``damas_agents.rating``):
    its deterministic masked action.

    The arena's observation is draughts_v0's planes from the mover's side, channels first:
    the array the batch view (one game's row) gives the learner, so it goes in as it is.
    """

    def policy(planes: np.ndarray, mask: np.ndarray) -> int:
        action, _ = model.predict(planes, action_masks=mask.astype(bool), deterministic=True)
        return int(action)

    return PolicyAgent(policy, name)


def load_agent(path: str, name: str = "sb3-maskable-ppo-batch") -> PolicyAgent:
    """Returns a model saved with ``--save`` as an arena agent (see :func:`as_agent`)."""
    return as_agent(MaskablePPO.load(path, device="cpu"), name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="learner hops to train for")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--envs", type=int, default=64, help="games stepped together")
    parser.add_argument("--eval-games", type=int, default=64, help="games vs random at the end")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between lines")
    parser.add_argument("--env-threads", type=int, default=1, help="batch env threads (0: all)")
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
        args.steps,
        args.variant,
        args.envs,
        eval_games=args.eval_games,
        seed=args.seed,
        num_threads=args.env_threads or None,
        every=args.every,
    )
    print(
        f"MaskablePPO (batch) after {args.steps:,} steps ({time.perf_counter() - start:.0f} s): "
        f"mean reward {score:+.2f} vs random over {args.eval_games} games"
    )
    if args.save:
        model.save(args.save)
        print(f"saved the model to {args.save}")
    if args.rate:
        print(rate(as_agent(model), args.variant, games=args.rate_games, progress=True).summary())
