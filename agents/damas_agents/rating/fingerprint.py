"""The moves a rating pool's members play, hashed: the proof that a pool still means what it
meant when it was fitted.

    moves = load_moves("english")            # the file shipped beside the pool
    changed = moves.changed_members()        # [] while every member plays as it did

A pool's ratings hold only while its members play the moves they played in its round robin.
Beside each pool file lies ``<variant>-<version>.moves.json``: a fixed list of positions
(FENs) and, for each member, a SHA-256 of the hops it plays from each of them (built with
seed 0, reseeded before each position). A change to the engine or an agent that alters a
member's play changes its hash, and the tests fail until the member is restored or a new pool
version ships with its own file. The file is written once, when its pool is fitted
(:func:`write_moves`), and never rewritten.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from damas_agents.players.base import play_hop
from damas_agents.players.make import make_agent
from damas_agents.rating.pool import POOL_VERSION, PoolError, load_pool
from damas_env import draughts_v0

__all__ = ["PoolMoves", "load_moves", "member_moves", "moves_digest", "sample_positions"]

#: Positions each member plays from, in a moves file written by :func:`write_moves`.
POSITIONS = 48
_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PoolMoves:
    """A pool's positions and each member's hash of the hops it plays from them."""

    variant: str
    version: str
    positions: tuple[str, ...]
    digests: dict[str, str]

    def changed_members(self) -> list[str]:
        """Returns the members that now play other moves than when the pool was fitted."""
        return [
            spec
            for spec, digest in self.digests.items()
            if moves_digest(member_moves(spec, self.variant, self.positions)) != digest
        ]

    def to_dict(self) -> dict[str, Any]:
        """Returns the JSON-ready values of the file."""
        return {
            "variant": self.variant,
            "version": self.version,
            "positions": list(self.positions),
            "members": self.digests,
        }


def member_moves(spec: str, variant: str, positions: Sequence[str]) -> list[list[int]]:
    """Returns the hops a pool member plays from each position (a FEN, the side to move's
    turn), built with seed 0 and reseeded with 0 before each, as a fresh game."""
    agent = make_agent(spec, seed=0, rules=variant)
    env = draughts_v0.raw_env(variant)
    played = []
    try:
        for fen in positions:
            agent.reset()
            reseed = getattr(agent, "reseed", None)
            if callable(reseed):
                reseed(0)
            env.reset(seed=0, options={"fen": fen})
            played.append(_turn(agent, env))
    finally:
        close = getattr(agent, "close", None)
        if callable(close):
            close()
    return played


def _turn(agent: Any, env: draughts_v0.raw_env) -> list[int]:
    """Returns the hops of the agent's move in the env, playing them."""
    mover, hops = env.agent_selection, []
    while env.agent_selection == mover and not env.terminations[mover]:
        action = play_hop(agent, env)
        hops.append(action)
        env.step(action)
    return hops


def moves_digest(moves: list[list[int]]) -> str:
    """Returns the SHA-256 of a member's hops, position by position."""
    return hashlib.sha256(json.dumps(moves).encode("ascii")).hexdigest()


def sample_positions(variant: str, count: int = POSITIONS, seed: int = 0) -> list[str]:
    """Returns `count` positions of random games (6 to 50 random plies from the start, the
    game not over, at the start of a turn), as FENs."""
    rng = np.random.default_rng(seed)
    env = draughts_v0.raw_env(variant)
    fens: list[str] = []
    while len(fens) < count:
        env.reset(seed=0)
        for _ in range(int(rng.integers(6, 51))):
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        over = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        if not over and not env.hops_played:
            fens.append(env.position.fen())
    return fens


def _moves_file(variant: str, version: str) -> Any:
    return resources.files("damas_agents.rating") / "pools" / f"{variant}-{version}.moves.json"


def load_moves(variant: str, version: str = POOL_VERSION) -> PoolMoves:
    """Returns the moves file shipped beside a pool.

    Raises:
        PoolError: the pool has no moves file, or it is damaged or not of its members.
    """
    pool = load_pool(variant, version)
    file = _moves_file(variant, version)
    if not file.is_file():
        raise PoolError(f"the {variant} pool {version} has no moves file")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        moves = PoolMoves(
            variant,
            version,
            tuple(str(fen) for fen in data["positions"]),
            {str(k): str(v) for k, v in data["members"].items()},
        )
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise PoolError(f"the {variant} pool {version} moves file is damaged: {error}") from None
    if data.get("variant") != variant or data.get("version") != version:
        raise PoolError(f"the {variant} pool {version} moves file is another pool's")
    if sorted(moves.digests) != sorted(m.spec for m in pool.members):
        raise PoolError(f"the {variant} pool {version} moves file lists other members")
    if not all(_HEX.fullmatch(d) for d in moves.digests.values()) or not moves.positions:
        raise PoolError(f"the {variant} pool {version} moves file is damaged")
    return moves


def write_moves(variant: str, version: str, folder: Path) -> Path:
    """Writes a pool's moves file (its members' hashes on :func:`sample_positions`) into
    `folder`, where the pool file lies; only once: an existing file is never replaced.

    Raises:
        FileExistsError: the pool already has its moves file.
    """
    path = folder / f"{variant}-{version}.moves.json"
    if path.exists():
        raise FileExistsError(f"{path} exists: a pool's moves are written once, when it ships")
    pool = load_pool(variant, version)
    positions = sample_positions(variant)
    digests = {m.spec: moves_digest(member_moves(m.spec, variant, positions)) for m in pool.members}
    moves = PoolMoves(variant, version, tuple(positions), digests)
    with path.open("x", encoding="utf-8") as f:
        json.dump(moves.to_dict(), f, indent=1)
        f.write("\n")
    return path
