"""A removed member (or a sign-up declined) still downloads their own data, members-only
matches included: their games are theirs, whoever may watch them now."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.test import Client

from accounts.models import Member
from matches.models import Match
from tests.matches.helpers import commit_move

pytestmark = pytest.mark.django_db


def test_a_removed_member_downloads_their_members_only_games(alice, bob, make_fixture) -> None:
    match = make_fixture(
        first=alice, second=bob, name="Club night", visibility=Match.Visibility.MEMBERS
    )
    commit_move(
        match_id=match.id, member=alice, move={"kind": "pass"}, against_turn=0, client_id="p1"
    )
    Member.objects.filter(pk=alice.pk).update(membership=Member.Membership.REMOVED)
    client = Client()
    client.force_login(Member.objects.get(pk=alice.pk))
    response = client.get("/accounts/my-data/")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    profile = json.loads(archive.read("profile.json"))
    assert profile["membership"] == "removed"
    assert [m["id"] for m in profile["matches"]] == [match.id]
    record = archive.read(f"matches/match-{match.id}.gcg").decode()
    assert "#player1" in record
    assert "Club night" in record
