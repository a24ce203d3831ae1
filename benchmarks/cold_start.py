"""Cold start: how long the first call of each part takes while numba compiles its kernels.

    python benchmarks/cold_start.py                    # every stage, once
    python benchmarks/cold_start.py --stages engine batch --repeat 3
    python benchmarks/cold_start.py --specialisations  # which kernels compile more than once

Each stage runs in a fresh process with an empty ``NUMBA_CACHE_DIR`` (cold: every kernel it
touches is compiled), then again in a fresh process on the cache it left (warm). The
difference is the compile time a new user waits once. Stages:

- ``engine``: import, ``Position``: 60 random moves, a perft to depth 3 (the rules kernels);
- ``env``: a ``Game`` and the PettingZoo env played to their ends (the turn-state kernels
  they share, the endings, the observation planes);
- ``batch``: ``DraughtsBatchEnv`` (64 English games), 200 random steps;
- ``search``: two arena games of the pretrained English agent (learned evaluation) against
  alpha-beta, and two International games of UCT against greedy;
- ``quickstart``: ``damas train quickstart`` for one iteration with its evaluation, the
  main job's whole path (search, network, batch env, arena).

``--specialisations`` runs every stage in one process and lists the kernels that numba
compiled for more than one signature, or for a literal type (``Literal[int](0)``: the
type inference's first pass sees a constant and compiles the callee for it, then again for
``int64``; the first compile is wasted time). A test (``tests/test_compile.py``) keeps the
count at zero.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STAGES = {
    "engine": r"""
import random
from damas_env import Position
position = Position.start("english")
rng = random.Random(0)
for _ in range(60):
    moves = position.legal_moves()
    if not moves:
        break
    position = position.play(rng.choice(moves))
Position.start("international").perft(3)
""",
    "env": r"""
import random
from damas_env import draughts_v0
from damas_env.game import Game
game = Game("english")
rng = random.Random(0)
while not game.is_over:
    game.push(rng.choice(game.legal_moves()))
env = draughts_v0.env("english")
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    if term or trunc:
        env.step(None)
        continue
    env.step(env.action_space(agent).sample(obs["action_mask"]))
""",
    "batch": r"""
from damas_env.vector import DraughtsBatchEnv
env = DraughtsBatchEnv(64, "english", seed=0)
env.reset(seed=0)
for _ in range(200):
    env.step(env.random_actions())
""",
    "search": r"""
from damas_agents.arena import play_match
play_match("pretrained:english,depth=3", "alphabeta:depth=3", "english", games=2,
           progress=False)
play_match("mcts:sims=50", "greedy", "international", games=2, max_plies=40, progress=False)
""",
    "quickstart": r"""
import sys, tempfile
from damas_agents.command import main
with tempfile.TemporaryDirectory() as out:
    status = main(["train", "quickstart", "--out", out + "/run", "--no-progress",
                   "--set", "train.iterations=1", "eval.every=1", "eval.games=4"])
    assert status == 0, status
""",
}

REPORT = r"""
import sys
from damas_env import kernels
from numba.core.registry import CPUDispatcher
import gc
for code in STAGES.values():
    exec(code, {"__name__": "__stage__"})
rows = []
for obj in gc.get_objects():
    if isinstance(obj, CPUDispatcher):
        module = getattr(obj.py_func, "__module__", "") or ""
        if module.startswith(("damas_env", "damas_agents")):
            sigs = [str(s) for s in obj.signatures]
            literal = [s for s in sigs if "Literal" in s or "omitted" in s]
            if len(sigs) > 1 or literal:
                rows.append((module + "." + obj.py_func.__name__, len(sigs), len(literal), sigs))
for name, n, lit, sigs in sorted(rows):
    print(f"{n} signatures ({lit} literal)  {name}")
    if VERBOSE:
        for sig in sigs:
            print("    ", sig)
print(f"{len(rows)} kernels compiled more than once or for a literal")
"""


def run_stage(code: str, cache: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"stage failed:\n{done.stderr[-3000:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stages", nargs="+", choices=list(STAGES), default=list(STAGES))
    parser.add_argument("--repeat", type=int, default=1, help="cold runs per stage (min kept)")
    parser.add_argument("--specialisations", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="print each signature")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load:.2f}")
    if args.specialisations:
        with tempfile.TemporaryDirectory() as cache:
            stages = {name: STAGES[name] for name in args.stages}
            code = f"STAGES = {stages!r}\nVERBOSE = {args.verbose}\n" + REPORT
            env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
            done = subprocess.run([sys.executable, "-c", code], env=env, text=True)
            return done.returncode
    print(f"{'stage':<12}{'cold s':>9}{'warm s':>9}{'compile s':>11}")
    for name in args.stages:
        colds, warms = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as cache:
                colds.append(run_stage(STAGES[name], cache))
                warms.append(run_stage(STAGES[name], cache))
        cold, warm = min(colds), min(warms)
        print(f"{name:<12}{cold:>9.1f}{warm:>9.1f}{cold - warm:>11.1f}", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
