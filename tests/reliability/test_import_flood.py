"""Thirty members import a tournament record at the same moment, through a real Daphne; the
pages nobody is importing on keep answering 200 throughout, every import is answered at once
(a redirect to its page), and a real Celery worker then finds the best plays of each.

Before imports ran in Celery, each import ran the move generator in its request for up to
20 s, holding a pooled database connection: thirty at once ran the pool dry, and unrelated
pages answered 500.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.test import Client

from imports.models import ImportedGame
from tests.reliability.harness import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

IMPORTERS = 30
RECORD = (
    Path(__file__).resolve().parents[1] / "fixtures" / "gcg" / "josh_nationals_round_1.gcg"
).read_bytes()
UNRELATED = ("/", "/how-to-play/", "/healthz/web", "/accounts/sign-in/")


def browser_of(member, base_url: str) -> tuple[requests.Session, str]:
    """A session signed in as ``member`` and the import form's CSRF token."""
    signed_in = Client()
    signed_in.force_login(member, backend="django.contrib.auth.backends.ModelBackend")
    browser = requests.Session()
    browser.trust_env = False  # nothing between the test and Daphne
    browser.cookies.set(
        settings.SESSION_COOKIE_NAME, signed_in.cookies[settings.SESSION_COOKIE_NAME].value
    )
    page = browser.get(f"{base_url}/imports/", timeout=30)
    assert page.status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, "no CSRF token on the import page"
    return browser, token.group(1)


def test_thirty_parallel_imports_leave_other_pages_answering(
    start_daphne, start_worker, make_member
) -> None:
    start_worker("imports", IMPORT_ANALYSIS_SECONDS="1")
    daphne = start_daphne()
    base = daphne.http_url
    importers = [browser_of(make_member(), base) for _ in range(IMPORTERS)]
    visitor = requests.Session()
    visitor.trust_env = False

    answers: list[int | str] = []
    start = threading.Barrier(IMPORTERS + 1)

    def import_one(browser: requests.Session, token: str) -> None:
        start.wait()
        try:
            answer = browser.post(
                f"{base}/imports/",
                data={"csrfmiddlewaretoken": token, "ruleset": "classic", "lexicon": "enable"},
                files={"record_file": ("round1.gcg", RECORD, "application/octet-stream")},
                headers={"Referer": f"{base}/imports/"},
                allow_redirects=False,
                timeout=60,
            )
            answers.append(answer.status_code)
        except requests.RequestException as error:
            answers.append(type(error).__name__)

    threads = [threading.Thread(target=import_one, args=pair) for pair in importers]
    for thread in threads:
        thread.start()
    start.wait()
    seen: list[tuple[str, int | str]] = []
    rounds_after = 0
    while rounds_after < 3:  # throughout the flood, and a few rounds after it
        if not any(thread.is_alive() for thread in threads):
            rounds_after += 1
        for path in UNRELATED:
            try:
                status: int | str = visitor.get(f"{base}{path}", timeout=30).status_code
            except requests.RequestException as error:
                status = type(error).__name__
            seen.append((path, status))
    for thread in threads:
        thread.join(timeout=90)

    assert [s for s in seen if s[1] != 200] == [], daphne.log_text()[-3000:]
    assert answers == [302] * IMPORTERS
    assert ImportedGame.objects.count() == IMPORTERS

    # The worker works through them (a second of analysis each, in this test).
    wait_until(
        lambda: ImportedGame.objects.filter(status=ImportedGame.Status.DONE).count() == IMPORTERS,
        timeout=240,
        what="the worker to analyse every import",
        every=1,
    )
    game = ImportedGame.objects.first()
    assert game is not None
    assert any(turn["best"] for turn in game.replay["turns"])
