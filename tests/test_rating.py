"""Ratings on a reference pool: the maximum-likelihood fit, one player rated against fixed
ratings (bounds at the extremes), the adaptive schedule, ``damas rate`` and the shipped pools."""

from __future__ import annotations

import math

import numpy as np
import pytest

from damas_agents.rating import (
    Member,
    Pool,
    PoolError,
    available_pools,
    expected_score,
    fit_ratings,
    load_pool,
    rate,
    rate_against,
)
from damas_agents.rating.rate import BOUND_GAMES, _Schedule
from damas_agents.rating.rate import main as rate_main

TRUE = {"a": 0.0, "b": 140.0, "c": 310.0, "d": 450.0, "e": 620.0, "f": 900.0}


def _synthetic(
    ratings: dict[str, float], games: int, draw_rate: float, seed: int
) -> dict[tuple[str, str], tuple[int, int, int]]:
    """Returns every pair's results drawn from the Elo model with draws: a draw takes
    `draw_rate` of the lesser side's chances, so the expected score is the model's."""
    rng = np.random.default_rng(seed)
    names, results = list(ratings), {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            e = float(expected_score(ratings[a] - ratings[b]))
            draw = 2 * draw_rate * min(e, 1 - e)
            counts = rng.multinomial(games, [e - draw / 2, draw, 1 - e - draw / 2])
            results[a, b] = tuple(int(c) for c in counts)
    return results


@pytest.mark.parametrize("draw_rate", [0.0, 0.6])
def test_the_fit_recovers_known_ratings(draw_rate: float) -> None:
    """Synthetic results from known ratings: every fitted rating is within two of its
    interval's half-widths of the truth, and the 95% intervals hold it about 95% of the time
    (over repeated draws)."""
    covered, total = 0, 0
    for seed in range(20):
        results = _synthetic(TRUE, 200, draw_rate, seed)
        table = fit_ratings(list(TRUE), results, anchor="a")
        assert table.elo["a"] == 0.0 and table.ci["a"] == (0.0, 0.0)
        for name, truth in list(TRUE.items())[1:]:
            low, high = table.ci[name]
            assert 0 < high - low < 200 and abs(table.elo[name] - truth) < high - low, name
            covered += low <= truth <= high
            total += 1
    assert 0.88 <= covered / total <= 1.0, covered / total


def test_draws_narrow_the_intervals() -> None:
    plain = fit_ratings(list(TRUE), _synthetic(TRUE, 200, 0.0, 1), anchor="a")
    drawish = fit_ratings(list(TRUE), _synthetic(TRUE, 200, 0.7, 1), anchor="a")
    plain_width, drawish_width = (
        sum(hi - lo for lo, hi in t.ci.values()) for t in (plain, drawish)
    )
    assert drawish_width < 0.8 * plain_width


def test_the_anchor_sets_the_scale() -> None:
    results = _synthetic(TRUE, 100, 0.3, 2)
    zero = fit_ratings(list(TRUE), results, anchor="a")
    moved = fit_ratings(list(TRUE), results, anchor="c", anchor_elo=1000.0)
    for name in TRUE:
        shift = moved.elo[name] - zero.elo[name]
        assert shift == pytest.approx(1000.0 - zero.elo["c"], abs=1e-6)


def test_a_whitewash_in_the_pool_stays_finite() -> None:
    results = {("a", "b"): (0, 0, 50), ("b", "c"): (10, 20, 20)}
    table = fit_ratings(["a", "b", "c"], results, anchor="a")
    assert all(math.isfinite(x) for x in table.elo.values())
    assert table.elo["b"] > 400


def test_the_fit_refuses_results_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="no games link c"):
        fit_ratings(["a", "b", "c"], {("a", "b"): (1, 1, 1)}, anchor="a")
    with pytest.raises(ValueError, match="not one of the players"):
        fit_ratings(["a", "b"], {("a", "x"): (1, 1, 1)}, anchor="a")
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings(["a", "b"], {("a", "b"): (1, 1, 1)}, anchor="z")
    with pytest.raises(ValueError, match="negative"):
        fit_ratings(["a", "b"], {("a", "b"): (1, -1, 1)}, anchor="a")


# --- One player against fixed ratings -------------------------------------------------------


def test_rating_one_player_is_the_likelihood_maximum() -> None:
    pool = {"x": 0.0, "y": 200.0}
    rating = rate_against(pool, {"x": (30, 40, 10), "y": (10, 40, 30)})
    assert rating.elo == pytest.approx(100.0, abs=0.5)  # +10 net at each side of 100
    low, high = rating.ci
    assert low < 100 < high and rating.bound is None
    assert rating.games == 160 and rating.score == pytest.approx(0.5)
    e = expected_score(rating.elo - np.array([0.0, 200.0]))
    assert float((80 * e).sum()) == pytest.approx(80.0, abs=1e-6)  # expected = scored


def test_an_agent_that_wins_every_game_gets_a_lower_bound() -> None:
    rating = rate_against({"x": 0.0, "y": 300.0}, {"y": (20, 0, 0)})
    assert rating.elo is None and rating.bound == "lower"
    assert rating.ci[1] == math.inf and 300 < rating.ci[0] < 1000
    # The bound: where 20 straight wins become a 95% likelihood-ratio event.
    e = float(expected_score(rating.ci[0] - 300.0))
    assert 20 * math.log(e) == pytest.approx(-(1.959963984540054**2) / 2, abs=1e-6)
    assert "bound: every game won" in rating.text()
    more = rate_against({"x": 0.0, "y": 300.0}, {"y": (80, 0, 0)})
    assert more.ci[0] > rating.ci[0]  # more wins, a higher bound


def test_an_agent_that_loses_every_game_gets_an_upper_bound() -> None:
    rating = rate_against({"x": 0.0, "y": 300.0}, {"x": (0, 0, 20), "y": (0, 0, 4)})
    assert rating.elo is None and rating.bound == "upper"
    assert rating.ci[0] == -math.inf and rating.ci[1] < 0
    assert "bound: every game lost" in rating.text()


def test_rating_one_player_refuses_results_it_cannot_use() -> None:
    with pytest.raises(ValueError, match="no games"):
        rate_against({"x": 0.0}, {"x": (0, 0, 0)})
    with pytest.raises(ValueError, match="no rating for the opponent 'y'"):
        rate_against({"x": 0.0}, {"y": (1, 0, 0)})


# --- The adaptive schedule ------------------------------------------------------------------


def _pool(ratings: dict[str, float], variant: str = "english") -> Pool:
    members = tuple(Member(spec, elo, (elo - 20, elo + 20), 100) for spec, elo in ratings.items())
    return Pool(variant, "v1", next(iter(ratings)), members, {}, None, "test", 0.0, "test")


LADDER = {"random": 0.0, "greedy": 150.0, "alphabeta:depth=1": 800.0, "alphabeta:depth=2": 1000.0}


def test_the_schedule_starts_mid_pool_and_climbs_while_it_wins() -> None:
    schedule = _Schedule(_pool(LADDER))
    assert schedule.next_member() == 2  # the middle of four members
    for _ in range(2):
        schedule.add("alphabeta:depth=1", 1.0)
    assert schedule.next_member() == 3  # every game won: look above
    for _ in range(2):
        schedule.add("alphabeta:depth=2", 0.0)
    rating = schedule.rating()
    assert rating is not None and rating.elo is not None and 800 < rating.elo < 1000
    # Of the two members around the estimate, the one played less... both twice: the nearer.
    assert schedule.next_member() in (2, 3)
    schedule.add("alphabeta:depth=2", 0.5)
    assert schedule.next_member() == 2


def test_the_schedule_stops_at_the_interval_the_limit_or_a_bound() -> None:
    schedule = _Schedule(_pool(LADDER))
    assert schedule.stop(50, 0, 100) is None
    for _ in range(BOUND_GAMES - 1):
        schedule.add("alphabeta:depth=2", 1.0)
    assert schedule.stop(50, BOUND_GAMES - 1, 100) is None
    schedule.add("alphabeta:depth=2", 1.0)
    assert schedule.stop(50, BOUND_GAMES, 100) == "bound"
    even = _Schedule(_pool(LADDER))
    for score in [1.0, 0.0] * 3:
        even.add("greedy", score)
    assert even.stop(50, 6, 6) == "games"
    for score in [1.0, 0.0, 0.5, 0.5] * 200:
        even.add("greedy", score)
    assert even.stop(50, 806, 2000) == "interval"


# --- rate() and damas rate ------------------------------------------------------------------


def test_rate_plays_adaptively_and_reports_every_opponent() -> None:
    """An agent of the pool's own kind rated on a small pool of cheap agents: it meets the
    members around its estimate, and every game is accounted for."""
    pool = _pool(LADDER)
    result = rate("alphabeta:depth=1", pool=pool, games=8, seed=3)
    assert result.rating.games == 8 and len(result.records) == 8
    assert result.stopped in ("games", "interval", "bound")
    table = result.by_opponent()
    assert sum(sum(r) for r in table.values()) == 8
    assert set(table) <= set(LADDER)
    data = result.to_dict()
    assert data["games"] == 8 and data["pool"] == "v1" and data["anchor"] == "random"
    assert {o["spec"] for o in data["opponents"]} == set(table)
    assert result.pdn().count("[Event ") == 8
    text = result.summary()
    assert "alphabeta:depth=1 on the english pool v1 (random = 0)" in text
    again = rate("alphabeta:depth=1", pool=pool, games=8, seed=3)
    assert [r.pdn for _, r in again.records] == [r.pdn for _, r in result.records]


def test_rate_refuses_bad_arguments_before_any_game() -> None:
    with pytest.raises(PoolError, match="no rating pool v1 for 'russian'"):
        rate("random", variant="russian")
    with pytest.raises(ValueError, match="ci must be"):
        rate("random", pool=_pool(LADDER), ci=0)
    with pytest.raises(ValueError, match="games"):
        rate("random", pool=_pool(LADDER), games=1)
    with pytest.raises(ValueError):
        rate("alphabeta:depth=x", pool=_pool(LADDER))
    with pytest.raises(PoolError, match="rates agents of the standard english rules"):
        rate("random", variant="international", pool=_pool(LADDER))


def test_damas_rate_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert rate_main(["random", "--variant", "russian", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("damas rate: error: no rating pool v1 for 'russian'")
    with pytest.raises(SystemExit):
        rate_main(["random", "--ci", "-5"])
    assert "--ci: must be a number of Elo" in capsys.readouterr().err


def test_load_pool_takes_names_never_paths() -> None:
    for bad in ("../english", "/etc/passwd", "english.json", ""):
        with pytest.raises(PoolError, match="not a pool name"):
            load_pool(bad)
    with pytest.raises(PoolError, match="not a pool name"):
        load_pool("english", version="../v1")


def test_rate_in_worker_processes_depends_on_the_seed_not_the_timing() -> None:
    pool = _pool(LADDER)
    runs = [rate("alphabeta:depth=1", pool=pool, games=6, seed=4, workers=2) for _ in range(2)]
    assert [r.pdn for _, r in runs[0].records] == [r.pdn for _, r in runs[1].records]
    assert runs[0].rating.games == 6


# --- The shipped pools ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["english", "international"])
def test_a_shipped_pool_is_its_own_games_fitted(variant: str) -> None:
    """The table shipped is what a fit of its own results gives: random = 0, members from
    weakest to strongest, each fixed by depth or simulations and playable on its variant."""
    from damas_agents.players.make import make_agent
    from damas_env.rules import get_ruleset

    assert variant in available_pools()
    pool = load_pool(variant)
    specs = [m.spec for m in pool.members]
    assert pool.anchor == "random" and specs[0] in ("random", "greedy")
    assert [m.elo for m in pool.members] == sorted(m.elo for m in pool.members)
    table = fit_ratings(specs, pool.results, anchor="random")
    for member in pool.members:
        assert member.elo == pytest.approx(table.elo[member.spec], abs=1e-6)
        assert member.ci == pytest.approx(table.ci[member.spec], abs=1e-6)
        assert member.games == table.games[member.spec] > 0
    assert pool.ratings()["random"] == 0.0
    assert pool.command.startswith(f"python benchmarks/rating_pool.py {variant}")
    assert pool.seconds > 0 and pool.max_plies
    rules = get_ruleset(variant)
    for spec in specs:
        getattr(make_agent(spec, seed=0, rules=rules), "close", lambda: None)()


def test_neighbours_in_a_table_are_placed_closer_than_the_anchor_places_them() -> None:
    """difference_ci: two players far from the anchor are compared within their own games'
    precision, not the sum of both intervals on the anchor's scale."""
    results = _synthetic(TRUE, 200, 0.3, seed=5)
    chain = {k: v for k, v in results.items() if ord(k[1]) - ord(k[0]) == 1}
    table = fit_ratings(list(TRUE), chain, anchor="a")
    low, high = table.difference_ci("f", "e")
    assert low < table.elo["f"] - table.elo["e"] < high
    assert high - low < 0.7 * (table.ci["f"][1] - table.ci["f"][0])
    assert table.difference_ci("b", "a") == pytest.approx((table.ci["b"][0], table.ci["b"][1]))
