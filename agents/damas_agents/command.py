"""The ``damas`` program: the library's commands and the application's, in one place.

    damas perft | moves | show | variants    (damas_env.cli: the rules engine)
    damas arena | play | hub | rate | train (damas_agents.arena.cli, arena.play, arena.hub,
                                              rating.rate, training.train)
    damas web                               (damas_agents.web.cli: the browser board)

Each command's module is imported only when that command runs (``train`` imports torch).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from damas_agents.extras import import_target
from damas_env.cli import Command
from damas_env.cli import main as library_main

__all__ = ["COMMANDS", "main"]

#: The application's commands: name -> (help line, ``module:main`` that runs it).
COMMANDS: dict[str, tuple[str, str]] = {
    "arena": (
        "play agents against each other (damas arena --help)",
        "damas_agents.arena.cli:main",
    ),
    "play": ("play against an agent (damas play --help)", "damas_agents.arena.play:main"),
    "hub": (
        "serve an agent to draughts GUIs over the Hub protocol (damas hub --help)",
        "damas_agents.arena.hub:main",
    ),
    "rate": (
        "an agent's Elo on a variant's reference pool (damas rate --help)",
        "damas_agents.rating.rate:main",
    ),
    "web": (
        "a board in the browser: play, watch and replay games (damas web --help)",
        "damas_agents.web.cli:main",
    ),
    "train": (
        "train a self-play agent from a config: learned alpha-beta (nnue), AlphaZero-style "
        "or PPO (damas train --help)",
        "damas_agents.training.train:main",
    ),
}


def _runner(target: str) -> Callable[[list[str]], int]:
    """Returns a main that imports `target` (``module:main``) when called and runs it."""

    def run(argv: list[str]) -> int:
        status: int = import_target(target)(argv)
        return status

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas``; returns the exit status (2 on a bad input, 130 on Ctrl-C)."""
    commands: dict[str, Command] = {
        name: (help_text, _runner(target)) for name, (help_text, target) in COMMANDS.items()
    }
    return library_main(argv, commands)


if __name__ == "__main__":
    sys.exit(main())
