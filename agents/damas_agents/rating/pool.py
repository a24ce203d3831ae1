"""The reference pools: per variant, fixed opponents with calibrated ratings (package data).

    pool = load_pool("english")               # the current version, "v1"
    pool.ratings()                            # {"random": 0.0, "greedy": ..., ...}
    pool.members[-1].spec, pool.members[-1].ci

A pool is a list of agent specs, each deterministic given a seed and limited by depth, nodes or
simulations (never by time), so that a rating does not move with the machine's load, and each
search pinned to its version (``alphabeta:depth=4,search=1``), so that it does not move with
the code: a member plays the same moves forever (:mod:`damas_agents.rating.fingerprint`
holds the proof). Its
ratings were fitted at once from a round robin among the members (:func:`fit_ratings`,
``benchmarks/rating_pool.py`` rebuilds them); the file also keeps the games' summary, the
command that played them, how long they took, and on what machine.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from damas_agents.rating.fit import RatingTable, Results
from damas_agents.specs import KINDS, parse_spec

__all__ = [
    "POOL_VERSION",
    "Member",
    "Pool",
    "PoolError",
    "available_pools",
    "cpu_model",
    "load_pool",
    "this_machine",
]

#: The pool version ``damas rate`` uses unless told otherwise.
POOL_VERSION = "v1"
_NAME = re.compile(r"[a-z0-9_]{1,40}")
_TIME_LIMIT = re.compile(r"(^|,)time=")


class PoolError(ValueError):
    """A pool that is not there, or whose file does not hold a valid pool."""


@dataclass(frozen=True)
class Member:
    """One agent of a pool: its spec, its rating with the 95% interval, the games it played."""

    spec: str
    elo: float
    ci: tuple[float, float]
    games: int


@dataclass(frozen=True)
class Pool:
    """A variant's reference pool, members weakest first."""

    variant: str
    version: str
    anchor: str
    members: tuple[Member, ...]
    results: dict[tuple[str, str], Results]
    """The round robin's summary: ``(a, b) -> (wins, draws, losses)`` of a against b."""
    max_plies: int | None
    """Games longer than this were stopped and scored a draw (None: the rules' own end)."""
    command: str
    """The command that played the round robin and fitted the table."""
    seconds: float
    """How long it took."""
    machine: str

    def ratings(self) -> dict[str, float]:
        """Returns each member's rating by spec."""
        return {m.spec: m.elo for m in self.members}

    def to_dict(self) -> dict[str, Any]:
        """Returns the pool as the JSON-ready values its file holds."""
        return {
            "variant": self.variant,
            "version": self.version,
            "anchor": self.anchor,
            "members": [
                {"spec": m.spec, "elo": m.elo, "ci": list(m.ci), "games": m.games}
                for m in self.members
            ],
            "results": [
                {"a": a, "b": b, "wins": w, "draws": d, "losses": lo}
                for (a, b), (w, d, lo) in self.results.items()
            ],
            "max_plies": self.max_plies,
            "command": self.command,
            "seconds": self.seconds,
            "machine": self.machine,
        }

    @classmethod
    def from_table(
        cls,
        table: RatingTable,
        results: dict[tuple[str, str], Results],
        variant: str,
        **about: Any,
    ) -> Pool:
        """Returns the pool of a fitted table, members weakest first; `about` gives the
        version, max_plies, command, seconds and machine."""
        members = sorted(
            (Member(p, table.elo[p], table.ci[p], table.games[p]) for p in table.players),
            key=lambda m: m.elo,
        )
        return cls(variant, anchor=table.anchor, members=tuple(members), results=results, **about)


def cpu_model() -> str:
    """Returns this machine's processor as the system names it (``/proc/cpuinfo`` on Linux),
    for a pool file's or a benchmark's account of where it ran."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def this_machine() -> str:
    """Returns the processor, the cores and the Python, as a pool file records them."""
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def _pool_file(variant: str, version: str) -> Any:
    return resources.files("damas_agents.rating") / "pools" / f"{variant}-{version}.json"


def available_pools(version: str = POOL_VERSION) -> list[str]:
    """Returns the variants that have a pool of this version."""
    folder = resources.files("damas_agents.rating") / "pools"
    if not folder.is_dir():
        return []
    suffix = f"-{version}.json"
    names = (entry.name for entry in folder.iterdir() if entry.name.endswith(suffix))
    return sorted(name.removesuffix(suffix) for name in names)


def load_pool(variant: str, version: str = POOL_VERSION) -> Pool:
    """Returns a variant's pool from the package's own files (names only, never a path).

    Raises:
        PoolError: no pool of that variant and version, or its file is not a valid pool.
    """
    for what, name in (("variant", variant), ("pool version", version)):
        if not (isinstance(name, str) and _NAME.fullmatch(name)):
            raise PoolError(f"{what} {name!r}: not a pool name")
    file = _pool_file(variant, version)
    if not file.is_file():
        have = ", ".join(available_pools(version)) or "none"
        raise PoolError(f"no rating pool {version} for {variant!r}; pools {version}: {have}")
    try:
        return _parse(json.loads(file.read_text(encoding="utf-8")), variant, version)
    except (ValueError, TypeError, KeyError) as error:
        raise PoolError(f"the {variant} pool {version} file is damaged: {error}") from None


def _parse(data: dict[str, Any], variant: str, version: str) -> Pool:
    """Returns the pool a file's JSON holds, checked (ValueError, TypeError or KeyError)."""
    if data["variant"] != variant or data["version"] != version:
        raise ValueError(f"it holds the {data['variant']} pool {data['version']}")
    members = tuple(
        Member(str(m["spec"]), _number(m["elo"]), _interval(m["ci"]), int(m["games"]))
        for m in data["members"]
    )
    specs = [m.spec for m in members]
    if len(set(specs)) != len(specs) or len(specs) < 2:
        raise ValueError("its members are not two or more distinct specs")
    if any(_TIME_LIMIT.search(spec) for spec in specs):
        raise ValueError("a member is limited by time")
    unpinned = [spec for spec in specs if not _is_pinned(spec)]
    if unpinned:
        raise ValueError(f"member {unpinned[0]!r} does not name its search version (search=)")
    if data["anchor"] not in specs:
        raise ValueError(f"its anchor {data['anchor']!r} is not a member")
    results: dict[tuple[str, str], Results] = {}
    for row in data["results"]:
        a, b = row["a"], row["b"]
        counts = (int(row["wins"]), int(row["draws"]), int(row["losses"]))
        if a not in specs or b not in specs or min(counts) < 0:
            raise ValueError(f"a result of {a!r} vs {b!r} that is not of two members")
        results[a, b] = counts
    max_plies = data["max_plies"]
    return Pool(
        variant=variant,
        version=version,
        anchor=str(data["anchor"]),
        members=tuple(sorted(members, key=lambda m: m.elo)),
        results=results,
        max_plies=None if max_plies is None else int(max_plies),
        command=str(data["command"]),
        seconds=_number(data["seconds"]),
        machine=str(data["machine"]),
    )


def _is_pinned(spec: str) -> bool:
    """Returns whether a member's spec fixes its search version where its kind has several
    (a pool member plays the same moves forever)."""
    kind, options = parse_spec(spec)
    return "search" not in KINDS[kind].options or "search" in options


def _number(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number


def _interval(value: Any) -> tuple[float, float]:
    low, high = (_number(x) for x in value)
    if low > high:
        raise ValueError(f"interval {value!r} is reversed")
    return low, high
