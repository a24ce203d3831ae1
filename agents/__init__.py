"""Agents that play draughts through damas_env: baselines, search and self-play learners."""
