"""The learned player: a policy-value network as the tree search's evaluator, and as an agent.

    evaluator = NetworkEvaluator(network)            # priors and values for batches of leaves
    search = BatchedPUCT(evaluator, 64)               # damas_agents.players.tree
    agent = NetworkAgent(network, rules, simulations=64)   # an arena agent

A checkpoint becomes such an agent through :func:`damas_agents.players.load.load_agent`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from damas_agents.players.base import Observation
from damas_agents.players.tree import BatchedPUCT, select_action
from damas_env import Position
from damas_env.encoding import planes_for
from damas_env.rules import Ruleset
from damas_env.turn import HOP_ILLEGAL, Turn

if TYPE_CHECKING:
    from damas_agents.models.network import DraughtsNet

__all__ = ["NetworkAgent", "NetworkEvaluator"]


class NetworkEvaluator:
    """The :class:`damas_agents.players.tree.Evaluator` of a network: softmax of its masked logits,
    and its value, for a batch of leaves in one forward pass (eval mode, no gradients).

    The network may be training meanwhile: each call switches it to eval mode and back.

    Args:
        network: the network to evaluate.
        threads: torch threads during a call (restored after it); None keeps the process's
            setting. One suits batches of a few positions (an agent playing one game), where
            more threads only add overhead, and oversubscribed cores slow them a lot.
    """

    def __init__(self, network: DraughtsNet, threads: int | None = None) -> None:
        self.network = network
        self.threads = threads
        self.calls = 0
        self.positions = 0

    @torch.inference_mode()
    def evaluate(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Returns (priors (k, A), values (k,)) for the player to move at each leaf."""
        net = self.network
        training = net.training
        device = net.policy.weight.device
        threads = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(self.threads)
        net.eval()
        try:
            obs = torch.from_numpy(np.ascontiguousarray(observations)).to(device)
            logits, values = net(obs, torch.from_numpy(np.ascontiguousarray(masks)))
            priors = torch.softmax(logits.float(), dim=1)
        finally:
            net.train(training)
            torch.set_num_threads(threads)
        self.calls += 1
        self.positions += len(observations)
        return priors.cpu().numpy(), values.float().cpu().numpy()


class NetworkAgent:
    """An arena agent that plays a policy-value network, alone or with PUCT search.

    With ``simulations=0`` it plays the most likely legal hop of the network's policy; with
    more it runs that many PUCT simulations per hop
    (:class:`damas_agents.players.tree.BatchedPUCT`, no root noise) and plays the most visited hop.

    The planes and actions are the ruleset's (:func:`damas_env.encoding.planes_for`,
    :func:`~damas_env.encoding.action_layout`). The policy alone reads the env's observation
    when it has one, which knows the game so far; otherwise, and for the search, the agent
    starts a turn state from the position, its king runs included (the Frisian king move
    limit), so the hop played is legal in the game.

    Args:
        network: the network (any device).
        rules: the ruleset it was trained on; a game under other rules is refused.
        simulations: PUCT simulations per hop (0: the raw policy).
        c_puct: PUCT's exploration constant.
        seed: seed of the search (ties are broken by the first hop).
        name: the agent's name in arena tables.
    """

    def __init__(
        self,
        network: DraughtsNet,
        rules: Ruleset,
        simulations: int = 0,
        c_puct: float = 1.5,
        seed: int | None = None,
        name: str = "network",
    ) -> None:
        self.network, self.rules, self.name = network, rules, name
        self.simulations = simulations
        self.evaluator = NetworkEvaluator(network, threads=1)  # a few positions per call
        self.search = (
            BatchedPUCT(self.evaluator, simulations, c_puct=c_puct, seed=seed)
            if simulations > 0
            else None
        )
        self.turn = Turn(rules)
        self._mask = np.zeros(self.turn.layout.num_actions, dtype=np.int8)
        n = rules.board_size
        self._obs = np.zeros((1, planes_for(rules), n, n), dtype=np.float32)

    def reseed(self, seed: int | None) -> None:
        """Restarts the search's random stream from `seed` (without a search: none to restart)."""
        if self.search is not None:
            self.search.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing to forget: every hop is decided from the position."""

    def check_rules(self, rules: Ruleset) -> None:
        """Raises ValueError unless the network was trained on these rules."""
        if rules != self.rules:
            raise ValueError(
                f"{self.name} was trained on {self.rules.name!r} rules and cannot play a "
                f"{rules.name!r} game"
            )

    def act(
        self, observation: Observation, position: Position | None = None, hops: Sequence[int] = ()
    ) -> int:
        """Returns the network's (or the search's) hop for the player to move.

        Raises:
            ValueError: no position was given, or it is played under other rules than the
                network was trained on.
        """
        if position is None:
            raise ValueError(f"{self.name} needs the engine position: act(obs, position, hops)")
        self.check_rules(position.rules)
        if self.search is None and _planes_of(observation, self._obs.shape[1:]):
            self._obs[0] = observation["observation"]  # the env's planes keep its history
            self._mask[:] = observation["action_mask"]
            return self._policy_action()
        turn = self.turn
        turn.reset(position.board, position.turn, position.king_runs)
        for hop in hops:
            if turn.play(int(hop)) == HOP_ILLEGAL:
                raise ValueError(f"hop {hop} of {list(hops)} is not legal in {position.fen()}")
        if self.search is not None:
            (visits,) = self.search.search([turn], add_noise=False)
            return select_action(visits, 0.0, self.search.rng)
        turn.write_planes(self._obs[0], turn.side)
        turn.write_mask(self._mask)
        return self._policy_action()

    def _policy_action(self) -> int:
        """Returns the legal hop of highest prior for the planes and mask in the buffers."""
        priors, _ = self.evaluator.evaluate(self._obs, self._mask[None])
        return int(np.argmax(np.where(self._mask > 0, priors[0], -1.0)))


def _planes_of(observation: Observation, shape: tuple[int, ...]) -> bool:
    """Says whether an env observation holds channels-first planes of `shape` and a mask."""
    try:
        return np.shape(observation["observation"]) == shape and "action_mask" in observation
    except (KeyError, TypeError, IndexError):
        return False
