"""The games the browser board shows: a live game against agents, and a PDN game replayed.

    live = LiveGame(get_ruleset("english"), {Colour.WHITE: None, Colour.BLACK: agent})
    live.play_squares([22, 17])          # a person's move, as its squares (origin, landings)
    live.play_agent()                    # the agent to move plays (score and pv noted)
    view = replay_pdn_game(pdn_game)     # the legal prefix of a PDN game, and its error

The rules are the engine's: the routes offered to the page are ``Position.capture_routes()``,
a move is ``Game.push``, the end of a game is ``Game.outcome()``, and the clock is
:class:`damas_env.clock.TimeControl` around the env the agents observe. Each ply becomes a
frame (the board after it, its squares, captures, PDN text and the agent's notes), the one
shape the page draws for live games and replays alike.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from damas_agents.arena.play import game_pdn, take_back
from damas_agents.players.base import Agent, play_hop
from damas_agents.players.classic import AlphaBetaAgent
from damas_env import Colour, IllegalMoveError, Move, Position, Ruleset
from damas_env.clock import TimeControl
from damas_env.draughts_v0 import raw_env
from damas_env.encoding import actions_to_move, move_to_actions
from damas_env.ending import Reason
from damas_env.game import Game, Outcome
from damas_env.notation import NotationError, PdnGame, format_move, square_to_pdn, write_pdn

__all__ = ["GameError", "LiveGame", "MAX_REPLAY_PLIES", "Replay", "frame", "replay_pdn_game"]

#: The most plies of one PDN game replayed (a longer one shows its first plies and says so).
MAX_REPLAY_PLIES = 5000
#: The most moves of a principal variation shown.
MAX_PV = 12


class GameError(ValueError):
    """A request the game refuses as it stands: not your turn, the game is over, no undo."""


def frame(game: Game, move: Move | None = None, text: str = "", **notes: Any) -> dict[str, Any]:
    """Returns the page's frame of a game's current board: the move that led to it (its
    squares, captures and PDN text), the colour to move, and any notes (score, pv)."""
    return {
        "board": [int(code) for code in game.board],
        "squares": list(move.squares) if move else [],
        "captures": list(move.captures) if move else [],
        "text": text,
        "turn": int(game.turn),
        **notes,
    }


def push_frame(game: Game, move: Move, **notes: Any) -> dict[str, Any]:
    """Plays a legal move in a game and returns its frame (the move's text read before)."""
    text = format_move(move, game.legal_moves())
    game.push(move)
    return frame(game, move, text, **notes)


def routes(game: Game) -> list[dict[str, list[int]]]:
    """Returns every legal route of the side to move (capture routes apart), as squares and
    captured squares in order: the page plays them hop by hop."""
    if game.is_over:
        return []
    return [
        {"squares": list(m.squares), "captures": list(m.captures)}
        for m in game.position.capture_routes()
    ]


def search_notes(result: Any, position: Position) -> dict[str, Any]:
    """Returns an alpha-beta search's score (in men, for the side that moved), depth, nodes
    and principal variation in PDN."""
    pv, here = [], position
    for move in result.pv[:MAX_PV]:
        try:
            pv.append(format_move(move, here.legal_moves()))
            here = here.play(move)
        except (IllegalMoveError, NotationError):
            break  # the table's line may go stale: show what is legal
    mate = result.mate_in
    score = f"mate in {abs(mate)}" if mate is not None else f"{result.score / 100:+.2f}"
    if mate is not None and mate < 0:
        score = f"mated in {abs(mate)}"
    return {"score": score, "depth": result.depth, "nodes": result.nodes, "pv": pv}


@dataclass
class Replay:
    """A PDN game replayed: its tags, ruleset, frames (start and each legal ply) and the
    error that stopped the replay, if any."""

    tags: dict[str, str]
    game: Game
    frames: list[dict[str, Any]]
    error: str = ""
    result: str = "*"


def replay_pdn_game(pdn: PdnGame) -> Replay:
    """Replays a PDN game's moves as far as they are legal.

    The ruleset and start come from its tags as :meth:`Game.from_pdn` reads them (a tag only
    ever names a ruleset or its switches, never a file).

    Raises:
        NotationError: a tag (Variant, GameType, Rules, FEN) is bad.
    """
    header = PdnGame(dict(pdn.tags), [], "*")
    game = Game.from_pdn(write_pdn(header))
    frames = [frame(game)]
    error = ""
    for i, text in enumerate(pdn.moves[:MAX_REPLAY_PLIES]):
        try:
            move = game.position.find_move(text)
        except (IllegalMoveError, NotationError) as e:
            error = f"PDN move {i + 1} ({text}): {e}"
            break
        if game.is_over:
            error = f"PDN move {i + 1} ({text}) comes after the end of the game"
            break
        frames.append(push_frame(game, move))
    if not error and len(pdn.moves) > MAX_REPLAY_PLIES:
        error = f"the game has {len(pdn.moves)} plies; the first {MAX_REPLAY_PLIES} are shown"
    return Replay(dict(pdn.tags), game, frames, error, pdn.result)


@dataclass
class LiveGame:
    """A game in progress between people (None) and agents, with an optional clock.

    The Game is the record; a bare env of the same rules follows it, so that agents get
    their observations and the clock (:class:`TimeControl`) runs on the env's steps.
    """

    rules: Ruleset
    players: dict[Colour, Agent | None]
    names: dict[Colour, str]
    seconds: float | None = None
    increment: float = 0.0
    clock: Callable[[], float] = time.monotonic
    fen: str | None = None
    game: Game = field(init=False)
    frames: list[dict[str, Any]] = field(init=False)
    lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    time_loss: Colour | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.game = Game(self.rules, self.fen)
        self.frames = [frame(self.game)]
        self.env = self._new_env()
        for agent in self.players.values():
            if agent is not None:
                agent.reset()

    def _new_env(self) -> Any:
        """Returns the env, reset (the clocks full), that has played the game's moves."""
        env: Any = raw_env(self.rules)
        if self.seconds is not None:
            env = TimeControl(env, self.seconds, self.increment, clock=self.clock)
        env.reset(options={"fen": self.game.start_fen} if self.game.start_fen else None)
        replay = Game(self.rules, self.game.start_fen)
        for move in self.game.moves:
            for action in move_to_actions(move, replay.turn, self.rules):
                env.step(action)
            replay.push(move)
        return env

    # --- State ------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Returns True once the rules or the clock ended the game."""
        return self.game.is_over or self.time_loss is not None

    def outcome(self) -> Outcome | None:
        """Returns how the game ended (a loss on time included), or None while it goes on."""
        if self.time_loss is not None:
            return Outcome(self.time_loss.opponent, Reason.TIME)
        return self.game.outcome()

    def mover_is_person(self) -> bool:
        """Returns True if a person is to move in a game that goes on."""
        return not self.is_over and self.players[self.game.turn] is None

    def clocks(self) -> dict[str, Any] | None:
        """Returns each colour's seconds left and whose clock runs, or None without a clock."""
        if self.seconds is None:
            return None
        raw = self.env.unwrapped
        left = {int(raw.colour_of(a)): self.env.remaining(a) for a in raw.possible_agents}
        running = None if self.is_over else int(self.game.turn)
        return {"left": [left[0], left[1]], "running": running, "increment": self.increment}

    def check_flag(self) -> None:
        """Ends the game if the mover's time is up (a person who has not moved, say)."""
        if self.seconds is None or self.is_over:
            return
        raw = self.env.unwrapped
        if self.env.remaining(raw.agent_selection) <= 0:
            self._lose_on_time(self.game.turn)

    def _lose_on_time(self, colour: Colour) -> None:
        raw = self.env.unwrapped
        if not any(raw.terminations.values()):
            winner = next(a for a in raw.possible_agents if raw.colour_of(a) != colour)
            raw.end_game(winner, Reason.TIME)
        self.time_loss = colour

    def copy(self) -> Game:
        """Returns a copy of the game record (its moves replayed), for exports."""
        copy = Game(self.rules, self.game.start_fen)
        for move in self.game.moves:
            copy.push(move)
        return copy

    def pdn(self) -> str:
        """Returns the game as PDN, the players' names in the White and Black tags."""
        outcome = self.outcome()
        result = outcome.pdn_result(self.rules.board_size) if outcome else None
        names = self.names
        return game_pdn(self.game, result, White=names[Colour.WHITE], Black=names[Colour.BLACK])

    # --- Moves ------------------------------------------------------------------------------

    def _check_can_move(self) -> None:
        self.check_flag()
        if self.is_over:
            raise GameError("the game is over; start a new one")

    def play_squares(self, squares: list[int]) -> None:
        """Plays a person's move given as its squares (origin and every landing).

        Raises:
            GameError: the game is over, or an agent is to move.
            IllegalMoveError: no legal route has these squares.
        """
        self._check_can_move()
        if not self.mover_is_person():
            raise GameError(f"it is {self.names[self.game.turn]}'s turn, not yours")
        game = self.game
        routes = game.position.capture_routes()
        found = next((m for m in routes if list(m.squares) == squares), None)
        if found is None:
            text = "-".join(str(square_to_pdn(s)) for s in squares)
            legal = ", ".join(format_move(m, game.legal_moves()) for m in game.legal_moves())
            raise IllegalMoveError(f"{text} is not a legal move here; legal moves: {legal}")
        self._play(found, {})

    def play_agent(self) -> None:
        """Lets the agent to move play its move (a search's score and pv noted).

        Raises:
            GameError: the game is over, or a person is to move.
        """
        self._check_can_move()
        agent = self.players[self.game.turn]
        if agent is None:
            raise GameError("a person is to move, not an agent")
        if isinstance(agent, AlphaBetaAgent):
            position = self.env.unwrapped.position
            result = agent.search(position)
            self._play(result.move, search_notes(result, position))
            return
        raw, hops = self.env.unwrapped, []
        mover, start = raw.agent_selection, raw.position
        try:
            while raw.agent_selection == mover and not self._env_over():
                action = play_hop(agent, self.env)
                self.env.step(action)
                hops.append(action)
        except Exception:
            if hops:  # a failure in the middle of a capture: the env follows the game again
                self.env = self._new_env()
            raise
        if self._ended_on_time():
            return
        self.frames.append(push_frame(self.game, actions_to_move(hops, start)))

    def _play(self, move: Move, notes: dict[str, Any]) -> None:
        """Plays a legal move in the env (on the clock) and, unless time ran out, the game."""
        for action in move_to_actions(move, self.game.turn, self.rules):
            self.env.step(action)
            if self._ended_on_time():
                return
        self.frames.append(push_frame(self.game, move, **notes))

    def _env_over(self) -> bool:
        raw = self.env.unwrapped
        return any(raw.terminations.values()) or any(raw.truncations.values())

    def _ended_on_time(self) -> bool:
        """Returns True (noting the loser) if the clock ended the game at the last step."""
        raw = self.env.unwrapped
        info = raw.infos[raw.possible_agents[0]]
        if self._env_over() and info["reason"] == Reason.TIME:
            self.time_loss = self.game.turn
            return True
        return False

    def undo(self) -> None:
        """Takes back the last move of the person (and the agent's reply after it), or the
        last ply when people play both sides or agents do.

        Raises:
            GameError: a clock runs (it cannot be rewound) or there is nothing to undo.
        """
        if self.seconds is not None:
            raise GameError("undo is off under a clock (the clocks cannot be rewound)")
        people = [c for c, agent in self.players.items() if agent is None]
        if not self.game.moves:
            raise GameError("nothing to undo")
        if len(people) == 1:
            if not take_back(self.game, people[0]):
                raise GameError("nothing to undo: you have not moved yet")
        else:
            self.game.pop()
        del self.frames[self.game.ply + 1 :]
        self.env = self._new_env()
        for agent in self.players.values():
            if agent is not None:
                agent.reset()

    def close(self) -> None:
        """Closes the agents that hold a resource (an external engine's process)."""
        for agent in self.players.values():
            close = getattr(agent, "close", None)
            if callable(close):
                close()
