"""Config: YAML loading, ``--set`` overrides, the YAML round trip and every error path."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from damas_agents.models.config import (
    CONFIGS_DIR,
    Config,
    ConfigError,
    EnvConfig,
    NetworkConfig,
    apply_overrides,
    config_from_dict,
    config_names,
    config_to_dict,
    config_to_yaml,
    fingerprint_mismatches,
    load_config,
    save_config,
)

EXAMPLE = """
name: quickstart
algorithm: alphazero
env:
  variant: english
  num_envs: 16
network: {channels: 16, blocks: 2, device: cpu}
train:
  lr: 3e-4          # YAML 1.2 float, which plain PyYAML reads as a string
  batch_size: 64
  weight_decay: 0   # an int where a float is expected
mcts: {simulations: 32, c_puct: 2}
eval: {every: 5, games: 10, opponents: [random, greedy]}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_example(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, EXAMPLE))
    assert config.name == "quickstart"
    assert config.network == NetworkConfig(channels=16, blocks=2, device="cpu")
    assert config.train.lr == pytest.approx(3e-4) and isinstance(config.train.lr, float)
    assert config.train.weight_decay == 0.0 and isinstance(config.train.weight_decay, float)
    assert config.mcts.c_puct == 2.0 and isinstance(config.mcts.c_puct, float)
    assert config.eval.opponents == ("random", "greedy")
    assert config.train.seed == 0  # defaults fill what the file leaves out
    assert config.env.ruleset().board_size == 8


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_empty_file_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match="the config is empty: it must be a mapping"):
        load_config(write(tmp_path, text))


def test_empty_mapping_is_the_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "{}")) == Config()


def test_sections_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Config().train.lr = 1.0  # type: ignore[misc]


def test_every_field_has_a_docstring() -> None:
    import ast
    import inspect

    import damas_agents.models.config as module

    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.endswith("Config"):
            body = node.body
            for i, stmt in enumerate(body):
                if isinstance(stmt, ast.AnnAssign):
                    nxt = body[i + 1] if i + 1 < len(body) else None
                    assert isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant), (
                        f"{node.name}.{ast.unparse(stmt.target)} has no docstring"
                    )


def test_overrides() -> None:
    config = apply_overrides(
        Config(),
        [
            "train.lr=3e-4",
            "mcts.simulations=64",
            "train.max_grad_norm=2",
            "eval.opponents=[random, 'alphabeta:depth=3']",
            "env.rules.flying_kings=true",
            "name=2024",
            "network.device=cpu",
        ],
    )
    assert config.train.lr == pytest.approx(3e-4)
    assert config.mcts.simulations == 64
    assert config.train.max_grad_norm == 2.0 and isinstance(config.train.max_grad_norm, float)
    assert config.eval.opponents == ("random", "alphabeta:depth=3")
    assert config.env.ruleset().flying_kings is True
    assert config.name == "2024"
    assert config.network.device == "cpu"
    assert Config().train.lr == 1e-3  # the original is untouched


def test_overrides_replace_a_whole_section() -> None:
    config = apply_overrides(Config(), ["network={channels: 8, blocks: 1}"])
    assert config.network == NetworkConfig(channels=8, blocks=1)


def test_round_trip(tmp_path: Path) -> None:
    config = apply_overrides(
        load_config(write(tmp_path, EXAMPLE)), ["env.rules.no_progress_plies=60"]
    )
    assert config_from_dict(config_to_dict(config)) == config
    assert config_from_dict(yaml.safe_load(config_to_yaml(config))) == config
    save_config(config, tmp_path / "saved.yaml")
    assert load_config(tmp_path / "saved.yaml") == config


def test_to_dict_is_plain() -> None:
    d = config_to_dict(Config())
    assert isinstance(d["eval"]["opponents"], list)
    assert d["network"]["channels"] == 64


def test_fingerprint() -> None:
    base = Config()
    same = apply_overrides(base, ["train.lr=1e-2", "mcts.simulations=8", "network.device=cpu"])
    assert fingerprint_mismatches(base.fingerprint(), same.fingerprint()) == []
    other = apply_overrides(base, ["network.channels=32", "env.variant=international"])
    lines = fingerprint_mismatches(base.fingerprint(), other.fingerprint())
    assert any(
        line.startswith("network.channels: checkpoint has 64, config has 32") for line in lines
    )
    assert any(line.startswith("rules.board_size:") for line in lines)
    overridden = apply_overrides(base, ["env.rules.flying_kings=true"])
    assert fingerprint_mismatches(base.fingerprint(), overridden.fingerprint()) == [
        "rules.flying_kings: checkpoint has False, config has True"
    ]


def test_fingerprint_is_yaml_ready() -> None:
    fingerprint = Config().fingerprint()
    assert yaml.safe_load(yaml.safe_dump(fingerprint)) == fingerprint


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("train: {lr: fast}", "train.lr must be float, not 'fast'"),
        ("train: {lr: true}", "train.lr must be float, not True"),
        ("train: {batch_size: 1.5}", "train.batch_size must be int, not 1.5"),
        ("train: {batch_size: 0}", "train.batch_size must be > 0, not 0"),
        ("train: {seed: -1}", "train.seed must be >= 0, not -1"),
        ("train: {lrr: 0.1}", "unknown key 'train.lrr' (did you mean 'lr'?)"),
        ("trian: {lr: 0.1}", "unknown key 'trian' (did you mean 'train'?)"),
        ("train: 3", "train must be a mapping of keys to values, not 3"),
        ("[1, 2]", "the config must be a mapping of keys to values"),
        ("name: [a]", "name must be str, not ['a']"),
        ("algorithm: dqn", "algorithm must be one of 'alphazero', 'ppo', 'nnue', not 'dqn'"),
        ("network: {device: tpu}", "network.device must be one of 'auto', 'cpu', 'cuda'"),
        ("network: {norm: layer}", "network.norm must be one of 'batch', 'group'"),
        ("mcts: {dirichlet_fraction: 1.5}", "mcts.dirichlet_fraction must be in [0, 1]"),
        ("eval: {opponents: random}", "eval.opponents must be a list of str, not 'random'"),
        ("eval: {opponents: [random, 3]}", "eval.opponents[1] must be str, not 3"),
        ("env: {rules: [1]}", "env.rules must be a mapping"),
        ("env: {variant: chequers}", "env.variant: unknown variant 'chequers'"),
        ("env: {rules: {flying: true}}", "unknown key 'env.rules.flying'"),
        ("env: {rules: {board_size: 9}}", "env.rules: ruleset 'english': board_size must be"),
        ("train: {lr: [", "not valid YAML"),
    ],
)
def test_file_errors_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert message in str(error.value)
    assert str(path) in str(error.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("train.lr=fast", "--set 'train.lr=fast': train.lr must be float, not 'fast'"),
        ("train.lrr=1", "unknown key 'train.lrr'"),
        ("nope.lr=1", "unknown key 'nope'"),
        ("train.lr.x=1", "train.lr is a value, not a section"),
        ("train.lr", "must look like section.key=value"),
        ("=3", "must look like section.key=value"),
        ("train..lr=3", "must look like section.key=value"),
        ("mcts.simulations=-4", "mcts.simulations must be > 0, not -4"),
        ("network.device=tpu", "network.device must be one of"),
        ("env.rules.flying_kings=maybe", "env.rules: ruleset 'english': flying_kings must be"),
        ("env.rules.kings=1", "unknown key 'env.rules.kings'"),
        ("env.variant=nope", "env.variant: unknown variant 'nope'"),
        ("eval.opponents=[random", "not valid YAML"),
        ("train.lr=20", "train.lr must be from 1e-10 to 10.0, not 20.0"),  # a checkpoint refuses it
        ("train.weight_decay=1e30", "train.weight_decay must be at most 10.0"),
    ],
)
def test_override_errors_name_the_key(override: str, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        apply_overrides(Config(), [override])
    assert message in str(error.value)
    assert f"--set {override!r}" in str(error.value)


def test_env_ruleset_applies_overrides() -> None:
    rules = EnvConfig(variant="international", rules={"flying_kings": False}).ruleset()
    assert rules.board_size == 10 and rules.flying_kings is False


def test_colour_names_may_be_a_yaml_list(tmp_path: Path) -> None:
    """YAML has no tuples: a list of two names is the ruleset's pair, and survives a round trip."""
    config = apply_overrides(Config(), ["env.rules={colour_names: [red, white]}"])
    assert config.env.ruleset().colour_names == ("red", "white")
    save_config(config, tmp_path / "c.yaml")
    assert load_config(tmp_path / "c.yaml").env.ruleset() == config.env.ruleset()
    with pytest.raises(ConfigError, match="colour_names"):
        apply_overrides(Config(), ["env.rules.colour_names=[red, white, blue]"])


# --- Bundled configs, by name -----------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


def test_the_configs_folder_is_the_bundled_one() -> None:
    """``configs/`` is the package's folder (``damas_agents.configs``): the wheel ships it."""
    assert (ROOT / "configs").resolve() == CONFIGS_DIR.resolve()
    assert config_names() == sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))
    assert "quickstart" in config_names()


@pytest.mark.parametrize("name", config_names())
def test_a_bundled_config_loads_by_name_as_by_path(name: str) -> None:
    assert load_config(name) == load_config(ROOT / "configs" / f"{name}.yaml")


def test_a_near_name_gets_a_did_you_mean() -> None:
    with pytest.raises(ConfigError) as error:
        load_config("quickstar")
    message = str(error.value)
    assert message.startswith("no config file or bundled config 'quickstar'")
    assert "(did you mean 'quickstart'?)" in message
    assert f"bundled configs: {', '.join(config_names())}" in message
    with pytest.raises(ConfigError, match="did you mean 'ppo_english'"):
        load_config("PPO_English")


@pytest.mark.parametrize(
    "name", ["passwd", "rules", "website_checkers", "..", "x" * 500, "a\0b", ""]
)
def test_a_name_opens_only_a_bundled_config(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bare word is looked up in the listing of the bundled configs, never opened: not the
    rules presets beside them, not a file elsewhere."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="no config file or bundled config"):
        load_config(name)


def test_a_path_is_still_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file in the working directory wins over a bundled name; a folder does not; a word with
    a .yaml suffix or a folder in it is a path."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quickstart").write_text("name: mine\n")
    assert load_config("quickstart").name == "mine"
    (tmp_path / "quickstart").unlink()
    (tmp_path / "quickstart").mkdir()
    assert load_config("quickstart").name == "quickstart"
    for path in ("quickstart.yaml", "quickstart.YML", "./quickstart", "sub/quickstart"):
        with pytest.raises(ConfigError, match="cannot read config"):
            load_config(path)


@pytest.mark.parametrize(
    ("name", "overrides", "expected"),
    [
        ("nnue_english", ["env.variant=frisian"], "nnue-frisian"),
        ("alphazero_english", ["env.variant=international"], "alphazero_international"),
        ("quickstart", ["env.variant=italian"], "quickstart-italian"),
        ("quickstart", ["env.variant=frysk!"], "quickstart-frysk"),  # a run name has no '!'
        ("quickstart", ["env.variant=english"], "quickstart"),
        ("quickstart", ["train.lr=1e-3"], "quickstart"),
        ("nnue_english", ["env.variant=frisian", "name=mine"], "mine"),
        ("nnue_english", ["name=my-english", "env.variant=frisian"], "my-english"),
    ],
)
def test_a_variant_override_renames_the_run(name: str, overrides: list, expected: str) -> None:
    """The run (and its directory, runs/<name>-<time>/) is named after the variant it plays,
    unless the name is set too."""
    assert apply_overrides(load_config(name), overrides).name == expected


def test_a_missing_configs_path_names_the_bundled_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside the source tree ``configs/quickstart.yaml`` is no file: the error says to give
    the bundled config's name."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as error:
        load_config("configs/quickstart.yaml")
    assert str(error.value) == (
        "cannot read config 'configs/quickstart.yaml': No such file or directory; "
        "the bundled config of that name is 'quickstart' (give the name alone)"
    )
    with pytest.raises(ConfigError, match="No such file or directory$"):
        load_config("configs/mine.yaml")
