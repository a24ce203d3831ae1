"""The training loop shared by every algorithm, and the ``damas train`` command.

    damas train quickstart --set env.variant=russian   # runs/quickstart-russian-<timestamp>/
    damas train --resume runs/ppo1                     # after a crash or kill -9

A run directory holds::

    config.yaml                 the config as run (overrides applied)
    rules.yaml                  with env.rules overrides: the ruleset, for damas play --variant
    train.log, metrics.jsonl    the summary lines; one JSON object per logged iteration
    tb/                         TensorBoard events (tensorboard --logdir runs)
    games/iter_000010.pdn       the evaluation games of that iteration, in PDN
    checkpoints/latest.pt       the latest checkpoint, always (model, optimiser, replay...)
    checkpoints/iter_000010.pt  snapshots of the network alone, to play in the arena

The config, device and opponents are checked before anything is written. The network plays
``eval.games`` against each of ``eval.opponents`` every ``eval.every`` iterations; every file
is replaced atomically, so ``--resume`` continues after a kill at any moment, recording each
iteration once. A NaN or infinite loss stops the run (exit status 1) without saving it.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import re
import shlex
import struct
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

import yaml

from damas_agents.extras import MissingExtraError, require
from damas_agents.files import (
    CheckpointError,
    WriteError,
    append_text,
    remove_temporaries,
    write_atomically,
)
from damas_agents.models.config import (
    Config,
    ConfigError,
    apply_overrides,
    config_names,
    config_to_yaml,
    load_config,
)
from damas_env.checks import shown

__all__ = [
    "DivergenceError",
    "TrainResult",
    "check_extras",
    "check_time_budget",
    "evaluate",
    "main",
    "play_command",
    "run_training",
]


@dataclass
class TrainResult:
    """What a run leaves: its directory, latest checkpoint and learning curve."""

    run_dir: Path
    checkpoint: Path
    history: list[dict[str, float]] = field(default_factory=list)


def default_run_dir(config: Config, root: str | Path = "runs") -> Path:
    """Returns ``runs/<config name>-<timestamp>`` (a fresh directory name)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(root) / f"{config.name}-{stamp}"


# --- Evaluation -----------------------------------------------------------------------------


def evaluate(trainer: Any, seed: int = 0) -> tuple[dict[str, float], str]:
    """Plays the trainer's network against each of ``eval.opponents`` in the arena.

    With ``eval.rate``, also rates it on the variant's reference pool (``damas rate``).

    Returns:
        metrics ``eval/<opponent>/score`` (with ``score_low``, ``score_high``) and
        ``eval/<opponent>/elo``; with ``eval.rate``, ``eval/rate/elo`` (for an agent beyond
        the pool, its bound), ``eval/rate/elo_low`` and ``eval/rate/elo_high`` (the finite
        ends of its 95% interval) and ``eval/rate/games``; and the PDN of every game played.
    """
    from damas_agents.arena import play_match
    from damas_agents.players.load import network_agent

    config = trainer.config
    agent = network_agent(
        trainer.network,
        config,
        seed=seed,
        name=f"{config.name}@{trainer.iteration}",
        sims=config.eval.simulations if config.algorithm != "nnue" else 0,
    )
    metrics: dict[str, float] = {}
    pdn = []
    for opponent in config.eval.opponents:
        match = play_match(
            agent,
            opponent,
            config.env.ruleset(),
            games=config.eval.games,
            seed=seed,
            max_plies=config.env.max_plies or None,
            progress=False,
        )
        s = match.stats
        metrics[f"eval/{opponent}/score"] = s.score
        metrics[f"eval/{opponent}/score_low"] = s.score_ci[0]
        metrics[f"eval/{opponent}/score_high"] = s.score_ci[1]
        metrics[f"eval/{opponent}/elo"] = s.elo
        pdn.append(match.pdn())
    if config.eval.rate:
        from damas_agents.rating import rate

        rated = rate(agent, config.env.ruleset(), games=config.eval.rate_games, seed=seed)
        rating = rated.rating
        low, high = rating.ci
        metrics["eval/rate/elo"] = rating.elo if rating.elo is not None else min(high, low)
        metrics.update({f"eval/rate/elo_{k}": v for k, v in (("low", low), ("high", high))})
        metrics = {k: v for k, v in metrics.items() if math.isfinite(v)}  # a bound's open end
        metrics["eval/rate/games"] = float(rating.games)
        pdn.append(rated.pdn())
    return metrics, "\n".join(pdn)


# --- Logging --------------------------------------------------------------------------------


class _Board:
    """TensorBoard events when tensorboard is installed; nothing (and one note) otherwise.

    Each start writes a new event file, opened at its first point, whose name sorts after
    the older files' (readers take a folder's files in name order). A resume passes
    `purge_step` (its iteration + 1): the file then begins with a restart marker that tells
    a TensorBoard which already read the older files to forget their steps from there on
    (the older files themselves are cut by :func:`_cut_events`).
    """

    def __init__(self, log_dir: Path, out: TextIO, purge_step: int | None = None) -> None:
        self.log_dir, self.purge_step = log_dir, purge_step
        self.writer: Any = None
        self.writer_class: Any = None
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            print("note: tensorboard is not installed; no TensorBoard logs", file=out)
        else:
            self.writer_class = SummaryWriter

    def write(self, metrics: dict[str, float], step: int) -> None:
        if self.writer_class is None:
            return
        if self.writer is None:
            _wait_for_a_later_second(self.log_dir)
            self.writer = self.writer_class(str(self.log_dir), purge_step=self.purge_step)
        try:
            for key, value in metrics.items():
                if key != "iteration" and math.isfinite(value):
                    self.writer.add_scalar(key, value, step)
            self.writer.flush()
        except OSError as error:
            raise WriteError(self.log_dir, error, "the points written before are kept") from error

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _wait_for_a_later_second(folder: Path) -> None:
    """Waits (at most a second) until the clock's second is past every event file's in
    `folder`. An event file is named ``events.out.tfevents.SECOND.HOST.PID.COUNT``: a file
    opened in the same second as an older one, by the same process, could sort before it
    (``.10`` before ``.9``), and readers would take the resume's steps first."""
    seconds = [int(p.name.split(".")[3]) for p in folder.glob("events.out.tfevents.*")
               if p.name.split(".")[3].isdigit()]  # fmt: skip
    if seconds:
        time.sleep(max(0.0, max(seconds) + 1 - time.time()))


def summary_line(
    metrics: dict[str, float], config: Config, latest_eval: dict[str, float], games: float
) -> str:
    """Returns the one-line summary of an iteration's metrics.

    Args:
        metrics: the iteration's metrics.
        config: the run's config.
        latest_eval: the scores of the latest evaluation and the ``iteration`` it was
            measured at (``eval@20 random 0.97``), or nothing before the first.
        games: the games finished since this start; until one has, the line says that the
            first games (begun together) are still playing, not 0.00 games/s.
    """
    parts = [f"iter {int(metrics['iteration'])}/{config.train.iterations}"]
    if games:
        parts.append(f"{metrics.get('games_per_s', 0):.2f} games/s")
    else:
        parts.append("first games still playing")
    parts.append(f"{metrics.get('positions_per_s', 0):.0f} pos/s")
    loss = _loss_part(metrics, config)
    if loss:
        parts.append(loss)
    if "entropy" in metrics:
        parts.append(f"entropy {metrics['entropy']:.2f}")
    if "game_length" in metrics:
        parts.append(f"length {metrics['game_length']:.0f}")
    scores = [
        f"{key.split('/')[1]} {value:.2f}"
        for key, value in latest_eval.items()
        if key.endswith("/score")
    ]
    if "eval/rate/elo" in latest_eval:
        scores.append(_elo_part(latest_eval))
    if scores:
        parts.append(f"eval@{int(latest_eval['iteration'])} " + ", ".join(scores))
    return " | ".join(parts)


def _elo_part(scores: dict[str, float]) -> str:
    """Returns the pool rating of an evaluation: ``Elo 812 [764, 860]``, or its bound."""
    elo, low, high = (scores.get(f"eval/rate/elo{k}") for k in ("", "_low", "_high"))
    if low is None:
        return f"Elo < {high:.0f}"
    if high is None:
        return f"Elo > {low:.0f}"
    return f"Elo {elo:.0f} [{low:.0f}, {high:.0f}]"


def _loss_part(metrics: dict[str, float], config: Config) -> str | None:
    """Returns the losses of the line; before the first update, why there is none yet."""
    if "loss/policy" in metrics:
        return (
            f"loss {metrics['loss/total']:.3f} (policy {metrics['loss/policy']:.3f}"
            f" value {metrics.get('loss/value', 0):.3f})"
        )
    if "loss/total" in metrics:  # a value alone (nnue)
        return f"value loss {metrics['loss/total']:.4f}"
    replay = metrics.get("alphazero/replay", metrics.get("nnue/replay"))
    if replay is None:
        return None
    if not replay:  # AlphaZero: a game's positions join the replay when it ends
        return "loss - (replay empty)"
    # nnue learns once the replay holds a first minibatch
    batch = min(config.train.batch_size, config.train.replay_size)
    return f"loss - (replay filling: {replay:.0f}/{batch} positions)"


# --- The run directory (resumable from a kill at any moment: see the module docstring) ------


class DivergenceError(RuntimeError):
    """The loss or the network's weights became NaN or infinite; nothing more is saved."""


def _resume_config(run_dir: Path) -> Config:
    """Returns the config a run directory was started with (its config.yaml)."""
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise ConfigError(
            f"{run_dir} is not a run directory (no config.yaml): nothing to resume without a "
            f"config; start or continue the run there with: damas train CONFIG --resume "
            f"{shlex.quote(str(run_dir))}"
        )
    return load_config(path)


def check_extras(config: Config | None, progress: bool = False) -> None:
    """Raises MissingExtraError, one line naming the extra to install, unless every optional
    package the run needs is installed: PyTorch, tqdm for the progress bar, and Ray for
    ``distributed.backend: ray``. Imports nothing, so it costs nothing before a run starts.
    """
    require("torch", "training")
    if progress:
        require("tqdm", "the progress bar")
    if config is not None and config.distributed.backend == "ray":
        require("ray", "distributed.backend: ray")


def check_time_budget(seconds: float | None) -> None:
    """Raises ValueError unless a time budget is None or a finite number of seconds > 0."""
    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"the time budget must be a finite number of seconds > 0, not {seconds}")


def _snapshot(run_dir: Path, iteration: int) -> Path:
    return run_dir / "checkpoints" / f"iter_{iteration:06d}.pt"


def _has_snapshot(config: Config, iteration: int) -> bool:
    """Says whether the run writes a snapshot of the network at this iteration."""
    every, total = config.train.checkpoint_every, config.train.iterations
    return iteration > 0 and (iteration % every == 0 or iteration == total)


# --- Cutting the records back to the checkpoint a resume starts from ------------------------


def _cut_records(run_dir: Path, iteration: int) -> int:
    """Drops everything the run recorded after `iteration` (a resume runs those iterations
    again): lines of metrics.jsonl and train.log, TensorBoard points, evaluation games.
    Returns the last iteration dropped (0 if none)."""
    return max(
        _cut_metrics(run_dir / "metrics.jsonl", iteration),
        _cut_log(run_dir / "train.log", iteration),
        _cut_events(run_dir / "tb", iteration),
        _cut_games(run_dir / "games", iteration),
    )


def _cut_metrics(path: Path, iteration: int) -> int:
    """Drops the lines of iterations after `iteration`, and lines torn by a kill; returns
    the last iteration dropped."""
    if not path.exists():
        return 0
    kept, dropped = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            logged = json.loads(line).get("iteration", 0)
        except (json.JSONDecodeError, AttributeError, TypeError):
            continue  # a line torn by a kill
        if logged <= iteration:
            kept.append(line)
        else:
            dropped = max(dropped, int(logged))
    _write_if_changed(path, "".join(k + "\n" for k in kept).encode("utf-8"))
    return dropped


#: The lines of train.log that name an iteration: a start's first line and a summary line.
_LOG_ITERATION = re.compile(r"(?:training|resuming) .*? at iteration (\d+) in |iter (\d+)/")


def _cut_log(path: Path, iteration: int) -> int:
    """Drops train.log's lines written after `iteration`: each line belongs to the iteration
    last named above it (by a summary line or a start's first line), so the lines of earlier
    starts stay, closing lines included. A last line a kill cut short goes too. Returns the
    last iteration dropped."""
    if not path.exists():
        return 0
    kept, dropped, current = [], 0, 0
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if not line.endswith("\n"):
            break  # torn by a kill
        if match := _LOG_ITERATION.match(line):
            current = int(match.group(1) or match.group(2))
        if current <= iteration:
            kept.append(line)
        else:
            dropped = max(dropped, current)
    _write_if_changed(path, "".join(kept).encode("utf-8"))
    return dropped


def _cut_events(folder: Path, iteration: int) -> int:
    """Drops the TensorBoard points of steps after `iteration` from the event files, and a
    record a kill cut short, so that every reader sees each step once (a TensorBoard that
    read them before learns it from the next start's restart marker: see :class:`_Board`).
    Returns the last step dropped."""
    try:
        from tensorboard.compat.proto.event_pb2 import Event
    except ImportError:
        return 0  # no TensorBoard events are written without tensorboard
    dropped = 0
    for path in sorted(folder.glob("events.out.tfevents.*")):
        data = path.read_bytes()
        kept = []
        for record, payload in _records(data):
            event = Event.FromString(payload)
            if event.HasField("summary") and event.step > iteration:
                dropped = max(dropped, event.step)
            else:
                kept.append(record)
        if sum(map(len, kept)) != len(data):
            write_atomically(path, b"".join(kept))
    return dropped


def _records(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    """Yields (record, payload) for each whole record of an event file (TFRecord framing:
    a little-endian uint64 length and its CRC, the payload, its CRC); stops at a record that
    a kill cut short."""
    at = 0
    while at + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, at)
        end = at + 12 + length + 4
        if end > len(data):
            return
        yield data[at:end], data[at + 12 : end - 4]
        at = end


def _cut_games(folder: Path, iteration: int) -> int:
    """Deletes the evaluation games of iterations after `iteration`; returns the last one."""
    dropped = 0
    for path in folder.glob("iter_*.pdn"):
        match = re.fullmatch(r"iter_(\d+)\.pdn", path.name)
        if match and int(match.group(1)) > iteration:
            path.unlink()
            dropped = max(dropped, int(match.group(1)))
    return dropped


def _check_finite(trainer: Any, metrics: dict[str, float]) -> None:
    """Raises DivergenceError if a loss of the iteration or a weight is NaN or infinite."""
    import torch

    bad = [
        f"{key} is {value}"
        for key, value in metrics.items()
        if key.startswith("loss/") and not math.isfinite(value)
    ]
    weights = [t for t in trainer.network.state_dict().values() if t.is_floating_point()]
    if not bool(torch.stack([torch.isfinite(t).all() for t in weights]).all()):  # one sync
        bad.append("the network's weights are not finite")
    if bad:
        raise DivergenceError(
            f"training diverged at iteration {trainer.iteration}: {', '.join(bad)}; "
            "checkpoints/latest.pt keeps the last checkpoint before it (try a lower train.lr)"
        )


# --- The loop -------------------------------------------------------------------------------


def _run_path(config: Config | None, run_dir: Path | None, resume: Path | None) -> Path:
    """Returns the run directory: the one resumed, `run_dir`, or a fresh default one."""
    if resume is not None:
        return resume
    if config is None:
        raise ConfigError("a config is needed unless resuming")
    return run_dir or default_run_dir(config)


def _prepare(
    config: Config | None, run_dir: Path, resume: bool, progress: bool, init: str | None = None
) -> tuple[Config, dict[str, Any] | None, dict[str, Any] | None]:
    """Returns (config, checkpoint to resume or None, the weights to start from or None),
    checked before any write.

    A fresh run on CPU gets here without importing torch, so config.yaml is on disk (and
    the run resumable) about a second after ``damas train`` starts.
    """
    checkpoint = None
    if init is not None and resume:
        raise ConfigError("--init starts a fresh run; a resumed run goes on from its own weights")
    if resume:
        from damas_agents.models.checkpoint import read_checkpoint
        from damas_agents.training.resume import check_compatible

        latest = run_dir / "checkpoints" / "latest.pt"
        checkpoint = read_checkpoint(latest) if latest.exists() else None
        if config is None:
            config = checkpoint["config_obj"] if checkpoint else _resume_config(run_dir)
        if checkpoint is not None:  # before config.yaml is rewritten with this config
            check_compatible(checkpoint, config, latest)
    elif (run_dir / "checkpoints" / "latest.pt").exists():
        raise FileExistsError(
            f"{run_dir} already holds a run; continue it with: damas train CONFIG --resume "
            f"{shlex.quote(str(run_dir))} (or choose another --out)"
        )
    assert config is not None
    check_extras(config, progress)  # a resumed run's own config may ask for Ray
    _check_directory(run_dir)
    if config.network.device == "cuda":  # the one device that can be missing
        from damas_agents.training.trainer import check_device

        check_device(config)
    _check_opponents(config)  # compiles the kernels it plays on, the first time
    weights = None if init is None else read_initial_weights(init, config)
    return config, checkpoint, weights


def read_initial_weights(source: str, config: Config) -> dict[str, Any]:
    """Returns the network weights a fresh run starts from (``damas train --init``), checked
    against the config's network before any file of the run is written.

    Args:
        source: a checkpoint file, or ``pretrained:NAME`` for an agent shipped in the package.
        config: the run's config: the checkpoint must be of its algorithm and hold the tensors
            of its network (names, shapes and dtypes), which the search can compute with.

    Raises:
        CheckpointError: the checkpoint is unusable, of another algorithm, or holds another
            network; no pretrained agent of that name.
    """
    from damas_agents.models.checkpoint import (
        FieldError,
        check_model,
        network_tensors,
        read_checkpoint,
    )
    from damas_agents.players.load import pretrained_path

    if source.startswith("pretrained:"):
        try:
            path = pretrained_path(source.removeprefix("pretrained:"))
        except ValueError as error:
            raise CheckpointError(f"--init {source}: {error}") from None
    else:
        path = Path(source)
    checkpoint = read_checkpoint(path)
    if checkpoint["algorithm"] != config.algorithm:
        raise CheckpointError(
            f"--init {source}: a {checkpoint['algorithm']} checkpoint; this run trains "
            f"{config.algorithm}"
        )
    from damas_agents.training.resume import check_searchable

    try:
        check_model(checkpoint["model"], network_tensors(config))
    except FieldError as error:
        raise CheckpointError(
            f"--init {source}: its network does not fit this config's ({error})"
        ) from None
    try:
        check_searchable(checkpoint["model"], config)
    except FieldError as error:
        raise CheckpointError(f"--init {source}: {error}") from None
    return checkpoint["model"]


def _check_opponents(config: Config) -> None:
    """Raises a ConfigError naming the entry if an evaluation opponent cannot play the run.

    Each of ``eval.opponents`` is built and asked for its first hop of a game of the run's
    ruleset: a missing checkpoint or engine, or an agent that refuses these rules (an engine
    of other rules, a network trained on others), stops the run before it writes anything,
    not at its first evaluation. An opponent's checkpoint imports torch first.
    """
    if not config.eval.every:
        return
    if config.eval.rate:
        _check_pool(config)
    from damas_agents.players.base import play_hop
    from damas_agents.players.make import make_agent
    from damas_env.draughts_v0 import raw_env

    rules = config.env.ruleset()
    env = raw_env(rules)
    for i, spec in enumerate(config.eval.opponents):
        agent = None
        try:
            agent = make_agent(spec, seed=0, rules=rules)
            env.reset()
            play_hop(agent, env)
        except (ValueError, ImportError, OSError, RuntimeError) as error:
            raise ConfigError(f"eval.opponents[{i}]: {error}") from None
        finally:
            getattr(agent, "close", lambda: None)()  # an external engine's process


def _check_pool(config: Config) -> None:
    """Raises a ConfigError if ``eval.rate`` asks for a pool the run's rules do not have."""
    from damas_agents.rating import PoolError, load_pool
    from damas_env.rules import get_ruleset

    rules = config.env.ruleset()
    try:
        load_pool(rules.name)
    except PoolError as error:
        raise ConfigError(f"eval.rate: {error}") from None
    if rules != get_ruleset(rules.name):
        raise ConfigError(f"eval.rate: the {rules.name} pool rates the standard rules only")


def _check_directory(run_dir: Path) -> None:
    """Raises a ConfigError if the run directory, or the first of its parents that exists,
    is not a directory (a file, /dev/null), so the run could not be written there."""
    for path in (run_dir, *run_dir.parents):
        if path.exists() or path.is_symlink():
            if not path.is_dir():
                raise ConfigError(f"{shown(str(path))} is not a directory: no run can go there")
            return


def _open_run_dir(config: Config, path: Path) -> None:
    """Creates the run directory, removes stale temporary files and writes config.yaml (and
    rules.yaml when env.rules changes the variant), each only if its text changes."""
    path.mkdir(parents=True, exist_ok=True)
    for folder in (path, path / "checkpoints", path / "tb"):
        remove_temporaries(folder)
    _write_if_changed(path / "config.yaml", config_to_yaml(config).encode("utf-8"))
    if config.env.rules:
        _write_if_changed(path / "rules.yaml", _rules_yaml(config).encode("utf-8"))
    (path / "games").mkdir(exist_ok=True)


def _write_if_changed(path: Path, data: bytes) -> None:
    """Writes `data` to `path` atomically, unless the file holds these bytes already."""
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass  # no such file yet (or unreadable): write it
    write_atomically(path, data)


def _rules_yaml(config: Config) -> str:
    """Returns the run's ruleset as a rules file (every switch, so no ``base`` is needed)."""
    header = f"# the rules of run {config.name}: {config.env.variant} with env.rules applied\n"
    return header + yaml.safe_dump(config.env.ruleset().to_dict(), sort_keys=False)


def play_command(config: Config, run_dir: Path, checkpoint: Path) -> str:
    """Returns the ``damas play`` command that plays a checkpoint of the run under its rules."""
    variant = str(run_dir / "rules.yaml") if config.env.rules else config.env.variant
    opponent = f"checkpoint:{checkpoint}"
    return f"damas play --variant {shlex.quote(variant)} --opponent {shlex.quote(opponent)}"


def _start(
    config: Config,
    path: Path,
    checkpoint: dict[str, Any] | None,
    weights: dict[str, Any] | None = None,
) -> tuple[Any, list[dict[str, float]]]:
    """Returns (trainer, history): restored from the checkpoint, or fresh (starting from
    `weights` when given) and saved at once.

    A fresh run's config.yaml is on disk already; a resumed run writes nothing here: its
    files change only once every check has passed (:func:`_settle_resume`), so that a
    refused resume leaves the run as it was.
    """
    from damas_agents.models.checkpoint import save_checkpoint
    from damas_agents.training.resume import restore_trainer
    from damas_agents.training.trainer import make_trainer

    trainer = make_trainer(config)
    latest = path / "checkpoints" / "latest.pt"
    if checkpoint is None:
        if weights is not None:
            trainer.network.load_state_dict(weights)
        save_checkpoint(latest, trainer)  # iteration 0: from now on a kill resumes from here
        return trainer, []
    restore_trainer(trainer, checkpoint, latest)
    return trainer, [dict(h) for h in checkpoint.get("history", [])]


def _settle_resume(config: Config, path: Path, trainer: Any) -> None:
    """Brings a resumed run's files up to its restored trainer, once every check has passed:
    config.yaml (left as it is when the run has finished, so it stays the config the run
    trained with), and the snapshot of its iteration if Ctrl-C cut it short."""
    from damas_agents.models.checkpoint import save_checkpoint

    i = trainer.iteration
    if i < config.train.iterations:
        _open_run_dir(config, path)
    if _has_snapshot(config, i) and not _snapshot(path, i).exists():
        # Ctrl-C cut the snapshot short (or an older damas wrote latest.pt first): the
        # trainer is at its iteration now, the only moment it can be written.
        save_checkpoint(_snapshot(path, i), trainer, with_trainer=False)


def _begin(
    config: Config, path: Path, trainer: Any, resumed: bool
) -> tuple[Callable[[], dict[str, float]], Callable[[], None], int]:
    """Returns (step, close, the last iteration the logs were cut back from) once the workers
    have started (Ray's may fail to) and the run's files match the trainer: only then, with
    every check passed, does a resume change a file of the run."""
    step, close = _stepper(trainer, config)
    try:
        if resumed:
            _settle_resume(config, path, trainer)
        return step, close, _cut_records(path, trainer.iteration)
    except BaseException:
        close()
        raise


def run_training(
    config: Config | None = None,
    run_dir: str | Path | None = None,
    resume: str | Path | None = None,
    progress: bool = True,
    out: TextIO | None = None,
    time_budget: float | None = None,
    notes: TextIO | None = None,
    init: str | None = None,
) -> TrainResult:
    """Trains until ``train.iterations`` (or `time_budget` seconds); returns the run.

    Args:
        config: the run's config (None when resuming: the run's own config is used).
        run_dir: where the run goes (default ``runs/<name>-<timestamp>``).
        resume: a run directory to continue from its ``checkpoints/latest.pt``; with no
            checkpoint there yet (a kill came first), the run starts there from iteration 0.
        progress: show a progress bar on stderr (tqdm) when stderr is a terminal: the
            iterations, or the seconds of `time_budget`; False: nothing on stderr but what
            the library itself says (numba's first compile of a kernel).
        out: where summary lines go (default stdout); they also go to ``train.log``.
        time_budget: stop (with an evaluation and a checkpoint) after this many seconds of
            training: the setup before the first iteration and the time spent compiling
            kernels (numba's first compile) are not counted.
        notes: where the first line, ``damas train: setting up ...``, goes (default stderr
            with `progress`, else nowhere).
        init: start a fresh run from these weights (a fine-tune): a checkpoint file of the
            same algorithm and network, or ``pretrained:NAME``; the optimiser and the replay
            start afresh. Not with `resume`.

    Raises:
        MissingExtraError: an optional package the run needs is not installed (an
            ImportError whose one-line message names the extra); nothing is written.
        ConfigError: no config and nothing to resume, or a device that is not there.
        CheckpointError: the checkpoint to resume (or `init`) is unusable or does not fit the
            config.
        FileExistsError: `run_dir` already holds a run (resume it instead).
        DivergenceError: a loss or a weight became NaN or infinite (nothing NaN is saved).
        WriteError: a file of the run could not be written (a full disk): an OSError that
            names the file; the files on disk keep what they held.
        ValueError: `time_budget` is not a finite number of seconds > 0.
    """
    out = out or sys.stdout
    check_time_budget(time_budget)
    _check_not_empty(run_dir, resume)
    check_extras(config, progress)  # before anything is compiled or written
    path = _run_path(
        config,
        None if run_dir is None else Path(run_dir),
        None if resume is None else Path(resume),
    )
    _say_setting_up(config, path, notes or (sys.stderr if progress else None))
    config, checkpoint, weights = _prepare(config, path, resume is not None, progress, init)
    if checkpoint is None:  # a fresh run is resumable before torch is imported
        _open_run_dir(config, path)
    _import_torch(config.train.torch_threads)
    from damas_agents.models.checkpoint import save_checkpoint

    trainer, history = _start(config, path, checkpoint, weights)
    step, close, dropped = _begin(config, path, trainer, resumed=checkpoint is not None)
    metrics_path, log_path = path / "metrics.jsonl", path / "train.log"
    latest = path / "checkpoints" / "latest.pt"
    purge_step = None if resume is None else trainer.iteration + 1
    board = _Board(path / "tb", out, purge_step)
    total = config.train.iterations
    bar = _progress(total, trainer.iteration, progress, time_budget)
    restore_notes = _notes_above(bar)
    clock = _Clock()
    latest_eval = _latest_eval(history)
    games = 0.0  # finished since this start

    emit = functools.partial(_emit, out=out, bar=bar, log=log_path)
    save = functools.partial(_save, latest, trainer, history)
    finished_before = trainer.iteration >= total
    try:
        emit(_opening(config, path, trainer.iteration, resume is not None, dropped, init))
        while trainer.iteration < total:
            metrics = _timed_step(step, trainer, clock)
            i = trainer.iteration
            games += metrics.get("games", 0.0)
            training = metrics["elapsed_s"] - metrics["compile_s"]
            out_of_time = time_budget is not None and training >= time_budget
            last = i >= total or out_of_time
            evaluated = bool(config.eval.every) and (i % config.eval.every == 0 or last)
            if evaluated:
                latest_eval = _evaluate_into(metrics, trainer, config, path, i)
            if i % config.train.log_every == 0 or last or evaluated:
                history.append(metrics)
                _write_metrics(metrics, i, board, metrics_path)
                emit(summary_line(metrics, config, latest_eval, games))
            if _has_snapshot(config, i) or out_of_time:
                # The snapshot first, latest.pt last. A snapshot can only be written from the
                # state of its own iteration: a kill before latest.pt moves on resumes from
                # the checkpoint before and writes this snapshot again, so latest.pt at a
                # snapshot's iteration means the snapshot is there (_settle_resume mends
                # Ctrl-C).
                save_checkpoint(_snapshot(path, i), trainer, with_trainer=False)
                save()
            _advance(bar, i, total, training, time_budget)
            if out_of_time:
                emit(f"time budget of {time_budget:.0f} s spent at iteration {i}")
                break
        i = trainer.iteration
        lines = _last_lines(config, path, latest, i, finished_before, clock.started, latest_eval)
        for line in lines:
            emit(line)
    except KeyboardInterrupt:
        save()
        emit(f"interrupted: checkpoint of iteration {trainer.iteration} saved to {latest}")
        raise
    finally:
        _close_outputs(close, restore_notes, bar, board, clock)
    return TrainResult(path, latest, history)


def _check_not_empty(run_dir: str | Path | None, resume: str | Path | None) -> None:
    """Raises ConfigError if the run directory or the run to resume is an empty path."""
    if "" in (str(run_dir), str(resume)):  # Path("") would be the current directory
        raise ConfigError("the run directory is empty: give its path (--out or --resume)")


def _say_setting_up(config: Config | None, path: Path, notes: TextIO | None) -> None:
    """Writes the first line, ``damas train: setting up ...``, to `notes` (None: nowhere)."""
    if notes is not None:
        # Checking the opponents, importing torch and building the trainer take seconds (a
        # minute when kernels compile): say what is going on before anything else.
        name = config.name if config is not None else "the run"
        print(
            f"damas train: setting up {name} in {path} (torch, the network, the kernels)",
            file=notes,
            flush=True,
        )


def _import_torch(threads: int) -> None:
    """Imports torch, and sets its number of threads unless `threads` is 0."""
    import torch

    if threads:
        torch.set_num_threads(threads)


def _emit(line: str, out: TextIO, bar: Any, log: Path) -> None:
    """Writes a line to `out` (through the progress bar, if any) and to ``train.log``."""
    (bar.write if bar is not None else print)(line, file=out)
    append_text(log, line + "\n")


def _save(latest: Path, trainer: Any, history: list[dict[str, float]]) -> None:
    """Checks the trainer's weights are finite, then writes it and the history to `latest`."""
    from damas_agents.models.checkpoint import save_checkpoint

    _check_finite(trainer, {})
    save_checkpoint(latest, trainer, history)


def _timed_step(
    step: Callable[[], dict[str, float]], trainer: Any, clock: _Clock
) -> dict[str, float]:
    """Runs one training iteration; returns its metrics with the iteration and the timings
    (``elapsed_s`` since this start, ``compile_s`` of it spent compiling kernels)."""
    t0 = time.perf_counter()
    metrics = step()
    _check_finite(trainer, metrics)
    seconds = time.perf_counter() - t0
    metrics["iteration"] = float(trainer.iteration)
    metrics["seconds"] = seconds
    metrics["games_per_s"] = metrics.get("games", 0.0) / seconds
    metrics["positions_per_s"] = metrics.get("positions", 0.0) / seconds
    metrics["elapsed_s"] = time.perf_counter() - clock.started
    metrics["compile_s"] = clock.compiling()
    return metrics


class _Clock:
    """Times a start: when it began, and the seconds this process has spent compiling
    kernels since (numba's first compile of each, a minute on a busy machine), which a time
    budget does not count. NNUE's self-play workers are forked once their kernels are
    compiled here; Ray's workers compile on their own, and their compile is counted."""

    def __init__(self) -> None:
        from numba.core import event

        self._timer = event.TimingListener()
        event.register("numba:compile", self._timer)
        self.started = time.perf_counter()

    def compiling(self) -> float:
        """Returns the seconds spent compiling kernels since the start."""
        return float(self._timer.duration) if self._timer.done else 0.0

    def close(self) -> None:
        """Stops counting the compiles."""
        from numba.core import event

        event.unregister("numba:compile", self._timer)


def _evaluate_into(
    metrics: dict[str, float], trainer: Any, config: Config, run_dir: Path, iteration: int
) -> dict[str, float]:
    """Evaluates the trainer, writes the games to ``games/`` and the scores into `metrics`;
    returns the scores with their iteration."""
    scores, pdn = evaluate(trainer, seed=config.train.seed + iteration)
    write_atomically(run_dir / "games" / f"iter_{iteration:06d}.pdn", pdn.encode("utf-8"))
    metrics.update(scores)
    return {**scores, "iteration": float(iteration)}


def _write_metrics(metrics: dict[str, float], iteration: int, board: _Board, path: Path) -> None:
    """Writes an iteration's metrics to TensorBoard and as a line of ``metrics.jsonl``."""
    board.write(metrics, iteration)
    append_text(path, json.dumps(metrics) + "\n")


def _last_lines(
    config: Config,
    run_dir: Path,
    latest: Path,
    iteration: int,
    finished_before: bool,
    started: float,
    latest_eval: dict[str, float],
) -> list[str]:
    """Returns the lines that end a start: how it went, the checkpoint, how to play it."""
    if finished_before:
        first = _already_finished(config, run_dir, iteration)
    else:
        first = _closing(config, iteration, time.perf_counter() - started, latest_eval)
    return [first, f"checkpoint: {latest}", f"play it: {play_command(config, run_dir, latest)}"]


def _close_outputs(
    close: Callable[[], None],
    restore_notes: Callable[[], None],
    bar: Any,
    board: _Board,
    clock: _Clock,
) -> None:
    """Closes what a start opened: the workers, the notes' route, the bar, the TensorBoard
    log and the compile clock."""
    close()
    restore_notes()
    if bar is not None:
        bar.close()
    board.close()
    clock.close()


def _stepper(trainer: Any, config: Config) -> tuple[Any, Any]:
    """Returns (step, close): the trainer's own step, or Ray workers' (distributed.backend)."""
    if config.distributed.backend == "ray":
        from damas_agents.training.distributed import RaySelfPlay

        workers = RaySelfPlay(trainer, config)
        return workers.step, workers.close
    return trainer.step, getattr(trainer, "close", lambda: None)


def _opening(
    config: Config, run_dir: Path, iteration: int, resume: bool, dropped: int, init: str | None
) -> str:
    """Returns a start's first line; a resume that cut the logs back says from where, a
    fine-tune from which weights."""
    line = (
        f"{'resuming' if resume else 'training'} {config.name} ({config.algorithm}, "
        f"{config.env.variant}) at iteration {iteration} in {run_dir}"
    )
    if dropped > iteration:
        line += f"; logs cut back from iteration {dropped}"
    if init is not None:
        line += f", starting from the weights of {init}"
    return line


def _already_finished(config: Config, run_dir: Path, iteration: int) -> str:
    """Returns what a resume of a finished run says: done already, and how to go on."""
    more = f"train.iterations={iteration + config.train.iterations}"
    command = f"damas train --resume {shlex.quote(str(run_dir))} --set {more}"
    iterations = f"{iteration} iteration{'' if iteration == 1 else 's'}"
    return f"already finished its {iterations}; train further with: {command}"


def _closing(config: Config, iteration: int, seconds: float, scores: dict[str, float]) -> str:
    """Returns the closing line: iterations, time, and the last evaluation with intervals."""
    minutes, secs = divmod(int(seconds), 60)
    plural = "" if iteration == 1 else "s"
    line = f"done: {iteration} iteration{plural} in {minutes}m{secs:02d}s"
    parts = []
    for opponent in config.eval.opponents:
        key = f"eval/{opponent}"
        if f"{key}/score" in scores:
            parts.append(
                f"{opponent} {scores[f'{key}/score']:.2f} [{scores[f'{key}/score_low']:.2f}, "
                f"{scores[f'{key}/score_high']:.2f}]"
            )
    if parts:
        line += f"; score vs {', '.join(parts)} (95% CI, {config.eval.games} games each)"
    if "eval/rate/elo" in scores:
        line += f"; {_elo_part(scores)} on the {config.env.variant} pool (95% CI)"
    return line


def _latest_eval(history: list[dict[str, float]]) -> dict[str, float]:
    """Returns the scores of the latest evaluation in the history, with its iteration."""
    for metrics in reversed(history):
        scores = {k: v for k, v in metrics.items() if k.startswith("eval/")}
        if scores:
            return {**scores, "iteration": metrics["iteration"]}
    return {}


def _notes_above(bar: Any) -> Callable[[], None]:
    """Routes the kernels' first-compile note through tqdm while `bar` is on screen, so that
    the note gets a line of its own above the bar; returns what puts the writer back."""
    if bar is None:
        return lambda: None
    from damas_env.kernels import NOTICE

    before = NOTICE.write
    NOTICE.write = functools.partial(bar.write, file=sys.stderr)

    def restore() -> None:
        NOTICE.write = before

    return restore


def _progress(total: int, done: int, enabled: bool, budget: float | None = None) -> Any:
    """Returns the progress bar on stderr: iterations `done` of `total`, or with a time
    `budget` its seconds spent (the iteration beside them). None unless `enabled` and stderr
    is a terminal: elsewhere (a log file, a pipe) the bar's redraws would be noise, and the
    summary lines say as much."""
    if not (enabled and sys.stderr.isatty()):
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    if budget is None:
        return tqdm(total=total, initial=done, unit="iter", dynamic_ncols=True, file=sys.stderr)
    bar = tqdm(
        total=budget,
        unit="s",
        dynamic_ncols=True,
        file=sys.stderr,
        bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f} s of training{postfix}",
    )
    bar.set_postfix_str(f"iter {done}/{total}")
    return bar


def _advance(bar: Any, iteration: int, total: int, training: float, budget: float | None) -> None:
    """Moves the progress bar on to `iteration`, or with a time `budget` to the `training`
    seconds spent."""
    if bar is None:
        return
    if budget is None:
        bar.update(1)
        return
    bar.n = min(training, budget)
    bar.set_postfix_str(f"iter {iteration}/{total}", refresh=False)
    bar.refresh()


# --- Command line ---------------------------------------------------------------------------


#: One worked example per board family (what it trains, its command line), as ``damas train
#: --help`` shows them; tests/test_train_start.py runs each for one tiny iteration.
EXAMPLES = (
    ("AlphaZero-style, English, a few minutes on a laptop", "damas train quickstart"),
    (
        "8x8, dark squares (english, russian, pool, brazilian, czech, thai)",
        "damas train quickstart --set env.variant=russian",
    ),
    (
        "10x10 (international, frisian, breakthrough), the learned alpha-beta, one hour",
        "damas train nnue_international --set env.variant=frisian --time-budget 3600",
    ),
    (
        "8x8, mirrored board (italian, spanish, portuguese)",
        "damas train quickstart --set env.variant=italian",
    ),
    ("8x8, all 64 squares (turkish), PPO", "damas train ppo_english --set env.variant=turkish"),
)


def _epilog() -> str:
    """Returns the help's closing lines: the examples and the bundled configs."""
    lines = ["examples (each run goes to runs/<name>-<time>/, or --out):"]
    for what, command in EXAMPLES:
        lines += [f"  {what}:", f"    {command}"]
    names = textwrap.wrap(f"bundled configs: {', '.join(config_names())}", 78)
    return "\n".join([*lines, "", *names, "variants: damas variants"])


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="damas train",
        description="Train a self-play agent from a YAML config: a learned evaluation inside\n"
        "alpha-beta search (algorithm: nnue), AlphaZero-style search (alphazero) or PPO (ppo).",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "config",
        nargs="?",
        help="YAML config file, or a bundled config's name (quickstart...: see below); "
        "optional with --resume",
    )
    p.add_argument(
        "--set",
        dest="overrides",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="override config fields, e.g. --set train.lr=3e-4 mcts.simulations=64",
    )
    p.add_argument("--out", help="run directory (default runs/<config name>-<timestamp>)")
    p.add_argument(
        "--resume",
        help="continue the run in this directory from its latest checkpoint (after Ctrl-C, a "
        "crash or kill -9); with CONFIG, start it there if it holds no checkpoint yet",
    )
    p.add_argument(
        "--init",
        metavar="CHECKPOINT",
        help="start from these weights (a checkpoint of the same algorithm and network, or "
        "pretrained:NAME): a fine-tune, with a fresh optimiser and replay",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--time-budget",
        type=_seconds,
        metavar="SECONDS",
        help="stop after this many seconds of training (evaluate, checkpoint); the setup and "
        "the first compile of the kernels are not counted",
    )
    return p


def _seconds(text: str) -> float:
    """Returns a ``--time-budget`` value, checked (argparse reports the error)."""
    try:
        seconds = float(text)
        check_time_budget(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds > 0, not {text!r}"
        ) from None
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas train``; returns the exit status (2 for a bad config or checkpoint)."""
    from damas_agents.training.distributed import RayStartError, WorkersLostError

    args = _parser().parse_args(argv)
    if args.resume and args.out:
        print(
            "damas train: --out and --resume are exclusive (a resume stays in its dir)",
            file=sys.stderr,
        )
        return 2
    try:
        config = load_config(args.config) if args.config else None
        if config is None and args.resume:
            config = _resume_config(Path(args.resume))
        if config is None:
            raise ConfigError(
                "give a config, a file or a bundled one's name (e.g. quickstart), or --resume DIR"
            )
        config = apply_overrides(config, args.overrides)
        run_training(
            config,
            run_dir=args.out,
            resume=args.resume,
            progress=not args.no_progress,
            time_budget=args.time_budget,
            notes=sys.stderr,
            init=args.init,
        )
    except (ConfigError, CheckpointError, FileExistsError, MissingExtraError) as error:
        print(f"damas train: {error}", file=sys.stderr)
        return 2
    except (WorkersLostError, RayStartError, DivergenceError, OSError) as error:
        print(f"damas train: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
