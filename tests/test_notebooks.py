"""The notebooks in notebooks/ run top to bottom: each is executed in a fresh kernel.

Each takes seconds to under a minute once the numba kernels are cached (about a minute more
on a cold cache; 03 about a minute and a half, as it trains a cut-down quickstart run), so
they run in the default suite. Skipped when nbclient/nbformat/ipykernel or matplotlib are not
installed (the dev extra has them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("0[1-4]_*.ipynb"))


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
