"""Cold start: how long the first call of each part takes while numba compiles its kernels.

    python benchmarks/cold_start.py                    # every stage, once
    python benchmarks/cold_start.py --stages engine batch --repeat 3
    python benchmarks/cold_start.py --specialisations  # which kernels compile more than once
    python benchmarks/cold_start.py --reuse --stages engine env  # what a second process compiles
    python benchmarks/cold_start.py --specialisations --cache DIR  # then, on what it left:
    python benchmarks/cold_start.py --reuse --cache DIR

Each stage runs in a fresh process with an empty ``NUMBA_CACHE_DIR`` (cold: every kernel it
touches is compiled), then again in a fresh process on the cache it left (warm). The
difference is the compile time a new user waits once. Stages:

- ``engine``: import, ``Position``: 60 random moves, a perft to depth 3 (the rules kernels);
- ``env``: a ``Game`` and the PettingZoo env played to their ends (the turn-state kernels
  they share, the endings, the observation planes);
- ``batch``: the README's ``DraughtsBatchEnv`` snippet: 256 English games, 200 steps of a
  torch policy (random hops without torch);
- ``search``: two arena games of the pretrained English agent (learned evaluation) against
  alpha-beta, and two International games of UCT against greedy;
- ``quickstart``: ``damas train quickstart`` for one iteration with its evaluation, the
  main job's whole path (search, network, batch env, arena).

``--reuse`` runs each stage in a fresh process with an empty cache, then another workload
of the same parts (``OTHER``: other variants, FENs, action dtypes, batch sizes, agent
options) in a second process on the cache it left, and lists what that second process
compiled: it must be nothing (``tests/test_compile.py``). With ``--cache DIR`` it runs only
the second processes, on a cache that an earlier run left in DIR (``--specialisations
--cache DIR`` runs every stage in one process there). numba caches a kernel for the
argument types of each first call, so each part's Python layer calls each kernel with one
set of types and loads all of its kernels at its first use in a process
(:class:`damas_env.kernels.EntryPoints`).

``--specialisations`` runs every stage in one process and lists the kernels that numba
compiled for more than one signature, or for a literal type (``Literal[int](0)``: the
type inference's first pass sees a constant and compiles the callee for it, then again for
``int64``; the first compile is wasted time). A test (``tests/test_compile.py``) keeps the
count at zero.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The children import this tree's packages (its agents too, not an installed copy's).
CHILD_PATH = os.pathsep.join([str(ROOT), str(ROOT / "agents")])

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
from damas_env.vector import DraughtsBatchEnv  # the README's snippet (random hops without torch)
try:
    import torch
except ImportError:
    torch = None
env = DraughtsBatchEnv(256, variant="english", seed=0, as_torch=torch is not None)
obs, masks, to_play = env.reset()
if torch is not None:
    policy = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, env.num_actions))
for step in range(200):
    if torch is None:
        actions = env.random_actions()
    else:
        with torch.no_grad():
            logits = policy(obs).masked_fill(masks == 0, float("-inf"))
        actions = torch.distributions.Categorical(logits=logits).sample()
    obs, masks, to_play, rewards, terminated, truncated, info = env.step(actions)
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

#: For each stage, a different workload of the same parts, for ``--reuse``: it must compile
#: nothing on the cache its stage left.
OTHER = {
    "engine": r"""
import numpy as np
from damas_env import Position
position = Position.from_fen("B:W27,28,K31:BK5,10,11", "international")
position.capture_routes()
for move in position.legal_moves():
    position.play(move).hash()
Position.start("english").hash()
Position(position.rules, position.board, np.int64(1)).legal_moves()
Position.start("english").perft(6)  # deeper than one compiled call: the walk in Python
""",
    "env": r"""
import numpy as np
from damas_env import draughts_v0
from damas_env.game import Game
game = Game("frisian", "W:WK46,47,48:BK5,6,7")  # kings: the king move limit
while game.ply < 8 and not game.is_over:
    game.push(game.legal_moves()[-1])
while game.ply:
    game.pop()
game = Game("english")
game.push("11-15"), game.push("23-19"), game.pop(), game.push("24-19")
env = draughts_v0.env("italian", illegal_action="lose", max_plies=30)
env.reset(seed=1)
env.step(np.int32(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
env.step(np.uint8(0))  # illegal: the mover loses
env = draughts_v0.env("russian", max_plies=12)
env.reset(seed=2)
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    mask = obs["action_mask"]
    env.step(None if term or trunc else np.int32(np.flatnonzero(mask)[-1]))
""",
    "batch": r"""
import numpy as np
from damas_env.vector import DraughtsBatchEnv
from damas_env.vector_gym import DraughtsVectorEnv
env = DraughtsVectorEnv(64, variant="international", opponent="random", seed=0)
obs, info = env.reset()
rng = np.random.default_rng(0)
for _ in range(40):
    actions = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
    obs, rewards, terminated, truncated, info = env.step(np.array(actions))
fens = ["W:W21,22,23:B9,10,11", "B:W24,K28:B5,6"]
for n, kwargs in [(8, {}), (40, {"num_threads": 1}), (100, {"fens": fens, "opening_plies": 2})]:
    batch = DraughtsBatchEnv(n, "english", seed=1, max_plies=40, **kwargs)
    batch.reset()
    for i in range(60):
        actions = batch.random_actions()
        given = [actions.astype(np.int32), actions.tolist(), actions[::-1][::-1].copy()][i % 3]
        batch.step(given)
    batch.step(batch.random_actions(), games=np.arange(n) % 3 == 0)
    batch.position(0)
""",
    "search": r"""
from damas_agents.arena import play_match
play_match("pretrained:english,nodes=3000", "alphabeta:time=0.02", "english", games=2,
           max_plies=40, progress=False)
play_match("mcts:sims=30,c=1.0", "random", "frisian", games=2, max_plies=30, progress=False)
""",
    "quickstart": r"""
import sys, tempfile
from damas_agents.command import main
with tempfile.TemporaryDirectory() as out:
    status = main(["train", "quickstart", "--out", out + "/run", "--no-progress", "--set",
                   "train.iterations=1", "eval.every=1", "eval.games=2", "train.seed=5"])
    assert status == 0, status
""",
}

#: Runs a workload and prints, on its last line, every kernel numba compiled (not loaded).
COMPILES = r"""
import json
from numba.core import event
compiled = []
class Record(event.Listener):
    def on_start(self, ev):
        fn = ev.data["dispatcher"].py_func
        compiled.append(f"{fn.__module__}.{fn.__name__}{tuple(map(str, ev.data['args']))}")
    def on_end(self, ev):
        pass
event.register("numba:compile", Record())
exec(CODE, {"__name__": "__stage__"})
print("compiled:", json.dumps(compiled))
"""

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
    """Returns the seconds a workload took in a fresh process on a numba cache directory."""
    start = time.perf_counter()
    _run(code, cache)
    return time.perf_counter() - start


def _run(code: str, cache: str) -> str:
    """Runs a workload in a fresh process on a numba cache directory; returns its stdout."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=CHILD_PATH)
    done = subprocess.run(  # cwd: `-c` puts it first on the path, before PYTHONPATH
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"stage failed:\n{done.stderr[-3000:]}")
    return done.stdout


def compiled_by(code: str, cache: str) -> list[str]:
    """Returns the kernels (name and argument types) a workload compiled on a cache."""
    out = _run(f"CODE = {code!r}\n" + COMPILES, cache)
    return list(json.loads(out.splitlines()[-1].removeprefix("compiled: ")))


def reuse(stages: list[str], cache: str | None) -> int:
    """Prints, for each stage, the kernels that a second process compiled (OTHER: another
    workload of the same parts) on the cache the stage left, each stage on a fresh cache of
    its own; with `cache`, on a copy of that cache (warmed before: no stage runs first)."""
    total = 0
    for name in stages:
        with tempfile.TemporaryDirectory() as fresh:
            start, first = time.perf_counter(), None
            if cache is None:
                first = compiled_by(STAGES[name], fresh)
            else:  # a copy: what one stage's second process compiles is not the next one's
                shutil.copytree(cache, fresh, dirs_exist_ok=True)
            cold = time.perf_counter() - start
            again = compiled_by(OTHER[name], fresh)
        before = "" if first is None else f"{len(first):>4} compiled cold ({cold:.0f} s), "
        print(f"{name:<12}{before}{len(again)} compiled by a second process", flush=True)
        for kernel in again:
            print("    ", kernel)
        total += len(again)
    print(f"{total} kernels compiled by a second process")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stages", nargs="+", choices=list(STAGES), default=list(STAGES))
    parser.add_argument("--repeat", type=int, default=1, help="cold runs per stage (min kept)")
    parser.add_argument("--specialisations", action="store_true")
    parser.add_argument("--reuse", action="store_true", help="what a second process compiles")
    parser.add_argument("--cache", help="numba cache directory to use and keep (default: fresh)")
    parser.add_argument("--verbose", action="store_true", help="print each signature")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load {load:.2f}")
    if args.reuse:
        return reuse(args.stages, args.cache)
    if args.specialisations:
        with tempfile.TemporaryDirectory() as fresh:
            stages = {name: STAGES[name] for name in args.stages}
            code = f"STAGES = {stages!r}\nVERBOSE = {args.verbose}\n" + REPORT
            env = dict(os.environ, NUMBA_CACHE_DIR=args.cache or fresh, PYTHONPATH=CHILD_PATH)
            done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, text=True)
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
