"""Ratings on a fixed, calibrated pool of opponents (``damas rate``): the pools' tables
(``pool.py``), the maximum-likelihood fit behind them (``fit.py``), and the adaptive match
that places an agent on a pool (``rate.py``).

    from damas_agents.rating import rate
    print(rate("alphabeta:depth=4", variant="english").summary())
"""

from damas_agents.rating.fit import Rating, RatingTable, expected_score, fit_ratings, rate_against
from damas_agents.rating.pool import (
    POOL_VERSION,
    Member,
    Pool,
    PoolError,
    available_pools,
    load_pool,
)
from damas_agents.rating.rate import RateResult, rate

__all__ = [
    "POOL_VERSION",
    "Member",
    "Pool",
    "PoolError",
    "RateResult",
    "Rating",
    "RatingTable",
    "available_pools",
    "expected_score",
    "fit_ratings",
    "load_pool",
    "rate",
    "rate_against",
]
