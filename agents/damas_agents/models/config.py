"""Training configs: frozen dataclasses that YAML files and ``--set key=value`` map onto.

    config = load_config("quickstart")          # a file, or a bundled config's name
    config = apply_overrides(config, ["train.lr=3e-4", "mcts.simulations=64"])
    save_config(config, run_dir / "config.yaml")

One dataclass per section (``env``, ``network``, ``train``, ``mcts``, ``ppo``, ``nnue``,
``eval``, ``distributed``), each field with a docstring and a default. Unknown keys, wrong
types, numbers out of range and keys given twice are :class:`ConfigError` s naming the key
path; numbers follow YAML 1.2, so ``3e-4`` is a float. ``env.rules`` overrides the
variant's rule switches, checked by the engine.
"""

from __future__ import annotations

import dataclasses
import os
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

import damas_agents.configs as _configs
from damas_agents.files import write_atomically
from damas_agents.specs import parse_spec
from damas_env.checks import (
    DuplicateKeyError,
    dataclass_from_dict,
    did_you_mean,
    load_yaml,
    read_regular_file,
    shown,
    unknown_key_error,
    yaml_error_place,
)
from damas_env.rules import Ruleset, RulesetError, get_ruleset, tuples_for_lists

__all__ = [
    "CONFIGS_DIR",
    "MAX_BLOCKS",
    "MAX_CHANNELS",
    "MAX_INT",
    "MAX_LR",
    "MAX_VALUE_HIDDEN",
    "MIN_LR",
    "Config",
    "ConfigError",
    "DistributedConfig",
    "EnvConfig",
    "EvalConfig",
    "MCTSConfig",
    "NNUEConfig",
    "NetworkConfig",
    "PPOConfig",
    "TrainConfig",
    "apply_overrides",
    "config_from_dict",
    "config_names",
    "config_to_dict",
    "config_to_yaml",
    "fingerprint_mismatches",
    "load_config",
    "save_config",
]


class ConfigError(ValueError):
    """Raised for an unknown key, a value of the wrong type or an invalid value in a config."""


# --- Sections -------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnvConfig:
    """The game played and the batch of self-play games."""

    variant: str = "english"
    """Name of a registered ruleset (``damas rules`` lists them); never a file path."""

    rules: dict[str, Any] = field(default_factory=dict)
    """Rule switch overrides of the variant (fields of :class:`damas_env.rules.Ruleset`)."""

    num_envs: int = 64
    """Games played at once in self-play (the batch env's size)."""

    max_plies: int = 0
    """Truncate a self-play game after this many plies; 0: only the rules end games."""

    opening_plies: int = 0
    """Random plies played from the start position of each game, for variety."""

    def ruleset(self) -> Ruleset:
        """Returns the ruleset of the variant with the overrides applied."""
        rules = tuples_for_lists(dict(self.rules))  # YAML has lists, the engine tuples
        return get_ruleset(self.variant, **rules)


@dataclass(frozen=True)
class NetworkConfig:
    """Shape of the residual network (see :mod:`damas_agents.models.network`) and where it
    runs."""

    channels: int = 64
    """Channels of the stem and of every residual block."""

    blocks: int = 4
    """Residual blocks after the stem."""

    norm: Literal["batch", "group"] = "batch"
    """Normalisation in the convolutions: "batch" (BatchNorm2d) or "group" (GroupNorm, which
    behaves the same in train and eval mode and for batches of one)."""

    value_hidden: int = 64
    """Width of the value head's hidden layer."""

    device: Literal["auto", "cpu", "cuda"] = "auto"
    """Where the network runs; "auto" picks CUDA when it is available."""


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation and the length of the run."""

    seed: int = 0
    """Seed of torch, numpy and the batch env."""

    iterations: int = 100
    """Training iterations (self-play games, then updates) in the run."""

    lr: float = 1e-3
    """Learning rate of the optimiser (AdamW)."""

    weight_decay: float = 1e-4
    """AdamW weight decay."""

    batch_size: int = 256
    """Positions per gradient step (AlphaZero; PPO splits its rollout in ppo.num_minibatches)."""

    updates_per_iteration: int = 32
    """Gradient steps per iteration: minibatches drawn from the replay buffer (AlphaZero; PPO
    makes ppo.update_epochs * ppo.num_minibatches)."""

    replay_size: int = 100_000
    """Positions kept in the replay buffer (AlphaZero)."""

    value_loss_weight: float = 1.0
    """Weight of the value loss against the policy loss (AlphaZero; PPO: ppo.vf_coef)."""

    max_grad_norm: float = 1.0
    """Gradients are clipped to this global norm; 0 turns clipping off."""

    checkpoint_every: int = 10
    """Iterations between checkpoints (the latest is always kept)."""

    log_every: int = 1
    """Iterations between summary lines and TensorBoard points."""

    torch_threads: int = 0
    """Threads torch uses for the network (intra-op); 0 keeps torch's default (one per core).
    On a machine shared with other jobs, 1 is often faster than oversubscribed cores."""


@dataclass(frozen=True)
class MCTSConfig:
    """Batched PUCT search of the AlphaZero agent."""

    simulations: int = 64
    """Simulations (leaf evaluations) per searched hop."""

    c_puct: float = 1.5
    """Exploration constant of PUCT."""

    dirichlet_alpha: float = 0.3
    """Concentration of the Dirichlet noise mixed into the root priors in self-play."""

    dirichlet_fraction: float = 0.25
    """Weight of the Dirichlet noise in the root priors (0 turns the noise off)."""

    temperature_moves: int = 10
    """Plies played in proportion to visit counts (temperature 1); greedy afterwards."""

    virtual_loss: float = 1.0
    """Value subtracted from a node while a leaf under it waits for its evaluation, so one
    game's parallel simulations spread over different leaves."""

    leaves_per_game: int = 8
    """Leaves one game collects before the network evaluates them all in one call."""

    steps_per_iteration: int = 16
    """Searched hops each of the ``env.num_envs`` self-play games advances per iteration
    (forced hops, with one legal choice, are played without a search and not counted)."""


@dataclass(frozen=True)
class PPOConfig:
    """Self-play PPO (CleanRL's names)."""

    rollout_steps: int = 128
    """Batch env steps per rollout."""

    gamma: float = 1.0
    """Discount factor (draughts ends in a win, loss or draw, so 1 is natural)."""

    gae_lambda: float = 0.95
    """Lambda of generalised advantage estimation."""

    update_epochs: int = 4
    """Passes over each rollout."""

    num_minibatches: int = 4
    """Minibatches per pass."""

    clip_coef: float = 0.2
    """PPO's surrogate clipping coefficient."""

    ent_coef: float = 0.01
    """Weight of the entropy bonus."""

    vf_coef: float = 0.5
    """Weight of the value loss."""

    pool_size: int = 10
    """Past selves kept as opponents, against collapse."""

    self_play_fraction: float = 0.5
    """Share of games against the current network (the rest: the pool and the baselines)."""

    snapshot_every: int = 10
    """Iterations between snapshots of the network added to the opponent pool."""


@dataclass(frozen=True)
class NNUEConfig:
    """A learned evaluation inside the alpha-beta search, trained by its self-play
    (:mod:`damas_agents.training.nnue`)."""

    hidden: int = 64
    """Width H of the first layer (the accumulators updated move by move in the search)."""

    hidden2: int = 16
    """Width of the second layer."""

    depth: int = 4
    """Plies the self-play search looks ahead at every move (captures are searched on)."""

    games_per_iteration: int = 64
    """Self-play games per iteration."""

    workers: int = 2
    """Processes playing the self-play games; 1: in the training process."""

    random_move_fraction: float = 0.0
    """Chance that a self-play move is uniformly random instead of the search's (variety)."""

    result_fraction: float = 0.3
    """Weight of the game's result in the value target; the rest is the search's score."""

    score_scale: float = 150.0
    """Centi-men K of the win probability sigmoid(score / K) that scores are trained as."""

    tt_bits: int = 18
    """The self-play search's transposition table holds 2**tt_bits entries."""

    play_depth: int = 6
    """Depth the trained agent searches when it plays (arena, evaluation)."""

    start: Literal["table", "zero"] = "table"
    """The network a run starts from: "table" evaluates as the classical piece-square table
    (material, advancement, centre); "zero" knows nothing (every position scores 0)."""


@dataclass(frozen=True)
class EvalConfig:
    """Periodic evaluation in the arena."""

    every: int = 10
    """Iterations between evaluations; 0 turns evaluation off."""

    games: int = 40
    """Games against each opponent (half with each colour)."""

    opponents: tuple[str, ...] = ("random", "greedy", "alphabeta:depth=2")
    """Arena agent specs played against."""

    simulations: int = 0
    """MCTS simulations of the evaluated agent; 0: the network's policy alone."""

    rate: bool = False
    """Also rate the agent on the variant's reference pool (``damas rate``): the Elo and its
    95% interval go to the metrics as ``eval/rate/elo`` (``elo_low``, ``elo_high``)."""

    rate_games: int = 100
    """The most games a rating plays (it stops sooner at ±50 Elo)."""


@dataclass(frozen=True)
class DistributedConfig:
    """Where self-play runs: in this process, or in Ray actors feeding this learner."""

    backend: Literal["none", "ray"] = "none"
    """"none": self-play in the training process; "ray": in ``workers`` Ray actors."""

    workers: int = 2
    """Self-play workers (Ray actors), each playing ``env.num_envs`` games."""

    address: str = ""
    """Ray cluster to join: "" starts a local Ray in this process, "auto" joins the cluster
    this machine belongs to, "ray://host:10001" a remote one."""

    max_restarts: int = 10
    """Worker deaths tolerated in a run (each dead worker is replaced, its games dropped);
    one more stops the run with an error."""

    worker_cpus: float = 1.0
    """CPUs Ray reserves for each worker."""


@dataclass(frozen=True)
class Config:
    """A training run: the algorithm and every section."""

    name: str = "run"
    """Name of the run (the default run directory is ``runs/<name>-<timestamp>``)."""

    algorithm: Literal["alphazero", "ppo", "nnue"] = "alphazero"
    """Training algorithm: "alphazero" (MCTS self-play), "ppo", or "nnue" (a learned
    evaluation inside the alpha-beta search, trained by its self-play)."""

    env: EnvConfig = field(default_factory=EnvConfig)
    """The game and the self-play batch."""

    network: NetworkConfig = field(default_factory=NetworkConfig)
    """The network's shape and device."""

    train: TrainConfig = field(default_factory=TrainConfig)
    """Optimisation and run length."""

    mcts: MCTSConfig = field(default_factory=MCTSConfig)
    """Search (AlphaZero)."""

    ppo: PPOConfig = field(default_factory=PPOConfig)
    """PPO."""

    nnue: NNUEConfig = field(default_factory=NNUEConfig)
    """The learned alpha-beta evaluation (nnue)."""

    eval: EvalConfig = field(default_factory=EvalConfig)
    """Evaluation against the baselines."""

    distributed: DistributedConfig = field(default_factory=DistributedConfig)
    """Self-play in Ray workers (off by default)."""

    def fingerprint(self) -> dict[str, Any]:
        """Returns what a checkpoint must share with this config to be loaded or resumed.

        That is the ruleset's switches (with the variant's overrides applied) and the network's
        shape; the learning rate, search budget and the rest may change between runs.
        """
        net = self.network
        if self.algorithm == "nnue":
            shape = {"hidden": self.nnue.hidden, "hidden2": self.nnue.hidden2}
            return {"rules": self.env.ruleset().to_dict(), "nnue": shape}
        return {
            "rules": self.env.ruleset().to_dict(),
            "network": {
                "channels": net.channels,
                "blocks": net.blocks,
                "norm": net.norm,
                "value_hidden": net.value_hidden,
            },
        }


# --- Positive and bounded fields ------------------------------------------------------------

#: Largest network shape a config (or a checkpoint's config) may describe, checked before any
#: tensor is allocated: 512 channels and 40 blocks make about 190 M parameters (0.75 GB).
MAX_CHANNELS = 512
MAX_BLOCKS = 40
MAX_VALUE_HIDDEN = 4096

#: Largest value of any integer field (a 32-bit int: seeds, counts and plies all fit).
MAX_INT = 2**31 - 1

#: Largest learning rate (and weight decay): Adam trains at 1e-5 to 1e-2, and a step of 10
#: throws any network away. A checkpoint holding more is refused as well.
MAX_LR = 10.0
#: Smallest learning rate: below it a step moves no float32 weight of a usual size (and a
#: denormal one is a typo). A checkpoint holding less is refused as well.
MIN_LR = 1e-10

#: Upper bounds of the fields that size buffers, so that no config allocates terabytes.
_MAXIMA = {
    "network.channels": MAX_CHANNELS,
    "network.blocks": MAX_BLOCKS,
    "network.value_hidden": MAX_VALUE_HIDDEN,
    "env.num_envs": 16_384,
    "env.opening_plies": 60,  # a random opening that ends the game is drawn again
    "train.replay_size": 5_000_000,
    "train.batch_size": 65_536,
    "train.torch_threads": 1024,
    "mcts.simulations": 100_000,
    "mcts.leaves_per_game": 1024,
    "ppo.rollout_steps": 8192,
    "ppo.pool_size": 1000,
    "distributed.workers": 1024,
    "nnue.hidden": 1024,
    "nnue.hidden2": 256,
    "nnue.depth": 32,
    "nnue.play_depth": 64,
    "nnue.games_per_iteration": 100_000,
    "nnue.workers": 256,
    "nnue.tt_bits": 26,
    "train.lr": MAX_LR,
    "train.weight_decay": MAX_LR,
}

#: Lower bounds other than 0, by key path.
_MINIMA = {"nnue.tt_bits": 4, "train.lr": MIN_LR}

#: Most positions one PPO rollout holds (``env.num_envs * ppo.rollout_steps``).
MAX_ROLLOUT_POSITIONS = 2**22

#: Fields that must be > 0 (others ints must be >= 0), by key path.
_POSITIVE = frozenset(
    {
        "env.num_envs",
        "network.channels",
        "network.value_hidden",
        "train.iterations",
        "train.lr",
        "train.batch_size",
        "train.updates_per_iteration",
        "train.replay_size",
        "train.checkpoint_every",
        "train.log_every",
        "mcts.simulations",
        "mcts.c_puct",
        "mcts.dirichlet_alpha",
        "mcts.leaves_per_game",
        "mcts.steps_per_iteration",
        "ppo.rollout_steps",
        "ppo.update_epochs",
        "ppo.num_minibatches",
        "ppo.pool_size",
        "ppo.snapshot_every",
        "eval.games",
        "eval.rate_games",
        "distributed.workers",
        "distributed.worker_cpus",
        "nnue.hidden",
        "nnue.hidden2",
        "nnue.depth",
        "nnue.play_depth",
        "nnue.games_per_iteration",
        "nnue.workers",
        "nnue.score_scale",
    }
)
#: Fields that are fractions in [0, 1], by key path.
_FRACTIONS = frozenset(
    {
        "mcts.dirichlet_fraction",
        "ppo.gamma",
        "ppo.gae_lambda",
        "ppo.self_play_fraction",
        "nnue.random_move_fraction",
        "nnue.result_fraction",
    }
)

#: A run name: a plain directory name under ``runs/`` (no path, not hidden).
_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")


def _check_range(value: int | float, path: str) -> None:
    """Raises a ConfigError if a number is outside its field's range."""
    if path in _POSITIVE and value <= 0:
        raise ConfigError(f"{path} must be > 0, not {shown(value)}")
    if path in _FRACTIONS and not 0 <= value <= 1:
        raise ConfigError(f"{path} must be in [0, 1], not {shown(value)}")
    if value < 0:
        raise ConfigError(f"{path} must be >= 0, not {shown(value)}")
    low, top = _MINIMA.get(path), _MAXIMA.get(path, MAX_INT)
    bounded = isinstance(value, int) or path in _MAXIMA
    if (low is not None and value < low) or (bounded and value > top):
        accepted = f"at most {top}" if low is None else f"from {low} to {top}"
        raise ConfigError(f"{path} must be {accepted}, not {shown(value)}")


# --- From plain values ----------------------------------------------------------------------


def _unknown_key(key: str, known: list[str], path: str) -> Exception:
    return unknown_key_error(key, known, path, ConfigError)


_RULE_SWITCHES = [f.name for f in dataclasses.fields(Ruleset)]


def _check_rules(env: EnvConfig) -> None:
    """Raises a ConfigError naming the key if the engine refuses the variant or an override."""
    for key in env.rules:
        if key not in _RULE_SWITCHES:
            raise _unknown_key(key, _RULE_SWITCHES, f"env.rules.{key}")
    try:
        get_ruleset(env.variant)
    except (RulesetError, ValueError, OSError) as error:
        raise ConfigError(f"env.variant: {error}") from error
    try:
        env.ruleset()
    except (RulesetError, ValueError, TypeError) as error:
        raise ConfigError(f"env.rules: {error}") from error


def _check_name(name: str) -> None:
    """Raises a ConfigError unless the run name is a plain directory name (stays in runs/)."""
    if not _NAME.fullmatch(name):
        raise ConfigError(
            f"name must be a plain name of at most 100 letters, digits, '.', '_' and '-', "
            f"not starting with '.', not {shown(name)}"
        )


def _check_opponents(config: EvalConfig) -> None:
    """Raises a ConfigError naming the entry if an opponent is not a valid agent spec."""
    for i, spec in enumerate(config.opponents):
        try:
            parse_spec(spec)
        except ValueError as error:
            raise ConfigError(f"eval.opponents[{i}]: {error}") from error


def _check_rollout(config: Config) -> None:
    """Raises a ConfigError if one PPO rollout would hold too many positions."""
    positions = config.env.num_envs * config.ppo.rollout_steps
    if config.algorithm == "ppo" and positions > MAX_ROLLOUT_POSITIONS:
        raise ConfigError(
            f"env.num_envs * ppo.rollout_steps must be at most {MAX_ROLLOUT_POSITIONS} "
            f"positions per rollout, not {positions}"
        )


def config_from_dict(data: Any) -> Config:
    """Returns the config a plain mapping (as read from YAML) describes.

    Raises:
        ConfigError: an unknown key, a value of the wrong type or out of range, or a ruleset
            the engine refuses; the message names the key path.
    """
    if data is None:
        raise ConfigError(
            "the config is empty: it must be a mapping of keys to values "
            "(see configs/quickstart.yaml)"
        )
    config = dataclass_from_dict(
        Config, data, name="the config", error=ConfigError, check=_check_range
    )
    _check_name(config.name)
    _check_rules(config.env)
    _check_opponents(config.eval)
    _check_rollout(config)
    return config


def config_to_dict(config: Config) -> dict[str, Any]:
    """Returns the config as plain YAML/JSON-ready values (tuples become lists)."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    return plain(dataclasses.asdict(config))


# --- YAML -----------------------------------------------------------------------------------


#: Largest config file read, in bytes (a real one is a few hundred).
MAX_CONFIG_BYTES = 1 << 20


def _parse_yaml(text: str) -> Any:
    """Returns the plain values of a YAML text.

    Raises:
        ConfigError: the text is not YAML; the message gives the line and column of the error,
            never the text there (a config may hold secrets on the lines around it).
    """
    try:
        return load_yaml(text)
    except RecursionError:
        raise ConfigError("not valid YAML: nested too deeply") from None
    except yaml.MarkedYAMLError as error:
        where = yaml_error_place(error)
        what = f": {error.problem}" if isinstance(error, DuplicateKeyError) else ""
        raise ConfigError(f"not valid YAML{where}{what}") from None
    except (yaml.YAMLError, ValueError):  # ValueError: an int of too many digits
        raise ConfigError("not valid YAML") from None


def _read_text(path: Path) -> str:
    """Returns the text of a config file: a regular file of UTF-8 text, read without blocking.

    Raises:
        ConfigError: the file cannot be read, is not a regular file (a FIFO, a device, a
            directory), is not UTF-8 or is longer than :data:`MAX_CONFIG_BYTES`.
    """
    try:
        raw = read_regular_file(path, MAX_CONFIG_BYTES + 1)
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = error.strerror if isinstance(error, OSError) else "not a valid path"
        raise ConfigError(f"cannot read config {shown(str(path))}: {reason}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: a config file is at most {MAX_CONFIG_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not a text file (not UTF-8): {error.reason}") from None


def load_config(path: str | Path) -> Config:
    """Returns the config of a YAML file, or of the bundled config of that name.

    A bare word (no folder, no ``.yaml`` or ``.yml`` suffix) that is not a file in the working
    directory names a bundled config (:func:`config_names`, e.g. ``"quickstart"``); anything
    else is a file path. A name only ever selects from the bundled set, never another file.

    Raises:
        ConfigError: the file is missing, not a regular file or not YAML, the name is not a
            bundled config (the message lists them and suggests the closest), or the content
            is invalid (see :func:`config_from_dict`); the message names the file and the key
            path, but never quotes the file's lines.
    """
    path = _bundled(path) if _is_config_name(path) else Path(path)
    try:
        text = _read_text(path)
    except ConfigError as error:
        raise ConfigError(f"{error}{_bundled_hint(path)}") from None
    try:
        return config_from_dict(_parse_yaml(text))
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from error


#: Folder of the training configs shipped in the package (``configs/`` in the source tree).
CONFIGS_DIR = Path(_configs.__file__).resolve().parent
_CONFIG_NAME = re.compile(r"[a-z0-9_]+")


def config_names() -> list[str]:
    """Returns the names of the bundled training configs, which :func:`load_config` accepts."""
    paths = CONFIGS_DIR.glob("*.yaml") if CONFIGS_DIR.is_dir() else []
    return sorted(p.stem for p in paths if _CONFIG_NAME.fullmatch(p.stem))


def _is_config_name(path: str | Path) -> bool:
    """Returns whether a config argument is a bundled config's name rather than a file path."""
    text = str(path)
    if any(sep and sep in text for sep in ("/", os.sep, os.altsep)):
        return False
    if text.lower().endswith((".yaml", ".yml")):
        return False
    return not os.path.lexists(text) or os.path.isdir(text)


def _bundled(name: str | Path) -> Path:
    """Returns the file of the bundled config called `name`.

    Raises:
        ConfigError: no bundled config has that name.
    """
    names = config_names()
    if str(name) in names:
        return CONFIGS_DIR / f"{name}.yaml"  # from the listing: no name from input opens a file
    hint = did_you_mean(str(name).lower(), names)
    raise ConfigError(
        f"no config file or bundled config {shown(str(name))}{hint}; "
        f"bundled configs: {', '.join(names) or 'none'}"
    )


def _bundled_hint(path: Path) -> str:
    """Returns, for a missing file named like a bundled config (``configs/quickstart.yaml``
    outside the source tree), how to name the bundled one instead; else ""."""
    if os.path.lexists(path) or path.suffix.lower() not in (".yaml", ".yml"):
        return ""
    if path.stem not in config_names():
        return ""
    return f"; the bundled config of that name is {path.stem!r} (give the name alone)"


def config_to_yaml(config: Config) -> str:
    """Returns the config as YAML text that :func:`load_config` reads back to an equal config."""
    return yaml.safe_dump(config_to_dict(config), sort_keys=False)


def save_config(config: Config, path: str | Path) -> None:
    """Writes the config as YAML to `path`, atomically (a full disk leaves the old file).

    Raises:
        WriteError: the file could not be written; the message names it.
    """
    write_atomically(path, config_to_yaml(config).encode("utf-8"))


# --- Overrides ------------------------------------------------------------------------------


def _hint_at(keys: list[str]) -> Any:
    """Returns the type of the field at a key path, or None if there is no such field."""
    hint: Any = Config
    for key in keys:
        if not dataclasses.is_dataclass(hint):
            return None
        hint = typing.get_type_hints(hint).get(key)
    return hint


def _parse_override(item: str) -> tuple[list[str], Any]:
    key, sep, text = item.partition("=")
    key = key.strip()
    if not sep or not key or any(not part for part in key.split(".")):
        raise ConfigError(f"override {shown(item)} must look like section.key=value")
    keys = key.split(".")
    value = _parse_yaml(text) if text.strip() else ""
    hint = _hint_at(keys)
    is_text = hint is str or typing.get_origin(hint) is Literal
    if is_text and not isinstance(value, str):
        value = text.strip()  # `name=2024` names a run "2024", not 2024
    return keys, value


def _set_path(data: dict[str, Any], keys: list[str], value: Any) -> None:
    node = data
    for depth, key in enumerate(keys[:-1]):
        child = node.get(key)
        if not isinstance(child, dict):
            path = ".".join(keys[: depth + 1])
            if child is None and key not in node:
                raise _unknown_key(key, list(node), path)
            raise ConfigError(f"{path} is a value, not a section: cannot set {shown(keys[-1])}")
        node = child
    node[keys[-1]] = value


def apply_overrides(config: Config, overrides: list[str]) -> Config:
    """Returns the config with ``section.key=value`` overrides applied (``--set`` options).

    Values are parsed as YAML (``train.lr=3e-4``, ``eval.opponents=[random, greedy]``,
    ``env.rules.flying_kings=true``) and checked like a file's. An ``env.variant`` override
    renames the run after the variant it plays, unless ``name`` is set too: with
    ``env.variant=frisian``, ``nnue-english`` becomes ``nnue-frisian`` and ``quickstart``
    becomes ``quickstart-frisian``.

    Raises:
        ConfigError: a malformed override, an unknown key or a wrong value; the message names
            the override and the key path.
    """
    data = config_to_dict(config)
    named = False
    for item in overrides:
        try:
            keys, value = _parse_override(item)
            _set_path(data, keys, value)
            config_from_dict(data)
        except ConfigError as error:
            raise ConfigError(f"--set {shown(item)}: {error}") from error
        named = named or keys == ["name"]
    changed = config_from_dict(data)
    if named:
        return changed
    return dataclasses.replace(
        changed, name=_name_for_variant(config.name, config.env.variant, changed.env.variant)
    )


def _name_for_variant(name: str, old: str, new: str) -> str:
    """Returns a run name that names variant `new` where it named `old`.

    The word `old` in the name (words are separated by ``-`` or ``_``) becomes `new`;
    a name without it gets ``-new`` at its end. A name stays as it is when the variant stays,
    or when the result would not be a valid run name.
    """
    if old == new:
        return name
    word = re.sub(r"[^A-Za-z0-9_-]", "", new).strip("-_")  # "frysk!" -> "frysk"
    parts = re.split(r"([-_])", name)
    if old in parts[::2]:
        renamed = "".join(
            word if i % 2 == 0 and part == old else part for i, part in enumerate(parts)
        )
    else:
        renamed = f"{name}-{word}"
    return renamed if word and _NAME.fullmatch(renamed) else name


# --- Checkpoint compatibility ---------------------------------------------------------------


#: Every rule switch at its default, as a fingerprint holds them (checkpoints saved before a
#: switch existed were trained under its default, which keeps the older rules).
_SWITCH_DEFAULTS = Ruleset().to_dict()


def fingerprint_mismatches(saved: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Returns one line per difference between two :meth:`Config.fingerprint` values.

    An empty list means a checkpoint with fingerprint `saved` fits a config with `current`.
    The ruleset's name is not compared: it is a label (a ruleset changed by ``env.rules`` is
    named after its changes), and the switches say whether the rules are the same.
    """
    lines = []
    for section in sorted(set(saved) | set(current)):
        a, b = saved.get(section, {}), current.get(section, {})
        if section == "rules":  # a checkpoint older than a switch has the switch's default
            a = {**_SWITCH_DEFAULTS, **a}
        for key in sorted(set(a) | set(b)):
            if section == "rules" and key == "name":  # a label: the switches decide
                continue
            if a.get(key) != b.get(key):
                lines.append(
                    f"{section}.{key}: checkpoint has {a.get(key)!r}, config has {b.get(key)!r}"
                )
    return lines
