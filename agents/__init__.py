"""The application over damas_env: players and search (``damas_agents.players``), self-play
training (``damas_agents.training``), the arena and human play (``damas_agents.arena``), and the
``damas`` program (``damas_agents.command``)."""

if __name__ != "damas_agents":  # pragma: no cover - the folder is agents/, the package is not
    raise ImportError(
        f"the agents package installs as damas_agents (the agents/ folder of the checkout): "
        f"import damas_agents, not {__name__}. If numba's cache is importing it "
        "(numba/core/caching.py in the traceback), the cache predates that name: delete the "
        "__pycache__ folders under agents/ (find agents -name __pycache__ -exec rm -r {} +)"
    )
