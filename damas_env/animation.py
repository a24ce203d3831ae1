"""A game as moving pictures: an animated SVG (for pages and notebooks) or a GIF (for papers).

    from damas_env.animation import game_gif, game_svg
    svg_text = game_svg(game)                     # every ply a frame, the last one held
    Path("game.gif").write_bytes(game_gif(game))  # needs Pillow (pip install pillow)

Each frame is the board after one ply drawn by :func:`damas_env.render.svg` (or
:func:`~damas_env.render.rgb_array`), the move just played highlighted. The SVG animates with
SMIL (``<set>`` on each frame's ``visibility``), which browsers and notebooks play without
script; it starts with the start position and loops.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import numpy as np

from .render import Highlights, rgb_array, svg

if TYPE_CHECKING:
    from .game import Game

__all__ = ["MAX_FRAMES", "game_frames", "game_gif", "game_svg"]

#: The most frames one animation draws (a longer game shows its first MAX_FRAMES - 1 plies):
#: an SVG frame is about 5 kB and a GIF frame about 10 kB at the default sizes.
MAX_FRAMES = 2001


def game_frames(game: Game) -> list[tuple[np.ndarray, Highlights]]:
    """Returns the board before the first ply and after each ply, with the ply highlighted."""
    from .game import Game  # game imports render; this module sits above both

    replay = Game(game.rules, game.start_fen)
    frames = [(replay.board.copy(), Highlights())]
    for move in game.moves[: MAX_FRAMES - 1]:
        replay.push(move)
        marks = Highlights(last_move=move.squares, last_capture=move.is_capture)
        frames.append((replay.board.copy(), marks))
    return frames


def _timeline(count: int, ms_per_ply: int, hold_ms: int) -> tuple[list[float], float]:
    """Returns each frame's start in seconds and the loop's length (the last frame held)."""
    starts = [i * ms_per_ply / 1000 for i in range(count)]
    return starts, starts[-1] + max(ms_per_ply, hold_ms) / 1000


def game_svg(
    game: Game, ms_per_ply: int = 800, hold_ms: int = 2400, square_px: int = 40, flip: bool = False
) -> str:
    """Returns an animated SVG of a game: one frame per ply, looping, the last held longer."""
    frames = game_frames(game)
    starts, loop = _timeline(len(frames), _checked_ms(ms_per_ply), _checked_ms(hold_ms))
    names = game.rules.colour_names
    geo = game.engine.geometry
    side = geo.size * square_px
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}" '
        f'viewBox="0 0 {side} {side}" class="damas-animation">'
    ]
    for i, (board, marks) in enumerate(frames):
        end = starts[i + 1] if i + 1 < len(frames) else loop
        picture = svg(board, geo, marks, flip, square_px, names)
        out.append(f'<g class="frame" visibility="{"visible" if i == 0 else "hidden"}">')
        out.append(_visibility(starts[i], end, loop, len(frames)))
        out.append(picture)
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _visibility(start: float, end: float, loop: float, count: int) -> str:
    """Returns the SMIL animation that shows a frame from `start` to `end` in every loop."""
    if count == 1:
        return ""
    values, times = ["hidden", "visible", "hidden"], [0.0, start / loop, end / loop]
    if start == 0:
        values, times = values[1:], times[1:]
    return (
        f'<animate attributeName="visibility" values="{";".join(values)}" '
        f'keyTimes="{";".join(f"{t:.6f}" for t in times)}" calcMode="discrete" '
        f'dur="{loop:.3f}s" repeatCount="indefinite"/>'
    )


def game_gif(
    game: Game, ms_per_ply: int = 800, hold_ms: int = 2400, square_px: int = 40, flip: bool = False
) -> bytes:
    """Returns an animated GIF of a game (one frame per ply, looping, the last held longer).

    Raises:
        ImportError: Pillow is not installed (``pip install pillow``).
    """
    image_module = _pillow()
    frames = game_frames(game)
    names, geo = game.rules.colour_names, game.engine.geometry
    images = [
        image_module.fromarray(rgb_array(board, geo, marks, flip, square_px, names))
        for board, marks in frames
    ]
    durations = [_checked_ms(ms_per_ply)] * len(images)
    durations[-1] = max(durations[-1], _checked_ms(hold_ms))
    buffer = io.BytesIO()
    images[0].save(
        buffer,
        format="GIF",
        save_all=True,
        append_images=images[1:],
        duration=durations,
        loop=0,
        optimize=False,
    )
    return buffer.getvalue()


def _pillow() -> Any:
    """Returns PIL.Image, or raises an ImportError that says how to install it."""
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("a GIF needs Pillow: pip install pillow") from e
    return Image


def _checked_ms(value: object) -> int:
    """Returns a frame time in milliseconds, 10 to 60000.

    Raises:
        ValueError: the time is not an int in that range.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 10 <= value <= 60_000:
        raise ValueError(f"a frame time must be an int of 10 to 60000 ms, not {value!r}")
    return value
