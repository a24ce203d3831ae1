"""Random, greedy and alpha-beta agents: legal play, known shots, limits, symmetry, strength.

Diagrams: ``w``/``b`` men, ``W``/``B`` kings, ``.`` an empty dark square; the numbers on the
right are the PDN squares of each row (White moves up, Black down)::

     8x8 neighbours of n: rows 1-4, 9-12, ...:   up n-4, n-3; down n+4, n+5
                          rows 5-8, 13-16, ...:  up n-5, n-4; down n+3, n+4
    10x10 neighbours of n: rows 1-5, 11-15, ...: up n-5, n-4; down n+5, n+6
                           rows 6-10, 16-20, ...: up n-6, n-5; down n+4, n+5
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from damas_agents.players.base import Agent, play_hop
from damas_agents.players.classic import (
    AlphaBetaAgent,
    GreedyAgent,
    RandomAgent,
    king_value,
    material_gain,
)
from damas_agents.search.alphabeta import (
    FLAG_EXACT,
    FLAG_LOWER,
    FLAG_UPPER,
    INF,
    LMR_DEPTH,
    MATE,
    MAX_DEPTH,
    MAX_PLY,
    O_CROWN,
    O_KILLER,
    O_TT,
    QS_PLIES,
    S_ABORT,
    S_GEN,
    S_NODES,
    S_PROBING,
    S_STOP,
    T_NO_MOVE,
    Searcher,
    _probe,
    _reduction,
    _store,
    new_search,
    next_search,
    piece_square_table,
    search_plan,
    search_root,
)
from damas_env import Move, Position, draughts_v0, get_ruleset
from damas_env import kernels as K
from damas_env.draughts_v0 import IllegalActionError
from damas_env.kernels import MOVE_WIDTH

VARIANTS = ["english", "international", "russian"]


# --- Helpers ---------------------------------------------------------------------------------


def random_positions(variant: str, count: int, seed: int) -> list[Position]:
    """Returns positions met in seeded random games (game over: a new game starts)."""
    rng = np.random.default_rng(seed)
    positions, position = [], Position.start(variant)
    while len(positions) < count:
        moves = position.legal_moves()
        if not moves:
            position = Position.start(variant)
            continue
        positions.append(position)
        position = position.play(moves[int(rng.integers(len(moves)))])
    return positions


def flipped(position: Position) -> Position:
    """Returns the position with the colours swapped: board turned 180 degrees, other side."""
    return Position(position.rules, position.board[::-1] * -1, position.turn.opponent)


def play_game(variant: str, agents: dict[str, Agent], max_plies: int = 300) -> dict[str, float]:
    """Plays one game through draughts_v0 hop by hop; returns each player's final reward.

    The env raises IllegalActionError on any illegal hop, so a finished game is a legal one.
    """
    env = draughts_v0.env(variant, max_plies=max_plies)
    env.reset()
    for agent in agents.values():
        agent.reset()
    rewards: dict[str, float] = {}
    for name in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            rewards[name] = reward
            env.step(None)
        else:
            env.step(play_hop(agents[name], env))
    return rewards


def pdn(position: Position, move: Move) -> str:
    """Returns a legal move's PDN string."""
    return str(position.find_move(move))


def legal_names(position: Position) -> set[str]:
    """Returns the legal moves as PDN strings."""
    return {str(m) for m in position.legal_moves()}


# --- Construction and the protocol ------------------------------------------------------------


def test_agents_follow_the_protocol_and_are_named() -> None:
    agents = [RandomAgent(0), GreedyAgent(0), AlphaBetaAgent(depth=4)]
    assert all(isinstance(a, Agent) for a in agents)
    assert [a.name for a in agents] == ["random", "greedy", "alphabeta:depth=4"]
    assert AlphaBetaAgent(nodes=1000, time=0.5).name == "alphabeta:nodes=1000,time=0.5"


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"depth": 0}, {"depth": -2}, {"nodes": 0}, {"time": 0.0}, {"time": -1.0}, {"depth": 2.5}],
)
def test_alphabeta_needs_positive_limits(kwargs: dict) -> None:
    with pytest.raises(ValueError, match="limit|positive|int"):
        AlphaBetaAgent(**kwargs)


@pytest.mark.parametrize("time", [5e-324, 1e-9, 0.0009])
def test_alphabeta_time_is_at_least_a_millisecond(time: float) -> None:
    """A denormal budget only means "no time": refused built from Python as from a spec."""
    with pytest.raises(ValueError, match="time must be at least 0.001 s"):
        AlphaBetaAgent(time=time)


def test_random_agent_reproducible_per_seed_and_reset_keeps_the_stream() -> None:
    mask = {"action_mask": np.ones(50, dtype=np.int8)}
    a, b = RandomAgent(seed=3), RandomAgent(seed=3)
    first = [a.act(mask) for _ in range(5)]
    a.reset()
    b.reset()
    assert first == [b.act(mask) for _ in range(5)]
    assert [a.act(mask) for _ in range(5)] == [b.act(mask) for _ in range(5)]
    with pytest.raises(ValueError, match="no action"):
        a.act({"action_mask": np.zeros(50, dtype=np.int8)})


def test_greedy_takes_the_most_material() -> None:
    # White to move must capture (English): 15x6 takes a king, 15x8 and 16x7 a man.
    #   b   .   .   .    1-4
    # .   .   .   .      5-8
    #   .   B   b   .    9-12
    # .   .   w   w     13-16
    #   (rest empty)
    position = Position.from_fen("W:W15,16:BK10,11,1", "english")
    assert legal_names(position) == {"15x6", "15x8", "16x7"}
    for seed in range(5):
        assert pdn(position, GreedyAgent(seed).choose(position)) == "15x6"


@pytest.mark.parametrize("variant", ["english_giveaway", "international_giveaway"])
def test_greedy_and_alphabeta_weigh_pieces_by_the_engine_table(variant: str) -> None:
    rules = get_ruleset(variant)
    values = K.piece_values(rules.flying_kings)
    assert king_value(rules) == values[2 + 2] / K.MAN_VALUE == (2.5 if rules.flying_kings else 1.5)
    assert (piece_square_table(rules) == -values[:, None]).all()  # giveaway: material only


# --- Never an illegal move --------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_chosen_moves_are_legal_in_random_positions(variant: str) -> None:
    agents = [GreedyAgent(seed=1), AlphaBetaAgent(depth=2, seed=1), AlphaBetaAgent(nodes=300)]
    for position in random_positions(variant, 60, seed=7):
        legal = position.legal_moves()
        for agent in agents:
            assert agent.choose(position) in legal, (agent.name, position.fen())


@pytest.mark.parametrize("variant", [*VARIANTS, "english_giveaway"])
def test_hops_played_through_the_env_are_legal(variant: str) -> None:
    pairings: list[tuple[Agent, Agent]] = [
        (AlphaBetaAgent(depth=2, seed=0), RandomAgent(seed=0)),
        (GreedyAgent(seed=1), AlphaBetaAgent(nodes=2000, seed=1)),
    ]
    hops_inside_captures = 0
    for pairing in pairings:
        env = draughts_v0.env(variant, max_plies=200)
        env.reset()
        players = dict(zip(env.possible_agents, pairing, strict=True))
        for name in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            hops_inside_captures += len(env.unwrapped.hops_played) > 0
            try:
                env.step(play_hop(players[name], env))
            except IllegalActionError as error:  # pragma: no cover - the failure message
                pytest.fail(f"{players[name].name} played an illegal hop: {error}")
    if variant in ("international", "russian"):
        assert hops_inside_captures > 0  # multi-captures were played hop by hop


# --- Known shots ------------------------------------------------------------------------------


def test_english_double_sacrifice_shot() -> None:
    # White to move. 15-10! 6x15 (forced), 21-17! 13x22 (forced), 25x18x11x4: three men for
    # two and a king. Depth 1 sees only the first man lost; the shot needs depth 3.
    #
    #   .   .   b   .    1-4
    # .   b   .   b      5-8
    #   .   .   .   .    9-12
    # b   .   w   .     13-16
    #   .   .   .   .   17-20
    # w   .   .   .     21-24
    #   w   .   .   .   25-28
    # w   .   .   .     29-32
    position = Position.from_fen("W:W15,21,25,29:B3,6,8,13", "english")
    assert legal_names(position) == {"15-10", "15-11", "21-17", "25-22"}
    line = ["15-10", "6x15", "21-17", "13x22", "25x4"]
    after = position
    for text in line:
        after = after.play(text)
    assert after.fen() == "B:WK4,29:B3"

    shallow = AlphaBetaAgent(depth=1, seed=0).search(position)
    assert pdn(position, shallow.move) != "15-10"
    assert {material_gain(position, m) for m in position.legal_moves()} == {0.0}  # greedy: blind
    for depth in (3, 5):
        result = AlphaBetaAgent(depth=depth, seed=0).search(position)
        assert pdn(position, result.move) == "15-10"
        assert result.score > 100  # a man up at least
    assert [str(m) for m in AlphaBetaAgent(depth=5).search(position).pv] == line


def test_international_double_sacrifice_shot() -> None:
    # White to move. 18-12! 7x18 (forced), 26-21! 16x27 (forced), 31x22x13x4: White's man
    # takes three and crowns. The same coup on 10x10, where men also take backwards.
    #
    #   .   .   b   .   .    1-5
    # .   b   .   b   .      6-10
    #   .   .   .   .   .   11-15
    # b   .   w   .   .     16-20
    #   .   .   .   .   .   21-25
    # w   .   .   .   .     26-30
    #   w   .   .   .   .   31-35
    # w   .   .   .   .     36-40
    #   .   .   .   .   .   41-45
    # .   .   .   .   .     46-50
    position = Position.from_fen("W:W18,26,31,36:B3,7,9,16", "international")
    assert legal_names(position) == {"18-12", "18-13", "26-21", "31-27"}
    line = ["18-12", "7x18", "26-21", "16x27", "31x4"]
    after = position
    for text in line:
        after = after.play(text)
    assert after.fen() == "B:WK4,36:B3"

    assert pdn(position, AlphaBetaAgent(depth=1, seed=0).choose(position)) != "18-12"
    for depth in (3, 6):
        result = AlphaBetaAgent(depth=depth, seed=0).search(position)
        assert pdn(position, result.move) == "18-12"
        assert result.score > 100
    assert [str(m) for m in AlphaBetaAgent(depth=5).search(position).pv] == line


def test_mate_in_one_found_at_depth_one() -> None:
    # White's king steps to 32 and Black's last man (28) has no move left: Black loses (EDA).
    #   (rows 1-20 empty)
    # w   .   .   .     21-24
    #   .   .   W   b   25-28
    # .   .   .   .     29-32
    position = Position.from_fen("W:W21,K27:B28", "english")
    for depth in (1, 2, 4):
        result = AlphaBetaAgent(depth=depth).search(position)
        assert pdn(position, result.move) == "27-32"
        assert result.score == MATE - 1 and result.mate_in == 1
    assert not position.play("27-32").legal_moves()


def test_giveaway_search_gives_pieces_away() -> None:
    # White to move. 22-17 offers a man (13x22); 22-18, 32-27 and 32-28 keep it. In English
    # search avoids the loss; in giveaway, where a side left without a move wins, it seeks it.
    #   .   .   .   .    1-4
    # b   .   .   .      5-8     (the man on 5 is Black's second piece)
    #   .   .   .   .    9-12
    # b   .   .   .     13-16
    #   .   .   .   .   17-20
    # .   w   .   .     21-24
    #   .   .   .   .   25-28
    # .   .   .   w     29-32
    fen = "W:W22,32:B5,13"
    for depth in (1, 2, 4):
        normal = Position.from_fen(fen, "english")
        giveaway = Position.from_fen(fen, "english_giveaway")
        assert pdn(normal, AlphaBetaAgent(depth=depth, seed=0).choose(normal)) != "22-17"
        assert pdn(giveaway, AlphaBetaAgent(depth=depth, seed=0).choose(giveaway)) == "22-17"
    # The mate in one above, in giveaway: 27-32 leaves Black without a move, so Black wins.
    lone = Position.from_fen("W:W21,K27:B28", "english_giveaway")
    for depth in (1, 3):
        assert pdn(lone, AlphaBetaAgent(depth=depth).choose(lone)) != "27-32"


# --- Limits, determinism, symmetry ------------------------------------------------------------


def test_node_limit_is_respected() -> None:
    position = Position.start("international")
    for nodes in (50, 5_000, 40_000):
        result = AlphaBetaAgent(nodes=nodes).search(position)
        assert result.nodes <= nodes and result.move in position.legal_moves()
    assert AlphaBetaAgent(nodes=40_000).search(position).depth >= 4


def test_time_limit_is_respected() -> None:
    agent = AlphaBetaAgent(time=0.25)
    for position in random_positions("english", 4, seed=2):
        result = agent.search(position)
        assert result.seconds < 0.25 * 2 + 0.1  # generous: other processes share the CPU
        assert result.depth >= 3 or len(position.legal_moves()) == 1


def test_search_reports_depth_nodes_and_a_legal_principal_variation() -> None:
    position = Position.start("english")
    result = AlphaBetaAgent(depth=6).search(position)
    assert result.depth == 6 and result.nodes > 100 and result.seconds > 0
    assert result.pv[0] == result.move and 1 <= len(result.pv) <= 6
    for move in result.pv:  # the line is playable
        position = position.play(move)


def test_depth_limited_play_is_deterministic_for_a_seed() -> None:
    def moves(seed: int) -> list[str]:
        agent, played = AlphaBetaAgent(depth=3, seed=seed), []
        for position in random_positions("international", 25, seed=11):
            played.append(str(agent.choose(position)))
        return played

    assert moves(5) == moves(5)
    greedy = [GreedyAgent(seed=4).choose(p) for p in random_positions("russian", 20, 3)]
    assert greedy == [GreedyAgent(seed=4).choose(p) for p in random_positions("russian", 20, 3)]


def test_root_ties_are_broken_among_equal_best_scores_only() -> None:
    # 21-17 and 22-18 both advance a man one row and one column away from the edge: the same
    # score. 22-17 moves towards the edge: worse. Seeds pick among the two best only.
    #   .   .   b   .    1-4
    #   (rows 5-20 empty)
    # w   w   .   .     21-24
    #   (rows 25-32 empty)
    position = Position.from_fen("W:W21,22:B3", "english")
    chosen = {pdn(position, AlphaBetaAgent(depth=1, seed=s).choose(position)) for s in range(12)}
    assert chosen == {"21-17", "22-18"}
    evaluate = AlphaBetaAgent(depth=1).evaluate
    assert evaluate(position.play("21-17")) == evaluate(position.play("22-18"))
    assert evaluate(position.play("22-17")) > evaluate(position.play("22-18"))  # Black's view


@pytest.mark.parametrize("variant", [*VARIANTS, "international_giveaway"])
def test_evaluation_is_colour_symmetric(variant: str) -> None:
    agent = AlphaBetaAgent(depth=2)
    for position in random_positions(variant, 40, seed=5):
        mirror = flipped(position)
        # Side to move's view: the same; White's view: opposite signs.
        assert agent.evaluate(position) == agent.evaluate(mirror)
        white = agent.evaluate(position) * (1 if position.turn == 0 else -1)
        assert white == -agent.evaluate(mirror) * (1 if mirror.turn == 0 else -1)
        if position.legal_moves():
            assert agent.search(position).score == agent.search(mirror).score


def minimax(agent: AlphaBetaAgent, position: Position, depth: int, ply: int) -> int:
    """Returns the plain negamax score the search should find: every move, no pruning, the
    same quiescence (captures searched on past depth 0) and the same scoring of ends."""
    moves = position.legal_moves()
    if not moves:
        return MATE - ply if position.rules.giveaway else -(MATE - ply)
    if depth <= 0 and (not moves[0].is_capture or depth <= -QS_PLIES):
        return agent.evaluate(position)
    return max(-minimax(agent, position.play(m), depth - 1, ply + 1) for m in moves)


@pytest.mark.parametrize("variant", ["english", "international_giveaway", "russian"])
def test_alphabeta_finds_the_minimax_score(variant: str) -> None:
    # Positions without kings: no position can recur on a line, so the table only ever
    # supplies results of the same depth and pruning must not change the score.
    agent = AlphaBetaAgent(depth=3)
    for position in random_positions(variant, 24, seed=13)[::3]:
        if (np.abs(position.board) == 2).any() or not position.legal_moves():
            continue
        for depth in (1, 2, 3):
            expected = max(
                -minimax(agent, position.play(m), depth - 1, 1) for m in position.legal_moves()
            )
            assert AlphaBetaAgent(depth=depth).search(position).score == expected


def root_scores(searcher: Searcher, position: Position, depth: int, guess: int) -> list[int]:
    """Returns the root moves' scores of one iteration at `depth` from fresh tables, the first
    move searched in an aspiration window around `guess`."""
    searcher._new_search()
    root, n = searcher._root_moves(position)
    board, side = position.board.copy(), int(position.turn)
    h = np.uint64(searcher._engine.hash(board, side))
    stats = searcher.tables.stats
    stats[S_NODES], stats[S_STOP], stats[S_ABORT] = 0, 1 << 62, 0
    order, scores = np.arange(n, dtype=np.int64), np.full(n, -INF - 1, dtype=np.int64)
    best, done = search_root(board, side, h, depth, root, order, scores, guess, searcher.tables)
    assert done == n and stats[S_ABORT] == 0
    assert (board == position.board).all()
    return [int(best)] + [int(v) if v >= best else -INF for v in scores]


@pytest.mark.parametrize("variant", ["english", "international"])
def test_aspiration_windows_do_not_change_the_root_scores(variant: str) -> None:
    # The first root move is searched in a window around the guess and searched again wider
    # when it fails: a guess far too high or too low costs time, never the result. Every move
    # scoring at least the best is exact (the ties the agent draws among).
    searcher = Searcher(get_ruleset(variant), tt_bits=16)
    for position in random_positions(variant, 12, seed=21)[::2]:
        if not position.legal_moves():
            continue
        exact = root_scores(searcher, position, 4, -INF)
        for guess in (exact[0] - 900, exact[0] - 31, exact[0], exact[0] + 45, exact[0] + 2000):
            assert root_scores(searcher, position, 4, guess) == exact


def test_late_move_reductions_spare_the_moves_that_matter() -> None:
    # Search version 2 (Scan's) reduces a quiet move after the first in a null window, two
    # plies from the sixth; in the principal variation (a window wider than one) from the
    # third, one ply.
    plan, quiet = search_plan(2), O_KILLER[0]  # a killer's ordering score: like history's
    assert _reduction(LMR_DEPTH, 1, True, quiet, 1, 0, plan) == 1
    assert _reduction(LMR_DEPTH, 5, True, quiet, 1, 0, plan) == 1
    assert _reduction(LMR_DEPTH, 6, True, quiet, 1, 0, plan) == 2
    assert _reduction(LMR_DEPTH, 3, True, quiet, 50, 0, plan) == 1
    assert _reduction(LMR_DEPTH, 6, True, quiet, 50, 0, plan) == 1
    # Never: captures (then every move captures), the table's move, crowning, the first
    # moves of the principal variation, the last plies.
    assert _reduction(LMR_DEPTH, 6, False, quiet, 1, 0, plan) == 0
    assert _reduction(LMR_DEPTH, 6, True, O_TT, 1, 0, plan) == 0
    assert _reduction(LMR_DEPTH, 6, True, O_CROWN, 1, 0, plan) == 0
    assert _reduction(LMR_DEPTH, 2, True, quiet, 50, 0, plan) == 0
    assert _reduction(LMR_DEPTH - 1, 6, True, quiet, 1, 0, plan) == 0


def test_the_first_search_version_reduces_as_it_always_did() -> None:
    # Version 1 (the rating pool v1's): null windows only, from the fourth move, killers
    # spared; two plies from the ninth move at depth 5 or more.
    plan = search_plan(1)
    history = O_KILLER[1] - 1
    assert [_reduction(LMR_DEPTH, k, True, history, 1, 0, plan) for k in range(1, 5)] == [
        0,
        0,
        1,
        1,
    ]
    assert _reduction(LMR_DEPTH, 8, True, history, 1, 0, plan) == 1
    assert _reduction(LMR_DEPTH + 2, 8, True, history, 1, 0, plan) == 2
    assert _reduction(LMR_DEPTH + 2, 8, True, O_KILLER[1], 1, 0, plan) == 0
    assert _reduction(LMR_DEPTH + 2, 8, True, history, 50, 0, plan) == 0


@pytest.mark.parametrize("variant", ["english", "international"])
def test_a_search_cut_short_inside_probcut_leaves_no_trace(variant: str) -> None:
    # Node budgets that run out anywhere, ProbCut's shallow searches included: the flag that
    # keeps them from nesting is down after every search, so the next search, with the same
    # tables, finds what a fresh searcher finds.
    positions = random_positions(variant, 6, seed=5)
    searcher = Searcher(positions[0].rules)
    for position in positions:
        if not position.legal_moves():
            continue
        for nodes in (40, 333, 2_000, 9_999):
            searcher.search(position, nodes=nodes)
            assert searcher.tables.stats[S_PROBING] == 0
        result = searcher.search(position, depth=5)
        fresh = Searcher(position.rules).search(position, depth=5)
        assert (result.move, result.score, result.nodes) == (fresh.move, fresh.score, fresh.nodes)


def test_move_lists_grow_when_a_position_has_more_moves_than_they_hold() -> None:
    position = Position.start("international")
    expected = Searcher(position.rules).search(position, depth=4)
    searcher = Searcher(position.rules)
    tiny = np.zeros((MAX_PLY, 2, MOVE_WIDTH), dtype=np.int16)  # overflows at once
    searcher.tables = searcher.tables._replace(buffers=tiny)
    result = searcher.search(position, depth=4)
    assert searcher.tables.buffers.shape[1] > 9  # grown to hold the 9 moves of a ply
    assert (result.move, result.score) == (expected.move, expected.score)


# --- The transposition table ------------------------------------------------------------------


@njit
def _store_and_probe(t, h, depth, ply, score, flag, move, at_ply, alpha, beta):  # type: ignore[no-untyped-def]
    """Stores a result of position h, then probes it from `at_ply` in (alpha, beta)."""
    _store(t, np.uint64(h), depth, ply, score, flag, move)
    return _probe(t, np.uint64(h), depth, at_ply, alpha, beta)


@njit
def _probe_only(t, h, depth, ply, alpha, beta):  # type: ignore[no-untyped-def]
    return _probe(t, np.uint64(h), depth, ply, alpha, beta)


def test_table_entries_keep_every_field() -> None:
    t = Searcher(get_ruleset("english"), tt_bits=8).tables
    new_search(t)
    h = (1 << 62) + 12345  # hashes are below 2**63
    for score in (0, 1, -1, 12_345, -12_345, MATE - 200, -(MATE - 200)):
        for depth in (1, 7, MAX_DEPTH):
            for move in (0, 17, T_NO_MOVE - 1):
                new_search(t)  # a new generation: a deeper entry of h would be kept
                found = _store_and_probe(t, h, depth, 3, score, FLAG_EXACT, move, 3, -INF, INF)
                assert found == (move, True, score)
    for move in (T_NO_MOVE, 70_000, -1):  # rows too high to keep, or none: no best move
        new_search(t)
        assert _store_and_probe(t, h, 4, 0, 9, FLAG_EXACT, move, 0, -INF, INF)[0] == -1


def test_table_bounds_settle_only_outside_the_window() -> None:
    t = Searcher(get_ruleset("english"), tt_bits=8).tables
    h = 987_654_321
    for flag, window, settles in (
        (FLAG_LOWER, (0, 50), True),  # at least 50 >= beta
        (FLAG_LOWER, (0, 51), False),
        (FLAG_UPPER, (50, 90), True),  # at most 50 <= alpha
        (FLAG_UPPER, (49, 90), False),
    ):
        new_search(t)
        move, settled, _ = _store_and_probe(t, h, 5, 0, 50, flag, 3, 0, *window)
        assert (move, settled) == (3, settles)
    # A shallower search is not settled by the entry, but gets its best move.
    assert _probe_only(t, h, 6, 0, -INF, INF) == (3, False, 0)


def test_table_wins_count_their_distance_from_the_node() -> None:
    t = Searcher(get_ruleset("english"), tt_bits=8).tables
    new_search(t)
    # A win 6 plies after a node at ply 4 (MATE - 10 from the root) is MATE - 8 from ply 2.
    assert _store_and_probe(t, 77, 3, 4, MATE - 10, FLAG_EXACT, 0, 2, -INF, INF)[2] == MATE - 8
    new_search(t)
    assert _store_and_probe(t, 77, 3, 4, -(MATE - 10), FLAG_EXACT, 0, 2, -INF, INF)[2] == -(
        MATE - 8
    )


def test_table_entries_last_the_game_not_the_next_one() -> None:
    t = Searcher(get_ruleset("english"), tt_bits=8).tables
    new_search(t)
    _store_and_probe(t, 5, 4, 0, 21, FLAG_EXACT, 2, 0, -INF, INF)
    assert _probe_only(t, 5 + (1 << 8), 4, 0, -INF, INF) == (-1, False, 0)  # same slot
    next_search(t)  # a later move of the same game
    assert _probe_only(t, 5, 4, 0, -INF, INF) == (2, True, 21)
    generation = int(t.stats[S_GEN])
    new_search(t)  # a new game: every entry is stale
    assert t.stats[S_GEN] == generation + 1
    assert _probe_only(t, 5, 4, 0, -INF, INF) == (-1, False, 0)


# --- Strength ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_alphabeta_depth_4_beats_random_in_english() -> None:
    alphabeta, random_agent = AlphaBetaAgent(depth=4, seed=0), RandomAgent(seed=1)
    score = 0.0
    for game in range(100):
        players = [alphabeta, random_agent] if game % 2 == 0 else [random_agent, alphabeta]
        rewards = play_game("english", {"player_0": players[0], "player_1": players[1]})
        mine = rewards["player_0" if game % 2 == 0 else "player_1"]
        score += (mine + 1) / 2
    assert score >= 95, f"alpha-beta depth 4 scored {score}/100 against random"
