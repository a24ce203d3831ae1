"""Elo ratings from game results by maximum likelihood, all at once (as Ordo and BayesElo do).

    table = fit_ratings(["random", "greedy", "alphabeta:depth=2"], results, anchor="random")
    table.elo["greedy"], table.ci["greedy"]        # its rating and 95% interval, random = 0
    rating = rate_against({"greedy": 310.0}, {"greedy": (30, 10, 0)})   # one new player

The model is the logistic Elo curve, expected score ``E = 1 / (1 + 10 ** (-(r_a - r_b) / 400))``,
with a draw counted as half a win (so the ratings agree with the arena's ``-400 log10(1/s - 1)``).
Intervals are 95%: for a table, the sandwich covariance (the games' own score variance, so
that draws narrow it as they should); for one player rated against fixed ratings, the
likelihood-ratio interval, which stays honest at the extremes: a player who won every game
gets a lower bound and no estimate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Rating", "RatingTable", "Results", "expected_score", "fit_ratings", "rate_against"]

#: Wins, draws and losses of one side against another.
Results = tuple[int, int, int]

Z95 = 1.959963984540054
_K = math.log(10) / 400  # d/dr of the log-odds of the expected score
#: Ratings are fitted within this distance of the anchor: beyond it the games carry no
#: information that a bound does not already say.
MAX_ELO = 5000.0


def expected_score(difference: float | np.ndarray) -> float | np.ndarray:
    """Returns the expected score of a player rated `difference` Elo above its opponent."""
    return 1.0 / (1.0 + np.power(10.0, -np.asarray(difference) / 400.0))


@dataclass(frozen=True)
class RatingTable:
    """Ratings fitted together: each player's Elo and 95% interval on the anchor's scale."""

    players: list[str]
    elo: dict[str, float]
    ci: dict[str, tuple[float, float]]
    anchor: str
    anchor_elo: float
    games: dict[str, int]
    """Games each player played in the fit."""
    covariance: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.zeros(0))
    """The ratings' covariance, in the order of `players` (the anchor's row and column 0)."""

    def difference_ci(self, a: str, b: str) -> tuple[float, float]:
        """Returns the 95% interval of ``elo[a] - elo[b]``: how well the games place a against b,
        narrower than either one's interval on the anchor's scale when they are far from it."""
        i, j = self.players.index(a), self.players.index(b)
        c = self.covariance
        half = Z95 * math.sqrt(max(c[i, i] + c[j, j] - 2 * c[i, j], 0.0))
        difference = self.elo[a] - self.elo[b]
        return difference - half, difference + half


def fit_ratings(
    players: Sequence[str],
    results: Mapping[tuple[str, str], Results],
    anchor: str,
    anchor_elo: float = 0.0,
    prior_draws: float = 0.1,
) -> RatingTable:
    """Returns every player's rating, fitted to all results at once by maximum likelihood.

    Args:
        players: the names, in the table's order.
        results: ``(a, b) -> (wins, draws, losses)`` of a against b.
        anchor: the player whose rating is fixed at `anchor_elo`.
        prior_draws: virtual draws added to every pair that played (as BayesElo's prior): they
            keep a player who won or lost every game finite, and move a pair of a few hundred
            games by well under an Elo point.

    Raises:
        ValueError: an unknown player or anchor, a negative count, a player with no games, or
            players not all linked by games to the anchor.
    """
    index = {name: i for i, name in enumerate(players)}
    if anchor not in index:
        raise ValueError(f"the anchor {anchor!r} is not one of the players")
    n = len(players)
    points, counts, square = _pair_totals(results, index, n)
    counts_prior = counts + prior_draws * (counts > 0)
    points_prior = points + 0.5 * prior_draws * (counts > 0)
    _check_connected(counts, index[anchor], players)
    free = [i for i in range(n) if i != index[anchor]]
    r = np.zeros(n)
    for _ in range(200):  # Newton's method on the concave log-likelihood
        e = expected_score(r[:, None] - r[None, :])
        gradient = _K * (points_prior - counts_prior * e).sum(axis=1)
        w = _K * _K * counts_prior * e * (1 - e)
        hessian = np.diag(w.sum(axis=1)) - w
        step = np.linalg.solve(hessian[np.ix_(free, free)], gradient[free])
        step = np.clip(step, -400.0, 400.0)
        r[free] += step
        r = np.clip(r, -MAX_ELO, MAX_ELO)
        if np.abs(step).max() < 1e-7:
            break
    e = expected_score(r[:, None] - r[None, :])
    w = _K * _K * counts_prior * e * (1 - e)
    hessian = (np.diag(w.sum(axis=1)) - w)[np.ix_(free, free)]
    # The games' own variance around the fitted expectation: sum over games of (s - E)^2.
    # One virtual win and one loss per pair that played, at even odds (see rate_against).
    spread = square - 2 * e * points + e * e * counts + 0.5 * (counts > 0)
    g = _K * _K * spread
    scores = (np.diag(g.sum(axis=1)) - g)[np.ix_(free, free)]
    inverse = np.linalg.inv(hessian)
    covariance = inverse @ scores @ inverse
    full = np.zeros((n, n))
    full[np.ix_(free, free)] = covariance
    half = Z95 * np.sqrt(np.maximum(np.diag(full), 0.0))
    elo = r + anchor_elo
    return RatingTable(
        players=list(players),
        elo={p: float(elo[i]) for p, i in index.items()},
        ci={p: (float(elo[i] - half[i]), float(elo[i] + half[i])) for p, i in index.items()},
        anchor=anchor,
        anchor_elo=anchor_elo,
        games={p: int(counts[i].sum()) for p, i in index.items()},
        covariance=full,
    )


def _pair_totals(
    results: Mapping[tuple[str, str], Results], index: dict[str, int], n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns n x n arrays: row's points against column, games, and sum of squared scores."""
    points, counts, square = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for (a, b), (wins, draws, losses) in results.items():
        for name in (a, b):
            if name not in index:
                raise ValueError(f"results name {name!r}, who is not one of the players")
        if min(wins, draws, losses) < 0:
            raise ValueError(f"{a} vs {b}: negative counts {(wins, draws, losses)}")
        if a == b:
            raise ValueError(f"{a} plays itself")
        i, j = index[a], index[b]
        points[i, j] += wins + draws / 2
        points[j, i] += losses + draws / 2
        counts[i, j] += wins + draws + losses
        counts[j, i] += wins + draws + losses
        square[i, j] += wins + draws / 4
        square[j, i] += losses + draws / 4
    return points, counts, square


def _check_connected(counts: np.ndarray, anchor: int, players: Sequence[str]) -> None:
    """Raises ValueError unless games link every player to the anchor."""
    reached, frontier = {anchor}, [anchor]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(counts[i]):
            if int(j) not in reached:
                reached.add(int(j))
                frontier.append(int(j))
    cut = [players[i] for i in range(len(players)) if i not in reached]
    if cut:
        raise ValueError(f"no games link {', '.join(cut)} to the anchor {players[anchor]}")


@dataclass(frozen=True)
class Rating:
    """One player's rating against opponents of known rating, with its 95% interval.

    A player who won (lost) every game has no estimate: ``elo`` is None and ``bound`` says
    which end of ``ci`` is the bound, the other being infinite.
    """

    elo: float | None
    ci: tuple[float, float]
    games: int
    score: float

    @property
    def bound(self) -> str | None:
        """ "lower" when every game was won, "upper" when every game was lost, else None."""
        if self.elo is not None:
            return None
        return "lower" if self.ci[1] == math.inf else "upper"

    @property
    def half_width(self) -> float:
        """Half the interval's width (infinite for a bound)."""
        return (self.ci[1] - self.ci[0]) / 2

    def text(self) -> str:
        """Returns the rating as a line: ``Elo 812 ± 48 [764, 860]``, or the bound."""
        if self.bound == "lower":
            return f"Elo > {self.ci[0]:.0f} (95% bound: every game won, so no estimate)"
        if self.bound == "upper":
            return f"Elo < {self.ci[1]:.0f} (95% bound: every game lost, so no estimate)"
        assert self.elo is not None
        low, high = self.ci
        return f"Elo {self.elo:.0f} ± {self.half_width:.0f}  95% CI [{low:.0f}, {high:.0f}]"


def rate_against(ratings: Mapping[str, float], results: Mapping[str, Results]) -> Rating:
    """Returns a player's rating from its results against opponents whose ratings are fixed.

    The estimate maximises the likelihood; the interval holds the ratings whose likelihood
    is within the 95% likelihood-ratio threshold of it, widened or narrowed by how much the
    games' scores actually varied (draws vary less than wins and losses). With every game won
    or lost there is no maximum: the interval is the bound on one side.

    Raises:
        ValueError: no games, a negative count, or an opponent without a rating.
    """
    names = [name for name, r in results.items() if sum(r) > 0]
    for name in names:
        if name not in ratings:
            raise ValueError(f"no rating for the opponent {name!r}")
        if min(results[name]) < 0:
            raise ValueError(f"{name}: negative counts {results[name]}")
    if not names:
        raise ValueError("no games to rate from")
    opp = np.array([ratings[name] for name in names], dtype=float)
    wins, draws, losses = (np.array([results[name][k] for name in names], float) for k in range(3))
    counts, points = wins + draws + losses, wins + draws / 2
    total, scored = float(counts.sum()), float(points.sum())
    low, high = float(opp.min()) - MAX_ELO, float(opp.max()) + MAX_ELO

    def loglik(r: float) -> float:
        e = np.clip(expected_score(r - opp), 1e-300, 1.0)
        f = np.clip(1.0 - expected_score(r - opp), 1e-300, 1.0)
        return float((points * np.log(e) + (counts - points) * np.log(f)).sum())

    if scored in (0.0, total):  # no maximum: only a bound, where the likelihood falls below
        edge, other = (high, low) if scored == total else (low, high)  # the 95% threshold of
        threshold = -Z95 * Z95 / 2  # the likelihood at infinity (1)
        end = _bisect(lambda r: loglik(r) - threshold, edge, other)
        interval = (end, math.inf) if scored == total else (-math.inf, end)
        return Rating(None, interval, int(total), scored / total)
    best = _bisect(lambda r: scored - float((counts * expected_score(r - opp)).sum()), low, high)
    e = expected_score(best - opp)
    variance = float((wins * (1 - e) ** 2 + draws * (0.5 - e) ** 2 + losses * e * e).sum())
    # One virtual win and one loss at even odds keep a few games of draws from claiming
    # that they vary not at all.
    dispersion = (variance + 0.5) / (float((counts * e * (1 - e)).sum()) + 0.5)
    threshold = loglik(best) - Z95 * Z95 * dispersion / 2
    lo = _bisect(lambda r: loglik(r) - threshold, best, low)
    hi = _bisect(lambda r: loglik(r) - threshold, best, high)
    return Rating(best, (lo, hi), int(total), scored / total)


def _bisect(f, inside: float, outside: float, steps: int = 100) -> float:  # type: ignore[no-untyped-def]
    """Returns where f changes sign between `inside` (f >= 0 there) and `outside`."""
    for _ in range(steps):
        middle = (inside + outside) / 2
        if f(middle) >= 0:
            inside = middle
        else:
            outside = middle
    return (inside + outside) / 2
