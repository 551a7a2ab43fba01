"""/healthz and /healthz/web tell the public whether each part is well, never which host or
process answered: the host and PID (and a worker's node name, which holds the host) are for
a request carrying the operator's token (``HEALTH_TOKEN``) only (issue 36, item 6)."""

from __future__ import annotations

import json
import os
import socket

import pytest

pytestmark = pytest.mark.django_db

TOKEN = "an-operators-token-for-tests"


def _identifies_the_host(body: dict) -> bool:
    text = json.dumps(body)
    return socket.gethostname() in text or str(os.getpid()) in text


@pytest.mark.parametrize("path", ["/healthz", "/healthz/web"])
def test_the_public_answer_names_no_host_or_process(client, settings, path) -> None:
    settings.HEALTH_TOKEN = TOKEN
    public = client.get(path).json()
    assert public["web"]["ok"] is True
    assert public["database"]["ok"] is True
    assert not _identifies_the_host(public), public
    # A wrong token is the public's answer.
    wrong = client.get(path, headers={"Authorization": "Bearer not-the-token"}).json()
    assert not _identifies_the_host(wrong), wrong


@pytest.mark.parametrize("path", ["/healthz", "/healthz/web"])
def test_the_operator_sees_which_process_answered(client, settings, path) -> None:
    settings.HEALTH_TOKEN = TOKEN
    body = client.get(path, headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert body["web"]["process"] == f"{socket.gethostname()}:{os.getpid()}"


def test_without_a_token_configured_nobody_is_the_operator(client, settings) -> None:
    settings.HEALTH_TOKEN = ""
    for header in ("Bearer ", "Bearer", ""):
        body = client.get("/healthz/web", headers={"Authorization": header}).json()
        assert "process" not in body["web"]
        assert not _identifies_the_host(body), body
