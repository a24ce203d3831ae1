"""TorchRL: PPO with a masked policy on draughts_v0 in TorchRL's ``PettingZooWrapper``.

    pip install -e ".[torchrl]"
    python examples/integrations/torchrl_ppo.py --steps 20000

TorchRL's PettingZoo wrapper gives each agent its own group (``player_0``, ``player_1``),
moves our ``action_mask`` to ``(group, "action_mask")`` and marks the agent to move with
``(group, "mask")``. The learner (``player_0``) samples from a ``MaskedCategorical`` over
its network's logits and the opponent (``player_1``) uniformly among its legal hops; the
wrapper plays the action of the agent to move. PPO learns from the learner's turns only
(``mask`` selects them; a multi-hop capture is several of them in a row).
The env goes into the wrapper as it is: its infos are ints, which the wrapper turns into
tensors (``Reason(int(code)).label`` names a reason code). ``as_agent(policy)`` plays the
learner's most likely legal hop in the arena or rates it on the pool: ``--rate`` prints its
Elo after ``--rate-games`` games, ``--save PATH`` keeps the learner's weights
(``load_agent(PATH)`` plays them again).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import ExplorationType, set_exploration_type
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from damas_agents.players.base import PolicyAgent
from damas_agents.rating import available_pools, rate
from damas_env import draughts_v0

LEARNER, OPPONENT = "player_0", "player_1"
OBS_KEY = (LEARNER, "observation", "observation")


def make_env(variant: str = "english") -> PettingZooWrapper:
    """Returns the draughts AEC env in TorchRL's PettingZoo wrapper, one group per agent."""
    return PettingZooWrapper(draughts_v0.env(variant), use_mask=True)  # one agent acts per step


def uniform_logits(action_mask: torch.Tensor) -> torch.Tensor:
    """Returns zero logits: with the mask, a uniform choice among the legal hops."""
    return torch.zeros(action_mask.shape)


def mlp(n_inputs: int, n_out: int) -> nn.Module:
    """Returns the network of the actor (logits) and of the critic (a value): one hidden layer."""
    return nn.Sequential(nn.Flatten(-3), nn.Linear(n_inputs, 256), nn.Tanh(), nn.Linear(256, n_out))


def make_learner(env: PettingZooWrapper) -> ProbabilisticActor:
    """Returns the learner's actor: a masked categorical over its network's logits."""
    n_inputs = env.observation_spec[OBS_KEY].shape[-3:].numel()
    n_actions = env.full_action_spec[LEARNER, "action"].space.n
    return ProbabilisticActor(
        TensorDictModule(
            mlp(n_inputs, n_actions), in_keys=[OBS_KEY], out_keys=[(LEARNER, "logits")]
        ),
        in_keys={"logits": (LEARNER, "logits"), "mask": (LEARNER, "action_mask")},
        out_keys=[(LEARNER, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )


def main(
    total_steps: int = 20_000,
    variant: str = "english",
    frames_per_batch: int = 1000,
    eval_games: int = 10,
    seed: int = 0,
) -> tuple[TensorDictSequential, float]:
    """Trains the learner with PPO for `total_steps` hops (both players'); returns its score.

    Args:
        total_steps: environment steps (hops of either player) to collect for training.
        variant: the ruleset (an 8x8 one keeps the network small).
        frames_per_batch: steps per collected batch (one PPO update each).
        eval_games: games of the final evaluation against the random opponent.
        seed: seeds torch and the env.

    Returns:
        The two-player policy (learner, then opponent) and the learner's mean final reward
        in the evaluation games (+1 win, -1 loss, 0 draw).
    """
    torch.manual_seed(seed)
    env = make_env(variant)
    env.set_seed(seed)
    n_inputs = env.observation_spec[OBS_KEY].shape[-3:].numel()
    learner = make_learner(env)
    opponent = ProbabilisticActor(
        TensorDictModule(
            uniform_logits, in_keys=[(OPPONENT, "action_mask")], out_keys=[(OPPONENT, "logits")]
        ),
        in_keys={"logits": (OPPONENT, "logits"), "mask": (OPPONENT, "action_mask")},
        out_keys=[(OPPONENT, "action")],
        distribution_class=MaskedCategorical,
    )
    policy = TensorDictSequential(learner, opponent)
    critic = ValueOperator(mlp(n_inputs, 1), in_keys=[OBS_KEY], out_keys=[(LEARNER, "state_value")])

    keys = {
        "reward": (LEARNER, "reward"),
        "done": (LEARNER, "done"),
        "terminated": (LEARNER, "terminated"),
        "value": (LEARNER, "state_value"),
        "advantage": (LEARNER, "advantage"),
        "value_target": (LEARNER, "value_target"),
    }
    # lmbda=1: the advantage is the return minus V at the learner's own turns only.
    advantage = GAE(gamma=0.99, lmbda=1.0, value_network=critic)
    advantage.set_keys(**keys)
    loss_module = ClipPPOLoss(learner, critic, entropy_coeff=0.01, normalize_advantage=True)
    loss_module.set_keys(
        **keys, action=(LEARNER, "action"), sample_log_prob=(LEARNER, "action_log_prob")
    )
    optimiser = torch.optim.Adam(loss_module.parameters(), lr=3e-4)

    collector = Collector(
        env,
        policy,
        frames_per_batch=frames_per_batch,
        total_frames=total_steps,
        auto_register_policy_transforms=False,  # no recurrent state: nothing to add
    )
    start, frames = time.perf_counter(), 0
    for batch in collector:
        frames += batch.numel()
        ended = batch["next", LEARNER, "reward"][batch["next", LEARNER, "done"]]
        mean = f"{float(ended.mean()):+.2f}" if ended.numel() else "n/a"
        elapsed = time.perf_counter() - start
        games = ended.numel()
        print(f"{frames:>7,} hops  {elapsed:4.0f} s  mean final reward {mean} ({games} games)")
        with torch.no_grad():
            advantage(batch)
        turns = batch[batch[LEARNER, "mask"].squeeze(-1)]  # the learner's own hops
        for _ in range(4):
            for minibatch in turns.split(256):
                losses = loss_module(minibatch)
                loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
    collector.shutdown()

    rewards = []
    with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
        for _ in range(eval_games):
            game = env.rollout(100_000, policy, break_when_any_done=True)
            rewards.append(float(game["next", LEARNER, "reward"].sum()))
    return policy, sum(rewards) / len(rewards)


def as_agent(policy: TensorDictSequential, name: str = "torchrl-ppo") -> PolicyAgent:
    """Returns the learner's actor (``policy[0]``) as an arena agent: its deterministic masked
    action, as in the evaluation above.

    The wrapper hands the learner draughts_v0's planes as they are (the mover's side,
    channels first) under its group, one agent per group: the TensorDict below is one step.
    """
    return actor_agent(policy[0], name)


def load_agent(path: str, variant: str = "english", name: str = "torchrl-ppo") -> PolicyAgent:
    """Returns a learner saved with ``--save`` as an arena agent (see :func:`as_agent`)."""
    actor = make_learner(make_env(variant))
    actor.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    return actor_agent(actor, name)


def actor_agent(actor: ProbabilisticActor, name: str) -> PolicyAgent:
    """Returns the learner's actor as an arena agent: its deterministic masked action."""

    def act(planes: np.ndarray, mask: np.ndarray) -> int:
        step = TensorDict(
            {
                LEARNER: {
                    "observation": {"observation": torch.from_numpy(planes)[None]},
                    "action_mask": torch.from_numpy(mask)[None].bool(),
                }
            },
            batch_size=[],
        )
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(actor(step)[LEARNER, "action"].reshape(()))

    return PolicyAgent(act, name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="hops to collect for training")
    parser.add_argument("--variant", default="english")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="PATH", help="save the learner's weights (torch)")
    parser.add_argument("--rate", action="store_true", help="rate it on the variant's pool")
    parser.add_argument("--rate-games", type=int, default=40, help="games of --rate (40)")
    args = parser.parse_args()
    if args.rate and args.variant not in available_pools():
        parser.error(f"--rate: no rating pool for {args.variant} ({', '.join(available_pools())})")
    policy, score = main(args.steps, args.variant, seed=args.seed)
    print(f"TorchRL PPO ({LEARNER}) after {args.steps} steps: mean reward {score:+.2f} vs random")
    if args.save:
        torch.save(policy[0].state_dict(), args.save)
        print(f"saved the learner to {args.save}")
    if args.rate:
        print(rate(as_agent(policy), args.variant, games=args.rate_games, progress=True).summary())
