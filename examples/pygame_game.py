"""Plays draughts in a pygame window: you against a random opponent, dragging pieces.

    python examples/pygame_game.py --variant english            # you play the first mover
    python examples/pygame_game.py --variant international --as player_1
    python examples/pygame_game.py --demo 20                    # two random players, 20 moves
    python examples/pygame_game.py --variant turkish            # all 64 squares, orthogonal
    python examples/pygame_game.py --variant italian            # single corner on the right

Drag a piece (or click it, then the target); a capture of several pieces is dragged hop by
hop. Keys: f turns the board, u is ignored here (an AEC env has no undo), closing the
window ends the game. Each move is printed in the terminal once its last hop is played, in
PDN (``11-15``, ``15x24``, ``28x19x10``), and the result at the end. Without pygame the
script says how to install it and stops.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from damas_env import Colour, draughts_v0
from damas_env.encoding import actions_to_move
from damas_env.notation import format_move
from damas_env.render import UNDO


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="english")
    parser.add_argument("--as", dest="human", default="player_0", choices=["player_0", "player_1"])
    parser.add_argument("--demo", type=int, default=0, help="random players for N moves, no human")
    args = parser.parse_args()
    try:
        import pygame  # noqa: F401
    except ImportError:
        raise SystemExit(
            "this example needs pygame: pip install pygame (or play in the terminal: "
            f"damas play --variant {args.variant} --text)"
        ) from None
    env = draughts_v0.env(args.variant, render_mode="human")
    env.reset()
    game = env.unwrapped
    game.flip = game.colour_of(args.human) != Colour.WHITE  # your pieces at the bottom
    play(env, args.human, args.demo)
    env.close()


def play(env: Any, human: str, demo: int) -> None:
    """Plays hop by hop until the game ends, the window closes or `demo` moves are made;
    prints each move in PDN when it is complete."""
    game, rng = env.unwrapped, np.random.default_rng()
    moves, hops, start = 0, [], game.position
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            print(f"{agent}: reward {reward:+.0f} ({info['reason'].label})", flush=True)
            env.step(None)
            continue
        if demo and moves >= demo:
            print(f"demo over after {demo} moves", flush=True)
            return
        action = human_hop(game) if agent == human and not demo else random_hop(obs, rng)
        if action is None:
            print("window closed: game abandoned", flush=True)
            return
        hops.append(action)
        env.step(action)
        if game.agent_selection != agent or any(game.terminations.values()):
            moves += 1
            move = actions_to_move(hops, start)  # the hops make one complete move
            colour = game.rules.colour_names[game.colour_of(agent)]
            print(
                f"{moves:4d}. {agent} ({colour}) {format_move(move, start.legal_moves())}",
                flush=True,
            )
            hops, start = [], game.position


def human_hop(game: Any) -> int | None:
    """Returns the hop the person drags in the window (None when it is closed)."""
    action = game.wait_for_human()
    while action == UNDO:
        action = game.wait_for_human()
    return action


def random_hop(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """Returns a random legal hop."""
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


if __name__ == "__main__":
    main()
