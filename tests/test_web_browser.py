"""``damas web`` in a real browser: Debian's chromium, headless, driven by selenium through
Debian's chromedriver (the README's test command installs both).

The page is loaded from a server on a free port; a person drags and clicks pieces, plays a
capture hop by hop, has an illegal drop refused, sees the agent reply, takes back, flips the
board and steps through the games of a PDN file. Waits poll the page (WAIT is a hang guard,
not a speed claim).
"""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from damas_agents.web.cli import running
from damas_agents.web.server import create_app
from damas_env.game import Game

pytestmark = pytest.mark.xdist_group("browser")  # one chromium per test run (--dist loadgroup)

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: Seconds before a wait gives up: a hang guard on a busy machine, not a speed claim.
WAIT = 120
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--window-size=1200,900",
)


def browser() -> webdriver.Chrome:
    """Returns headless chromium driven by Debian's chromedriver (never a downloaded one)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    assert not missing, (
        f"{missing} missing: apt-get install -y chromium chromium-driver (the README's test "
        "command installs them)"
    )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running(create_app()) as address:
        yield address


@pytest.fixture(scope="module")
def page(url: str) -> Iterator[webdriver.Chrome]:
    driver = browser()
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver: webdriver.Chrome, check: Any, what: str) -> Any:
    return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(lambda d: check(d), what)


def text(driver: webdriver.Chrome, element_id: str) -> str:
    """Returns an element's shown text (read in one script: the page redraws at will)."""
    script = "const e = document.getElementById(arguments[0]); return e && e.innerText"
    shown = driver.execute_script(script, element_id)
    assert shown is not None, f"the page has no element #{element_id}"
    return str(shown).strip()


def texts(driver: webdriver.Chrome, selector: str) -> list[str]:
    """Returns the shown text of every element a CSS selector matches, read in one script
    (a ticking clock redraws its spans between a lookup and a later read of each)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText.trim())"
    return list(driver.execute_script(script, selector))


def moves(driver: webdriver.Chrome) -> list[str]:
    """Returns the move list's moves (read in one script: the page redraws it at will)."""
    script = "return [...document.querySelectorAll('#moves li')].map(li => li.firstChild.data)"
    return list(driver.execute_script(script))


def count(driver: webdriver.Chrome, selector: str) -> int:
    """Returns how many elements match a CSS selector now."""
    return int(
        driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector)
    )


def start_game(
    driver: webdriver.Chrome, url: str, variant: str, white: str, black: str, fen: str = ""
) -> str:
    """Opens the page, starts a game and returns its id once the page shows it."""
    driver.get(url)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"), "variants")
    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
    for field, value in (("white", white), ("black", black), ("fen", fen)):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    driver.find_element(By.ID, "start").click()
    wait(driver, lambda d: "#game=" in d.current_url, "the game's id in the address")
    return str(driver.current_url.split("#game=")[1])


def state(url: str, key: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}api/games/{key}") as response:
        return dict(json.loads(response.read()))


def centre(driver: webdriver.Chrome, index: int) -> tuple[int, int]:
    """Returns the viewport pixel at the centre of a square (the board redraws its elements
    at every change, so a drag aims at points, not at elements)."""
    box = driver.execute_script(
        "const r = document.querySelector(`rect.square[data-square='${arguments[0]}']`)"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];",
        index,
    )
    return int(box[0]), int(box[1])


def drag(driver: webdriver.Chrome, origin: int, target: int) -> None:
    """Drags with the mouse from one square's centre to another's, in small steps."""
    (x0, y0), (x1, y1) = centre(driver, origin), centre(driver, target)
    actions = ActionBuilder(driver)
    mouse = actions.pointer_action
    mouse.move_to_location(x0, y0).pointer_down()
    for step in range(1, 5):
        mouse.move_to_location(x0 + (x1 - x0) * step // 4, y0 + (y1 - y0) * step // 4)
    mouse.pointer_up()
    actions.perform()


def click(driver: webdriver.Chrome, index: int) -> None:
    """Clicks a square's centre."""
    x, y = centre(driver, index)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(x, y).click()
    actions.perform()


def test_drag_a_piece_and_see_the_agent_reply(page: webdriver.Chrome, url: str) -> None:
    key = start_game(page, url, "english", "human", "greedy")
    wait(page, lambda d: len(moves(d)) == 1, "the agent's first move (Black starts)")
    route = state(url, key)["routes"][0]["squares"]
    assert count(page, "circle.piece") == 24
    drag(page, route[0], route[1])
    wait(page, lambda d: len(moves(d)) == 3, "the person's move and the agent's reply")
    assert state(url, key)["frames"][2]["squares"] == route
    assert "drag or click" in text(page, "status")


def test_an_illegal_drop_is_refused(page: webdriver.Chrome, url: str) -> None:
    key = start_game(page, url, "english", "human", "human")
    before = state(url, key)
    origin = before["routes"][0]["squares"][0]
    targets = {r["squares"][1] for r in before["routes"] if r["squares"][0] == origin}
    board = before["frames"][0]["board"]
    empty = next(sq for sq, code in enumerate(board) if code == 0 and sq not in targets)
    drag(page, origin, empty)  # an empty square the piece cannot reach
    wait(page, lambda d: "illegal drop" in text(d, "error"), "the refusal")
    assert state(url, key)["frames"] == before["frames"] and moves(page) == []


def test_click_to_move_undo_and_flip(page: webdriver.Chrome, url: str) -> None:
    key = start_game(page, url, "russian", "human", "random")
    route = state(url, key)["routes"][0]["squares"]
    click(page, route[0])
    wait(page, lambda d: count(d, "circle.target"), "targets shown")
    click(page, route[1])
    wait(page, lambda d: len(moves(d)) == 2, "the move and the reply")
    page.find_element(By.ID, "undo").click()
    wait(page, lambda d: moves(d) == [], "the move pair taken back")
    x = centre(page, 0)
    page.find_element(By.ID, "flip").click()
    assert centre(page, 0) != x


def test_a_multi_capture_hop_by_hop(page: webdriver.Chrome, url: str) -> None:
    start_game(page, url, "english", "human", "human", fen="B:W18,27:B14")
    drag(page, 13, 22)  # 14x23: the first hop
    wait(page, lambda d: "go on capturing" in text(d, "status"), "the capture in progress")
    assert count(page, "circle.piece.captured") == 1
    assert moves(page) == []  # nothing played until the route is complete
    drag(page, 22, 31)  # x32
    wait(page, lambda d: moves(d) == ["14x32"], "the capture played")
    wait(page, lambda d: text(d, "status").startswith("0-1"), "the result")


def test_replay_a_pdn_file_and_survive_a_bad_one(
    page: webdriver.Chrome, url: str, tmp_path: Path
) -> None:
    game = Game("international")
    for move in ("32-28", "19-23", "28x19", "14x23"):
        game.push(move)
    good = tmp_path / "match.pdn"
    good.write_text(game.to_pdn(White="alphabeta:depth=2", Black="random"))
    bad = tmp_path / "bad.pdn"
    bad.write_text('[Event "unclosed\n1. 32-28')
    page.get(url)
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"), "the page")
    page.find_element(By.ID, "pdn-file").send_keys(str(bad))
    wait(page, lambda d: "PDN line 1" in text(d, "error"), "the bad file's error")
    page.find_element(By.ID, "pdn-file").send_keys(str(good))
    wait(page, lambda d: len(moves(d)) == 4, "the game's moves")
    assert text(page, "error") == "" and "alphabeta:depth=2" in text(page, "players")
    board = page.find_element(By.ID, "board")
    for ply in range(1, 5):
        page.find_element(By.ID, "next").click()
        assert board.get_attribute("data-frame") == str(ply)
    assert moves(page) == ["32-28", "19-23", "28x19", "14x23"]
    assert text(page, "status").startswith("ply 4 of 4")
    page.find_element(By.ID, "first").click()
    assert board.get_attribute("data-frame") == "0"
    assert count(page, "circle.piece") == 40


def test_watch_two_agents_with_their_scores_and_pvs(page: webdriver.Chrome, url: str) -> None:
    start_game(page, url, "international", "random", "alphabeta:depth=2")
    wait(page, lambda d: len(moves(d)) >= 4, "four moves of the agents")
    page.find_element(By.ID, "pause").click()
    notes = page.execute_script(
        "return [...document.querySelectorAll('#moves li')].map(li => li.children.length)"
    )
    assert notes[:4] == [0, 1, 0, 1]  # alpha-beta (the second mover here) notes its search
    note = texts(page, "#moves li:nth-child(2) .note")[0]
    assert re.fullmatch(r"[+-]\d+\.\d\d \(depth 2\) pv( \d+[-x]\d+)+", note), note


def test_a_rules_file_and_a_clock_from_the_form(
    page: webdriver.Chrome, url: str, tmp_path: Path
) -> None:
    rules = tmp_path / "quick.yaml"
    rules.write_text("base: english\nply_limit: 20\ncolour_names: [white, red]\n")
    page.get(url)
    wait(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option"), "the page")
    page.find_element(By.ID, "rules-file").send_keys(str(rules))
    wait(page, lambda d: "rules quick read" in text(d, "status"), "the rules read")
    assert "(uploaded)" in Select(page.find_element(By.ID, "variant")).first_selected_option.text
    assert text(page, "black-label") == "red (moves first)"
    page.find_element(By.ID, "minutes").send_keys("3")
    black = page.find_element(By.ID, "black")
    black.clear()  # a person moves first: white's clock stays at 3:00 however busy the machine
    black.send_keys("human")
    page.find_element(By.ID, "start").click()
    wait(page, lambda d: "quick:" in text(d, "players"), "the game of the uploaded rules")
    assert "ply 0/20" in text(page, "limits")
    clocks = texts(page, "#clocks span")
    assert clocks[0] == "white 3:00" and clocks[1].startswith("red ")


def test_the_person_s_side_is_at_the_bottom(page: webdriver.Chrome, url: str) -> None:
    start_game(page, url, "international", "greedy", "human")
    assert centre(page, 0)[1] > centre(page, 49)[1]  # Black's side, squares 1-20, below
    start_game(page, url, "international", "human", "greedy")
    assert centre(page, 0)[1] < centre(page, 49)[1]
