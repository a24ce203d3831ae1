"""Small adapters for RL libraries whose conventions differ from ours; see the README.

``rllib`` (RLlib's observation keys; needs ray only to build the env), ``sb3`` (the batch
view as a Stable-Baselines3 ``VecEnv``; importing it needs stable-baselines3), ``torchrl``
and ``tianshou`` (one-line shortcuts: ``draughts_v0.env(variant)`` goes into their
PettingZoo wrappers as it is, its infos are ints; importing each needs its library).
Nothing here is imported by ``damas_env`` itself.
"""
