"""The application over damas_env: players and search (``agents.players``), self-play
training (``agents.training``), the arena and human play (``agents.arena``), and the
``damas`` program (``agents.command``)."""
