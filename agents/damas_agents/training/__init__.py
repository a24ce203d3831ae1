"""Self-play training: configs, the network, AlphaZero and PPO, checkpoints and the loop.

Importing the package imports no torch: the loop writes its run directory first."""
