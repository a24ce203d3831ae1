"""The arena and human play: matches and round robins with fair openings (``match.py``, its
names re-exported here), the ACF ballots (``ballots.py``), ``damas arena`` (``cli.py``) and
``damas play`` (``play.py``).

    from damas_agents.arena import play_match, round_robin
"""

from damas_agents.arena.match import *  # noqa: F403 - the names match.__all__ lists, listed once there
from damas_agents.arena.match import __all__ as __all__
