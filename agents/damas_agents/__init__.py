"""The application over damas_env, in layers, each importing only the ones below it:

    damas_agents.command    the damas program
    damas_agents.training   self-play training (AlphaZero, PPO, NNUE) and damas train
    damas_agents.arena      matches, round robins, damas arena and damas play
    damas_agents.players    the agents and their specs (random ... checkpoint:, pretrained:)
    damas_agents.models     the run's config, the networks and the checkpoint format
    damas_agents.search     the compiled alpha-beta search and its evaluations

``extras``, ``files`` and ``workers`` are helpers for any layer; ``lint-imports`` checks the order.
"""

from pathlib import Path

from damas_env import kernel_cache

# The modules whose compiled kernels are cached, and what they read: a change to one
# recompiles them all (damas_env.kernel_cache).
_HERE = Path(__file__).parent
KERNEL_SOURCES = (
    *sorted((_HERE / "search").glob("*.py")),
    _HERE / "training" / "nnue.py",
    _HERE / "players" / "tree.py",
)
kernel_cache.register(_HERE, KERNEL_SOURCES)
