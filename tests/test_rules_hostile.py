"""Rulesets from hostile data: names never open files, limits are bounded.

A variant name arrives from PDN tags, checkpoints, configs and JSON; only a
``pathlib.Path`` passed by the caller (or ``load_ruleset_file``) reads a file.
File opens are watched with an audit hook (``sys.addaudithook``), which sees every
``open`` whatever module makes it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from damas_env.rules import (
    MAX_NO_PROGRESS_PLIES,
    MAX_PLY_LIMIT,
    MAX_REPETITION_COUNT,
    RULES_DIR,
    Ruleset,
    RulesetError,
    get_ruleset,
    load_ruleset_file,
    ruleset_names,
)

_OPENED: list[list[str]] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _OPENED and isinstance(args[0], (str, bytes, Path)):
        _OPENED[-1].append(str(args[0]))


sys.addaudithook(_audit)


@contextmanager
def opened_files() -> Iterator[list[str]]:
    """Yields the list of files opened inside the block (after the presets, which load once,
    at the first name looked up in the process)."""
    ruleset_names()
    _OPENED.append([])
    try:
        yield _OPENED[-1]
    finally:
        _OPENED.pop()


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.yaml"
    path.write_text("db_password: hunter2\n")
    return path


@pytest.mark.parametrize(
    "name",
    [
        "/etc/passwd",
        "../damas_env/presets/website_checkers.yaml",
        "damas_env/presets/website_checkers.yaml",
        "website_checkers.yaml",
        "../../etc/passwd",
        "..",
        "",
        "C:\\rules.yaml",
    ],
)
def test_a_string_never_opens_a_file(name: str) -> None:
    with opened_files() as opened, pytest.raises(RulesetError, match="unknown variant"):
        get_ruleset(name)
    assert opened == []


def test_a_secret_file_named_by_string_is_not_read(secret: Path) -> None:
    with opened_files() as opened, pytest.raises(RulesetError) as error:
        get_ruleset(str(secret))
    assert opened == []
    assert "hunter2" not in str(error.value) and "db_password" not in str(error.value)
    assert "pathlib.Path" in str(error.value)


def test_an_explicit_path_is_read_and_values_are_never_quoted(secret: Path) -> None:
    with pytest.raises(RulesetError, match="unknown rule switch") as error:
        get_ruleset(secret)
    assert "hunter2" not in str(error.value)


def test_yaml_errors_give_the_line_not_the_text(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("base: english\npassword: [hunter2\n")
    with pytest.raises(RulesetError, match=r"not valid YAML at line \d+") as error:
        load_ruleset_file(path)
    assert "hunter2" not in str(error.value)


@pytest.mark.parametrize(
    "text",
    [
        "base: english\nflying_kings: true\nflying_kings: false\n",
        "base: english\ncolour_names: [white, red]\nbase: russian\n",
        "base: english\n" + "9" * 5000 + ": 1\n",  # read as a 5000-digit int key
    ],
)
def test_a_rules_file_read_strictly_like_a_config(tmp_path: Path, text: str) -> None:
    """A key given twice is refused (YAML alone keeps the last value without a word), as a
    training config refuses it: one YAML reader for both."""
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    with pytest.raises(RulesetError, match=r"not valid YAML|rule switch"):
        load_ruleset_file(path)


def test_a_rules_file_names_the_key_given_twice(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text("base: english\nflying_kings: true\nflying_kings: false\n")
    with pytest.raises(RulesetError, match="line 3, column 1: key 'flying_kings' given twice"):
        load_ruleset_file(path)


def test_large_and_binary_files_are_refused_unread(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * 100_000)
    with pytest.raises(RulesetError, match="larger than"):
        load_ruleset_file(big)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RulesetError, match="not UTF-8"):
        load_ruleset_file(binary)


def test_non_mapping_and_non_string_keys_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "odd.yaml"
    for text in ("- 1\n- 2\n", "1: 2\n", "", "base: [english]\n"):
        path.write_text(text)
        with pytest.raises(RulesetError):
            load_ruleset_file(path)


def test_presets_resolve_by_name_only() -> None:
    assert get_ruleset("website_checkers").ply_limit == 200
    assert get_ruleset("WEBSITE_CHECKERS") == get_ruleset("website_checkers")
    assert get_ruleset(RULES_DIR / "website_checkers.yaml").ply_limit == 200


@pytest.mark.parametrize("variant", [12345, None, b"english", 1.5, ["english"]])
def test_wrong_variant_types_are_ruleset_errors(variant: object) -> None:
    with pytest.raises(RulesetError, match="variant must be a ruleset name"):
        get_ruleset(variant)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("switch", "most"),
    [
        ("repetition_count", MAX_REPETITION_COUNT),
        ("no_progress_plies", MAX_NO_PROGRESS_PLIES),
        ("ply_limit", MAX_PLY_LIMIT),
    ],
)
def test_draw_limits_are_bounded(switch: str, most: int) -> None:
    assert getattr(get_ruleset("international", **{switch: most}), switch) == most
    for value in (most + 1, 10**9, 10**30):
        with pytest.raises(RulesetError, match=f"{switch} must be at most {most}"):
            get_ruleset("international", **{switch: value})


def test_the_longest_no_progress_window_plays() -> None:
    from damas_env.game import Game

    game = Game(get_ruleset("english", no_progress_plies=MAX_NO_PROGRESS_PLIES))
    for move in ("11-15", "23-19", "8-11", "22-17"):
        game.push(move)
    assert game.outcome() is None


def test_unknown_constructor_switch_is_a_ruleset_error() -> None:
    with pytest.raises(RulesetError, match=r"unknown rule switch\(es\) \['bogus'\]"):
        Ruleset(bogus=1)  # type: ignore[call-arg]
    assert Ruleset(board_size=8, rows_per_side=3).squares == 32


def test_long_input_is_cut_in_messages() -> None:
    with pytest.raises(RulesetError) as error:
        get_ruleset("x" * 100_000)
    assert len(str(error.value)) < 2000


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_random_names_are_known_or_refused_without_opening_files(name: str) -> None:
    with opened_files() as opened:
        try:
            ruleset = get_ruleset(name)
        except RulesetError:
            return
    assert isinstance(ruleset, Ruleset)
    assert all(Path(p).resolve().parent == RULES_DIR.resolve() for p in opened)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(sorted(Ruleset.__dataclass_fields__)),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(min_value=-(10**40), max_value=10**40),
            st.floats(allow_nan=True),
            st.text(max_size=20),
            st.lists(st.text(max_size=5), max_size=3).map(tuple),
        ),
        max_size=4,
    )
)
def test_random_switches_are_valid_or_ruleset_errors(switches: dict) -> None:
    try:
        ruleset = get_ruleset("international", **switches)
    except RulesetError:
        return
    for key, most in (
        ("repetition_count", MAX_REPETITION_COUNT),
        ("no_progress_plies", MAX_NO_PROGRESS_PLIES),
        ("ply_limit", MAX_PLY_LIMIT),
    ):
        assert 0 <= getattr(ruleset, key) <= most


def test_presets_ship_in_the_package_and_load_once() -> None:
    assert (
        RULES_DIR.parent.name == "damas_env" and (RULES_DIR / "english_adjudicated.yaml").is_file()
    )
    get_ruleset("english_adjudicated")
    with opened_files() as opened:
        assert get_ruleset("international_land_behind").king_landing == "immediate"
        with pytest.raises(RulesetError):
            get_ruleset("seed999_nothing")
    assert opened == []


def test_non_ascii_names_are_not_case_folded() -> None:
    assert get_ruleset("CHECKERS").name == "english"
    with pytest.raises(RulesetError, match="unknown variant"):
        get_ruleset("chec\u212aers")  # KELVIN SIGN lower-cases to "k"


@pytest.mark.parametrize(
    "changes",
    [
        {"name": ""},
        {"name": "a\nb"},
        {"name": "x" * 65},
        {"colour_names": ("a\x1b[2J\nb", "c")},
        {"colour_names": ("", "c")},
    ],
)
def test_names_are_short_and_printable(changes: dict) -> None:
    with pytest.raises(RulesetError, match="printable"):
        get_ruleset("english", **changes)


def test_deep_nesting_and_bad_paths_are_ruleset_errors(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text("name: " + "[" * 20000 + "]" * 20000 + "\n")
    with pytest.raises(RulesetError, match="deep.yaml"):
        load_ruleset_file(deep)
    with pytest.raises(RulesetError, match="not a valid path"):
        load_ruleset_file("a\x00b")


def test_fifos_devices_and_folders_are_refused_at_once(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(RulesetError, match="not a regular file|Is a directory"):
            load_ruleset_file(path)
