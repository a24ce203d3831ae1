"""Rebuilds a variant's rating pool from scratch: a round robin among its members, then one
maximum-likelihood fit of all their ratings (``random`` = 0), written as the package's pool
file.

    python benchmarks/rating_pool.py english            # the shipped table: 21 min on one core
    python benchmarks/rating_pool.py international      # 46 min; --workers 2 halves either,
                                                        # playing the same games
    python benchmarks/rating_pool.py english --games 20 --far-games 2 --out /tmp/pilot.json

Every pair of members plays: those at most ``--near`` places apart in the list (which goes
weakest to strongest) ``--games`` colour-swapped games each, where the results say the most;
the others ``--far-games`` (they tie the scale together; a whitewash there says little). It
prints the fitted table (Elo, 95% interval, games), each neighbour's gap, the command and
the run time, and writes the pool (``agents/damas_agents/rating/pools/<variant>-<version>.json``
unless ``--out``) and, beside it, the moves its members play from a fixed set of positions
(:mod:`damas_agents.rating.fingerprint`: the tests check that they never change). The members
are the lists below (``--members`` for another); each is limited by depth or simulations,
never by time, so the table does not move with the load, and each search names its version.
A pool ships once: a change to what a member plays ships as a new ``--version``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "agents"))
sys.path.insert(0, str(ROOT))

from damas_agents.arena.match import GameRunner, openings_for  # noqa: E402
from damas_agents.rating.fingerprint import write_moves  # noqa: E402
from damas_agents.rating.fit import Results, fit_ratings  # noqa: E402
from damas_agents.rating.pool import POOL_VERSION, Pool, this_machine  # noqa: E402
from damas_env.rules import get_ruleset  # noqa: E402

#: Each variant's members, weakest first (as measured by the last calibration).
MEMBERS = {
    "english": [
        "random",
        "greedy",
        "mcts:sims=3",
        "mcts:sims=10",
        "mcts:sims=30",
        "mcts:sims=100",
        "alphabeta:depth=2,search=1",
        "alphabeta:depth=3,search=1",
        "alphabeta:depth=4,search=1",
        "alphabeta:depth=6,search=1",
        "alphabeta:depth=8,search=1",
        "pretrained:english-v1,depth=4,search=1",
        "pretrained:english-v1,depth=6,search=1",
        "pretrained:english-v1,depth=10,search=1",
    ],
    "international": [
        "random",
        "greedy",
        "mcts:sims=10",
        "mcts:sims=15",
        "mcts:sims=20",
        "mcts:sims=30",
        "mcts:sims=50",
        "mcts:sims=100",
        "mcts:sims=200",
        "alphabeta:depth=2,search=1",
        "alphabeta:depth=3,search=1",
        "alphabeta:depth=4,search=1",
        "alphabeta:depth=5,search=1",
        "alphabeta:depth=6,search=1",
        "pretrained:international-v1,depth=5,search=1",
        "pretrained:international-v1,depth=6,search=1",
        "pretrained:international-v1,depth=8,search=1",
    ],
}
_SEARCH_PIN = re.compile(r",search=[0-9]+")
MAX_PLIES = 500  # a game of two weak agents longer than this is scored a draw


def pair_seed(seed: int, a: str, b: str) -> int:
    """Returns the seed of a pair's games: from the two members' specs, not their places in the
    list, so adding a member leaves every other pair's games as they were. A spec's search
    version pin is left out: pinning the version a member already plays changes nothing."""
    a, b = (_SEARCH_PIN.sub("", spec) for spec in (a, b))
    digest = hashlib.sha256(f"{seed} {a} {b}".encode()).digest()
    return int.from_bytes(digest[:4], "little") >> 1


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("variant")
    p.add_argument("--members", nargs="+", help="member specs, weakest first")
    p.add_argument("--games", type=int, default=240, help="games per near pair (240)")
    p.add_argument("--far-games", type=int, default=10, help="games per far pair (10)")
    p.add_argument("--near", type=int, default=2, help="places apart a pair counts as near")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--out", type=Path)
    p.add_argument("--version", default=POOL_VERSION, help=f"the pool version ({POOL_VERSION})")
    args = p.parse_args()
    rules = get_ruleset(args.variant)
    members = args.members or MEMBERS[rules.name]
    pools = ROOT / "agents" / "damas_agents" / "rating" / "pools"
    out = args.out or pools / f"{rules.name}-{args.version}.json"
    pairs = [
        (i, j, args.games if j - i <= args.near else args.far_games)
        for i in range(len(members))
        for j in range(i + 1, len(members))
    ]
    pairs = [(i, j, n + n % 2) for i, j, n in pairs if n > 0]
    print(
        f"{rules.name}: {len(members)} members, {len(pairs)} pairs, "
        f"{sum(n for *_, n in pairs)} games, {args.workers} workers",
        flush=True,
    )
    start = time.perf_counter()
    results: dict[tuple[str, str], Results] = {}
    event = f"rating pool {args.version} ({rules.name})"
    with GameRunner(members, rules, args.workers, MAX_PLIES, event) as runner:
        futures = []
        for i, j, n in pairs:
            seed = pair_seed(args.seed, members[i], members[j])
            openings = openings_for(rules, n // 2, seed)
            futures.append(
                (
                    i,
                    j,
                    [runner.submit(i, j, openings[g // 2], g % 2 == 0, seed, g) for g in range(n)],
                )
            )
        for i, j, games in futures:
            scores = [f.result().score for f in games]
            counts = (scores.count(1.0), scores.count(0.5), scores.count(0.0))
            results[members[i], members[j]] = counts
            print(
                f"  {members[i]} vs {members[j]}: +{counts[0]} ={counts[1]} -{counts[2]}",
                flush=True,
            )
    seconds = time.perf_counter() - start
    table = fit_ratings(members, results, anchor="random")
    command = "python benchmarks/rating_pool.py " + shlex.join(sys.argv[1:])
    pool = Pool.from_table(
        table,
        results,
        rules.name,
        version=args.version,
        max_plies=MAX_PLIES,
        command=command,
        seconds=round(seconds, 1),
        machine=this_machine(),
    )
    print(f"\n{'member':<34} {'Elo':>6}  95% CI          games   gap to the one above")
    previous = None
    for m in pool.members:
        gap = ""
        if previous is not None:
            low, high = table.difference_ci(m.spec, previous)
            gap = f"{m.elo - table.elo[previous]:+5.0f} ± {(high - low) / 2:3.0f}"
        print(f"{m.spec:<34} {m.elo:6.0f}  [{m.ci[0]:5.0f}, {m.ci[1]:5.0f}]  {m.games:5d}  {gap}")
        previous = m.spec
    print(f"\n{command}: {seconds / 60:.1f} min on {pool.machine}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(pool.to_dict(), indent=1) + "\n")
    print(f"written: {out}")
    if args.out is None:  # a pool of the package: the proof of its members' moves beside it
        print(f"written: {write_moves(rules.name, args.version, pools)}")


if __name__ == "__main__":
    main()
