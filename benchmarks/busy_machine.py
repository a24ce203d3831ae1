"""The batch env on a busy machine: OpenMP's idle threads spinning (ACTIVE) or sleeping
(PASSIVE, damas_env's default), with and without another process keeping one core busy.

    python benchmarks/busy_machine.py                 # English, 4096 games, 10 s a case
    python benchmarks/busy_machine.py --variant international --envs 1024 --seconds 5

Each case runs in a fresh process (the OpenMP runtime reads ``OMP_WAIT_POLICY`` once, when
it starts): random-action steps of ``DraughtsBatchEnv`` for ``--seconds``, and the same with
a small torch network evaluated on the observations after every step (what a PPO rollout
does: numba's threads and torch's take turns). ``spinner`` is a second process running a
busy loop on one core during the measurement, as another job on a shared machine would.

It prints steps/s (game steps: batch steps x games) for each wait policy, quiet and busy,
and the ratio of PASSIVE (damas_env's default now) to the unset policy users had before
(GNU OpenMP then spins about 300,000 times before sleeping); ACTIVE spins far longer.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
from damas_env.vector import DraughtsBatchEnv
variant, envs, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with_torch = sys.argv[4] == "1"
env = DraughtsBatchEnv(envs, variant, seed=0)
obs = env.reset(seed=0)[0]
if with_torch:
    import torch
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(int(np.prod(obs.shape[1:])), 64),
                              torch.nn.ReLU(), torch.nn.Linear(64, 1))
for _ in range(20):  # warm-up: compiling is cached, threads started
    obs = env.step(env.random_actions())[0]
start, steps = time.perf_counter(), 0
while time.perf_counter() - start < seconds:
    obs = env.step(env.random_actions())[0]
    if with_torch:
        with torch.no_grad():
            net(torch.as_tensor(obs))
    steps += 1
print(json.dumps({"steps_per_s": steps * envs / (time.perf_counter() - start)}))
"""


def _spin(stop: multiprocessing.synchronize.Event) -> None:
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def run_case(policy: str, busy: bool, args: argparse.Namespace, with_torch: bool) -> float:
    """Returns game steps/s of one case, measured in a fresh process. `policy` "" is what
    GNU OpenMP does when nothing sets it (the runtime ignores an empty value; damas_env's
    setdefault leaves a set variable alone)."""
    env = dict(os.environ)
    env["OMP_WAIT_POLICY"] = policy
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    if busy:
        spinner.start()
    try:
        command = [sys.executable, "-c", CHILD, args.variant, str(args.envs), str(args.seconds)]
        command.append("1" if with_torch else "0")
        out = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    finally:
        stop.set()
        if busy:
            spinner.join()
    return float(json.loads(out.stdout.strip().splitlines()[-1])["steps_per_s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="english")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    print(f"{args.variant}, {args.envs} games, {os.cpu_count()} cores, {args.seconds:g} s a case")
    head = f"{'PASSIVE (now)':>14} {'unset (before)':>15} {'ACTIVE':>10} {'now/before':>11}"
    print(f"{'case':24} {head}")
    for with_torch in (False, True):
        for busy in (False, True):
            label = ("env + torch" if with_torch else "env") + (", spinner" if busy else ", quiet")
            rates = [run_case(p, busy, args, with_torch) for p in ("PASSIVE", "", "ACTIVE")]
            print(
                f"{label:24} {rates[0] / 1e6:12.3f} M {rates[1] / 1e6:13.3f} M "
                f"{rates[2] / 1e6:8.3f} M {rates[0] / rates[1]:10.2f}x",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    status = main()
    print(f"({time.perf_counter() - start:.0f} s)")
    raise SystemExit(status)
