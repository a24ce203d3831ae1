"""Writes the variant catalogue from the code: one section per registered ruleset, with its
start position drawn as SVG, its rules in words, its switches and its perft counts.

The switches, names, start positions and summaries come from ``damas_env``; the perft counts
and their sources from ``tests/data/perft.yaml`` (the tests check the same file); the words
from the two tables below, which must cover every ruleset and every switch, so a new variant
or switch stops the build until it is described. The site's hook (``docs/hooks.py``) calls
:func:`pages` at each build; ``python docs/gen_variants.py OUT`` writes the files to a folder.
The catalogue's summary table is also kept in ``docs/variants/index.md``, so that the page
reads without the site (on GitHub); ``python docs/gen_variants.py --index`` rewrites it there.
"""

from __future__ import annotations

import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
PERFT_FILE = ROOT / "tests" / "data" / "perft.yaml"
#: The variants page, which keeps a copy of the catalogue's summary table between two marks.
INDEX_FILE = ROOT / "docs" / "variants" / "index.md"
INDEX_MARKS = (
    "<!-- the catalogue's table: python docs/gen_variants.py --index writes it -->",
    "<!-- end of the catalogue's table -->",
)

#: Each switch in plain words, with the rulebook articles it comes from.
SWITCHES: dict[str, str] = {
    "name": "The ruleset's name, shown in results, PDN headers and errors. A ruleset changed "
    "from a named one is called after it: `russian (modified: capture_precedence)`.",
    "board_size": "Squares per side: 8, 10 or 12 (FMJD art. 2.1: 10×10; EDA: 8×8; Canadian: "
    "12×12).",
    "rows_per_side": "Rows of men each side starts on (FMJD art. 2: four; EDA: three; Thai and "
    "Turkish rules: two; Frysk!: one).",
    "empty_back_rows": "Rows left empty behind each side's men at the start (Turkish rules: the "
    "men stand on the second and third rows).",
    "board_layout": "Which squares are played on: `dark` (a dark single corner on each "
    "player's left, FMJD art. 2.4, EDA), `mirrored` (the board turned, the single corner on "
    "the right: Italian rules art. 2, Spanish and Portuguese rules) or `all` (all 64 squares: "
    "Turkish rules).",
    "move_directions": "Lines a non-capturing move follows: `diagonal` (FMJD art. 3; Frisian "
    "rules art. 9), or `orthogonal`: forward and sideways, and back for kings (Turkish rules).",
    "capture_directions": "Lines a capture follows: `diagonal`, `diagonal_and_orthogonal` "
    "(eight directions, Frisian rules art. 7) or `orthogonal` (Turkish rules). Men that may "
    "not capture backwards still capture sideways along a row.",
    "first_player": "The colour that moves first (FMJD art. 3: White; EDA: Black).",
    "men_capture_backward": "Men capture backwards as well as forwards (FMJD art. 4.1). "
    "English men capture forward only (EDA).",
    "flying_kings": "Kings move and capture along a whole line (FMJD art. 3 and 4.3); "
    "otherwise they step one square (EDA).",
    "capture_precedence": "`most_pieces`: the capture that takes the most pieces is "
    "compulsory (FMJD art. 4; Italian, Spanish and Turkish rules). `free`: any capture may be "
    "chosen (EDA; Russian, Czech and Thai rules).",
    "king_capture_weight": "What a taken king counts for under `most_pieces`: `man` (FMJD "
    "art. 4), or more, so that the capture of highest value is compulsory (Frisian rules "
    'art. 11: "a king has more value than a man, but less than two men"): `almost_two_men` '
    "(1.99 men, as Lidraughts and dctl play it) or `man_and_a_half` (1.5 men).",
    "capture_tiebreaks": "Rules that choose among the captures the precedence rule left, in "
    "order: `with_king` (a capture by a king first: Frisian rules art. 11, Italian rules art. "
    "6.3, Czech rules), `most_kings` (Italian rules art. 6.4; Spanish and Portuguese rules: "
    "quality after quantity), `earliest_king` (the capture that meets a king first: Italian "
    "rules art. 6.5).",
    "men_capture_kings": "Men may capture kings (FMJD art. 4). Italian men may not (Italian "
    "rules art. 5.4).",
    "promotion_in_capture": "A man reaching the far row during a capture: `pass_through` "
    "goes on capturing as a man and is crowned only if the move ends there (FMJD art. 4); "
    "`ends_move` is crowned and the move ends (EDA); `crown_and_continue` is crowned at once "
    "and goes on capturing as a king (Russian rules).",
    "king_landing": "Where a flying king may stop after taking a piece: `any` free square "
    "beyond it (FMJD art. 4.3); `immediate`, the square right behind it unless only a farther "
    "square lets the capture go on; `right_behind`, always the square right behind it (Thai "
    "rules).",
    "turkish_strike": "Captured pieces stay on the board until the move ends, blocking the "
    "capturing piece, and are never taken twice (FMJD art. 4). Off: each piece is removed as "
    "it is jumped (Turkish and Thai rules).",
    "capture_may_reverse": "A capture may turn back 180 degrees between two hops. Turkish "
    "rules forbid it.",
    "giveaway": "Losing draughts: a player who cannot move on their turn wins.",
    "first_king_wins": "The first player to crown a king wins at once (Breakthrough, as "
    "Lidraughts plays it).",
    "king_move_limit": "Non-capturing moves in a row one king may make while its side has "
    "men (Frisian rules art. 10: three); 0 turns it off. The game and the environments apply "
    "it; a position built from a FEN carries no king runs.",
    "repetition_count": "A position occurring this many times is a draw (FMJD art. 6: three); "
    "0 turns it off.",
    "no_progress_plies": "Plies without progress after which the game is drawn (FMJD art. 6: "
    "25 moves each, 50 plies; EDA: 40 moves each); 0 turns it off.",
    "progress": "What resets the no-progress count: `capture_or_man_move` (FMJD art. 6, EDA) "
    "or `capture_or_promotion`.",
    "fmjd_endgame": "FMJD's endgame limits (art. 6): three kings, two kings and a man, or a "
    "king and two men against a lone king drawn after 16 moves each; two kings, a king and a "
    "man, or a king against a lone king after 5.",
    "frisian_endgame": "Frisian endgame draws (Frisian rules art. 13): two kings against one "
    "drawn after 7 moves each, one against one after 2.",
    "ply_limit": "Plies after which the game stops; 0 means no limit.",
    "ply_limit_result": "The result of a game stopped at the ply limit: `draw`, or `material` "
    "(more pieces wins; equal pieces, more kings wins; else a draw).",
    "colour_names": "The names of White's and Black's sides on boards and in messages.",
}

#: Each ruleset: a title, and its rules in words with the rulebook they come from.
VARIANTS: dict[str, tuple[str, str]] = {
    "international": (
        "International draughts",
        "The game of the World Draughts Federation (FMJD official rules, art. 2-6), on a "
        "10×10 board with 20 men each; White moves first. Men move forward and capture "
        "forwards and backwards; kings fly along whole diagonals. The capture that takes the "
        "most pieces is compulsory, kings and men counting the same, and a man that reaches "
        "the far row during a capture and can capture on stays a man. Drawn by threefold "
        "repetition, by 25 moves each with only kings moving and no capture, and by FMJD's "
        "endgame limits.",
    ),
    "brazilian": (
        "Brazilian draughts",
        "International rules on the 8×8 board with 12 men each (FMJD's Brazilian rules: the "
        "same articles on a smaller board).",
    ),
    "canadian": (
        "Canadian draughts",
        "International rules on a 12×12 board with 30 men each.",
    ),
    "english": (
        "English draughts (American checkers)",
        "The rules of the English Draughts Association and the American Checker Federation: "
        "8×8, 12 men each, Black moves first. Men move and capture forward only; kings move "
        "and capture one square in any diagonal direction. Capturing is compulsory but any "
        "capture may be chosen, and a man crowned during a capture ends its move there. "
        "Drawn by threefold repetition, or after 40 moves each without a capture or a man's "
        "move.",
    ),
    "russian": (
        "Russian draughts",
        "The Russian draughts federation's rules: 8×8, 12 men each, White moves first. Men "
        "capture backwards too and kings fly; any capture may be chosen. A man that reaches "
        "the far row during a capture is crowned at once and goes on capturing as a king. "
        "Drawn after 15 moves each with only kings moving and no capture.",
    ),
    "pool": (
        "Pool checkers",
        "The American Pool Checkers Association's rules: Russian draughts with Black moving "
        "first, and a man that passes the far row during a capture stays a man (it is crowned "
        "only if its move ends there). Drawn after 50 moves each without progress.",
    ),
    "frisian": (
        "Frisian draughts",
        "The Official Rules for Frisian Draughts (2011): International's board, men and "
        "flying kings, and captures along rows and columns too, in eight directions (art. 7). "
        "The capture of highest value is compulsory, a king worth more than a man but less "
        "than two (art. 11; 1.99 men here), and at equal value a capture by a king. While "
        "its side has men, one king may make at most three non-capturing moves in a row "
        "(art. 10). Kings move only along diagonals (art. 9). Two kings against one are "
        "drawn after 7 moves each, one against one after 2 (art. 13); there is no 25-move "
        "rule.",
    ),
    "frysk": (
        "Frysk!",
        "Frisian rules with 5 men each, on the back rows (as Lidraughts plays it).",
    ),
    "italian": (
        "Italian draughts",
        "The Federazione Italiana Dama rules: 8×8 with the single corner on the right (art. "
        "2), 12 men each, White moves first. Men move and capture forward only and may not "
        "take a king (art. 5.4); kings step one square. The capture of the most pieces is "
        "compulsory (art. 6.2); among equals, a capture by a king, then the most kings taken, "
        "then the one that meets a king first (art. 6.3-6.5). A man crowned during a capture "
        "ends its move. Drawn after 40 moves each without a capture or a man's move.",
    ),
    "spanish": (
        "Spanish draughts",
        "The Federación Española de Damas rules: 8×8 with the single corner on the right, 12 "
        "men each, White moves first. Men move and capture forward only; kings fly. The "
        "capture of the most pieces is compulsory, then the one taking the most kings "
        "(quantity, then quality). A man crowned during a capture ends its move.",
    ),
    "portuguese": (
        "Portuguese draughts",
        "The Federação Portuguesa de Damas classic rules, which are the Spanish rules.",
    ),
    "czech": (
        "Czech draughts",
        "The Czech draughts federation's rules (Česká dáma): 8×8, 12 men each, White moves "
        "first. Men move and capture forward only; kings fly. There is no majority rule, "
        "but a king that can capture must; otherwise any capture may be chosen. A man "
        "crowned during a capture ends its move.",
    ),
    "thai": (
        "Thai draughts (Mak-hot)",
        "As Mindsports and the Checkers Wiki give its rules: 8×8, 8 men each on the two "
        "nearest rows, White moves first. Men move and capture forward only; kings fly but "
        "stop right behind each piece they take, and each piece is removed as it is taken. "
        "There are no priorities of capture; a man crowned during a capture ends its move.",
    ),
    "turkish": (
        "Turkish draughts (Dama)",
        "As the Turkish rules (and Wikipedia's summary of them) give it: all 64 squares, 16 "
        "men each on the second and third rows. Men step and capture forward or sideways, "
        "never back; kings fly along rows and columns. The capture of the most pieces is "
        "compulsory, each piece is removed as it is jumped, and a capture may not turn back "
        "180 degrees.",
    ),
    "breakthrough": (
        "Breakthrough draughts",
        "International rules, and the first player to crown a king wins (as Lidraughts plays it).",
    ),
    "international_land_behind": (
        "International draughts, as a Portuguese rule text gives them",
        "A Portuguese text of the International rules, read word for word: 10×10, 20 men "
        "each, the FMJD rules but for one sentence, by which a flying king that takes a piece "
        "lands on the free square right behind it, unless only a farther square lets the "
        "capture go on. The text names no draw rule; FMJD's apply.",
    ),
    "website_checkers": (
        "Checkers, as a game website's rules give them",
        "A game website's checkers rules (in Dutch): English checkers, white against red, "
        "red moving first; any capture may be chosen. Drawn after 40 moves each without a "
        "capture or a promotion, and after 200 plies (100 moves each); no repetition rule. "
        "The website's clock is the environment's `TimeControl` wrapper, not a rule.",
    ),
    "english_adjudicated": (
        "English draughts, as a Spanish rule text gives them",
        "A Spanish text of the English rules: Black moves first, men move forward only, "
        "kings step one square, any capture may be chosen. A game stopped after 200 plies "
        "goes to the side with more pieces, then more kings (material adjudication).",
    ),
}


def giveaway_text(parent_title: str) -> tuple[str, str]:
    """Returns the title and words of a giveaway twin."""
    return (
        f"{parent_title}, giveaway",
        f"Losing draughts on the rules of {parent_title}: a player who cannot move on their "
        "turn (no pieces left, or all blocked) wins. Every other rule is the same.",
    )


# --- The code's view of the family ------------------------------------------------------------


def _damas() -> Any:
    """Returns the modules the catalogue reads, importing them from this checkout first."""
    for path in (str(ROOT), str(ROOT / "agents")):
        if path not in sys.path:
            sys.path.insert(0, path)
    from damas_env import Position, cli, family, geometry, render, rules

    return Position, cli, family, geometry, render, rules


def rulesets() -> list[str]:
    """Returns every distinct ruleset: the base variants, their giveaway forms, the presets."""
    _, _, family, _, _, rules = _damas()
    distinct = [n for n in rules.ruleset_names() if rules.get_ruleset(n).name == n]
    base = family.base_variants()
    giveaway = [n for n in distinct if rules.get_ruleset(n).giveaway and n not in base]
    presets = [n for n in distinct if (rules.RULES_DIR / f"{n}.yaml").is_file()]
    rest = [n for n in distinct if n not in base + giveaway + presets]
    return base + giveaway + rest + presets


def names_of(name: str) -> list[str]:
    """Returns the names that select a ruleset, its own first."""
    _, _, _, _, _, rules = _damas()
    target = rules.get_ruleset(name)
    names = [n for n in rules.ruleset_names() if rules.get_ruleset(n) is target or n == name]
    names = sorted(set(names), key=lambda n: (n != name, n))
    return names


def words(name: str) -> tuple[str, str]:
    """Returns the title and rules in words of a ruleset.

    Raises:
        KeyError: the ruleset is not described in :data:`VARIANTS`.
    """
    _, _, _, _, _, rules = _damas()
    r = rules.get_ruleset(name)
    if name in VARIANTS:
        return VARIANTS[name]
    if r.giveaway and name.removesuffix("_giveaway") in VARIANTS:
        return giveaway_text(VARIANTS[name.removesuffix("_giveaway")][0])
    raise KeyError(f"docs/gen_variants.py: describe the ruleset {name!r} in VARIANTS")


def board_svg(name: str, width: int = 320) -> str:
    """Returns the SVG picture of a ruleset's start position, about `width` pixels wide."""
    Position, _, _, geometry, render, rules = _damas()
    r = rules.get_ruleset(name)
    position = Position.start(r)
    geo = geometry.geometry(r.board_size, r.board_layout)
    px = width // r.board_size
    return render.svg(position.board, geo, square_px=px, colour_names=r.colour_names) + "\n"


# --- Perft ------------------------------------------------------------------------------------


def perft_tables() -> list[dict[str, Any]]:
    """Returns the published perft tables the tests check."""
    return yaml.safe_load(PERFT_FILE.read_text(encoding="utf-8"))


def perft_sources() -> dict[str, str]:
    """Returns the perft sources named in the data file's header, by key."""
    header = PERFT_FILE.read_text(encoding="utf-8").split("\n- ", 1)[0]
    body = header.split("# Sources:", 1)[1]
    sources: dict[str, str] = {}
    key = ""
    for line in body.splitlines():
        text = line.removeprefix("#").strip()
        found = re.match(r"([\w]+):\s+(.*)", text)
        if found and line.startswith("#   ") and not line.startswith("#    "):
            key = found.group(1)
            sources[key] = found.group(2)
        elif key and text:
            sources[key] += " " + text
    return sources


def engine_perft(name: str, leaves: int = 300_000) -> list[int]:
    """Returns the start position's perft counts up to the depth where they pass `leaves`."""
    Position, _, _, _, _, rules = _damas()
    position = Position.start(rules.get_ruleset(name))
    counts: list[int] = []
    while not counts or (counts[-1] < leaves and len(counts) < 8):
        counts.append(position.perft(len(counts) + 1))
    return counts


def _perft_table(counts: list[int]) -> list[str]:
    """Returns a Markdown table of perft counts by depth."""
    rows = ["| depth | leaves |", "|---:|---:|"]
    return rows + [f"| {depth} | {count:,} |" for depth, count in enumerate(counts, 1)]


def perft_section(name: str) -> list[str]:
    """Returns the perft part of a ruleset's section: the published tables of its positions,
    or the engine's own count of its start position."""
    Position, _, _, _, _, rules = _damas()
    start = Position.start(rules.get_ruleset(name)).fen()
    tables = [t for t in perft_tables() if t["variant"] == name]
    tables.sort(key=lambda t: t["fen"] != start)
    out: list[str] = []
    for table in tables:
        what = "Start position" if table["fen"] == start else f"Position `{table['fen']}`"
        source = " ".join(str(table["source"]).split())
        out += [f"{what} ({table['name']}); source: {source}.", ""]
        out += [*_perft_table(table["counts"]), ""]
    if not any(t["fen"] == start for t in tables):
        out += [
            "Start position: no published table for these rules; counted by this engine "
            "when this page was built.",
            "",
            *_perft_table(engine_perft(name)),
            "",
        ]
    return out


# --- Pages ------------------------------------------------------------------------------------


def _value(value: Any) -> str:
    """Returns a switch value as Markdown."""
    if isinstance(value, list | tuple):
        return "`[" + ", ".join(map(str, value)) + "]`" if value else "`[]`"
    return f"`{str(value).lower() if isinstance(value, bool) else value}`"


def _anchor(name: str) -> str:
    """Returns the anchor of a ruleset's section: its first public name, else its title."""
    names = names_of(name)
    text = names[0] if names else words(name)[0]
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def variant_section(name: str) -> list[str]:
    """Returns the catalogue's section of one ruleset."""
    _, cli, family, _, _, rules = _damas()
    r = rules.get_ruleset(name)
    title, text = words(name)
    names = names_of(name)
    select = ", ".join(f"`{n}`" for n in names)
    how = f'**Names:** {select}, as in `get_ruleset("{names[0]}")` or `--variant {names[0]}`.'
    changes = family.switch_changes(r)
    out = [
        f"## {title} {{#{_anchor(name)}}}",
        "",
        f'![{title}: the start position](boards/{_anchor(name)}.svg){{ width="320" }}',
        "",
        how,
        "",
        text,
        "",
        f"**Summary** (`damas variants`): {cli.ruleset_summary(r)}.",
        "",
    ]
    if changes:
        out += ["| switch | this ruleset | International |", "|---|---|---|"]
        out += [
            f"| [`{k}`](switches.md#{k}) | {_value(v)} | {_value(p)} |"
            for k, (p, v) in changes.items()
        ]
    else:
        out += ["Every switch has its default value (International's)."]
    out += [
        "",
        '??? note "All switches"',
        "",
        *[f"    - `{k}`: {_value(v)}" for k, v in r.to_dict().items() if k != "name"],
        "",
        "### Perft",
        "",
        *perft_section(name),
    ]
    return out


def summary_table(link: str | None = "") -> list[str]:
    """Returns the table of every ruleset: its title, names and summary. Each title links to
    its section of the catalogue at `link` (``""``: the same page), or to none (None)."""
    _, cli, _, _, _, rules = _damas()
    rows = ["| ruleset | names | summary |", "|---|---|---|"]
    for name in rulesets():
        title = words(name)[0]
        if link is not None:
            title = f"[{title}]({link}#{_anchor(name)})"
        selectors = ", ".join(f"`{n}`" for n in names_of(name))
        rows.append(f"| {title} | {selectors} | {cli.ruleset_summary(rules.get_ruleset(name))} |")
    return rows


def index_page(text: str) -> str:
    """Returns the variants page's text with the catalogue's table between its marks."""
    start, end = INDEX_MARKS
    before, rest = text.split(start, 1)
    after = rest.split(end, 1)[1]
    return "\n".join([before + start, "", *summary_table(link=None), "", end + after])


def catalogue() -> str:
    """Returns the catalogue page: a summary table, then a section per ruleset."""
    names = rulesets()
    sources = [f"- **{key}**: {text}" for key, text in perft_sources().items()]
    return "\n".join(
        [
            "# Variant catalogue",
            "",
            "Every ruleset the engine knows, made from the code each time this site is built: "
            "the start position, the rules in words with the rulebook they come from, the "
            "[switches](switches.md) that set them, and perft counts (the number of leaves of "
            "the legal move tree, a whole capture being one move) with their sources.",
            "",
            *summary_table(),
            "",
            *[line for name in names for line in variant_section(name)],
            "## Perft sources",
            "",
            "The published counts live in `tests/data/perft.yaml`, which the tests check "
            "(deep ones with `python -m pytest -m slow tests/test_perft.py`).",
            "",
            *sources,
            "",
        ]
    )


def switches_page() -> str:
    """Returns the page of the switches: each one's values, meaning and who sets it."""
    _, _, _, _, _, rules = _damas()
    missing = [f.name for f in fields(rules.Ruleset) if f.name not in SWITCHES]
    if missing:
        raise KeyError(f"docs/gen_variants.py: describe the switches {missing} in SWITCHES")
    default = rules.Ruleset()
    out = [
        "# Rule switches",
        "",
        "A `Ruleset` is a frozen dataclass of the switches below, made from the code each "
        "time this site is built. A named variant is one value of it; "
        "`get_ruleset(name, **switches)` or `ruleset.replace(**switches)` derives another.",
        "",
    ]
    for f in fields(rules.Ruleset):
        choices = rules.SWITCH_CHOICES.get(f.name)
        kind = " / ".join(f"`{c}`" for c in choices) if choices else f"`{f.type}`"
        others = [
            f"{n} {_value(getattr(rules.get_ruleset(n), f.name))}"
            for n in rulesets()
            if getattr(rules.get_ruleset(n), f.name) != getattr(default, f.name)
            and (f.name == "giveaway" or not rules.get_ruleset(n).giveaway)
        ]
        out += [
            f"## `{f.name}` {{#{f.name}}}",
            "",
            SWITCHES[f.name],
            "",
            f"- values: {kind}",
            f"- International: {_value(getattr(default, f.name))}",
        ]
        if others and f.name != "name":
            out.append(f"- other variants: {', '.join(others)}")
        out.append("")
    return "\n".join(out)


def pages() -> dict[str, str]:
    """Returns the generated files by path under the site: the catalogue, the switches page
    and a board picture per ruleset."""
    files = {
        "variants/catalogue.md": catalogue(),
        "variants/switches.md": switches_page(),
    }
    files |= {f"variants/boards/{_anchor(name)}.svg": board_svg(name) for name in rulesets()}
    return files


def main(argv: list[str]) -> int:
    """Writes the generated files under the folder given (default ``site-gen``), or with
    ``--index`` the catalogue's table into ``docs/variants/index.md``."""
    if argv == ["--index"]:
        INDEX_FILE.write_text(index_page(INDEX_FILE.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    out = Path(argv[0] if argv else "site-gen")
    for path, text in pages().items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
