"""sb3-contrib's MaskablePPO on the single-agent Gymnasium view, against a random opponent.

    pip install -e ".[sb3]"
    python examples/integrations/sb3_maskable_ppo.py --steps 50000

``gymnasium.make("damas/Draughts-v0")`` is the learner's side of an English game (each
episode the learner is drawn to move first or second); ``DraughtsGymEnv.action_masks()``
is the method MaskablePPO looks for, through the vector env and Gymnasium's wrappers, so
no glue code is needed. The script trains, then scores the masked policy against random.
"""

from __future__ import annotations

import argparse

from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env

import damas_env  # noqa: F401 - registers damas/Draughts-v0

ENV_ID = "damas/Draughts-v0"


def main(
    total_steps: int = 50_000,
    variant: str = "english",
    n_envs: int = 4,
    eval_games: int = 20,
    seed: int = 0,
) -> tuple[MaskablePPO, float]:
    """Trains MaskablePPO for `total_steps` hops; returns the model and its score vs random.

    Args:
        total_steps: environment steps (learner hops) to train for.
        variant: the ruleset (an 8x8 one keeps the network small).
        n_envs: games played side by side (a DummyVecEnv).
        eval_games: games of the evaluation against the random opponent.
        seed: seeds the envs, the opponent and the network.

    Returns:
        The trained model and its mean reward against random (+1 win, -1 loss, 0 draw).
    """
    env_kwargs = {"variant": variant, "opponent": "random", "play_as": "random"}
    env = make_vec_env(ENV_ID, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, seed=seed, verbose=0)
    model.learn(total_timesteps=total_steps)

    eval_env = make_vec_env(ENV_ID, n_envs=1, seed=seed + 1000, env_kwargs=env_kwargs)
    mean_reward, _ = evaluate_policy(model, eval_env, n_eval_episodes=eval_games, warn=False)
    return model, float(mean_reward)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50_000, help="learner hops to train for")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    _, score = main(total_steps=args.steps, variant=args.variant, seed=args.seed)
    print(f"MaskablePPO after {args.steps} steps: mean reward {score:+.2f} vs random")
