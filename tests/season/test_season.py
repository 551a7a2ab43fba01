"""One club season, lived end to end through the real parts (issue 35, item 2).

Daphne, PostgreSQL, Redis, a Celery worker and beat, an SMTP server and a push service; the
members at their own browsers (HTTP pages and forms, websockets); the season's clock moved
forward in days by the test (tests/season/clocked.py). Each chapter asserts exactly what each
member was told (emails and pushes, no more, no fewer), and the end asserts the standings,
the ratings, the leaderboard, the calendar and that no server logged an ERROR.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command

from accounts.models import Member as MemberRow
from engine.ladder import level_rating
from matches.models import Match, Tournament
from practice.models import LEVELS
from tests.e2e.browser import expect
from tests.season.browser import chromium, open_board
from tests.season.ledger import Ledger, calendar_of, text_of
from tests.season.play import Board, play_one_move, send
from tests.season.reword_chapter import a_reword_evening
from tests.season.rounds_chapter import a_word_skill_evening
from tests.season.series_chapter import a_word_skill_series
from tests.season.world import Member, World, build_world, page_text, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(1500)]

PASSWORD = "season-correct-horse-42"
NEW_PASSWORD = "season-battery-staple-43"
PLAYERS = ("ann", "ben", "cat", "dan")
LEAGUE = "Autumn League"
#: Where the clock is moved before a kick-off: the reminder the sweep then sends reads "in 1
#: minute" however long the sweep takes to come (up to 59 s: a bound, not a timing).
BEFORE_KICK_OFF = timedelta(minutes=2) - timedelta(seconds=1)
#: Members who turned "your move" off (round 1: they play at the board).
QUIET = ("cat", "ben")
INVITATION = r"New invitation link: (\S+?/accounts/sign-up/\?invite=[\w-]+)"


def sign_up_fields(name: str, address: str) -> dict[str, str | list[str]]:
    return {
        "username": name,
        "display_name": name.title(),
        "email": address,
        "password1": PASSWORD,
        "password2": PASSWORD,
    }


def confirm_address(season: Season, name: str, mail: EmailMessage) -> None:
    """Open the link of a confirmation mail; let the member's browser take pushes."""
    [link] = re.findall(r"https?://\S+/accounts/email/verify/\S+/", text_of(mail))
    page = season[name].get(link)
    assert f"{season.address(name)} is confirmed" in page_text(page.text)
    endpoint, keys = season.ledger.endpoint(name)
    season[name].post_json("/notifications/push/subscribe/", keys.subscription(endpoint))


@dataclass
class Season:
    world: World
    ledger: Ledger
    people: dict[str, Member] = field(default_factory=dict)
    #: Each game's own choice of moves, seeded by its name, so a game's moves do not
    #: depend on how the games before it went.
    rngs: dict[int, random.Random] = field(default_factory=dict)
    tournament: Any = None
    kickoff: datetime | None = None
    results: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Member:
        return self.people[name]

    def address(self, name: str) -> str:
        return f"{name}@season.test"


@pytest.fixture
def world(transactional_db) -> Iterator[World]:
    yield from build_world()


@pytest.fixture
def season(world: World) -> Season:
    return Season(world, Ledger(world))


# ---------------------------------------------------------------- chapters


def the_organiser(season: Season) -> None:
    """The club's organiser exists before the site has anyone (set up as an operator
    would, with createsuperuser's like: nothing a user does)."""
    row = MemberRow.objects.create_user(
        username="olga", password=PASSWORD, email=season.address("olga")
    )
    row.email_verified = True
    row.save(update_fields=["email_verified"])
    row.user_permissions.add(Permission.objects.get(codename="organise"))
    season.ledger.address("olga", season.address("olga"))
    olga = season.world.member("olga", "10.0.0.1")
    olga.sign_in("olga", PASSWORD)
    season.people["olga"] = olga


def invitations_and_approval(season: Season) -> None:
    """ann and ben join by the organiser's invitation links; cat and dan sign up, wait for
    approval and are approved; each confirms their address by the link mailed to them and
    lets their browser take pushes."""
    olga = season["olga"]
    links = []
    for note in ("ann", "ben"):
        page = olga.submit(
            "/accounts/members/",
            "Create a link",
            {"max_uses": "1", "days": "14", "note": note},
        )
        [link] = set(
            re.findall(r"New invitation link: (\S+?/accounts/sign-up/\?invite=[\w-]+)", page.text)
        )
        links.append(link)
    for index, name in enumerate(PLAYERS):
        person = season.world.member(name, f"10.0.1.{index + 1}")
        season.people[name] = person
        season.ledger.address(name, season.address(name))
        path = links[index] if index < 2 else "/accounts/sign-up/"
        page = person.submit(path, "Sign up", sign_up_fields(name, season.address(name)))
        assert person.session_cookie
        if index >= 2:
            assert "waits for an organiser" in page_text(page.text)
    assert set(
        MemberRow.objects.filter(membership=MemberRow.Membership.PENDING).values_list(
            "username", flat=True
        )
    ) == {"cat", "dan"}
    for name in ("cat", "dan"):
        page = olga.submit("/accounts/members/", f"Approve {name}")
        assert f"{name} is now a member" in page_text(page.text)
    told = season.ledger.expect(
        {name: ["Confirm your email address for Word Duel"] for name in PLAYERS},
        {},
        what="the sign-ups",
    )
    for name in PLAYERS:
        confirm_address(season, name, told[name].emails[0])
    assert set(
        MemberRow.objects.filter(
            membership=MemberRow.Membership.APPROVED, email_verified=True
        ).values_list("username", flat=True)
    ) == {"olga", *PLAYERS}


def a_substitute_joins(season: Season) -> None:
    """eve joins by an invitation link, to stand in when asked."""
    joins_by_invitation(season, "eve", "10.0.1.5")


def joins_by_invitation(season: Season, name: str, ip: str) -> None:
    """``name`` signs up by the organiser's one-use invitation link and confirms the
    address mailed to them."""
    page = season["olga"].submit(
        "/accounts/members/", "Create a link", {"max_uses": "1", "days": "14", "note": name}
    )
    [link] = set(re.findall(INVITATION, page.text))
    member = season.world.member(name, ip)
    season.people[name] = member
    season.ledger.address(name, season.address(name))
    member.submit(link, "Sign up", sign_up_fields(name, season.address(name)))
    told = season.ledger.expect(
        {name: ["Confirm your email address for Word Duel"]}, {}, what=f"{name}'s sign-up"
    )
    confirm_address(season, name, told[name].emails[0])


def the_round_robin(season: Season) -> None:
    """The organiser creates a rated round robin on the Organise page: three rounds a week
    apart, the first in two days; every player is told of each of their fixtures."""
    kickoff = (season.world.clock.now() + timedelta(days=2)).replace(
        hour=18, minute=0, second=0, microsecond=0
    )
    page = season["olga"].submit(
        "/organise/",
        "Create tournament",
        {
            "rr-name": LEAGUE,
            "rr-players": "\n".join(PLAYERS),
            "rr-first_kickoff": kickoff.strftime("%Y-%m-%dT%H:%M"),
            "rr-interval_hours": "168",
            "rr-meetings": "once",
            "rr-ruleset": "word-duel",
            "rr-visibility": "public",
            "rr-rated": "on",
        },
    )
    assert f"Created {LEAGUE} with 6 fixtures." in page_text(page.text)
    season.tournament = Tournament.objects.get(name=LEAGUE)
    season.kickoff = kickoff
    fixtures = {
        "ann": ["Round 1: Ann v Dan", "Round 2: Cat v Ann", "Round 3: Ann v Ben"],
        "ben": ["Round 1: Cat v Ben", "Round 2: Dan v Ben", "Round 3: Ann v Ben"],
        "cat": ["Round 1: Cat v Ben", "Round 2: Cat v Ann", "Round 3: Dan v Cat"],
        "dan": ["Round 1: Ann v Dan", "Round 2: Dan v Ben", "Round 3: Dan v Cat"],
    }
    told = season.ledger.expect(
        {n: [f"Fixture scheduled: {LEAGUE} · {f}" for f in fs] for n, fs in fixtures.items()},
        what="the round robin",
    )
    for name, titles in fixtures.items():
        for title in titles:
            ics = calendar_of(told[name].email(f"Fixture scheduled: {LEAGUE} · {title}"))
            assert ics is not None
            assert "SEQUENCE:0" in ics.split()


def fixture(season: Season, round_number: int, first: str, second: str) -> Match:
    """The league's fixture of that round with those players seated."""
    return Match.objects.get(
        tournament=season.tournament,
        round_number=round_number,
        seats__position=0,
        seats__member__username=first,
    )


def organiser_changes(season: Season) -> None:
    """Before round 1: a fixture rescheduled, a substitute seated, a postponement that would
    put round 1 after round 2 refused, then carried with the later rounds."""
    olga = season["olga"]
    cat_ben = fixture(season, 1, "cat", "ben")
    ann_dan = fixture(season, 1, "ann", "dan")
    later = cat_ben.kickoff_at + timedelta(hours=2)
    olga.submit(
        "/organise/fixtures/",
        "Reschedule",
        {"kickoff_at": later.strftime("%Y-%m-%dT%H:%M"), "reason": "The hall is booked"},
        action=f"/{cat_ben.id}/reschedule/",
    )
    told = season.ledger.expect(
        {name: [f"Kick-off moved: {LEAGUE} · Round 1: Cat v Ben"] for name in ("cat", "ben")},
        what="the reschedule",
    )
    for name in ("cat", "ben"):
        ics = calendar_of(told[name].emails[0])
        assert ics is not None
        assert "SEQUENCE:1" in ics.split()
        assert "The organiser's reason: The hall is booked" in text_of(told[name].emails[0])
        assert told[name].pushes[0]["url"].endswith(f"/matches/{cat_ben.id}/")
    olga.submit(
        "/organise/fixtures/",
        "Substitute",
        {"position": "1", "member": "eve", "reason": "Dan is at a wedding"},
        action=f"/{ann_dan.id}/substitute/",
    )
    sub = f"{LEAGUE} · Round 1: Ann v Eve"
    told = season.ledger.expect(
        {
            "ann": [f"New opponent: Eve in {sub}"],
            "dan": [f"You no longer play in {sub}"],
            "eve": [f"Fixture scheduled: {sub}"],
        },
        what="the substitution",
    )
    assert "STATUS:CANCELLED" in (calendar_of(told["dan"].emails[0]) or "")
    for name in ("ann", "dan"):
        assert "The organiser's reason: Dan is at a wedding" in text_of(told[name].emails[0])
    assert "SEQUENCE:1" in (calendar_of(told["eve"].emails[0]) or "").split()
    listing = f"/organise/fixtures/?tournament={season.tournament.id}"
    page = olga.submit(
        listing,
        "Postpone round",
        {"round_number": "1", "hours": "200", "reason": "Floods"},
        expect=409,
    )
    assert (
        "Round 1 would then kick off after round 2: postpone the later rounds with it, or by "
        "less." in page_text(page.text)
    )
    assert Match.objects.get(pk=cat_ben.pk).kickoff_at == later  # nothing changed
    olga.submit(
        listing,
        "Postpone round",
        {"round_number": "1", "hours": "24", "carry_later": "on", "reason": "Floods"},
    )
    moved = {
        "ann": ["Round 1: Ann v Eve", "Round 2: Cat v Ann", "Round 3: Ann v Ben"],
        "ben": ["Round 1: Cat v Ben", "Round 2: Dan v Ben", "Round 3: Ann v Ben"],
        "cat": ["Round 1: Cat v Ben", "Round 2: Cat v Ann", "Round 3: Dan v Cat"],
        "dan": ["Round 2: Dan v Ben", "Round 3: Dan v Cat"],
        "eve": ["Round 1: Ann v Eve"],
    }
    told = season.ledger.expect(
        {n: [f"Kick-off moved: {LEAGUE} · {f}" for f in fs] for n, fs in moved.items()},
        what="the postponement",
    )
    sequences = {  # the organiser's changes to each fixture so far
        "Round 1: Cat v Ben": 2,
        "Round 1: Ann v Eve": 2,
    }
    for name, fixtures in moved.items():
        for title in fixtures:
            ics = calendar_of(told[name].email(f"Kick-off moved: {LEAGUE} · {title}")) or ""
            assert f"SEQUENCE:{sequences.get(title, 1)}" in ics.split(), (name, title, ics)
    assert Match.objects.get(pk=cat_ben.pk).kickoff_at == later + timedelta(hours=24)
    season.kickoff = season.kickoff + timedelta(hours=24)


def kick_off(season: Season, match: Match, watchers: list[Board]) -> None:
    """Move the clock just past ``match``'s kick-off; every open board sees it open (beat's
    sweep opens it; nobody reloads)."""
    assert match.kickoff_at is not None
    for board in watchers:
        assert board.snapshot["status"] == "scheduled"
    season.world.to(match.kickoff_at + timedelta(seconds=1))
    for board in watchers:
        opened = board.event("opened")
        assert opened["data"]["status"] == "live"
        assert opened["data"]["turn_number"] == 0


def boards(season: Season, match: Match, *names: str) -> list[Board]:
    return [Board(season.world, match.id, season[name]) for name in names]


def play_moves(
    season: Season, players: dict[int, Board], count: int | None, *, plays_only: bool = True
) -> dict[str, Any]:
    """Moves, each by the seat to move over its own socket, ``count`` of them or (None) until
    the game is over; the last snapshot or turn news seen."""
    state = players[0].sync()
    assert state["status"] == "live", state["status"]
    done = 0
    while state["to_move"] is not None and (count is None or done < count):
        seat = state["to_move"]
        state = play_one_move(
            players[seat],
            season.rngs.setdefault(
                players[0].match_id,
                random.Random(Match.objects.get(pk=players[0].match_id).name),
            ),
            turn=state["turn_number"],
            seat=seat,
            plays_only=plays_only,
        )
        done += 1
        assert done < 300, "a game that never ends"
    state["moves_made"] = done
    return state


def moves_told(
    season: Season, match: Match, players: dict[int, Board], names: dict[int, str], count: int
) -> None:
    """``count`` moves, each waited on until the opponent is told it is their move (so each
    move tells exactly once, and what it tells is still true)."""
    for _ in range(count):
        state = play_moves(season, players, 1)
        title = Match.objects.get(pk=match.pk)
        told = names[state["to_move"]]
        season.ledger.expect(
            {told: [f"Your move: {LEAGUE} · {title_of(title)}"] if told not in QUIET else []},
            what=f"move {state['turn_number']} of {title_of(title)}",
        )


def title_of(match: Match) -> str:
    """The fixture's title as every notice gives it: its label and the players seated now."""
    seats = sorted(match.seats.select_related("member"), key=lambda seat: seat.position)
    names = [seat.member.display_name or seat.member.username for seat in seats]
    return f"{match.name.removeprefix(LEAGUE + ' · ')}: {names[0]} v {names[1]}"


def fix_the_bag(season: Season, match: Match, *, seed: int, players: tuple[str, ...]) -> None:
    """The fixture's bag made the same every season: its secret seed (and commitment) fixed
    before kick-off, a set-up no user does (as tests/matches/test_ws_helpers.seeded_match
    does), and each player's own random value added as their browser adds it. (A seat
    that adds none gets a fresh server value at kick-off, so the deal would differ.)"""
    bag_seed = hashlib.sha256(f"word-duel-season-{seed}".encode()).hexdigest()
    commitment = hashlib.sha256(bytes.fromhex(bag_seed)).hexdigest()
    fixed = Match.objects.filter(pk=match.pk, status=Match.Status.SCHEDULED).update(
        bag_seed=bag_seed, bag_commitment=commitment
    )
    assert fixed == 1, "the bag is fixed before kick-off"
    for name in players:
        value = hashlib.sha256(f"{bag_seed}-{name}".encode()).hexdigest()
        added = season[name].post_json(f"/api/matches/{match.pk}/contribute", {"value": value})
        assert added.json()["value"] == value


def round_one(season: Season) -> None:
    """Round 1 kicks off on boards already open; Ann v Eve is played over sockets until Eve
    resigns; Cat v Ben, two hours later, is played out by two members who turned off "your
    move" (they sit at the board)."""
    ann_eve = fixture(season, 1, "ann", "eve")
    cat_ben = fixture(season, 1, "cat", "ben")
    first = f"{LEAGUE} · Round 1: Ann v Eve"
    season.world.to(ann_eve.kickoff_at - BEFORE_KICK_OFF)
    season.ledger.expect(
        kick_off_reminders({first: ("ann", "eve")}),
        what="two minutes before round 1",
    )
    ann, eve = boards(season, ann_eve, "ann", "eve")
    watcher = Board(season.world, ann_eve.id, None)
    errors: list[str] = []
    with chromium() as browser:
        page = open_board(browser, season["ann"], ann_eve.id, errors)
        expect(page.locator("#match")).to_have_attribute("data-status", "scheduled")
        kick_off(season, ann_eve, [ann, eve, watcher])
        # Ann's page, open since before kick-off, shows the board live without a reload.
        expect(page.locator("#match")).to_have_attribute("data-status", "live")
        expect(page.locator("#status")).to_have_text("The match has begun. It is your turn.")
    assert errors == []
    season.ledger.expect({"ann": [f"Your move: {first}"]}, what="round 1's kick-off")
    moves_told(season, ann_eve, {0: ann, 1: eve}, {0: "ann", 1: "eve"}, 4)
    ack = send(eve, {"type": "resign"})
    assert ack["code"] == "resigned", ack
    ended = watcher.event("ended")
    assert ended["data"]["end_reason"] == "resigned"
    assert ended["data"]["result"] == "first"
    season.results["Round 1: Ann v Eve"] = ended["data"]
    season.ledger.expect(
        {"ann": [f"You won by resignation: {first}"], "eve": [f"You lost by resignation: {first}"]},
        what="Eve's resignation",
    )
    for board in (ann, eve, watcher):
        board.close()

    for name in ("cat", "ben"):
        page = season[name].submit(
            "/notifications/settings/",
            "Save",
            {"email_your_move": [], "push_your_move": []},
        )
        assert "Your notification settings are saved." in page_text(page.text)
    second = f"{LEAGUE} · Round 1: Cat v Ben"
    season.world.to(cat_ben.kickoff_at - BEFORE_KICK_OFF)
    season.ledger.expect(
        kick_off_reminders({second: ("cat", "ben")}),
        what="two minutes before Cat v Ben",
    )
    fix_the_bag(season, cat_ben, seed=35, players=("cat", "ben"))
    cat, ben = boards(season, cat_ben, "cat", "ben")
    kick_off(season, cat_ben, [cat, ben])
    last = play_moves(season, {0: cat, 1: ben}, None, plays_only=False)
    ended = cat.event("ended")["data"]
    assert ended["end_reason"] in {"played_out", "six_scoreless"}
    cat.close()
    ben.close()
    winner, loser = ("cat", "ben") if ended["result"] == "first" else ("ben", "cat")
    assert ended["result"] in {"first", "second"}, "(a draw: another seed would do)"
    how = "" if ended["end_reason"] == "played_out" else " after six scoreless turns"
    season.ledger.expect(
        {winner: [f"You won{how}: {second}"], loser: [f"You lost{how}: {second}"]},
        what=f"Cat v Ben, played out in {last['moves_made']} moves",
    )
    season.results["Round 1: Cat v Ben"] = ended


def round_two(season: Season) -> None:
    """Ben declares two days away; round 2 kicks off; Cat v Ann is adjudicated by the
    organiser after three moves; in Dan v Ben, Ben's turn pauses over his vacation, he is
    warned a day and two hours before the paused deadline, and forfeits at it."""
    cat_ann = fixture(season, 2, "cat", "ann")
    dan_ben = fixture(season, 2, "dan", "ben")
    kickoff = dan_ben.kickoff_at
    assert kickoff is not None
    assert cat_ann.kickoff_at == kickoff
    away_from = kickoff.date() + timedelta(days=1)
    away_to = away_from + timedelta(days=1)
    page = season["ben"].submit(
        "/me/vacation/",
        "Declare vacation",
        {"first_day": away_from.isoformat(), "last_day": away_to.isoformat()},
    )
    assert f"Vacation declared: {away_from} to {away_to}." in page_text(page.text)
    season.ledger.expect({}, what="Ben's vacation")

    one, two = f"{LEAGUE} · Round 2: Cat v Ann", f"{LEAGUE} · Round 2: Dan v Ben"
    season.world.to(kickoff - BEFORE_KICK_OFF)
    season.ledger.expect(
        kick_off_reminders({one: ("cat", "ann"), two: ("dan", "ben")}),
        what="two minutes before round 2",
    )
    cat, ann = boards(season, cat_ann, "cat", "ann")
    dan, ben = boards(season, dan_ben, "dan", "ben")
    kick_off(season, cat_ann, [cat, ann])
    dan.event("opened")
    ben.event("opened")
    season.ledger.expect(
        {"dan": [f"Your move: {two}"]},  # (cat plays at the board: no "your move" for her)
        what="round 2's kick-off",
    )
    moves_told(season, cat_ann, {0: cat, 1: ann}, {0: "cat", 1: "ann"}, 3)
    moves_told(season, dan_ben, {0: dan, 1: ben}, {0: "dan", 1: "ben"}, 1)
    away = ben.sync()["away"]
    assert [(a["name"], a["first_day"], a["last_day"]) for a in away] == [
        ("Ben", away_from.isoformat(), away_to.isoformat())
    ]

    season["olga"].submit(
        "/organise/fixtures/",
        "Rule",
        {"ruling": "first", "reason": "Ann cannot go on; Cat was well ahead"},
        action=f"/{cat_ann.id}/adjudicate/",
    )
    ended = cat.event("ended")["data"]
    assert (ended["end_reason"], ended["result"]) == ("adjudicated", "first")
    told = season.ledger.expect(
        {
            "cat": [f"You won by an organiser's ruling: {one}"],
            "ann": [f"You lost by an organiser's ruling: {one}"],
        },
        what="the adjudication",
    )
    ruling = text_of(told["ann"].emails[0])
    assert "The organiser's reason: Ann cannot go on; Cat was well ahead" in ruling
    assert "None" not in ruling
    for board in (cat, ann, dan):
        board.close()

    turn_began = Match.objects.get(pk=dan_ben.pk).turn_started_at
    assert turn_began is not None
    deadline = turn_began + timedelta(days=3) + timedelta(days=2)  # paused for his two days
    assert ben.sync()["turn_deadline_at"] == deadline.isoformat()
    ben.close()
    season.world.to(deadline - timedelta(hours=24) + timedelta(seconds=1))
    season.ledger.expect({"ben": [f"23 hours 59 minutes left to move: {two}"]}, what="a day before")
    season.world.to(deadline - timedelta(hours=2) + timedelta(seconds=1))
    season.ledger.expect(
        {"ben": [f"1 hour 59 minutes left to move: {two}"]}, what="two hours before"
    )
    season.world.to(deadline + timedelta(seconds=1))
    wait_until(
        lambda: Match.objects.filter(pk=dan_ben.pk, end_reason="forfeit").exists(),
        what="beat's sweep to forfeit Ben",
    )
    season.ledger.expect(
        {"dan": [f"You won by forfeit: {two}"], "ben": [f"You lost by forfeit: {two}"]},
        what="Ben's forfeit",
    )


def board_of(season: Season, response: Any, name: str) -> tuple[Match, Board]:
    """The match a page redirected to, and the member's board on it."""
    found = re.search(r"/matches/(\d+)/", response.url)
    assert found, response.url
    match = Match.objects.get(pk=int(found.group(1)))
    return match, Board(season.world, match.id, season[name])


def friendlies(season: Season) -> None:
    """Ann challenges Ben by name; he accepts and the match begins at once; Ann resigns; Ben
    offers a rematch, which reaches Ann's open board live; she accepts; Ben resigns it."""
    ann, ben = season["ann"], season["ben"]
    ann.submit("/challenges/", "Post the challenge", {"opponent": "ben", "rated": "no"})
    season.ledger.expect({"ben": ["Ann challenges you to a game"]}, what="the challenge")
    accepted = ben.submit("/challenges/", "Accept Ann's challenge")
    match, ben_board = board_of(season, accepted, "ben")
    ann_board = Board(season.world, match.id, ann)
    title = title_of(match)
    first = {0: "ann", 1: "ben"} if ann_board.snapshot["your_seat"] == 0 else {0: "ben", 1: "ann"}
    season.ledger.expect(
        {first[0]: [f"Your move: {title}"] if first[0] not in QUIET else []},
        what="the challenge accepted",
    )
    players = {0: ann_board, 1: ben_board} if first[0] == "ann" else {0: ben_board, 1: ann_board}
    friendly_moves(season, match, players, first, 2)
    assert send(ann_board, {"type": "resign"})["code"] == "resigned"
    season.ledger.expect(
        {"ann": [f"You lost by resignation: {title}"], "ben": [f"You won by resignation: {title}"]},
        what="Ann's resignation",
    )
    ben.submit(f"/matches/{match.id}/", "Offer a rematch")
    offer = ann_board.event("rematch")["data"]
    assert (offer["state"], offer["rematch_id"]) == ("offered", None)
    season.ledger.expect({"ann": [f"Ben offers a rematch: {title}"]}, what="the offer")
    accepted = ann.submit(f"/matches/{match.id}/", "Accept the rematch")
    answer = ben_board.wait_for(
        lambda f: f["type"] == "rematch" and f["data"]["state"] == "accepted"
    )["data"]
    rematch, ann_again = board_of(season, accepted, "ann")
    assert answer["rematch_id"] == rematch.id
    ben_again = Board(season.world, rematch.id, ben)
    again = title_of(rematch)
    mover = "ann" if ann_again.snapshot["your_seat"] == 0 else "ben"
    season.ledger.expect(
        {mover: [f"Your move: {again}"] if mover not in QUIET else []},
        what="the rematch accepted",
    )
    assert send(ben_again, {"type": "resign"})["code"] == "resigned"
    season.ledger.expect(
        {"ann": [f"You won by resignation: {again}"], "ben": [f"You lost by resignation: {again}"]},
        what="Ben's resignation of the rematch",
    )
    for board in (ann_board, ben_board, ann_again, ben_again):
        board.close()


def friendly_moves(
    season: Season, match: Match, players: dict[int, Board], names: dict[int, str], count: int
) -> None:
    for _ in range(count):
        state = play_moves(season, players, 1)
        told = names[state["to_move"]]
        season.ledger.expect(
            {told: [f"Your move: {title_of(match)}"] if told not in QUIET else []},
            what=f"move {state['turn_number']} of {title_of(match)}",
        )


def practice(season: Season) -> None:
    """Dan plays the computer from the home page, its levels shown with their measured
    ratings: the computer answers over the socket, and nobody is mailed "your move"
    (practice is quiet by default); he resigns, and his move is reviewed beside the
    computer's best from the same rack."""
    home = page_text(season["dan"].get("/").text)
    for level, label in LEVELS:
        assert f"{label} · {level_rating(level, ruleset='word-duel').shown}" in home, label
    started = season["dan"].submit("/", "Play the computer")
    match, dan = board_of(season, started, "dan")
    assert dan.snapshot["your_seat"] == 0
    play_moves(season, {0: dan, 1: dan}, 1)
    reply = dan.wait_for(lambda f: f["type"] == "turn" and f["data"]["turn_number"] == 2)
    assert reply["data"]["move"]["position"] == 1  # the computer's own move, live
    season.ledger.expect({}, what="a practice move and the computer's reply")
    assert send(dan, {"type": "resign"})["code"] == "resigned"
    season.ledger.expect(
        {"dan": [f"You lost by resignation: {title_of(match)}"]},
        what="Dan's practice resigned",
    )
    dan.close()
    review = season["dan"].get(f"/api/matches/{match.id}/review").json()
    [move] = review["moves"]
    assert move["number"] == 1
    assert move["best"] is not None
    assert move["best"]["score"] >= move["score"]
    assert move["points_lost"] == move["best"]["score"] - move["score"]
    assert review["points_left"] == move["points_lost"]
    page = page_text(season["dan"].get(f"/matches/{match.id}/").text)
    assert f"Points left on the board: {move['points_lost']}" in page
    # The review is the player's own: another member, who may watch, is refused it.
    refused = season["ann"].get(f"/api/matches/{match.id}/review", expect=403).json()
    assert refused["code"] == "not_a_player"


def a_guest_at_the_door(season: Season) -> None:
    """A visitor plays the computer at once, without an account: his move and the computer's
    answer over the socket, nobody told; the page, reloaded, continues the game; the
    members' pages are closed to him. Given an invitation, he signs up in the same browser:
    the game is now in his matches, he plays on as a member and resigns, told as a member."""
    gus = season.world.member("gus", "10.0.1.7")
    season.people["gus"] = gus
    started = gus.submit("/", "Play the computer now")
    match, board = board_of(season, started, "gus")
    assert match.rated is False
    assert board.snapshot["your_seat"] == 0
    play_moves(season, {0: board, 1: board}, 1)
    reply = board.wait_for(lambda f: f["type"] == "turn" and f["data"]["turn_number"] == 2)
    assert reply["data"]["move"]["position"] == 1  # the computer's own move, live
    season.ledger.expect({}, what="a guest's move and the computer's reply")
    board.close()
    again = gus.get(f"/matches/{match.id}/")
    assert 'id="your-rack"' in again.text  # his seat's view, on a reload
    for members_only in ("/me/matches/", "/ratings/", "/challenges/", "/me/vacation/"):
        page = gus.get(members_only)
        assert "/accounts/sign-in/" in page.url, members_only  # sent to sign in
    # The organiser's invitation; he signs up in the same browser and confirms his address.
    invitation = season["olga"].submit(
        "/accounts/members/", "Create a link", {"max_uses": "1", "days": "14", "note": "gus"}
    )
    [link] = set(re.findall(INVITATION, invitation.text))
    season.ledger.address("gus", season.address("gus"))
    signed_up = gus.submit(link, "Sign up", sign_up_fields("gus", season.address("gus")))
    assert "Your games as a guest are now yours" in page_text(signed_up.text)
    told = season.ledger.expect(
        {"gus": ["Confirm your email address for Word Duel"]}, {}, what="gus's sign-up"
    )
    confirm_address(season, "gus", told["gus"].emails[0])
    assert f"/matches/{match.id}/" in gus.get("/me/matches/").text
    board = Board(season.world, match.id, gus)
    assert board.snapshot["your_seat"] == 0
    play_moves(season, {0: board, 1: board}, 1)
    board.wait_for(lambda f: f["type"] == "turn" and f["data"]["turn_number"] == 4)
    season.ledger.expect({}, what="gus's move as a member and the computer's reply")
    assert send(board, {"type": "resign"})["code"] == "resigned"
    season.ledger.expect(
        {"gus": [f"You lost by resignation: {title_of(Match.objects.get(pk=match.pk))}"]},
        what="gus resigns his first game",
    )
    board.close()


def club_life(season: Season) -> None:
    friendlies(season)
    practice(season)
    a_guest_at_the_door(season)
    email_change(season)
    the_open_table_and_a_removal(season)
    export_and_deletion(season)


def email_change(season: Season) -> None:
    """Cat moves to a new address: the confirmed one keeps working (a reset goes there, none
    to the new one) until she opens the link sent to the new one; then the reverse. She
    resets her password by the new address and signs in with it."""
    cat = season["cat"]
    new = "cat.new@season.test"
    season.ledger.address("cat (new address)", new)
    page = cat.submit(
        "/accounts/profile/", "Save address and send a confirmation link", {"email": new}
    )
    assert f"We sent a message to {new}" in page_text(page.text)
    told = season.ledger.expect(
        {"cat (new address)": ["Confirm your email address for Word Duel"]},
        {},
        what="the new address asked for",
    )
    link = re.findall(
        r"https?://\S+/accounts/email/verify/\S+/", text_of(told["cat (new address)"].emails[0])
    )
    phone = season.world.member("cat's phone", cat.address)
    for address in (season.address("cat"), new):
        phone.submit("/accounts/password/reset/", "Send the link", {"email": address})
    season.ledger.expect(
        {"cat": ["Choose a new Word Duel password"]}, {}, what="resets before confirming"
    )
    assert MemberRow.objects.get(username="cat").email == season.address("cat")
    page = cat.get(link[0])
    assert f"{new} is confirmed" in page_text(page.text)
    for address in (season.address("cat"), new):
        phone.submit("/accounts/password/reset/", "Send the link", {"email": address})
    told = season.ledger.expect(
        {"cat (new address)": ["Choose a new Word Duel password"]},
        {},
        what="resets after confirming",
    )
    [reset] = re.findall(
        r"https?://\S+/accounts/password/reset/\S+/", text_of(told["cat (new address)"].emails[0])
    )
    phone.submit(
        reset,
        "Set the password",
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    cat.http.cookies.clear()
    cat.sign_in("cat", NEW_PASSWORD)
    season.ledger.address("cat", new)  # (her notices go to the new address from now on)


def schedule(season: Season, name: str, first: str, second: str, kickoff: datetime) -> Match:
    season["olga"].submit(
        "/organise/",
        "Schedule fixture",
        {
            "fixture-name": name,
            "fixture-first": first,
            "fixture-second": second,
            "fixture-kickoff_at": kickoff.strftime("%Y-%m-%dT%H:%M"),
        },
    )
    return Match.objects.get(name=name)


def the_open_table_and_a_removal(season: Season) -> None:
    """The organiser opens a table for Ann with a free seat and a club night for Eve and
    Ben; Eve is removed from the club through the confirmation page, withdrawn from the
    club night; nobody takes the open seat, so Ann wins by no-show."""
    now = season.world.clock.now().replace(second=0, microsecond=0)
    table = schedule(season, "Open table", "ann", "", now + timedelta(hours=2))
    night = schedule(season, "Club night", "eve", "ben", now + timedelta(hours=20))
    season.ledger.expect(
        {
            "ann": ["Fixture scheduled: Open table: Ann v (free seat)"],
            "ben": ["Fixture scheduled: Club night: Eve v Ben"],
            "eve": ["Fixture scheduled: Club night: Eve v Ben"],
        },
        what="two fixtures scheduled",
    )
    eve_id = MemberRow.objects.get(username="eve").pk
    olga = season["olga"]
    page = olga.get(f"/accounts/members/{eve_id}/remove/")
    assert "Club night: Eve v Ben" in page_text(page.text)
    olga.submit(
        f"/accounts/members/{eve_id}/remove/",
        "Remove eve",
        {"fixtures": "withdraw", "reason": "Moved away"},
    )
    told = season.ledger.expect(
        {name: ["Cancelled: Club night: Eve v Ben"] for name in ("eve", "ben")},
        what="Eve's removal",
    )
    called_off = text_of(told["ben"].emails[0])
    assert "It has no result and counts for nobody." in called_off
    assert "The organiser's reason: Moved away" in called_off
    assert "STATUS:CANCELLED" in (calendar_of(told["ben"].emails[0]) or "")
    assert Match.objects.get(pk=night.pk).end_reason == "cancelled"
    season.world.to(table.kickoff_at + timedelta(minutes=16))
    wait_until(
        lambda: Match.objects.filter(pk=table.pk, end_reason="no_show").exists(),
        what="beat's sweep to award the open table to Ann",
    )
    season.ledger.expect(
        {"ann": ["You won by no-show: Open table: Ann v (free seat)"]},
        what="the open table's no-show",
    )


def export_and_deletion(season: Season) -> None:
    """Eve, no longer a member, downloads her data, then deletes her account: her name
    leaves the titles of her matches."""
    eve = season["eve"]
    data = eve.get("/accounts/my-data/")
    archive = zipfile.ZipFile(io.BytesIO(data.content))
    names = archive.namelist()
    profile = json.loads(archive.read("profile.json"))
    assert profile["username"] == "eve"
    played = fixture(season, 1, "ann", "eve")
    # Her one game played (the club night, called off unplayed, has no record to give).
    assert sorted(names) == [f"matches/match-{played.id}.gcg", "profile.json"]
    assert "#player2" in archive.read(f"matches/match-{played.id}.gcg").decode()
    eve.submit("/accounts/delete/", "Delete my account", {"password": PASSWORD})
    gone = MemberRow.objects.get(
        pk=MemberRow.objects.filter(username__startswith="former-member-").get().pk
    )
    assert gone.email == ""
    assert gone.display_name == ""
    ann_eve = Match.objects.get(tournament=season.tournament, round_number=1, seats__member=gone)
    assert title_of(ann_eve) == f"Round 1: Ann v {gone.username}"
    season.ledger.expect({}, what="Eve's export and deletion")


def round_three(season: Season) -> None:
    """The last round: Ben resigns to Ann after two moves, Cat to Dan after three."""
    ann_ben = fixture(season, 3, "ann", "ben")
    dan_cat = fixture(season, 3, "dan", "cat")
    one, two = f"{LEAGUE} · Round 3: Ann v Ben", f"{LEAGUE} · Round 3: Dan v Cat"
    season.world.to(ann_ben.kickoff_at - BEFORE_KICK_OFF)
    season.ledger.expect(
        kick_off_reminders({one: ("ann", "ben"), two: ("dan", "cat")}),
        what="two minutes before round 3",
    )
    ann, ben = boards(season, ann_ben, "ann", "ben")
    dan, cat = boards(season, dan_cat, "dan", "cat")
    kick_off(season, ann_ben, [ann, ben])
    dan.event("opened")
    season.ledger.expect(
        {"ann": [f"Your move: {one}"], "dan": [f"Your move: {two}"]},
        what="round 3's kick-off",
    )
    moves_told(season, ann_ben, {0: ann, 1: ben}, {0: "ann", 1: "ben"}, 2)
    assert send(ben, {"type": "resign"})["code"] == "resigned"
    season.results["Round 3: Ann v Ben"] = ann.event("ended")["data"]
    season.ledger.expect(
        {"ann": [f"You won by resignation: {one}"], "ben": [f"You lost by resignation: {one}"]},
        what="Ben's resignation",
    )
    moves_told(season, dan_cat, {0: dan, 1: cat}, {0: "dan", 1: "cat"}, 3)
    assert send(cat, {"type": "resign"})["code"] == "resigned"
    season.results["Round 3: Dan v Cat"] = dan.event("ended")["data"]
    season.ledger.expect(
        {"dan": [f"You won by resignation: {two}"], "cat": [f"You lost by resignation: {two}"]},
        what="Cat's resignation",
    )
    for board in (ann, ben, dan, cat):
        board.close()


def resigned_spread(ended: dict[str, Any]) -> int:
    """What a resignation adds to the winner's spread (RULES.md section 12): the scores as
    they stood, never in the resigner's favour."""
    scores = ended["scores"]
    winner = 0 if ended["result"] == "first" else 1
    return max(0, scores[winner] - scores[1 - winner])


def calendar_events(season: Season, name: str) -> dict[str, tuple[str | None, str | None]]:
    """A member's own calendar feed (its address from their settings page): each event's
    SEQUENCE and STATUS by its summary."""
    settings_page = season[name].get("/notifications/settings/").text
    [feed] = re.findall(r'id="calendar-url" type="text" readonly value="([^"]+)"', settings_page)
    ics = season[name].get(feed).text.replace("\r\n ", "").replace("\r\n", "\n")
    events = {}
    for block in ics.split("BEGIN:VEVENT")[1:]:
        fields = dict(line.split(":", 1) for line in block.split("\n") if ":" in line)
        events[fields["SUMMARY"]] = (fields.get("SEQUENCE"), fields.get("STATUS"))
    return events


def the_end(season: Season) -> None:
    """The table, the ratings (and a rebuild gives the same), the leaderboard, a member's
    calendar, and no ERROR in any server's log."""
    gone = MemberRow.objects.get(username__startswith="former-member-").username
    r1 = season.results["Round 1: Cat v Ben"]
    r1_winner, r1_loser = ("cat", "ben") if r1["result"] == "first" else ("ben", "cat")
    r1_spread = abs(r1["scores"][0] - r1["scores"][1])
    ann_eve = resigned_spread(season.results["Round 1: Ann v Eve"])
    ann_ben = resigned_spread(season.results["Round 3: Ann v Ben"])
    dan_cat = resigned_spread(season.results["Round 3: Dan v Cat"])
    # (played, won, lost, spread): adjudications and forfeits count no spread.
    lines = {
        "ann": [3, 2, 1, ann_eve + ann_ben],
        "dan": [2, 2, 0, dan_cat],
        "cat": [3, 1, 2, -dan_cat],
        "ben": [3, 0, 3, -ann_ben],
        gone: [1, 0, 1, -ann_eve],
    }
    lines[r1_winner][1] += 1
    lines[r1_winner][2] -= 1
    lines[r1_winner][3] += r1_spread
    lines[r1_loser][3] -= r1_spread
    table = season["olga"].get(f"/api/tournaments/{season.tournament.id}/standings").json()
    got = {
        row["username"]: [row["played"], row["won"], row["lost"], row["spread"]]
        for row in table["standings"]
    }
    assert got == lines, f"the table: {table}"
    points = [row["points"] for row in table["standings"]]
    assert points == sorted(points, reverse=True)

    from ratings.models import Rating

    rated = {r.member.username: r for r in Rating.objects.select_related("member")}
    assert {name: r.games for name, r in rated.items()} == {
        name: line[0] for name, line in lines.items()
    }
    assert rated["dan"].rating > 1500 > rated["ben"].rating
    before = {n: (r.rating, r.deviation, r.volatility, r.games) for n, r in rated.items()}
    call_command("ratings", "--rebuild", stdout=io.StringIO())
    after = {
        r.member.username: (r.rating, r.deviation, r.volatility, r.games)
        for r in Rating.objects.select_related("member")
    }
    assert after == before

    # The leaderboard: every rating provisional after a short season, shown and marked so.
    board = page_text(season["ann"].get("/ratings/").text)
    assert "Nobody's rating is settled yet" in board
    ranked = sorted(rated.values(), key=lambda r: -r.rating)
    rows = [  # (the deviation shown is as it stands now: it grows while a player is idle)
        rf"{rank} {re.escape(r.member.display_name or r.member.username)} {round(r.rating)}\? "
        rf"provisional ±\d+ {r.games} "
        for rank, r in enumerate(ranked, start=1)
    ]
    assert [row for row in rows if not re.search(row, board)] == [], board
    assert ranked[0].member.username == "dan"

    # Ann's calendar: each fixture's SEQUENCE counts the organiser's changes to it.
    assert calendar_events(season, "ann") == {
        f"Kick-off: {LEAGUE} · Round 1: Ann v {gone}": ("2", "CONFIRMED"),  # substitute, postponed
        f"Kick-off: {LEAGUE} · Round 2: Cat v Ann": ("2", "CONFIRMED"),  # postponed, adjudicated
        f"Kick-off: {LEAGUE} · Round 3: Ann v Ben": ("1", "CONFIRMED"),  # postponed
        "Kick-off: Open table: Ann v (free seat)": ("0", "CONFIRMED"),
        "Began: Challenge: Ann v Ben": ("0", "CONFIRMED"),
        "Began: Rematch: Ben v Ann": ("0", "CONFIRMED"),
    }
    bens = calendar_events(season, "ben")
    assert bens[f"Kick-off: Club night: {gone} v Ben"] == ("1", "CANCELLED")
    assert bens[f"Kick-off: {LEAGUE} · Round 1: Cat v Ben"] == ("2", "CONFIRMED")

    # The servers were heard from (so a clean log means something), and none logged an ERROR.
    assert "GET /ratings/ 200" in season.world.server("web").log_text()
    assert "Task notifications.sweep[" in season.world.server("worker").log_text()
    assert "Sending due task" in season.world.server("beat").log_text()
    assert season.world.errors_logged() == []


# ---------------------------------------------------------------- the winter Swiss

SWISS = "Winter Swiss"


def players_of(matches: Any) -> dict[Match, tuple[str, str]]:
    """Each of ``matches`` (a queryset) with its players' usernames (First, Second)."""
    found = {}
    for match in matches.prefetch_related("seats__member"):
        seats = sorted(match.seats.all(), key=lambda seat: seat.position)
        found[match] = (seats[0].member.username, seats[1].member.username)
    return found


def swiss_fixtures(season: Season, round_number: int) -> dict[Match, tuple[str, str]]:
    """The Swiss's fixtures of a round."""
    return players_of(Match.objects.filter(tournament__name=SWISS, round_number=round_number))


def swiss_title(match: Match, names: tuple[str, str]) -> str:
    return f"{SWISS} · Round {match.round_number}: {names[0].title()} v {names[1].title()}"


def swiss_bye(season: Season, round_number: int) -> str:
    from tournaments.models import SwissBye

    return SwissBye.objects.get(
        swiss__tournament__name=SWISS, round_number=round_number
    ).member.username


def swiss_round(season: Season, round_number: int, *, move_time: timedelta) -> dict[str, Any]:
    """The round's kick-off (its reminders and the "your move" of those who kept it on); each
    first move due ``move_time`` after kick-off; then in each game Second resigns at once;
    what each game ended with."""
    fixtures = swiss_fixtures(season, round_number)
    kickoff = {match.kickoff_at for match in fixtures}
    assert len(kickoff) == 1, "a Swiss round kicks off at one time"
    [at] = kickoff
    assert at is not None
    season.world.to(at - BEFORE_KICK_OFF)
    season.ledger.expect(
        kick_off_reminders({swiss_title(match, names): names for match, names in fixtures.items()}),
        what=f"two minutes before the Swiss's round {round_number}",
    )
    players = {match: boards(season, match, *names) for match, names in fixtures.items()}
    season.world.to(at + timedelta(seconds=1))
    for first, _second in players.values():
        assert first.event("opened")["data"]["status"] == "live"
    for match in fixtures:
        began = Match.objects.get(pk=match.pk).turn_started_at
        assert began is not None
        assert players[match][0].sync()["turn_deadline_at"] == (began + move_time).isoformat()
    season.ledger.expect(
        {
            names[0]: [f"Your move: {swiss_title(match, names)}"]
            for match, names in fixtures.items()
            if names[0] not in QUIET
        },
        what=f"the Swiss's round {round_number} kicks off",
    )
    ended = {}
    for match, (first, second) in players.items():
        assert send(second, {"type": "resign"})["code"] == "resigned"
        ended[fixtures[match]] = first.event("ended")["data"]
        assert ended[fixtures[match]]["result"] == "first"
        first.close()
        second.close()
    return ended


def resignations(fixtures: dict[Match, tuple[str, str]]) -> dict[str, list[str]]:
    """What each player of a round is told when Second resigns every game."""
    told: dict[str, list[str]] = {}
    for match, names in fixtures.items():
        told.setdefault(names[0], []).append(f"You won by resignation: {swiss_title(match, names)}")
        told.setdefault(names[1], []).append(
            f"You lost by resignation: {swiss_title(match, names)}"
        )
    return told


def kick_off_reminders(tables: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """The reminder each player of each fixture (title → its players) is sent a minute
    before kick-off."""
    return merged(
        *(
            {name: [f"Kick-off in 1 minute: {title}"] for name in names}
            for title, names in tables.items()
        )
    )


def merged(*parts: dict[str, list[str]]) -> dict[str, list[str]]:
    told: dict[str, list[str]] = {}
    for part in parts:
        for name, subjects in part.items():
            told.setdefault(name, []).extend(subjects)
    return told


def the_winter_swiss(season: Season) -> None:
    """After the league, fay joins and the organiser runs a two-round Swiss of five that pairs
    itself: round 1 at once, with a bye (a win, +50), each player told of their fixture;
    round 2 paired the moment round 1's last game ends, with no rematch and the bye to
    someone new; the table counts the byes. Eve, no longer here, is not entered."""
    joins_by_invitation(season, "fay", "10.0.1.6")
    entrants = (*PLAYERS, "fay")
    kickoff = (season.world.clock.now() + timedelta(days=1)).replace(
        hour=19, minute=0, second=0, microsecond=0
    )
    page = season["olga"].submit(
        "/organise/",
        "Create Swiss",
        {
            "swiss-name": SWISS,
            "swiss-players": "\n".join(entrants),
            "swiss-rounds": "2",
            "swiss-first_kickoff": kickoff.strftime("%Y-%m-%dT%H:%M"),
            "swiss-interval_hours": "24",
            "swiss-ruleset": "word-duel",
            "swiss-visibility": "public",
            "swiss-bye_points": "1",
            "swiss-bye_spread": "50",
            "swiss-prize_places": "3",
            "swiss-gibsonization": "on",
            "swiss-pair_automatically": "on",
        },
    )
    assert f"Created {SWISS} with round 1 paired (2 fixtures)" in page_text(page.text)
    swiss = Tournament.objects.get(name=SWISS)
    round_one = swiss_fixtures(season, 1)
    first_bye = swiss_bye(season, 1)
    assert sorted([first_bye, *(n for names in round_one.values() for n in names)]) == sorted(
        entrants
    )
    season.ledger.expect(
        {
            name: [f"Fixture scheduled: {swiss_title(match, names)}"]
            for match, names in round_one.items()
            for name in names
        },
        what="the Swiss's round 1 paired at its creation",
    )
    shown = page_text(season["ann"].get(f"/tournaments/{swiss.id}/").text)
    assert "Swiss: 1 of 2 rounds paired" in shown
    assert "Automatically, when the Swiss was created" in shown
    # A two-day move time, set on the director page: round 1's fixtures (already made) take
    # it from their next turn, and round 2's when they are made.
    move_time = timedelta(hours=48)
    saved = season["olga"].submit(
        f"/organise/tournaments/{swiss.id}/director/", "Save the move time", {"hours": "48"}
    )
    assert "Move time saved." in page_text(saved.text)
    season.ledger.expect({}, what="the Swiss's move time")

    swiss_round(season, 1, move_time=move_time)  # its last resignation pairs round 2
    wait_until(
        lambda: Match.objects.filter(tournament=swiss, round_number=2).count() == 2,
        what="round 2 paired by round 1's last result",
    )
    round_two = swiss_fixtures(season, 2)
    second_bye = swiss_bye(season, 2)
    assert second_bye != first_bye
    met = {frozenset(names) for names in round_one.values()}
    assert not met & {frozenset(names) for names in round_two.values()}, "a rematch"
    season.ledger.expect(
        merged(
            resignations(round_one),
            {
                name: [f"Fixture scheduled: {swiss_title(match, names)}"]
                for match, names in round_two.items()
                for name in names
            },
        ),
        what="the Swiss's round 1 resigned, and round 2 paired",
    )
    assert min(match.kickoff_at for match in round_two) == kickoff + timedelta(hours=24)
    shown = page_text(season["ann"].get(f"/tournaments/{swiss.id}/").text)
    assert "Automatically, when round 1 was complete" in shown

    assert {match.turn_time for match in round_two} == {move_time}
    swiss_round(season, 2, move_time=move_time)
    season.ledger.expect(resignations(round_two), what="the Swiss's round 2 resigned")
    # The table: two games (or a game and a bye) each; a bye is a win with +50.
    table = season["fay"].get(f"/api/tournaments/{swiss.id}/standings").json()["standings"]
    rows = {row["username"]: row for row in table}
    assert set(rows) == set(entrants)
    assert {name: row["byes"] for name, row in rows.items()} == {
        name: int(name in (first_bye, second_bye)) for name in entrants
    }
    assert all(row["played"] == 2 for row in rows.values())
    winners = [names[0] for names in (*round_one.values(), *round_two.values())]
    for name, row in rows.items():
        byes = row["byes"]
        assert row["won"] == winners.count(name) + byes, (name, row)
        assert row["points"] == row["won"]
    assert [row["points"] for row in table] == sorted(
        (row["points"] for row in table), reverse=True
    )
    assert Match.objects.filter(tournament=swiss).count() == 4  # paired no further
    # The exports, for anyone who may see the tournament: the table as CSV in the API's
    # order, every result as CSV, and the results file for rating submission (tsh's .t).
    exported = list(
        csv.DictReader(
            io.StringIO(season["fay"].get(f"/tournaments/{swiss.id}/standings.csv").text)
        )
    )
    assert [row["member"] for row in exported] == [row["username"] for row in table]
    assert [row["byes"] for row in exported] == [str(row["byes"]) for row in table]
    results = list(
        csv.DictReader(io.StringIO(season["fay"].get(f"/tournaments/{swiss.id}/results.csv").text))
    )
    assert sorted(int(row["match_id"]) for row in results) == sorted(
        match.id for match in (*round_one, *round_two)
    )
    assert {row["end_reason"] for row in results} == {"Resignation"}
    tsh = season["fay"].get(f"/tournaments/{swiss.id}/results.t").text.strip().splitlines()
    assert len(tsh) == len(entrants)


# ---------------------------------------------------------------- the spring league

SPRING = "Spring League"


def division_fixtures(season_number: int, rank: int) -> dict[Match, tuple[str, str]]:
    """A league division's fixtures."""
    name = f"{SPRING} · Season {season_number} · Division {rank}"
    return players_of(Match.objects.filter(tournament__name=name))


def fixture_title(match: Match, names: tuple[str, str]) -> str:
    """As the notices give it: the fixture's name and the names its players go by."""
    shown = {
        row.username: row.display_name or row.username
        for row in MemberRow.objects.filter(username__in=names)
    }
    return f"{match.name}: {shown[names[0]]} v {shown[names[1]]}"


def without_push(told: dict[str, list[str]]) -> dict[str, list[str]]:
    """The same notices as pushes, but for the organiser, whose browser takes none."""
    return {name: subjects for name, subjects in told.items() if name != "olga"}


def scheduled(fixtures: dict[Match, tuple[str, str]]) -> dict[str, list[str]]:
    told: dict[str, list[str]] = {}
    for match, names in fixtures.items():
        for name in names:
            told.setdefault(name, []).append(f"Fixture scheduled: {fixture_title(match, names)}")
    return told


def play_the_divisions(season: Season, season_number: int) -> dict[int, list[str]]:
    """Every round of the season's two divisions kicks off at once (no interval); the
    organiser rules each game for First; the divisions' final tables, best first."""
    fixtures = {**division_fixtures(season_number, 1), **division_fixtures(season_number, 2)}
    [kickoff] = {match.kickoff_at for match in fixtures}
    assert kickoff is not None
    season.world.to(kickoff - BEFORE_KICK_OFF)
    reminders = kick_off_reminders(
        {fixture_title(match, names): names for match, names in fixtures.items()}
    )
    season.ledger.expect(
        reminders,
        without_push(reminders),
        what=f"the league's season {season_number} kicks off soon",
    )
    season.world.to(kickoff + timedelta(seconds=1))
    moves = {
        names[0]: [
            f"Your move: {fixture_title(m, n)}" for m, n in fixtures.items() if n[0] == names[0]
        ]
        for names in fixtures.values()
        if names[0] not in QUIET
    }
    season.ledger.expect(moves, without_push(moves), what=f"season {season_number} kicked off")
    results: dict[str, list[str]] = {}
    for match, names in fixtures.items():
        season["olga"].submit(
            f"/organise/fixtures/?tournament={match.tournament_id}",
            "Rule",
            {"ruling": "first", "reason": "Played at the club's spring evening"},
            action=f"/{match.id}/adjudicate/",
        )
        title = fixture_title(match, names)
        results.setdefault(names[0], []).append(f"You won by an organiser's ruling: {title}")
        results.setdefault(names[1], []).append(f"You lost by an organiser's ruling: {title}")
    season.ledger.expect(results, without_push(results), what=f"season {season_number} ruled")
    tables = {}
    for rank in (1, 2):
        name = f"{SPRING} · Season {season_number} · Division {rank}"
        tournament = Tournament.objects.get(name=name)
        table = season["ann"].get(f"/api/tournaments/{tournament.id}/standings").json()
        tables[rank] = [row["username"] for row in table["standings"]]
    return tables


def the_spring_league(season: Season) -> None:
    """The organiser starts a league of five in divisions of two (the bottom one takes the
    odd player), one up and one down; the season is played (every game ruled by the
    organiser); season 2 is started from the league's page: the top of division 2 goes up,
    the foot of division 1 comes down, and each is told of their new fixtures."""
    ladder = ("ann", "ben", "cat", "dan", "fay")
    kickoff = (season.world.clock.now() + timedelta(days=1)).replace(
        hour=20, minute=0, second=0, microsecond=0
    )
    page = season["olga"].submit(
        "/organise/",
        "Create league",
        {
            "league-name": SPRING,
            "league-players": "\n".join(ladder),
            "league-division_size": "2",
            "league-movers": "1",
            "league-first_kickoff": kickoff.strftime("%Y-%m-%dT%H:%M"),
            "league-interval_hours": "0",
            "league-meetings": "once",
            "league-ruleset": "word-duel",
            "league-visibility": "public",
        },
    )
    assert SPRING in page_text(page.text)
    league_url = re.search(r"/leagues/\d+/", page.url)
    assert league_url, page.url
    first = {**division_fixtures(1, 1), **division_fixtures(1, 2)}
    assert {frozenset(n) for n in division_fixtures(1, 1).values()} == {frozenset(("ann", "ben"))}
    assert {frozenset(n) for n in division_fixtures(1, 2).values()} == {
        frozenset(pair) for pair in (("cat", "dan"), ("cat", "fay"), ("dan", "fay"))
    }
    told = scheduled(first)
    season.ledger.expect(told, without_push(told), what="the league's first season")
    tables = play_the_divisions(season, 1)
    relegated, promoted = tables[1][-1], tables[2][0]
    shown = page_text(season["ann"].get(league_url.group(0)).text)
    assert "↑ Promotion" in shown
    assert "↓ Relegation" in shown

    start = kickoff + timedelta(days=7)
    season["olga"].submit(
        league_url.group(0),
        "Start season 2",
        {"next-first_kickoff": start.strftime("%Y-%m-%dT%H:%M"), "next-entrants": ""},
    )
    top = {n for names in division_fixtures(2, 1).values() for n in names}
    bottom = {n for names in division_fixtures(2, 2).values() for n in names}
    assert top == (set(tables[1]) - {relegated}) | {promoted}
    assert bottom == (set(tables[2]) - {promoted}) | {relegated}
    second = {**division_fixtures(2, 1), **division_fixtures(2, 2)}
    told = scheduled(second)
    season.ledger.expect(told, without_push(told), what="the league's second season")
    shown = page_text(season["ann"].get(league_url.group(0)).text)
    assert "Season 2" in shown
    assert "Previous seasons" in shown


# ---------------------------------------------------------------- the summer cup

CUP = "Summer Cup"


def cup_fixtures(unfinished: bool = True) -> dict[Match, tuple[str, str]]:
    """The cup's games (those not yet over, by default)."""
    games = Match.objects.filter(tournament__name=CUP)
    if unfinished:
        games = games.filter(status__in=[Match.Status.SCHEDULED, Match.Status.LIVE])
    return players_of(games)


def the_summer_cup(season: Season) -> None:
    """A knockout of five seeded by hand, a game a tie, a day between rounds: the top three
    seeds have byes; each round kicks off, the organiser rules every game for First (the
    higher seed), and the last result of a round draws the next, its players told; the
    bracket names the champion."""
    seeds = ("ann", "ben", "cat", "dan", "fay")
    kickoff = (season.world.clock.now() + timedelta(days=1)).replace(
        hour=17, minute=0, second=0, microsecond=0
    )
    page = season["olga"].submit(
        "/organise/",
        "Create knockout",
        {
            "ko-name": CUP,
            "ko-players": "\n".join(seeds),
            "ko-seeding": "order",
            "ko-best_of": "1",
            "ko-first_kickoff": kickoff.strftime("%Y-%m-%dT%H:%M"),
            "ko-interval_hours": "24",
            "ko-ruleset": "word-duel",
            "ko-visibility": "public",
        },
    )
    assert f"Created {CUP}: 1 game in round 1." in page_text(page.text)
    cup = Tournament.objects.get(name=CUP)
    fixtures = cup_fixtures()
    assert set(fixtures.values()) == {("dan", "fay")}  # seeds 4 and 5; 1 to 3 have byes
    told = scheduled(fixtures)
    season.ledger.expect(told, what="the cup's draw")
    rounds = 0
    while fixtures:
        rounds += 1
        [at] = {match.kickoff_at for match in fixtures}
        assert at is not None
        season.world.to(at - BEFORE_KICK_OFF)
        reminders = kick_off_reminders(
            {fixture_title(match, names): names for match, names in fixtures.items()}
        )
        season.ledger.expect(reminders, what=f"the cup's round {rounds} soon")
        season.world.to(at + timedelta(seconds=1))
        moves = merged(
            *(
                {ns[0]: [f"Your move: {fixture_title(m, ns)}"]}
                for m, ns in fixtures.items()
                if ns[0] not in QUIET
            )
        )
        season.ledger.expect(moves, what=f"the cup's round {rounds} kicked off")
        results: dict[str, list[str]] = {}
        for match, names in fixtures.items():
            season["olga"].submit(
                f"/organise/fixtures/?tournament={cup.id}",
                "Rule",
                {"ruling": "first", "reason": "Played at the summer fete"},
                action=f"/{match.id}/adjudicate/",
            )
            results = merged(
                results,
                {
                    names[0]: [f"You won by an organiser's ruling: {fixture_title(match, names)}"],
                    names[1]: [f"You lost by an organiser's ruling: {fixture_title(match, names)}"],
                },
            )
        if rounds < 3:  # every game so far is over: the last result draws the next round
            wait_until(lambda: bool(cup_fixtures()), what="the cup's next round drawn")
        fixtures = cup_fixtures()
        season.ledger.expect(
            merged(results, scheduled(fixtures)), what=f"the cup's round {rounds} ruled"
        )
    assert rounds == 3  # the quarter-final, the semi-finals, the final
    finals = [
        names for match, names in cup_fixtures(unfinished=False).items() if "Final" in match.name
    ]
    assert finals == [("ann", "ben")]  # the higher seed went through each time
    bracket = season["cat"].get(f"/tournaments/{cup.id}/").text
    assert 'Won by <strong id="champion">Ann</strong>.' in bracket


# ---------------------------------------------------------------- a classic table of four

TABLE_NIGHT = "Scrabble night"
#: The table in seat order (First to Fourth), as the organiser seats it.
TABLE = ("ann", "dan", "fay", "cat")


def your_move(names: tuple[str, ...], seat: int | None, title: str) -> dict[str, list[str]]:
    """The "your move" notice the seat now to move is sent (none for a quiet member, none
    when nobody is to move)."""
    if seat is None or names[seat] in QUIET:
        return {}
    return {names[seat]: [f"Your move: {title}"]}


def table_outcome(name: str, places: dict[str, int]) -> str:
    """A table's result notice's headline for ``name`` (notifications/content.py)."""
    place = places[name]
    shared = sum(1 for other in places.values() if other == place) > 1
    if place == 1:
        return "You shared first place" if shared else "You won"
    where = ("first", "second", "third", "fourth")[place - 1]
    return f"You {'shared' if shared else 'came'} {where} of {len(places)}"


def the_classic_table(season: Season) -> None:
    """After the cup the organiser seats four members at a rated classic table under the
    5-point challenge rule. The draw decides who starts; the starter opens with a phony, a
    player two seats on challenges it (withdrawn: the tiles back, no score), a later good
    word is challenged wrongly (+5 to its player), and the table plays on in seat order, every
    player told when it is their move, until the bag runs out and someone goes out; the last
    play's window (an hour) closes on the clock. A spectator sees every seat and no rack; the page
    gives the places, the record names four players and both challenges, and each player's
    rating moves by the pairwise results."""
    from ratings.models import Rating
    from tests.matches.table_helpers import phony_opening
    from tests.matches.test_ws_helpers import move_frame

    kickoff = (season.world.clock.now() + timedelta(days=1)).replace(
        hour=19, minute=30, second=0, microsecond=0
    )
    first, second, third, fourth = TABLE
    season["olga"].submit(
        "/organise/",
        "Schedule fixture",
        {
            "fixture-name": TABLE_NIGHT,
            "fixture-seats": "4",
            "fixture-first": first,
            "fixture-second": second,
            "fixture-third": third,
            "fixture-fourth": fourth,
            "fixture-ruleset": "classic",
            "fixture-challenge_rule": "five_point",
            "fixture-challenge_window_hours": "1",
            "fixture-rated": "on",
            "fixture-kickoff_at": kickoff.strftime("%Y-%m-%dT%H:%M"),
        },
    )
    match = Match.objects.get(name=TABLE_NIGHT)
    assert (match.seat_count, match.challenge_rule, match.rated) == (4, "five_point", True)
    assert match.challenge_window == timedelta(hours=1)
    shown = {
        row.username: row.display_name or row.username
        for row in MemberRow.objects.filter(username__in=TABLE)
    }
    title = f"{TABLE_NIGHT}: " + " v ".join(shown[name] for name in TABLE)
    season.ledger.expect(
        {name: [f"Fixture scheduled: {title}"] for name in TABLE}, what="a table scheduled"
    )
    fix_the_bag(season, match, seed=44, players=TABLE)
    ratings_before = {
        r.member.username: (r.rating, r.games)
        for r in Rating.objects.filter(member__username__in=TABLE, ruleset="classic")
    }

    season.world.to(kickoff - BEFORE_KICK_OFF)
    season.ledger.expect(kick_off_reminders({title: TABLE}), what="the table soon")
    players = dict(enumerate(boards(season, match, *TABLE)))
    watcher = Board(season.world, match.id, None)
    everyone = [*players.values(), watcher]
    kick_off(season, match, everyone)
    state = players[0].sync()
    starter = state["to_move"]
    assert len(state["seats"]) == 4
    assert watcher.sync()["rack"] is None
    season.ledger.expect(your_move(TABLE, starter, title), what="the table kicked off")

    # The starter's phony, challenged by the player two seats on: withdrawn.
    phony = phony_opening(match).to_dict()
    opening = move_frame(phony, turn=0, client_id="x", after=state["bag_commitment"])
    ack = send(players[starter], opening)
    assert ack["accepted"], ack
    for board in everyone:
        opened = board.wait_for(lambda f: f["type"] == "turn")["data"]
        assert opened["open_play"]["player"] == starter
    after = (starter + 1) % 4
    season.ledger.expect(your_move(TABLE, after, title), what="the phony played")
    challenger = (starter + 2) % 4
    answer = send(players[challenger], {"type": "challenge", "turn": 1})
    assert (answer["code"], answer["challenge"]["withdrawn"]) == ("challenged", True), answer
    for board in everyone:
        result = board.event("challenge_result")["data"]
        assert result["to_move"] == after
        assert result["move"]["challenge"]["withdrawn"]
    season.ledger.expect({}, what="the phony withdrawn (the turn had already moved on)")
    assert Match.objects.get(pk=match.pk).seats.get(position=starter).score == 0

    # Play on in seat order; the second good word is challenged wrongly: +5 to its player.
    rng = random.Random(TABLE_NIGHT)
    turn, to_move, wrongly_challenged = 1, after, None
    while to_move is not None:
        news = play_one_move(players[to_move], rng, turn=turn, seat=to_move, plays_only=True)
        turn += 1
        if wrongly_challenged is None and turn == 3:
            by = (to_move + 1) % 4
            stands = send(players[by], {"type": "challenge", "turn": turn})
            assert (stands["code"], stands["challenge"]["withdrawn"]) == ("challenged", False)
            assert stands["challenge"]["points"] == 5
            wrongly_challenged = to_move
            for board in everyone:
                board.event("challenge_result")
        season.ledger.expect(
            your_move(TABLE, news["to_move"], title), what=f"move {turn} at the table"
        )
        to_move = news["to_move"]
        assert turn < 200, "a table that never ends"
    assert wrongly_challenged is not None

    # The last play stays open to a challenge until its window (an hour) closes on the clock;
    # the players have closed their pages by then (an hour idle), and come back to the result.
    for board in everyone:
        board.close()
    live = Match.objects.get(pk=match.pk)
    if live.status == Match.Status.LIVE:
        assert live.turn_deadline_at is not None
        assert live.turn_deadline_at - season.world.clock.now() <= timedelta(hours=1)
        season.world.to(live.turn_deadline_at + timedelta(seconds=1))
        wait_until(
            lambda: Match.objects.get(pk=match.pk).status == Match.Status.FINISHED,
            what="the last play's window closed by the sweep",
        )
    finished = Match.objects.get(pk=match.pk)
    places = {seat.member.username: seat.place for seat in finished.seats.select_related("member")}
    assert None not in places.values()
    assert min(places.values()) == 1
    for name in (*TABLE, None):
        with Board(season.world, match.id, season[name] if name else None) as back:
            assert back.snapshot["status"] == "finished"
            assert back.snapshot["result"] == "table"
            assert [seat["place"] for seat in back.snapshot["seats"]] == [
                places[player] for player in TABLE
            ]
    results = {name: [f"{table_outcome(name, places)}: {title}"] for name in TABLE}
    told = season.ledger.expect(results, what="the table's end")
    scores = text_of(told[first].emails[0])
    assert "Final scores: " in scores

    page = page_text(season[first].get(f"/matches/{match.id}/").text)
    winners = [shown[name] for name, place in places.items() if place == 1]
    assert all(name in page for name in winners)
    record = season[first].get(f"/api/matches/{match.id}/export.gcg").text
    assert all(f"#player{n} " in record for n in range(1, 5)), record[:400]
    assert "--" in record  # the withdrawn phony, as the standard writes it
    ratings_after = {
        r.member.username: (r.rating, r.games)
        for r in Rating.objects.filter(member__username__in=TABLE, ruleset="classic")
    }
    for name in TABLE:
        games_before = ratings_before.get(name, (0.0, 0))[1]
        assert ratings_after[name][1] == games_before + 1, name
    start = 1500.0  # (a member's first classic game: ratings/policy START)
    for name in TABLE:
        before = ratings_before.get(name, (start, 0))[0]
        alone_at = [other for other in TABLE if places[other] == places[name]] == [name]
        if alone_at and places[name] == 1:  # won every pair
            assert ratings_after[name][0] > before, name
        if alone_at and places[name] == max(places.values()):  # lost every pair
            assert ratings_after[name][0] < before, name


# ---------------------------------------------------------------- the season


def test_a_club_season(season: Season) -> None:
    the_organiser(season)
    invitations_and_approval(season)
    a_substitute_joins(season)
    the_round_robin(season)
    organiser_changes(season)
    round_one(season)
    round_two(season)
    club_life(season)
    round_three(season)
    the_end(season)
    the_winter_swiss(season)
    the_spring_league(season)
    the_summer_cup(season)
    the_classic_table(season)
    a_reword_evening(season)
    a_word_skill_evening(season)
    a_word_skill_series(season)
    season.ledger.expect({}, what="the members' settling in")
    assert season.world.errors_logged() == []
    assert not season.ledger.discovering, "SEASON_DISCOVER only shows what was told"
