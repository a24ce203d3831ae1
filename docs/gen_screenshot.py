"""The picture of ``damas web`` on its docs page, taken afresh at every site build.

:func:`screenshot` serves the app on a free port, plays the first moves of an English game
against ``alphabeta:depth=4`` through its API, opens the page in Debian's headless chromium
(driven by selenium through Debian's chromedriver), picks a piece so its targets show, and
returns the PNG. The picture lives in the built site only, never in the checkout, so it
cannot go stale. Where chromium, chromedriver or selenium is missing, :func:`page_picture`
returns a placeholder picture that says what is missing, and the hook logs it as a warning:
the strict build (``mkdocs build``, the tests) stops on it.
"""

from __future__ import annotations

import io
import json
import shutil
import time
import urllib.request
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--window-size=1120,820",
    "--hide-scrollbars",
)
#: Seconds the page may take to show the game: a hang guard, not a speed claim.
WAIT = 300
#: Plies played before the picture: the agent moves first (Black), so the person is to move.
PLIES = 7


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return dict(json.loads(response.read()))


def _game(url: str) -> dict[str, Any]:
    """Returns an English game, a person against alpha-beta, after PLIES plies."""
    game = _post(f"{url}api/games", {"variant": "english", "black": "alphabeta:depth=4", "seed": 0})
    for _ in range(PLIES):
        key = game["id"]
        if game["agent_to_move"]:
            game = _post(f"{url}api/games/{key}/agent", {})
        else:
            game = _post(f"{url}api/games/{key}/move", {"squares": game["routes"][-1]["squares"]})
    return game


def screenshot() -> bytes:
    """Returns the PNG of the page in the middle of a game, a piece picked."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    from damas_agents.web.cli import running
    from damas_agents.web.server import create_app

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    with running(create_app()) as url:
        game = _game(url)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            driver.get(f"{url}#game={game['id']}")
            _wait(driver, "return document.querySelectorAll('#moves li').length", PLIES)
            origin = game["routes"][0]["squares"][0]
            x, y = driver.execute_script(
                "const r = document.querySelector(`rect.square[data-square='${arguments[0]}']`)"
                ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2];",
                origin,
            )
            actions = ActionBuilder(driver)
            actions.pointer_action.move_to_location(int(x), int(y)).click()
            actions.perform()
            _wait(driver, "return document.querySelectorAll('circle.target').length", 1)
            return bytes(driver.get_screenshot_as_png())
        finally:
            driver.quit()


def _wait(driver: Any, script: str, least: int) -> None:
    """Waits until a script's count reaches `least`."""
    give_up = time.monotonic() + WAIT
    while driver.execute_script(script) < least:
        if time.monotonic() > give_up:
            raise TimeoutError(f"the page did not show {least} of {script!r}")
        time.sleep(0.1)


def missing() -> str:
    """Returns what the screenshot needs and this machine lacks, or ""."""
    lacking = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        lacking.append("selenium (pip install -e '.[docs]')")
    return ", ".join(lacking)


def page_picture() -> tuple[bytes, str]:
    """Returns (PNG, problem): the screenshot, or where it cannot be taken a placeholder
    picture that says why, and why ("" when the screenshot was taken)."""
    lacking = missing()
    if not lacking:
        return screenshot(), ""
    problem = (
        f"the damas web screenshot was not taken: {lacking} missing "
        "(apt-get install -y chromium chromium-driver)"
    )
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (900, 60), (238, 221, 187))
    ImageDraw.Draw(image).text((12, 22), problem, fill=(40, 40, 40))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue(), problem
