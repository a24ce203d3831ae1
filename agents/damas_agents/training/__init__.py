"""Self-play training: the Trainer protocol, AlphaZero, PPO and NNUE, Ray workers, resuming,
and the ``damas train`` loop.

Importing the package imports no torch: the loop writes its run directory first.
"""
