"""Models and checkpoints: the run's config (``config.py``), the networks (``network.py``,
``evalnet.py``) and the checkpoint file format (``checkpoint.py``: write, read, verify).

Below the players and the trainers: both build networks and read checkpoints from here.
"""
