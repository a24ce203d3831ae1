"""Searches for positions with the most legal moves or capture routes (hill climbing).

    python benchmarks/extremes.py international --routes --seconds 120

Prints each new record with its FEN. The kernels' move lists are fixed buffers
(kernels.MAX_MOVES rows); the records found here are pinned in tests/test_extremes.py so
that the growth path of the Python API stays tested.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from damas_env import Position, get_ruleset
from damas_env import kernels as K


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("--routes", action="store_true", help="count routes, not merged moves")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = get_ruleset(args.variant)
    engine = Position.start(rules).engine
    squares, half = rules.squares, rules.board_size // 2
    big = K.new_move_buffer(1 << 18)

    def count(board: np.ndarray) -> int:
        return K.generate_moves(
            board.copy(), 0, engine.ray, engine.rule_array, big, not args.routes, engine.workspace
        )

    rng = random.Random(args.seed)
    record, start = 0, time.time()
    while time.time() - start < args.seconds:
        board = np.zeros(squares, np.int8)
        for sq in rng.sample(range(squares), rng.randint(4, 30)):
            board[sq] = rng.choice([2, 2, 1, -1, -2, -1])
        board[:half][board[:half] == 1] = 2  # no white man on its crowning row
        board[squares - half :][board[squares - half :] == -1] = -2
        best = count(board)
        for _ in range(3000):
            trial = board.copy()
            sq = rng.randrange(squares)
            trial[sq] = rng.choice([0, 1, 2, -1, -2])
            trial[:half][trial[:half] == 1] = 2
            trial[squares - half :][trial[squares - half :] == -1] = -2
            n = count(trial)
            if n >= best:
                board, best = trial, n
        if best > record:
            record = best
            print(record, Position(rules, board, 0).fen(), flush=True)


if __name__ == "__main__":
    main()
