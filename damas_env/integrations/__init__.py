"""Small adapters for RL libraries whose conventions differ from PettingZoo's; see the README.

Each module imports its library lazily, so importing it does not need the library.
"""
