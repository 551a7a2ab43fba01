"""A Celery task that a request queues logs that request's id, in a real worker.

An organiser schedules a fixture through a real Daphne (the form, as a browser posts it),
with the id the proxy would send (X-Request-ID); the seated players' notices are queued
after the commit and a real worker (JSON logs) runs the task. The worker's lines for that
task carry the request's id, as do the web process's line for the request and the
response's header."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings
from django.test import Client

from tests.reliability.harness import CeleryWorker, service_env, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]

JSON_LOGS = {"LOG_FORMAT": "json"}


def json_lines(path: Path) -> list[dict[str, Any]]:
    lines = []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
    return lines


def test_a_task_queued_during_a_request_logs_that_requests_id(
    start_daphne, redis_server, layer_prefix, make_member, tmp_path
) -> None:
    organiser = make_member("organiser", organiser=True)
    make_member("alice")
    make_member("bob")
    worker = CeleryWorker(
        service_env(redis_url=redis_server.url, prefix=layer_prefix, **JSON_LOGS),
        tmp_path / "worker.log",
        name=f"{layer_prefix}-worker",
    )
    try:
        worker.start()
        daphne = start_daphne(**JSON_LOGS)

        signed_in = Client()
        signed_in.force_login(organiser, backend="django.contrib.auth.backends.ModelBackend")
        browser = requests.Session()
        browser.trust_env = False  # no proxy between the test and Daphne
        browser.cookies.set(
            settings.SESSION_COOKIE_NAME, signed_in.cookies[settings.SESSION_COOKIE_NAME].value
        )
        page = browser.get(f"{daphne.http_url}/organise/", timeout=20)
        assert page.status_code == 200
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, "no CSRF token on the organiser's page"

        request_id = f"req-{uuid.uuid4().hex}"
        answer = browser.post(
            f"{daphne.http_url}/organise/fixture/",
            data={
                "csrfmiddlewaretoken": token.group(1),
                "fixture-name": "Logged",
                "fixture-ruleset": "word-duel",
                "fixture-visibility": "public",
                "fixture-no_show_minutes": "15",
                "fixture-first": "alice",
                "fixture-second": "bob",
            },
            headers={"X-Request-ID": request_id},
            allow_redirects=False,
            timeout=20,
        )
        assert answer.status_code == 302, answer.text[:500]
        assert answer.headers["X-Request-ID"] == request_id

        def task_lines() -> list[dict[str, Any]]:
            return [
                line
                for line in json_lines(worker.log_path)
                if line.get("request_id") == request_id
                and "notifications.dispatch_notices" in line["message"]
                and "succeeded" in line["message"]
            ]

        lines = wait_until(task_lines, timeout=20, what="the task's line with the request id")
        assert lines[0]["logger"] == "celery.app.trace"
        # The request's own line in the web process: the same id.
        assert any(
            line.get("request_id") == request_id
            and line["logger"] == "wordduel.request"
            and line["path"] == "/organise/fixture/"
            for line in json_lines(daphne.log_path)
        )
    finally:
        worker.stop()
