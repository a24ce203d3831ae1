"""The compiled alpha-beta search (``alphabeta.py``) and its learned evaluation (``nnue.py``).

Below the players: the agents in :mod:`damas_agents.players` and the NNUE trainer drive it.
"""
