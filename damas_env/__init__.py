"""damas-env: exact, compiled draughts rules for every major variant, for RL research.

Importing it sets ``OMP_WAIT_POLICY=PASSIVE`` unless the variable is already set, so that the
idle OpenMP threads of the batch env (and of torch) do not spin on cores that other work
needs. It takes effect when ``damas_env`` is imported before torch or numba's first parallel
kernel; set ``OMP_WAIT_POLICY=ACTIVE`` yourself on a machine of your own.
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .engine import Engine, Position  # noqa: E402
from .moves import Colour, IllegalMoveError, Move  # noqa: E402
from .notation import NotationError  # noqa: E402
from .rules import Ruleset, RulesetError, get_ruleset, ruleset_names  # noqa: E402

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
