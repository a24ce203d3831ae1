"""The session shown on the ``damas hub`` page is what the server answers: its ``>`` lines are
sent to ``damas hub --variant english alphabeta`` and its ``<`` lines must come back, the
package's version aside."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "agents" / "hub.md"


def documented_session() -> tuple[list[str], list[str]]:
    """Returns the lines sent and the lines answered in the page's session block."""
    blocks = re.findall(r"```text\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)
    (block,) = [b for b in blocks if b.startswith("> hub\n")]
    lines = block.splitlines()
    assert all(line[:2] in ("> ", "< ") for line in lines), "each line is sent or answered"
    return [x[2:] for x in lines if x[0] == ">"], [x[2:] for x in lines if x[0] == "<"]


def without_version(line: str) -> str:
    return re.sub(r" version=\S+", " version=V", line)


def test_the_documented_session_is_what_the_server_answers() -> None:
    sent, answered = documented_session()
    out = subprocess.run(
        [sys.executable, "-m", "damas_agents.command", "hub", "--variant", "english", "alphabeta"],
        input="".join(line + "\n" for line in sent),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    got = [without_version(line) for line in out.stdout.splitlines()]
    assert got == [without_version(line) for line in answered], out.stderr
