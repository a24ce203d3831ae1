"""Hostile input to the parsers, the engine API and the command line.

Each defect a hostile trial found is pinned here: quadratic PDN reading, Unicode digits,
an empty FEN, games split by their result, wrong types, unbounded perft, and PDN tags that
named files. The property tests feed random and mutated text to every parser and accept
only the documented errors.
"""

from __future__ import annotations

import contextlib
import gc
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from helpers import ONE_PER_BOARD_SIZE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from damas_env import rules as rules_module
from damas_env.cli import main, variant_arg
from damas_env.encoding import ActionLayout, action_layout, actions_to_move, move_to_actions
from damas_env.engine import MAX_PERFT_DEPTH, IllegalMoveError, Move, Position
from damas_env.game import Game
from damas_env.notation import (
    RESULTS,
    NotationError,
    PdnGame,
    format_fen,
    format_move,
    parse_fen,
    parse_move,
    read_pdn,
    write_pdn,
)
from damas_env.rules import Ruleset, get_ruleset
from damas_env.vector import DraughtsBatchEnv

ROOT = Path(__file__).resolve().parent.parent

GAME = (
    '[Event "t"]\n[GameType "21"]\n\n'
    "1. 11-15 {a comment} 23-19 2. 8-11 (2. 9-14 22-17) 22-17 $1\n3. 9-13 *\n\n"
)
LONG_LINE = "1. 11-15 {note} 23-19 (1... 22-18 {x}) 2. 8-11 $2 22-17 ; line\n"


def repeated(unit: str, megabytes: float) -> str:
    return unit * int(megabytes * 1_000_000 // len(unit))


def seconds(func: Callable[[], object]) -> float:
    """Returns the CPU seconds func takes (other processes on the machine do not count),
    with the garbage collector off: its passes grow with the objects alive, which would
    read as growth of the parser's own."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        func()
        return time.process_time() - start
    finally:
        gc.enable()


# --- linear PDN reading, sizes bounded before conversion ---------------------------

#: Where linear growth (10x) ends and quadratic growth (100x) begins, for 10x the input.
GROWTH_LINE = 40


def many_games(megabytes: float) -> str:
    """Tagged games, then tagless games ended by their result."""
    return repeated(GAME, megabytes / 2) + repeated("1. 11-15 23-19 1-0\n", megabytes / 2)


def one_long_game(megabytes: float) -> str:
    """One game whose movetext (comments, variations, moves) runs to `megabytes`."""
    return '[Event "long"]\n[GameType "21"]\n\n' + repeated(LONG_LINE, megabytes)


def read_first_game(text: str) -> None:
    with pytest.raises(ValueError, match="PDN move 5"):  # the long line repeats 11-15
        Game.from_pdn(text)


@pytest.mark.parametrize(
    ("make", "parse"),
    [(many_games, read_pdn), (one_long_game, read_pdn), (one_long_game, read_first_game)],
    ids=["read_pdn-many-games", "read_pdn-long-game", "Game.from_pdn-long-game"],
)
def test_ten_megabytes_of_pdn_parse_in_linear_time(
    make: Callable[[float], str], parse: Callable[[str], object]
) -> None:
    small, large = make(1), make(10)
    t_small = min(seconds(lambda: parse(small)) for _ in range(2))
    t_large = min(seconds(lambda: parse(large)) for _ in range(2))
    # 10x the text: linear reads take about 10x the CPU time, quadratic ones 100x. The line
    # is drawn near the geometric middle (about 32x), so that neither noise on a busy machine
    # nor a quadratic parser can cross it; the floor keeps a tiny t_small from deciding.
    assert t_large < max(GROWTH_LINE * t_small, 3.0)


def test_read_pdn_splits_and_counts_a_large_text() -> None:
    games = read_pdn(many_games(1))
    tagged = [g for g in games if g.tags]
    assert len(tagged) == int(0.5e6 // len(GAME))
    assert tagged[0].moves == ["11-15", "23-19", "8-11", "22-17", "9-13"]
    assert games[-1] == read_pdn("1. 11-15 23-19 1-0")[0]


@pytest.mark.parametrize(
    "text",
    [
        "{" * 1_000_000,
        "(" * 1_000_000,
        "1" * 1_000_000,
        "1-" * 500_000,
        '[Event "' + "\\" * 1_000_000,
        "[\n" * 500_000,
        "1." * 500_000 + "\n" + ";" * 1_000_000,
    ],
    ids=["braces", "parens", "digits", "dashes", "backslashes", "tag-lines", "numbers"],
)
def test_pathological_pdn_is_read_or_refused_quickly(text: str) -> None:
    def read() -> None:
        try:
            read_pdn(text)
        except NotationError as e:
            assert len(str(e)) < 200  # the message quotes a little, never the whole input

    assert seconds(read) < 30  # CPU seconds: a megabyte read in linear time takes well under 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: parse_fen("W:W" + "9" * 100_000 + ":B1", 10),
        lambda: parse_fen("W:W1-" + "9" * 30 + ":B20", 10),
        lambda: parse_fen("W:WK" + "0" * 20 + "1:B20", 10),
        lambda: Position.start("english").play("9" * 100_000 + "-13"),
        lambda: Position.start("english").play("11-" + "1" * 100_000),
        lambda: Game.from_pdn('[FEN "W:W' + "4" * 5000 + ':B1"]\n*'),
    ],
    ids=["fen-square", "fen-range", "fen-zeros", "move-origin", "move-destination", "pdn-fen"],
)
def test_huge_numbers_are_refused_before_conversion(call: Callable[[], object]) -> None:
    with pytest.raises(NotationError, match="is not on the board") as info:
        call()
    assert len(str(info.value)) < 300


def test_game_history_grows_without_copying_every_move() -> None:
    game = Game("english")
    for _ in range(130):  # past two doublings of the 64-row history
        legal = game.legal_moves()
        if not legal:
            break
        game.push(legal[0])
    played = list(game.moves)
    while game.moves:
        game.pop()
    assert game.position == Position.start("english") and len(played) > 64


# --- ASCII digits only -------------------------------------------------------------


@pytest.mark.parametrize(
    "fen", ["W:W\u0663\u0661:B1", "W:W\uff13\uff11:B1", "W:W31:B\u0661", "W:WK\u0664\u0665:B1"]
)
def test_fen_refuses_unicode_digits(fen: str) -> None:
    with pytest.raises(NotationError, match="fen .*: PDN is ASCII"):
        Position.from_fen(fen, "international")


@pytest.mark.parametrize(
    "move", ["\uff11\uff11-\uff11\uff15", "\u0661\u0661-15", "11-\u0661\u0665"]
)
def test_moves_refuse_unicode_digits(move: str) -> None:
    with pytest.raises(NotationError, match="bad move"):
        Position.start("english").play(move)


@pytest.mark.parametrize(
    "text",
    [
        "1. \uff11\uff11-\uff11\uff15 *",
        "\u0661. 11-15 *",
        "1. 11-15 $\u0661 *",
        "1. 11-15 \uff11-\uff10",
        '[GameType "\uff12\uff11"]\n1. 11-15 *',
    ],
)
def test_pdn_refuses_unicode_digits(text: str) -> None:
    with pytest.raises(NotationError):
        Game.from_pdn(text)


# --- an empty FEN is an error -----------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: Position.from_fen("", "international"),
        lambda: Position.from_fen("  ", "international"),
        lambda: Game("english", ""),
        lambda: Game.from_pdn('[FEN ""]\n1. 32-28 *'),
    ],
)
def test_empty_fen_is_not_the_start_position(call: Callable[[], object]) -> None:
    with pytest.raises(NotationError, match="empty FEN"):
        call()


@pytest.mark.parametrize(
    "argv", [["moves", "--fen", ""], ["show", "--fen="], ["perft", "--fen", "", "--depth", "1"]]
)
def test_cli_refuses_an_empty_fen(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and "empty FEN" in err


# --- a board with no pieces is an error --------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: Position.from_fen("W:W:B", "international"),
        lambda: Position.from_fen("B:B:W", "english"),
        lambda: Game("italian", "W:W:B"),
        lambda: Game.from_pdn('[FEN "W:W:B"]\n*'),
        lambda: DraughtsBatchEnv(2, "english", fens=["W:W:B"]),
    ],
)
def test_a_board_with_no_pieces_is_refused(call: Callable[[], object]) -> None:
    with pytest.raises(NotationError, match="no pieces"):
        call()


def test_a_board_with_one_side_left_still_reads() -> None:
    assert Position.from_fen("W:W:B5", "italian").legal_moves() == []


# --- PDN Variant and GameType tags -----------------------------------------------------


@pytest.mark.parametrize(
    ("tags", "name"),
    [
        ('[Variant "Frysk!"]', "frysk"),
        ('[GameType "40"]\n[Variant "Frysk!"]', "frysk"),
        ('[GameType "20"]\n[Variant "Antidraughts"]', "international_giveaway"),
        ('[GameType "20"]\n[Variant "Breakthrough"]', "breakthrough"),
        ('[GameType "30"]\n[Variant "turkish"]', "turkish"),
        ('[GameType "99"]\n[Variant "russian"]', "russian"),  # a number we don't know
    ],
)
def test_pdn_variant_names_players_use(tags: str, name: str) -> None:
    assert Game.from_pdn(tags + "\n\n*").rules.name == name


@pytest.mark.parametrize(
    "tags",
    ['[GameType "20"]\n[Variant "turkish"]', '[GameType "21"]\n[Variant "international"]'],
)
def test_pdn_game_type_and_variant_must_name_one_board(tags: str) -> None:
    with pytest.raises(NotationError, match="name different boards"):
        Game.from_pdn(tags + "\n\n*")


def test_cli_names_the_fen_letter_of_a_colour_named_otherwise(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["show", "--variant", "website_checkers"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "B:W21-32:B1-12  (red to move; B in the FEN)"
    assert main(["show", "--variant", "english"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "B:W21-32:B1-12  (black to move)"


# --- a result ends a game ---------------------------------------------------------


def test_games_without_tags_are_split_by_their_result() -> None:
    games = read_pdn("1. 11-15 23-19 1-0\n\n1. 9-13 22-18 0-1\n")
    assert [(g.moves, g.result) for g in games] == [
        (["11-15", "23-19"], "1-0"),
        (["9-13", "22-18"], "0-1"),
    ]


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"])
def test_every_termination_marker_ends_a_game(result: str) -> None:
    games = read_pdn(f"1. 32-28 {result} 1. 33-29 19-23 *")
    assert [(g.moves, g.result) for g in games] == [(["32-28"], result), (["33-29", "19-23"], "*")]


def test_results_in_variations_and_comments_do_not_split() -> None:
    (game,) = read_pdn("1. 11-15 (1. 9-13 1-0) {0-1} 23-19 1/2-1/2\n{after the game}\n")
    assert game.moves == ["11-15", "23-19"] and game.result == "1/2-1/2"


def test_tagged_game_then_tagless_game() -> None:
    games = read_pdn('[Event "a"]\n[Result "1-0"]\n\n1. 11-15 1-0 1. 9-13 *\n[Event "b"]\n*')
    assert [(g.tags.get("Event"), g.moves, g.result) for g in games] == [
        ("a", ["11-15"], "1-0"),
        (None, ["9-13"], "*"),
        ("b", [], "*"),
    ]


def test_game_from_pdn_reads_only_the_first_of_result_separated_games() -> None:
    game = Game.from_pdn("1. 11-15 23-19 1-0\n\n1. 9-13 22-18 0-1\n", "english")
    assert game.ply == 2


def test_comment_and_variation_errors_name_their_line() -> None:
    with pytest.raises(NotationError, match="PDN line 3: comment '{' is never closed"):
        read_pdn('[Event "x"]\n\n1. 11-15 {oops\n23-19 *')
    with pytest.raises(NotationError, match="PDN line 2: '\\)' closes no variation"):
        read_pdn("1. 11-15\n23-19) *")


def test_tag_values_round_trip_quotes_and_backslashes() -> None:
    game = Game("english")
    game.push("11-15")
    text = game.to_pdn(Event='say "hi" \\ bye')
    assert read_pdn(text)[0].tags["Event"] == 'say "hi" \\ bye'
    with pytest.raises(NotationError, match="cannot be written"):
        game.to_pdn(Event="two\nlines")


# --- wrong types get TypeError naming the argument, and change nothing -----------


@pytest.mark.parametrize("fen", [12345, None, b"W:W31-50:B1-20", ["W:W31:B1"]])
def test_from_fen_refuses_non_strings(fen: object) -> None:
    with pytest.raises(TypeError, match="fen must be a str"):
        Position.from_fen(fen, "international")  # type: ignore[arg-type]
    if fen is not None:  # Game(fen=None) is the start position
        with pytest.raises(TypeError, match="fen must be a str"):
            Game("international", fen)  # type: ignore[arg-type]


@pytest.mark.parametrize("move", [None, 1115, b"11-15", ("11", "15"), 11.15])
def test_play_and_push_refuse_non_moves(move: object) -> None:
    pos = Position.start("english")
    with pytest.raises(TypeError, match="move must be a Move or a PDN move string"):
        pos.play(move)  # type: ignore[arg-type]
    game = Game("english")
    with pytest.raises(TypeError, match="move must be a Move or a PDN move string"):
        game.push(move)  # type: ignore[arg-type]
    assert pos == Position.start("english")
    assert game.ply == 0 and game.position == pos and not game.counters.any()


@pytest.mark.parametrize(
    ("move", "quoted"),
    [(5, "int 5"), (10**5000, "int a int too large to show"), (b"x" * 10**6, "bytes b'xxx")],
    ids=["int", "huge-int", "huge-bytes"],
)
def test_a_non_move_error_names_the_accepted_forms_and_quotes_the_value(
    move: object, quoted: str
) -> None:
    with pytest.raises(TypeError) as error:
        Position.start("english").play(move)  # type: ignore[arg-type]
    message = str(error.value)
    assert "a Move or a PDN move string" in message and "'11-15' or '11x18'" in message
    assert quoted in message and len(message) < 200


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: read_pdn(None), "text"),
        (lambda: read_pdn(b"1. 11-15 *"), "text"),
        (lambda: Game.from_pdn(b"1. 11-15 *"), "text"),
        (lambda: parse_fen(None, 10), "fen"),
        (lambda: parse_move(1115, [], 8), "move"),
        (lambda: Position.start().perft("3"), "depth"),
        (lambda: Position.start().perft(2.0), "depth"),
        (lambda: Position.start().perft(None), "depth"),
        (lambda: Position("english", None, 0), "board"),
        (lambda: Position("english", ["a"] * 32, 0), "board"),
    ],
)
def test_wrong_types_name_the_argument(call: Callable[[], object], name: str) -> None:
    with pytest.raises(TypeError, match=name):
        call()


def test_position_refuses_out_of_range_codes_without_wrapping() -> None:
    board = np.zeros(32, dtype=np.int64)
    board[5] = 257  # would wrap to 1 as int8
    with pytest.raises(ValueError, match="board codes must be"):
        Position("english", board, 0)


# --- perft depth is bounded and interruptible -------------------------------------


@pytest.mark.parametrize(
    "depth",
    [-1, MAX_PERFT_DEPTH + 1, 20000, 10**20, 10**5000],
    ids=["negative", "bound+1", "20000", "1e20", "1e5000"],
)
def test_perft_refuses_depths_out_of_range(depth: int) -> None:
    with pytest.raises(ValueError, match=f"between 0 and {MAX_PERFT_DEPTH}") as info:
        Position.start().perft(depth)
    assert len(str(info.value)) < 100


@pytest.mark.parametrize("depth", ["0", "31", "20000", "99999999999999999999"])
def test_cli_perft_refuses_depths_out_of_range(
    capsys: pytest.CaptureFixture[str], depth: str
) -> None:
    status = main(["perft", "--depth", depth])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert f"--depth must be at least 1 and at most {MAX_PERFT_DEPTH}, not {depth}" in err


def test_perft_walked_in_python_above_compiled_chunks_counts_the_same() -> None:
    pos = Position.from_fen("W:WK46,31:BK5,19", "international")
    assert pos.perft(5) == sum(pos.play(m).perft(4) for m in pos.legal_moves())
    assert Position.start("english").perft(8) == 845_931  # tests/data/perft.yaml


def test_cli_ctrl_c_exits_130(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: Position, depth: int) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(Position, "perft", interrupted)
    status = main(["perft", "--depth", "12"])
    out, err = capsys.readouterr()
    assert status == 130 and out == "" and "damas perft: interrupted" in err


SIGINT_SCRIPT = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
from damas_env import Position
from damas_env.cli import main
Position.start().perft(2)  # load the compiled kernels
print("ready", flush=True)
sys.exit(main(["perft", "--depth", "30"]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_stops_a_deep_perft_within_seconds() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGINT_SCRIPT],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(2.0)  # deep inside the count
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)  # a hang guard: it stops within a second
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and "damas perft: interrupted" in err


# --- PDN tags never name files; --variant reads a file only when typed --------------


def file_reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Returns the list that records every rules file opened from now on.

    The shipped presets are read first, once, as the library reads them on the first lookup
    of any name: only the lookups after that must open nothing.
    """
    rules_module.ruleset_names()
    opened: list[object] = []
    monkeypatch.setattr(rules_module, "load_ruleset_file", lambda path: opened.append(path))
    return opened


@pytest.mark.parametrize(
    "variant",
    ["/etc/passwd", "../damas_env/presets/website_checkers.yaml", "SECRET", "x.yml"],
)
def test_pdn_variant_tag_never_opens_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text("db_password: hunter2\n")
    variant = variant.replace("SECRET", str(secret))
    opened = file_reads(monkeypatch)
    with pytest.raises(NotationError, match="PDN Variant tag: unknown variant") as info:
        Game.from_pdn(f'[Variant "{variant}"]\n1. 32-28 *')
    assert (
        opened == [] and "hunter2" not in str(info.value) and "db_password" not in str(info.value)
    )


@pytest.mark.parametrize(
    "game_type", ["", "x" * 10_000, "21x", "-1", "99999999999999999999", ",,,", "\u0662\u0661"]
)
def test_pdn_game_type_garbage_is_a_notation_error(game_type: str) -> None:
    with pytest.raises(NotationError, match="unsupported PDN GameType") as info:
        Game.from_pdn(f'[GameType "{game_type}"]\n*')
    assert len(str(info.value)) < 200


def test_pdn_game_type_with_its_extra_fields() -> None:
    assert Game.from_pdn('[GameType "21,W,8,8,A0,0"]\n1. 11-15 *').rules.name == "english"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("english", "english"),
        ("website_checkers", "website_checkers"),
        ("rules.yaml", Path("rules.yaml")),
        ("rules.yml", Path("rules.yml")),
        ("configs/rules/x", Path("configs/rules/x")),
        ("/etc/passwd", Path("/etc/passwd")),
    ],
)
def test_variant_arg_makes_typed_files_paths(text: str, expected: str | Path) -> None:
    assert variant_arg(text) == expected and type(variant_arg(text)) is type(expected)


def test_cli_reads_a_typed_rules_file(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["show", "--variant", "damas_env/presets/website_checkers.yaml"])
    assert status == 0 and "(red to move; B in the FEN)" in capsys.readouterr().out


# --- Property tests: random and mutated text -----------------------------------------------

VALID_FENS = [
    "W:W31-50:B1-20",
    "B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29",
    "W:WK46,K47,31:BK5,19.",
    '"W:W21-32:B1-12"',
]
VALID_MOVES = ["32-28", "31x22", "28x19x10", "11-15", "20x27x18x11x20", "9:13", "33-29!?"]
VALID_PDN = [
    GAME,
    "1. 11-15 23-19 1-0\n\n1. 9-13 22-18 0-1\n",
    '[Event "x"]\n[Variant "english"]\n[FEN "B:W21-32:B1-12"]\n1. 11-15 (1. 9-13 {c}) 23-19 *',
    '[GameType "20"]\n1. 32-28 19-23 2. 28x19 14x23 2-0',
]
# Characters a mutation inserts: the notation's own, their Unicode look-alikes, and noise.
ALPHABET = '0123456789-x:,.KWB[]"{}();$*!? \n\t\\/' + "\u0661\uff11\u00a0\u2028\x00\u00e9"


@st.composite
def mutated(draw: st.DrawFn, samples: list[str]) -> str:
    """Returns a valid sample with a few characters inserted, deleted or replaced."""
    text = draw(st.sampled_from(samples))
    chars = st.one_of(st.sampled_from(ALPHABET), st.characters())
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        new = draw(chars) if op != "delete" else ""
        text = text[:at] + new + text[at + (op != "insert") :]
    return text


def fen_text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=60), mutated(VALID_FENS))


def move_text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=30), st.text(ALPHABET, max_size=30), mutated(VALID_MOVES))


def pdn_text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(ALPHABET, max_size=200), st.text(max_size=100), mutated(VALID_PDN))


FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
VARIANTS = st.sampled_from(ONE_PER_BOARD_SIZE)


@FUZZ
@given(fen_text(), VARIANTS)
def test_fen_parsers_succeed_or_raise_notation_errors(text: str, variant: str) -> None:
    rules = get_ruleset(variant)
    try:
        parse_fen(text, rules.board_size)
    except NotationError:
        with pytest.raises(NotationError):
            Position.from_fen(text, rules)
        return
    try:
        pos = Position.from_fen(text, rules)
    except ValueError as e:  # a well-formed FEN with a man on its crowning row
        assert "crowning row" in str(e)
        return
    assert Position.from_fen(pos.fen(), rules) == pos


@FUZZ
@given(move_text())
def test_move_strings_are_played_or_refused_changing_nothing(text: str) -> None:
    game = Game("english")
    for move in ("11-15", "23-19"):
        game.push(move)
    position = game.position
    before = (game.board.copy(), game.turn, game.counters.copy(), game.ply)
    try:
        move = game.push(text)
    except ValueError:  # NotationError or IllegalMoveError
        after = (game.board, game.turn, game.counters, game.ply)
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
        return
    assert isinstance(move, Move) and game.ply == 3
    assert position.play(text) == game.position  # Position.play reads it the same way


@FUZZ
@given(pdn_text())
def test_pdn_readers_succeed_or_raise_value_errors(text: str) -> None:
    try:
        games = read_pdn(text)
    except NotationError:
        games = []
    with contextlib.suppress(ValueError):  # NotationError, IllegalMoveError, a bad position...
        Game.from_pdn(text)
    # What was read is written back and read again the same (a move spelt like a result,
    # e.g. "1-0!", reads back as the result: such games are left out).
    kept = [g for g in games if not set(g.moves) & set(RESULTS)]
    again = read_pdn("".join(write_pdn(g) for g in kept))
    assert [(g.moves, g.result) for g in again] == [(g.moves, g.result) for g in kept]


# --- board sizes are checked before any table is sized from them ------------------


@pytest.mark.parametrize(
    ("size", "error"),
    [
        (100000, ValueError),
        (10**30, ValueError),
        (9, ValueError),
        (-10, ValueError),
        (10.0, TypeError),
        (True, TypeError),
        (None, TypeError),
        ("10", TypeError),
    ],
)
def test_every_board_size_argument_is_checked(size: object, error: type[Exception]) -> None:
    move = Position.start().legal_moves()[0]
    calls: list[Callable[[], object]] = [
        lambda: move_to_actions(move, 0, size),  # type: ignore[arg-type]
        lambda: action_layout(size),  # type: ignore[arg-type]
        lambda: ActionLayout(size),  # type: ignore[arg-type]
        lambda: parse_fen("W:W31:B1", size),  # type: ignore[arg-type]
        lambda: parse_move("32-28", [move], size),  # type: ignore[arg-type]
    ]
    for call in calls:
        start = time.process_time()
        with pytest.raises(error, match="board_size must be"):
            call()
        assert time.process_time() - start < 1


# --- hop actions: wrong values and types name the argument ------------------------


@pytest.mark.parametrize(
    ("actions", "error", "name"),
    [
        ([1800], ValueError, r"actions\[0\]"),
        ([10**30], ValueError, r"actions\[0\]"),
        ([np.uint64(2**64 - 1)], ValueError, r"actions\[0\]"),
        ([-1], ValueError, r"actions\[0\]"),
        (["1080"], TypeError, r"actions\[0\]"),
        ([1080.0], TypeError, r"actions\[0\]"),
        ([True], TypeError, r"actions\[0\]"),
        ("1080", TypeError, "actions must be a list"),
        (None, TypeError, "actions must be a list"),
    ],
)
def test_actions_to_move_refuses_bad_actions(
    actions: object, error: type[Exception], name: str
) -> None:
    with pytest.raises(error, match=name):
        actions_to_move(actions, Position.start())  # type: ignore[arg-type]


def test_actions_to_move_refuses_a_non_position() -> None:
    with pytest.raises(TypeError, match="position must be a Position"):
        actions_to_move([1080], None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("move", "colour", "error", "name"),
    [
        (None, 0, TypeError, "move must be a Move"),
        ("32-28", 0, TypeError, "move must be a Move"),
        (Move(31, ()), 0, ValueError, "move.path"),
        (Move(31.0, (26,)), 0, TypeError, "move.origin"),  # type: ignore[arg-type]
        (Move(99, (3,)), 0, ValueError, "leaves the 10x10 board"),
        (Move(31, (2,)), 0, ValueError, "hops along the board.s lines"),
        ("legal", 1.0, TypeError, "colour"),
        ("legal", True, TypeError, "colour"),
        ("legal", 2, ValueError, "colour"),
    ],
)
def test_move_to_actions_refuses_bad_moves_and_colours(
    move: object, colour: object, error: type[Exception], name: str
) -> None:
    if move == "legal":
        move = Position.start().legal_moves()[0]
    with pytest.raises(error, match=name):
        move_to_actions(move, colour, 10)  # type: ignore[arg-type]


# --- Move values are checked where they enter the API -----------------------------


@pytest.mark.parametrize(
    ("move", "error", "name"),
    [
        (Move(31, ()), ValueError, "move.path"),
        (Move(None, None), TypeError, "move.origin"),  # type: ignore[arg-type]
        (Move(31.0, (27.0,)), TypeError, "move.origin"),  # type: ignore[arg-type]
        (Move(31, (27.0,)), TypeError, r"move.path\[0\]"),  # type: ignore[arg-type]
        (Move(31, [26]), TypeError, "move.path"),  # type: ignore[arg-type]
        (Move(31, (26,), (), 1), TypeError, "move.crowns"),  # type: ignore[arg-type]
        (Move(-1, (26,)), ValueError, "move.origin"),
        (Move(31, (22,)), IllegalMoveError, "illegal move 32-23"),  # not a step
        (Move(10**30, (26,)), ValueError, "move.origin"),
        (Move(99, (26,)), IllegalMoveError, "illegal move 100-27"),
    ],
)
def test_malformed_or_illegal_moves_are_refused(
    move: Move, error: type[Exception], name: str
) -> None:
    pos = Position.start()
    game = Game()
    for call in (pos.play, pos.find_move, game.push):
        with pytest.raises(error, match=name):
            call(move)
    assert game.ply == 0 and game.position == pos
    if error is not IllegalMoveError:
        with pytest.raises(error, match=name):
            format_move(move)


def test_malformed_moves_still_compare_and_hash() -> None:
    assert Move(31, ()) != Move(31, (26,)) and Move(None, None) != Move(31, ())  # type: ignore[arg-type]
    assert len({Move(31, ()), Move(31, (26,))}) == 2


# --- notation helpers check their arguments ---------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: parse_fen("W:W31:B1", 1000000), ValueError, "board_size"),
        (lambda: parse_move("32-28", [1, 2], 10), TypeError, r"legal\[0\]"),
        (lambda: parse_move("32-28", "abc", 10), TypeError, "legal must be a list"),
        (lambda: parse_move("32-28", [None], 10), TypeError, r"legal\[0\]"),
        (lambda: format_fen(np.full(50, 7), 0), ValueError, "board codes"),
        (lambda: format_fen("abc", 0), TypeError, "board"),
        (lambda: format_fen(np.zeros((5, 10), dtype=np.int8), 0), ValueError, "shape"),
        (lambda: format_fen(np.zeros(49, dtype=np.int8), 0), ValueError, "shape"),
        (lambda: format_fen(np.zeros(50, dtype=np.int8), 1.0), TypeError, "turn"),
        (lambda: format_fen(np.zeros(50, dtype=np.int8), 3), ValueError, "turn"),
    ],
)
def test_notation_helpers_refuse_bad_arguments(
    call: Callable[[], object], error: type[Exception], name: str
) -> None:
    with pytest.raises(error, match=name):
        call()


# --- PDN is written only as text that reads back as the same game -----------------


@pytest.mark.parametrize(
    ("game", "problem"),
    [
        (PdnGame(moves=["32-28", "1-0", "33-28"]), "PDN move 2"),
        (PdnGame(moves=["32-28 { x"]), "PDN move 1"),
        (PdnGame(moves=["32-28\n[Event"]), "PDN move 1"),
        (PdnGame(moves=[5, None]), "PDN move 1"),  # type: ignore[list-item]
        (PdnGame(moves="32-28"), "moves must be a list"),  # type: ignore[arg-type]
        (PdnGame(result="bogus"), "PDN result"),
        (PdnGame(result=None), "PDN result"),  # type: ignore[arg-type]
        (PdnGame(tags={5: "x"}), "PDN tag 5"),  # type: ignore[dict-item]
        (PdnGame(tags={"Event": 5}), "PDN tag 'Event'"),  # type: ignore[dict-item]
        (PdnGame(tags={"Ev ent": "x"}), "PDN tag 'Ev ent'"),
        (PdnGame(tags={"Event": "a\nb"}), "PDN tag 'Event'"),
    ],
)
def test_write_pdn_refuses_what_would_not_read_back(game: PdnGame, problem: str) -> None:
    with pytest.raises(NotationError, match=problem):
        write_pdn(game)


@pytest.mark.parametrize("tag", ["FEN", "SetUp", "Variant", "GameType", "Result", "Rules"])
def test_to_pdn_refuses_the_tags_the_game_writes(tag: str) -> None:
    with pytest.raises(ValueError, match=f"'{tag}'.* written from the game"):
        Game().to_pdn(**{tag: "W:W1:B50"})


# --- the rules of a derived ruleset survive a PDN round trip ----------------------


def test_pdn_round_trip_keeps_a_derived_ply_limit() -> None:
    rules = get_ruleset("international", ply_limit=2)
    game = Game(rules)
    game.push("32-28")
    game.push("19-23")
    again = Game.from_pdn(game.to_pdn())
    assert again.rules == rules and again.outcome() == game.outcome() is not None


@pytest.mark.parametrize(
    ("rules", "has_rules_tag"),
    [
        (get_ruleset("international", board_size=8, rows_per_side=3), True),
        (get_ruleset("english", colour_names=("white", "red"), ply_limit=9), True),
        (get_ruleset("russian_giveaway", name="my rules"), True),
        (get_ruleset("pool"), False),
    ],
    ids=["8x8-international", "english-colours", "renamed", "registered"],
)
def test_pdn_round_trip_replays_derived_rulesets(rules: Ruleset, has_rules_tag: bool) -> None:
    game = Game(rules)
    for _ in range(4):
        game.push(game.legal_moves()[0])
    text = game.to_pdn()
    again = Game.from_pdn(text)
    assert again.rules == rules and again.moves == game.moves
    assert ("[Rules " in text) == has_rules_tag


@pytest.mark.parametrize(
    ("rules_tag", "problem"),
    [
        ("not json", "not a JSON object"),
        ("[1, 2]", "not a JSON object of switches"),
        ('"ply_limit"', "not a JSON object of switches"),
        ('{"ply_limit": 2, "ply_limit": 3}', "not a JSON object"),
        ('{"ply_limit": NaN}', "not a JSON object"),
        ("[" * 3000 + "]" * 3000, "longer than"),
        ("[" * 2000 + "]" * 2000, "not a JSON object"),
        ('{"a": "' + "x" * 5000 + '"}', "longer than"),
        ('{"ply_limit": {"deep": 1}}', "'ply_limit' cannot be"),
        ('{"ply_limit": 2.0}', "'ply_limit' cannot be"),
        ('{"ply_limit": null}', "'ply_limit' cannot be"),
        ('{"ply_limit": "2"}', "ply_limit must be int"),
        ('{"bogus": 1}', "unknown rule switch"),
        ('{"board_size": 9}', "board_size must be 8, 10 or 12"),
        ('{"colour_names": ["a", 5]}', "colour_names"),
        ('{"name": "/etc/passwd", "board_size": 8, "rows_per_side": 3}', "PDN move 1"),
    ],
)
def test_hostile_rules_tags_are_notation_errors(
    monkeypatch: pytest.MonkeyPatch, rules_tag: str, problem: str
) -> None:
    opened = file_reads(monkeypatch)
    escaped = rules_tag.replace("\\", "\\\\").replace('"', '\\"')
    with pytest.raises(ValueError, match=problem):  # NotationError, or the illegal move
        Game.from_pdn(f'[Variant "international"]\n[Rules "{escaped}"]\n1. 32-28 *')
    assert opened == []


# --- FEN and movetext accept ASCII whitespace only; impossible positions ----------


@pytest.mark.parametrize(
    "call",
    [
        lambda: Position.from_fen("W:W\xa031:B1", "international"),
        lambda: Position.from_fen("W:W31:B1\u2028", "international"),
        lambda: Position.from_fen("\u3000W:W31:B1", "international"),
        lambda: Position.start().play("32-28\xa0"),
        lambda: Position.start().play("\u200932-28"),
        lambda: Game.from_pdn("1. 32-28\xa019-23 *"),
        lambda: Game.from_pdn("1. 32-28\u202819-23 *"),
        lambda: Game.from_pdn('[Event "x"]\u2028[Site "y"]\n1. 32-28 *'),
    ],
)
def test_unicode_whitespace_is_refused(call: Callable[[], object]) -> None:
    with pytest.raises(NotationError):
        call()


def test_ascii_whitespace_is_still_allowed() -> None:
    assert Position.from_fen(" W:W 31 , 32:B1\t\r\n", "international").fen() == "W:W31,32:B1"
    assert Game.from_pdn('[Event "x"]\r\n\r\n1.\t32-28\r\n19-23 *\r\n').ply == 2


@pytest.mark.parametrize("turn", [1.0, True, np.bool_(False), "W", None])
def test_position_turn_must_be_a_colour(turn: object) -> None:
    with pytest.raises(TypeError, match="turn must be an int"):
        Position("international", [0] * 50, turn)  # type: ignore[arg-type]


@pytest.mark.parametrize("fen", ["W:W1:B50", "B:W5:B20", "W:W31:B47"])
def test_a_man_on_its_crowning_row_is_a_notation_error(fen: str) -> None:
    with pytest.raises(NotationError, match="crowning row"):
        Position.from_fen(fen, "international")
    with pytest.raises(NotationError, match="crowning row"):
        Game.from_pdn(f'[FEN "{fen}"]\n*')
