"""Soak: many matches played to the end at once by scripted websocket clients.

Two Daphne processes (``SOAK_DAPHNES``) on one channels-redis layer (a throwaway Redis) and
this run's test database; every match has its two players and a watcher, spread over the
processes so that news crosses from one process to another. Half the matches are
members-only, watched through the viewing key. Loopback only.

The CI profile plays 6 matches within a 90 s bound. The long profile is on demand:
``SOAK_MATCHES=40 SOAK_SECONDS=900 pytest tests/reliability/test_soak.py``.

At the end ``check_integrity`` passes, every client's view (built from its frames alone)
equals what the database says that viewer should see, and nothing was lost: every client
heard every move of its match as a push, with no gap to fill and no server error; no
Daphne process logged a traceback.

The notices are counted too: every turn change recorded exactly one "your move", for the
player to move and nobody else (one that was no longer true when the Celery worker came to
it was recorded but not sent), each player one result; and a leak scan of every email the
worker sent (to a real SMTP server) finds no rack's letters and nothing about the bag.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections import Counter
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from matches.models import Match, Seat, Turn
from notifications.models import Delivery, Kind, Notice
from notifications.sweeps import LOST_TASK_AFTER, send_due
from tests.matches.test_ws_helpers import seeded_match, session_cookie
from tests.notifications.conftest import eager_tasks, smtp_server  # noqa: F401 (fixtures)
from tests.notifications.test_leaks import leaks
from tests.reliability.clients import OVER, LiveClient, database_summary, play_out
from tests.reliability.harness import check_integrity, in_thread, record_figures

TROUBLE = re.compile(r"Traceback|Exception inside application|websocket request failed")
SOAK_MATCHES = int(os.environ.get("SOAK_MATCHES", "6"))
SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "90"))
SOAK_DAPHNES = int(os.environ.get("SOAK_DAPHNES", "2"))

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(int(SOAK_SECONDS) + 180),
]


def _matches(make_fixture, make_member) -> list[dict[str, Any]]:
    """Seeded live matches, every other one members-only; players, cookies, keys."""
    games = []
    for index in range(SOAK_MATCHES):
        first, second = make_member(), make_member()
        for member in (first, second):  # so their notices go out by email
            member.email = f"{member.username}@soak.test"
            member.save(update_fields=["email"])
        visibility = Match.Visibility.MEMBERS if index % 2 else Match.Visibility.PUBLIC
        match = seeded_match(make_fixture, first, second, seed=1000 + index, visibility=visibility)
        games.append(
            {
                "match": match,
                "members": (first, second),
                "cookies": (session_cookie(first), session_cookie(second)),
                "key": match.viewing_key if visibility == Match.Visibility.MEMBERS else None,
            }
        )
    return games


def _your_move_notices_expected(match: Match, members: tuple[Any, Any]) -> set[tuple[int, int]]:
    """(turn, member) of every "your move" the game should have recorded: at each turn
    number before the last move, the player who made the next move."""
    movers = list(Turn.objects.filter(match=match).order_by("number").values_list("position"))
    return {(number, members[position].pk) for number, (position,) in enumerate(movers)}


def _racks(match: Match) -> set[str]:
    """Every rack a player of ``match`` held, and every draw and swap: what must not leak."""
    racks = set(Seat.objects.filter(match=match).values_list("rack", flat=True))
    for turn in Turn.objects.filter(match=match):
        racks |= {turn.rack_before, turn.drawn, turn.swapped}
    racks.discard("")
    return racks


def _check_notices(games: list[dict[str, Any]], inbox: Any) -> dict[str, int]:
    """One "your move" per turn change, to the right player only; one result each; no leak
    in any email sent."""
    for game in games:
        match, members = game["match"], game["members"]
        expected = _your_move_notices_expected(match, members)
        recorded = list(
            Notice.objects.filter(match=match, kind=Kind.YOUR_MOVE).values_list(
                "turn_number", "member_id"
            )
        )
        assert len(recorded) == len(set(recorded)) == len(expected), (match.id, recorded)
        assert set(recorded) == expected, (match.id, sorted(set(recorded) ^ expected))
        results = Notice.objects.filter(match=match, kind=Kind.RESULT)
        assert sorted(results.values_list("member_id", flat=True)) == sorted(m.pk for m in members)
    players = {member.pk for game in games for member in game["members"]}
    assert set(Notice.objects.values_list("member_id", flat=True)) <= players

    racks = set().union(*(_racks(game["match"]) for game in games))
    sent = Delivery.objects.filter(channel="email", status=Delivery.Status.SENT)
    assert len(inbox.messages) == sent.count() > 0
    by_address = {f"{m.username}@soak.test": m.pk for g in games for m in g["members"]}
    addressed = sorted(by_address[message["To"]] for message in inbox.messages)
    assert addressed == sorted(sent.values_list("notice__member_id", flat=True))
    for message in inbox.messages:
        texts = [message["Subject"]]
        texts += [p.get_content() for p in message.walk() if p.get_content_maintype() == "text"]
        for text in texts:
            if text.startswith("BEGIN:VCALENDAR"):
                continue  # calendar syntax (VEVENT, PUBLISH...), not words
            assert leaks(text, racks) == [], text
    return {
        "your_move_notices": Notice.objects.filter(kind=Kind.YOUR_MOVE).count(),
        "emails_sent": len(inbox.messages),
        "your_move_not_sent": Delivery.objects.filter(
            notice__kind=Kind.YOUR_MOVE, status=Delivery.Status.SKIPPED
        ).count(),
    }


def _notices_settled() -> bool:
    """Every notice's deliveries decided, and none of them still waiting to be sent."""
    return (
        not Notice.objects.filter(dispatched_at__isnull=True).exists()
        and not Delivery.objects.filter(status=Delivery.Status.PENDING).exists()
    )


def test_soak_many_matches_to_the_end_every_view_equals_the_database(
    start_daphne,
    start_worker,
    make_fixture,
    make_member,
    smtp_server,  # noqa: F811 (the fixture imported above)
    eager_tasks,  # noqa: F811 (the opening's notices are sent from here as they are made)
) -> None:
    webs = [start_daphne() for _ in range(SOAK_DAPHNES)]
    servers = [web.ws_url for web in webs]
    # The Daphnes queue each notice's task on the soak's Redis; this worker sends them.
    worker = start_worker(
        "notices",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(settings.EMAIL_PORT),
        EMAIL_USE_TLS="0",
        EMAIL_USE_SSL="0",
        SITE_URL=settings.SITE_URL,
    )
    games = _matches(make_fixture, make_member)
    figures: dict[str, Any] = {"matches": SOAK_MATCHES, "daphnes": SOAK_DAPHNES}

    # Generous for a crowd connecting at once on two cores; a bound, not a measurement.
    within = max(60.0, SOAK_MATCHES * 1.5)

    async def join(index: int, game: dict[str, Any]) -> list[tuple[LiveClient, Any]]:
        """A match's two players and its watcher, connected before anyone plays."""
        match = game["match"]
        players = [
            await LiveClient(
                f"m{index}-p{position}",
                match.id,
                servers,
                cookie=game["cookies"][position],
                prefer=index + position,
                reconnect_within=within,
            ).start()
            for position in (0, 1)
        ]
        watcher = await LiveClient(
            f"m{index}-watch",
            match.id,
            servers,
            key=game["key"],
            prefer=index + 2,
            reconnect_within=within,
        ).start()
        first, second = game["members"]
        return [(players[0], first), (players[1], second), (watcher, None)]

    async def play(index: int, clients: list[tuple[LiveClient, Any]]) -> None:
        await asyncio.gather(
            play_out(clients[0][0], 0, seed=index, timeout=SOAK_SECONDS),
            play_out(clients[1][0], 1, seed=index, timeout=SOAK_SECONDS),
        )
        for client, _ in clients:
            await client.wait_for_view(lambda v: v.status in OVER, timeout=60)

    async def scenario() -> None:
        results = await asyncio.gather(*(join(i, g) for i, g in enumerate(games)))
        started = time.monotonic()
        await asyncio.gather(*(play(i, result) for i, result in enumerate(results)))
        figures["play_seconds"] = round(time.monotonic() - started, 1)
        clients = [pair for result in results for pair in result]
        stats = [client.stats for client, _ in clients]
        figures.update(
            clients=len(clients),
            moves=sum(client.view.turn_number for client, _ in clients[::3]),
            frames_in=sum(s.frames_in for s in stats),
            frames_out=sum(s.frames_out for s in stats),
            pushes=sum(sum(s.pushes.values()) for s in stats),
            reconnects=sum(s.reconnects for s in stats),
            refused_handshakes=sum(s.failed_handshakes for s in stats),
            server_errors=sum(s.server_errors for s in stats),
            gap_syncs=sum(s.gap_syncs for s in stats),
            quiet_syncs=sum(s.quiet_syncs for s in stats),
            close_codes=sum((s.close_codes for s in stats), Counter()),
        )
        unequal, unheard = [], {}
        for game, result in zip(games, results, strict=True):
            for client, member in result:
                expected = await in_thread(database_summary, game["match"].id, member)
                if client.view.summary() != expected:
                    unequal.append(client.name)
                missed = set(range(1, expected["turn_number"] + 1)) - client.stats.pushed_turns
                if missed:
                    unheard[client.name] = len(missed)
        figures.update(views_unequal=len(unequal), clients_missing_pushes=len(unheard))
        record_figures("soak", figures)
        assert not unequal, unequal  # every view ends equal to the database
        assert not unheard, unheard  # and nothing was lost on the way
        assert figures["server_errors"] == 0
        assert figures["gap_syncs"] == 0
        assert figures["reconnects"] == 0
        for client, _ in clients:
            await client.close()

    asyncio.run(scenario())
    # The worker settles what the Daphnes queued. A notice whose task never arrived is what
    # beat's sweep exists for (it dispatches any notice left undispatched for 30 s): after
    # 20 s of waiting the sweep runs once, as beat would, and what it had to dispatch is
    # recorded. (One fresh-clone CI run left six notices so, their tasks never run; the
    # cause is not yet found: issue 14's note.)
    deadline = time.monotonic() + 20
    while not _notices_settled() and time.monotonic() < deadline:
        time.sleep(0.2)
    lost = list(Notice.objects.filter(dispatched_at__isnull=True).values_list("key", flat=True))
    if lost:
        send_due(now=timezone.now() + LOST_TASK_AFTER)
    deadline = time.monotonic() + 40
    while not _notices_settled():
        assert time.monotonic() < deadline, (
            "the worker and the sweep did not settle every notice: "
            f"undispatched {list(Notice.objects.filter(dispatched_at__isnull=True))}, "
            f"{Delivery.objects.filter(status=Delivery.Status.PENDING).count()} pending, "
            f"worker log ends: {worker.log_text()[-3000:]}"
        )
        time.sleep(0.2)
    notice_figures = {
        "matches": SOAK_MATCHES,
        "dispatched_by_the_sweep": lost,
        **_check_notices(games, smtp_server),
    }
    record_figures("soak-notices", notice_figures)
    for web in [*webs, worker]:
        web.stop()
        trouble = [line for line in web.log_text().splitlines() if TROUBLE.search(line)]
        assert not trouble, trouble[:10]
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    check_integrity()
