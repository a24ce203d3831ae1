"""Every Python code block in the README runs."""

import re
from pathlib import Path

import pytest

README = (Path(__file__).parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code: str) -> None:
    exec(compile(code, "README.md", "exec"), {})


def test_readme_has_blocks() -> None:
    assert len(BLOCKS) >= 3
