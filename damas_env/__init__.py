"""damas-env: exact, compiled draughts rules for every major variant, for RL research."""

from .engine import Engine, Position
from .moves import Colour, IllegalMoveError, Move
from .notation import NotationError
from .rules import Ruleset, RulesetError, get_ruleset, ruleset_names

__all__ = [
    "Colour",
    "Engine",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "Position",
    "Ruleset",
    "RulesetError",
    "get_ruleset",
    "ruleset_names",
]
__version__ = "0.1.0"

from .registration import register as _register  # noqa: E402

_register()  # pettingzoo.make("aec", "damas/draughts-v0"), gymnasium.make("damas/Draughts-v0")
