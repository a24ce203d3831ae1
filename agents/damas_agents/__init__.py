"""The application over damas_env, in layers, each importing only the ones below it:

    damas_agents.command    the damas program
    damas_agents.training   self-play training (AlphaZero, PPO, NNUE) and damas train
    damas_agents.arena      matches, round robins, damas arena and damas play
    damas_agents.players    the agents and their specs (random ... checkpoint:, pretrained:)
    damas_agents.models     the run's config, the networks and the checkpoint format
    damas_agents.search     the compiled alpha-beta search and its evaluations

``extras``, ``files`` and ``workers`` are helpers for any layer; ``lint-imports`` checks the order.
"""
