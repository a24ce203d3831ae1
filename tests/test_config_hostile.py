"""Training configs from hostile input: every bad value is a ConfigError.

A config arrives from a YAML file, from ``--set`` on the command line and from the
``config`` field of a checkpoint someone else wrote. Whatever it holds, reading it gives a
valid :class:`~damas_agents.models.config.Config` or a
:class:`~damas_agents.models.config.ConfigError` naming the key, never another exception, a NaN
or a path outside ``runs/``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import typing
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from damas_agents.models.config import (
    MAX_BLOCKS,
    MAX_CHANNELS,
    MAX_INT,
    Config,
    ConfigError,
    apply_overrides,
    config_from_dict,
    config_to_dict,
    load_config,
)
from damas_agents.training.trainer import check_device
from damas_env.rules import Ruleset


def _leaves(cls: type = Config, prefix: str = "") -> dict[str, Any]:
    """Returns every field of the config tree that holds a value, by key path, with its type."""
    found = {}
    for f in dataclasses.fields(cls):
        hint = typing.get_type_hints(cls)[f.name]
        path = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(hint):
            found.update(_leaves(hint, path + "."))  # type: ignore[arg-type]
        else:
            found[path] = hint
    return found


FIELDS = _leaves()
FLOATS = sorted(path for path, hint in FIELDS.items() if hint is float)
INTS = sorted(path for path, hint in FIELDS.items() if hint is int)
RULE_SWITCHES = [f"env.rules.{f.name}" for f in dataclasses.fields(Ruleset)]


def with_value(path: str, value: Any) -> dict[str, Any]:
    """Returns the default config as a plain mapping, with `value` at a key path."""
    data = config_to_dict(Config())
    *sections, key = path.split(".")
    node = data
    for section in sections:
        node = node[section]
    node[key] = value
    return data


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "config.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --- Regressions ----------------------------------------------------------------


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="the config is empty: it must be a mapping"):
        load_config(write(tmp_path, ""))


@pytest.mark.parametrize("path", FLOATS)
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_every_float_must_be_finite(path: str, value: float) -> None:
    with pytest.raises(ConfigError, match=f"{path} must be a finite number"):
        config_from_dict(with_value(path, value))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train: {lr: .inf}", "train.lr must be a finite number, not inf"),
        ("train: {lr: .nan}", "train.lr must be a finite number, not nan"),
        ("mcts: {c_puct: .nan}", "mcts.c_puct must be a finite number, not nan"),
        ("mcts: {dirichlet_alpha: .inf}", "mcts.dirichlet_alpha must be a finite number"),
        ("mcts: {c_puct: 0}", "mcts.c_puct must be > 0, not 0.0"),
        ("mcts: {dirichlet_alpha: -1}", "mcts.dirichlet_alpha must be > 0"),
        ("train: {lr: 0}", "train.lr must be > 0, not 0.0"),
        ("train: {weight_decay: -1e-4}", "train.weight_decay must be >= 0"),
        ("train: {lr: 1e400}", "train.lr must be a finite number"),
        ("train: {lr: 1e-320}", "train.lr must be from 1e-10 to 10.0, not 1e-320"),
        ("train: {lr: 1e-11}", "train.lr must be from 1e-10 to 10.0, not 1e-11"),
        ("train: {lr: 11.0}", "train.lr must be from 1e-10 to 10.0, not 11.0"),
        ("nnue: {tt_bits: 2}", "nnue.tt_bits must be from 4 to 26, not 2"),
        (f"network: {{channels: {MAX_CHANNELS + 1}}}", f"must be at most {MAX_CHANNELS}"),
        ("network: {channels: 200000, blocks: 50}", "network.channels must be at most"),
        (f"network: {{blocks: {MAX_BLOCKS + 1}}}", f"network.blocks must be at most {MAX_BLOCKS}"),
        ("train: {replay_size: 1000000000000}", "train.replay_size must be at most"),
        ("train: {seed: 100000000000000000000000000000}", f"must be at most {MAX_INT}"),
        ("train: {iterations: " + "9" * 5000 + "}", "not valid YAML"),
        ("env: {num_envs: 1000000}", "env.num_envs must be at most"),
        (
            "algorithm: ppo\nenv: {num_envs: 16384}\nppo: {rollout_steps: 8192}",
            "env.num_envs * ppo.rollout_steps must be at most",
        ),
        ("eval: {opponents: [bogus_agent]}", "eval.opponents[0]: unknown agent kind 'bogus_agent'"),
        ("eval: {opponents: [random, 'alphabeta:depht=2']}", "eval.opponents[1]: unknown option"),
        ("eval: {opponents: ['mcts:sims=-3']}", "eval.opponents[0]: option sims"),
        ("name: ../../x", "name must be a plain name"),
        ("name: /abs/path", "name must be a plain name"),
        ("name: .hidden", "name must be a plain name"),
        ("name: a/b", "name must be a plain name"),
        ("name: ''", "name must be a plain name"),
        ("name: 'a b'", "name must be a plain name"),
        ("name: " + "x" * 101, "name must be a plain name"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        load_config(write(tmp_path, text))
    assert message in str(error.value)
    assert len(str(error.value)) < 1000


def test_a_denormal_learning_rate_override_is_refused() -> None:
    """``--set train.lr=1e-320``: a learning rate no step moves a weight with."""
    message = "--set 'train.lr=1e-320': train.lr must be from 1e-10 to 10.0, not 1e-320"
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        apply_overrides(load_config("quickstart"), ["train.lr=1e-320"])
    assert apply_overrides(load_config("quickstart"), ["train.lr=1e-10"]).train.lr == 1e-10


@pytest.mark.parametrize("name", ["run", "quickstart", "2024", "ppo.v2", "a_b-c", "X" * 100])
def test_plain_run_names_are_accepted(name: str) -> None:
    assert config_from_dict({"name": name}).name == name


def test_a_variant_is_never_a_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("db_password: hunter2\n")
    for variant in ("/etc/passwd", str(secret), "../damas_env/presets/pool.yaml"):
        with pytest.raises(ConfigError, match="env.variant: unknown variant") as error:
            config_from_dict({"env": {"variant": variant}})
        assert "root:" not in str(error.value) and "hunter2" not in str(error.value)
        assert "db_password" not in str(error.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00garbage", "not a text file"),
        ("a: " + "[" * 5000 + "]" * 5000, "not valid YAML"),
        ("x" * (2 << 20), "a config file is at most"),
    ],
)
def test_files_that_are_not_configs(tmp_path: Path, content: str | bytes, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, content))


def test_yaml_aliases_cannot_blow_up_a_message(tmp_path: Path) -> None:
    """A billion laughs: each alias list holds nine of the one before (9**9 leaves)."""
    lists = ["&a0 [x]"] + [f"&a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    lines = [f"name: [{', '.join(lists)}]"]
    with pytest.raises(ConfigError, match="name must be str") as error:
        load_config(write(tmp_path, "\n".join(lines)))
    assert len(str(error.value)) < 1000


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("name: tiny\ntrain: {lr: 1e-3\n  db_password: hunter2\n", "at line 3, column 14"),
        ("name: tiny\n  db_password: hunter2\n", "at line 2, column 14"),
        ("name: tiny\nenv: !secret hunter2\n", "at line 2, column 6"),
        ("name: tiny\nenv: *hunter2\n", "at line 2, column 6"),
    ],
)
def test_yaml_errors_give_the_place_not_the_text(tmp_path: Path, text: str, where: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert message == f"{path}: not valid YAML {where}"
    assert "hunter2" not in message and "db_password" not in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: a\nname: b\n", "at line 2, column 1: key 'name' given twice"),
        ("train: {lr: 0.1, seed: 1, lr: 0.2}", "at line 1, column 27: key 'lr' given twice"),
        ("env:\n  rules: {}\n  rules: {}\n", "at line 3, column 3: key 'rules' given twice"),
    ],
)
def test_a_key_given_twice_is_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, text))


def test_a_merge_key_may_be_overridden(tmp_path: Path) -> None:
    text = "network: {<<: {channels: 8, blocks: 1}, channels: 16}\n"
    network = load_config(write(tmp_path, text)).network
    assert (network.channels, network.blocks) == (16, 1)


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    """A FIFO would block the read forever; a directory or a device is no config either."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path, Path("/dev/null"), Path("/dev/zero")):
        with pytest.raises(ConfigError, match="not a regular file"):
            load_config(path)
    with pytest.raises(ConfigError, match="cannot read config .*: not a valid path"):
        load_config("a\0b.yaml")


def test_an_override_is_quoted_briefly() -> None:
    long = "x" * 100_000
    items = [f"env.rules.colour_names=[{long}, y]", f"name={long}", long, f"train.lr.{long}=1"]
    for item in items + [f"{long}.a=1", f"env.rules.{long}=1", f"env.variant={long}"]:
        with pytest.raises(ConfigError) as error:
            apply_overrides(Config(), [item])
        assert len(str(error.value)) < 1000


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_cuda_is_a_config_error() -> None:
    config = config_from_dict({"network": {"device": "cuda"}})  # a checkpoint's config loads
    with pytest.raises(ConfigError, match="network.device is 'cuda' but torch .* no CUDA"):
        check_device(config)


# --- Properties -----------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["random", "greedy", "alphabeta:depth=2", "english", "cpu", "batch"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def _is_valid_or_config_error(data: Any) -> None:
    try:
        config = config_from_dict(data)
    except ConfigError as error:
        assert str(error)
        return
    assert config_from_dict(config_to_dict(config)) == config  # valid, so finite and plain


@settings(max_examples=100, deadline=None, database=None)
@given(path=st.sampled_from(sorted(FIELDS) + RULE_SWITCHES), value=_VALUES)
def test_one_field_fuzzed_gives_a_config_or_a_config_error(path: str, value: Any) -> None:
    _is_valid_or_config_error(with_value(path, value))


@settings(max_examples=50, deadline=None, database=None)
@given(path=st.sampled_from(sorted(FIELDS)), section=_VALUES)
def test_a_section_fuzzed_gives_a_config_or_a_config_error(path: str, section: Any) -> None:
    data = config_to_dict(Config())
    data[path.split(".")[0]] = section
    _is_valid_or_config_error(data)


@settings(max_examples=100, deadline=None, database=None)
@given(path=st.sampled_from(sorted(FIELDS) + RULE_SWITCHES), text=st.text(max_size=40))
def test_an_override_fuzzed_gives_a_config_or_a_config_error(path: str, text: str) -> None:
    try:
        config = apply_overrides(Config(), [f"{path}={text}"])
    except ConfigError:
        return
    assert config_from_dict(config_to_dict(config)) == config
