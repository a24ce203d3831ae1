"""A regular install: the wheel built from this checkout, installed in a fresh venv, run from
outside the checkout.

The wheel must carry what an editable install reads from the checkout: the rules presets
(``damas_env/presets``) and the training configs (the top-level ``configs/``, installed as
``damas_agents/configs``). The agents install under their own import name, ``damas_agents``
(the checkout's ``agents/damas_agents/`` folder), so no top-level ``agents`` package collides
with another distribution's (the OpenAI Agents SDK installs one). The checkout holds no
symlink, and every package folder is in the wheel.

The fresh venv reuses this environment's installed dependencies (numpy, numba, torch...)
through a ``.pth`` file that lists their folders, so nothing is downloaded. A ``.pth`` line
that names a folder only adds it to ``sys.path``: the ``.pth`` files in that folder, among
them the editable install's import hook, are not run, so ``damas_env`` and ``damas_agents`` come
from the wheel. The wheel is installed before that line is written, so pip sees no other
``damas-env`` and leaves this environment alone. The build runs in a copy of the sources,
so it writes nothing into the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ["international_land_behind", "website_checkers", "english_adjudicated"]
CONFIGS = sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))
#: A hang guard, not a speed claim: a fresh install compiles every kernel it runs, which
#: takes minutes on a busy 2-core machine (benchmarks/cold_start.py measures it).
HANG = 3600
NOT_BUILT = {"build", "dist", "runs", "tests", "notebooks", "benchmarks", "examples"}


def _not_sources(folder: str, names: list[str]) -> set[str]:
    """Returns the names copytree skips: caches, the venv, and top-level folders not built."""
    top = Path(folder) == ROOT
    return {
        n
        for n in names
        if n.startswith(".")
        or n == "__pycache__"
        or n.endswith(".egg-info")
        or (top and n in NOT_BUILT)
    }


@dataclass(frozen=True)
class Install:
    """The built wheel and the venv it is installed in."""

    wheel: Path
    build_log: str
    venv: Path
    workdir: Path  # outside the checkout: no ``damas_env`` folder to import by accident

    def python(self, code: str) -> str:
        """Returns the stdout of `code` run by the venv's Python in the work folder."""
        return self.run([str(self.venv / "bin" / "python"), "-c", code]).stdout

    def damas(self, *args: str, status: int = 0) -> subprocess.CompletedProcess[str]:
        """Returns the run of the venv's ``damas`` command, checking its exit status."""
        result = self.run([str(self.venv / "bin" / "damas"), *args])
        assert result.returncode == status, result.stderr
        return result

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        result = subprocess.run(
            argv, cwd=self.workdir, env=env, capture_output=True, text=True, timeout=HANG
        )
        if argv[1:2] == ["-c"]:
            assert result.returncode == 0, result.stderr
        return result


def _setuptools_builds_here() -> bool:
    """Returns whether this environment's setuptools can build the wheel without a download."""
    try:
        return int(metadata.version("setuptools").split(".")[0]) >= 77
    except metadata.PackageNotFoundError:
        return False


def _build_wheel(tmp: Path) -> tuple[Path, str]:
    """Returns the wheel built from a copy of the sources, and pip's verbose log."""
    shutil.copytree(ROOT, tmp / "src", symlinks=True, ignore=_not_sources)
    isolation = ["--no-build-isolation"] if _setuptools_builds_here() else []
    argv = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", *isolation]
    log = subprocess.run(
        [*argv, "-w", str(tmp / "wheels"), str(tmp / "src")],
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG,
    ).stdout
    (wheel,) = (tmp / "wheels").glob("damas_env-*.whl")
    return wheel, log


def _venv_with_wheel(tmp: Path, wheel: Path) -> Path:
    """Returns a fresh venv with the wheel installed, seeing this environment's dependencies."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index"]
    subprocess.run([*pip, "--no-deps", str(wheel)], capture_output=True, check=True, timeout=HANG)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    deps = [p for p in sys.path if p in ours or p.endswith(("site-packages", "dist-packages"))]
    Path(purelib, "_damas_test_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    return venv


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    if sys.platform == "win32":
        pytest.skip("the venv layout (bin/) is POSIX")
    tmp = tmp_path_factory.mktemp("packaging")
    wheel, log = _build_wheel(tmp)
    venv = _venv_with_wheel(tmp, wheel)
    (tmp / "work").mkdir()
    return Install(wheel, log, venv, tmp / "work")


def test_the_wheel_carries_the_presets_and_the_configs(install: Install) -> None:
    names = set(zipfile.ZipFile(install.wheel).namelist())
    assert {f"damas_env/presets/{seed}.yaml" for seed in SEEDS} <= names
    assert {f"damas_agents/configs/{name}.yaml" for name in CONFIGS} <= names
    assert {"damas_env/py.typed", "damas_agents/py.typed"} <= names


def test_the_wheel_carries_every_package_folder(install: Install) -> None:
    """Every folder of the sources with an ``__init__.py`` is a package of the wheel (the
    package list in ``pyproject.toml`` is written out, so a new subpackage must be added)."""
    names = set(zipfile.ZipFile(install.wheel).namelist())
    folders = {
        "damas_env": ROOT / "damas_env",
        "damas_agents": ROOT / "agents" / "damas_agents",
        "damas_agents/configs": ROOT / "configs",
    }
    for top, folder in folders.items():
        for init in folder.rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                assert f"{top}/{init.relative_to(folder).as_posix()}" in names


def test_the_checkout_holds_no_symlink() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True, timeout=3600
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    links = [
        line.split("\t")[1] for line in listed.stdout.splitlines() if line.startswith("120000")
    ]
    assert links == []


def test_the_wheel_installs_no_top_level_agents_package(install: Install) -> None:
    tops = {name.split("/")[0] for name in zipfile.ZipFile(install.wheel).namelist()}
    assert {"damas_env", "damas_agents"} <= tops
    assert "agents" not in tops
    found = install.python("import importlib.util as u; print(u.find_spec('agents'))")
    assert found.strip() == "None"


def test_the_build_has_no_license_deprecation(install: Install) -> None:
    """``license = "MIT"`` (PEP 639), not the deprecated TOML table."""
    metadata_name = next(n for n in zipfile.ZipFile(install.wheel).namelist() if "METADATA" in n)
    text = zipfile.ZipFile(install.wheel).read(metadata_name).decode()
    assert "License-Expression: MIT" in text.splitlines()
    assert "License-File: LICENSE" in text.splitlines()
    names = zipfile.ZipFile(install.wheel).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    assert "project.license` as a TOML table is deprecated" not in install.build_log


def test_the_installed_packages_are_the_wheel_not_the_checkout(install: Install) -> None:
    files = install.python(
        "import damas_agents, damas_env; print(damas_env.__file__, damas_agents.__file__)"
    )
    for file in map(Path, files.split()):
        assert file.is_relative_to(install.venv), file
        assert not file.is_relative_to(ROOT), file


def test_the_seed_presets_work_from_the_wheel(install: Install) -> None:
    code = "from damas_env.rules import get_ruleset; print(get_ruleset(%r).name)"
    assert install.python(code % "website_checkers").strip() == "website_checkers"
    listed = json.loads(install.damas("variants", "--json").stdout)["variants"]
    assert set(SEEDS) <= set(listed)
    shown = install.damas("show", "--variant", "international_land_behind", "--json").stdout
    assert json.loads(shown)


def test_a_bundled_config_loads_by_name_from_the_wheel(install: Install) -> None:
    code = (
        "from damas_agents.models.config import config_names, load_config\n"
        "print(config_names(), load_config('quickstart').name)"
    )
    assert install.python(code).strip() == f"{CONFIGS} quickstart"
    error = install.damas("train", "quickstar", status=2).stderr
    assert "did you mean 'quickstart'?" in error and "bundled configs: " in error


def test_a_bundled_config_trains_from_the_wheel(install: Install) -> None:
    """The main job's command, by config name, outside the checkout (one small iteration)."""
    small = [
        "train.iterations=1",
        "env.num_envs=4",
        "mcts.simulations=4",
        "mcts.steps_per_iteration=2",
        "train.updates_per_iteration=1",
        "eval.games=2",
        "eval.every=1",
    ]
    out = install.workdir / "runs" / "wheel-quickstart"
    result = install.damas(
        "train", "quickstart", "--no-progress", "--out", str(out), "--set", *small
    )
    assert "done: 1 iteration in" in result.stdout
    assert (out / "checkpoints" / "latest.pt").is_file()
    assert f"damas play --variant english --opponent checkpoint:{out}" in result.stdout


def test_the_pretrained_agent_ships_in_the_wheel(install: Install) -> None:
    assert (ROOT / "agents" / "damas_agents" / "pretrained" / "english-v1.pt").is_file()
    code = "from damas_agents.players.load import pretrained_path as p; print(p('english'))"
    path = Path(install.python(code).strip())
    assert path.is_file() and path.is_relative_to(install.venv)


def test_the_rating_pools_load_from_the_wheel(install: Install) -> None:
    """The pools are package data: read from the installed wheel, by name."""
    code = (
        "from damas_agents.rating import available_pools, load_pool\n"
        "print(' '.join(available_pools()))\n"
        "pool = load_pool('english')\n"
        "print(pool.anchor, len(pool.members), pool.ratings()['random'])\n"
        "import damas_agents.rating as r; print(r.__file__)"
    )
    names, about, module = install.python(code).strip().splitlines()
    assert {"english", "international"} <= set(names.split())
    anchor, members, elo = about.split()
    assert anchor == "random" and int(members) >= 10 and float(elo) == 0.0
    assert Path(module).is_relative_to(install.venv)


def test_the_web_page_ships_in_the_wheel(install: Install) -> None:
    """The browser board's page files are package data, served from the installed wheel."""
    code = "from damas_agents.web.server import STATIC; print(STATIC)"
    static = Path(install.python(code).strip())
    assert static.is_relative_to(install.venv)
    assert {p.name for p in static.iterdir()} >= {"index.html", "app.js", "style.css"}
