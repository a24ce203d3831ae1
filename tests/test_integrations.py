"""The RL-library integrations in examples/integrations/ train, and only ever play legal hops.

Each test skips unless its library is installed (``pip install -e ".[sb3]"`` and so on),
trains for a few seconds, and spies on the env's ``step`` to check every learner action
against the mask the learner was shown.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from damas_env.single_agent import DraughtsGymEnv

EXAMPLES = Path(__file__).parent.parent / "examples" / "integrations"


def load_example(name: str) -> ModuleType:
    """Imports examples/integrations/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(f"integration_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Spy:
    """Records, for each action a learner played, whether its mask allowed it."""

    def __init__(self) -> None:
        self.legal: list[bool] = []

    def record(self, action: Any, mask: np.ndarray) -> None:
        a = int(np.asarray(action).item())
        self.legal.append(bool(0 <= a < mask.shape[0] and mask[a]))

    def check(self, at_least: int) -> None:
        """Asserts the learner played at least `at_least` actions, all legal."""
        assert len(self.legal) >= at_least
        assert all(self.legal), f"{self.legal.count(False)} illegal of {len(self.legal)}"


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Keeps torch on one thread (the tests share a 2-core machine)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def gym_spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Spies on DraughtsGymEnv.step: the learner's actions against action_masks()."""
    spy = Spy()
    step = DraughtsGymEnv.step

    def spied(self: DraughtsGymEnv, action: Any) -> Any:
        spy.record(action, self.action_masks())
        return step(self, action)

    monkeypatch.setattr(DraughtsGymEnv, "step", spied)
    return spy


def test_sb3_maskable_ppo(gym_spy: Spy) -> None:
    pytest.importorskip("sb3_contrib")
    example = load_example("sb3_maskable_ppo")
    model, score = example.main(total_steps=512, n_envs=2, eval_games=2)
    assert model.num_timesteps >= 512
    assert -1.0 <= score <= 1.0
    gym_spy.check(at_least=512)
