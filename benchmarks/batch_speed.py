"""Batch env speed: DraughtsBatchEnv beside draughts_v0 and OpenSpiel, one loop style, one run.

    python benchmarks/batch_speed.py               # 1.5 s per measurement (about 80 s)
    python benchmarks/batch_speed.py --seconds 5   # steadier figures
    python benchmarks/batch_speed.py --quick       # batches 1, 64, 4096; one short round

Random masked play, timed after a warm-up (numba's cache load and first calls not counted):

    env = DraughtsBatchEnv(B, variant=variant, seed=0, num_threads=t)
    while ...:
        env.step(env.random_actions())

A *step* is one hop in every game of the batch, so each call counts B steps; finished games
reset inside ``step``. Batches of 1 to 4096 games run on 1 and 2 threads, for English and
International, beside two per-env loops in the same run: ``draughts_v0.raw_env()`` playing
random masked hops with the loop of ``env_speed.py`` (turns/s; a turn is one hop), and
OpenSpiel's ``checkers`` driven from Python (``state.apply_action(random legal action)``,
a new game at the end; actions/s, English only; an OpenSpiel action is one hop too). That
loop writes no observation, so a second OpenSpiel row also asks ``observation_tensor()``
before each action, the least an agent needs. Every measurement is split into rounds that
take turns with the others (round robin), and the best round counts, so that a burst of load
from other processes on this shared machine hits every case alike and is mostly filtered out.

Targets, with the default float32 observations: English >= 1,000,000
steps/s and International >= 500,000 steps/s at batch 4096 with 2 threads; a batch of 1 no
slower than ``draughts_v0.raw_env()``.

What bounds it: at batch 4096 the full step is timed beside ``env.encode()`` alone (rewrites
every observation and mask from the turn's cached route list: the cost of writing
observations and masks) and ``env.random_actions()`` alone; the rest of the step is playing
the hop, generating the next turn's moves, the end-of-game checks, auto-resets, the action
check and the Python call. The step with ``obs_dtype=np.uint8`` shows how much of it is
memory traffic (a quarter of the observation bytes).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from env_speed import Sampler, play  # the per-env loop of benchmarks/env_speed.py

from damas_env import draughts_v0
from damas_env.vector import _SERIAL_BELOW as SERIAL_BELOW
from damas_env.vector import DraughtsBatchEnv

VARIANTS = ("english", "international")
SIZES = (1, 4, 16, 64, 256, 1024, 4096)
QUICK_SIZES = (1, 64, 4096)
THREADS = (1, 2)
BIG = 4096  # the batch of the targets and of the bounds table
#: Minimum steps/s at batch 4096 with 2 threads.
TARGETS = {"english": 1_000_000, "international": 500_000}

Runner = Callable[[float], tuple[int, float]]
"""Plays for about `seconds`; returns the units done (steps, turns, actions) and the time."""


@dataclass
class Case:
    """One thing to time: a label, its runner, units per call, and the best rate so far."""

    label: str
    run: Runner
    per_call: int = 1
    unit: str = "steps/s"
    rate: float = 0.0

    @property
    def us_per_call(self) -> float:
        return 1e6 * self.per_call / self.rate


def repeat(call: Callable[[], Any], per_call: int) -> Runner:
    """Returns a runner that calls `call` again and again, reading the clock every 256 units
    (as env_speed.play does) so that the clock costs small batches nothing."""
    every = max(1, 256 // per_call)

    def run(seconds: float) -> tuple[int, float]:
        calls = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            for _ in range(every):
                call()
            calls += every
            now = time.perf_counter()
            if now >= deadline:
                return calls * per_call, now - start

    return run


def batch_env(
    variant: str, size: int, threads: int, obs_dtype: Any = np.float32
) -> DraughtsBatchEnv:
    return DraughtsBatchEnv(size, variant=variant, seed=0, num_threads=threads, obs_dtype=obs_dtype)


def batch_case(env: DraughtsBatchEnv, label: str) -> Case:
    """Returns the case of random masked play in a batch env: one call, one hop per game."""
    return Case(label, repeat(lambda: env.step(env.random_actions()), env.num_envs), env.num_envs)


def raw_env_case(variant: str, choose: Sampler) -> Case:
    """Returns the case of draughts_v0.raw_env() played by env_speed's loop."""
    env = draughts_v0.raw_env(variant=variant)

    def run(seconds: float) -> tuple[int, float]:
        turns, elapsed, _games = play(env, choose, seconds, None)
        return turns, elapsed

    return Case(f"draughts_v0 {variant} raw_env()", run, unit="turns/s")


class OpenSpielLoop:
    """OpenSpiel's English checkers played at random from Python, one action per hop."""

    def __init__(self, observe: bool) -> None:
        import pyspiel

        self.game = pyspiel.load_game("checkers")
        self.state = self.game.new_initial_state()
        self.observe = observe
        self.rng = random.Random(0)

    def __call__(self, seconds: float) -> tuple[int, float]:
        game, state, rng, observe = self.game, self.state, self.rng, self.observe
        done = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            if state.is_terminal():
                state = game.new_initial_state()
            if observe:  # what the player to move sees, before it acts
                state.observation_tensor()
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            done += 1
            if done % 256 == 0 and time.perf_counter() >= deadline:
                self.state = state
                return done, time.perf_counter() - start


def openspiel_cases() -> list[Case]:
    """Returns the OpenSpiel loops, bare and with observation_tensor() (none if not installed)."""
    try:
        return [
            Case("OpenSpiel checkers, apply_action", OpenSpielLoop(False), unit="actions/s"),
            Case("  + observation_tensor()", OpenSpielLoop(True), unit="actions/s"),
        ]
    except ImportError as e:  # open_spiel missing: `pip install open_spiel`
        print(f"(OpenSpiel skipped: {e}; pip install open_spiel)")
        return []


def time_cases(cases: list[Case], seconds: float, rounds: int) -> None:
    """Times every case in round robin, `rounds` times a share of `seconds`; keeps the best."""
    for case in cases:
        case.run(0.1)  # warm-up: numba cache load, first calls, games under way
    for _ in range(rounds):
        for case in cases:
            done, elapsed = case.run(seconds / rounds)
            case.rate = max(case.rate, done / elapsed)


def print_batch_table(steps: dict[tuple[str, int, int], Case], sizes: tuple[int, ...]) -> None:
    keys = [(v, t) for v in VARIANTS for t in THREADS]
    print("\nDraughtsBatchEnv, random masked play: steps/s (one step = one hop in every game)")
    print(f"{'batch':>6}" + "".join(f"{f'{v} {t}T':>19}" for v, t in keys))
    for size in sizes:
        print(f"{size:>6}" + "".join(f"{steps[v, size, t].rate:>19,.0f}" for v, t in keys))
    print(f"(batches under {SERIAL_BELOW} always run the serial build, whatever num_threads says)")


def print_loops(loops: list[Case]) -> None:
    print("\nPer-env loops, same run (one turn or action = one hop)")
    for case in loops:
        print(f"  {case.label:<36} {case.rate:>11,.0f} {case.unit}")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_targets(steps: dict[tuple[str, int, int], Case], loops: dict[str, Case]) -> None:
    print("\nTargets (float32 observations)")
    for v in VARIANTS:
        rate = steps[v, BIG, 2].rate
        print(
            f"  {v:<13} batch {BIG}, 2 threads: {rate:>11,.0f} steps/s"
            f"   target >= {TARGETS[v]:>9,}   {verdict(rate >= TARGETS[v])}"
        )
    for v in VARIANTS:
        ours, theirs = steps[v, 1, 1].rate, loops[v].rate
        print(
            f"  {v:<13} batch 1 / draughts_v0 raw_env(): {ours:,.0f} / {theirs:,.0f} = "
            f"{ours / theirs:.2f}x   target >= 1.00x   {verdict(ours >= theirs)}"
        )
    if any(steps[v, BIG, 2].rate < steps[v, BIG, 1].rate for v in VARIANTS):
        print(
            "  WARNING: 2 threads slower than 1 at batch 4096: another process holds a core, and"
            "\n  each threaded call waits for it; rerun when the machine is idle."
        )
    spiel = loops.get("openspiel")
    if spiel is not None:
        rate = steps["english", BIG, 2].rate
        print(
            f"  (English batch {BIG}, 2 threads / OpenSpiel apply_action loop:"
            f" {rate / spiel.rate:,.1f}x;"
            f" batch 1: {steps['english', 1, 1].rate / spiel.rate:.2f}x)"
        )


def bound_cases(
    envs: dict[tuple[str, int], DraughtsBatchEnv],
) -> dict[tuple[str, int], dict[str, Case]]:
    """Returns, per (variant, threads), encode() alone, random_actions() alone and the step
    with uint8 observations, at batch 4096 (encode and random on the step case's env)."""
    out = {}
    for (v, t), env in envs.items():
        small = batch_env(v, BIG, t, np.uint8)
        out[v, t] = {
            "encode": Case(f"{v} {t}T encode", repeat(env.encode, BIG), BIG),
            "random": Case(f"{v} {t}T random", repeat(env.random_actions, BIG), BIG),
            "uint8": batch_case(small, f"{v} {t}T uint8 step"),
        }
    return out


def print_bounds(
    steps: dict[tuple[str, int, int], Case], bounds: dict[tuple[str, int], dict[str, Case]]
) -> None:
    print(f"\nWhat bounds it: batch {BIG}, microseconds per call (share of the float32 step)")
    print(
        f"  {'':<17} {'step':>7} {'encode()':>16} {'random_actions()':>17} {'rest':>16}"
        f" {'step, uint8 obs':>17}  largest"
    )
    for (v, t), parts in bounds.items():
        step = steps[v, BIG, t].us_per_call
        enc, rnd = parts["encode"].us_per_call, parts["random"].us_per_call
        rest = step - enc - rnd
        small = parts["uint8"].us_per_call
        print(
            f"  {f'{v} {t}T':<17} {step:>7,.0f} {enc:>7,.0f} ({enc / step:>5.0%}) "
            f"{rnd:>8,.0f} ({rnd / step:>5.0%}) {rest:>7,.0f} ({rest / step:>5.0%})"
            f" {small:>7,.0f} ({step / small:.2f}x)  {'encode' if enc > rest else 'rest'}"
        )
    print(
        "  encode(): planes and masks rewritten from the cached route list (writing observations"
        "\n  and masks); rest: the hop, move generation for the next turn, end checks, auto-reset,"
        "\n  the action check and the Python call; uint8: the full step with a quarter of the"
        "\n  observation bytes (speed-up over float32 in brackets)."
    )


def print_peaks(
    steps: dict[tuple[str, int, int], Case], envs: dict[tuple[str, int, int], DraughtsBatchEnv]
) -> None:
    """Prints each column's best batch beside batch 4096, and the arrays a batch env holds."""
    print(f"\nBest batch against batch {BIG}")
    sizes = sorted({size for _, size, _ in steps})
    for v in VARIANTS:
        for t in THREADS:
            rates = {size: steps[v, size, t].rate for size in sizes}
            best = max(rates, key=rates.__getitem__)
            peak, big = rates[best], rates[BIG]
            print(
                f"  {f'{v} {t}T':<17} {peak:>11,.0f} steps/s at batch {best:>4};"
                f" batch {BIG}: {big:>11,.0f} ({big / peak:.2f}x)"
            )
        env = envs[v, BIG, 2]
        arrays = {id(a): a for a in (*vars(env).values(), *env._games) if hasattr(a, "nbytes")}
        nbytes = sum(a.nbytes for a in arrays.values() if a.base is None)  # views counted once
        print(f"  {v}: a batch env of {BIG} games holds {nbytes / 2**20:,.0f} MiB of arrays")


def check_threads() -> None:
    have = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    if have < max(THREADS):
        raise SystemExit(f"needs {max(THREADS)} numba threads; this machine gives {have}")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=1.5, help="seconds per measurement (default 1.5)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="round-robin rounds (default 3)")
    parser.add_argument(
        "--quick", action="store_true", help="batches 1, 64, 4096; 0.3 s, one round"
    )
    args = parser.parse_args()
    seconds, rounds = (0.3, 1) if args.quick else (args.seconds, args.rounds)
    sizes = QUICK_SIZES if args.quick else SIZES
    check_threads()
    print(
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__},"
        f" {os.cpu_count()} CPUs; {seconds:g} s per measurement in {rounds} round(s), the best"
        " round counts"
    )
    print(f"load average before: {load()} (other processes slow the 2-thread figures most)")
    envs = {(v, s, t): batch_env(v, s, t) for v in VARIANTS for s in sizes for t in THREADS}
    steps = {(v, s, t): batch_case(env, f"{v} {s} {t}T") for (v, s, t), env in envs.items()}
    choose = Sampler(seed=0)
    loops = {v: raw_env_case(v, choose) for v in VARIANTS}
    spiel = openspiel_cases()
    if spiel:
        loops["openspiel"], loops["openspiel observe"] = spiel
    bounds = bound_cases({(v, t): envs[v, BIG, t] for v in VARIANTS for t in THREADS})
    extra = [case for parts in bounds.values() for case in parts.values()]
    time_cases([*steps.values(), *loops.values(), *extra], seconds, rounds)
    print_batch_table(steps, sizes)
    print_loops(list(loops.values()))
    print_targets(steps, loops)
    print_bounds(steps, bounds)
    print_peaks(steps, envs)
    print(f"\nload average after: {load()}")


if __name__ == "__main__":
    main()
