"""The notebooks in notebooks/ run top to bottom: each is executed in a fresh kernel.

Each takes seconds to under a minute once the numba kernels are cached (about a minute more
on a cold cache; 03 about a minute and a half, as it trains a cut-down quickstart run), so
they run in the default suite. Skipped when nbclient/nbformat/ipykernel or matplotlib are not
installed (the dev extra has them).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("0[1-4]_*.ipynb"))
SELFPLAY = NOTEBOOKS[2]


def test_notebooks_are_found() -> None:
    assert [p.name for p in NOTEBOOKS] == [
        "01_rules_tour.ipynb",
        "02_variants.ipynb",
        "03_selfplay.ipynb",
        "04_benchmark_agents.ipynb",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_outputs_are_cleared(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name}: outputs left"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=300,
        startup_timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out.output_type == "error"
    ]
    assert not errors


# --- The figures show what they draw ---------------------------------------------------------


def _code_cell(path: Path, start: str) -> str:
    """Returns the source of the notebook's code cell that begins with `start`."""
    cells = nbformat.read(path, as_version=4).cells
    (source,) = [c.source for c in cells if c.cell_type == "code" and c.source.startswith(start)]
    return str(source)


def _history(iterations: int, every: int, opponents: tuple[str, ...]) -> list[dict[str, float]]:
    """Returns a run's history in which every opponent scores the same, 0 first and 1 last:
    the points of the curves would hide each other, or sit on an axis's edge."""
    history = []
    for i in range(1, iterations + 1):
        metrics = {"iteration": float(i)}
        if i >= 3:  # the replay buffer fills first
            metrics |= {"loss/total": 2.0, "loss/policy": 1.7, "loss/value": 0.3}
            metrics |= {"game_length": 40.0 + i}
        if i % every == 0:
            score = min(1.0, (i // every - 1) / 2)
            for opponent in opponents:
                low, high = max(0.0, score - 0.2), min(1.0, score + 0.2)
                metrics |= {f"eval/{opponent}/{k}": v for k, v in [("score", score),
                            ("score_low", low), ("score_high", high)]}  # fmt: skip
        history.append(metrics)
    return history


def _series(ax: Any) -> list[Any]:
    """Returns the data lines of a plot: its lines and its error bars' points, without the
    error bars' caps or the reference lines across the axes."""
    caps = {id(cap) for container in ax.containers for cap in container.lines[1]}
    lines = ax.get_lines()
    return [line for line in lines if line.get_transform() == ax.transData and id(line) not in caps]


def _points(line: Any) -> Any:
    """Returns a line's finite points in pixels."""
    import numpy as np

    xy = line.get_xydata()
    return line.get_transform().transform(xy[np.isfinite(xy).all(axis=1)])


@pytest.mark.parametrize(("iterations", "every"), [(10, 2), (30, 10)], ids=["cut-down", "full"])
def test_selfplay_curve_shows_every_series(iterations: int, every: int) -> None:
    """Notebook 03's learning curve shows each series whole: inside its axes, in its own
    colour, named in the legend where a panel has several, and apart from the others where
    the opponents score the same."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    opponents = ("random", "greedy")
    config = SimpleNamespace(
        eval=SimpleNamespace(opponents=opponents, every=every, games=20),
        train=SimpleNamespace(iterations=iterations),
    )
    result = SimpleNamespace(history=_history(iterations, every, opponents))
    cell = _code_cell(SELFPLAY, "history = result.history")
    scope: dict[str, Any] = {"plt": plt, "config": config, "result": result}
    exec(compile(cell, SELFPLAY.name, "exec"), scope)
    fig = scope["fig"]
    fig.canvas.draw()
    for ax in fig.axes:
        series = _series(ax)
        box = ax.get_window_extent()
        for line in series:
            r = (line.get_markersize() / 2 + line.get_markeredgewidth()) * fig.dpi / 72
            points = _points(line)
            assert len(points), (ax.get_title(), line.get_label())
            assert (points[:, 0] >= box.x0 + r).all() and (points[:, 0] <= box.x1 - r).all()
            assert (points[:, 1] >= box.y0 + r).all() and (points[:, 1] <= box.y1 - r).all()
        assert len({to_hex(line.get_color()) for line in series}) == len(series), ax.get_title()
        if len(series) > 1:
            labels = ax.get_legend_handles_labels()[1]
            assert ax.get_legend() is not None and len(labels) == len(series), ax.get_title()
    score = fig.axes[1]
    (first, second) = [_points(line) for line in _series(score)]
    r = _series(score)[0].get_markersize() * fig.dpi / 72
    assert (abs(first - second).max(axis=1) >= r).all(), "equal scores hide each other"
    plt.close(fig)
