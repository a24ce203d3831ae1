"""Rulesets: names, presets, YAML files and clear errors for bad input."""

from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from damas_env import Position, Ruleset, RulesetError, get_ruleset, ruleset_names
from damas_env import kernels as K
from damas_env.compiled_rules import R_PLY_LIMIT, rules_array
from damas_env.rules import RULES_DIR, load_ruleset_file

PRESETS = ["international_land_behind", "website_checkers", "english_adjudicated"]


@pytest.mark.parametrize("name", [n for n in ruleset_names()])
def test_every_name_loads(name: str) -> None:
    assert isinstance(get_ruleset(name), Ruleset)


def test_aliases_and_giveaway_forms() -> None:
    assert get_ruleset("american") == get_ruleset("checkers") == get_ruleset("english")
    for base in ["international", "brazilian", "english", "russian", "pool", "canadian"]:
        giveaway = get_ruleset(f"{base}_giveaway")
        assert giveaway.giveaway and replace(giveaway, giveaway=False, name=base) == get_ruleset(
            base
        )


def test_brazilian_is_international_on_8x8() -> None:
    assert get_ruleset("brazilian") == replace(
        get_ruleset("international"), name="brazilian", board_size=8, rows_per_side=3
    )


def test_land_behind_preset_differs_from_international_only_in_king_landing() -> None:
    preset = get_ruleset("international_land_behind")
    assert preset == replace(
        get_ruleset("international"), name=preset.name, king_landing="immediate"
    )


@pytest.mark.parametrize(
    ("former", "name"),
    [
        ("seed000_international", "international_land_behind"),
        ("seed002_website_checkers", "website_checkers"),
        ("SEED004_English", "english_adjudicated"),
    ],
)
def test_the_presets_former_names_are_read_but_not_listed(former: str, name: str) -> None:
    """Configs, checkpoints and game files written before the presets were renamed still
    load; the lists users see name each preset once, by its name."""
    assert get_ruleset(former) is get_ruleset(name)
    assert get_ruleset(former).name == name
    assert former.lower() not in ruleset_names() and name in ruleset_names()


def test_website_checkers_preset_switches() -> None:
    r = get_ruleset("website_checkers")
    assert (r.first_player, r.colour_names) == ("black", ("white", "red"))
    assert (r.no_progress_plies, r.progress) == (80, "capture_or_promotion")
    assert (r.ply_limit, r.ply_limit_result, r.capture_precedence) == (200, "draw", "free")
    assert not r.flying_kings and not r.men_capture_backward


def test_english_adjudicated_preset_switches() -> None:
    r = get_ruleset("english_adjudicated")
    assert r.first_player == "black" and r.ply_limit_result == "material" and r.ply_limit > 0
    assert r.promotion_in_capture == "ends_move" and not r.men_capture_backward


def adjudicated(board: np.ndarray) -> int:
    """Returns the Spanish text's verdict as its rule reads: more pieces wins; then more kings."""
    white, black = int((board > 0).sum()), int((board < 0).sum())
    if white == black:
        white, black = int((board == 2).sum()), int((board == -2).sum())
    return K.DRAW if white == black else K.WHITE_WINS if white > black else K.BLACK_WINS


@pytest.mark.parametrize("squares", [32, 72])
def test_english_adjudicated_counts_pieces_then_kings(squares: int) -> None:
    rules = rules_array(get_ruleset("english_adjudicated"))
    counters = np.array([rules[R_PLY_LIMIT], 0, 0], dtype=np.int64)
    rng = np.random.default_rng(4)
    for _ in range(2000):
        board = rng.choice(np.array([-2, -1, 0, 1, 2], np.int8), squares, p=rng.dirichlet([1] * 5))
        result, reason = K.outcome(board, 0, True, counters, 1, rules)
        assert (result, reason) == (adjudicated(board), K.Reason.ADJUDICATION)


@pytest.mark.parametrize("name", PRESETS)
def test_presets_load_by_path_and_name_alike(name: str) -> None:
    assert load_ruleset_file(RULES_DIR / f"{name}.yaml") == get_ruleset(name)
    assert get_ruleset(RULES_DIR / f"{name}.yaml") == get_ruleset(name)


def test_overrides_change_one_switch() -> None:
    r = get_ruleset("english", ply_limit=100)
    assert r.ply_limit == 100 and r.flying_kings is False


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"board_size": 9}, "board_size must be 8, 10 or 12"),
        ({"rows_per_side": 4, "board_size": 8}, "rows_per_side must be 1..3"),
        ({"king_landing": "immediate", "flying_kings": False}, "only applies to flying kings"),
        ({"capture_precedence": "most"}, "capture_precedence must be one of"),
        ({"repetition_count": 1}, "repetition_count must be 0"),
        ({"ply_limit_result": "material"}, "needs a ply_limit"),
        ({"ply_limit": 10, "ply_limit_result": "material", "giveaway": True}, "contradicts"),
        ({"men_capture_backward": False}, "pass_through"),
        ({"flying_kings": "yes"}, "flying_kings must be bool"),
        ({"ply_limit": 2.5}, "ply_limit must be int"),
    ],
)
def test_bad_switches_are_clear_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(RulesetError, match=message):
        get_ruleset("international").replace(**kwargs)


def test_unknown_name_and_switch() -> None:
    with pytest.raises(RulesetError, match="unknown variant 'makruk'.*international"):
        get_ruleset("makruk")
    with pytest.raises(
        RulesetError,
        match=r"unknown rule switch\(es\) \['flying'\] \(did you mean 'flying_kings'\?\)",
    ):
        get_ruleset("english", flying=True)


@pytest.mark.parametrize(
    ("name", "close"),
    [
        ("internatinal", "international"),
        ("Russain", "russian"),
        ("english_adjudicatd", "english_adjudicated"),
    ],
)
def test_a_misspelt_variant_gets_a_suggestion_and_the_list(name: str, close: str) -> None:
    with pytest.raises(RulesetError) as error:
        Position.start(name)
    message = str(error.value)
    assert f"unknown variant {name!r} (did you mean {close!r}?); known: " in message
    assert all(known in message for known in ruleset_names())


@pytest.mark.parametrize("name", ["chess", "shogi", "x" * 100_000])
def test_an_unlike_variant_gets_no_suggestion(name: str) -> None:
    with pytest.raises(RulesetError, match=r"^unknown variant '.*'; known: brazilian, "):
        get_ruleset(name)


def test_a_misspelt_base_in_a_rules_file_gets_a_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("base: englsh\n")
    with pytest.raises(RulesetError, match="unknown base 'englsh' \\(did you mean 'english'\\?\\)"):
        get_ruleset(path)


def test_bad_yaml_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("base: english\nflying: true\n")
    with pytest.raises(RulesetError, match="bad.yaml.*unknown rule switch"):
        get_ruleset(bad)
    bad.write_text("base: chess\n")
    with pytest.raises(RulesetError, match="unknown base 'chess'"):
        get_ruleset(bad)
    bad.write_text("[1, 2")
    with pytest.raises(RulesetError, match="not valid YAML"):
        get_ruleset(bad)
    with pytest.raises(RulesetError, match="cannot read"):
        get_ruleset(tmp_path / "missing.yaml")


def test_yaml_round_trip(tmp_path: Path) -> None:
    r = get_ruleset("russian", ply_limit=300)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(r.to_dict()))
    assert get_ruleset(path) == r


# --- a changed ruleset does not keep its parent's name --------------------------------------


def test_a_replaced_ruleset_names_what_changed() -> None:
    russian = get_ruleset("russian")
    changed = russian.replace(capture_precedence="most_pieces")
    assert changed.name == "russian (modified: capture_precedence)"
    assert changed.base_name == "russian" and russian.base_name == "russian"
    assert changed != russian


def test_every_way_of_changing_a_ruleset_gives_the_same_name() -> None:
    expected = get_ruleset("russian", capture_precedence="most_pieces", ply_limit=3)
    assert expected.name == "russian (modified: capture_precedence, ply_limit)"
    russian = get_ruleset("russian")
    assert replace(russian, ply_limit=3, capture_precedence="most_pieces") == expected
    assert russian.replace(ply_limit=3).replace(capture_precedence="most_pieces") == expected
    switches = {f.name: getattr(russian, f.name) for f in fields(Ruleset)}
    assert Ruleset(**switches | {"ply_limit": 3, "capture_precedence": "most_pieces"}) == expected
    assert expected.replace(ply_limit=0, capture_precedence="free") == russian


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: get_ruleset("checkers", ply_limit=2), "english (modified: ply_limit)"),
        (
            lambda: get_ruleset("SEED004_ENGLISH", ply_limit=4),
            "english_adjudicated (modified: ply_limit)",
        ),
        (
            lambda: Ruleset(board_size=8, rows_per_side=3),
            "international (modified: board_size, rows_per_side)",
        ),
        (lambda: get_ruleset("russian", name="mine", ply_limit=3), "mine"),
        (lambda: get_ruleset("russian", name="english"), "english (modified: 5 switches)"),
        (
            lambda: get_ruleset("brazilian", name="international", board_size=10, rows_per_side=4),
            "international",
        ),
    ],
    ids=["alias", "preset", "constructor", "own-name", "claimed-name", "same-switches"],
)
def test_only_a_registered_rulesets_own_switches_carry_its_name(make: Any, name: str) -> None:
    ruleset = make()
    assert ruleset.name == name and len(ruleset.name) <= 64


def test_a_ruleset_changed_in_many_switches_counts_them() -> None:
    changes = {
        "first_player": "black",
        "flying_kings": False,
        "king_landing": "any",  # unchanged: not counted
        "men_capture_backward": False,
        "capture_precedence": "free",
        "ply_limit": 5,
        "promotion_in_capture": "ends_move",
        "no_progress_plies": 3,
    }
    ruleset = get_ruleset("canadian_giveaway", **changes)
    assert ruleset.name == "canadian_giveaway (modified: 7 switches)"
    assert ruleset.base_name == "canadian_giveaway"


def test_registered_rulesets_keep_their_names() -> None:
    for name in ruleset_names():
        ruleset = get_ruleset(name)
        assert ruleset.name == ruleset.base_name and ruleset.replace() == ruleset
        assert ruleset.replace(name=ruleset.name) == ruleset


def test_a_modified_name_survives_a_rules_file_and_a_pdn_game(tmp_path: Path) -> None:
    from damas_env.game import Game

    ruleset = get_ruleset("russian").replace(capture_precedence="most_pieces", ply_limit=40)
    path = tmp_path / "run_rules.yaml"
    path.write_text(yaml.safe_dump(ruleset.to_dict()))
    assert get_ruleset(path) == ruleset
    game = Game(ruleset)
    game.push(game.legal_moves()[0])
    assert Game.from_pdn(game.to_pdn()).rules == ruleset
