"""``damas play``: a person against an agent, in a pygame window or in the terminal.

    damas play --variant english --opponent alphabeta:depth=4 [--as first|second]
               [--text] [--pdn out.pdn] [--seed N] [--time SECONDS [--increment S]]

In the window, drag or click a piece to its target; ``u`` takes back a move pair, ``n``
starts a new game, ``f`` turns the board; ``--time`` adds clocks (window only). Without
pygame or a display, or with ``--text``, the game is played in the terminal: type moves in
PDN (``32-28``, ``28x19x10``) or ``moves``, ``undo``, ``resign``, ``quit``. ``--pdn`` saves
the game. Ctrl-C exits with status 130, errors with status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from damas_agents.players.base import Agent, play_hop
from damas_agents.players.external import EngineError
from damas_agents.players.make import check_plays, make_agent
from damas_agents.specs import spec_usage
from damas_env import Colour, IllegalMoveError, Move
from damas_env.checks import shown
from damas_env.cli import variant_arg
from damas_env.draughts_v0 import raw_env
from damas_env.encoding import actions_to_move, move_to_actions
from damas_env.ending import Reason
from damas_env.game import Game
from damas_env.notation import NotationError, format_move, read_pdn, write_pdn
from damas_env.render import NEW_GAME, UNDO, Highlights, ansi
from damas_env.rules import Ruleset, get_ruleset

__all__ = [
    "main",
    "build_parser",
    "play_text",
    "play_window",
    "window_unavailable",
    "WindowError",
    "opponent_move",
    "game_pdn",
    "game_start_turn",
    "MAX_CLOCK_SECONDS",
    "MAX_INCREMENT",
    "MAX_LINE_CHARS",
]

COMMANDS_HELP = "commands: moves, undo, resign, quit; or a move in PDN"

#: The longest input line read in the terminal (a move of 20 captures is under 100).
MAX_LINE_CHARS = 4096
#: The most seconds on a clock (a day), and the largest increment (an hour).
MAX_CLOCK_SECONDS = 86_400.0
MAX_INCREMENT = 3_600.0
#: SDL's video drivers that show nothing: chosen by SDL itself, they mean there is no display.
HIDDEN_DRIVERS = ("offscreen", "dummy")


class WindowError(RuntimeError):
    """The pygame window could not open (no display); nothing was played."""


def build_parser() -> argparse.ArgumentParser:
    """Returns the parser of ``damas play``."""
    parser = argparse.ArgumentParser(
        prog="damas play",
        description="Plays a game against an agent, in a window or (--text) in the terminal.",
        epilog=f"agent specs: {spec_usage()}",
    )
    parser.add_argument(
        "--variant", type=variant_arg, default="english", help="ruleset name or rules YAML path"
    )
    parser.add_argument("--opponent", default="alphabeta:depth=4", metavar="SPEC")
    parser.add_argument(
        "--as",
        dest="side",
        choices=("first", "second"),
        default="first",
        help="which side you play: first (you move first, the default) or second",
    )
    parser.add_argument("--text", action="store_true", help="play in the terminal")
    parser.add_argument("--pdn", type=Path, help="save the game to this PDN file")
    parser.add_argument("--seed", type=int, help="seed of the opponent")
    parser.add_argument(
        "--time",
        type=seconds_arg(0.0, MAX_CLOCK_SECONDS, zero=False),
        help="seconds on each clock (window only: refused with --text)",
    )
    parser.add_argument(
        "--increment",
        type=seconds_arg(0.0, MAX_INCREMENT, zero=True),
        help="seconds added per move (default 0; needs --time)",
    )
    return parser


def seconds_arg(low: float, high: float, zero: bool) -> Callable[[str], float]:
    """Returns an argparse type: a finite number of seconds from `low` (included if `zero`)
    to `high`; argparse names the option in its message."""
    bounds = f"{'>=' if zero else '>'} {low:g} and <= {high:g}"

    def parse(text: str) -> float:
        try:
            value = float(text) if text.isascii() and len(text) <= 40 else math.nan
        except ValueError:
            value = math.nan
        above = value >= low if zero else value > low
        if not (math.isfinite(value) and above and value <= high):
            raise argparse.ArgumentTypeError(
                f"must be a number of seconds {bounds}, not {shown(text)}"
            )
        return value

    return parse


# --- The opponent ---------------------------------------------------------------------------


def _opponent(opponent: str | Agent, variant: str | Ruleset, seed: int | None) -> Agent:
    """Returns the opponent, built from its spec, once it is known to play the variant.

    Raises:
        ValueError: a bad spec, or an agent that cannot play the variant.
    """
    if isinstance(opponent, str):
        return make_agent(opponent, seed, rules=variant)
    check_plays(opponent, variant)
    return opponent


def opponent_move(agent: Agent, env: Any) -> Move:
    """Plays the agent's complete move in the env, hop by hop; returns the move it made."""
    raw = env.unwrapped
    mover, start, hops = raw.agent_selection, raw.position, []
    while raw.agent_selection == mover and not _env_over(raw):
        action = play_hop(agent, env)
        env.step(action)
        hops.append(action)
    return actions_to_move(hops, start)


def _env_over(raw: Any) -> bool:
    return any(raw.terminations.values()) or any(raw.truncations.values())


def _env_for(variant: str | Ruleset, game: Game) -> raw_env:
    """Returns a bare env of the variant that has played the game's moves (history included)."""
    env = raw_env(variant)
    _replay(env, game)
    return env


def _replay(env: Any, game: Game) -> None:
    """Resets an env and plays the game's moves in it, hop by hop (history included)."""
    env.reset(options={"fen": game.start_fen} if game.start_fen else None)
    replay = Game(game.rules, game.start_fen)
    for move in game.moves:
        for action in move_to_actions(move, replay.turn, game.rules):
            env.step(action)
        replay.push(move)


def take_back(game: Game, human: Colour) -> bool:
    """Pops the game back to before the human's last move (taking the reply back with it);
    returns False, changing nothing, if the human has not moved yet."""
    first = game_start_turn(game)
    mine = [i for i in range(game.ply) if (first if i % 2 == 0 else first.opponent) == human]
    if not mine:
        return False
    while game.ply > mine[-1]:
        game.pop()
    return True


# --- PDN ------------------------------------------------------------------------------------


def game_pdn(game: Game, result: str | None = None, **tags: str) -> str:
    """Returns the game as PDN; `result` (e.g. after a resignation) overrides the rules' one."""
    text = game.to_pdn(**tags)
    if result is None:
        return text
    pdn = read_pdn(text)[0]
    pdn.result = result
    return write_pdn(pdn)


def _result_string(game: Game, winner: Colour | None) -> str:
    """Returns the PDN result of a game decided outside the rules (resignation, time)."""
    big = game.rules.board_size >= 10  # PDN: 2-0 / 1-1 scores on 10x10 and up
    if winner is None:
        return "1-1" if big else "1/2-1/2"
    return ("2-0" if big else "1-0") if winner == Colour.WHITE else ("0-2" if big else "0-1")


def game_start_turn(game: Game) -> Colour:
    """Returns the colour that moved first in a game."""
    return game.turn if game.ply % 2 == 0 else game.turn.opponent


# --- Terminal -------------------------------------------------------------------------------


class _TextSession:
    """A terminal game: the Game is the record, a bare env feeds the agent its observations."""

    def __init__(
        self, variant: str | Ruleset, agent: Agent, human_first: bool, out: TextIO
    ) -> None:
        self.variant, self.agent, self.out = variant, agent, out
        self.game = Game(get_ruleset(variant))
        self.human = self.game.turn if human_first else self.game.turn.opponent
        self.env = _env_for(variant, self.game)
        self.names = self.game.rules.colour_names
        self.result: str | None = None  # set when the game ends outside the rules
        self.ending = ""

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def show(self) -> None:
        last = self.game.moves[-1].squares if self.game.moves else ()
        board = ansi(
            self.game.board,
            self.game.engine.geometry,
            Highlights(last_move=last, last_capture=bool(last and self.game.moves[-1].captures)),
            flip=self.human != Colour.WHITE,
            colour_names=self.names,
            turn=int(self.game.turn),
        )
        self.say(board)

    def push(self, move: Move) -> None:
        """Plays a move in the game and the env alike."""
        for action in move_to_actions(move, self.game.turn, self.game.rules):
            self.env.step(action)
        self.game.push(move)

    def opponent_plays(self) -> None:
        move = opponent_move(self.agent, self.env)
        self.say(f"{self.agent.name} plays {format_move(move, self.game.legal_moves())}")
        self.game.push(move)

    def help(self) -> str:
        """Returns the commands and two of the legal moves here as examples of the notation."""
        legal = self.game.legal_moves()
        examples = [format_move(m, legal) for m in dict.fromkeys(legal[:1] + legal[-1:])]
        return COMMANDS_HELP + (f", e.g. {' or '.join(examples)}" if examples else "")

    def undo(self) -> None:
        """Takes back the last move pair (or the opponent's first move alone: not possible)."""
        if not take_back(self.game, self.human):
            self.say("nothing to undo")
            return
        self.env = _env_for(self.variant, self.game)
        self.agent.reset()
        self.say(f"took back to ply {self.game.ply}")

    def human_turn(self, line: str) -> bool:
        """Handles one line of input; returns False when the game stops (resign, quit)."""
        word = line.strip().lower()
        if word in ("quit", "exit"):
            self.ending = "stopped by the player"
            return False
        if word == "resign":
            self.result = _result_string(self.game, self.human.opponent)
            self.ending = f"{self.names[int(self.human)]} resigns"
            return False
        if word in ("moves", "help", "?", ""):
            legal = self.game.legal_moves()
            self.say("legal moves: " + ", ".join(format_move(m, legal) for m in legal))
            if word != "moves":
                self.say(self.help())
        elif word == "undo":
            self.undo()
            self.show()
        else:
            self.try_move(line.strip())
        return True

    def try_move(self, text: str) -> None:
        try:
            move = self.game.position.find_move(text)
        except (NotationError, IllegalMoveError) as e:
            legal = self.game.legal_moves()
            names = ", ".join(format_move(m, legal) for m in legal)
            message = str(e) if "legal moves" in str(e) else f"{e}; legal moves: {names}"
            self.say(f"error: {message}")
            return
        self.push(move)
        if not self.game.is_over:
            self.opponent_plays()
        self.show()

    def announce(self) -> str:
        """Prints and returns the result line."""
        outcome = self.game.outcome()
        if self.result is not None:
            text = f"result {self.result}: {self.ending}"
        elif outcome is not None:
            who = "draw" if outcome.winner is None else f"{self.names[int(outcome.winner)]} wins"
            result = outcome.pdn_result(self.game.rules.board_size)
            text = f"result {result}: {who} ({outcome.reason.label})"
        else:
            text = f"result *: unfinished ({self.ending or 'end of input'})"
        self.say(text)
        return text


def play_text(
    variant: str | Ruleset,
    opponent: str | Agent,
    human_first: bool = True,
    lines: TextIO | None = None,
    out: TextIO | None = None,
    seed: int | None = None,
) -> tuple[Game, str]:
    """Plays a terminal game reading the person's entries line by line.

    Returns:
        The game and its PDN result (``*`` when stopped or at the end of input).
    """
    lines = sys.stdin if lines is None else lines
    out = sys.stdout if out is None else out
    agent = _opponent(opponent, variant, seed)
    agent.reset()
    session = _TextSession(variant, agent, human_first, out)
    game, human = session.game, session.human
    session.say(f"you play {session.names[int(human)]} against {agent.name}")
    if game.turn != human and not game.is_over:
        session.opponent_plays()
    session.show()
    session.say(session.help())  # after the opponent's first move: examples of yours
    for line in _prompted(lines, out, session):
        if not session.human_turn(line):
            break
    session.announce()
    outcome = game.outcome()
    result = session.result or (outcome.pdn_result(game.rules.board_size) if outcome else "*")
    return game, result


def _prompted(lines: TextIO, out: TextIO, session: _TextSession) -> Iterator[str]:
    """Yields input lines, printing a prompt before each; stops at game end or end of input.

    A line longer than MAX_LINE_CHARS is read to its end a piece at a time (memory stays
    bounded), dropped and answered with an error.
    """
    while not session.game.is_over:
        print("your move> ", end="", file=out, flush=True)
        try:
            line = lines.readline(MAX_LINE_CHARS + 1)
        except KeyboardInterrupt:  # end the prompt's line, so "interrupted" has its own
            print(file=out, flush=True)
            raise
        if not line:
            print(file=out)
            return
        if len(line) > MAX_LINE_CHARS:
            _skip_line(lines, line)
            session.say(f"error: a line longer than {MAX_LINE_CHARS} characters was ignored")
            continue
        yield line


def _skip_line(lines: TextIO, start: str) -> None:
    """Reads the rest of a line whose first piece was `start`, in pieces, and drops it."""
    piece = start
    while piece and not piece.endswith("\n"):
        piece = lines.readline(MAX_LINE_CHARS)


# --- Window ---------------------------------------------------------------------------------


def play_window(
    variant: str | Ruleset,
    opponent: str | Agent,
    human_first: bool = True,
    seed: int | None = None,
    seconds: float | None = None,
    increment: float = 0.0,
    say: Callable[[str], None] = print,
) -> tuple[Game, str]:
    """Plays a game in the pygame window; returns the game and its PDN result.

    The window is closed however the game ends, Ctrl-C (KeyboardInterrupt) included.

    Raises:
        WindowError: the window could not open (nothing was played).
    """
    agent = _opponent(opponent, variant, seed)
    env = _window_env(variant, seed, seconds, increment)
    try:
        agent.reset()
        raw = env.unwrapped
        human = "player_0" if human_first else "player_1"
        raw.flip = raw.infos[human]["colour"] != Colour.WHITE  # yours at the bottom
        game = Game(raw.rules)
        closed = _window_loop(env, agent, human, game, say)
        result = _window_result(env, game, closed)
        say(f"result {result}: {_window_reason(raw, closed)}")
    finally:
        env.close()
    return game, result


def _window_env(
    variant: str | Ruleset, seed: int | None, seconds: float | None, increment: float
) -> Any:
    """Returns the env of a window game, reset: its window is open.

    Raises:
        WindowError: the window could not open.
    """
    import pygame

    from damas_env import draughts_v0
    from damas_env.clock import TimeControl

    env: Any = draughts_v0.env(variant, render_mode="human")
    if seconds is not None:
        env = TimeControl(env, seconds, increment)
    try:
        env.reset(seed=seed)  # the human render mode opens the window here
    except pygame.error as e:
        env.close()
        raise WindowError(f"the window could not open ({e})") from e
    return env


def _window_loop(env: Any, agent: Agent, human: str, game: Game, say: Callable) -> bool:
    """Plays until the game ends; returns True if the window was closed first.

    ``u`` takes back the last move pair (not under a time control: clocks are not rewound),
    ``n`` starts a new game with the same sides; both rebuild the env from the game record.
    """
    raw = env.unwrapped
    while not _env_over(raw):
        _show_clocks(env)
        if raw.agent_selection != human:
            game.push(opponent_move(agent, env))
            continue
        mover, start, hops = raw.agent_selection, raw.position, []
        while raw.agent_selection == mover and not _env_over(raw):
            action = raw.wait_for_human()
            if action is None:
                return True
            if action in (UNDO, NEW_GAME):
                if _restart(env, agent, game, raw.colour_of(human), action, say):
                    break
                continue
            env.step(action)
            hops.append(action)
        else:
            if raw.infos[mover]["reason"] != Reason.TIME:
                game.push(actions_to_move(hops, start))
    raw.render()
    return False


def _restart(env: Any, agent: Agent, game: Game, human: Colour, key: int, say: Callable) -> bool:
    """Takes back a move pair (UNDO) or starts over (NEW_GAME) in the game and the env;
    returns False if nothing changed."""
    if key == UNDO:
        if hasattr(env, "remaining"):
            say("undo is off under a time control (the clocks cannot be rewound)")
            return False
        if not take_back(game, human):
            say("nothing to undo")
            return False
        say(f"took back to ply {game.ply}")
    else:
        while game.moves:
            game.pop()
        say("new game")
    _replay(env, game)
    agent.reset()
    env.unwrapped.render()
    return True


def _show_clocks(env: Any) -> None:
    """Writes both clocks into the window title when a time control is on."""
    if not hasattr(env, "remaining"):
        return
    raw = env.unwrapped
    clocks = "  ".join(
        f"{raw.rules.colour_names[raw.infos[a]['colour']]} {_clock_text(env.remaining(a))}"
        for a in raw.possible_agents
    )
    raw.set_caption(f"damas  {clocks}")


def _clock_text(seconds: float) -> str:
    minutes, rest = divmod(int(seconds + 0.999), 60)
    return f"{minutes}:{rest:02d}"


def _window_result(env: Any, game: Game, closed: bool) -> str:
    raw = env.unwrapped
    outcome = game.outcome()
    if closed or not _env_over(raw):
        return "*"
    if outcome is not None:
        return outcome.pdn_result(game.rules.board_size)
    winner = raw.infos[raw.possible_agents[0]]["winner"]  # time: decided outside the rules
    colour = None if winner < 0 else raw.colour_of(raw.possible_agents[winner])
    return _result_string(game, colour)


def _window_reason(raw: Any, closed: bool) -> str:
    if closed:
        return "unfinished (window closed)"
    info = raw.infos[raw.possible_agents[0]]
    winner = info["winner"]  # an index into possible_agents, -1 for none
    who = (
        "draw"
        if winner < 0
        else f"{raw.rules.colour_names[raw.colour_of(raw.possible_agents[winner])]} wins"
    )
    return f"{who} ({Reason(info['reason']).label})"


# --- Command line ---------------------------------------------------------------------------


def run(args: argparse.Namespace) -> None:
    """Plays the game the arguments ask for and saves it if asked.

    Raises:
        ValueError: a bad variant, spec or clock, or an opponent that cannot play the variant
            (all found before the game starts).
    """
    _check_clock(args)
    rules = get_ruleset(args.variant)  # fail now on an unknown variant
    agent = make_agent(args.opponent, args.seed, rules=rules)  # a bad spec, or other rules
    first = args.side == "first"
    game, result = _play(args, rules, agent, first)
    if args.pdn:
        human = game_start_turn(game) if first else game_start_turn(game).opponent
        names = {human: "you", human.opponent: agent.name}
        args.pdn.write_text(
            game_pdn(game, result, White=names[Colour.WHITE], Black=names[Colour.BLACK])
        )
        print(f"saved {args.pdn}")


def _play(args: argparse.Namespace, rules: Ruleset, agent: Agent, first: bool) -> tuple[Game, str]:
    """Plays in the window, or in the terminal when asked to or when the window cannot open
    (saying why on stderr; a clock, which only the window has, is then refused)."""
    reason = None if args.text else window_unavailable()
    if reason is None and not args.text:
        try:
            return play_window(rules, agent, first, args.seed, args.time, args.increment or 0.0)
        except WindowError as e:
            reason = str(e)
    if reason is not None:
        if args.time is not None:
            raise ValueError(
                f"--time needs the window, and {reason}; drop --time and --increment and "
                "play in the terminal (--text)"
            )
        print(f"damas play: {reason}, so the game is in the terminal", file=sys.stderr)
    return play_text(rules, agent, first, seed=args.seed)


def has_pygame() -> bool:
    """Returns True if pygame can be imported (the window needs it; the terminal does not)."""
    return importlib.util.find_spec("pygame") is not None


def window_unavailable() -> str | None:
    """Returns why the window cannot be shown here (no pygame, no display), or None if it can.

    An ``SDL_VIDEODRIVER`` that is set is respected (``SDL_VIDEODRIVER=dummy`` runs the
    window unseen, as the tests do). Otherwise Linux needs ``DISPLAY`` or ``WAYLAND_DISPLAY``
    (checked without loading pygame, whose display probes print errors), and a driver that
    SDL falls back to when it finds no screen (offscreen) is no display.
    """
    if not has_pygame():
        return "pygame is not installed (pip install pygame for the window)"
    if os.environ.get("SDL_VIDEODRIVER"):
        return None
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return "there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"
    return _sdl_display_problem()


def _sdl_display_problem() -> str | None:
    """Starts pygame's display and returns why it shows nothing, or None if it shows."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no banner on stdout
    import pygame

    try:
        pygame.display.init()
    except pygame.error as e:
        return f"the window could not open ({e})"
    driver = pygame.display.get_driver()
    if driver in HIDDEN_DRIVERS:
        pygame.display.quit()
        return f"there is no display (SDL found only its {driver} driver)"
    return None


def _check_clock(args: argparse.Namespace) -> None:
    """Raises ValueError for clock options that would be ignored: the terminal has no clock."""
    if args.text and (args.time is not None or args.increment is not None):
        raise ValueError("--time and --increment apply to the window only; --text has no clock")
    if args.increment is not None and args.time is None:
        raise ValueError("--increment needs --time")


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``damas play``; returns the exit status (2 on a usage or input error)."""
    args = build_parser().parse_args(argv)
    try:
        run(args)
    except (ValueError, ImportError, NotImplementedError, OSError, EngineError) as e:
        print(f"damas play: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
