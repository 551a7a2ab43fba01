"""Every page and API route, asked by everyone who might ask: nothing answers 5xx, and nothing
logs an ERROR.

The routes are enumerated from the URL resolver (``django.urls.get_resolver``, which holds the
ninja API's operations as well, checked against ``api.urls``), so a route added later is
crawled without anyone listing it; a route whose path parameters this test cannot fill fails
the test, naming the parameter to add to :func:`path_values`. Each parameter is filled from
real objects made here (a tournament with live, finished and scheduled matches, a practice
game, a cancelled fixture, a members-only one, a league, imported games, a challenge, a
vacation, members of every standing) and from values that name nothing. Every route is asked
GET, HEAD and OPTIONS by an anonymous visitor, an approved member, a pending member, a removed
member, an organiser and a guest (a visitor playing the computer without an account, by its
cookie).
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.apps import apps
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts import services as account_services
from accounts.guests import GUEST_COOKIE, guest_cookie_value
from accounts.models import Member
from challenges import services as challenge_services
from imports import services as import_services
from matches import services
from matches.api import api
from matches.models import Match
from notifications import feeds
from notifications.services import channel_kinds, unsubscribe_token
from practice import services as practice_services
from practice.guests import start_guest_practice
from rounds import services as rounds_services
from rounds.services import series as rounds_series
from tournaments import services as organising
from vacations import services as vacation_services

pytestmark = [pytest.mark.django_db, pytest.mark.slow, pytest.mark.timeout(900)]

GAME = b"#player1 ann Ann\n#player2 bo Bo\n>ann: AEGINRT 8D GRANITE +70 70\n"
NOTHING = "999999"  # an id no object has
METHODS = ("get", "head", "options")


@dataclass(frozen=True)
class Route:
    """One URL pattern: its name to reverse (None for an unnamed one) and its parameters."""

    name: str | None
    template: str
    parameters: tuple[str, ...]


def _parameters(pattern: Any) -> tuple[str, ...]:
    """The named groups of a pattern (``path()``'s converters compile to them too)."""
    return tuple(pattern.regex.groupindex)


def routes(
    patterns: list[Any] | None = None, namespace: str = "", prefix: str = ""
) -> Iterator[Route]:
    """Every URL pattern of the site, its namespaces joined to its name."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from (
                Route(r.name, r.template, (*_parameters(entry.pattern), *r.parameters))
                for r in routes(entry.url_patterns, inner, prefix + str(entry.pattern))
            )
        elif isinstance(entry, URLPattern):
            name = f"{namespace}{entry.name}" if entry.name else None
            yield Route(name, prefix + str(entry.pattern), _parameters(entry.pattern))


@dataclass
class World:
    """The objects the crawl fills path parameters from, and who asks."""

    members: dict[str, Member | None]
    values: dict[str, list[str]] = field(default_factory=dict)
    extra_paths: list[str] = field(default_factory=list)


@pytest.fixture
def world(organiser, alice, bob, make_member, make_fixture) -> World:
    carol = make_member("carol")
    pending = make_member("newcomer")
    Member.objects.filter(pk=pending.pk).update(membership=Member.Membership.PENDING)
    removed = make_member("dropped")
    now = timezone.now()

    # A tournament whose first round kicked off minutes ago (live), the rest to come.
    with time_machine.travel(now - timedelta(minutes=10), tick=False):
        tournament = organising.create_round_robin(
            organiser=organiser,
            name="Crawl league",
            players=[alice, bob, carol, removed],
            first_kickoff=now - timedelta(minutes=5),
            interval=timedelta(days=7),
            rated=True,
        )
    services.open_due_matches()
    league = organising.create_league(
        organiser=organiser,
        name="Crawl county league",
        players=[alice, bob, carol],
        division_size=2,
        movers=1,
        start=now + timedelta(days=1),
        interval=timedelta(days=7),
    )
    live = make_fixture(first=alice, second=bob, name="Live friendly")
    finished = make_fixture(first=alice, second=carol, name="Finished one")
    services.match_resign(match_id=finished.id, member=carol, client_id="crawl-resign")
    members_only = make_fixture(
        first=bob, second=carol, name="Members only", visibility=Match.Visibility.MEMBERS
    )
    cancelled = make_fixture(
        first=bob, second=carol, name="Called off", kickoff_at=now + timedelta(days=1)
    )
    organising.fixture_cancel(organiser=organiser, match_id=cancelled.id, reason="Hall closed")
    empty_seat = make_fixture(first=carol, name="A seat free")
    practice = practice_services.start_practice(member=alice)
    guests_game = start_guest_practice(guest_id=None, address="192.0.2.99")
    # The removed member held a seat in a members-only match before the organiser removed them.
    theirs = make_fixture(
        first=removed, second=bob, name="Was a member", visibility=Match.Visibility.MEMBERS
    )
    services.match_resign(match_id=theirs.id, member=bob, client_id="crawl-resign-2")
    account_services.membership_remove(organiser=organiser, member_id=removed.pk)

    private_game = import_services.import_game(
        owner=alice, data=GAME, ruleset="classic", lexicon="enable"
    )
    import_services.analyse_import(game_id=private_game.id)  # one import at a time
    shared_game = import_services.import_game(
        owner=alice, data=GAME, ruleset="classic", lexicon="enable"
    )
    share_key = import_services.rotate_share_key(game_id=shared_game.id, member=alice)
    challenge = challenge_services.challenge_post(member=bob)
    vacation = vacation_services.declare_vacation(
        member=alice,
        first_day=now.date() + timedelta(days=20),
        last_day=now.date() + timedelta(days=21),
    )
    account_services.account_set_email(member=alice, email="alice@example.org")
    feed = feeds.feed_of(alice)

    # Word Skill: a rounds match under way with Gramma Ana, and a tournament of sessions.
    rounds_match = rounds_services.rounds_play_gramma_ana(
        member=alice, turn_time=timedelta(minutes=3)
    )
    series = rounds_series.create_rounds_series(
        organiser=organiser, name="Crawl Word Skill", players=[alice, bob]
    )
    rounds_series.schedule_session(
        organiser=organiser, tournament_id=series.id, kickoff_at=now + timedelta(days=2)
    )

    matches = [m.id for m in Match.objects.filter(tournament=tournament)]
    world = World(
        members={
            "anonymous": None,
            "member": alice,
            "pending": pending,
            "removed": Member.objects.get(pk=removed.pk),
            "organiser": organiser,
            "guest": guests_game.created_by,  # a visitor's guest cookie, no session
        }
    )
    world.values = {
        "match_id": [
            str(m)
            for m in (
                *matches,
                live.id,
                finished.id,
                members_only.id,
                cancelled.id,
                empty_seat.id,
                practice.id,
                guests_game.id,
                theirs.id,
                rounds_match.id,
            )
        ]
        + [NOTHING],
        "tournament_id": [str(tournament.id), str(series.id), NOTHING],
        "number": ["1", NOTHING],
        "league_id": [str(league.id), NOTHING],
        "game_id": [str(private_game.id), str(shared_game.id), NOTHING],
        "challenge_id": [str(challenge.id), NOTHING],
        "vacation_id": [str(vacation.id), NOTHING],
        "member_id": [str(alice.pk), NOTHING],
        "secret": [feed.secret, "not-the-secret"],
        "username": ["alice", "newcomer", "dropped", "organiser", "nobody"],
        "ruleset": ["word-duel", "classic", "no-such-rules"],
        "token": [
            account_services.email_verification_token(alice, "alice@example.org"),
            *(unsubscribe_token(alice.pk, kind) for kind, _ in channel_kinds()[:1]),
            "not-a-token",
        ],
        "uidb64": [urlsafe_base64_encode(force_bytes(alice.pk)), "MTIzNDU2"],
        "rest": ["no/such/thing"],
        "url": ["no/such/page/"],
        # The admin's (no one here is staff: each is sent to the admin's sign-in).
        "app_label": ["accounts", "matches"],
        "object_id": [str(alice.pk)],
        "id": [str(alice.pk)],
        "content_type_id": ["1"],
    }
    world.values["token_for_reset"] = [default_token_generator.make_token(alice), "set-password"]
    # Addresses with a query, as links and forms make them.
    world.extra_paths = [
        f"/imports/{shared_game.id}/?key={share_key}",
        f"/imports/{shared_game.id}/?key={share_key}&turn=1",
        f"/imports/{private_game.id}/?key=wrong",
        f"/matches/{members_only.id}/?key={members_only.viewing_key}",
        f"/matches/{members_only.id}/?key=wrong",
        f"/api/matches/{members_only.id}/?key={members_only.viewing_key}",
        f"/api/matches/{finished.id}/replay?turn=1",
        f"/api/matches/{live.id}/replay?turn=99",
        f"/matches/{finished.id}/?turn=1",
        f"/matches/{finished.id}/?turn=nonsense",
        "/api/matches/?status=live&limit=5",
        "/api/matches/?status=nonsense",
        "/words/?q=QI",
        "/api/words/?q=ZA",
        "/api/organise/members/?q=al",
        f"/organise/fixtures/?member=alice&tournament={tournament.id}",
        "/organise/fixtures/?member=nobody",
        "/ratings/?page=2",
    ]
    return world


def _combinations(route: Route, values: dict[str, list[str]]) -> list[dict[str, str]]:
    if route.template.startswith("accounts/password/reset/<uidb64>/<token>/"):
        values = {**values, "token": values["token_for_reset"]}
    missing = [name for name in route.parameters if name not in values]
    assert not missing, f"{route.template}: no values for {missing}; add them to the world"
    lists = [values[name] for name in route.parameters]
    return [dict(zip(route.parameters, combo, strict=True)) for combo in itertools.product(*lists)]


def _filled(template: str, kwargs: dict[str, str]) -> str:
    """An unnamed pattern's path: each converter or named group replaced by its value."""
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: kwargs[m[1]], template)
    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: kwargs[m[1]], path)
    return "/" + path.replace("^", "").replace("$", "")


def _paths(route: Route, world: World) -> list[str]:
    """Every path of ``route`` the world fills."""
    return [
        reverse(route.name, kwargs=kwargs) if route.name else _filled(route.template, kwargs)
        for kwargs in _combinations(route, world.values)
    ]


class _Errors(logging.Handler):
    """Every record at ERROR or above, from any logger (django.request's included)."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def errors() -> Iterator[_Errors]:
    handler = _Errors()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def test_the_resolver_holds_every_api_operation() -> None:
    """The crawl walks the resolver; ninja's own list of its routes is in it."""
    crawled = {route.template for route in routes()}
    api_patterns, _, _ = api.urls
    for operation in routes(api_patterns, prefix="api/"):
        assert operation.template in crawled


#: Asked once, by GET: it asks a Celery worker for a ping (seconds when none answers, as
#: here), and its 503 is its answer when a part is down, not a fault of the server.
HEALTH = "/healthz"


def _ask(client: Client, method: str, path: str, errors: _Errors) -> str | None:
    """What is wrong with ``method path``'s answer: a 5xx, or ERROR lines logged."""
    seen = len(errors.records)
    response = getattr(client, method)(path)
    logged = [f"{r.name}: {r.getMessage()[:300]}" for r in errors.records[seen:]]
    if response.status_code >= 500 or logged:
        return f"{method.upper()} {path}: {response.status_code} {logged}"
    return None


def test_every_route_answers_everyone_without_a_server_error(world: World, errors) -> None:
    by_route = [sorted(set(_paths(route, world))) for route in routes()]
    paths = sorted({path for found in by_route for path in found} - {HEALTH})
    paths += world.extra_paths
    # GET every path; HEAD and OPTIONS each route once (and the addresses with a query).
    others = sorted({found[0] for found in by_route if found} - {HEALTH}) + world.extra_paths
    assert len(paths) > 250  # (the site's pages, the API and the admin, each filled)
    problems: list[str] = []
    for role, member in world.members.items():
        client = Client(raise_request_exception=False)
        if member is not None and member.is_guest:
            client.cookies[GUEST_COOKIE] = guest_cookie_value(member)
        elif member is not None:
            client.force_login(member)
        asked = [("get", path) for path in paths]
        asked += [(method, path) for path in others for method in ("head", "options")]
        for method, path in asked:
            problem = _ask(client, method, path, errors)
            if problem:
                problems.append(f"{role} {problem}")
    assert problems == [], "\n".join(problems)


def test_the_health_report_says_which_part_is_down(errors) -> None:
    response = Client().get(HEALTH)
    parts = response.json()
    down = sorted(name for name, part in parts.items() if isinstance(part, dict) and not part["ok"])
    assert (response.status_code, down) == (503, ["beat", "worker"])  # no Celery in this test
    assert [r.getMessage() for r in errors.records] == ["Service Unavailable: /healthz"]


ADMIN_OBJECT_PAGE = r"admin:([a-z]+)_([a-z0-9]+)_(change|delete|history)"


def _admin_paths(world: World) -> list[str]:
    """The admin's pages, each object page of a model for an object of that model."""
    found = set()
    for route in routes():
        if not route.template.startswith("admin/"):
            continue
        values = world.values
        named = re.fullmatch(
            r"admin:([a-z]+)_([a-z0-9]+)_(change|delete|history)", route.name or ""
        )
        if named:
            model = apps.get_model(named[1], named[2])
            first = model._default_manager.order_by("pk").first()
            values = {**values, "object_id": [str(first.pk) if first else NOTHING]}
        found.update(_paths(route, World(world.members, values)))
    return sorted(found)


def test_the_admin_answers_its_staff_without_a_server_error(world: World, errors) -> None:
    """No one above is staff, so the admin only sent them to its sign-in; a superuser's
    crawl of it reads every list, form and object page."""
    staff = Member.objects.create_superuser("keeper", "keeper@example.org", "pw-correct-horse")
    client = Client(raise_request_exception=False)
    client.force_login(staff)
    admin_paths = _admin_paths(world)
    assert len(admin_paths) > 80
    problems = [p for path in admin_paths if (p := _ask(client, "get", path, errors))]
    assert problems == [], "\n".join(problems)
