"""A leak scan of every notice a game sends, by email and by push: no rack's letters, and
nothing about the bag. The scanner is shown to catch a planted rack first.

A quick first net only: it knows the shapes it looks for (runs of capitals, whole racks of
four or more tiles) and skips calendar attachments, so "A, E, I" passes it. The proof is
tests/secrecy (two worlds compared byte for byte), which catches any spelling."""

from __future__ import annotations

import re
from datetime import timedelta

import http_ece
import pytest
import time_machine

from matches import services
from matches.models import Seat, Turn
from notifications import sweeps
from notifications.models import Notice
from tests.matches.helpers import commit_move, opening_play, rack_of
from tests.notifications.test_push import _subscribe

pytestmark = pytest.mark.django_db

#: Capital runs a notice may hold: time-zone abbreviations.
ALLOWED_CAPITALS = {"UTC", "GMT", "CET", "CEST", "JST"}
SIGNED_TOKEN = re.compile(r"(/unsubscribe/)[A-Za-z0-9_:\-]+")
BAG_WORDS = re.compile(r"\b(rack|racks|bag|tiles? left|drawn|drew)\b", re.IGNORECASE)


def leaks(text: str, racks: set[str]) -> list[str]:
    """What in ``text`` could be a rack or the bag: a rack of 4+ tiles written out (any case),
    any run of 2+ capitals (how tiles are written) but a zone's name, a word about the bag."""
    # A signed token is random base64: any four letters turn up in it, in some case, now and
    # then (the soak once found IUUZ in "…QiIuUzM2…"). It is the signer's output, not ours.
    scanned = SIGNED_TOKEN.sub(r"\1<token>", text).lower()
    found = [rack for rack in racks if len(rack) >= 4 and rack.lower() in scanned]
    words = re.sub(r"https?://\S+", " ", text)  # links: the site's paths and signed ids
    found += [run for run in re.findall(r"[A-Z?]{2,}", words) if run not in ALLOWED_CAPITALS]
    found += BAG_WORDS.findall(text)
    return found


def test_the_scanner_catches_a_planted_rack():
    assert leaks("Your move. You hold AEINRST.", {"AEINRST"}) != []
    assert leaks("Your move. You hold aeinrst", {"AEINRST"}) != []
    assert leaks("12 tiles left in the bag", set()) != []
    assert leaks("Move by Tue 01 Dec 2026, 10:00 UTC, or you forfeit.", {"AEINRST"}) == []
    assert leaks("Open https://x.test/u/eyJtIjozLCJr/ to see", {"AEINRST"}) == []
    assert leaks("Open https://x.test/u/EINRST/ to see", {"AEINRST", "EINRST"}) != []
    token = "https://x.test/notifications/unsubscribe/eyJtIjoxMH0:1xYMWm:QiIuUzM2/"
    assert leaks(f"Unsubscribe: {token}", {"IUUZ"}) == []
    assert leaks(f"Unsubscribe: {token} IUUZ", {"IUUZ"}) != []


def test_no_notice_of_a_whole_game_carries_rack_letters_or_the_bag(
    live_match,
    with_email,
    smtp_server,
    vapid,
    push_service,
    browser_keys,
    eager_tasks,
    django_capture_on_commit_callbacks,
):
    alice, bob = with_email
    keys = {}
    for member, path in ((alice, "/a"), (bob, "/b")):
        _subscribe(member, push_service, browser_keys, path=path)
        keys[path] = browser_keys
    match = live_match
    moves = [
        (alice, lambda: opening_play(rack_of(match, 0))),
        (bob, lambda: {"kind": "swap", "tiles": list(rack_of(match, 1)[:3])}),
        (alice, lambda: {"kind": "pass"}),
        (bob, lambda: {"kind": "pass"}),
    ]
    for number, (member, make_move) in enumerate(moves):
        move = make_move()
        with django_capture_on_commit_callbacks(execute=True):
            outcome = commit_move(
                match_id=match.id,
                member=member,
                move=move,
                against_turn=number,
                client_id=f"m{number}",
            )
        assert outcome.accepted, outcome
    match.refresh_from_db()
    before, after = (
        match.turn_deadline_at + d for d in (-timedelta(hours=1), timedelta(minutes=1))
    )
    with time_machine.travel(before, tick=False), django_capture_on_commit_callbacks(execute=True):
        sweeps.run_sweep()
    with time_machine.travel(after, tick=False), django_capture_on_commit_callbacks(execute=True):
        services.forfeit_stalled_matches()

    racks = {seat.rack for seat in Seat.objects.filter(match=match)}
    for turn in Turn.objects.filter(match=match):
        racks |= {turn.rack_before, turn.drawn, turn.swapped}
    racks.discard("")
    assert racks

    texts = []
    for message in smtp_server.messages:
        texts.append(message["Subject"])
        for part in message.walk():
            if part.get_content_maintype() == "text":
                texts.append(part.get_content())
    for request in push_service.requests:
        plain = http_ece.decrypt(
            request.body,
            private_key=browser_keys.private_key,
            auth_secret=browser_keys.auth_secret,
            version="aes128gcm",
        )
        texts.append(plain.decode())
    kinds = set(Notice.objects.filter(match=match).values_list("kind", flat=True))
    assert kinds == {"your_move", "forfeit", "result"}
    assert len(smtp_server.messages) >= 6
    assert len(push_service.requests) >= 6
    for text in texts:
        # Calendar and header syntax aside (VCALENDAR, PUBLISH...), the words are checked.
        if text.startswith("BEGIN:VCALENDAR"):
            continue
        assert leaks(text, racks) == [], text
