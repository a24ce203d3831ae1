"""The ``damas`` program: the library's commands and the application's, in one place.

    damas perft | moves | show | variants    (damas_env.cli: the rules engine)
    damas arena | play | train ...           (damas_agents.arena.cli, arena.play, training.train)

Each command's module is imported only when that command runs (``train`` imports torch).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

from damas_env.cli import Command
from damas_env.cli import main as library_main

__all__ = ["COMMANDS", "main"]

#: The application's commands: name -> (help line, module whose ``main(argv)`` runs it).
COMMANDS: dict[str, tuple[str, str]] = {
    "arena": ("play agents against each other (damas arena --help)", "damas_agents.arena.cli"),
    "play": ("play against an agent (damas play --help)", "damas_agents.arena.play"),
    "train": (
        "train a self-play agent from a config: learned alpha-beta (nnue), AlphaZero-style "
        "or PPO (damas train --help)",
        "damas_agents.training.train",
    ),
}


def _runner(module_name: str) -> Callable[[list[str]], int]:
    """Returns a main that imports `module_name` when called and runs its ``main``."""

    def run(argv: list[str]) -> int:
        status: int = importlib.import_module(module_name).main(argv)
        return status

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas``; returns the exit status (2 on a bad input, 130 on Ctrl-C)."""
    commands: dict[str, Command] = {
        name: (help_text, _runner(module)) for name, (help_text, module) in COMMANDS.items()
    }
    return library_main(argv, commands)


if __name__ == "__main__":
    sys.exit(main())
