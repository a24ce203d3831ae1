"""The rating scale does not move: each pool member plays the moves it played when its pool
was fitted (its search pinned to a version, its moves hashed beside the pool), and the
rating page's example output is what the command prints."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from damas_agents.players.make import make_agent
from damas_agents.rating import PoolError, available_pools, load_pool
from damas_agents.rating import fingerprint as fp
from damas_agents.rating import pool as pool_module
from damas_agents.rating.rate import main as rate_main
from damas_agents.search import alphabeta
from damas_agents.search.alphabeta import SEARCH_VERSIONS, Searcher, search_plan
from damas_env import Position

ROOT = Path(__file__).resolve().parents[1]
POOLS = ROOT / "agents" / "damas_agents" / "rating" / "pools"
RATING_PAGE = ROOT / "docs" / "agents" / "rating.md"


@pytest.mark.parametrize("variant", available_pools())
def test_every_pool_member_plays_the_moves_it_played_when_the_pool_was_fitted(
    variant: str,
) -> None:
    moves = fp.load_moves(variant)
    assert len(moves.positions) == fp.POSITIONS
    changed = moves.changed_members()
    assert not changed, (
        f"{changed} now play other moves than in the {variant} pool's round robin: restore "
        "their play (an older search version is frozen: add a new one instead of editing it), "
        "or ship a new pool version (benchmarks/rating_pool.py --version vN)"
    )


def test_a_member_whose_search_changed_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = "alphabeta:depth=6,search=1"
    shipped = fp.load_moves("english")
    moves = fp.PoolMoves("english", "v1", shipped.positions, {spec: shipped.digests[spec]})
    assert moves.changed_members() == []
    monkeypatch.setitem(alphabeta.SEARCH_VERSIONS, 1, SEARCH_VERSIONS[2])  # an edited version
    assert moves.changed_members() == [spec]


def test_search_versions_play_differently_and_the_first_is_the_pool_fits() -> None:
    position = Position.start("english")
    versions = sorted(SEARCH_VERSIONS)
    nodes = [Searcher(position.rules, 16, search=v).search(position, 8).nodes for v in versions]
    assert len(set(nodes)) == len(versions), dict(zip(versions, nodes, strict=True))
    assert make_agent("alphabeta:depth=3,search=1").name == "alphabeta:depth=3,search=1"
    assert make_agent("alphabeta:depth=3").search_version == max(SEARCH_VERSIONS)


@pytest.mark.parametrize("version", [0, max(SEARCH_VERSIONS) + 1, True, 1.0, "1", None])
def test_a_search_version_that_does_not_exist_is_refused(version: object) -> None:
    with pytest.raises(ValueError, match="search version"):
        search_plan(version)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spec",
    [
        f"alphabeta:depth=2,search={max(SEARCH_VERSIONS) + 1}",
        "alphabeta:depth=2,search=0",
        "pretrained:english,search=99",
    ],
)
def test_a_spec_with_an_unknown_search_version_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match="search"):
        make_agent(spec)


def _pool_data(variant: str) -> dict:
    return json.loads((POOLS / f"{variant}-v1.json").read_text())


def test_a_pool_member_must_pin_its_search_version() -> None:
    data = _pool_data("english")
    pinned = "alphabeta:depth=4,search=1"
    for member in data["members"]:
        if member["spec"] == pinned:
            member["spec"] = "alphabeta:depth=4"
    data["results"] = [r for r in data["results"] if pinned not in (r["a"], r["b"])]
    with pytest.raises(ValueError, match="does not name its search version"):
        pool_module._parse(data, "english", "v1")


def test_every_shipped_pool_has_its_moves_and_they_are_written_once(tmp_path: Path) -> None:
    for variant in available_pools():
        assert set(fp.load_moves(variant).digests) == {m.spec for m in load_pool(variant).members}
    (tmp_path / "english-v1.moves.json").write_text("{}")
    with pytest.raises(FileExistsError, match="written once"):
        fp.write_moves("english", "v1", tmp_path)


@pytest.mark.parametrize(
    "damage",
    [
        "not json",
        '{"variant": "english", "version": "v1", "positions": [], "members": {}}',
        '{"variant": "international", "version": "v1", "positions": ["x"], "members": {}}',
    ],
)
def test_a_damaged_moves_file_is_refused(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "english-v1.moves.json"
    file.write_text(damage)
    monkeypatch.setattr(fp, "_moves_file", lambda variant, version: file)
    with pytest.raises(PoolError, match="moves file"):
        fp.load_moves("english")


def _documented_runs() -> list[tuple[str, list[str]]]:
    """Returns each command of the rating page whose output the page shows: a ``damas rate``
    line in a bash block followed by "The first prints:" and a block of its output, and the
    inline ``damas rate ...`` runs quoted as "prints `...`"."""
    text = RATING_PAGE.read_text()
    runs = []
    block = re.search(
        r"```bash\n(damas rate [^\n]+)\n.*?```\n\nThe first prints:\n\n```\n(.*?)```", text, re.S
    )
    assert block, "the rating page's first example and its output"
    runs.append((block.group(1), block.group(2).splitlines()))
    for command, line in re.findall(r"`(damas rate [^`]+)` prints\s+`([^`]+)`", text):
        runs.append((command, [line]))
    return runs


@pytest.mark.parametrize("command, shown", _documented_runs())
def test_the_rating_page_shows_what_its_commands_print(
    command: str, shown: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = shlex.split(command)[2:]
    assert rate_main([*argv, "--no-progress"]) == 0
    printed = capsys.readouterr().out.splitlines()
    for line in shown:
        assert any(line.strip() in p for p in printed), (line, printed[:3])
