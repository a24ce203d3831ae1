"""Shared by the agent tests: a random-hop baseline and a game loop through the env."""

from __future__ import annotations

from typing import Any

import numpy as np

from damas_agents.players.base import Agent, play_hop


class RandomHops:
    """A uniformly random legal hop from the mask (the tests' own baseline)."""

    name = "random-hops"

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation, position=None, hops=()) -> int:
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


def play_game(env: Any, agents: dict[str, Agent], fen: str | None = None) -> dict[str, float]:
    """Plays one game through the env (which raises on an illegal hop); returns rewards."""
    env.reset(options={"fen": fen} if fen else None)
    for agent in agents.values():
        agent.reset()
    totals = dict.fromkeys(agents, 0.0)
    for name in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[name] += reward
        env.step(None if termination or truncation else play_hop(agents[name], env))
    return totals
