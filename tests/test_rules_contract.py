"""The rules contract: every switch of a Ruleset reaches the kernels, through the rules array
or the ray table (damas_env.compiled_rules) or the board's geometry, or is declared
Python-only; every choice of a Literal switch compiles to rules of its own, and the codes
round-trip. The observation planes are named once (damas_env.encoding.Plane)."""

from __future__ import annotations

import itertools
from dataclasses import fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

import numpy as np
import pytest
from helpers import RULESETS

from damas_env import compiled_rules as C
from damas_env import kernels as K
from damas_env.encoding import (
    KING_RUN_PLANE_NAMES,
    PLANE_NAMES,
    Plane,
    move_to_actions,
    other_view,
    planes_for,
)
from damas_env.engine import Colour
from damas_env.game import Game
from damas_env.geometry import geometry
from damas_env.rules import CAPTURE_TIEBREAKS, SWITCH_CHOICES, Ruleset, RulesetError, get_ruleset
from damas_env.turn import Turn

BASES = [get_ruleset(name) for name in RULESETS]
PYTHON_ONLY = dict(C.PYTHON_ONLY)

#: The slot each switch written as a code is written to (capture_tiebreaks: its first slot).
CODE_SLOTS = {
    "capture_precedence": C.R_MAJORITY,
    "promotion_in_capture": C.R_PROMO,
    "king_landing": C.R_LANDING,
    "progress": C.R_PROGRESS,
    "ply_limit_result": C.R_LIMIT_MATERIAL,
    "king_capture_weight": C.R_KING_WEIGHT,
    "capture_tiebreaks": C.R_TIEBREAK,
}


def compiled(rules: Ruleset) -> tuple[Any, ...]:
    """Returns what the kernels are given of a ruleset: its rules array, its ray table, and
    the cells of its squares on the observation planes (the layout's geometry)."""
    rays, geo = C.ray_table(rules), geometry(rules.board_size, rules.board_layout)
    cells = (geo.row.tobytes(), geo.col.tobytes())
    return C.rules_array(rules).tobytes(), rays.tobytes(), rays.shape, cells


def changed(base: Ruleset, switch: str, value: Any) -> Ruleset | None:
    """Returns `base` with one switch changed, or None where the result is not a ruleset."""
    try:
        return base.replace(**{switch: value})
    except RulesetError:
        return None


def other_values(switch: str, value: Any) -> list[Any]:
    """Returns values of a switch's type other than `value` (some may be invalid rulesets)."""
    hint = get_type_hints(Ruleset)[switch]
    if get_origin(hint) is Literal:
        candidates: list[Any] = list(get_args(hint))
    elif hint is bool:
        candidates = [not value]
    elif hint is int:
        candidates = [0, 1, 2, 3, 8, 10, 12, 100, value + 1]
    elif hint is str:
        candidates = ["another name"]
    elif hint == tuple[str, str]:
        candidates = [("red", "black"), ("white", "red")]
    elif hint == tuple[str, ...]:
        candidates = [
            order
            for n in range(len(CAPTURE_TIEBREAKS) + 1)
            for order in itertools.permutations(CAPTURE_TIEBREAKS, n)
        ]
    else:
        raise AssertionError(f"the contract test has no values for {switch}: {hint}")
    return [c for c in candidates if c != value]


def test_the_python_only_switches_are_switches() -> None:
    names = [name for name, _ in C.PYTHON_ONLY]
    assert len(set(names)) == len(names)
    assert set(names) <= {f.name for f in fields(Ruleset)}
    assert all(reason for _, reason in C.PYTHON_ONLY)


@pytest.mark.parametrize("switch", [f.name for f in fields(Ruleset)])
def test_every_switch_reaches_the_kernels_or_is_python_only(switch: str) -> None:
    checked = 0
    for base in BASES:
        for value in other_values(switch, getattr(base, switch)):
            other = changed(base, switch, value)
            if other is None:
                continue
            checked += 1
            if switch in PYTHON_ONLY:
                assert compiled(other) == compiled(base), f"{switch}={value!r} on {base.name}"
            else:
                assert compiled(other) != compiled(base), (
                    f"{switch}={value!r} on {base.name} changes nothing the kernels read: "
                    "write it in compiled_rules.rules_array or declare it in PYTHON_ONLY"
                )
    assert checked, f"no valid ruleset differs from a registered one in {switch} alone"


@pytest.mark.parametrize("switch", [s for s in SWITCH_CHOICES if s not in PYTHON_ONLY])
def test_every_choice_compiles_to_rules_of_its_own(switch: str) -> None:
    seen = set()
    for base in BASES:
        by_choice = {}
        for choice in SWITCH_CHOICES[switch]:
            other = changed(base, switch, choice)
            if other is not None:
                by_choice[choice] = compiled(other)
        assert len(set(by_choice.values())) == len(by_choice), f"{switch} on {base.name}"
        seen |= set(by_choice)
    assert seen == set(SWITCH_CHOICES[switch])


@pytest.mark.parametrize("switch", list(C.SWITCH_CODES))
def test_the_codes_are_distinct_and_round_trip(switch: str) -> None:
    codes = C.SWITCH_CODES[switch]
    choices = CAPTURE_TIEBREAKS if switch == "capture_tiebreaks" else SWITCH_CHOICES[switch]
    assert tuple(codes) == choices
    choice_of = {code: choice for choice, code in codes.items()}
    assert len(choice_of) == len(codes)
    seen = set()
    for base in BASES:
        for choice in choices:
            value = (choice,) if switch == "capture_tiebreaks" else choice
            other = changed(base, switch, value)
            if other is not None:
                assert choice_of[int(C.rules_array(other)[CODE_SLOTS[switch]])] == choice
                seen.add(choice)
    assert seen == set(choices)


def test_no_tiebreak_has_a_code_of_its_own() -> None:
    assert C.TB_NONE not in C.SWITCH_CODES["capture_tiebreaks"].values()
    assert C.rules_array(get_ruleset("international"))[C.R_TIEBREAK] == C.TB_NONE


def test_the_kernels_read_plain_int_constants() -> None:
    # numba compiles a kernel's int globals as constants; a numpy int or an enum would not do
    names = [name for name in vars(C) if name.isupper() and name in vars(K)]
    assert {"R_SQUARES", "PROMO_CROWN", "TB_EARLIEST_KING", "ENDGAME_FRISIAN"} <= set(names)
    for name in names:
        assert type(getattr(K, name)) is int and getattr(K, name) == getattr(C, name), name


def test_the_slots_fit_the_array() -> None:
    slots = {name: v for name, v in vars(C).items() if name.startswith("R_") and name != "R_LEN"}
    taken = [v + i for name, v in slots.items() for i in range(C.BLOCKS.get(name, 1))]
    assert len(set(taken)) == len(taken) == C.R_LEN
    assert C.rules_array(Ruleset()).dtype == np.int64


# --- The observation planes -----------------------------------------------------------------


def test_the_planes_are_named_once() -> None:
    assert tuple(p.name.lower() for p in Plane) == PLANE_NAMES + KING_RUN_PLANE_NAMES
    assert planes_for(get_ruleset("frisian")) == len(Plane)


def test_other_view_gives_the_other_players_planes() -> None:
    # Frisian kings and men: every plane but the capture in progress is written (king runs)
    game = Game("frisian", fen="W:WK47,36:BK4,15")
    turn = Turn(game.rules)
    turn.reset(game.board, game.turn)
    n = game.rules.board_size
    white, black = (np.zeros((len(Plane), n, n), np.float32) for _ in range(2))
    runs = 0.0
    for _ in range(6):
        kings = [m for m in game.legal_moves() if abs(int(game.board[m.squares[0]])) == 2]
        move = kings[0]
        for action in move_to_actions(move, game.turn, game.rules):
            turn.play(action)
        game.push(move)
        turn.write_planes(white, Colour.WHITE)
        turn.write_planes(black, Colour.BLACK)
        assert np.array_equal(other_view(white), black)
        assert np.array_equal(other_view(black), white)
        runs += white[Plane.OWN_KING_RUN].sum() + white[Plane.OPPONENT_KING_RUN].sum()
    assert runs > 0
