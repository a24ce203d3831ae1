"""DraughtsNet: shapes, the action layout of the policy head, masking and a tiny overfit."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from damas_agents.models.config import NetworkConfig
from damas_agents.models.network import MASKED_LOGIT, DraughtsNet, device_from, masked_logits
from damas_env.encoding import PLANES, action_layout
from damas_env.vector import DraughtsBatchEnv

TINY = NetworkConfig(channels=8, blocks=1, value_hidden=16, device="cpu")


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


@pytest.mark.parametrize(("size", "actions"), [(8, 896), (10, 1800)])
@pytest.mark.parametrize("norm", ["batch", "group"])
def test_shapes(size: int, actions: int, norm: str) -> None:
    net = DraughtsNet(NetworkConfig(channels=16, blocks=2, norm=norm), size)  # type: ignore[arg-type]
    logits, value = net(torch.randn(3, PLANES, size, size))
    assert logits.shape == (3, actions) and net.num_actions == actions
    assert value.shape == (3,)
    assert bool((value.abs() <= 1).all())


def test_wrong_shape_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"obs must have shape \(B, 8, 8, 8\)"):
        DraughtsNet(TINY, 8)(torch.zeros(2, PLANES, 10, 10))


def test_policy_head_follows_the_action_layout() -> None:
    size = 8
    layout = action_layout(size)
    hops = 4 * (size - 1)
    net = DraughtsNet(NetworkConfig(channels=hops, blocks=0), size)
    with torch.no_grad():  # make the policy conv the identity to read its input back
        net.policy.weight.copy_(torch.eye(hops).reshape(hops, hops, 1, 1))
        net.policy.bias.zero_()
    x = torch.randn(2, hops, size, size)
    logits = net._policy_logits(x)
    for action in [0, 5, 27, 28, 400, 895]:
        origin, direction, distance = layout.decode(action)
        channel = direction * (size - 1) + distance - 1
        expected = x[:, channel, layout.row[origin], layout.col[origin]]
        assert torch.equal(logits[:, action], expected)


def test_masked_logits_give_illegal_actions_zero_probability() -> None:
    net = DraughtsNet(TINY, 8)
    mask = torch.zeros(4, 896, dtype=torch.int8)
    mask[0, [3, 17, 100]] = 1
    mask[1, 5] = 1
    mask[2] = 1  # row 3 stays all zeros: the waiting player of a batch env
    with torch.no_grad():
        logits, _ = net(torch.randn(4, PLANES, 8, 8), mask)
    probs = torch.softmax(logits, dim=1)
    assert bool(torch.isfinite(logits).all()) and bool(torch.isfinite(probs).all())
    assert float(probs[0, [3, 17, 100]].sum()) == pytest.approx(1.0)
    assert float(probs[0].sum() - probs[0, [3, 17, 100]].sum()) == 0.0
    assert float(probs[1, 5]) == pytest.approx(1.0)
    assert torch.allclose(probs[3], torch.full((896,), 1 / 896))  # uniform, not NaN
    log_probs = torch.log_softmax(logits, dim=1)
    entropy = -(probs * log_probs).sum(1)
    assert bool(torch.isfinite(entropy).all())
    assert float(entropy[1]) == pytest.approx(0.0, abs=1e-6)


def test_masked_logits_half_precision_stays_finite() -> None:
    logits = masked_logits(
        torch.zeros(2, 5, dtype=torch.float16), torch.tensor([[1, 0] * 2 + [0]] * 2)
    )
    assert bool(torch.isfinite(logits).all())
    assert MASKED_LOGIT == -1e9


def test_batch_env_outputs() -> None:
    env = DraughtsBatchEnv(4, variant="english", seed=1, num_threads=1)
    obs, masks, _ = env.reset()
    net = DraughtsNet(TINY, env.rules.board_size).eval()
    with torch.no_grad():
        logits, value = net(torch.from_numpy(obs), torch.from_numpy(masks))
    assert logits.shape == (4, env.num_actions) and value.shape == (4,)
    probs = torch.softmax(logits, 1).numpy()
    assert np.all(probs[masks == 0] == 0)
    mover = masks.sum(1) > 0
    assert np.allclose(probs[mover].sum(1), 1.0)
    # The head reads each hop at its origin cell: every legal origin holds an own piece.
    layout = action_layout(8)
    for g, a in zip(*np.nonzero(masks), strict=True):
        origin, _, _ = layout.decode(int(a))
        assert obs[g, 0:2, layout.row[origin], layout.col[origin]].sum() == 1
    actions = torch.distributions.Categorical(logits=logits[torch.from_numpy(mover)]).sample()
    assert bool(torch.from_numpy(masks[mover]).gather(1, actions[:, None]).all())


def test_tiny_network_overfits_a_fixed_batch() -> None:
    env = DraughtsBatchEnv(16, variant="english", seed=2, num_threads=1, opening_plies=6)
    obs, masks, _ = env.reset()
    obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(masks)
    targets = torch.distributions.Categorical(logits=torch.where(mask_t > 0, 0.0, -1e9)).sample()
    values = torch.linspace(-1, 1, 16)
    net = DraughtsNet(NetworkConfig(channels=16, blocks=1, value_hidden=32), 8)
    optimiser = torch.optim.Adam(net.parameters(), lr=3e-3)
    losses = []
    for _ in range(50):
        logits, value = net(obs_t, mask_t)
        loss = torch.nn.functional.cross_entropy(logits, targets) + ((value - values) ** 2).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_parameter_count() -> None:
    def count(config: NetworkConfig, size: int) -> int:
        return sum(p.numel() for p in DraughtsNet(config, size).parameters())

    default = count(NetworkConfig(), 8)
    assert 200_000 < default < 500_000  # 4 blocks x 2 convs x 64*64*9 = 295k, plus heads
    assert count(NetworkConfig(blocks=5), 8) - default == 2 * (64 * 64 * 9 + 2 * 64)
    assert count(TINY, 8) < 10_000
    assert count(NetworkConfig(), 10) > default  # wider policy and value heads


def test_device_from() -> None:
    assert device_from(NetworkConfig(device="cpu")) == torch.device("cpu")
    assert device_from("cpu") == torch.device("cpu")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert device_from(NetworkConfig(device="auto")).type == expected


def test_batch_norm_eval_mode_is_deterministic() -> None:
    net = DraughtsNet(TINY, 8).eval()
    obs = torch.randn(5, PLANES, 8, 8)
    with torch.no_grad():
        full, _ = net(obs)
        single, _ = net(obs[:1])
    assert torch.allclose(full[:1], single, atol=1e-5)
