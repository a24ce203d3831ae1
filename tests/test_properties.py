"""Property tests: the parsers on any text, round trips of reachable positions and games, and
random action streams in which every refused action leaves an env bit-identical.

Positions and games come from seeded random play in every registered ruleset (giveaway
twins and presets included). The parsers get arbitrary text, PDN and FEN of reachable
games with random edits, and objects that are not text; they may raise only the errors
they document. The action streams interleave legal hops with illegal, out-of-range and
mistyped actions in the AEC env (``illegal_action="raise"``), the batch env and the
Gymnasium single-agent view; each refusal is compared against a snapshot of everything the
env holds (``helpers.env_state``).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
from helpers import RULESETS, assert_same_state, env_state
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from damas_env import draughts_v0
from damas_env.draughts_v0 import IllegalActionError
from damas_env.engine import IllegalMoveError, Position
from damas_env.game import Game
from damas_env.notation import NotationError, parse_fen, read_pdn, write_pdn
from damas_env.single_agent import DraughtsGymEnv
from damas_env.vector import DraughtsBatchEnv

FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
B = 4  # games in each batch env


# --- Strategies ----------------------------------------------------------------------------


@st.composite
def reachable_games(draw: st.DrawFn, max_plies: int = 60) -> Game:
    """Returns a game of a registered ruleset after up to `max_plies` random legal moves."""
    rng = draw(st.randoms(use_true_random=False))
    game = Game(draw(st.sampled_from(RULESETS)))
    plies = draw(st.integers(0, max_plies))
    while game.ply < plies and not game.is_over:
        game.push(rng.choice(game.legal_moves()))
    return game


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    """Returns `text` after a few random edits: a span cut, repeated, or replaced."""
    alphabet = st.sampled_from('0123456789-x:,.KWB[]"{}();$*/ \n\t\\?!' + "\x00\u00e9\u0661")
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 8)))
        how = draw(st.sampled_from(["cut", "repeat", "replace"]))
        if how == "cut":
            text = text[:start] + text[end:]
        elif how == "repeat":
            text = text[:end] + text[start:end] + text[end:]
        else:
            text = text[:start] + draw(st.text(alphabet, max_size=4)) + text[end:]
    return text


NOT_TEXT = st.one_of(
    st.none(),
    st.integers(),
    st.floats(),
    st.binary(max_size=20),
    st.lists(st.text(max_size=5), max_size=3),
    st.just(np.str_("W:W1:B2").encode()),
)


# --- Parsers -------------------------------------------------------------------------------


@FEW
@given(reachable_games())
def test_fen_round_trips_every_reachable_position(game: Game) -> None:
    position = game.position
    fen = position.fen()
    again = Position.from_fen(fen, position.rules)
    assert again == position and again.fen() == fen
    board, turn = parse_fen(fen, position.engine.geometry)
    assert np.array_equal(board, position.board) and turn == position.turn


@FEW
@given(reachable_games())
def test_pdn_round_trips_every_reachable_game(game: Game) -> None:
    text = game.to_pdn()
    again = Game.from_pdn(text)
    assert again.rules == game.rules and again.moves == game.moves
    assert again.position == game.position and again.outcome() == game.outcome()
    assert np.array_equal(again.counters, game.counters)
    (record,) = read_pdn(text)
    assert read_pdn(write_pdn(record)) == [record]


@st.composite
def fen_texts(draw: st.DrawFn) -> tuple[str, str]:
    """Returns (FEN-like text, ruleset name): any text, or a reachable position's FEN edited."""
    game = draw(reachable_games(max_plies=30))
    text = draw(st.one_of(st.text(max_size=40), edited(game.position.fen())))
    return text, game.rules.name


@FEW
@given(fen_texts())
def test_from_fen_reads_any_text_or_raises_a_notation_error(case: tuple[str, str]) -> None:
    text, variant = case
    try:
        position = Position.from_fen(text, variant)
    except NotationError:
        return
    assert Position.from_fen(position.fen(), variant) == position


@st.composite
def pdn_texts(draw: st.DrawFn) -> str:
    """Returns PDN-like text: any text, or a reachable game's PDN edited."""
    return draw(st.one_of(st.text(max_size=80), edited(draw(reachable_games()).to_pdn())))


@FEW
@given(pdn_texts())
def test_pdn_readers_read_any_text_or_raise_their_documented_errors(text: str) -> None:
    with contextlib.suppress(NotationError):
        read_pdn(text)
    with contextlib.suppress(NotationError, IllegalMoveError):
        Game.from_pdn(text)


@FEW
@given(NOT_TEXT)
def test_the_parsers_refuse_what_is_not_text_with_a_type_error(value: Any) -> None:
    for parse in (lambda v: Position.from_fen(v, "international"), read_pdn, Game.from_pdn):
        with pytest.raises(TypeError):
            parse(value)


# --- Action streams ------------------------------------------------------------------------

KINDS = st.sampled_from(["legal", "legal", "illegal", "range", "type"])


def out_of_range(num_actions: int) -> st.SearchStrategy[int]:
    return st.one_of(st.integers(max_value=-1), st.integers(min_value=num_actions))


def mistyped(legal: list[int]) -> st.SearchStrategy[Any]:
    """Returns actions of a wrong type, some holding a legal hop's number."""
    hop = st.sampled_from(legal)
    return st.one_of(
        hop.map(float),
        hop.map(str),
        hop.map(np.float32),
        hop.map(lambda a: np.array([a])),
        hop.map(lambda a: [a]),
        st.sampled_from([None, True, False, np.bool_(True), 1.5, "x", b"1", object()]),
    )


def refused_action(data: st.DataObject, kind: str, legal: list[int], num_actions: int) -> Any:
    """Draws an action of `kind` ("illegal", "range" or "type") for a game whose legal
    actions are `legal`."""
    if kind == "illegal":
        return data.draw(st.integers(0, num_actions - 1).filter(lambda a: a not in legal))
    if kind == "range":
        bad = data.draw(out_of_range(num_actions))
        fits = -(2**63) <= bad < 2**63
        return np.int64(bad) if fits and data.draw(st.booleans(), label="as int64") else bad
    return data.draw(mistyped(legal))


@FEW
@given(data=st.data(), variant=st.sampled_from(RULESETS), seed=st.integers(0, 2**31))
def test_the_aec_env_refuses_actions_changing_nothing(
    data: st.DataObject, variant: str, seed: int
) -> None:
    max_plies = data.draw(st.sampled_from([None, 4, 12]), label="max_plies")
    env = draughts_v0.env(variant=variant, illegal_action="raise", max_plies=max_plies)
    raw = env.unwrapped
    env.reset(seed=seed)
    for kind in data.draw(st.lists(KINDS, min_size=1, max_size=30), label="kinds"):
        if any(raw.terminations.values()) or any(raw.truncations.values()):
            env.reset(seed=seed)
        legal = raw.legal_actions()
        if kind == "legal":
            env.step(data.draw(st.sampled_from(legal)))
            continue
        action = refused_action(data, kind, legal, raw.action_space(raw.agent_selection).n)
        before = env_state(env)
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert_same_state(before, env_state(env))


def batch_refusal(
    data: st.DataObject, kind: str, legal: list[list[int]], active: np.ndarray, num_actions: int
) -> Any:
    """Draws a batch's actions: legal but for one defect of `kind` in one active game, or of
    the wrong dtype or shape (kind "type")."""
    actions = [data.draw(st.sampled_from(row)) for row in legal]
    if kind == "type":
        as_array = np.array(actions, dtype=np.int64)
        return data.draw(
            st.one_of(
                st.sampled_from([np.float32, np.float64, np.bool_, "U4"]).map(as_array.astype),
                st.sampled_from([(B - 1,), (B + 1,), (B, 1), ()]).map(
                    lambda shape: np.resize(as_array, shape)
                ),
                st.sampled_from([None, "x", 3.5, [None] * B, {0: 1}]),
            )
        )
    g = data.draw(st.sampled_from(np.flatnonzero(active).tolist()), label="bad game")
    actions[g] = refused_action(data, kind, legal[g], num_actions)
    if all(-(2**63) <= int(a) < 2**63 for a in actions):
        return np.array([int(a) for a in actions], dtype=np.int64)
    return actions  # a list: no int64 array holds the bad action


@FEW
@given(data=st.data(), variant=st.sampled_from(RULESETS), seed=st.integers(0, 2**31))
def test_the_batch_env_refuses_actions_changing_nothing(
    data: st.DataObject, variant: str, seed: int
) -> None:
    max_plies = data.draw(st.sampled_from([None, 4, 12]), label="max_plies")
    env = DraughtsBatchEnv(B, variant=variant, seed=seed, num_threads=1, max_plies=max_plies)
    _, masks, _ = env.reset()
    for kind in data.draw(st.lists(KINDS, min_size=1, max_size=20), label="kinds"):
        legal = [np.flatnonzero(row).tolist() for row in masks]
        games = data.draw(st.none() | hnp.arrays(np.bool_, B).filter(np.any), label="games")
        active = np.ones(B, bool) if games is None else games
        if kind == "legal":
            actions = np.array([data.draw(st.sampled_from(row)) for row in legal])
            _, new_masks, *_ = env.step(actions, games=games)
            masks = np.where(active[:, None], new_masks, masks)  # idle games keep theirs
            continue
        actions = batch_refusal(data, kind, legal, active, env.num_actions)
        before = env_state(env)
        with pytest.raises(ValueError):
            env.step(actions, games=games)
        assert_same_state(before, env_state(env))


@FEW
@given(data=st.data(), variant=st.sampled_from(RULESETS), seed=st.integers(0, 2**31))
def test_the_single_agent_view_refuses_actions_changing_nothing(
    data: st.DataObject, variant: str, seed: int
) -> None:
    max_plies = data.draw(st.sampled_from([None, 4, 12]), label="max_plies")
    env = DraughtsGymEnv(variant, play_as="random", max_plies=max_plies)
    _, info = env.reset(seed=seed)
    over = False
    for kind in data.draw(st.lists(KINDS, min_size=1, max_size=30), label="kinds"):
        if over:  # a step after the end is refused too
            before = env_state(env)
            with pytest.raises(RuntimeError):
                env.step(0)
            assert_same_state(before, env_state(env))
            _, info = env.reset(seed=seed + 1)
            over = False
        legal = np.flatnonzero(info["action_mask"]).tolist()
        if kind == "legal":
            _, _, terminated, truncated, info = env.step(data.draw(st.sampled_from(legal)))
            over = terminated or truncated
            continue
        action = refused_action(data, kind, legal, int(env.action_space.n))
        before = env_state(env)
        # A Gymnasium step of another type than an integer is a TypeError (docs/correctness.md).
        with pytest.raises(TypeError if kind == "type" else IllegalActionError):
            env.step(action)
        assert_same_state(before, env_state(env))
