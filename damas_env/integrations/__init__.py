"""Small adapters for RL libraries whose conventions differ from ours; see the README.

``rllib`` (RLlib's observation keys; needs ray only to build the env) and ``sb3`` (the batch
view as a Stable-Baselines3 ``VecEnv``; importing it needs stable-baselines3). Nothing here
is imported by ``damas_env`` itself.
"""
