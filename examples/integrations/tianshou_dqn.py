"""Tianshou 2.x: a masked DQN agent against a random masked opponent, on the PettingZoo env.

    pip install -e ".[tianshou]"
    python examples/integrations/tianshou_dqn.py               # 10,000 hops, a few minutes
    python examples/integrations/tianshou_dqn.py --steps 50000 # longer

Tianshou's ``PettingZooEnv`` takes draughts_v0 as it is: its infos have the same int keys
at every step (Tianshou's buffer refuses a key that appears only at the end). It turns
our ``{"observation", "action_mask"}`` dict into Tianshou's ``{"agent_id", "obs", "mask"}``;
the DQN policy puts the mask on its Q-values and its epsilon-greedy exploration, and
``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` plays uniformly among the opponent's legal
hops. A multi-hop capture is several steps of the same ``agent_id``, which the multi-agent
policy routes like any other step.

Tianshou stores the final rewards on the last transition only (the one of the agent that
ended the game), as in its tic-tac-toe example: a learner that loses on the opponent's
move never sees the -1. It is a demonstration of the plumbing, not a strong trainer.
``as_agent(algorithm)`` plays the greedy DQN in the arena or rates it on the pool: ``--rate``
prints its Elo after ``--rate-games`` games, ``--save PATH`` keeps the DQN's weights
(``load_agent(PATH)`` plays them again).
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from damas_agents.players.base import PolicyAgent
from damas_agents.rating import available_pools, rate
from damas_env import draughts_v0

AGENTS = ("player_0", "player_1")

# Tianshou's statistics log a line per collect that the multi-agent returns (one column per
# agent) are 2-D, which they are by design here; the example reads its own column.
logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)


def make_env(variant: str = "english") -> PettingZooEnv:
    """Returns the draughts AEC env as Tianshou's multi-agent env (infos with fixed keys)."""
    return PettingZooEnv(draughts_v0.env(variant))


def make_policy(env: PettingZooEnv) -> DiscreteQLearningPolicy:
    """Returns the DQN's policy: an MLP of Q-values over the planes, masked, epsilon-greedy."""
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[256, 256])
    return DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0
    )


def main(
    total_steps: int = 20_000,
    variant: str = "english",
    learner: str = "player_0",
    n_envs: int = 4,
    test_games: int = 10,
    seed: int = 0,
) -> tuple[MultiAgentOffPolicyAlgorithm, float]:
    """Trains a masked DQN for `total_steps` hops (both players'); returns it and its score.

    Args:
        total_steps: environment steps (hops of either player) to collect for training.
        variant: the ruleset (an 8x8 one keeps the network small).
        learner: the agent the DQN plays, "player_0" (moves first) or "player_1".
        n_envs: games played side by side (a DummyVectorEnv).
        test_games: games of the final evaluation against the random opponent.
        seed: seeds numpy, torch and the envs.

    Returns:
        The multi-agent algorithm (``get_algorithm(learner)`` is the DQN) and the learner's
        mean final reward in the test games (+1 win, -1 loss, 0 draw).
    """
    np.random.seed(seed)
    torch.manual_seed(seed)
    env = make_env(variant)
    dqn = DQN(
        policy=make_policy(env),
        optim=AdamOptimizerFactory(lr=1e-4),
        gamma=0.99,
        n_step_return_horizon=3,
        target_update_freq=320,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    players = [dqn, opponent] if learner == AGENTS[0] else [opponent, dqn]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)

    train_envs = DummyVectorEnv([lambda: make_env(variant) for _ in range(n_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(variant)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1000)
    buffer = VectorReplayBuffer(max(total_steps, 1000), n_envs)
    train_collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * n_envs)  # a first batch to sample from

    index = AGENTS.index(learner)
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=1,
            epoch_num_steps=total_steps,
            collection_step_num_env_steps=10 * n_envs,
            test_step_num_episodes=1,
            batch_size=64,
            update_step_num_gradient_steps_per_sample=0.1,
            multi_agent_return_reduction=lambda returns: returns[:, index],
            verbose=False,
            show_progress=True,  # tqdm's bar on stderr: steps done, elapsed, rate
        )
    )
    test_collector.reset()
    stats = test_collector.collect(n_episode=test_games)
    return algorithm, float(np.mean(stats.returns[:, index]))


def as_agent(algorithm: MultiAgentOffPolicyAlgorithm, name: str = "tianshou-dqn") -> PolicyAgent:
    """Returns the trained DQN as an arena agent: its greedy masked action (no exploration).

    Tianshou's ``PettingZooEnv`` hands the DQN draughts_v0's planes as they are (the mover's
    side, channels first) and the mask as booleans: the batch below is one such step.
    """
    return policy_agent(learner_policy(algorithm), name)


def learner_policy(algorithm: MultiAgentOffPolicyAlgorithm) -> DiscreteQLearningPolicy:
    """Returns the trained DQN's policy (what ``--save`` saves)."""
    dqn = next(a for a in map(algorithm.get_algorithm, AGENTS) if isinstance(a, DQN))
    policy: DiscreteQLearningPolicy = dqn.policy
    return policy


def load_agent(path: str, variant: str = "english", name: str = "tianshou-dqn") -> PolicyAgent:
    """Returns a DQN saved with ``--save`` as an arena agent (see :func:`as_agent`)."""
    policy = make_policy(make_env(variant))
    policy.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return policy_agent(policy, name)


def policy_agent(policy: DiscreteQLearningPolicy, name: str) -> PolicyAgent:
    """Returns a DQN policy as an arena agent: its greedy masked action."""

    def act(planes: np.ndarray, mask: np.ndarray) -> int:
        step = Batch(obs=Batch(obs=planes[None], mask=mask[None].astype(bool)), info=Batch())
        with torch.no_grad():
            return int(policy(step).act[0])

    return PolicyAgent(act, name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10_000, help="hops to collect for training")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--learner", default="player_0", choices=AGENTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (one keeps a small net fast)"
    )
    parser.add_argument("--save", metavar="PATH", help="save the DQN's weights (torch)")
    parser.add_argument("--rate", action="store_true", help="rate it on the variant's pool")
    parser.add_argument("--rate-games", type=int, default=40, help="games of --rate (40)")
    args = parser.parse_args()
    if args.rate and args.variant not in available_pools():
        parser.error(f"--rate: no rating pool for {args.variant} ({', '.join(available_pools())})")
    torch.set_num_threads(args.threads)
    algorithm, score = main(args.steps, args.variant, args.learner, seed=args.seed)
    print(f"Tianshou DQN ({args.learner}) after {args.steps} steps: mean reward {score:+.2f}")
    if args.save:
        torch.save(learner_policy(algorithm).state_dict(), args.save)
        print(f"saved the DQN to {args.save}")
    if args.rate:
        agent = as_agent(algorithm)
        print(rate(agent, args.variant, games=args.rate_games, progress=True).summary())
