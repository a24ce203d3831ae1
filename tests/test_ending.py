"""The end of a game in one place: the Reason codes and labels, rewards by player, termination
versus truncation, and the final observation."""

from __future__ import annotations

import numpy as np
import pytest

from damas_env import Colour, Position, get_ruleset
from damas_env import kernels as K
from damas_env.encoding import PLANES
from damas_env.ending import (
    Ending,
    Reason,
    decided_ending,
    end_of_move,
    rules_ending,
    truncates,
)
from damas_env.game import Reason as GameReason
from damas_env.turn import Turn, direct_call

WHITE_WINS_AT_ONCE = "W:W27:B23"  # English: 27x18 takes Black's last man


def test_one_reason_enum_with_labels() -> None:
    assert GameReason is Reason is K.Reason
    assert [int(r) for r in Reason] == list(range(11))
    assert Reason.NONE.label == "" and Reason.NO_LEGAL_MOVE.label == "no_legal_move"
    for reason in Reason:
        assert Reason.from_label(reason.label) is reason
    with pytest.raises(ValueError, match="no reason is labelled 'resigned'"):
        Reason.from_label("resigned")
    assert [r for r in Reason if truncates(int(r))] == [Reason.MAX_PLIES]


def test_decided_endings_give_the_winner_one_and_the_loser_minus_one() -> None:
    white = int(Colour.WHITE)
    assert decided_ending(1, white, Reason.TIME) == Ending(Reason.TIME, 1, (-1.0, 1.0), False)
    assert decided_ending(0, 1 - white, "time").rewards == (1.0, -1.0)  # a label: its Reason
    assert decided_ending(0, 1 - white, "time").reason is Reason.TIME
    assert decided_ending(None, white, Reason.TIME).rewards == (0.0, 0.0)
    lost = decided_ending(0, white, Reason.ILLEGAL_ACTION, loser_only=True)
    assert lost == Ending(Reason.ILLEGAL_ACTION, 0, (0.0, -1.0), False)


@pytest.mark.parametrize(
    ("reason", "error", "message"),
    [
        (
            "resigned",
            ValueError,
            r"one of its labels \['no_legal_move', .*'time', 'first_king'\], not 'resigned'",
        ),
        (Reason.NONE, ValueError, "not Reason.NONE"),
        ("", ValueError, "not Reason.NONE"),
        (9, TypeError, "reason must be a Reason or its label, not int"),
        (None, TypeError, "reason must be a Reason or its label, not NoneType"),
    ],
)
def test_a_decided_ending_needs_a_reason_that_infos_can_hold(
    reason: object, error: type[Exception], message: str
) -> None:
    """Infos hold a Reason (a number), so a wrapper's own name for an ending is refused."""
    with pytest.raises(error, match=message):
        decided_ending(0, int(Colour.WHITE), reason)  # type: ignore[arg-type]


def test_rules_endings_and_the_ply_cut() -> None:
    rules = get_ruleset("english")
    first = int(Colour.BLACK)  # English: Black (player_0) moves first
    turn = Turn(rules)
    start = Position.start(rules)
    turn.reset(start.board, start.turn)
    assert rules_ending(turn, first, 0) is None
    turn.play(turn.legal_actions()[0])
    assert rules_ending(turn, first, 0) is None
    assert rules_ending(turn, first, 1) == Ending(Reason.MAX_PLIES, None, (0.0, 0.0), True)
    won = Position.from_fen(WHITE_WINS_AT_ONCE, rules)
    turn.reset(won.board, won.turn)
    turn.play(turn.legal_actions()[0])
    ending = rules_ending(turn, first, 1)
    assert ending == Ending(Reason.NO_LEGAL_MOVE, 1, (-1.0, 1.0), False)
    assert ending is not None and type(ending.reason) is Reason


def test_end_of_move_writes_rewards_and_the_final_observation() -> None:
    rules = get_ruleset("english")
    turn = Turn(rules)
    won = Position.from_fen(WHITE_WINS_AT_ONCE, rules)
    turn.reset(won.board, won.turn)
    turn.play(turn.legal_actions()[0])
    n = rules.board_size
    rewards = np.zeros(2, np.float32)
    final = np.zeros((PLANES, n, n), np.float32)
    args = (turn.states, 0, turn.tables, int(Colour.BLACK), 0, rewards, final)
    assert direct_call(end_of_move, None, *args) == Reason.NO_LEGAL_MOVE
    assert rewards.tolist() == [-1.0, 1.0]
    expected = np.zeros_like(final)
    turn.write_planes(expected, turn.side)
    assert np.array_equal(final, expected) and final.any()


def test_a_reason_prints_as_its_label_and_batches_as_its_code() -> None:
    import json

    from damas_env.ending import Reason

    assert str(Reason.NO_LEGAL_MOVE) == "no_legal_move" == f"{Reason.NO_LEGAL_MOVE}"
    assert str(Reason.NONE) == "none"
    assert f"{Reason.REPETITION:d}" == "2" and int(Reason.REPETITION) == 2
    assert json.dumps({"reason": Reason.TIME}) == '{"reason": 9}'
    assert repr(Reason.TIME) == "<Reason.TIME: 9>"
