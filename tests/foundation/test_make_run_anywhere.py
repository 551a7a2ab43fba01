"""``make run PORT=...`` serves a working board on that port (the origins its sockets were
allowed from, and its links, were fixed to :8000, so its boards never connected).

The quick start runs as a newcomer runs it: ``make run`` on a free port, its own SQLite file.
In Chromium a demo member signs in with the password it printed, starts a game against the
computer and plays a word over the socket. The same server's ``/api/docs`` renders the API
(Swagger UI refused the schema while it named a key twice). The browser runs in a thread of
its own, and the test makes no database call at all: the server's data is its own SQLite
file, read through its pages and API only.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from engine import Board, get_ruleset, legal_plays
from lexicon.lexicon import get_lexicon
from tests.processes import spawn

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]
#: `make run` migrates, makes the demo members and plays a rated demo season first.
START_SECONDS = 600


@dataclass(frozen=True)
class QuickStart:
    url: str
    password: str
    printed: str


def _free_port() -> int:
    """A port nothing listens on now, other than 8000 (the quick start's default)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port != 8000:
            return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz/web", timeout=2) as response:  # noqa: S310
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def quick_start(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QuickStart]:
    """`make run PORT=<a free port>` with its own SQLite file, until the module is done."""
    directory = tmp_path_factory.mktemp("make-run")
    log = directory / "make-run.log"
    port = _free_port()
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"SITE_URL", "WEBSOCKET_ALLOWED_ORIGINS", "CELERY_BROKER_URL", "DEBUG"}
    }
    env["SQLITE_PATH"] = str(directory / "quick-start.sqlite3")
    with log.open("wb") as out:
        process = spawn(
            ["make", "--no-print-directory", "run", f"PORT={port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(url):
            assert process.poll() is None, f"make run exited:\n{log.read_text()[-5000:]}"
            assert time.monotonic() < deadline, f"make run did not serve:\n{log.read_text()}"
            time.sleep(1)
        printed = log.read_text()
        [password] = re.findall(r"Password for all of them: (\S+)", printed)
        yield QuickStart(url, password, printed)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _in_browser(work: Any, *args: Any) -> Any:
    """Run ``work(browser, *args)`` with Chromium, in a thread of its own."""
    assert Path(CHROMIUM).exists(), "Chromium is missing: run `make test-packages`"

    def run() -> Any:
        from playwright.sync_api import expect, sync_playwright

        expect.set_options(timeout=30_000)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            try:
                return work(browser, *args)
            finally:
                browser.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result(timeout=600)


#: Turns passed, at most, waiting for a rack that makes a word (DNQSSTT on an empty board
#: makes none; after the computer's word, a rack plays through its letters).
PASSES_WAITING_FOR_A_WORD = 4


def _a_play(state: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The best play of the caller's rack on the board, from the API's view of the match;
    None when the rack makes no word there."""
    ruleset = get_ruleset(state["ruleset"])
    lexicon = get_lexicon(state["lexicon"], max_len=ruleset.lexicon_max_len)
    plays = legal_plays(
        Board.from_rows(state["board"]), state["rack"], ruleset=ruleset, lexicon=lexicon
    )
    if not plays:
        return None
    best = min(plays, key=lambda play: play.sort_key)
    return [{"row": t.row, "col": t.col, "letter": t.letter, "blank": t.blank} for t in best.tiles]


def _a_word_to_play(page: Any, match_id: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The match as it stands and a play from the member's rack, passing (at the board, as
    she would) while her rack makes no word, until the computer's answer gives her one."""
    from playwright.sync_api import expect

    for _ in range(PASSES_WAITING_FOR_A_WORD + 1):
        state = page.request.get(f"/api/matches/{match_id}/").json()
        tiles = _a_play(state)
        if tiles is not None:
            return state, tiles
        page.get_by_role("button", name="Pass…").click()
        page.get_by_role("button", name="Yes, pass").click()
        # Her pass and the computer's answer: two more moves in the list, then her turn.
        expect(page.locator("#moves li")).to_have_count(state["turn_number"] + 2, timeout=60_000)
        expect(page.locator("#turn-line")).to_contain_text("Your turn", timeout=60_000)
    raise AssertionError(f"no word from {PASSES_WAITING_FOR_A_WORD + 1} racks in a row")


def _sign_in_and_play_a_word(browser: Any, url: str, password: str) -> dict[str, Any]:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=url)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto("/accounts/sign-in/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("button", name="Play the computer")).to_be_visible()
    page.get_by_role("button", name="Play the computer").click()
    board = page.locator("#match")
    expect(board).to_have_attribute("data-synced", "yes")  # the socket is open and synced
    expect(page.locator("#turn-line")).to_contain_text("Your turn", timeout=60_000)
    match_id = int(re.findall(r"/matches/(\d+)/", page.url)[0])
    before, tiles = _a_word_to_play(page, match_id)
    for tile in tiles:
        label = "blank," if tile["blank"] else f"{tile['letter']},"
        page.locator(f'#your-rack button[data-tile][aria-label^="{label}"]').first.click()
        square = f"{chr(65 + tile['col'])}{tile['row'] + 1}"
        page.locator(f'td[data-square="{square}"]').click()
        if tile["blank"]:
            dialog = page.locator("#blank-dialog")
            dialog.get_by_role("button", name=tile["letter"], exact=True).click()
    page.get_by_role("button", name="Play word").click()
    # The move list, not the status line: the computer's reply (a thread of the web process
    # in the quick start) may replace "You played ..." before it is read. The computer moves
    # only after hers, so one more entry in the list means hers went through.
    expect(page.locator("#moves li")).not_to_have_count(before["turn_number"])
    after = page.request.get(f"/api/matches/{match_id}/").json()
    context.close()
    assert errors == []
    return {"before": before, "after": after, "tiles": tiles}


def test_make_run_on_another_port_serves_a_board_that_plays(quick_start: QuickStart) -> None:
    port = quick_start.url.rsplit(":", 1)[1]
    # The links it printed are where it serves.
    assert f"Sign in at {quick_start.url}/accounts/sign-in/" in quick_start.printed
    assert "127.0.0.1:8000" not in quick_start.printed
    played = _in_browser(_sign_in_and_play_a_word, quick_start.url, quick_start.password)
    before, after = played["before"], played["after"]
    assert after["turn_number"] > before["turn_number"]  # the word went over the socket
    placed = {(t["row"], t["col"]) for t in played["tiles"]}
    rows = after["board"]
    assert all(rows[row][col] != "." for row, col in placed)
    assert port != "8000"


def _render_the_api_docs(browser: Any, url: str) -> str:
    from playwright.sync_api import expect

    context = browser.new_context(base_url=url)
    page = context.new_page()
    page.goto("/api/")  # leads to the docs
    expect(page).to_have_url(f"{url}/api/docs")
    operation = page.locator(".opblock-summary-path", has_text="/api/matches/{match_id}/export.gcg")
    expect(operation).to_be_visible()
    text = page.locator("#swagger-ui").inner_text()
    context.close()
    return str(text)


def test_the_api_docs_render(quick_start: QuickStart) -> None:
    text = _in_browser(_render_the_api_docs, quick_start.url)
    assert "Word Duel API" in text
    assert "duplicated mapping key" not in text
    assert "Unable to render" not in text
