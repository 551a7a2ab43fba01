"""Small things a newcomer meets: a time ends its sentence without a stray space, a missing
imported game's page speaks of share links (not of matches' viewing links), and the site has
an icon, served with the static files."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone

from imports import services as import_services

pytestmark = pytest.mark.django_db

GAME = b"#player1 ann Ann\n#player2 bo Bo\n>ann: AEGINRT 8D GRANITE +70 70\n"


def _text(html: str) -> str:
    """What a reader sees of ``html``: tags dropped, white space as one space."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def test_a_time_is_followed_by_whatever_follows_it_not_by_a_space() -> None:
    rendered = render_to_string("matches/_time.html", {"t": timezone.now()})
    assert rendered.endswith("UTC</time>")


def test_the_kickoff_banner_ends_its_sentence_at_the_time(make_fixture, alice, bob) -> None:
    match = make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(hours=3))
    page = Client().get(f"/matches/{match.id}/").content.decode()
    [banner] = re.findall(r'<p id="kickoff-banner"[^>]*>(.*?)</p>', page, re.S)
    assert re.fullmatch(r"This match begins \w{3} \d+ \w{3} \d{4}, \d\d:\d\d UTC\.", _text(banner))


def _not_found_text(client: Client, path: str) -> str:
    """The words of the 404 page's main part (not the site's navigation)."""
    response = client.get(path)
    assert response.status_code == 404
    [main] = re.findall(r"<main[^>]*>(.*)</main>", response.content.decode(), re.S)
    return _text(main)


def test_a_missing_imported_game_speaks_of_share_links(alice, bob) -> None:
    game = import_services.import_game(owner=alice, data=GAME, ruleset="classic", lexicon="enable")
    signed_in = Client()
    signed_in.force_login(bob)
    for client, path in [
        (signed_in, f"/imports/{game.id}/"),  # alice's, not shared
        (signed_in, f"/imports/{game.id}/?key=wrong"),
        (signed_in, "/imports/999999/"),
        (Client(), f"/imports/{game.id}/"),
    ]:
        text = _not_found_text(client, path)
        assert "An imported game is shown to the member who imported it" in text, path
        assert "share link" in text
        assert "viewing link" not in text
        assert "match" not in text.replace("Back to the matches", "")
    assert "sign in to see it" in _not_found_text(Client(), f"/imports/{game.id}/")
    # A match's missing page still speaks of matches.
    assert "viewing link" in _not_found_text(signed_in, "/matches/999999/")


def test_every_page_names_the_sites_icon_and_it_is_served() -> None:
    page = Client().get("/how-to-play/").content.decode()
    [icon] = re.findall(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
    assert icon == "/static/favicon.svg"
    served = Client().get(icon)
    assert served.status_code == 200
    assert served["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in b"".join(served.streaming_content)


def test_favicon_ico_leads_to_the_icon() -> None:
    """Browsers ask for /favicon.ico where a page names no icon (JSON, the admin)."""
    response = Client().get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"] == "/static/favicon.svg"
