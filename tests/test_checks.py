"""The shared helpers of damas_env.checks and damas_agents.extras: the one builder of typed
dataclasses from plain values, and the one resolver of ``module:attr`` names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from damas_agents.extras import import_target
from damas_agents.players.classic import RandomAgent
from damas_agents.specs import KINDS
from damas_env.checks import dataclass_from_dict, plain_fields, type_name, unknown_key_error
from damas_env.rules import Ruleset


@dataclass(frozen=True)
class Inner:
    size: int = 1
    rate: float = 0.5
    mode: Literal["a", "b"] = "a"


@dataclass(frozen=True)
class Outer:
    label: str = "x"
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    inner: Inner = field(default_factory=Inner)


def test_a_dataclass_is_built_from_plain_values() -> None:
    built = dataclass_from_dict(
        Outer, {"tags": ["p", "q"], "inner": {"size": 3, "rate": 2, "mode": "b"}}
    )
    assert built == Outer(tags=("p", "q"), inner=Inner(size=3, rate=2.0, mode="b"))
    assert isinstance(built.inner.rate, float)
    assert dataclass_from_dict(Outer, None) == Outer()
    assert dataclass_from_dict(Outer, {"inner": None}) == Outer()


@pytest.mark.parametrize(
    "data, message",
    [
        ([1], "the thing must be a mapping of keys to values, not [1]"),
        ({"inner": 3}, "inner must be a mapping of keys to values, not 3"),
        ({"inner": {"sise": 2}}, "unknown key 'inner.sise' (did you mean 'size'?); known keys"),
        ({"inner": {"size": True}}, "inner.size must be int, not True"),
        ({"inner": {"rate": "fast"}}, "inner.rate must be float, not 'fast'"),
        ({"inner": {"rate": 10**400}}, "inner.rate must be a finite number"),
        ({"inner": {"rate": float("nan")}}, "inner.rate must be a finite number, not nan"),
        ({"inner": {"mode": "c"}}, "inner.mode must be one of 'a', 'b', not 'c'"),
        ({"tags": "p"}, "tags must be a list of str, not 'p'"),
        ({"tags": ["p", 2]}, "tags[1] must be str, not 2"),
        ({"extra": {1: 2}}, "extra must be a mapping, not {1: 2}"),
    ],
)
def test_a_wrong_value_is_named_by_its_key_path(data: Any, message: str) -> None:
    with pytest.raises(KeyError) as caught:
        dataclass_from_dict(Outer, data, name="the thing", error=KeyError)
    assert caught.value.args[0].startswith(message)


def test_the_number_check_sees_every_number_with_its_path() -> None:
    seen: list[tuple[Any, str]] = []
    dataclass_from_dict(
        Outer, {"inner": {"size": 4, "rate": 1}}, check=lambda v, p: seen.append((v, p))
    )
    assert seen == [(4, "inner.size"), (1.0, "inner.rate")]


def test_type_names_and_unknown_keys() -> None:
    assert type_name(int) == "int"
    assert type_name(tuple[Literal["x", "y"], ...]) == "a list of one of 'x', 'y'"
    assert type_name(dict[str, Any]) == "a mapping"
    error = unknown_key_error("sise", ["size", "rate"], "inner.sise", LookupError)
    assert isinstance(error, LookupError)
    assert (
        str(error) == "unknown key 'inner.sise' (did you mean 'size'?); known keys here: size, rate"
    )


def test_plain_fields_turn_the_lists_of_tuple_fields_into_tuples_and_leave_the_rest() -> None:
    switches = {"colour_names": ["red", "white"], "capture_tiebreaks": [], "board_size": [8]}
    assert plain_fields(Ruleset, {**switches, "bogus": [1]}) == {
        "colour_names": ("red", "white"),
        "capture_tiebreaks": (),
        "board_size": [8],  # the Ruleset refuses it, with its own message
        "bogus": [1],
    }


def test_import_target_resolves_every_agent_kind() -> None:
    assert import_target("damas_agents.players.classic:RandomAgent") is RandomAgent
    for kind in KINDS.values():
        built = import_target(kind.target)  # the modules import their extras only when used
        assert callable(built) and built.__name__ == kind.target.partition(":")[2]


def test_import_target_resolves_every_training_algorithm() -> None:
    pytest.importorskip("torch")
    from damas_agents.training.trainer import ALGORITHMS

    for target in ALGORITHMS.values():
        assert import_target(target).__name__ == target.partition(":")[2]


def test_import_target_resolves_every_command() -> None:
    from damas_agents.command import COMMANDS

    for _, target in COMMANDS.values():
        assert callable(import_target(target)), target


@pytest.mark.parametrize("target", ["damas_agents.players.classic", ":RandomAgent", "a:b:c"])
def test_import_target_refuses_a_malformed_name(target: str) -> None:
    with pytest.raises(ValueError, match="is not a 'module:attr' name"):
        import_target(target)


def test_import_target_names_a_missing_attribute_or_module() -> None:
    with pytest.raises(AttributeError, match="damas_agents.players.classic has no attribute"):
        import_target("damas_agents.players.classic:NoSuchAgent")
    with pytest.raises(ModuleNotFoundError):
        import_target("damas_agents.no_such_module:Agent")
