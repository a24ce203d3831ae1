"""Alpha-beta speed of this checkout against another git revision, side by side.

    python benchmarks/search_speed.py c837ec5                 # classical and learned, both boards
    python benchmarks/search_speed.py c837ec5 --rounds 7 --variants english
    python benchmarks/search_speed.py 79d2c37 --new-search 2  # this checkout's search version 2

Each revision runs in a process of its own (its code unpacked with ``git archive`` into
``~/.cache/damas-bench/REV``, imported with the same virtual environment), kept warm and
asked for one search at a time, the two taking turns round after round; the least CPU time
of each counts. Every search starts from the variant's start position with fresh tables, at
a fixed depth, so the work is the same in every round. Printed per variant and agent:
nodes per second (and the ratio, new over old) and the seconds to reach the depth.
``--new-search V`` runs this checkout's agents with search version V (``search=V``), so that
against a revision whose default search prunes as version V both visit the same trees.
Pin the process to one core (``taskset -c 0``) for one-core figures.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "damas-bench"

#: (variant, depth) of the searches; a few tenths of a second each at the time of writing.
SEARCHES = {"english": 19, "international": 14}
AGENTS = {"classical": "alphabeta", "learned": "pretrained:{variant}"}

# The child: reads "variant depth spec" lines, prints one JSON line per search.
CHILD = r"""
import json, sys, time
try:
    from damas_agents.players.make import make_agent
except ImportError:  # revisions before the players were split up
    from damas_agents.players.specs import make_agent
from damas_env import Position
agents = {}
for line in sys.stdin:
    variant, depth, spec = line.split()
    key = (variant, spec)
    if key not in agents:
        agents[key] = make_agent(spec + ("," if ":" in spec else ":") + "depth=1")
        agents[key].search(Position.start(variant))  # compile / load the kernels
    agent = agents[key]
    searcher = type(agent._searcher(Position.start(variant).rules))
    version = getattr(agent, "search_version", None)  # revisions before search versions: none
    extra = {} if version is None else {"search": version}
    fresh = searcher(Position.start(variant).rules, agent.tt_bits, agent.weights, **extra)
    cpu = time.process_time()
    result = fresh.search(Position.start(variant), depth=int(depth))
    cpu = time.process_time() - cpu
    print(json.dumps({"nodes": int(result.nodes), "cpu": cpu, "depth": int(result.depth)}),
          flush=True)
"""


def unpack(revision: str) -> Path:
    """Returns a folder holding the revision's packages (unpacked once, then reused)."""
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=12", revision],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    into = CACHE / sha
    if not (into / ".complete").exists():
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", sha],
            check=True,
            capture_output=True,
        ).stdout
        into.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(into, filter="fully_trusted")  # our own history: symlinks kept
        (into / ".complete").touch()
    return into


def python_path(tree: Path) -> str:
    """Returns the PYTHONPATH that imports a tree's damas_env and damas_agents."""
    nested = tree / "agents" / "damas_agents"
    return f"{tree / 'agents'}{os.pathsep}{tree}" if nested.is_dir() else str(tree)


class Child:
    """A warm process of one revision answering search requests."""

    def __init__(self, tree: Path) -> None:
        env = dict(os.environ, PYTHONPATH=python_path(tree))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )

    def search(self, variant: str, depth: int, spec: str) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{variant} {depth} {spec}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the search process stopped ({variant} {spec})")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def _with_search(spec: str, version: int | None) -> str:
    """Returns an agent spec with ``search=version`` added (unchanged for None)."""
    if version is None:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}search={version}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "revision", help="the git revision to compare with (e.g. c837ec5), or a checkout's folder"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variants", default=",".join(SEARCHES))
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument(
        "--new-search", type=int, metavar="V", help="this checkout's search version (search=V)"
    )
    args = parser.parse_args()
    other = Path(args.revision)
    old, new = Child(other if other.is_dir() else unpack(args.revision)), Child(ROOT)
    print(
        f"{'variant':<14}{'agent':<10}{'depth':>5}  {'old nodes/s':>12} {'new nodes/s':>12}"
        f" {'ratio':>6}   {'old s':>7} {'new s':>7}  nodes old/new"
    )
    try:
        for variant in args.variants.split(","):
            depth = SEARCHES[variant]
            for kind in args.agents.split(","):
                spec = AGENTS[kind].format(variant=variant)
                new_spec = _with_search(spec, args.new_search)
                best: dict[str, dict] = {}
                for _ in range(args.rounds):
                    for name, child, asked in (("old", old, spec), ("new", new, new_spec)):
                        got = child.search(variant, depth, asked)
                        if name not in best or got["cpu"] < best[name]["cpu"]:
                            best[name] = got
                o, n = best["old"], best["new"]
                rate_o, rate_n = o["nodes"] / o["cpu"], n["nodes"] / n["cpu"]
                print(
                    f"{variant:<14}{kind:<10}{depth:>5}  {rate_o:>12,.0f} {rate_n:>12,.0f}"
                    f" {rate_n / rate_o:>5.2f}x   {o['cpu']:>7.3f} {n['cpu']:>7.3f}"
                    f"  {o['nodes']:,}/{n['nodes']:,}",
                    flush=True,
                )
    finally:
        old.close()
        new.close()


if __name__ == "__main__":
    main()
