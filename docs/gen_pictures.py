"""Draws the site's pictures of things a page would otherwise describe in words: the
``damas play`` window, a game of ``damas play --text`` in a terminal, and the rating pools'
ladder. They are committed in ``docs/assets/``; after a change to the renderer, the terminal
game or a rating pool, redraw them with

    python docs/gen_pictures.py              # rewrites docs/assets/
    python docs/gen_pictures.py OUT          # writes them to the folder OUT instead

It needs pygame and matplotlib (both in the ``dev`` extra) and no display: the window is
drawn by SDL's dummy video driver and saved from its surface. The games are fixed, so the
terminal picture changes only when the program's output does.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from damas_agents.rating.pool import Pool

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "docs" / "assets"
for _path in (str(ROOT / "agents"), str(ROOT)):  # this checkout's packages first
    if _path not in sys.path:
        sys.path.insert(0, _path)

#: The window's game: English, 22 plies of two alpha-beta searches, then the human (Black,
#: first to move) starts the two-piece capture 13x22x29, its piece now on 22.
WINDOW_VARIANT = "english"
WINDOW_MOVES = (
    "9-14 23-18 14x23 26x19 6-9 27-23 9-14 30-26 1-6 32-27 5-9 22-17 11-15 25-22 8-11 29-25 "
    "9-13 24-20 15x24 28x19 14-18 22x8"
)
WINDOW_CAPTURE = "13x29"
#: The terminal's game: ``damas play --text`` against this opponent, and what is typed (an
#: illegal move, answered with the legal one, among them).
TERMINAL_VARIANT, TERMINAL_OPPONENT = "english", "alphabeta:depth=4"
TERMINAL_COMMAND = f"damas play --variant {TERMINAL_VARIANT} --opponent {TERMINAL_OPPONENT} --text"
TERMINAL_INPUT = ("11-15", "8-11", "15x24")


# --- The window ---------------------------------------------------------------------------


@contextmanager
def _dummy_display() -> Iterator[None]:
    """Runs a block with SDL's dummy video driver (no display needed, nothing shown)."""
    before = os.environ.get("SDL_VIDEODRIVER")
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    try:
        yield
    finally:
        if before is None:
            del os.environ["SDL_VIDEODRIVER"]
        else:
            os.environ["SDL_VIDEODRIVER"] = before


def window_png(path: Path) -> None:
    """Saves the window of ``render_mode="human"`` (the ``damas play`` window) to a PNG: the
    piece in the middle of a capture picked, its next landing square marked."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner
    import pygame

    from damas_env import Colour, draughts_v0
    from damas_env.encoding import move_to_actions
    from damas_env.game import Game
    from damas_env.render import square_centre

    with _dummy_display():
        env = draughts_v0.env(WINDOW_VARIANT, render_mode="human")
        env.reset()  # opens the window
        raw, game = env.unwrapped, Game(env.unwrapped.rules)
        raw.flip = raw.infos["player_0"]["colour"] != Colour.WHITE  # as damas play: yours below
        for text in WINDOW_MOVES.split():
            move = game.position.find_move(text)
            for action in move_to_actions(move, game.turn, game.rules):
                env.step(action)
            game.push(move)
        capture = game.position.find_move(WINDOW_CAPTURE)
        env.step(move_to_actions(capture, game.turn, game.rules)[0])  # its first hop
        screen = pygame.display.get_surface()
        square_px = screen.get_width() // game.engine.geometry.size
        pos = square_centre(capture.squares[1], game.engine.geometry, square_px, raw.flip)
        for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):  # a click picks it
            pygame.event.post(pygame.event.Event(kind, pos=pos, button=1))
        pygame.event.post(pygame.event.Event(pygame.QUIT))  # ...and the wait ends
        assert raw.wait_for_human() is None
        pygame.image.save(screen, str(path))
        env.close()


# --- The terminal -------------------------------------------------------------------------


class _Typed:
    """Input lines typed at the prompt, echoed into the output as a terminal shows them."""

    def __init__(self, lines: tuple[str, ...], out: io.StringIO) -> None:
        self.lines, self.out = list(lines), out

    def readline(self, _: int = -1) -> str:
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        self.out.write(f"\x00{line}\x01\n")  # marks what was typed, for its colour
        return f"{line}\n"


def terminal_text() -> str:
    """Returns what the terminal shows of the fixed game, up to the last prompt; what the
    player typed sits between NUL and SOH characters."""
    from damas_agents.arena.play import play_text

    out = io.StringIO()
    typed = _Typed(TERMINAL_INPUT, out)
    play_text(TERMINAL_VARIANT, TERMINAL_OPPONENT, lines=typed, out=out, seed=0)
    text = f"$ {TERMINAL_COMMAND}\n{out.getvalue()}"
    return text[: text.rindex("your move> ") + len("your move> ")]


#: Terminal colours: background, text, what the player typed, the command line.
TERMINAL = {"background": "#1e1e1e", "text": "#d4d4d4", "typed": "#e8ba28", "command": "#8fd18f"}
CHAR_W, LINE_H, FONT_PX, PAD = 8.4, 17, 14, 12


def terminal_svg() -> str:
    """Returns the terminal's text as an SVG picture: monospace lines on a dark screen."""
    lines = terminal_text().split("\n")
    width = PAD * 2 + CHAR_W * max(len(_shown(line)) for line in lines)
    height = PAD * 2 + LINE_H * len(lines)
    rows = [
        f'<text x="{PAD}" y="{PAD + LINE_H * (i + 0.75):.2f}">{_svg_line(line)}</text>'
        for i, line in enumerate(lines)
    ]
    cursor_x = PAD + CHAR_W * len(_shown(lines[-1]))
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
            f'viewBox="0 0 {width:.0f} {height}" font-family="DejaVu Sans Mono, Menlo, '
            f'Consolas, monospace" font-size="{FONT_PX}" fill="{TERMINAL["text"]}" '
            'xml:space="preserve">',
            f'<rect width="100%" height="100%" rx="6" fill="{TERMINAL["background"]}"/>',
            *rows,
            f'<rect x="{cursor_x:.1f}" y="{PAD + LINE_H * (len(lines) - 1) + 2}" '
            f'width="{CHAR_W}" height="{LINE_H - 2}" fill="{TERMINAL["text"]}"/>',
            "</svg>",
            "",
        ]
    )


def _shown(line: str) -> str:
    """Returns a terminal line as it reads, without the marks around what was typed."""
    return line.replace("\x00", "").replace("\x01", "")


def _svg_line(line: str) -> str:
    """Returns one terminal line as SVG text, the typed part and the command in colour."""
    if line.startswith("$ "):
        return f'<tspan fill="{TERMINAL["command"]}">{escape(line)}</tspan>'
    before, _, rest = line.partition("\x00")
    typed, _, after = rest.partition("\x01")
    colour = f'<tspan fill="{TERMINAL["typed"]}">{escape(typed)}</tspan>' if typed else ""
    return escape(before) + colour + escape(after)


# --- The rating ladder --------------------------------------------------------------------


def _pools() -> list[Pool]:
    """Returns the rating pools shipped in the package."""
    from damas_agents.rating.pool import available_pools, load_pool

    return [load_pool(variant) for variant in available_pools()]


def ladder_description() -> str:
    """Returns the pools the ladder draws, in words (kept in the SVG's metadata, so that a
    test sees when a pool changed and the picture did not)."""
    pools = _pools()
    return "; ".join(
        f"{pool.variant} {pool.version}: "
        + ", ".join(f"{m.spec} {m.elo:+.0f} [{m.ci[0]:+.0f}, {m.ci[1]:+.0f}]" for m in pool.members)
        for pool in pools
    )


def ladder_svg() -> str:
    """Returns the rating pools as a plot: each member's Elo with its 95% interval."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    pools = _pools()
    rows = max(len(pool.members) for pool in pools)
    anchors = " and ".join(sorted({pool.anchor for pool in pools}))
    style = {"svg.fonttype": "none", "svg.hashsalt": "damas", "font.size": 10}
    with rc_context(style):  # text stays text; ids do not change from one run to the next
        figure = Figure(figsize=(6.5 * len(pools), 0.26 * rows + 1.2), layout="constrained")
        for axes, pool in zip(figure.subplots(1, len(pools), squeeze=False)[0], pools, strict=True):
            _ladder_axes(axes, pool)
        figure.supxlabel(f"Elo ({anchors} = 0), with its 95% interval")
        out = io.StringIO()
        metadata = {"Date": None, "Description": ladder_description()}
        figure.savefig(out, format="svg", metadata=metadata)
    return out.getvalue()


def _ladder_axes(axes: Axes, pool: Pool) -> None:
    """Draws one pool: a row per member, weakest at the bottom."""
    members = pool.members
    y = list(range(len(members)))
    elo = [m.elo for m in members]
    spread = [[m.elo - m.ci[0] for m in members], [m.ci[1] - m.elo for m in members]]
    axes.errorbar(elo, y, xerr=spread, fmt="o", color="#7a4f2e", ecolor="#c8a27a", capsize=3, ms=4)
    axes.set_yticks(y, [m.spec for m in members])
    axes.set_title(f"{pool.variant.capitalize()}, pool {pool.version}")
    axes.grid(axis="x", color="#e6e6e6")
    axes.set_axisbelow(True)


# --- Command line -------------------------------------------------------------------------

#: Each picture's file name in ``docs/assets/`` and how it is written there.
PICTURES: dict[str, Callable[[Path], None]] = {
    "play-window.png": window_png,
    "play-terminal.svg": lambda path: path.write_text(terminal_svg(), encoding="utf-8"),
    "rating-ladder.svg": lambda path: path.write_text(ladder_svg(), encoding="utf-8"),
}


def main(argv: list[str]) -> int:
    """Writes every picture into the folder given (``docs/assets/`` by default)."""
    out = Path(argv[0]) if argv else ASSETS
    out.mkdir(parents=True, exist_ok=True)
    for name, write in PICTURES.items():
        write(out / name)
        print(f"wrote {out / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
