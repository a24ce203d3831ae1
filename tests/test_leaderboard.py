"""PolicyAgent, the arena agent of any policy function, and benchmarks/leaderboard.py.

The leaderboard script trains each row and rates it on the pool; here it runs one tiny row
end to end (one iteration of the quickstart, a few rating games), then re-prints saved
results with ``--render``. The examples' own adapters (``as_agent``) are tested after their
tiny trainings in tests/test_integrations.py.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from damas_agents.arena import play_match
from damas_agents.players.base import Agent, PolicyAgent, play_hop
from damas_agents.rating import rate
from damas_env.draughts_v0 import raw_env


def first_legal(planes: np.ndarray, mask: np.ndarray) -> int:
    """Returns the lowest legal action (a deterministic policy)."""
    return int(np.flatnonzero(mask)[0])


def test_a_policy_agent_plays_complete_games_in_the_arena() -> None:
    seen: list[tuple[tuple[int, ...], np.dtype]] = []

    def policy(planes: np.ndarray, mask: np.ndarray) -> np.int64:
        seen.append((planes.shape, mask.dtype))
        return np.flatnonzero(mask)[-1]  # a numpy integer is an action too

    agent = PolicyAgent(policy, "last-legal")
    assert isinstance(agent, Agent)
    match = play_match(agent, "random", "english", games=2, progress=False)
    assert match.agent_a == "last-legal" and match.games == 2
    assert "illegal_action" not in match.reasons()
    assert set(seen) == {((8, 8, 8), np.dtype(np.int8))}  # draughts_v0's planes and mask


def test_a_policy_agent_is_rated_on_the_pool() -> None:
    result = rate(PolicyAgent(first_legal, "first-legal"), "english", games=2)
    assert result.agent == "first-legal" and result.rating.games == 2


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        (0, "first-legal-bug chose action 0, which the action mask forbids (legal: ["),
        (-1, "chose action -1, which the action mask forbids"),
        (896, "chose action 896, which the action mask forbids"),
        (np.array([[3]]), "chose action 3, which the action mask forbids"),
        (2.0, "returned 2.0, not an integer action"),
        (True, "returned True, not an integer action"),
        (np.array([1, 2]), "not an integer action"),
        (None, "returned None, not an integer action"),
    ],
)
def test_a_policy_agent_refuses_what_the_mask_forbids(chosen: object, message: str) -> None:
    env = raw_env("english")
    env.reset()
    agent = PolicyAgent(lambda planes, mask: chosen, "first-legal-bug")
    with pytest.raises(ValueError, match=re.escape(message)):
        play_hop(agent, env)


def test_a_policy_agent_needs_a_callable() -> None:
    with pytest.raises(TypeError, match="policy must be callable, not str"):
        PolicyAgent("random")  # type: ignore[arg-type]
