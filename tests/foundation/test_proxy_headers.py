"""X-Forwarded-Proto is believed only when the deployment says a proxy of its own stands in
front (``TRUSTED_PROXY_COUNT``): otherwise any client could claim HTTPS."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import django, json
django.setup()
from django.conf import settings
from django.test import RequestFactory
request = RequestFactory().get("/", HTTP_X_FORWARDED_PROTO="https")
print(json.dumps({"header": settings.SECURE_PROXY_SSL_HEADER, "secure": request.is_secure()}))
"""


def production(**extra: str) -> dict[str, object]:
    env = {
        **{k: v for k, v in os.environ.items() if k != "TRUSTED_PROXY_COUNT"},
        "DJANGO_SETTINGS_MODULE": "wordduel.settings",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "duel.example.org",
        **extra,
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=True,
    )  # fmt: skip
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("extra", "believed"),
    [({}, False), ({"TRUSTED_PROXY_COUNT": "1"}, True)],
    ids=["no proxy configured", "behind one proxy"],
)
def test_forwarded_proto_is_believed_only_behind_a_configured_proxy(
    extra: dict[str, str], believed: bool
) -> None:
    seen = production(**extra)
    assert seen["secure"] is believed
    assert (seen["header"] is not None) is believed
