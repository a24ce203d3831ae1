"""One revision against another: an agent of an older git revision plays this checkout's agent
in the arena, both served by ``damas hub`` and played through ``hub:``.

    python benchmarks/revision_match.py c837ec5 --old pretrained:english --depth 4 --games 2
    python benchmarks/revision_match.py c837ec5 --old alphabeta --time 0.1 --games 40 \\
        --variant international --json
    python benchmarks/revision_match.py c837ec5 --old pretrained:english --old-depth 7 \\
        --new-time 0.01 --games 200 --workers 2      # each game on a core of its own

The revision's packages (``damas_env``, and ``agents/`` with ``damas_agents``) are unpacked
with ``git archive`` into a cache folder (``--cache``; once per commit, kept with the kernels
numba compiles there), and its agent is served by this checkout's
``agents/damas_agents/arena/hub.py`` run as a file, by this Python, with ``PYTHONPATH`` at
that tree: the server finds ``make_agent``, ``Position`` and the rest wherever the revision
keeps them (``hub.PLACES``), so revisions older than ``damas hub`` play too, as long as they
import with this environment's packages. This checkout's agent is served by ``python -m
damas_agents.command hub``, so both sides are processes spoken to alike.

Each opening is played with both colours (``play_match``); A is the old revision. The budget
goes to each side as the Hub ``level`` (``--depth``/``--time`` for both, ``--old-depth``,
``--new-time``, ... for one side; one second a move when none is given); a spec that fixes its
own budget (``pretrained:english,depth=4``) plays that instead. ``--timeout`` is how long a
move may run past its time before the engine is told to stop (long: the first search of a
fresh cache compiles the revision's kernels).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from damas_agents.arena import play_match
from damas_agents.players.make import make_agent

ROOT = Path(__file__).resolve().parent.parent
HUB_FILE = ROOT / "agents" / "damas_agents" / "arena" / "hub.py"
PACKAGES = ("damas_env", "agents", "damas_agents")  # what an old tree needs, where it has them
DEFAULT_CACHE = Path.home() / ".cache" / "damas-env" / "revisions"


def git(*args: str) -> str:
    """Returns the output of a git command run in this checkout."""
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def unpack(revision: str, cache: Path) -> Path:
    """Returns the folder holding a revision's packages, unpacking them (``git archive``)
    into ``cache/<commit>`` the first time."""
    commit = git("rev-parse", "--verify", f"{revision}^{{commit}}")
    tree = cache / commit
    if tree.is_dir():
        return tree
    names = set(git("ls-tree", "--name-only", commit).splitlines())
    paths = [p for p in PACKAGES if p in names]
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit, *paths],
        check=True,
        capture_output=True,
    ).stdout
    cache.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=cache, prefix=f".{commit[:7]}-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(partial, filter="data")
    partial.rename(tree)  # whole or not at all, should two runs unpack at once
    return tree


def python_path(tree: Path) -> str:
    """Returns the PYTHONPATH that imports a tree's ``damas_env`` and ``damas_agents``."""
    if (tree / "agents" / "damas_agents").is_dir():  # agents/damas_agents/ (this layout)
        return f"{tree / 'agents'}:{tree}"
    return str(tree)  # an older layout: damas_agents at the top (a link to agents/)


def engine(cache: Path, name: str, pythonpath: str, argv: list[str]) -> Path:
    """Returns an executable that starts a Hub engine with its own PYTHONPATH (the arguments
    the Hub client passes are ignored), written once under ``cache/engines``."""
    script = f"#!/bin/sh\nPYTHONPATH={shlex.quote(pythonpath)} exec {shlex.join(argv)}\n"
    folder = cache / "engines" / hashlib.sha256(script.encode()).hexdigest()[:12]
    path = folder / (re.sub(r"[^A-Za-z0-9.-]+", "_", name) + ".sh")  # no ',' or '=' in a spec
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(script)
        path.chmod(0o755)
    return path


def hub_spec(path: Path, depth: int | None, seconds: float | None, timeout: float) -> str:
    """Returns the ``hub:`` spec that plays an engine with a level (depth, or seconds)."""
    level = f",depth={depth}" if depth is not None else f",time={seconds or 1.0}"
    return f"hub:{path}{level},timeout={timeout},init_timeout=3600"


def hub_agent(spec: str, name: str, seed: int | None = None) -> Any:
    """Returns the agent of a ``hub:`` spec under a name for the tables (an arena factory).

    The arena keeps an agent it can reseed from game to game, and builds one it cannot for
    each game: a new engine process each time (a second or two of start-up, twice a game).
    The engine breaks its own ties, so there is no stream here to restart: the agent says it
    reseeds, the arena keeps it, and its ``reset()`` tells the engine a new game starts.
    """
    agent = make_agent(spec, seed=seed)
    agent.name = name
    agent.reseed = lambda seed: None
    return agent


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the older git revision (a commit, tag or branch)")
    parser.add_argument("--old", default="pretrained:english", help="its agent spec")
    parser.add_argument("--new", help="this checkout's agent spec (default: --old)")
    parser.add_argument("--variant", default="english", help="ruleset name (default english)")
    parser.add_argument("--games", type=int, default=2, help="games (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings")
    parser.add_argument("--workers", type=int, default=1, help="games played at once")
    parser.add_argument("--max-plies", type=int, help="stop games after N plies (a draw)")
    for side in ("", "old-", "new-"):  # one side's --x-depth or --x-time replaces both of
        whose = "both sides" if not side else f"the {side[:-1]} side"  # --depth and --time
        parser.add_argument(f"--{side}depth", type=int, help=f"search depth of {whose}")
        parser.add_argument(f"--{side}time", type=float, help=f"seconds a move for {whose}")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds past a move's time")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="unpacked revisions")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main() -> None:
    args = build_parser().parse_args()
    new_spec = args.new or args.old
    tree = unpack(args.revision, args.cache)
    short = tree.name[:7]
    old_argv = [sys.executable, str(HUB_FILE), "--variant", args.variant, args.old]
    new_argv = [sys.executable, "-m", "damas_agents.command", "hub", "--variant", args.variant]
    sides = []
    for side, spec, where, pythonpath, argv in (
        ("old", args.old, short, python_path(tree), old_argv),
        ("new", new_spec, "this", f"{ROOT / 'agents'}:{ROOT}", [*new_argv, new_spec]),
    ):
        depth, seconds = getattr(args, f"{side}_depth"), getattr(args, f"{side}_time")
        if depth is None and seconds is None:
            depth, seconds = args.depth, args.time
        path = engine(args.cache, f"{where}-{spec}", pythonpath, argv)
        level = f"depth {depth}" if depth is not None else f"{seconds or 1.0:g} s a move"
        print(f"{side}: {spec} at {where} ({level})", file=sys.stderr)
        sides.append(
            partial(hub_agent, hub_spec(path, depth, seconds, args.timeout), f"{spec}@{where}")
        )
    result = play_match(
        sides[0],
        sides[1],
        variant=args.variant,
        games=args.games,
        seed=args.seed,
        max_plies=args.max_plies,
        workers=args.workers,
        progress=not args.json,
    )
    if args.json:
        print(json.dumps({"revision": tree.name, **result.to_dict()}))
    else:
        print(result.summary())


if __name__ == "__main__":
    main()
