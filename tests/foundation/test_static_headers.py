"""Static files carry the same protection as every page (issue 36, item 6): no sniffing of a
file's type, and HTTPS only once deployed. Served by a web process (WhiteNoise, under
Django's SecurityMiddleware) here; served by the proxy from disk, tests/reliability/
test_stack.py checks the same headers through Caddy."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_a_static_file_from_a_web_process_carries_nosniff_and_hsts(client, settings) -> None:
    settings.SECURE_HSTS_SECONDS = 31536000  # as deployed (DEBUG off)
    settings.SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    settings.SECURE_HSTS_PRELOAD = True
    page = client.get("/", secure=True)
    asset = client.get("/static/wordduel.css", secure=True)
    assert asset.status_code == 200
    assert asset["Content-Type"].startswith("text/css")
    assert asset["X-Content-Type-Options"] == "nosniff"
    assert asset["Strict-Transport-Security"] == page["Strict-Transport-Security"]
    assert asset["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
