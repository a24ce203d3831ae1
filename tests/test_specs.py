"""Agent specs: parsing with typed options, clear errors, and building every installed kind."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import shutil
import subprocess
import sys

import pytest

from damas_agents.extras import MissingExtraError
from damas_agents.players.base import Agent, play_hop
from damas_agents.players.make import make_agent
from damas_agents.specs import KINDS, parse_spec
from damas_env import draughts_v0


def _installed(*modules: str) -> bool:
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except ModuleNotFoundError:  # a parent package is missing
        return False


def _has_dame_rs() -> bool:
    if not _installed("dame"):
        return False
    return hasattr(importlib.import_module("dame"), "Engine")  # PyPI's other 'dame' has none


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("random", ("random", {})),
        ("greedy", ("greedy", {})),
        ("alphabeta:depth=4,time=0.5", ("alphabeta", {"depth": 4, "time": 0.5})),
        ("alphabeta:time=1", ("alphabeta", {"time": 1.0})),
        ("AlphaBeta: nodes=20000", ("alphabeta", {"nodes": 20000})),
        ("mcts:sims=400,c=1.4", ("mcts", {"sims": 400, "c": 1.4})),
        ("openspiel-mcts:sims=1000", ("openspiel-mcts", {"sims": 1000})),
        ("dame:depth=6", ("dame", {"depth": 6})),
        ("hub:/opt/scan/scan", ("hub", {"path": "/opt/scan/scan"})),
        (
            "hub:scan,depth=8,variant=normal,book=false,time=0.5",
            ("hub", {"path": "scan", "depth": 8, "variant": "normal", "book": False, "time": 0.5}),
        ),
        ("checkpoint:runs/ppo/agent.pt", ("checkpoint", {"path": "runs/ppo/agent.pt"})),
    ],
)
def test_parse_spec_types_the_options(spec: str, expected: tuple[str, dict]) -> None:
    kind, options = parse_spec(spec)
    assert (kind, options) == expected
    assert all(type(v) is type(expected[1][k]) for k, v in options.items())


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "non-empty"),
        ("minimax:depth=3", "unknown agent kind 'minimax'"),
        ("alphabeta:depht=3", "unknown option 'depht'"),
        ("alphabeta:depth=3.5", "must be an integer from 1 to 64"),
        ("alphabeta:depth=0", "must be an integer from 1 to 64"),
        ("alphabeta:time=fast", "must be a number from 0.001 to 3600"),
        ("alphabeta:depth", "expected option=value"),
        ("alphabeta:depth=2,depth=3", "given twice"),
        ("mcts:sims=-5", "must be an integer from 1 to 100000"),
        ("random:seed=3", "random accepts no options"),
        ("hub:", "needs a path"),
        ("hub:depth=3", "needs a path"),
        ("checkpoint:a.pt,temperature=1", "unknown option 'temperature'"),
    ],
)
def test_bad_specs_say_what_is_accepted(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        parse_spec(spec)
    if "kind" in message or message == "non-empty":
        for usage in ("random", "alphabeta:depth=N|nodes=N|time=S", "hub:PATH", "checkpoint:PATH"):
            assert usage in str(error.value)
    if message.startswith("unknown option") and "alphabeta" in spec:
        assert "depth, nodes, time" in str(error.value)


INSTALLED = {
    "random": _installed("damas_agents.players.classic"),
    "greedy": _installed("damas_agents.players.classic"),
    "alphabeta:depth=1": _installed("damas_agents.players.classic"),
    "alphabeta:nodes=500,time=0.05": _installed("damas_agents.players.classic"),
    "mcts:sims=4": _installed("damas_agents.players.tree"),
    "openspiel-mcts:sims=4": _installed("damas_agents.players.external", "pyspiel"),
}


@pytest.mark.parametrize("spec", INSTALLED)
def test_make_agent_builds_each_installed_kind_and_it_plays(spec: str) -> None:
    if not INSTALLED[spec]:
        pytest.skip(f"{spec}: its module or engine is not installed")
    agent = make_agent(spec, seed=7)
    assert isinstance(agent, Agent) and agent.name.startswith(spec.split(":")[0])
    env = draughts_v0.env("english")
    env.reset()
    agent.reset()
    action = play_hop(agent, env)
    assert action in env.unwrapped.legal_actions()


@pytest.mark.skipif(not _has_dame_rs(), reason="dame-rs is not installed")
def test_make_agent_builds_dame() -> None:
    agent = make_agent("dame:depth=2")
    env = draughts_v0.env("international")
    env.reset()
    assert play_hop(agent, env) in env.unwrapped.legal_actions()


@pytest.mark.skipif(
    not _installed("damas_agents.players.external"), reason="no damas_agents.players.external"
)
def test_hub_needs_an_existing_engine() -> None:
    with pytest.raises(FileNotFoundError):
        make_agent("hub:/no/such/engine,depth=2")
    engine = shutil.which("dame") if _has_dame_rs() else None
    if engine:  # building the agent starts the engine and completes the handshake
        assert make_agent(f"hub:{engine},depth=2").name == "hub:dame"


def test_checkpoint_spec_reaches_load_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    import damas_agents.players.load

    loaded: list[tuple] = []

    def load_agent(path: str, seed: int | None = None, sims: int = 0) -> str:
        loaded.append((path, seed, sims))
        return "the agent"

    monkeypatch.setattr(damas_agents.players.load, "load_agent", load_agent)
    assert make_agent("checkpoint:runs/x.pt", seed=3) == "the agent"
    assert make_agent("checkpoint:runs/y.pt,sims=8") == "the agent"
    assert loaded == [("runs/x.pt", 3, 0), ("runs/y.pt", None, 8)]


def test_the_seed_reaches_seeded_agents() -> None:
    if not _installed("damas_agents.players.tree"):
        pytest.skip("damas_agents.players.tree not installed")
    assert make_agent("mcts:sims=3", seed=11).seed == 11  # type: ignore[attr-defined]
    assert {k for k, kind in KINDS.items() if not kind.seeded} == {"dame", "hub"}


@pytest.mark.parametrize(
    "spec, message",
    [
        ("mcts:sims=1000000000000", "sims .* must be an integer from 1 to 100000"),
        ("alphabeta:depth=99999999999999999999999", "depth .* must be an integer from 1 to 64"),
        ("alphabeta:nodes=10000000000", "nodes .* must be an integer from 1 to 1000000000"),
        ("alphabeta:time=1e400", "time .* must be a finite number, not 1e400"),
        ("alphabeta:time=1e308", "time .* from 0.001 to 3600"),
        ("alphabeta:time=nan", "time .* must be a number from 0.001 to 3600"),
        ("mcts:sims=2,c=1e999", "c .* must be a finite number"),
        ("mcts:sims=2,c=1000", "c .* from 0.001 to 100"),
        ("mcts:sims=\u0663", "sims .* must be an integer"),
        ("alphabeta:depth=\u0661", "depth .* must be an integer"),
        ("mcts:sims=\uff13", "sims .* must be an integer"),
        ("openspiel-mcts:sims=100001", "sims .* from 1 to 100000"),
        ("dame:depth=65", "depth .* from 1 to 64"),
        ("checkpoint:x.pt,sims=100001", "sims .* from 1 to 100000"),
        ("hub:scan,level=1e999", "level .* must be a finite number"),
        # A Hub engine's budgets are bounded as every other agent's.
        ("hub:yes,init_timeout=1e300", "init_timeout .* a number from 0.001 to 3600, not 1e\\+300"),
        ("hub:scan,time=-3", "time .* a number from 0.001 to 3600, not -3"),
        ("hub:scan,depth=-5", "depth .* an integer from 1 to 64, not -5"),
        ("hub:scan,depth=abc", "depth .* an integer from 1 to 64, not 'abc'"),
        ("hub:scan,depth=2.5", "depth .* an integer from 1 to 64, not 2.5"),
        ("hub:scan,timeout=0", "timeout .* a number from 0.001 to 3600, not 0"),
        ("hub:scan,timeout=true", "timeout .* a number from 0.001 to 3600, not True"),
        ("hub:scan,init_timeout=nan", "init_timeout .* a number from 0.001 to 3600, not 'nan'"),
        # A float budget has a least value: a denormal number of seconds means no time.
        ("alphabeta:time=5e-324", "time .* a number from 0.001 to 3600, not 5e-324"),
        ("checkpoint:x.pt,time=0.0009", "time .* a number from 0.001 to 3600, not 0.0009"),
        ("pretrained:english,time=1e-300", "time .* a number from 0.001 to 3600"),
        ("hub:scan,time=5e-324", "time .* a number from 0.001 to 3600, not 5e-324"),
        ("mcts:sims=2,c=5e-324", "c .* a number from 0.001 to 100, not 5e-324"),
        ("alphabeta:depth=" + "9" * 5000, "longer than 4096 characters"),
        ("alphabeta:depth=" + "9" * 4000, "must be an integer from 1 to 64"),
    ],
)
def test_budgets_are_bounded_finite_and_ascii(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        parse_spec(spec)
    assert len(str(error.value)) < 400  # the spec is quoted briefly


def test_budgets_at_their_bounds_are_accepted() -> None:
    assert parse_spec("alphabeta:depth=64,nodes=1000000000,time=3600") == (
        "alphabeta",
        {"depth": 64, "nodes": 10**9, "time": 3600.0},
    )
    assert parse_spec("mcts:sims=100000,c=100") == ("mcts", {"sims": 100_000, "c": 100.0})
    assert parse_spec("hub:scan,name=\u0663") == ("hub", {"path": "scan", "name": "\u0663"})
    assert parse_spec("alphabeta:time=0.001") == ("alphabeta", {"time": 0.001})
    assert parse_spec("mcts:sims=1,c=0.001") == ("mcts", {"sims": 1, "c": 0.001})
    hub = "hub:scan,depth=64,timeout=3600,init_timeout=0.001,threads=1"
    assert parse_spec(hub) == (
        "hub",
        {"path": "scan", "depth": 64, "timeout": 3600.0, "init_timeout": 0.001, "threads": 1},
    )
    assert parse_spec("hub:scan,time=1")[1]["time"] == 1.0  # an int given for seconds


def test_a_quadratic_regex_input_stays_fast() -> None:
    parse_spec("hub:scan,x=" + "1" * 4000 + "x")  # text, not a number: no backtracking blow-up


# --- Kinds that need PyTorch, without it --------------------------------------------------

NO_TORCH = """\
import sys
sys.modules["torch"] = None  # as if PyTorch were not installed
from damas_agents.arena.cli import main
for spec in ("pretrained:english", "checkpoint:runs/x.pt,sims=2"):
    print("status", main(["--variant", "english", "--agents", spec, "random", "--no-progress"]))
print("torch imported:", sys.modules["torch"] is not None)
"""


def test_torch_agents_without_torch_name_the_extra_in_one_line(tmp_path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", NO_TORCH], capture_output=True, text=True, timeout=600, cwd=tmp_path
    )
    assert run.stdout.splitlines() == ["status 2", "status 2", "torch imported: False"], run
    lines = run.stderr.splitlines()
    assert lines == [
        "damas arena: error: agent 'pretrained:english' needs PyTorch, which is not installed: "
        "pip install 'damas-env[train]'",
        "damas arena: error: agent 'checkpoint:runs/x.pt,sims=2' needs PyTorch, which is not "
        "installed: pip install 'damas-env[train]'",
    ], run.stderr


def test_make_agent_checks_torch_before_importing_its_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(importlib, "import_module", pytest.fail)  # nothing is imported
    for spec in ("pretrained:international,depth=2", "checkpoint:a.pt"):
        with pytest.raises(MissingExtraError, match=r"needs PyTorch.*damas-env\[train\]"):
            make_agent(spec)
    assert {name for name, kind in KINDS.items() if kind.needs} == {"checkpoint", "pretrained"}
