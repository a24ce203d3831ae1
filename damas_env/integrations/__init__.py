"""Small adapters for RL libraries whose conventions differ from ours; see the README.

``rllib`` (RLlib's observation keys; needs ray only to build the env), ``sb3`` (the batch
view as a Stable-Baselines3 ``VecEnv``; importing it needs stable-baselines3), ``torchrl``
and ``tianshou`` (draughts_v0 in their PettingZoo wrappers, built with the numeric infos
that they stack into tensors and buffers; importing each needs its library). Nothing here
is imported by ``damas_env`` itself.
"""
