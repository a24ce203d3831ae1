"""The arena and human play: matches and round robins with fair openings (``match.py``, its
names re-exported here), the ACF ballots (``ballots.py``), ``damas arena`` (``cli.py``) and
``damas play`` (``play.py``).

    from agents.arena import play_match, round_robin
"""

from .match import (
    MAX_AGENTS,
    MAX_GAMES,
    MAX_PLIES,
    MAX_SEED,
    MAX_WORKERS,
    AgentSource,
    GameRecord,
    MatchResult,
    Opening,
    RoundRobinResult,
    ScoreStats,
    elo_difference,
    openings_for,
    play_match,
    round_robin,
    score_stats,
    uses_ballots,
)

__all__ = [
    "MAX_AGENTS",
    "MAX_GAMES",
    "MAX_PLIES",
    "MAX_SEED",
    "MAX_WORKERS",
    "AgentSource",
    "GameRecord",
    "MatchResult",
    "Opening",
    "RoundRobinResult",
    "ScoreStats",
    "elo_difference",
    "openings_for",
    "play_match",
    "round_robin",
    "score_stats",
    "uses_ballots",
]
