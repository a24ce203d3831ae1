"""Trained agents: :func:`load_agent` plays a checkpoint, :func:`load_pretrained` one of the
agents shipped in the package, :func:`network_agent` a network already in memory.

    agent = load_agent("runs/x/checkpoints/latest.pt", sims=64)   # checkpoint:PATH,sims=64
    agent = load_pretrained("english", depth=6)                  # pretrained:english,depth=6
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import torch

from damas_agents.models.checkpoint import load_network, read_checkpoint
from damas_agents.models.config import Config
from damas_agents.models.evalnet import EvalNet
from damas_agents.models.network import DraughtsNet
from damas_agents.players.classic import AlphaBetaAgent
from damas_agents.players.learned import NetworkAgent
from damas_env.checks import shown

__all__ = [
    "PRETRAINED",
    "PRETRAINED_VERSIONS",
    "load_agent",
    "load_pretrained",
    "network_agent",
    "pretrained_path",
]


def load_agent(
    path: str | Path,
    seed: int | None = None,
    sims: int = 0,
    name: str | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    time: float | None = None,
    search: int | None = None,
) -> NetworkAgent | AlphaBetaAgent:
    """Returns an arena agent playing a checkpoint's network
    (``checkpoint:PATH[,sims=N|depth=N|nodes=N|time=S][,search=V]``; see
    :func:`network_agent`).

    Raises:
        CheckpointError: the file is not a usable checkpoint.
        ValueError: an option the checkpoint's algorithm does not take.
    """
    data = read_checkpoint(path)
    network, config = load_network(data)
    options = {"sims": sims, "depth": depth, "nodes": nodes, "time": time, "search": search}
    given = ",".join(f"{k}={v}" for k, v in options.items() if v)
    label = name or f"checkpoint:{Path(path).name}" + (f",{given}" if given else "")
    return network_agent(network, config, seed, label, sims, depth, nodes, time, search)


#: The agents shipped in the package, by name: their file in its ``pretrained/`` folder
#: (snapshots of the runs the README gives the commands of). Each variant's name is its
#: latest agent; a versioned name (:data:`PRETRAINED_VERSIONS`) stays one network forever.
PRETRAINED = {"english": "english-v2.pt", "international": "international-v2.pt"}
#: Every shipped network under a name that never changes: ``english-v1`` is the English
#: agent first shipped, whatever ``english`` is later (the rating pools play these).
PRETRAINED_VERSIONS = {
    "english-v1": "english-v1.pt",
    "english-v2": "english-v2.pt",
    "international-v1": "international-v1.pt",
    "international-v2": "international-v2.pt",
}


def pretrained_path(name: str) -> Path:
    """Returns the file of a shipped agent.

    Raises:
        ValueError: `name` is not one of :data:`PRETRAINED` or :data:`PRETRAINED_VERSIONS`
            (a name, never a path).
    """
    files = {**PRETRAINED, **PRETRAINED_VERSIONS}
    if name not in files:
        raise ValueError(f"no pretrained agent {shown(name)}; the package has: {', '.join(files)}")
    return Path(str(resources.files("damas_agents") / "pretrained" / files[name]))


def load_pretrained(
    name: str,
    seed: int | None = None,
    depth: int | None = None,
    nodes: int | None = None,
    time: float | None = None,
    search: int | None = None,
) -> NetworkAgent | AlphaBetaAgent:
    """Returns a shipped agent (``pretrained:english[,depth=N|nodes=N|time=S][,search=V]``):
    the alpha-beta search (version `search`, default the latest) with its learned
    evaluation, by default to the depth it was shipped to play at. Reads only the package's
    own file: no network access.

    Raises:
        ValueError: no such pretrained agent.
        CheckpointError: the package's file is missing or damaged (reinstall the package).
    """
    options = {"depth": depth, "nodes": nodes, "time": time, "search": search}
    given = ",".join(f"{k}={v}" for k, v in options.items() if v)
    label = f"pretrained:{name}" + (f",{given}" if given else "")
    return load_agent(pretrained_path(name), seed, 0, label, depth, nodes, time, search)


def network_agent(
    network: torch.nn.Module,
    config: Config,
    seed: int | None = None,
    name: str | None = None,
    sims: int = 0,
    depth: int | None = None,
    nodes: int | None = None,
    time: float | None = None,
    search: int | None = None,
) -> NetworkAgent | AlphaBetaAgent:
    """Returns the agent that plays a trained network.

    A policy-value network (AlphaZero, PPO) plays its policy, or ``sims`` PUCT simulations
    per hop. A learned evaluation (``nnue``) plays the alpha-beta search with it, limited by
    ``depth``, ``nodes`` and/or ``time`` (default: the config's ``nnue.play_depth``), in
    search version ``search`` (default the latest).

    Raises:
        ValueError: an option the network's algorithm does not take.
    """
    rules = config.env.ruleset()
    if isinstance(network, EvalNet):
        if sims:
            raise ValueError(
                "sims= is for policy networks; an nnue checkpoint takes depth=, nodes= or time="
            )
        if depth is None and nodes is None and time is None:
            depth = config.nnue.play_depth
        weights = network.weights()
        return AlphaBetaAgent(
            depth, nodes, time, seed=seed, weights=weights, rules=rules, name=name, search=search
        )
    if any(v is not None for v in (depth, nodes, time, search)):
        raise ValueError(
            f"depth=, nodes=, time= and search= are for nnue checkpoints; this one is "
            f"{config.algorithm} (it takes sims=N)"
        )
    assert isinstance(network, DraughtsNet)
    return NetworkAgent(
        network, rules, sims, c_puct=config.mcts.c_puct, seed=seed, name=name or config.name
    )
