"""The batch env on a busy machine: the default threads against one thread and against the
OpenMP wait policies, with and without another process keeping one core busy.

    python benchmarks/busy_machine.py                 # English, 4096 games, 8 s a case
    python benchmarks/busy_machine.py --variant international --envs 1024 --seconds 5
    python benchmarks/busy_machine.py --readme-only   # the README's batch example, timed

Each case runs in a fresh process (the OpenMP runtime reads ``OMP_WAIT_POLICY`` once, when
it starts): random-action steps of ``DraughtsBatchEnv`` for ``--seconds``, and the same with
a small torch network evaluated on the observations after every step (what a PPO rollout
does: numba's threads and torch's take turns). ``spinner`` is a second process running a
busy loop on one core during the measurement, as another job on a shared machine would.

Columns (game steps/s: batch steps x games):

- ``default``: what ``DraughtsBatchEnv(B, variant)`` does: all cores, games split into
  chunks that idle threads take one by one (dynamic scheduling), OpenMP threads that sleep
  when idle (``OMP_WAIT_POLICY=PASSIVE``, set by ``import damas_env``);
- ``1 thread``: ``num_threads=1``;
- ``unset`` and ``ACTIVE``: the default threads under GNU OpenMP's own wait policy (it spins
  about 300,000 times before sleeping) and under ``ACTIVE`` (it spins far longer).

The targets: with one core busy, ``default`` is at least the ``1 thread`` figure; the
README's batch example (run with ``--readme-only``, and as the last rows) takes at most 1.5x
its quiet time with one core busy.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import multiprocessing.synchronize
import os
import re
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
with_torch, threads = sys.argv[4] == "1", int(sys.argv[5]) or None
env = DraughtsBatchEnv(envs, variant, seed=0, num_threads=threads)
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
print(json.dumps({"rate": steps * envs / (time.perf_counter() - start)}))
"""

# (label, OMP_WAIT_POLICY or None for damas_env's default, num_threads; 0 is all cores)
COLUMNS = [("default", None, 0), ("1 thread", None, 1), ("unset", "", 0), ("ACTIVE", "ACTIVE", 0)]


def readme_example() -> str:
    """Returns the README's batch-env example, timed: its loop runs once to compile, then
    again for the measurement (the figure is the second run's seconds)."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## The batch environment") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "no example in the README's batch section"
    body = code.group(1)
    loop = body[body.index("for step in range") :]
    head = body[: body.index("for step in range")]
    timed = "import json, time\n" + head + loop + "start = time.perf_counter()\n" + loop
    return timed + 'print(json.dumps({"rate": time.perf_counter() - start}))\n'


def _spin(stop: multiprocessing.synchronize.Event) -> None:
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


def run_case(argv: list[str], policy: str | None, busy: bool) -> float:
    """Returns the "rate" a child prints, run in a fresh process, with a spinner if busy."""
    env = dict(os.environ)
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    if busy:
        spinner.start()
        time.sleep(0.3)
    try:
        out = subprocess.run(
            [sys.executable, *argv], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
    finally:
        stop.set()
        if busy:
            spinner.join()
    return float(json.loads(out.stdout.strip().splitlines()[-1])["rate"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="english")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--readme-only", action="store_true")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(
        f"{args.variant}, {args.envs} games, {os.cpu_count()} cores, {args.seconds:g} s a case, "
        f"load {load:.2f} before"
    )
    if not args.readme_only:
        print(f"{'M steps/s':24}" + "".join(f"{label:>11}" for label, _, _ in COLUMNS))
        for with_torch in (False, True):
            for busy in (False, True):
                label = ("env + torch" if with_torch else "env") + (
                    ", spinner" if busy else ", quiet"
                )
                rates = []
                for _, policy, threads in COLUMNS:
                    child = [args.variant, str(args.envs), str(args.seconds)]
                    child += ["1" if with_torch else "0", str(threads)]
                    rates.append(run_case(["-c", CHILD, *child], policy, busy))
                cells = "".join(f"{r / 1e6:11.3f}" for r in rates)
                ratio = rates[0] / rates[1]
                print(f"{label:24}{cells}   default/1 thread {ratio:.2f}x", flush=True)
    code = readme_example()
    quiet = min(run_case(["-c", code], None, False) for _ in range(2))
    busy = min(run_case(["-c", code], None, True) for _ in range(2))
    print(
        f"README batch example (200 steps, compiled): quiet {quiet:.2f} s, one core busy "
        f"{busy:.2f} s ({busy / quiet:.2f}x)"
    )
    print(f"load {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    status = main()
    print(f"({time.perf_counter() - start:.0f} s)")
    raise SystemExit(status)
