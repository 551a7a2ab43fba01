"""Challenge and rematch fixtures: members in each state, a finished friendly, and a
picture of every row these services may touch (so a refusal can be shown to change nothing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import Member
from challenges.models import Challenge, RematchOffer
from matches import services
from matches.models import Match, Seat


@pytest.fixture
def carol(make_member) -> Member:
    return make_member("carol")


@pytest.fixture
def pending(make_member) -> Member:
    member = make_member("pat")
    member.membership = Member.Membership.PENDING
    member.save(update_fields=["membership"])
    return member


@pytest.fixture
def finished_friendly(make_fixture, alice, bob) -> Match:
    """alice (First) v bob (Second), unrated and in no tournament, over by alice's
    resignation."""
    match = make_fixture(first=alice, second=bob, name="Friendly")
    assert match.status == Match.Status.LIVE
    services.match_resign(match_id=match.id, member=alice, client_id="resign-1")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert not match.rated
    assert match.tournament_id is None
    return match


def snapshot() -> dict[str, Any]:
    """Every row a challenge or rematch service could write, as plain values."""
    return {
        "matches": sorted(Match.objects.values_list("id", "status", "result")),
        "seats": sorted(Seat.objects.values_list("id", "member_id", "rack")),
        "challenges": list(Challenge.objects.order_by("id").values()),
        "offers": list(RematchOffer.objects.order_by("id").values()),
    }


@pytest.fixture
def unchanged() -> Callable[[], Any]:
    """``with unchanged(): ...``: assert the block leaves every such row as it was."""
    from contextlib import contextmanager

    @contextmanager
    def check():
        before = snapshot()
        yield
        assert snapshot() == before, "a refusal changed something"

    return check
