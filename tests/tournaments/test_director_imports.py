"""CSV imports (docs/RULES.md section 3, "A director's tools"): members as single-use
invitation links, entries as late entrants; a file with any bad row is refused with each
row's error and changes nothing; organisers only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts import services as account_services
from accounts.errors import MembersImportRefused
from accounts.models import Invitation
from tests.matches.test_standings import KICKOFF, round_robin
from tournaments.services import director

pytestmark = pytest.mark.django_db

LATE = KICKOFF + timedelta(days=10)


def _local(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


@pytest.fixture
def cup(organiser, make_member):
    return round_robin(organiser, [make_member("ann"), make_member("bob")])


def test_a_bad_entries_file_names_each_bad_row_and_enters_nobody(cup, organiser, make_member):
    make_member("cat")
    pending = make_member("pat")
    pending.membership = pending.Membership.PENDING
    pending.save()
    fixtures = cup.matches.count()
    text = "username\ncat\nzed\ncat\nann\npat\n"
    with pytest.raises(director.EntriesRefused) as refused:
        director.entries_import(organiser=organiser, tournament_id=cup.id, csv_text=text,
                                first_kickoff=LATE, interval=timedelta(days=1))  # fmt: skip
    assert refused.value.rows == [
        (3, "There is no member called 'zed'."),
        (4, "cat is named twice."),
        (5, director.ALREADY_ENTERED),
        (6, "Only approved club members can play in a fixture."),
    ]
    assert cup.matches.count() == fixtures
    assert sorted(cup.players.values_list("username", flat=True)) == ["ann", "bob"]


def test_a_good_entries_file_enters_each_member_through_the_page(cup, organiser, make_member):
    make_member("cat")
    make_member("dan")
    client = Client()
    client.force_login(organiser)
    url = f"/organise/tournaments/{cup.id}/director/entries/"
    data = {"entries-first_kickoff": _local(LATE), "entries-interval_hours": "24"}
    bad = client.post(url, {**data, "entries-rows": "cat\nnobody\n"})
    assert bad.status_code == 400
    page = bad.content.decode()
    assert director.ENTRIES_REFUSED in page
    assert '<li data-row="2">Row 2: There is no member called &#x27;nobody&#x27;.</li>' in page
    assert not cup.players.filter(username="cat").exists()
    upload = SimpleUploadedFile("entries.csv", b"username\r\ncat\r\ndan\r\n", "text/csv")
    answer = client.post(url, {**data, "entries-file": upload})
    assert answer.status_code == 302
    assert sorted(cup.players.values_list("username", flat=True)) == ["ann", "bob", "cat", "dan"]
    # cat plays ann and bob; dan plays ann, bob and cat: five new fixtures.
    assert cup.matches.count() == 1 + 5
    someone = Client()
    someone.force_login(cup.players.get(username="ann"))
    assert someone.post(url, {**data, "entries-rows": "x"}).status_code == 403


def test_a_bad_members_file_names_each_bad_row_and_makes_no_invitation(organiser, make_member):
    taken = make_member("kim")
    taken.email = "kim@example.org"
    taken.save()
    rows = [
        ["name", "email"],
        ["Ann Smith", "ann@example.org"],
        ["", "nobody@example.org"],
        ["Bea", "not an address"],
        ["Cy", "ann@example.org"],
        ["Kim", "KIM@example.org"],
    ]
    with pytest.raises(MembersImportRefused) as refused:
        account_services.members_import(organiser=organiser, rows=rows, expires_at=KICKOFF)
    assert refused.value.rows == [
        (3, account_services.ROW_NEEDS_A_NAME),
        (4, account_services.ROW_BAD_EMAIL),
        (5, account_services.ROW_EMAIL_TWICE),
        (6, account_services.ROW_EMAIL_A_MEMBER),
    ]
    assert not Invitation.objects.exists()


def test_a_good_members_file_makes_one_single_use_link_each_on_the_page(organiser, make_member):
    client = Client()
    client.force_login(organiser)
    assert 'id="import-members"' in client.get("/accounts/members/").content.decode()
    bad = client.post(
        "/organise/members/import/", {"rows": "Ann,ann@example.org\n,x@y.org", "days": "7"}
    )
    assert bad.status_code == 400
    assert "Row 2: The row has no name." in bad.content.decode()
    assert not Invitation.objects.exists()
    upload = SimpleUploadedFile(
        "members.csv", "name,email\nAnn Smith,ann@example.org\nBéa\n".encode(), "text/csv"
    )
    answer = client.post("/organise/members/import/", {"file": upload, "days": "7"})
    assert answer.status_code == 200
    invitations = list(Invitation.objects.order_by("id"))
    assert [(i.note, i.max_uses, i.created_by) for i in invitations] == [
        ("Ann Smith <ann@example.org>", 1, organiser),
        ("Béa", 1, organiser),
    ]
    page = answer.content.decode()
    assert all(f"?invite={i.token}" in page for i in invitations)
    someone = Client()
    someone.force_login(make_member("ann"))
    assert someone.get("/organise/members/import/").status_code == 403
    upload = SimpleUploadedFile("members.csv", b"Zed,zed@example.org\n", "text/csv")
    assert (
        someone.post("/organise/members/import/", {"file": upload, "days": "7"}).status_code == 403
    )
    assert Invitation.objects.count() == 2
