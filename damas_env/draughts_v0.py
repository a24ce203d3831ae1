"""draughts_v0: a PettingZoo AEC environment for every draughts variant, hop by hop.

    env = draughts_v0.env(variant="international")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        mask = obs["action_mask"]
        action = None if termination or truncation else env.action_space(agent).sample(mask)
        env.step(action)

============  =================================================================
Agents        ``player_0`` (moves first), ``player_1``; ``colour_of(agent)`` is its colour
Actions       ``Discrete(A)``: one hop (origin, direction, distance) in the agent's
              view, see :mod:`damas_env.encoding`; 1,800 on 10x10, 896 on 8x8
Observations  ``{"observation": Box(0, 1, (P, N, N), float32), "action_mask": (A,) int8}``
Rewards       +1 win, -1 loss, 0 draw, at the end only; rule endings terminate,
              ``max_plies`` truncates (see :mod:`damas_env.ending`)
Infos         ints from reset on: ``"colour"`` (a :class:`Colour`), ``"reason"`` (a
              :class:`~damas_env.ending.Reason`, ``NONE`` until the end; ``.label``
              names it) and ``"winner"`` (0, 1, or -1 for none)
============  =================================================================

A multi-capture is several hops by the same agent. An illegal action raises
:class:`IllegalActionError` and changes nothing; ``env(illegal_action="lose")`` ends the game
with -1 for the mover instead. ``numeric_infos`` is deprecated (``False`` raises).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .checks import checked_bool, checked_int, checked_options, checked_seed, shown
from .encoding import action_layout, planes_for
from .ending import Ending, decided_ending, rules_ending
from .engine import Colour, Position
from .geometry import Geometry
from .kernels import ONGOING, Reason
from .notation import format_move
from .rules import Ruleset, check_switches, get_ruleset, keywords_of
from .turn import (
    HOP_ILLEGAL,
    MOVE_DONE,
    T_RESULT,
    T_SIDE,
    Turn,
    position_from_fen,
)

__all__ = ["env", "raw_env", "IllegalActionError", "IllegalActionLoses", "INFO_REASONS"]

#: The labels of :class:`Reason` in code order (code 0, "", while the game goes on):
#: ``INFO_REASONS[code] == Reason(code).label``. Kept for code written for
#: ``numeric_infos=True``; ``info["reason"].label`` is the same name.
INFO_REASONS = tuple(reason.label for reason in Reason)


class IllegalActionError(ValueError):
    """Raised for an illegal, out-of-range or mistyped action; the env is unchanged."""


def env(
    variant: str | Ruleset = "international", *, illegal_action: str = "raise", **kwargs: Any
) -> AECEnv:
    """Returns the wrapped environment (PettingZoo's order enforcing, our illegal-action policy).

    Args:
        variant: a ruleset name, a ``pathlib.Path`` to a rules YAML, or a Ruleset.
        illegal_action: "raise" (default): an illegal action raises IllegalActionError and
            changes nothing; "lose": the mover gets -1 and the game ends.
        **kwargs: passed to :class:`raw_env` (render_mode, max_plies, channels_last, and
            any rule switch; ``numeric_infos`` is deprecated, see the module docstring).

    Raises:
        RulesetError: an unknown variant, or a keyword that is neither the env's nor a rule
            switch; the message lists both and suggests the closest (``max_plys``: did you
            mean 'max_plies'?).
        TypeError, ValueError: a bad argument, named (``numeric_infos=False`` included).
    """
    check_switches(kwargs, (*_RAW_KEYWORDS, "illegal_action"), "draughts_v0.env")
    if "numeric_infos" in kwargs:  # warned here, so the warning names the caller's line
        _check_numeric_infos(kwargs.pop("numeric_infos"), stacklevel=2)
    if not isinstance(illegal_action, str) or illegal_action not in ("raise", "lose"):
        raise ValueError(f"illegal_action must be 'raise' or 'lose', not {shown(illegal_action)}")
    inner: AECEnv = raw_env(variant, **kwargs)
    if illegal_action == "lose":
        inner = IllegalActionLoses(inner)
    return _OrderEnforcing(inner)


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """The bare draughts environment (see the module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "draughts_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }
    numeric_infos = True
    """Always True: the infos hold numbers (kept for code written for ``numeric_infos``)."""

    def __init__(
        self,
        variant: str | Ruleset = "international",
        render_mode: str | None = None,
        max_plies: int | None = None,
        channels_last: bool = False,
        numeric_infos: bool | None = None,
        **rule_overrides: Any,
    ) -> None:
        """Builds the env; see the module docstring.

        ``numeric_infos`` is deprecated: infos are always numeric. True warns
        (DeprecationWarning) and changes nothing; False raises ValueError.
        """
        _check_numeric_infos(numeric_infos, stacklevel=2)
        EzPickle.__init__(
            self, variant, render_mode, max_plies, channels_last, None, **rule_overrides
        )
        super().__init__()
        modes = self.metadata["render_modes"]
        if render_mode is not None and not (isinstance(render_mode, str) and render_mode in modes):
            raise ValueError(
                f"render_mode must be one of {modes} or None, not {shown(render_mode)}"
            )
        check_switches(rule_overrides, _RAW_KEYWORDS, "draughts_v0.raw_env")
        self.rules = get_ruleset(variant, **rule_overrides)
        self.render_mode = render_mode
        self.max_plies = None if max_plies is None else checked_int("max_plies", max_plies, 1)
        self.channels_last = checked_bool("channels_last", channels_last)
        self._turn = Turn(self.rules)
        self._layout = action_layout(self.rules)
        first = Colour.WHITE if self.rules.first_player == "white" else Colour.BLACK
        self._first = int(first)
        self.possible_agents = ["player_0", "player_1"]
        self._colour = {"player_0": first, "player_1": first.opponent}
        self._agent_of = {first: "player_0", first.opponent: "player_1"}
        self._agent_by_side = [self._agent_of[Colour.WHITE], self._agent_of[Colour.BLACK]]
        n = self.rules.board_size
        c = planes_for(self.rules)
        shape = (n, n, c) if channels_last else (c, n, n)
        space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, shape, np.float32),
                "action_mask": spaces.Box(0, 1, (self._layout.num_actions,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {
            a: spaces.Discrete(self._layout.num_actions) for a in self.possible_agents
        }
        self._window: Any = None
        self._human_as_text = False  # render_mode="human" without pygame: the text board
        self.flip = False  # draw the board turned 180 degrees (Black's side at the bottom)
        self._has_reset = False

    # --- PettingZoo API ---------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """Returns an agent's observation space.

        Raises:
            ValueError: agent is not one of possible_agents.
        """
        return self.observation_spaces[self._checked_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        """Returns an agent's action space.

        Raises:
            ValueError: agent is not one of possible_agents.
        """
        return self.action_spaces[self._checked_agent(agent)]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Starts a game from the start position, or from ``options={"fen": FEN}``.

        Raises:
            TypeError: seed is not an int, options not a dict or the FEN not a string.
            ValueError: seed is negative.
            NotationError: the FEN is malformed (an empty one included); nothing changes.
        """
        seed, start = checked_seed(seed), self._start(checked_options(options))
        if seed is not None:
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
        self._turn.reset(start.board, start.turn)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: self._info(a) for a in self.agents}
        self.agent_selection = self._agent_of[start.turn]
        self._has_reset = True
        ending = rules_ending(self._turn, self._first, self.max_plies or 0)
        if ending is not None:
            self._end(ending)
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        """Plays one hop of the agent to move (None for an agent whose game has ended).

        Raises:
            IllegalActionError: the action is illegal, out of range or not an integer;
                nothing changes.
            RuntimeError: reset() was never called, or every agent has stepped out.
        """
        if not (self._has_reset and self.agents):
            self._require_agents()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hop = self._checked_action(action)
        status = self._turn.play(hop)
        if status == HOP_ILLEGAL:
            raise IllegalActionError(self._explain_illegal(hop))
        self._cumulative_rewards[agent] = 0.0
        if status == MOVE_DONE:
            st = self._turn.st
            ending = None  # a game the rules go on with and no ply cut: not ended (the fast path)
            if self.max_plies is not None or st[T_RESULT] != ONGOING:
                ending = rules_ending(self._turn, self._first, self.max_plies or 0)
            if ending is None:
                self.agent_selection = self._agent_by_side[st[T_SIDE]]
            else:
                self._end(ending)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Returns the agent's observation and action mask.

        The arrays are the caller's own: writing into them changes nothing here.

        Raises:
            RuntimeError: reset() was never called.
            ValueError: agent is not one of possible_agents.
        """
        if not self._has_reset:
            self._require_reset()
        if agent not in self._colour:
            self._checked_agent(agent)
        planes = self._turn.new_planes(self._colour[agent])
        if agent == self.agent_selection and not self.terminations.get(agent, True):
            mask = self._turn.new_mask()
        else:
            mask = np.zeros(self._layout.num_actions, dtype=np.int8)
        if self.channels_last:
            planes = np.ascontiguousarray(planes.transpose(1, 2, 0))
        return {"observation": planes, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Returns the selected agent's observation, reward, termination, truncation and info.

        Raises:
            RuntimeError: reset() was never called, or the game is over and every agent
                has stepped out with step(None).
        """
        self._require_agents()
        return super().last(observe)

    def render(self) -> Any:
        """Draws the board: text (ansi), an image (rgb_array) or a pygame window (human).

        ``"human"`` without pygame prints the text board instead, after one warning that
        says how to get the window: a person still sees the game, and Gymnasium's
        ``check_env``, which renders every mode in ``metadata``, passes on an install
        without pygame. :meth:`wait_for_human` needs the window and raises ImportError.
        """
        from . import render as R

        self._require_reset()
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        board, highlights = self._display()
        if self.render_mode == "ansi":
            return self._text(board, highlights)
        if self.render_mode == "rgb_array":
            names = self.rules.colour_names
            return R.rgb_array(board, self._geometry, highlights, self.flip, colour_names=names)
        self._draw_human(board, highlights)
        return None

    def _repr_svg_(self) -> str | None:
        """Returns the board as SVG (with the capture in progress), for notebooks (None before
        reset: there is no board to draw)."""
        from .render import svg

        if not self._has_reset:
            return None
        board, highlights = self._display()
        return svg(board, self._geometry, highlights, colour_names=self.rules.colour_names)

    def close(self) -> None:
        """Closes the pygame window, if any."""
        if self._window is not None:
            self._window.close()
            self._window = None

    # --- Helpers for people and tools -------------------------------------------------------

    @property
    def position(self) -> Position:
        """Returns the position at the start of the current turn, with the game's king runs
        (its legal moves are the game's).

        Raises:
            RuntimeError: reset() was never called.
        """
        self._require_reset()
        turn = self._turn
        return Position.of_game(self.rules, turn.board, turn.side, turn.counters)

    def legal_actions(self) -> list[int]:
        """Returns the legal hop actions of the agent to move.

        Raises:
            RuntimeError: reset() was never called.
        """
        self._require_reset()
        return self._turn.legal_actions()

    @property
    def hops_played(self) -> tuple[int, ...]:
        """Returns the actions already played in the current turn (a capture in progress).

        Raises:
            RuntimeError: reset() was never called.
        """
        self._require_reset()
        routes = self._turn.routes_in_play()
        if not routes or self._turn.hop == 0:
            return ()
        squares = routes[0].squares[: self._turn.hop + 1]
        colour = self._turn.side
        return tuple(
            self._layout.hop_action(a, b, colour)
            for a, b in zip(squares, squares[1:], strict=False)
        )

    def decode_action(self, action: int, agent: str | None = None) -> tuple[int, int]:
        """Returns the hop an action makes for an agent as PDN numbers (origin, target).

        The target is 0 for a hop off the board (such actions are never legal).
        """
        if agent is None:
            self._require_reset()
            agent = self.agent_selection
        agent = self._checked_agent(agent)
        hop = self._checked_action(action)
        origin, target = self._layout.hop_squares(hop, self._colour[agent])
        return origin + 1, target + 1

    def colour_of(self, agent: str) -> Colour:
        """Returns the colour an agent plays: player_0 has the ruleset's first player's colour
        in every game, player_1 the other.

        Raises:
            ValueError: agent is not one of possible_agents.
        """
        return self._colour[self._checked_agent(agent)]

    def set_caption(self, text: str) -> None:
        """Writes text into the pygame window's title bar (a clock, a score...); does nothing
        while no window is open (``render_mode="human"`` opens it on the first render)."""
        if self._window is not None:
            self._window.pygame.display.set_caption(text)

    def wait_for_human(self) -> int | None:
        """Returns the hop a person makes by dragging a piece in the pygame window.

        Needs ``render_mode="human"``. The ``f`` key turns the board (``self.flip``); returns
        None if the window is closed, ``render.UNDO`` when ``u`` is pressed and
        ``render.NEW_GAME`` for ``n``.
        """
        from . import render as R

        if self.render_mode != "human":
            raise RuntimeError("wait_for_human() needs render_mode='human'")
        if self._window is None:
            self._window = self._open_window()  # play by mouse: no text board instead
            self.render()
        colour = self._turn.side
        hops = {self._layout.hop_squares(a, colour): a for a in self.legal_actions()}
        while True:
            board, highlights = self._display()
            action = self._window.wait_for_hop(board, hops, highlights, self.flip, self._status())
            if action != R.FLIP:
                return action
            self.flip = not self.flip
            self.render()

    # --- Internals --------------------------------------------------------------------------

    @property
    def _geometry(self) -> Geometry:
        """Returns the board's geometry (its layout of squares), for the renderers."""
        return self._turn.engine.geometry

    def _text(self, board: np.ndarray, highlights: Any) -> str:
        """Returns the board as text (the ansi mode)."""
        from .render import ansi

        names = self.rules.colour_names
        return ansi(board, self._geometry, highlights, self.flip, names, int(self._turn.side))

    def _open_window(self) -> Any:
        """Returns a new pygame window for this board.

        Raises:
            ImportError: pygame is not installed (the message says how to install it).
        """
        from .render import PygameBoard

        names = self.rules.colour_names
        return PygameBoard(self._geometry, caption="damas: draughts_v0", colour_names=names)

    def _draw_human(self, board: np.ndarray, highlights: Any) -> None:
        """Draws in the pygame window, opened at the first call; without pygame, warns once
        and prints the text board (see :meth:`render`)."""
        if self._window is None and not self._human_as_text:
            try:
                self._window = self._open_window()
            except ImportError as error:
                warnings.warn(
                    f"{error}; until then render_mode='human' prints the text board",
                    stacklevel=4,
                )
                self._human_as_text = True
        if self._window is None:
            print(self._text(board, highlights))
        else:
            self._window.draw(board, highlights, self.flip, self._status())

    def _require_reset(self) -> None:
        """Raises RuntimeError if reset() was never called (there is no game yet)."""
        if not self._has_reset:
            raise RuntimeError("call reset() first: there is no game before it")

    def _require_agents(self) -> None:
        """Raises RuntimeError if there is no game, or every agent has stepped out of it."""
        self._require_reset()
        if not self.agents:
            raise RuntimeError(
                "the game is over and every agent has stepped out with step(None): "
                "call reset() to start a new game"
            )

    def _checked_agent(self, agent: Any) -> str:
        """Returns agent if it is one of possible_agents, or raises the ValueError naming it."""
        if not isinstance(agent, str) or agent not in self.possible_agents:
            raise ValueError(f"agent must be one of {self.possible_agents}, not {shown(agent)}")
        return agent

    def _start(self, options: dict[str, Any]) -> Position:
        """Returns the start position of reset's options: only a missing or None "fen" means
        the start (an empty string is a malformed FEN, not a request for the start)."""
        unknown = set(options) - {"fen"}
        if unknown:  # PettingZoo's api_test passes arbitrary options: warn, do not fail
            warnings.warn(
                f"reset ignores unknown options {shown(sorted(map(str, unknown)))}; known: ['fen']",
                stacklevel=3,
            )
        if options.get("fen") is None:
            return Position.start(self.rules)
        return position_from_fen("options['fen']", options["fen"], self.rules)

    def _info(self, agent: str, reason: Reason = Reason.NONE, winner: int = -1) -> dict[str, Any]:
        """Returns an agent's info: its colour, why the game ended (Reason.NONE: it goes on)
        and the winner's index in possible_agents (-1: none)."""
        return {"colour": self._colour[agent], "reason": reason, "winner": winner}

    def _checked_action(self, action: Any) -> int:
        """Returns the action as an int, or raises IllegalActionError for a bad type or range."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = int(action)
            else:
                raise IllegalActionError(
                    f"action must be an int in [0, {self._layout.num_actions}), "
                    f"not {type(action).__name__} {shown(action)}"
                )
        if not 0 <= action < self._layout.num_actions:
            raise IllegalActionError(
                f"action {action} is out of range [0, {self._layout.num_actions}) for a "
                f"{self.rules.board_size}x{self.rules.board_size} board"
            )
        return int(action)

    def _explain_illegal(self, action: int) -> str:
        """Returns why a hop is illegal: the hop decoded, and the legal hops and moves."""
        origin, direction, distance = self._layout.decode(action)
        colour = self._turn.side
        a, b = self._layout.hop_squares(action, colour)
        hop = f"{a + 1}->{b + 1}" if b >= 0 else f"from {a + 1} off the board"
        legal = ", ".join(
            f"{act} ({s + 1}->{t + 1})"
            for act in self.legal_actions()
            for s, t in [self._layout.hop_squares(act, colour)]
        )
        routes = self._turn.routes_in_play()
        moves = ", ".join(dict.fromkeys(format_move(m, routes) for m in routes))
        return (
            f"illegal action {action} for {self.agent_selection} "
            f"({self.rules.colour_names[int(colour)]}): hop {hop} (origin {origin}, "
            f"direction {direction}, distance {distance} in the agent's view); "
            f"legal actions: {legal or 'none'}; moves in play: {moves or 'none'}"
        )

    def end_game(self, winner: str | None, reason: str | Reason, loser_only: bool = False) -> None:
        """Ends the game now: +1 to the winner, -1 to the other agent (0 each for a draw).

        Wrappers that decide a game outside the rules (a clock, an illegal action) call
        this; it sets rewards, terminations, ``infos[agent]["reason"]`` (the Reason) and
        ``"winner"``, and refreshes the observations. `reason` is a Reason or its label
        (``"time"``). With ``loser_only`` (PettingZoo's illegal-move convention) the winner
        gets 0 instead of +1. Nothing changes when it raises.

        Raises:
            ValueError: winner is neither None nor an agent; reason is ``Reason.NONE`` or a
                string that is no Reason's label (infos hold a Reason: a wrapper's ending
                needs one, see :func:`damas_env.ending.decided_ending`).
            TypeError: reason is neither a string nor a Reason.
        """
        if winner is not None and winner not in self.possible_agents:
            raise ValueError(
                f"winner must be None or one of {self.possible_agents}, not {shown(winner)}"
            )
        player = None if winner is None else self.possible_agents.index(winner)
        self._end(decided_ending(player, self._first, reason, loser_only))

    def _end(self, ending: Ending) -> None:
        """Records an ending (:mod:`damas_env.ending`): rewards, terminations or truncations,
        infos, and new observations."""
        winner = -1 if ending.winner is None else ending.winner
        flags = self.truncations if ending.truncated else self.terminations
        for agent in self.agents:
            self.rewards[agent] = ending.rewards[self.possible_agents.index(agent)]
            flags[agent] = True
            info = self._info(agent, ending.reason, winner)
            self.infos[agent] = {**self.infos.get(agent, {}), **info}
        self._cumulative_rewards[self.agent_selection] = 0.0
        self._accumulate_rewards()

    def _display(self) -> tuple[np.ndarray, Any]:
        """Returns the board as shown (moving piece on its current square) and highlights."""
        from .render import Highlights

        board = self._turn.board.copy()
        last = self._turn.last_move()
        highlights = Highlights(
            last_move=last.squares if last else (), last_capture=bool(last and last.is_capture)
        )
        routes = self._turn.routes_in_play()
        hop = self._turn.hop
        if hop and routes:
            route = routes[0]
            cur = route.path[hop - 1]
            piece = board[route.origin]
            board[route.origin] = 0
            board[cur] = piece
            highlights = Highlights(
                last_move=(route.origin, *route.path[:hop]),
                captured=route.captures[:hop],
                moving=cur,
            )
        return board, highlights

    def _status(self) -> str:
        name = self.rules.colour_names[int(self._turn.side)]
        if self.terminations.get(self.agent_selection):
            return f"game over: {Reason(self.infos[self.agent_selection]['reason']).label}"
        return f"{name} to move, ply {self._turn.ply}"


#: raw_env's own keyword arguments; any other keyword is a rule switch (see check_switches).
_RAW_KEYWORDS = keywords_of(raw_env.__init__)


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing; last() names the error once every agent has stepped out."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Returns the selected agent's observation, reward, termination, truncation and info.

        Raises:
            AttributeError: reset() was never called (PettingZoo's order enforcing).
            RuntimeError: the game is over and every agent has stepped out with step(None).
        """
        if self._has_reset:
            self.unwrapped._require_agents()
        return super().last(observe)


class IllegalActionLoses(wrappers.BaseWrapper):
    """Applies PettingZoo's usual rule to an illegal action: the mover gets -1, game over.

    The infos say ``Reason.ILLEGAL_ACTION``; :attr:`illegal_action_error` keeps what the
    action was and why it was illegal (the infos hold numbers only).
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self.illegal_action_error: str | None = None
        """The IllegalActionError message of the action that ended the game (None: none)."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.illegal_action_error = None
        super().reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        env = self.unwrapped
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            super().step(action)
            return
        try:
            super().step(action)
        except IllegalActionError as e:
            opponent = next(a for a in env.agents if a != agent)
            env.end_game(opponent, Reason.ILLEGAL_ACTION, loser_only=True)
            self.illegal_action_error = str(e)


def _check_numeric_infos(value: Any, stacklevel: int) -> None:
    """Checks the deprecated ``numeric_infos`` keyword: None (not given) passes, True warns
    that it changes nothing, False raises (the infos it asked for, with names, are gone).
    The warning points `stacklevel` frames up from the caller (2: the caller's caller).

    Raises:
        TypeError: value is not a bool (nor None).
        ValueError: value is False.
    """
    if value is None:
        return
    if not checked_bool("numeric_infos", value):
        raise ValueError(
            "numeric_infos=False is no longer supported: infos are always numeric and the "
            'names are on the values: info["reason"].label ("no_legal_move"...), '
            'rules.colour_names[info["colour"]], possible_agents[info["winner"]] '
            "(-1: no winner); drop the keyword"
        )
    warnings.warn(
        "numeric_infos=True is deprecated and has no effect: infos are always numeric now "
        '(info["reason"] is a Reason, info["reason"].label its name); drop the keyword',
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )
