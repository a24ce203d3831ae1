"""The learned evaluation inside alpha-beta (damas_agents.search.nnue,
damas_agents.models.evalnet) and its self-play trainer (damas_agents.training.nnue)."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
import torch
from helpers import ONE_PER_BOARD_SIZE, tiny_config

from damas_agents.arena import play_match
from damas_agents.models.checkpoint import load_network, read_checkpoint, save_checkpoint
from damas_agents.models.config import apply_overrides
from damas_agents.models.evalnet import EvalNet, features, other_view
from damas_agents.players.classic import AlphaBetaAgent
from damas_agents.players.load import (
    PRETRAINED,
    PRETRAINED_VERSIONS,
    load_agent,
    network_agent,
    pretrained_path,
)
from damas_agents.players.make import make_agent
from damas_agents.search import alphabeta as AB
from damas_agents.search.alphabeta import TEMPO, Searcher, piece_square_table, with_network
from damas_agents.search.nnue import (
    NetWeights,
    full_accumulator,
    layer_products,
    move_accumulator,
    net_value,
    pack_network,
    pst_weights,
    search_advance,
    search_refresh,
    search_weights,
    static_net_score,
    static_search_score,
)
from damas_agents.training.nnue import NNUETrainer
from damas_agents.training.resume import restore_trainer
from damas_agents.training.train import run_training
from damas_env import Position, get_ruleset
from damas_env import kernels as K
from damas_env.engine import Engine


def _random_net(rules, seed: int = 1, hidden: int = 16, hidden2: int = 8) -> EvalNet:
    """A network with every weight random (w3 too), so every layer counts."""
    net = EvalNet(rules.squares, hidden, hidden2)
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in net.parameters():
            p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
    return net


def _positions(rules, count: int, seed: int) -> list[Position]:
    """Positions from seeded random games (kings appear in the longer ones)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        p = Position.start(rules)
        for _ in range(int(rng.integers(0, 120))):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(moves[int(rng.integers(len(moves)))])
        out.append(p)
    return out


def _numba_values(weights: NetWeights, board: np.ndarray, side: int) -> float:
    acc = np.zeros((2, weights.hidden + 1), np.float32)
    x = np.zeros(2 * weights.hidden, np.float32)
    full_accumulator(board, weights.w1, weights.b1, acc)
    return float(net_value(acc, side, weights.w2, weights.b2, weights.w3, weights.b3, x))


def _mirror(p: Position) -> Position:
    """Colours swapped, board turned 180 degrees, the other side to move."""
    return Position(p.rules, (-p.board[::-1]).astype(np.int8), 1 - int(p.turn))


@pytest.mark.parametrize("variant", ONE_PER_BOARD_SIZE)
def test_numba_and_torch_agree(variant: str) -> None:
    rules = get_ruleset(variant)
    net = _random_net(rules)
    weights = net.weights()
    positions = _positions(rules, 60, seed=3)
    boards = np.stack([p.board for p in positions])
    sides = np.array([int(p.turn) for p in positions])
    torch_values = net.scores(boards, sides) / 100.0
    numba_values = [_numba_values(weights, p.board, int(p.turn)) for p in positions]
    assert np.abs(torch_values - numba_values).max() < 1e-5
    assert np.ptp(torch_values) > 0.1  # the positions do differ


@pytest.mark.parametrize("variant", ONE_PER_BOARD_SIZE)
def test_mirrored_position_has_the_negated_value(variant: str) -> None:
    rules = get_ruleset(variant)
    searcher = Searcher(rules, tt_bits=8, weights=_random_net(rules, seed=2).weights())
    for p in _positions(rules, 40, seed=4):
        m = _mirror(p)
        # the same value for the side to move is the negated value from White's view
        assert searcher.evaluate(m) == searcher.evaluate(p)
        white = searcher.evaluate(p) * (1 if int(p.turn) == 0 else -1)
        white_m = searcher.evaluate(m) * (1 if int(m.turn) == 0 else -1)
        assert white_m == -white


@pytest.mark.parametrize("variant", ONE_PER_BOARD_SIZE)
def test_incremental_accumulators_equal_full_ones(variant: str) -> None:
    """Every legal move (captures, crownings, king moves) of positions from random games."""
    rules = get_ruleset(variant)
    w = _random_net(rules, seed=5).weights()
    engine_moves = K.new_move_buffer()
    ws = K.new_workspace(rules.board_size)
    e = Engine.for_rules(rules)
    checked, captures, crowns = 0, 0, 0
    for p in _positions(rules, 80, seed=6):
        board, side = p.board.copy(), int(p.turn)
        parent = np.zeros((2, w.hidden + 1), np.float32)
        child = np.zeros_like(parent)
        full = np.zeros_like(parent)
        full_accumulator(board, w.w1, w.b1, parent)
        n = K.generate_moves(board, side, e.ray, e.rule_array, engine_moves, True, ws)
        for i in range(n):
            move_accumulator(board, engine_moves, i, w.w1, parent, child)
            K.apply_move(board, engine_moves, i)
            full_accumulator(board, w.w1, w.b1, full)
            K.undo_move(board, engine_moves, i)
            np.testing.assert_allclose(child, full, atol=1e-4)
            checked += 1
            captures += int(engine_moves[i, K.M_NCAP] > 0)
            crowns += int(engine_moves[i, K.M_CROWN] == 1)
    assert checked > 150 and captures > 10
    assert crowns > 0 or rules.board_size == 12  # random play rarely crowns on 12x12


def test_search_with_the_table_network_is_the_classical_search() -> None:
    """A fresh network evaluates as the piece-square table: same scores, same tree."""
    rules = get_ruleset("english")
    weights = pst_weights(piece_square_table(rules), TEMPO, 16, 8)
    plain, learned = Searcher(rules, tt_bits=16), Searcher(rules, tt_bits=16, weights=weights)
    for p in _positions(rules, 10, seed=7):
        if not p.legal_moves():
            continue
        assert plain.evaluate(p) == learned.evaluate(p)
        a, b = plain.search(p, depth=5), learned.search(p, depth=5)
        assert (a.score, a.nodes, a.move) == (b.score, b.nodes, b.move)


def test_features_turn_the_board_for_black() -> None:
    rules = get_ruleset("english")
    p = _positions(rules, 1, seed=8)[0]
    own = features(p.board[None], np.array([int(p.turn)]))
    m = _mirror(p)
    own_m = features(m.board[None], np.array([int(m.turn)]))
    other, other_m = (other_view(rules.squares)[f[0]] for f in (own, own_m))
    assert sorted(own[0]) == sorted(own_m[0]) and sorted(other) == sorted(other_m)


@pytest.mark.parametrize("variant", ONE_PER_BOARD_SIZE)
def test_the_other_view_is_the_features_renumbered(variant: str) -> None:
    # The other side's view of a board is its own view when it is to move.
    rules = get_ruleset(variant)
    positions = _positions(rules, 30, seed=4)
    boards = np.stack([p.board for p in positions])
    sides = np.array([int(p.turn) for p in positions])
    renumbered = other_view(rules.squares)[features(boards, sides)]
    assert (np.sort(renumbered, axis=1) == np.sort(features(boards, 1 - sides), axis=1)).all()


def test_a_network_for_other_squares_is_refused() -> None:
    weights = EvalNet.for_rules(get_ruleset("international"), 8, 4).weights()
    with pytest.raises(ValueError, match="50 squares"):
        Searcher(get_ruleset("english"), weights=weights)


# --- The integer network the search uses --------------------------------------------------------

#: The largest difference, in centi-men, between the integer network's score and the float
#: network's: the weights' rounding (at most 4 seen over these positions, 1 on average).
INT_SCORE_TOLERANCE = 6


def _float_score(w: NetWeights, p: Position) -> int:
    """The float network's score (the reference), from scratch."""
    acc = np.zeros((2, w.hidden + 1), np.float32)
    x = np.zeros(2 * w.hidden, np.float32)
    board = p.board.copy()
    return int(static_net_score(board, int(p.turn), w.w1, w.b1, w.w2, w.b2, w.w3, w.b3, acc, x))


def _pretrained_weights(name: str) -> NetWeights:
    network, _ = load_network(read_checkpoint(pretrained_path(name)))
    return network.weights()


#: The networks the integer form is checked on: the shipped ones, and random ones of each
#: board size, one with a width that is not a multiple of 16 (zero padding).
NETWORKS = [
    *sorted(PRETRAINED),
    "random-english-16",
    "random-international-20",
    "random-canadian-24",
]


def _network(label: str) -> tuple[str, NetWeights]:
    """Returns (variant, weights) of one of NETWORKS."""
    if label in PRETRAINED:
        return label, _pretrained_weights(label)
    _, variant, hidden = label.split("-")
    return variant, _random_net(get_ruleset(variant), 9, int(hidden), 8).weights()


@pytest.mark.parametrize("label", NETWORKS)
def test_integer_scores_are_the_float_ones_within_rounding(label: str) -> None:
    variant, weights = _network(label)
    rules = get_ruleset(variant)
    searcher = Searcher(rules, tt_bits=8, weights=weights)  # integers
    diffs = np.array(
        [searcher.evaluate(p) - _float_score(weights, p) for p in _positions(rules, 200, seed=11)]
    )
    assert np.abs(diffs).max() <= INT_SCORE_TOLERANCE, label
    assert np.abs(diffs).mean() <= 1.0 and (diffs == 0).mean() >= 0.4, label
    # the float layout of the same arrays is the reference itself
    reference = Searcher(rules, tt_bits=8)
    reference.tables = with_network(reference.tables, weights, integer=False)
    for p in _positions(rules, 30, seed=12):
        assert reference.evaluate(p) == _float_score(weights, p)


def test_scales_leave_room_for_any_board() -> None:
    """No accumulator entry can leave int16, whatever the pieces: bias plus, per square, the
    largest entry any piece there adds; the second layer's sums fit int32."""
    for label in NETWORKS:
        w = search_weights(_network(label)[1])
        bound = np.abs(w.b1[:-1].astype(np.int64)) + np.abs(w.w1.astype(np.int64)).max(axis=0).sum(
            0
        )
        assert bound.max() <= 2**15 - 1
        top = int(w.b1[-1])  # the clip's 1: 2**a
        assert top >= 2**7  # fine enough: 1/128 of a unit at worst
        sums = np.abs(w.vals[5 : 5 + w.w2.shape[1]]) + top * np.abs(w.w2[0].astype(np.int64)).sum(1)
        assert sums.max() <= 2**31 - 1
    huge = _random_net(get_ruleset("english"), 3).weights()
    with pytest.raises(ValueError, match="too large"):
        search_weights(huge._replace(w2=huge.w2 * 1e9))


@numba.njit(cache=False)
def _compiled_layer_products(w: Any, first: Any, x: Any, h: Any) -> None:
    layer_products(w, first, x, h)


@pytest.mark.parametrize(
    ("outputs", "columns"),
    [(16, 128), (16, 96), (8, 32), (7, 48), (3, 40), (4, 16), (1, 20), (5, 8)],
)
def test_second_layer_products_are_exact(outputs: int, columns: int) -> None:
    """The compiled int16 products (four rows at a time in vectors, then the rows and columns
    past the last block in loops) equal exact integer products, as does the plain-Python form;
    the float form equals them within float32 rounding."""
    rng = np.random.default_rng(outputs * 1000 + columns)
    first = 3
    w = rng.integers(-(2**15) + 1, 2**15, size=(first + outputs + 2, columns)).astype(np.int16)
    w[first] = 2**15 - 1  # a row at the int32 bound: 32767 * 256 * 128 < 2**31
    x = rng.integers(0, 2**8 + 1, size=columns).astype(np.int16)
    x[rng.random(columns) < 0.4] = 0  # clipped inputs: many zeros, some at the top
    x[rng.random(columns) < 0.1] = 2**8
    x[0] = 2**8
    exact = w[first : first + outputs].astype(np.int64) @ x.astype(np.int64)
    for form in (_compiled_layer_products, layer_products):
        h = np.full(outputs, -7, dtype=np.int32)
        form(w, np.int64(first), x, h)
        np.testing.assert_array_equal(h, exact)
    h32 = np.full(outputs, np.nan, dtype=np.float32)
    _compiled_layer_products(w.astype(np.float32), np.int64(first), x.astype(np.float32), h32)
    np.testing.assert_allclose(h32, exact, rtol=1e-6)


@pytest.mark.parametrize("variant", ONE_PER_BOARD_SIZE)
def test_incremental_integer_accumulators_equal_full_ones(variant: str) -> None:
    """Every legal move (captures, crownings, king moves) of positions from random games."""
    rules = get_ruleset(variant)
    net, vec = pack_network(search_weights(_random_net(rules, seed=5, hidden=20).weights()), 2)
    moves, ws = K.new_move_buffer(), K.new_workspace(rules.board_size)
    e = Engine.for_rules(rules)
    checked = 0
    for p in _positions(rules, 60, seed=6):
        board, side = p.board.copy(), int(p.turn)
        search_refresh(board, net, vec, np.int64(0))
        n = K.generate_moves(board, side, e.ray, e.rule_array, moves, True, ws)
        for i in range(n):
            search_advance(board, moves, np.int64(i), net, vec, np.int64(0))
            child, child_psq = net[1].copy(), vec[-1]
            K.apply_move(board, moves, i)
            search_refresh(board, net, vec, np.int64(1))
            K.undo_move(board, moves, i)
            assert np.array_equal(child, net[1]) and child_psq == vec[-1]
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", sorted(PRETRAINED))
def test_integer_search_plays_as_the_float_search(name: str) -> None:
    """The search with the integer network returns legal moves, and the float network's best
    move in most positions (not all: scores a centi-man apart can swap two moves)."""
    rules = get_ruleset(name)
    weights = _pretrained_weights(name)
    integer = Searcher(rules, tt_bits=16, weights=weights)
    reference = Searcher(rules, tt_bits=16)
    reference.tables = with_network(reference.tables, weights, integer=False)
    same, total, gaps = 0, 0, []
    for p in _positions(rules, 80, seed=13):
        legal = p.legal_moves()
        if len(legal) < 2:
            continue
        a, b = integer.search(p, depth=4), reference.search(p, depth=4)
        assert a.move in legal
        same += a.move == b.move
        total += 1
        # At depth 3 nothing below the root is pruned or reduced (ProbCut and the reductions
        # start at depth 3), so the score is a leaf's score; deeper, the two evaluations can
        # prune apart and end on different leaves.
        a, b = integer.search(p, depth=3), reference.search(p, depth=3)
        gaps.append(abs(a.score - b.score))
    assert total >= 30 and same / total >= 0.8, (same, total)
    assert max(gaps) <= 2 * INT_SCORE_TOLERANCE


@numba.njit(cache=False)
def _make(board, ply, i, t):  # type: ignore[no-untyped-def]
    """Plays move i of t.buffers[ply] as the search's node does (hash, line, accumulators)."""
    mv = t.buffers[ply]
    child = K.hash_after(t.path[ply], board, mv, i, t.keys, t.side_key)
    AB._push(t, board, mv, i, ply + 1, child)
    AB._advance(t, board, mv, i, ply)
    K.apply_move(board, mv, i)


@numba.njit(cache=False)
def _line_score(board, side, ply, t):  # type: ignore[no-untyped-def]
    return AB.evaluate(board, side, ply, t)


@pytest.mark.parametrize("variant", ONE_PER_BOARD_SIZE)
def test_scores_down_the_line_are_the_networks_from_scratch(variant: str) -> None:
    """The search brings each ply's accumulators up to date only when a position below is
    evaluated, and keeps each position's score: along a walk down and back up lines of
    random moves, with and without kept scores, every score is the network's from scratch."""
    rules = get_ruleset(variant)
    weights = _random_net(rules, seed=21, hidden=20).weights()
    t = Searcher(rules, tt_bits=8, weights=weights).tables
    t = t._replace(evals=np.zeros(64, np.uint64))  # few slots: positions share them
    scratch_net, scratch_vec = pack_network(search_weights(weights), 2)
    scratch_h = np.zeros_like(t.h)
    rng = np.random.default_rng(22)
    checked = kept = 0
    for p in _positions(rules, 12, seed=23):
        board, side = p.board.copy(), int(p.turn)
        t.path[0] = K.hash_position(board, side, t.keys, t.side_key)
        t.bits[0] = K.board_bits(board, t.rules)
        search_refresh(board, t.net, t.netv, np.int64(0))
        t.stats[AB.S_FRESH] = 0
        made: list[int] = []
        for _ in range(80):
            ply = len(made)
            n = K.generate_moves(board, side, t.ray, t.rules, t.buffers[ply], True, t.ws)
            if n > 0 and ply < 20 and (ply == 0 or rng.random() < 0.6):
                i = int(rng.integers(n))
                _make(board, np.int64(ply), np.int64(i), t)
                made.append(i)
                side = 1 - side
            elif ply > 0:
                K.undo_move(board, t.buffers[ply - 1], made.pop())
                side = 1 - side
            else:  # no move at the start
                break
            if rng.random() < 0.3:
                t.evals[:] = 0  # forget the kept scores: computed from the accumulators
            ply = len(made)
            was_kept = t.evals[int(t.path[ply]) & (len(t.evals) - 1)] != 0
            got = _line_score(board, side, np.int64(ply), t)
            want = static_search_score(board, side, scratch_net, scratch_vec, scratch_h)
            assert got == want, (ply, got, want)
            checked += 1
            kept += was_kept
    assert checked > 300 and kept > 50, (checked, kept)


def test_kept_scores_leave_the_search_as_it_was() -> None:
    """A search whose scores are all kept from an earlier, deeper search of the position
    visits the same tree and finds the same result as one that computes every score."""
    rules = get_ruleset("english")
    weights = _pretrained_weights("english")
    for p in _positions(rules, 6, seed=24):
        if not p.legal_moves():
            continue
        deeper = Searcher(rules, tt_bits=16, weights=weights)
        deeper.search(p, depth=7)
        fresh, warm = (Searcher(rules, tt_bits=16, weights=weights) for _ in range(2))
        warm.tables.evals[:] = deeper.tables.evals
        a, b = fresh.search(p, depth=6), warm.search(p, depth=6)
        assert (a.score, a.nodes, a.move, a.pv) == (b.score, b.nodes, b.move, b.pv)


# --- The trainer ---------------------------------------------------------------------------------


def _nnue(**sections: Any) -> Any:
    """A config for an nnue run of a few seconds: shallow self-play, a small network."""
    base = {
        "algorithm": "nnue",
        "nnue": {
            "hidden": 8,
            "hidden2": 4,
            "depth": 2,
            "games_per_iteration": 4,
            "workers": 1,
            "tt_bits": 12,
        },
        "env": {"max_plies": 60, "opening_plies": 4},
        "train": {"batch_size": 64, "updates_per_iteration": 4, "replay_size": 4096},
    }
    for key, value in sections.items():
        base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) else value
    return tiny_config(**base)


def test_step_learns_from_quiet_positions_of_whole_games() -> None:
    trainer = NNUETrainer(_nnue())
    metrics = trainer.step()
    assert metrics["games"] == 4 and 0 < metrics["positions"] <= 4 * 60
    assert math.isfinite(metrics["loss/value"]) and trainer.iteration == 1
    n = trainer.filled
    assert n == metrics["positions"]
    assert set(np.unique(trainer.results[:n])) <= {0.0, 0.5, 1.0}
    rules = trainer.config.env.ruleset()
    engine = Engine.for_rules(rules)
    buffer, ws = K.new_move_buffer(), K.new_workspace(rules.board_size)
    for board, side in zip(trainer.boards[:n], trainer.sides[:n], strict=True):
        count = K.generate_moves(
            board.copy(), int(side), engine.ray, engine.rule_array, buffer, True, ws
        )
        assert count > 1 and buffer[0, K.M_NCAP] == 0  # a choice, and no capture


def test_same_seed_same_games() -> None:
    a, b = NNUETrainer(_nnue()), NNUETrainer(_nnue())
    da, db = a.collect(), b.collect()
    assert np.array_equal(da["boards"], db["boards"]) and np.array_equal(da["scores"], db["scores"])


def test_checkpoint_round_trip_resumes_identically(tmp_path: Path) -> None:
    config = _nnue()
    a = NNUETrainer(config)
    a.step()
    save_checkpoint(tmp_path / "a.pt", a, [{"iteration": 1.0}])
    b = NNUETrainer(config)
    restore_trainer(b, read_checkpoint(tmp_path / "a.pt"), tmp_path / "a.pt")
    assert b.iteration == 1 and b.filled == a.filled and b.cursor == a.cursor
    assert np.array_equal(a.boards[: a.filled], b.boards[: b.filled])
    for pa, pb in zip(a.network.parameters(), b.network.parameters(), strict=True):
        assert torch.equal(pa, pb)
    ma, mb = a.step(), b.step()
    assert ma["loss/value"] == pytest.approx(mb["loss/value"])


def test_run_with_worker_processes_writes_and_resumes(tmp_path: Path) -> None:
    config = _nnue(nnue={"workers": 2}, train={"iterations": 2})
    run = tmp_path / "run"
    result = run_training(config, run_dir=run, progress=False, out=io.StringIO())
    assert read_checkpoint(result.checkpoint)["iteration"] == 2
    more = apply_overrides(config, ["train.iterations=3"])
    result = run_training(more, resume=run, progress=False, out=io.StringIO())
    data = read_checkpoint(result.checkpoint)
    assert data["iteration"] == 3 and data["trainer"]["filled"] > 0
    agent = load_agent(result.checkpoint, depth=2)
    assert isinstance(agent, AlphaBetaAgent) and agent.name.endswith(",depth=2")
    with pytest.raises(ValueError, match="sims= is for policy networks"):
        load_agent(result.checkpoint, sims=4)


def test_the_checkpoint_agent_plays_its_rules_only(tmp_path: Path) -> None:
    trainer = NNUETrainer(_nnue())
    save_checkpoint(tmp_path / "n.pt", trainer, with_trainer=False)
    agent = make_agent(f"checkpoint:{tmp_path / 'n.pt'},depth=3", seed=0, rules="english")
    match = play_match(agent, "random", "english", games=2, seed=1, progress=False)
    assert match.games == 2
    with pytest.raises(ValueError, match="trained on 'english'"):
        make_agent(f"checkpoint:{tmp_path / 'n.pt'}", rules="russian")


def test_a_short_run_from_nothing_learns_to_beat_greedy() -> None:
    """From a network that scores every position 0, a minute of self-play learns enough
    (material, first of all) to beat greedy clearly; the untrained search does not."""
    config = _nnue(
        nnue={
            "start": "zero",
            "depth": 2,
            "games_per_iteration": 16,
            "hidden": 16,
            "hidden2": 8,
            "result_fraction": 0.5,
        },
        train={"batch_size": 256, "updates_per_iteration": 16, "replay_size": 50_000, "lr": 3e-3},
        env={"max_plies": 120},
    )
    trainer = NNUETrainer(config)

    def score() -> float:
        agent = network_agent(trainer.network, config, seed=0, depth=2)
        match = play_match(agent, "greedy", "english", games=40, seed=5, progress=False)
        return match.stats.score

    before = score()
    for _ in range(30):
        trainer.step()
    after = score()
    assert after >= 0.65 and after - before >= 0.2, (before, after)


# --- The shipped agents --------------------------------------------------------------------------


def test_each_variant_names_its_latest_pretrained_version() -> None:
    """``pretrained:english`` is the highest ``english-vN``; every version is a file of its own
    (the rating pools play versions, which never change)."""
    versions: dict[str, list[tuple[int, str]]] = {}
    for name in PRETRAINED_VERSIONS:
        variant, number = name.rsplit("-v", 1)
        assert pretrained_path(name).is_file() and number.isdigit()
        versions.setdefault(variant, []).append((int(number), name))
    assert set(versions) == set(PRETRAINED)
    for variant, numbered in versions.items():
        assert pretrained_path(variant) == pretrained_path(max(numbered)[1])
    files = list(PRETRAINED_VERSIONS.values())
    assert len(set(files)) == len(files)


@pytest.mark.parametrize("name", sorted(PRETRAINED))
def test_pretrained_agents_load_without_network_access(name: str, monkeypatch) -> None:
    """The package's own file, small, no socket opened; it plays its variant."""
    import socket

    def refused(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a pretrained agent must not open a network connection")

    monkeypatch.setattr(socket, "socket", refused)
    monkeypatch.setattr(socket, "create_connection", refused)
    path = pretrained_path(name)
    assert path.is_file() and path.stat().st_size <= 5 * 2**20
    agent = make_agent(f"pretrained:{name},depth=2", seed=0, rules=name)
    assert agent.name == f"pretrained:{name},depth=2"
    position = Position.start(name)
    assert agent.choose(position) in position.legal_moves()


def test_pretrained_names_are_names_not_paths() -> None:
    with pytest.raises(ValueError, match="no pretrained agent '../x'; the package has: english"):
        make_agent("pretrained:../x")
    with pytest.raises(ValueError, match="needs a name"):
        make_agent("pretrained:depth=3")


def test_the_wheel_carries_the_pretrained_agents() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    data = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "pretrained/*.pt" in data["tool"]["setuptools"]["package-data"]["damas_agents"]
