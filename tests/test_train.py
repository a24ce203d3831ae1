"""The AlphaZero trainer, the training loop, checkpoints and ``damas train``."""

from __future__ import annotations

import io
import json
import os
import shlex
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from helpers import tiny_training

from damas_agents.arena import play_match
from damas_agents.files import write_atomically
from damas_agents.models.checkpoint import CheckpointError, read_checkpoint, save_checkpoint
from damas_agents.models.config import (
    Config,
    ConfigError,
    apply_overrides,
    config_from_dict,
    load_config,
)
from damas_agents.players.learned import NetworkAgent
from damas_agents.players.load import load_agent
from damas_agents.players.make import make_agent
from damas_agents.training.alphazero import AlphaZeroTrainer, ReplayBuffer
from damas_agents.training.resume import restore_trainer
from damas_agents.training.train import main as train_main
from damas_agents.training.train import run_training, summary_line
from damas_env import Colour
from damas_env import kernels as K
from damas_env.turn import result_value

ROOT = Path(__file__).resolve().parents[1]

TINY = {
    "name": "tiny",
    "algorithm": "alphazero",
    "env": {"variant": "english", "num_envs": 4, "max_plies": 40},
    "network": {"channels": 8, "blocks": 1, "value_hidden": 8, "device": "cpu"},
    "train": {
        "iterations": 2,
        "batch_size": 32,
        "updates_per_iteration": 2,
        "replay_size": 2000,
        "checkpoint_every": 1,
    },
    "mcts": {"simulations": 4, "leaves_per_game": 2, "steps_per_iteration": 6},
    "eval": {"every": 2, "games": 2, "opponents": ["random"]},
}


def tiny(**sections: dict) -> Config:
    data = {k: dict(v) if isinstance(v, dict) else v for k, v in TINY.items()}
    for key, values in sections.items():
        data[key] = {**data.get(key, {}), **values}
    return config_from_dict(data)


# --- AlphaZero ------------------------------------------------------------------------------


def test_the_value_target_is_the_result_for_a_side() -> None:
    assert result_value(K.WHITE_WINS, Colour.WHITE) == 1.0
    assert result_value(K.WHITE_WINS, Colour.BLACK) == -1.0
    assert result_value(K.BLACK_WINS, Colour.BLACK) == 1.0
    assert result_value(K.DRAW, Colour.WHITE) == 0.0
    assert result_value(K.ONGOING, Colour.BLACK) == 0.0  # stopped at max_plies: a draw


def test_replay_buffer_ring_and_state() -> None:
    buffer = ReplayBuffer(5, 8, 896)
    for start in (0, 3, 6):
        k = 3
        obs = np.zeros((k, 8, 8, 8), dtype=np.float32) + np.arange(k)[:, None, None, None]
        buffer.add(obs, np.ones((k, 896), bool), np.zeros((k, 896)), np.arange(start, start + k))
    assert buffer.size == 5 and buffer.added == 9
    assert sorted(buffer.values.tolist()) == [4, 5, 6, 7, 8]  # the newest five
    copy = ReplayBuffer(5, 8, 896)
    copy.load_state(buffer.state())
    assert copy.size == 5 and copy.added == 9
    assert copy.state()["values"].tolist() == [4, 5, 6, 7, 8]  # oldest first


def test_values_are_the_result_for_the_player_to_move() -> None:
    trainer = AlphaZeroTrainer(tiny(env={"max_plies": 0}, mcts={"steps_per_iteration": 40}))
    expected: list[float] = []
    finish = trainer._finish

    def spy(g: int, finished: list) -> None:
        turn, record = trainer.games[g], trainer.records[g]
        expected.extend(result_value(turn.result, side) for side in record.sides)
        finish(g, finished)

    trainer._finish = spy  # type: ignore[method-assign]
    while trainer.replay.size == 0:
        trainer.learn([trainer.collect()])
    assert trainer.replay.values[: trainer.replay.size].tolist() == expected
    assert set(expected) <= {-1.0, 0.0, 1.0} and any(v != 0 for v in expected)


def test_step_metrics_and_legal_targets() -> None:
    trainer = AlphaZeroTrainer(tiny(mcts={"steps_per_iteration": 30}))
    metrics = {}
    for _ in range(3):
        metrics = trainer.step()
    assert trainer.iteration == 3
    assert metrics["positions"] == 4 * 30
    for key in ("loss/total", "loss/policy", "loss/value", "entropy", "value_error"):
        assert np.isfinite(metrics[key])
    r = trainer.replay
    policies = r.policies[: r.size].astype(np.float32)
    assert np.all(policies[~r.masks[: r.size]] == 0)  # visits only on legal hops
    assert np.allclose(policies.sum(1), 1, atol=1e-2)


def test_loss_goes_down_on_a_fixed_batch() -> None:
    trainer = AlphaZeroTrainer(tiny(mcts={"steps_per_iteration": 40}))
    while trainer.replay.size < 64:  # self-play only: the network stays as it started
        payload = trainer.collect()
        keys = ("obs", "masks", "policies", "values")
        for game in zip(*(payload[k] for k in keys), strict=True):
            trainer.replay.add(*game)
    rows = np.arange(64)
    trainer.network.train()
    before = float(trainer.losses(rows)["total"].detach())
    for _ in range(30):
        loss = trainer.losses(rows)["total"]
        trainer.optimizer.zero_grad()
        loss.backward()
        trainer.optimizer.step()
    after = float(trainer.losses(rows)["total"].detach())
    assert after < 0.8 * before


def test_self_play_games_start_after_their_random_openings() -> None:
    """Each game starts with env.opening_plies random moves from its own stream; a resume
    (the generators restored) draws the same openings again."""
    a = AlphaZeroTrainer(tiny(env={"opening_plies": 5}))
    assert all(t.ply == 5 and t.result == K.ONGOING and t.hop == 0 for t in a.games)
    assert len({t.board.tobytes() for t in a.games}) > 1  # the streams differ
    b = AlphaZeroTrainer(tiny(env={"opening_plies": 5}))
    a.step()
    b.load_extra_state(a.extra_state())
    a.load_extra_state(a.extra_state())
    assert [t.board.tobytes() for t in a.games] == [t.board.tobytes() for t in b.games]


def test_same_seed_same_run() -> None:
    a, b = AlphaZeroTrainer(tiny()), AlphaZeroTrainer(tiny())
    for _ in range(2):
        assert a.step().keys() == b.step().keys()
    assert np.array_equal(a.replay.values, b.replay.values)
    for pa, pb in zip(a.network.parameters(), b.network.parameters(), strict=True):
        assert torch.equal(pa, pb)


# --- Checkpoints ----------------------------------------------------------------------------


def test_checkpoint_round_trip_resumes_identically(tmp_path: Path) -> None:
    config = tiny(mcts={"steps_per_iteration": 30})
    a = AlphaZeroTrainer(config)
    a.step()
    save_checkpoint(tmp_path / "a.pt", a, [{"iteration": 1.0}])
    data = torch.load(tmp_path / "a.pt", weights_only=True)  # plain values and tensors only
    assert data["iteration"] == 1 and data["history"] == [{"iteration": 1.0}]
    b = AlphaZeroTrainer(config)
    restore_trainer(b, read_checkpoint(tmp_path / "a.pt"), tmp_path / "a.pt")
    assert b.iteration == 1 and b.replay.size == a.replay.size
    for pa, pb in zip(a.network.parameters(), b.network.parameters(), strict=True):
        assert torch.equal(pa, pb)
    # Both continue from restarted games (games in progress are not saved) and stay equal.
    a.load_extra_state(a.extra_state())
    restore_trainer(b, read_checkpoint(tmp_path / "a.pt"), tmp_path / "a.pt")
    ma, mb = a.step(), b.step()
    assert ma["loss/total"] == pytest.approx(mb["loss/total"])


def test_corrupt_checkpoints_are_refused(tmp_path: Path) -> None:
    trainer = AlphaZeroTrainer(tiny())
    good = tmp_path / "good.pt"
    save_checkpoint(good, trainer)
    data = good.read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        read_checkpoint(tmp_path / "cut.pt")
    (tmp_path / "text.pt").write_text("hello")
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        read_checkpoint(tmp_path / "text.pt")
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        read_checkpoint(tmp_path / "missing.pt")
    torch.save({"weights": torch.zeros(2)}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a damas-env checkpoint"):
        read_checkpoint(tmp_path / "other.pt")


class _Exploit:
    """An object whose unpickling would run code (torch.load without weights_only)."""

    def __reduce__(self):  # noqa: ANN204
        return (os.system, ("echo pwned > pwned.txt",))


def test_a_checkpoint_holding_code_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    trainer = AlphaZeroTrainer(tiny())
    save_checkpoint(tmp_path / "ok.pt", trainer)
    data = torch.load(tmp_path / "ok.pt", weights_only=True)
    data["history"] = [_Exploit()]
    torch.save(data, tmp_path / "evil.pt")
    with pytest.raises(CheckpointError, match="refused"):
        read_checkpoint(tmp_path / "evil.pt")
    assert not (tmp_path / "pwned.txt").exists()


def test_mismatched_checkpoint_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    a = AlphaZeroTrainer(tiny())
    save_checkpoint(tmp_path / "a.pt", a)
    other = AlphaZeroTrainer(tiny(network={"channels": 16}, env={"variant": "international"}))
    before = [p.clone() for p in other.network.parameters()]
    with pytest.raises(CheckpointError) as error:
        restore_trainer(other, read_checkpoint(tmp_path / "a.pt"), tmp_path / "a.pt")
    assert "network.channels: checkpoint has 8, config has 16" in str(error.value)
    assert "rules." in str(error.value)
    assert other.iteration == 0
    for p, q in zip(before, other.network.parameters(), strict=True):
        assert torch.equal(p, q)


def test_write_atomically_leaves_old_file_on_failure(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "x.bin"
    write_atomically(target, b"old")

    def fail(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask  # like any file written here


# --- Checkpoint agents ----------------------------------------------------------------------


def test_checkpoint_agent_plays_in_the_arena(tmp_path: Path) -> None:
    trainer = AlphaZeroTrainer(tiny())
    save_checkpoint(tmp_path / "net.pt", trainer, with_trainer=False)
    for spec in (f"checkpoint:{tmp_path / 'net.pt'}", f"checkpoint:{tmp_path / 'net.pt'},sims=4"):
        agent = make_agent(spec, seed=0)
        assert isinstance(agent, NetworkAgent)
        match = play_match(agent, "random", "english", games=2, max_plies=60, progress=False)
        assert match.games == 2


def test_checkpoint_agent_refuses_other_rules(tmp_path: Path) -> None:
    trainer = AlphaZeroTrainer(tiny())
    save_checkpoint(tmp_path / "net.pt", trainer, with_trainer=False)
    agent = load_agent(tmp_path / "net.pt")
    with pytest.raises(ValueError, match="trained on 'english' rules"):
        play_match(agent, "random", "international", games=1, progress=False)


def test_checkpoint_spec_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        make_agent(f"checkpoint:{tmp_path / 'nope.pt'}")


# --- The loop and the command ---------------------------------------------------------------


def test_run_writes_everything_and_resumes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    out = io.StringIO()
    result = run_training(tiny(), run_dir=run, progress=False, out=out)
    assert result.checkpoint == run / "checkpoints" / "latest.pt"
    assert (run / "config.yaml").exists() and load_config(run / "config.yaml") == tiny()
    assert (run / "games" / "iter_000002.pdn").read_text().count("[Event ") == 2
    assert list((run / "tb").iterdir())
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2]
    assert "eval/random/score" in lines[-1]
    assert "iter 1/2 | first games still playing | " in out.getvalue()  # none ends in 2
    assert "| loss - (replay empty)\n" in out.getvalue()
    assert "iter 2/2" in out.getvalue() and "| eval@2 random " in out.getvalue()
    assert "done: 2 iterations in" in out.getvalue() and "score vs random" in out.getvalue()
    assert read_checkpoint(result.checkpoint)["iteration"] == 2

    more = apply_overrides(tiny(), ["train.iterations=3"])
    result = run_training(more, resume=run, progress=False, out=io.StringIO())
    assert read_checkpoint(result.checkpoint)["iteration"] == 3
    lines = [json.loads(x) for x in (run / "metrics.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2, 3]
    assert [h["iteration"] for h in result.history] == [1, 2, 3]

    with pytest.raises(FileExistsError, match="--resume"):
        run_training(tiny(), run_dir=run, progress=False, out=io.StringIO())


def test_summary_lines_say_what_is_not_there_yet() -> None:
    """Before the first game ends and the first update runs, the line says why there are no
    games per second and no loss; the scores say at which iteration they were measured."""
    config = tiny(train={"iterations": 30, "batch_size": 64})
    first = {"iteration": 1, "games": 0, "games_per_s": 0, "positions_per_s": 151.4}
    first["alphazero/replay"] = 0
    assert summary_line(first, config, {}, games=0) == (
        "iter 1/30 | first games still playing | 151 pos/s | loss - (replay empty)"
    )
    later = {**first, "iteration": 23, "games": 2, "games_per_s": 1.18, "alphazero/replay": 700}
    later.update({"loss/total": 2.0661, "loss/policy": 1.7859, "loss/value": 0.2802})
    later.update({"entropy": 1.79, "game_length": 93.2})
    scores = {"eval/random/score": 0.97, "eval/random/elo": 600, "eval/greedy/score": 0.9}
    assert summary_line(later, config, {**scores, "iteration": 20}, games=6) == (
        "iter 23/30 | 1.18 games/s | 151 pos/s | loss 2.066 (policy 1.786 value 0.280) | "
        "entropy 1.79 | length 93 | eval@20 random 0.97, greedy 0.90"
    )
    nnue = {"iteration": 2, "games": 8, "games_per_s": 4.0, "positions_per_s": 90}
    nnue["nnue/replay"] = 40
    assert summary_line(nnue, config, {}, games=16) == (
        "iter 2/30 | 4.00 games/s | 90 pos/s | loss - (replay filling: 40/64 positions)"
    )
    assert summary_line({**nnue, "loss/total": 0.1234}, config, {}, games=16).endswith(
        "| value loss 0.1234"
    )


def _killed_after_iteration_3(run: Path, monkeypatch) -> None:
    """Runs 5 iterations (checkpoints at 2 and 4, evaluations at 3 and 5) that die as the
    4th begins, as a kill -9 would: iteration 3 is logged, evaluated, and not saved."""
    config = tiny(train={"iterations": 5, "checkpoint_every": 2}, eval={"every": 3})
    step = AlphaZeroTrainer.step

    def dying(self: AlphaZeroTrainer) -> dict[str, float]:
        if self.iteration == 3:
            raise RuntimeError("killed")
        return step(self)

    monkeypatch.setattr(AlphaZeroTrainer, "step", dying)
    with pytest.raises(RuntimeError, match="killed"):
        run_training(config, run_dir=run, progress=False, out=io.StringIO())
    monkeypatch.undo()
    assert read_checkpoint(run / "checkpoints" / "latest.pt")["iteration"] == 2
    assert (run / "games" / "iter_000003.pdn").exists()


def _logged_iterations(run: Path) -> tuple[list[int], list[int]]:
    """Returns the iterations of metrics.jsonl's lines and of train.log's summary lines."""
    metrics = [json.loads(x)["iteration"] for x in (run / "metrics.jsonl").read_text().splitlines()]
    log = (run / "train.log").read_text().splitlines()
    return metrics, [int(x.split()[1].split("/")[0]) for x in log if x.startswith("iter ")]


def test_a_resume_cuts_the_logs_back_to_its_checkpoint(tmp_path: Path, monkeypatch) -> None:
    """metrics.jsonl, train.log and the evaluation games hold each iteration once after a
    resume; train.log keeps the first line (and closing lines) of each start."""
    run = tmp_path / "run"
    _killed_after_iteration_3(run, monkeypatch)
    assert _logged_iterations(run) == ([1, 2, 3], [1, 2, 3])
    out = io.StringIO()
    run_training(resume=run, progress=False, out=out)
    assert f"resuming tiny (alphazero, english) at iteration 2 in {run}; logs cut back from " \
        "iteration 3" in out.getvalue()  # fmt: skip
    assert _logged_iterations(run) == ([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    log = (run / "train.log").read_text()
    assert log.count("training tiny") == 1 and log.count("resuming tiny") == 1
    assert log.count("done: 5 iterations") == 1
    assert sorted(p.name for p in (run / "games").iterdir()) == [
        "iter_000003.pdn",
        "iter_000005.pdn",
    ]


def test_a_resume_leaves_each_tensorboard_step_once(tmp_path: Path, monkeypatch) -> None:
    """After a resume reran iteration 3 (its scalars, its evaluation), the event files read
    back raw, TensorBoard's reader reading them afresh, and one that was reading them
    before the resume (as a running TensorBoard does) hold each step of each tag once."""
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader
    from tensorboard.summary.writer import event_file_writer

    # The resume opens its file in the first file's second (on a clock that only moves on
    # by a sleep) as the counter in the names passes from .9 to .10: ".10" sorts first.
    monkeypatch.setattr(event_file_writer, "_global_uid", event_file_writer.AtomicCounter(9))
    run = tmp_path / "run"
    _killed_after_iteration_3(run, monkeypatch)
    (first,) = (run / "tb").glob("events.out.tfevents.*")
    clock = [int(first.name.split(".")[3]) + 0.5]

    def sleep(seconds: float) -> None:
        clock[0] += seconds

    monkeypatch.setattr(event_file_writer, "_global_uid", event_file_writer.AtomicCounter(10))
    monkeypatch.setattr(time, "time", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", sleep)
    live = EventAccumulator(str(run / "tb"), size_guidance={"scalars": 0}).Reload()
    assert [p.step for p in live.Scalars("positions")] == [1, 2, 3]
    run_training(resume=run, progress=False, out=io.StringIO())
    points = [
        (value.tag, event.step)
        for path in sorted((run / "tb").glob("events.out.tfevents.*"))
        for event in LegacyEventFileLoader(str(path)).Load()
        for value in event.summary.value
    ]
    assert len(points) == len(set(points))
    assert sorted(step for tag, step in points if tag == "positions") == [1, 2, 3, 4, 5]
    fresh = EventAccumulator(str(run / "tb"), size_guidance={"scalars": 0}).Reload()
    for accumulator in (fresh, live.Reload()):
        for tag in accumulator.Tags()["scalars"]:
            steps = [point.step for point in accumulator.Scalars(tag)]
            assert steps == sorted(set(steps)), tag
        assert [p.step for p in accumulator.Scalars("positions")] == [1, 2, 3, 4, 5]
        assert [p.step for p in accumulator.Scalars("eval/random/score")] == [3, 5]


def test_a_new_event_file_waits_for_a_second_past_the_older_ones(
    tmp_path: Path, monkeypatch
) -> None:
    """Event files sort by the second in their names: a start waits until its file's sorts
    after every older one's, and does not wait when they are all older."""
    from damas_agents.training import train

    sleeps: list[float] = []
    monkeypatch.setattr(train.time, "sleep", lambda s: sleeps.append(s))
    now = int(train.time.time())
    (tmp_path / f"events.out.tfevents.{now - 5:010d}.host.1.0").touch()
    train._wait_for_a_later_second(tmp_path)
    assert sleeps == [0.0]
    monkeypatch.undo()
    (tmp_path / f"events.out.tfevents.{int(train.time.time()):010d}.host.1.9").touch()
    latest = int(train.time.time())
    train._wait_for_a_later_second(tmp_path)
    assert int(train.time.time()) > latest


def test_resuming_a_finished_run_says_how_to_train_further(tmp_path: Path, capsys) -> None:
    """It trains nothing, exits 0 and prints a command that trains further; that command
    works."""
    from damas_agents.command import main as damas_main

    run = tmp_path / "run"
    run_training(tiny(train={"iterations": 1}), run_dir=run, progress=False, out=io.StringIO())
    with (run / "train.log").open("a") as log:
        log.write("play it: damas pl")  # a kill as the line was written: the resume drops it
    assert train_main(["--resume", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "done:" not in out
    advice = "already finished its 1 iteration; train further with: "
    (line,) = [x for x in out.splitlines() if x.startswith(advice)]
    command = line.removeprefix(advice)
    assert command == f"damas train --resume {run} --set train.iterations=2"
    assert damas_main([*shlex.split(command)[1:], "--no-progress"]) == 0
    assert "done: 2 iterations" in capsys.readouterr().out
    assert read_checkpoint(run / "checkpoints" / "latest.pt")["iteration"] == 2
    assert _logged_iterations(run) == ([1, 2], [1, 2])
    assert "damas pl\n" not in (run / "train.log").read_text()


def test_a_refused_resume_leaves_the_run_as_it_was(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    run_training(tiny(train={"iterations": 1}), run_dir=run, progress=False, out=io.StringIO())
    before = (run / "config.yaml").read_text()
    assert train_main(["--resume", str(run), "--set", "network.channels=16"]) == 2
    assert "network.channels: checkpoint has 8, config has 16" in capsys.readouterr().err
    assert (run / "config.yaml").read_text() == before  # so a plain --resume still works


@pytest.mark.parametrize("latest", ["trainer_field", "snapshot"])
def test_a_resume_refused_by_the_restore_writes_nothing(
    tmp_path: Path, capsys, latest: str
) -> None:
    """latest.pt that passes the checks of the config but cannot be restored (a garbage
    ``trainer`` field, a network-only snapshot): config.yaml keeps its overrides out, and the
    run's files (a stale temporary included) are left as they were."""
    run = tmp_path / "run"
    run_training(tiny(train={"iterations": 1}), run_dir=run, progress=False, out=io.StringIO())
    ckpt = run / "checkpoints"
    if latest == "snapshot":
        (ckpt / "latest.pt").write_bytes((ckpt / "iter_000001.pt").read_bytes())
    else:
        data = torch.load(ckpt / "latest.pt", weights_only=True)
        data["trainer"] = {"replay": "x"}
        torch.save(data, ckpt / "latest.pt")
    (ckpt / ".latest.pt.123.tmp").write_bytes(b"partial")
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    argv = ["--resume", str(run), "--set", "train.lr=0.5", "mcts.simulations=7", "--no-progress"]
    assert train_main(argv) == 2
    assert "cannot restore the trainer" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_init_starts_a_fresh_run_from_another_runs_weights(tmp_path: Path, capsys) -> None:
    """--init: the new run's first checkpoint holds the source's weights (a fresh optimiser,
    iteration 0), and a source of another network or algorithm is refused before any file
    of the run is written."""
    source, trained_elsewhere = tmp_path / "source", tiny(train={"iterations": 1, "seed": 7})
    run_training(trained_elsewhere, run_dir=source, progress=False, out=io.StringIO())
    weights = read_checkpoint(source / "checkpoints" / "latest.pt")["model"]
    config = tiny(train={"iterations": 1, "lr": 1e-9})  # the weights stay about as loaded
    run, out = tmp_path / "run", io.StringIO()
    init = str(source / "checkpoints" / "latest.pt")
    result = run_training(config, run_dir=run, progress=False, out=out, init=init)
    assert f"starting from the weights of {init}" in out.getvalue()
    trained = read_checkpoint(result.checkpoint)
    assert trained["iteration"] == 1
    for name, tensor in weights.items():
        if tensor.is_floating_point() and "running_" not in name:  # BatchNorm's stats move
            assert torch.allclose(trained["model"][name], tensor, atol=1e-6), name

    wider = tmp_path / "wider.yaml"
    wider.write_text(yaml.safe_dump(tiny_training(network={"channels": 16})))
    refused = tmp_path / "refused"
    assert train_main([str(wider), "--init", init, "--out", str(refused)]) == 2
    assert "its network does not fit this config's" in capsys.readouterr().err
    assert not refused.exists()
    assert train_main(["--resume", str(run), "--init", init]) == 2
    assert "--init starts a fresh run" in capsys.readouterr().err
    assert train_main([str(wider), "--init", "pretrained:nope", "--out", str(refused)]) == 2
    assert "no pretrained agent 'nope'" in capsys.readouterr().err
    assert not refused.exists()


def test_eval_rate_logs_the_pool_elo_and_is_refused_without_a_pool(tmp_path: Path) -> None:
    """eval.rate: the evaluation rates the run's agent on its variant's pool (a few games
    here), logged with its interval; rules with no pool are refused before anything is
    written."""
    config = apply_overrides(
        tiny(train={"iterations": 1}), ["eval.every=1", "eval.rate=true", "eval.rate_games=4"]
    )
    run, out = tmp_path / "run", io.StringIO()
    run_training(config, run_dir=run, progress=False, out=out)
    line = json.loads((run / "metrics.jsonl").read_text().splitlines()[-1])
    assert line["eval/rate/games"] == 4
    low, high, elo = (
        line.get("eval/rate/elo_low"),
        line.get("eval/rate/elo_high"),
        line["eval/rate/elo"],
    )
    assert low is not None or high is not None
    assert (low is None or low <= elo) and (high is None or elo <= high)
    assert (run / "games").is_dir()

    russian = apply_overrides(config, ["env.variant=russian"])
    with pytest.raises(ConfigError, match="eval.rate: no rating pool v1 for 'russian'"):
        run_training(russian, run_dir=tmp_path / "refused", progress=False, out=io.StringIO())
    assert not (tmp_path / "refused").exists()


def test_command_line_errors(tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("train: {lr: fast}\n")
    assert train_main([str(config)]) == 2
    assert "train.lr must be float" in capsys.readouterr().err
    quickstart = str(ROOT / "configs" / "quickstart.yaml")
    assert train_main([quickstart, "--set", "mcts.simulation=3"]) == 2
    assert "did you mean 'simulations'" in capsys.readouterr().err
    assert train_main(["--resume", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert "not a run directory (no config.yaml)" in err and "damas train CONFIG --resume" in err
    assert train_main(["--resume", str(tmp_path / "r"), "--out", str(tmp_path / "x")]) == 2
    out, err = capsys.readouterr()
    assert not out and "--out and --resume are exclusive" in err
    config.write_text("")
    assert train_main([str(config)]) == 2
    assert "the config is empty" in capsys.readouterr().err


def test_out_must_name_a_directory(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps(TINY))
    (tmp_path / "file").write_text("x")
    for out in ("", "/dev/null", str(tmp_path / "file"), str(tmp_path / "file" / "run")):
        assert train_main([str(config), "--out", out, "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert "is not a directory" in err or "the run directory is empty" in err
        assert "Errno" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "file"]


def test_the_advice_for_a_run_without_config_yaml_works(tmp_path: Path, capsys) -> None:
    """A run dir with a checkpoint but no config.yaml (copied, or config.yaml lost): both
    refusals point to ``damas train CONFIG --resume DIR``, which continues it."""
    run = tmp_path / "run"
    run_training(tiny(train={"iterations": 1}), run_dir=run, progress=False, out=io.StringIO())
    (run / "config.yaml").unlink()
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**TINY, "train": {**TINY["train"], "iterations": 2}}))
    advice = f"damas train CONFIG --resume {run}"
    assert train_main(["--resume", str(run)]) == 2
    assert advice in capsys.readouterr().err
    assert train_main([str(config), "--out", str(run)]) == 2
    assert advice in capsys.readouterr().err
    assert train_main([str(config), "--resume", str(run), "--no-progress"]) == 0
    assert read_checkpoint(run / "checkpoints" / "latest.pt")["iteration"] == 2


@pytest.mark.parametrize("budget", ["-5", "0", "nan", "inf", "soon"])
def test_time_budget_must_be_finite_and_positive(budget: str, capsys) -> None:
    quickstart = str(ROOT / "configs" / "quickstart.yaml")
    with pytest.raises(SystemExit) as exit_:
        train_main([quickstart, "--time-budget", budget])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert not out and "--time-budget" in err and "finite number of seconds > 0" in err
    with pytest.raises(ValueError, match="finite number of seconds > 0"):
        run_training(tiny(), time_budget=float(budget) if budget != "soon" else -1.0)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_cuda_stops_before_writing(tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**TINY, "network": {**TINY["network"], "device": "cuda"}}))
    assert train_main([str(config), "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    assert "network.device is 'cuda' but torch" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("opponent", "message"),
    [
        ("bogus", "unknown agent kind 'bogus'"),
        ("checkpoint:{tmp}/nonexistent.pt", "no checkpoint file at"),
        ("checkpoint:{tmp}/international.pt", "cannot play a 'english' game"),
        ("hub:{tmp}/nonexistent", "Hub engine"),
        ("dame:depth=2", "plays international rules only"),
    ],
)
def test_a_bad_opponent_is_refused_before_training(
    tmp_path: Path, capsys, opponent: str, message: str
) -> None:
    """An opponent that parses but cannot be built, or cannot play the run's rules, stops
    the run before it writes anything (not at its first evaluation)."""
    if opponent.startswith("dame"):
        pytest.importorskip("dame")
    other = AlphaZeroTrainer(tiny(env={"variant": "international"}))
    save_checkpoint(tmp_path / "international.pt", other)
    spec = opponent.format(tmp=tmp_path)
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**TINY, "eval": {**TINY["eval"], "opponents": ["random", spec]}}))
    assert train_main([str(config), "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "eval.opponents[1]: " in err and message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_a_diverging_run_stops_without_saving_nan(tmp_path: Path, monkeypatch, capsys) -> None:
    """The loss turns NaN at iteration 2: the run stops, latest.pt keeps iteration 1."""
    step = AlphaZeroTrainer.step

    def diverging(self: AlphaZeroTrainer) -> dict[str, float]:
        metrics = step(self)
        if self.iteration == 2:
            with torch.no_grad():
                next(self.network.parameters()).fill_(float("nan"))
            metrics["loss/total"] = float("nan")
        return metrics

    monkeypatch.setattr(AlphaZeroTrainer, "step", diverging)
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**TINY, "train": {**TINY["train"], "iterations": 4}}))
    run = tmp_path / "run"
    assert train_main([str(config), "--out", str(run), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "training diverged at iteration 2: loss/total is nan" in err
    assert "the network's weights are not finite" in err
    latest = read_checkpoint(run / "checkpoints" / "latest.pt")
    assert latest["iteration"] == 1
    assert all(torch.isfinite(t).all() for t in latest["model"].values())
    assert not (run / "checkpoints" / "iter_000002.pt").exists()


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.stem)
def test_shipped_configs_load_and_build(path: Path) -> None:
    from damas_agents.training.trainer import make_trainer

    config = apply_overrides(load_config(path), ["env.num_envs=2"])
    trainer = make_trainer(config)
    assert trainer.iteration == 0 and trainer.config == config


@pytest.mark.parametrize("rules", [{}, {"flying_kings": True, "colour_names": ["red", "white"]}])
def test_play_against_a_trained_checkpoint(
    tmp_path: Path, monkeypatch, capsys, rules: dict
) -> None:
    """What the closing line of ``damas train`` suggests works: damas play vs the checkpoint,
    also under a variant changed by env.rules (then played from the run's rules.yaml)."""
    from damas_agents.command import main as damas_main

    config = tiny(train={"iterations": 1}, env={"rules": rules})
    result = run_training(config, run_dir=tmp_path / "r", progress=False)
    line = capsys.readouterr().out.splitlines()[-1]
    variant = tmp_path / "r" / "rules.yaml" if rules else "english"
    assert (
        line == f"play it: damas play --variant {variant} --opponent checkpoint:{result.checkpoint}"
    )
    assert (tmp_path / "r" / "rules.yaml").exists() == bool(rules)
    monkeypatch.setattr("sys.stdin", io.StringIO("11-15\n"))
    argv = shlex.split(line.removeprefix("play it: damas "))
    assert damas_main([*argv, "--text", "--as", "second"]) == 0
    assert "checkpoint:latest.pt" in capsys.readouterr().out


@pytest.mark.parametrize("variant", ["international", "russian", "canadian"])
def test_alphazero_iterates_on_other_boards(variant: str) -> None:
    trainer = AlphaZeroTrainer(tiny(env={"variant": variant, "max_plies": 20}))
    metrics = trainer.step()
    assert metrics["positions"] == 4 * 6 and trainer.iteration == 1
    r = trainer.replay
    assert r.obs.shape[2] == trainer.rules.board_size
    assert np.all(r.policies[: r.size][~r.masks[: r.size]] == 0)


def test_a_ray_that_does_not_start_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    """Ray's local node timing out (it raises a bare Exception) stops the run with exit 1 and
    one line, not a traceback; the run directory stays resumable."""
    ray = pytest.importorskip("ray")

    def timed_out(*args: object, **kwargs: object) -> None:
        raise Exception("The current node timed out during startup.\nThis could happen...")

    monkeypatch.setattr(ray, "init", timed_out)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**TINY, "distributed": {"backend": "ray", "workers": 1}}))
    run = tmp_path / "run"
    assert train_main([str(config), "--out", str(run), "--no-progress"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("damas train: setting up tiny in ")  # before torch is imported
    assert err[1:] == [
        "damas train: could not start a local Ray: The current node timed out during startup."
    ]
    assert read_checkpoint(run / "checkpoints" / "latest.pt")["iteration"] == 0
