"""Building agents from specs: :func:`make_agent` turns a spec string (the language of
:mod:`damas_agents.specs`) into an agent, importing its module only then.

    agent = make_agent("alphabeta:depth=4", seed=0, rules="english")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from damas_agents.extras import import_target, require
from damas_agents.players.base import Agent
from damas_agents.specs import KINDS, parse_spec
from damas_env.checks import shown
from damas_env.rules import Ruleset, get_ruleset

__all__ = ["check_plays", "make_agent"]


def make_agent(spec: str, seed: int | None = None, rules: Ruleset | str | None = None) -> Agent:
    """Returns the agent a spec names, seeded where the agent takes a seed.

    Args:
        spec: the agent spec.
        seed: the agent's seed (for kinds that take one).
        rules: the ruleset it will play, if known: an agent that cannot play it (a checkpoint
            trained on other rules, an engine of one variant) is refused now, not in the game.

    Raises:
        ValueError: the spec is malformed (see :func:`parse_spec`), or the agent cannot play
            `rules`.
        CheckpointError: ``checkpoint:PATH`` names no usable checkpoint
            (:class:`damas_agents.models.checkpoint.CheckpointError`).
        ImportError: the agent's module, or the external engine it drives, is missing
            (:class:`damas_agents.extras.MissingExtraError` names the extra to install).
    """
    kind_name, options = parse_spec(spec)
    kind = KINDS[kind_name]
    for module in kind.needs:  # before the import: one line naming the extra, no traceback
        require(module, f"agent {shown(spec)}")
    build: Callable[..., Any] = import_target(kind.target)
    kwargs: dict[str, Any] = dict(options)
    if kind.seeded:
        kwargs["seed"] = seed
    agent: Agent = build(**kwargs)
    if rules is not None:
        check_plays(agent, rules)
    return agent


def check_plays(agent: Agent, rules: Ruleset | str) -> None:
    """Raises ValueError if an agent says it cannot play a ruleset.

    Agents bound to rules (a trained network, an engine of one variant) have a
    ``check_rules(rules)`` method that raises; other agents play any ruleset.
    """
    check = getattr(agent, "check_rules", None)
    if callable(check):
        check(get_ruleset(rules))
