"""Plays draughts in a pygame window: you against a random opponent, dragging pieces.

    python examples/pygame_game.py --variant english            # you play the first mover
    python examples/pygame_game.py --variant international --as player_1
    python examples/pygame_game.py --demo 20                    # two random players, 20 hops
    python examples/pygame_game.py --variant turkish            # all 64 squares, orthogonal
    python examples/pygame_game.py --variant italian            # single corner on the right

Drag a piece (or click it, then the target); a capture of several pieces is dragged hop by
hop. Keys: f turns the board, u is ignored here (an AEC env has no undo), closing the
window ends the game. Each hop is printed in the terminal as it is played (PDN square
numbers), and the result at the end. Without pygame the script says how to install it
and stops.
"""

from __future__ import annotations

import argparse

import numpy as np

from damas_env import Colour, draughts_v0
from damas_env.render import UNDO


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="english")
    parser.add_argument("--as", dest="human", default="player_0", choices=["player_0", "player_1"])
    parser.add_argument("--demo", type=int, default=0, help="random players for N hops, no human")
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
    rng = np.random.default_rng()
    for hops, agent in enumerate(env.agent_iter()):
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            print(f"{agent}: reward {reward:+.0f} ({info['reason'].label})", flush=True)
            env.step(None)
            continue
        if args.demo and hops >= args.demo:
            print(f"demo over after {args.demo} hops", flush=True)
            break
        if agent == args.human and not args.demo:
            action = game.wait_for_human()
            while action == UNDO:
                action = game.wait_for_human()
            if action is None:
                print("window closed: game abandoned", flush=True)
                break
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        origin, target = game.decode_action(action, agent)
        colour = game.rules.colour_names[game.colour_of(agent)]
        print(f"{hops + 1:4d}. {agent} ({colour}) hops {origin}-{target}", flush=True)
        env.step(action)
    env.close()


if __name__ == "__main__":
    main()
