"""The training configs shipped with damas-env, installed as ``damas_agents.configs``:
``damas train quickstart`` reads ``quickstart.yaml`` from here (``damas train --help`` lists
them). This file makes the folder that package, so the configs ship from where they are.
"""
