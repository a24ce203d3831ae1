"""Evaluation speed inside alpha-beta: nodes/s of the learned evaluation against the classical.

    python benchmarks/eval_speed.py                    # English depth 9, International depth 7
    python benchmarks/eval_speed.py --rounds 40        # steadier figures
    python benchmarks/eval_speed.py --depth 10 --variants english
    python benchmarks/eval_speed.py --game 40          # a game's first 40 positions in order
    python benchmarks/eval_speed.py --table-network    # the same tree: the network's cost

For each variant, the search of ``alphabeta:depth=N`` (the piece-square table) and that of
``pretrained:VARIANT,depth=N`` (the shipped network, searched in integers) take turns, in one
process, each searching the same positions (the start position and positions after a few
seeded random moves) to the same depth, after one warm-up round (numba's cache load and first
calls not counted). A round's speed is the nodes of its searches (``SearchResult.nodes``) over
the CPU seconds of this process they took; the best of ``--rounds`` rounds counts (and the
median is shown), so that load from other processes on a shared machine is mostly filtered
out. The two trees differ (the evaluations differ), so nodes/s, not time, is what compares.
The ratio is learned / classical: 1.00 means the network costs nothing. The transposition
tables are small (``--tt-bits``, 2**16 entries) so that other processes' use of the memory
caches moves the figures less. Each search starts with nothing an earlier search found (the
network's kept scores are forgotten outside the clock); with ``--game PLIES`` one searcher a
round searches the positions of one seeded random game in order, as an agent plays, and
keeps its table and scores from one move to the next. ``--table-network`` evaluates with a
network as wide as the shipped one that computes the piece-square table: both searches
visit the same tree, node for node, and the ratio is what the network costs a node.

Measured on the 2-core development machine (shared with other jobs, load 1.5 to 5): the
ratio, best of 15 to 20 rounds, over four runs of each revision, the float network's search
and the integer one's run side by side in one process::

    variant         float network   integer network
    english         0.69 - 0.77     0.70 - 0.81
    international   0.73 - 0.79     0.73 - 0.87

Later, on a 2-core Intel Xeon (``taskset -c 1``, ``--rounds 40``, a training run on the other
core), the integer network with its second layer's products in vectors: 0.87 - 0.88 on
English, 0.92 - 0.93 on International (0.80 and 0.87 the commit before, same machine).

The classical search's own speed moved by up to 2x from one build of the compiled code to
the next while it was a recursion that passed its tables by value down every call (how that
copy landed on the stack decided much); it is now one loop over a stack of frames. A single
run's ratio still moves by 0.05 or more: compare several runs.

With the board's bit sets and the frame loop the classical search runs about twice as fast,
and the network's cost a node did not shrink with it (2-core AMD EPYC, ``taskset -c 0``,
``--rounds 20``, a compile on the other core): 7.94 M nodes/s on English, 7.14 M on
International, the learned evaluation 0.73 and 0.79 of that.

Since then the accumulators catch up only for the positions evaluated and each position's
score is kept by its hash, and each search here forgets the scores kept (the same searcher
would otherwise find the last round's scores of the same position). On a 2-core Intel Xeon
(``taskset -c 0``, ``--rounds 15``): 0.76 on English, 0.78 on International (0.72 and 0.76
before those two changes); ``--game 40 --rounds 10``: 0.82 and 0.77; ``--table-network``:
0.77-0.81 and 0.77-0.80 (0.76 and 0.75 with the code before, run with it on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from damas_agents.models.checkpoint import load_network, read_checkpoint
from damas_agents.models.evalnet import EvalNet
from damas_agents.players.load import pretrained_path
from damas_agents.search.alphabeta import TEMPO, Searcher, piece_square_table
from damas_agents.search.nnue import NetWeights, pst_weights
from damas_env import Position, get_ruleset

DEPTHS = {"english": 9, "international": 7}


def positions(variant: str, count: int, seed: int = 0) -> list[Position]:
    """Returns the start position and `count - 1` positions after 4 to 12 random plies."""
    rng = np.random.default_rng(seed)
    out = [Position.start(variant)]
    while len(out) < count:
        p = Position.start(variant)
        for _ in range(int(rng.integers(4, 13))):
            moves = p.legal_moves()
            if not moves:
                break
            p = p.play(moves[int(rng.integers(len(moves)))])
        if p.legal_moves():
            out.append(p)
    return out


def game_positions(variant: str, plies: int, seed: int = 0) -> list[Position]:
    """Returns the positions of one game of seeded random moves, in order (at most `plies`)."""
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    p = Position.start(variant)
    while len(out) < plies and (moves := p.legal_moves()):
        out.append(p)
        p = p.play(moves[int(rng.integers(len(moves)))])
    return out


def network(variant: str, table: bool) -> NetWeights:
    """Returns the shipped network's weights, or with `table` a network as wide (hidden
    layers of 64 and 16) that computes the piece-square table: the classical search's tree,
    node for node, so that the ratio is the network's cost alone."""
    if table:
        return pst_weights(piece_square_table(get_ruleset(variant)), TEMPO, 64, 16)
    shipped, _ = load_network(read_checkpoint(pretrained_path(variant)))
    assert isinstance(shipped, EvalNet)
    return shipped.weights()


def nodes_per_second(
    variant: str,
    depth: int,
    searched: list[Position],
    rounds: int,
    tt_bits: int,
    game: bool,
    learned: NetWeights,
) -> list[np.ndarray]:
    """Returns the classical and the learned search's nodes/s of every round (all of
    `searched` once), the two taking turns.

    Apart (`game` False), each search starts with nothing an earlier one found: the
    network's kept scores are forgotten (outside the clock) and the transposition table's
    entries are stale (a new search). In a game, one searcher per round searches the
    positions in order, as an agent does, keeping what it found from one move to the next.
    """
    rules = get_ruleset(variant)
    weights = [None, learned]
    warm = [Searcher(rules, tt_bits, w) for w in weights]
    for searcher in warm:  # warm-up: load the compiled kernels
        for position in searched:
            searcher.search(position, depth=depth)
    rates: list[list[float]] = [[] for _ in weights]
    for _ in range(rounds):
        for i, w in enumerate(weights):
            searcher = Searcher(rules, tt_bits, w) if game else warm[i]
            searcher.tables.tt.fill(0)  # its memory touched outside the clock
            nodes, seconds = 0, 0.0
            kept = getattr(searcher.tables, "evals", None)  # None: a revision keeping none
            for position in searched:
                if not game and kept is not None:
                    kept[:] = 0
                start = time.process_time()
                nodes += searcher.search(position, depth=depth).nodes
                seconds += time.process_time() - start
            if seconds > 0:
                rates[i].append(nodes / seconds)
    return [np.array(r) for r in rates]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(DEPTHS), choices=list(DEPTHS))
    parser.add_argument("--depth", type=int, help="one depth for every variant")
    parser.add_argument("--positions", type=int, default=4, help="positions per variant")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds per search")
    parser.add_argument("--tt-bits", type=int, default=16, help="transposition table size")
    parser.add_argument(
        "--game", type=int, metavar="PLIES", help="search a game's first PLIES positions in order"
    )
    parser.add_argument(
        "--table-network",
        action="store_true",
        help="a network computing the piece-square table instead of the shipped one",
    )
    args = parser.parse_args()
    print(f"nodes/s, best (median) of {args.rounds} rounds, CPU time of this process")
    print(f"{'variant':14} {'depth':>5} {'classical':>22} {'learned':>22} {'ratio':>12}")
    for variant in args.variants:
        depth = args.depth or DEPTHS[variant]
        if args.game:
            searched = game_positions(variant, args.game)
        else:
            searched = positions(variant, args.positions)
        classical, learned = nodes_per_second(
            variant,
            depth,
            searched,
            args.rounds,
            args.tt_bits,
            bool(args.game),
            network(variant, args.table_network),
        )
        best = learned.max() / classical.max()
        median = float(np.median(learned) / np.median(classical))
        print(
            f"{variant:14} {depth:>5} {classical.max():>12,.0f} ({np.median(classical):>7,.0f})"
            f" {learned.max():>12,.0f} ({np.median(learned):>7,.0f}) {best:>5.2f} ({median:.2f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
