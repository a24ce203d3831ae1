"""Scripted games through ``draughts_v0`` (the env, not the engine) for each seed preset.

``tests/test_seed_rules.py`` checks every seed sentence on the engine; these tests play the
same kinds of positions hop by hop through the PettingZoo env and check what an agent sees:
the exact mask after every hop (as a set of PDN hops ``(origin, target)``), the observation
planes in the agent's view, ``agent_selection``, rewards, terminations, truncations and the
reason in ``infos``. ``shared/RULES.md`` says how the seeds are read.

PDN numbering and the neighbours of a square are drawn in ``tests/test_seed_rules.py``. The
planes are checked with a board geometry written out here (:func:`cell`), not the env's own
tables: White's view is the board as numbered (square 1 at the top), Black's view is the board
turned 180 degrees, so every agent sees its own men moving up.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import pytest
from helpers import assert_same_state, env_state, state_of

from damas_env import Colour, draughts_v0
from damas_env.draughts_v0 import IllegalActionError
from damas_env.encoding import PLANE_NAMES, action_layout, move_to_actions
from damas_env.ending import Reason

Hop = tuple[int, int]

OWN_MEN, OWN_KINGS, OPP_MEN, OPP_KINGS, MOVING, TAKEN = range(6)


# --- Helpers ---------------------------------------------------------------------------------


def make(variant: str, fen: str | None = None, **kwargs: Any) -> Any:
    """Returns ``draughts_v0.env(...)`` reset from a FEN (or the start position)."""
    env = draughts_v0.env(variant=variant, **kwargs)
    env.reset(options={"fen": fen} if fen else None)
    return env


def colour_of(env: Any, agent: str) -> Colour:
    """Returns the colour an agent plays, from its ``infos`` entry (a Colour)."""
    colour = env.infos[agent]["colour"]
    assert type(colour) is Colour and colour is env.unwrapped.colour_of(agent)
    return colour


def colour_name(env: Any, agent: str) -> str:
    """Returns the ruleset's name of the colour an agent plays ("red", ...)."""
    return env.unwrapped.rules.colour_names[colour_of(env, agent)]


def hop(env: Any, origin: int, target: int) -> int:
    """Returns the action of a hop between two PDN squares for the agent to move."""
    size = env.unwrapped.rules.board_size
    action = action_layout(size).hop_action(origin - 1, target - 1, env.unwrapped.position.turn)
    assert action >= 0, f"{origin}->{target} is not one diagonal hop"
    return action


def play(env: Any, *squares: int) -> None:
    """Plays the hops along a path of PDN squares (a step, or a capture hop by hop)."""
    for origin, target in zip(squares, squares[1:], strict=False):
        env.step(hop(env, origin, target))


def play_moves(env: Any, moves: Iterable[str]) -> None:
    """Plays PDN steps such as "29-25", checking the game is still going before each one."""
    for move in moves:
        assert not env.terminations[env.agent_selection], f"game over before {move}"
        play(env, *(int(s) for s in move.split("-")))


def alternate(
    plies: int, first: list[str], second: list[str], special: dict[int, str]
) -> Iterator[str]:
    """Yields `plies` moves: each side plays its list round and round; ``special[ply]`` (1-based)
    replaces one move without advancing that side's list."""
    turns = [0, 0]
    for ply in range(1, plies + 1):
        side = (ply - 1) % 2
        if ply in special:
            yield special[ply]
            continue
        cycle = first if side == 0 else second
        yield cycle[turns[side] % len(cycle)]
        turns[side] += 1


def mask_hops(env: Any) -> set[Hop]:
    """Returns the hops unmasked for the agent to move, checking the mask against the env."""
    agent = env.agent_selection
    obs = env.last()[0]
    again = env.observe(agent)  # a copy of the same observation (computed once per hop)
    assert all(np.array_equal(obs[key], again[key]) for key in obs)
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
    actions = np.flatnonzero(mask).tolist()
    assert actions == env.unwrapped.legal_actions()
    hops = {env.unwrapped.decode_action(a) for a in actions}
    assert all(action == hop(env, *env.unwrapped.decode_action(action)) for action in actions)
    assert len(hops) == len(actions)
    other = next(a for a in env.agents if a != agent)
    assert not env.observe(other)["action_mask"].any()  # all zeros for the agent not to move
    return hops


def cell(square: int, size: int, flip: bool) -> tuple[int, int]:
    """Returns the (row, col) of a PDN square: White's view, or turned 180 degrees (Black's)."""
    row, k = divmod(square - 1, size // 2)
    col = 2 * k + (1 if row % 2 == 0 else 0)  # the top-left corner is light
    return (size - 1 - row, size - 1 - col) if flip else (row, col)


def planes(env: Any, agent: str) -> dict[int, set[int]]:
    """Returns planes 0-5 of an agent's observation as sets of PDN squares (and checks the
    board planes hold nothing else: 0/1 on dark squares only, constant planes 6-7)."""
    obs = env.observe(agent)["observation"]
    size = env.unwrapped.rules.board_size
    assert obs.shape == (len(PLANE_NAMES), size, size) and obs.dtype == np.float32
    flip = colour_of(env, agent) == Colour.BLACK
    squares = range(1, size * size // 2 + 1)
    out = {p: {s for s in squares if obs[p][cell(s, size, flip)] == 1} for p in range(6)}
    dark = np.zeros((size, size), dtype=bool)
    for s in squares:
        dark[cell(s, size, False)] = True
    for p in range(6):
        assert set(np.unique(obs[p])) <= {0.0, 1.0} and not obs[p][~dark].any()
        assert int(obs[p].sum()) == len(out[p])
    for p in (6, 7):
        assert np.all(obs[p] == obs[p][0, 0])
    return out


def ended(env: Any) -> dict[str, Any]:
    """Returns the end of a game as plain data: rewards, terminations, truncations, reasons."""
    return {
        "rewards": dict(env.rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "reasons": {a: reason_label(env, a) for a in env.agents},
    }


def reason_label(env: Any, agent: str) -> str:
    """Returns the label of an agent's ``infos`` reason (a Reason; "" while the game goes on)."""
    reason = env.infos[agent]["reason"]
    assert type(reason) is Reason
    return reason.label


def finish(env: Any) -> dict[str, float]:
    """Steps None for every agent after the end (the PettingZoo loop); returns what last() gave."""
    seen: dict[str, float] = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        assert termination or truncation
        seen[agent] = reward
        env.step(None)
    assert env.agents == []
    return seen


def refused(env: Any, origin: int, target: int) -> str:
    """Plays an illegal hop; checks it raises and changes nothing; returns the message."""
    before = env_state(env)
    held = env.observe(env.agent_selection)
    held_copy = state_of(held)
    action = hop(env, origin, target)
    with pytest.raises(IllegalActionError) as info:
        env.step(action)
    assert isinstance(info.value, ValueError)
    assert_same_state(before, env_state(env))
    assert_same_state(held_copy, state_of(held))  # the observation handed out is untouched
    message = str(info.value)
    assert str(action) in message and f"{origin}->{target}" in message
    return message


# =============================================================================================
# Seed 000 — International draughts (`international_land_behind`)
# =============================================================================================


def test_000_majority_capture_hop_by_hop_in_blacks_view() -> None:
    """Rule 7 (most pieces) and the Turkish strike, hop by hop, for Black (player_1, so the
    planes are turned 180 degrees). Black's 14 takes three men (19, 28, 38): 14x43; 16x27 takes
    only the king on 21 and is masked. Taken men stay in planes 2 until the move ends."""
    # B:W19,K21,28,38:B14,16   (Black to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   b   .   11-15
    #   b   .   .   w   .     16-20
    #     W   .   .   .   .   21-25
    #   .   .   w   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   w   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    env = make("international_land_behind", "B:W19,K21,28,38:B14,16")
    assert env.agent_selection == "player_1" and colour_name(env, "player_1") == "black"
    assert mask_hops(env) == {(14, 23)}
    assert planes(env, "player_1") == {
        OWN_MEN: {14, 16}, OWN_KINGS: set(), OPP_MEN: {19, 28, 38}, OPP_KINGS: {21},
        MOVING: set(), TAKEN: set(),
    }  # fmt: skip
    for path, taken, nxt in [((14, 23), {19}, {(23, 32)}), ((23, 32), {19, 28}, {(32, 43)})]:
        play(env, *path)
        assert env.agent_selection == "player_1"
        assert mask_hops(env) == nxt
        assert planes(env, "player_1") == {
            OWN_MEN: {16, path[1]}, OWN_KINGS: set(), OPP_MEN: {19, 28, 38}, OPP_KINGS: {21},
            MOVING: {path[1]}, TAKEN: taken,
        }  # fmt: skip
        assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
        assert env.unwrapped.position.fen() == "B:W19,K21,28,38:B14,16"  # start of the turn
    play(env, 32, 43)
    assert env.agent_selection == "player_0"
    assert env.unwrapped.position.fen() == "W:WK21:B16,43"
    assert planes(env, "player_1") == {
        OWN_MEN: {16, 43}, OWN_KINGS: set(), OPP_MEN: set(), OPP_KINGS: {21},
        MOVING: set(), TAKEN: set(),
    }  # fmt: skip
    assert planes(env, "player_0") == {
        OWN_MEN: set(), OWN_KINGS: {21}, OPP_MEN: {16, 43}, OPP_KINGS: set(),
        MOVING: set(), TAKEN: set(),
    }  # fmt: skip
    # White's king on 21 must take 43 along 21-49 and (seed 000) rests right behind it.
    assert mask_hops(env) == {(21, 49)}


def test_000_majority_rule_two_men_beat_one_king_in_whites_view() -> None:
    """Rule 7 for White (player_0, planes as numbered): 34x14 (men 29 and 19) beats 32x21 (the
    king on 27); men and kings count the same, so only the count matters."""
    env = make("international_land_behind", "W:W32,34:B19,29,K27")
    assert mask_hops(env) == {(34, 23)}
    play(env, 34, 23)
    assert (env.agent_selection, mask_hops(env)) == ("player_0", {(23, 14)})
    assert planes(env, "player_0") == {
        OWN_MEN: {23, 32}, OWN_KINGS: set(), OPP_MEN: {19, 29}, OPP_KINGS: {27},
        MOVING: {23}, TAKEN: {29},
    }  # fmt: skip
    play(env, 23, 14)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.position.fen() == "B:W14,32:BK27"


@pytest.mark.parametrize("route", [(27, 18, 29, 38, 27), (27, 38, 29, 18, 27)])
def test_000_both_routes_of_one_capture_are_playable(route: tuple[int, ...]) -> None:
    """Two routes round the four men (22, 23, 33, 32) take the same pieces and end on the same
    square: both are unmasked, each is playable to the end, and both give the same position
    and observations. Taken pieces are never jumped twice (18 cannot go back over 22)."""
    # W:W27:B5,22,23,32,33   (White to move)
    #     .   .   .   .   b    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   b   .   .   21-25
    #   .   w   .   .   .     26-30
    #     .   b   b   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   .   .   .   .   .     46-50
    env = make("international_land_behind", "W:W27:B5,22,23,32,33")
    assert mask_hops(env) == {(27, 18), (27, 38)}
    taken: list[int] = []
    jumped = {(27, 18): 22, (18, 29): 23, (29, 38): 33, (38, 27): 32}
    jumped |= {(b, a): x for (a, b), x in jumped.items()}
    for k in range(1, 4):
        play(env, route[k - 1], route[k])
        taken.append(jumped[route[k - 1], route[k]])
        assert env.agent_selection == "player_0"
        assert mask_hops(env) == {(route[k], route[k + 1])}
        view = planes(env, "player_0")
        assert (view[MOVING], view[TAKEN], view[OPP_MEN]) == ({route[k]}, set(taken),
                                                              {5, 22, 23, 32, 33})  # fmt: skip
    play(env, route[3], route[4])
    assert env.agent_selection == "player_1"
    assert env.unwrapped.position.fen() == "B:W27:B5"
    assert planes(env, "player_1") == {
        OWN_MEN: {5}, OWN_KINGS: set(), OPP_MEN: {27}, OPP_KINGS: set(),
        MOVING: set(), TAKEN: set(),
    }  # fmt: skip
    assert mask_hops(env) == {(5, 10)}


def test_000_routes_agree_with_the_engine_move() -> None:
    """``move_to_actions`` turns the engine's move (either route) into hops the env accepts."""
    env = make("international_land_behind", "W:W27:B5,22,23,32,33")
    position = env.unwrapped.position
    (move,) = position.legal_moves()
    actions = move_to_actions(move, position.turn, 10)
    assert [env.unwrapped.decode_action(a) for a in actions][0] in {(27, 18), (27, 38)}
    for action in actions:
        assert env.agent_selection == "player_0"
        env.step(action)
    assert env.unwrapped.position.fen() == "B:W27:B5"


def test_000_man_passing_the_crowning_row_goes_on_as_a_man() -> None:
    """A man reaching the far row mid-capture goes on capturing backwards and stays a man:
    13x2 (over 8) reaches row 1, the mask then holds only 2x11 (over 7), and in between the
    piece on 2 is a man (plane 0, not plane 1). It ends on 11 uncrowned."""
    # W:W13:B7,8,45   (White to move)
    #     .   .   .   .   .    1-5
    #   .   b   b   .   .      6-10
    #     .   .   w   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   .   .   .   .   21-25
    #   .   .   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   .   .   .   .     36-40
    #     .   .   .   .   b   41-45
    #   .   .   .   .   .     46-50
    env = make("international_land_behind", "W:W13:B7,8,45")
    assert mask_hops(env) == {(13, 2)}
    play(env, 13, 2)
    assert (env.agent_selection, mask_hops(env)) == ("player_0", {(2, 11)})
    view = planes(env, "player_0")
    assert (view[OWN_MEN], view[OWN_KINGS], view[MOVING], view[TAKEN]) == ({2}, set(), {2}, {8})
    play(env, 2, 11)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.position.fen() == "B:W11:B45"
    assert planes(env, "player_0")[OWN_MEN] == {11}


def test_000_man_ending_a_capture_on_the_crowning_row_is_crowned() -> None:
    """14x1: over 9 to 3 (row 1, but it goes on), back over 8 to 12, over 7 to 1: the capture
    ends on the far row, so the man is crowned when the move ends, not before."""
    env = make("international_land_behind", "W:W14:B7,8,9,45")
    for path, nxt in [((14, 3), {(3, 12)}), ((3, 12), {(12, 1)})]:
        play(env, *path)
        assert (env.agent_selection, mask_hops(env)) == ("player_0", nxt)
        assert planes(env, "player_0")[OWN_KINGS] == set()
    play(env, 12, 1)
    assert env.unwrapped.position.fen() == "B:WK1:B45"
    assert planes(env, "player_0")[OWN_KINGS] == {1}
    assert planes(env, "player_1")[OPP_KINGS] == {1}


@pytest.mark.parametrize(
    ("variant", "first", "second"),
    [
        # Seed 000 literally: right behind 37 (on 32) the king can go on, so only 32; then
        # right behind 27, on 21.
        ("international_land_behind", {(46, 32)}, {(32, 21)}),
        # FMJD: from 32 (over 27 to 21 or 16) or from 28 (over 22 to 17, 11 or 6); the
        # squares beyond 37 that take no second piece (23, 19, ...) lose to rule 7.
        ("international", {(46, 32), (46, 28)}, {(32, 21), (32, 16)}),
    ],
    ids=["seed000", "fmjd"],
)
def test_000_king_landing_literal_and_fmjd(variant: str, first: set[Hop], second: set[Hop]) -> None:
    """ "A dama que está capturando repousará na casa livre imediatamente próxima à da pedra
    capturada no lance (exceto quando ocorre a situação descrita na regra 7)" (the king rests
    right behind the captured piece unless rule 7 needs farther) against FMJD 4.3 (any free
    square beyond)."""
    # W:WK46:B22,27,37   (White to move)
    #     .   .   .   .   .    1-5
    #   .   .   .   .   .      6-10
    #     .   .   .   .   .   11-15
    #   .   .   .   .   .     16-20
    #     .   b   .   .   .   21-25
    #   .   b   .   .   .     26-30
    #     .   .   .   .   .   31-35
    #   .   b   .   .   .     36-40
    #     .   .   .   .   .   41-45
    #   W   .   .   .   .     46-50
    env = make(variant, "W:WK46:B22,27,37")
    assert mask_hops(env) == first
    play(env, 46, 32)
    assert (env.agent_selection, mask_hops(env)) == ("player_0", second)
    view = planes(env, "player_0")
    assert (view[OWN_KINGS], view[MOVING], view[TAKEN]) == ({32}, {32}, {37})
    if variant == "international_land_behind":
        assert "32->16" in refused(env, 32, 16)  # a legal FMJD landing, wrong here
    play(env, 32, 21)
    assert env.unwrapped.position.fen() == "B:WK21:B22"


@pytest.mark.parametrize(
    ("variant", "landings"),
    [("international_land_behind", {23}), ("international", {23, 19, 14, 10, 5})],
    ids=["seed000", "fmjd"],
)
def test_000_king_landing_after_a_single_capture(variant: str, landings: set[int]) -> None:
    """The same sentence with nothing to take after 28: the seed's king rests on 23."""
    env = make(variant, "W:WK46:B28")
    assert mask_hops(env) == {(46, s) for s in landings}


def test_000_illegal_step_while_a_capture_is_on_is_refused_and_nothing_changes() -> None:
    """ "A jogada errada pode ser desfeita." (A wrong move may be taken back.) 45-40 and 28-23
    are steps while 28x17 is compulsory: each raises IllegalActionError naming the hop and the
    legal one, and the env is exactly as before; then 28x17 is accepted."""
    env = make("international_land_behind", "W:W28,45:B22,5")
    for wrong in [(45, 40), (28, 23), (28, 39)]:
        message = refused(env, *wrong)
        assert f"{hop(env, 28, 17)} (28->17)" in message
    play(env, 28, 17)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.position.fen() == "B:W17,45:B5"


def test_000_hop_of_the_wrong_route_is_refused_mid_capture() -> None:
    """After 27-18 (the first hop of one route round the four men) the hops of the other
    route, a hop from the square the piece left and a second jump over 22 are all refused;
    the capture in progress (planes 4-5, mask) is unchanged and goes on with 18x29."""
    env = make("international_land_behind", "W:W27:B5,22,23,32,33")
    play(env, 27, 18)
    for wrong in [(27, 38), (38, 27), (29, 38), (18, 27)]:
        message = refused(env, *wrong)
        assert "(18->29)" in message
    view = planes(env, "player_0")
    assert (view[MOVING], view[TAKEN]) == ({18}, {22})
    play(env, 18, 29)
    assert mask_hops(env) == {(29, 38)}


def test_000_illegal_action_lose_policy() -> None:
    """``env(illegal_action="lose")``: PettingZoo's usual rule, the mover gets -1, game over."""
    env = make("international_land_behind", "W:W28,45:B22", illegal_action="lose")
    play(env, 45, 40)
    assert ended(env) == {
        "rewards": {"player_0": -1.0, "player_1": 0.0},
        "terminations": {"player_0": True, "player_1": True},
        "truncations": {"player_0": False, "player_1": False},
        "reasons": {"player_0": "illegal_action", "player_1": "illegal_action"},
    }
    assert "45->40" in env.illegal_action_error  # the infos hold numbers only


def test_000_capturing_the_last_piece_wins() -> None:
    """The aim of the game: the opponent without a move on his turn (here, without pieces)
    loses. The env ends with +1/-1 and reason no_legal_move, and the PettingZoo loop then
    hands each agent its final reward through ``last()``."""
    env = make("international_land_behind", "W:W27:B22,23,32,33")
    play(env, 27, 18, 29, 38, 27)
    assert ended(env) == {
        "rewards": {"player_0": 1.0, "player_1": -1.0},
        "terminations": {"player_0": True, "player_1": True},
        "truncations": {"player_0": False, "player_1": False},
        "reasons": {"player_0": "no_legal_move", "player_1": "no_legal_move"},
    }
    assert env.infos["player_1"]["winner"] == 0  # player_0's index
    assert not env.observe("player_1")["action_mask"].any()
    assert finish(env) == {"player_0": 1.0, "player_1": -1.0}


# =============================================================================================
# Seed 002 — Checkers on a game website (`website_checkers`)
# =============================================================================================


def test_002_red_starts_and_sees_its_men_moving_up() -> None:
    """ "De rode speler begint het spel" (the red player starts). Red plays the side on 1-12
    (Black's in PDN), is player_0, and sees its men on the bottom three rows of its view."""
    env = make("website_checkers")
    assert env.agent_selection == "player_0"
    assert {a: colour_name(env, a) for a in env.agents} == {
        "player_0": "red",
        "player_1": "white",
    }
    assert mask_hops(env) == {(9, 13), (9, 14), (10, 14), (10, 15), (11, 15), (11, 16), (12, 16)}
    view = planes(env, "player_0")
    assert (view[OWN_MEN], view[OPP_MEN]) == (set(range(1, 13)), set(range(21, 33)))
    own = env.observe("player_0")["observation"][OWN_MEN]
    assert own[5:].sum() == 12 and own[:5].sum() == 0  # rows 6-8 of red's view
    assert env.observe("player_1")["observation"][OWN_MEN][5:].sum() == 12
    play(env, 11, 15)
    assert env.agent_selection == "player_1"
    assert mask_hops(env) == {(21, 17), (22, 17), (22, 18), (23, 18), (23, 19), (24, 19),
                              (24, 20)}  # fmt: skip


def test_002_crowning_ends_the_move() -> None:
    """Seed 002 is silent on a man crowned mid-capture; RULES.md: as in English checkers, the
    move ends. Red's 22x31 (over 26) crowns; as a king it could take 27, but the turn passes."""
    # B:W26,27:B22   (Black = red to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   b   .   .     21-24
    #     .   w   w   .   25-28
    #   .   .   .   .     29-32
    env = make("website_checkers", "B:W26,27:B22")
    assert mask_hops(env) == {(22, 31)}
    play(env, 22, 31)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.position.fen() == "W:W27:BK31"
    assert planes(env, "player_0")[OWN_KINGS] == {31}
    assert mask_hops(env) == {(27, 23), (27, 24)}


def test_002_multi_jump_must_be_completed_by_the_same_agent() -> None:
    """ "... dan moeten deze checkers ook worden geslagen" (further captures must be made too):
    10x17 stops nowhere; player_0 keeps the turn for 17x26. The free choice ("dan mag je
    kiezen") leaves 12x19 (one piece) unmasked beside it."""
    env = make("website_checkers", "B:W14,16,22:B10,12")
    assert mask_hops(env) == {(10, 17), (12, 19)}
    play(env, 10, 17)
    assert (env.agent_selection, mask_hops(env)) == ("player_0", {(17, 26)})
    refused(env, 12, 19)
    play(env, 17, 26)
    assert env.unwrapped.position.fen() == "W:W16:B12,26"


def test_002_draw_after_40_quiet_move_pairs() -> None:
    """ "... no capture or promotion to king for 40 pairs of consecutive moves": kings shuffle
    (29-25, 4-8; the seed names no repetition rule) and White's man steps 27-23 at ply 41,
    which is neither a capture nor a promotion. The game ends after ply 80, a draw."""
    env = make("website_checkers", "W:WK29,27:BK4")
    assert env.agent_selection == "player_1"  # White moves first from this FEN
    moves = list(alternate(80, ["29-25", "25-29"], ["4-8", "8-4"], {41: "27-23"}))
    play_moves(env, moves[:79])
    assert not any(env.terminations.values()) and env.agent_selection == "player_0"
    progress = env.observe("player_0")["observation"][6]
    assert np.allclose(progress, 79 / 80)
    play_moves(env, moves[79:])
    assert ended(env) == {
        "rewards": {"player_0": 0.0, "player_1": 0.0},
        "terminations": {"player_0": True, "player_1": True},
        "truncations": {"player_0": False, "player_1": False},
        "reasons": {"player_0": "no_progress", "player_1": "no_progress"},
    }
    assert env.infos["player_0"]["winner"] == -1  # a draw: no winner
    assert finish(env) == {"player_0": 0.0, "player_1": 0.0}


def test_002_automatic_draw_after_200_moves() -> None:
    """ "... drawn automatically if there is no winner after 200 moves (100 each)". Promotions at
    plies 61 (5-1) and 121 (6-2) keep the 80-ply count from running out; the game ends after
    ply 200 exactly (no override: the preset's own limits)."""
    env = make("website_checkers", "W:WK29,5,6:BK4")
    moves = list(alternate(200, ["29-25", "25-29"], ["4-8", "8-4"], {61: "5-1", 121: "6-2"}))
    play_moves(env, moves[:199])
    assert not any(env.terminations.values())
    play_moves(env, moves[199:])
    assert env.unwrapped.position.fen() == "W:WK1,K2,K29:BK4"
    assert ended(env) == {
        "rewards": {"player_0": 0.0, "player_1": 0.0},
        "terminations": {"player_0": True, "player_1": True},
        "truncations": {"player_0": False, "player_1": False},
        "reasons": {"player_0": "ply_limit", "player_1": "ply_limit"},
    }
    assert not env.observe(env.agent_selection)["action_mask"].any()


def test_002_capturing_the_last_checker_wins() -> None:
    """ "Het spel wordt verloren door de speler die geen correcte zet meer kan maken" (the
    player who cannot move loses): red takes White's last man."""
    env = make("website_checkers", "B:W14:B10")
    play(env, 10, 17)
    assert ended(env)["rewards"] == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_1"] == {
        "colour": Colour.WHITE,
        "reason": Reason.NO_LEGAL_MOVE,
        "winner": 0,  # player_0
    }
    assert colour_name(env, "player_1") == "white"
    assert finish(env) == {"player_1": -1.0, "player_0": 1.0}


# =============================================================================================
# Seed 004 — English draughts (`english_adjudicated`)
# =============================================================================================


def test_004_crowning_ends_the_move_even_if_the_new_king_could_capture() -> None:
    """ "Una pieza doble no puede salir de la fila de piezas dobles hasta el siguiente turno."
    Black (player_0, moves first) takes 26 and crowns on 31; a king on 31 could take 27 to 24,
    but the move is over: White (player_1) is to move at once."""
    env = make("english_adjudicated", "B:W26,27:B22")
    assert env.agent_selection == "player_0" and colour_name(env, "player_0") == "black"
    assert mask_hops(env) == {(22, 31)}
    play(env, 22, 31)
    assert env.agent_selection == "player_1"
    assert env.unwrapped.position.fen() == "W:W27:BK31"
    assert mask_hops(env) == {(27, 23), (27, 24)}
    assert planes(env, "player_1")[OPP_KINGS] == {31}
    play(env, 27, 24)
    assert mask_hops(env) == {(31, 26), (31, 27)}  # the new king moves on the next turn


def test_004_blocking_the_last_piece_wins() -> None:
    """ "Si un jugador se coloca en una posición en la que no puede moverse, pierde." Black's
    24-28 leaves White's man on 32 without a move (27, 28 taken; 23 behind 27)."""
    # B:W32:B23,24,27   (Black to move)
    #     .   .   .   .    1-4
    #   .   .   .   .      5-8
    #     .   .   .   .    9-12
    #   .   .   .   .     13-16
    #     .   .   .   .   17-20
    #   .   .   b   b     21-24
    #     .   .   b   .   25-28
    #   .   .   .   w     29-32
    env = make("english_adjudicated", "B:W32:B23,24,27")
    assert mask_hops(env) == {(23, 26), (24, 28), (27, 31)}
    play(env, 24, 28)
    assert not env.observe("player_1")["action_mask"].any()
    assert ended(env) == {
        "rewards": {"player_0": 1.0, "player_1": -1.0},
        "terminations": {"player_0": True, "player_1": True},
        "truncations": {"player_0": False, "player_1": False},
        "reasons": {"player_0": "no_legal_move", "player_1": "no_legal_move"},
    }
    assert finish(env) == {"player_0": 1.0, "player_1": -1.0}


def test_004_blocked_at_reset_ends_at_once() -> None:
    """A FEN whose side to move has no move is a finished game straight after reset."""
    env = make("english_adjudicated", "W:W32:B23,27,28")
    assert ended(env)["rewards"] == {"player_0": 1.0, "player_1": -1.0}
    assert env.last()[1:4] == (-1.0, True, False)
    assert finish(env) == {"player_1": -1.0, "player_0": 1.0}


@pytest.mark.parametrize(
    ("fen", "rewards", "reason"),
    [
        # 3 pieces (1 king) against 2 (2 kings): more pieces wins. White is player_1.
        ("W:WK29,31,32:BK1,K4", {"player_0": -1.0, "player_1": 1.0}, "adjudication"),
        # 2 pieces each; Black has 2 kings to White's 1: more kings wins.
        ("W:WK29,31:BK1,K4", {"player_0": 1.0, "player_1": -1.0}, "adjudication"),
        # 2 pieces and 1 king each: a draw.
        ("W:WK29,31:B2,K4", {"player_0": 0.0, "player_1": 0.0}, "adjudication"),
    ],
    ids=["more-pieces", "more-kings", "equal"],
)
def test_004_material_adjudication_at_the_ply_limit(
    fen: str, rewards: dict[str, float], reason: str
) -> None:
    """ "Si los jugadores tienen la misma cantidad de piezas, el jugador con más piezas dobles
    gana ..." read as the adjudication of a game stopped at the ply limit. OVERRIDE: the preset
    stops at 200 plies; ``ply_limit=4`` here so kings shuffling (29-25, 4-8) reach it before the
    threefold-repetition rule."""
    env = make("english_adjudicated", fen, ply_limit=4)
    play_moves(env, alternate(3, ["29-25", "25-29"], ["4-8", "8-4"], {}))
    assert not any(env.terminations.values())
    play_moves(env, ["8-4"])
    assert ended(env) == {
        "rewards": rewards,
        "terminations": {"player_0": True, "player_1": True},
        "truncations": {"player_0": False, "player_1": False},
        "reasons": {"player_0": reason, "player_1": reason},
    }
    assert finish(env) == rewards


def test_004_max_plies_truncates() -> None:
    """``max_plies`` is the env's own cut (not a rule): a truncation with reason max_plies and
    no reward, counted in complete moves."""
    env = make("english_adjudicated", max_plies=3)
    play_moves(env, ["11-15", "22-18"])
    assert mask_hops(env) == {(15, 22)}
    play(env, 15, 22)
    assert ended(env) == {
        "rewards": {"player_0": 0.0, "player_1": 0.0},
        "terminations": {"player_0": False, "player_1": False},
        "truncations": {"player_0": True, "player_1": True},
        "reasons": {"player_0": "max_plies", "player_1": "max_plies"},
    }
    assert finish(env) == {"player_1": 0.0, "player_0": 0.0}


def test_max_plies_counts_complete_moves_not_hops() -> None:
    """A four-hop capture is one ply: with ``max_plies=1`` the cut comes after its last hop."""
    env = make("international_land_behind", "W:W27:B5,22,23,32,33", max_plies=1)
    for path in [(27, 18), (18, 29), (29, 38)]:
        play(env, *path)
        assert not any(env.truncations.values())
    play(env, 38, 27)
    assert ended(env)["reasons"] == {"player_0": "max_plies", "player_1": "max_plies"}
    assert all(env.truncations.values()) and not any(env.terminations.values())


# =============================================================================================
# Giveaway
# =============================================================================================


@pytest.mark.parametrize(
    ("variant", "fen", "path", "rewards"),
    [
        # English giveaway: Black (player_0) takes White's last man; White cannot move: wins.
        ("english_giveaway", "B:W18:B14", (14, 23), {"player_0": -1.0, "player_1": 1.0}),
        # International giveaway: White (player_0) takes Black's last man; Black wins.
        ("international_giveaway", "W:W28:B22", (28, 17), {"player_0": -1.0, "player_1": 1.0}),
    ],
)
def test_giveaway_the_player_with_no_move_wins(
    variant: str, fen: str, path: Hop, rewards: dict[str, float]
) -> None:
    """RULES.md: the losing form of each variant: a player who cannot move on his turn wins."""
    env = make(variant, fen)
    play(env, *path)
    assert ended(env)["rewards"] == rewards
    assert env.infos["player_0"]["reason"] is Reason.NO_LEGAL_MOVE
    assert env.infos["player_0"]["winner"] == 1  # player_1


def test_giveaway_blocked_at_reset_wins() -> None:
    """White's man on 29 is blocked (25 taken, 22 behind it): under giveaway White wins."""
    env = make("english_giveaway", "W:W29:B22,25")
    assert env.agent_selection == "player_1"
    assert ended(env)["rewards"] == {"player_0": -1.0, "player_1": 1.0}


# =============================================================================================
# Whole games: the benchmark's random loop on every seed preset
# =============================================================================================


@pytest.mark.parametrize(
    "variant", ["international_land_behind", "website_checkers", "english_adjudicated"]
)
def test_random_games_end_with_zero_sum_rewards(variant: str) -> None:
    """Random legal hops until the game ends (``max_plies`` only guards seed 000, which has no
    ply limit): every mask equals ``legal_actions()``, rewards are 0 until the end and zero-sum
    at it, and the reason is one the rules name."""
    env = draughts_v0.env(variant=variant, max_plies=300)
    rng = np.random.default_rng(0)
    for game in range(2):
        env.reset(seed=game)
        finals: dict[str, float] = {}
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                finals[agent] = reward
                assert info["reason"].label in {
                    "no_legal_move", "repetition", "no_progress", "endgame_rule", "ply_limit",
                    "adjudication", "max_plies",
                }  # fmt: skip
                env.step(None)
                continue
            assert reward == 0.0
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.tolist() == env.unwrapped.legal_actions() and len(legal) > 0
            env.step(int(rng.choice(legal)))
        assert sum(finals.values()) == 0.0 and set(finals) == {"player_0", "player_1"}
