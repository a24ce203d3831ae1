"""Perft from published tables (tests/data/perft.yaml, each entry citing its source)."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from damas_env import Position
from damas_env import kernels as K

TABLES = yaml.safe_load((Path(__file__).parent / "data" / "perft.yaml").read_text())


def _cases(slow: bool) -> list:
    cases = []
    for t in TABLES:
        for depth, count in enumerate(t["counts"], 1):
            if (depth > t["fast"]) == slow:
                marks = [pytest.mark.slow] if slow else []
                bug = t.get("xfail")  # a known engine error from this depth on
                if bug and depth >= bug["from"]:
                    marks.append(pytest.mark.xfail(strict=True, reason=bug["reason"]))
                cases.append(pytest.param(t, depth, count, id=f"{t['name']}-{depth}", marks=marks))
    return cases


@pytest.mark.parametrize(("table", "depth", "count"), _cases(slow=False))
def test_perft(table: dict, depth: int, count: int) -> None:
    assert Position.from_fen(table["fen"], table["variant"]).perft(depth) == count


@pytest.mark.parametrize(("table", "depth", "count"), _cases(slow=True))
def test_perft_deep(table: dict, depth: int, count: int) -> None:
    assert Position.from_fen(table["fen"], table["variant"]).perft(depth) == count


def test_fen_of_start_positions_matches_tables() -> None:
    for t in TABLES:
        if "start" in t["name"]:
            assert Position.start(t["variant"]).fen() == t["fen"]


@pytest.mark.parametrize("variant", ["canadian", "pool", "english_giveaway"])
def test_other_variants_have_start_branching(variant: str) -> None:
    # Every variant's first move is one of the men of the front row stepping forward:
    # on 12x12 the six front men have 11 steps; on 8x8 there are 7.
    expected = {"canadian": 11, "pool": 7, "english_giveaway": 7}[variant]
    assert Position.start(variant).perft(1) == expected


def test_move_lists_grow_four_times_to_the_need_and_to_the_cap() -> None:
    lists = np.ones((3, 8, K.MOVE_WIDTH), dtype=np.int16)
    assert K.grown_move_buffer(lists, 0, 1000).shape == (3, 32, K.MOVE_WIDTH)
    assert K.grown_move_buffer(lists, 100, 1000).shape == (3, 100, K.MOVE_WIDTH)
    assert K.grown_move_buffer(lists, 0, 20).shape == (3, 20, K.MOVE_WIDTH)
    assert not K.grown_move_buffer(lists[0], 0, 1000).any()
    with pytest.raises(OverflowError, match="more than 8 capture routes in one position"):
        K.grown_move_buffer(lists, 9, 8, "capture routes")
