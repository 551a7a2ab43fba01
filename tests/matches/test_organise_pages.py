"""The organisers' Fixtures page (``/organise/fixtures/``), its action forms and the member
picker (``/api/organise/members/``): organisers only, filters, each form calling its
service, refusals shown on the page (never a 500), pickers offering approved members only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Member
from matches.models import Match, OrganiserAction, Seat
from tests.matches.api_schema import answer_conforms
from tournaments import services as organising

LIST = "/organise/fixtures/"


def _client(member: Member | None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def _local(moment: datetime) -> str:
    """A datetime-local value in UTC (the form reads it so without JavaScript)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")


@pytest.fixture
def upcoming(make_fixture, alice, bob) -> Match:
    return make_fixture(first=alice, second=bob, name="Alice v Bob",
                        kickoff_at=timezone.now() + timedelta(hours=2))  # fmt: skip


# ---------------------------------------------------------------- who may


@pytest.mark.django_db
def test_only_organisers_see_the_fixture_list_or_act(organiser, alice, upcoming):
    assert _client(organiser).get(LIST).status_code == 200
    kickoff_before = upcoming.kickoff_at
    for outsider in (alice, None):
        client = _client(outsider)
        assert client.get(LIST).status_code == 403
        answer = client.post(f"{LIST}{upcoming.id}/reschedule/", {
            "kickoff_at": _local(timezone.now() + timedelta(days=3)), "reason": "x"})  # fmt: skip
        assert answer.status_code == 403
        assert client.post(f"{LIST}{upcoming.id}/cancel/", {"reason": "x"}).status_code == 403
    upcoming.refresh_from_db()
    assert (upcoming.status, upcoming.kickoff_at) == ("scheduled", kickoff_before)
    assert not OrganiserAction.objects.exists()


@pytest.mark.django_db
def test_the_organise_page_links_to_the_fixtures(organiser):
    page = _client(organiser).get("/organise/").content.decode()
    assert f'href="{LIST}"' in page


# ---------------------------------------------------------------- the list and its filters


@pytest.mark.django_db
def test_filters_narrow_the_list(organiser, alice, bob, make_member, make_fixture, live_match):
    carol = make_member("carol")
    soon = make_fixture(first=alice, second=carol, name="Alice v Carol",
                        kickoff_at=timezone.now() + timedelta(hours=1))  # fmt: skip
    later = make_fixture(first=bob, name="Bob alone", kickoff_at=timezone.now() + timedelta(days=5))
    client = _client(organiser)

    def listed(**query: str) -> set[int]:
        answer = client.get(LIST, query)
        assert answer.status_code == 200, answer.content
        return {row.id for row in answer.context["rows"]}

    everything = {soon.id, later.id, live_match.id}
    assert listed() == everything
    assert listed(status="live") == {live_match.id}
    assert listed(status="scheduled") == {soon.id, later.id}
    assert listed(member="carol") == {soon.id}
    assert listed(member="BOB") == {later.id, live_match.id}  # any case, when unambiguous
    assert listed(kickoff_from=_local(timezone.now() + timedelta(days=1))) == {later.id}
    assert listed(kickoff_to=_local(timezone.now() + timedelta(hours=2))) == {soon.id}
    unknown = client.get(LIST, {"member": "zoe"})
    assert unknown.status_code == 400
    assert "There is no member called &#x27;zoe&#x27;." in unknown.content.decode()


@pytest.mark.django_db
def test_a_tournament_filter_lists_its_fixtures_and_offers_to_postpone_a_round(
    organiser, alice, bob, make_member, upcoming
):
    cup = organising.create_round_robin(
        organiser=organiser, name="Cup", players=[alice, bob, make_member("carol")],
        first_kickoff=timezone.now() + timedelta(hours=1), interval=timedelta(days=1),
    )  # fmt: skip
    answer = _client(organiser).get(LIST, {"tournament": cup.id})
    fixtures = set(cup.matches.values_list("id", flat=True))
    assert {row.id for row in answer.context["rows"]} == fixtures
    page = answer.content.decode()
    assert f'action="/organise/tournaments/{cup.id}/postpone/"' in page
    assert answer.context["postponable_rounds"] == [1, 2, 3]
    assert "/postpone/" not in _client(organiser).get(LIST).content.decode()  # unfiltered


# ---------------------------------------------------------------- each form


@pytest.mark.django_db
def test_reschedule_from_the_list(organiser, upcoming):
    new = (timezone.now() + timedelta(days=2)).replace(second=0, microsecond=0)
    answer = _client(organiser).post(f"{LIST}{upcoming.id}/reschedule/", {
        "kickoff_at": _local(new), "utc_offset": "0", "reason": "Hall booked",
        "back": "status=scheduled"})  # fmt: skip
    assert answer.status_code == 302
    assert answer["Location"] == f"{LIST}?status=scheduled"
    upcoming.refresh_from_db()
    assert upcoming.kickoff_at == new
    assert OrganiserAction.objects.get(match=upcoming).reason == "Hall booked"


@pytest.mark.django_db
def test_the_browser_offset_is_applied_to_a_new_kickoff(organiser, upcoming):
    typed = (timezone.now() + timedelta(days=2)).replace(second=0, microsecond=0)
    # A browser two hours ahead of UTC (getTimezoneOffset() = -120) typed this local time.
    _client(organiser).post(f"{LIST}{upcoming.id}/reschedule/", {
        "kickoff_at": _local(typed), "utc_offset": "-120", "reason": "x"})  # fmt: skip
    upcoming.refresh_from_db()
    assert upcoming.kickoff_at == typed - timedelta(hours=2)


@pytest.mark.django_db
def test_a_refusal_is_shown_on_the_page_and_changes_nothing(organiser, live_match):
    kickoff, status = live_match.kickoff_at, live_match.status
    tomorrow = _local(timezone.now() + timedelta(days=1))
    answer = _client(organiser).post(f"{LIST}{live_match.id}/reschedule/",
                                     {"kickoff_at": tomorrow, "reason": "Too late"})  # fmt: skip
    assert answer.status_code == 409
    page = answer.content.decode()
    assert "This fixture has kicked off, so its kick-off can no longer be changed." in page
    assert 'role="alert"' in page
    live_match.refresh_from_db()
    assert (live_match.kickoff_at, live_match.status) == (kickoff, status)
    assert not OrganiserAction.objects.exists()
    no_reason = _client(organiser).post(f"{LIST}{live_match.id}/adjudicate/",
                                        {"ruling": "draw", "reason": ""})  # fmt: skip
    assert no_reason.status_code == 400
    assert "Give a reason: it is kept with the fixture&#x27;s record." in no_reason.content.decode()
    live_match.refresh_from_db()
    assert live_match.status == "live"


@pytest.mark.django_db
def test_bad_form_input_is_a_400_on_the_page_not_a_500(organiser, upcoming, live_match):
    client = _client(organiser)
    for url, data in [
        (f"{LIST}{upcoming.id}/reschedule/", {"kickoff_at": "next tuesday", "reason": "x"}),
        (f"{LIST}{upcoming.id}/substitute/", {"position": "7", "member": "bob", "reason": "x"}),
        (f"{LIST}{live_match.id}/adjudicate/", {"ruling": "alice", "reason": "x"}),
        (
            f"{LIST}{upcoming.id}/reschedule/",
            {"kickoff_at": "2030-01-01T10:00", "utc_offset": "9999", "reason": "x"},
        ),
    ]:
        answer = client.post(url, data)
        assert answer.status_code == 400, (url, data)
        assert 'role="alert"' in answer.content.decode()
    assert client.post(f"{LIST}999999/cancel/", {"reason": "x"}).status_code == 404
    assert not OrganiserAction.objects.exists()


@pytest.mark.django_db
def test_cancel_from_the_list(organiser, upcoming):
    answer = _client(organiser).post(f"{LIST}{upcoming.id}/cancel/", {"reason": "Hall shut"})
    assert answer.status_code == 302
    upcoming.refresh_from_db()
    assert (upcoming.status, upcoming.end_reason) == ("abandoned", "cancelled")


@pytest.mark.django_db
def test_substitute_from_the_list_by_username(organiser, upcoming, make_member):
    make_member("carol")
    answer = _client(organiser).post(f"{LIST}{upcoming.id}/substitute/", {
        "position": "1", "member": "carol", "reason": "Bob is away"})  # fmt: skip
    assert answer.status_code == 302
    assert Seat.objects.get(match=upcoming, position=1).member.username == "carol"


@pytest.mark.django_db
def test_substitute_refuses_an_unknown_or_pending_member_as_a_form_error(
    organiser, upcoming, make_member
):
    pending = make_member("pat")
    Member.objects.filter(pk=pending.pk).update(membership=Member.Membership.PENDING)
    for name in ("zoe", "pat"):
        answer = _client(organiser).post(f"{LIST}{upcoming.id}/substitute/", {
            "position": "1", "member": name, "reason": "x"})  # fmt: skip
        assert answer.status_code == 400
        assert f"There is no member called &#x27;{name}&#x27;." in answer.content.decode()
    assert Seat.objects.get(match=upcoming, position=1).member.username == "bob"


@pytest.mark.django_db
def test_adjudicate_and_void_from_the_list(organiser, live_match, make_fixture, alice, bob):
    answer = _client(organiser).post(f"{LIST}{live_match.id}/adjudicate/",
                                     {"ruling": "first", "reason": "Bob left"})  # fmt: skip
    assert answer.status_code == 302
    live_match.refresh_from_db()
    assert (live_match.result, live_match.end_reason) == ("first", "adjudicated")
    other = make_fixture(first=alice, second=bob)
    _client(organiser).post(f"{LIST}{other.id}/adjudicate/", {"ruling": "void", "reason": "R"})
    other.refresh_from_db()
    assert other.end_reason == "voided"


@pytest.mark.django_db
def test_postpone_a_round_from_the_list(organiser, alice, bob, make_member):
    cup = organising.create_round_robin(
        organiser=organiser, name="Cup", players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(hours=1), interval=timedelta(days=1),
    )  # fmt: skip
    match = cup.matches.get()
    kickoff = match.kickoff_at
    client = _client(organiser)
    answer = client.post(f"/organise/tournaments/{cup.id}/postpone/", {
        "round_number": "1", "hours": "6", "reason": "Club night",
        "back": f"tournament={cup.id}"})  # fmt: skip
    assert answer.status_code == 302
    assert answer["Location"] == f"{LIST}?tournament={cup.id}"
    match.refresh_from_db()
    assert match.kickoff_at == kickoff + timedelta(hours=6)
    refused = client.post(f"/organise/tournaments/{cup.id}/postpone/", {
        "round_number": "4", "hours": "6", "reason": "x",
        "back": f"tournament={cup.id}"})  # fmt: skip
    assert refused.status_code == 400
    assert "This tournament has no such round." in refused.content.decode()
    assert refused.context["tournament"] == cup  # the filtered list, shown again
    match.refresh_from_db()
    assert match.kickoff_at == kickoff + timedelta(hours=6)


# ---------------------------------------------------------------- the member picker


PICKER = "/api/organise/members/"


@pytest.mark.django_db
def test_the_picker_is_for_organisers_only(organiser, alice):
    for outsider in (alice, None):
        answer = _client(outsider).get(PICKER, {"q": "a"})
        assert answer.status_code == 403
        assert answer.json() == {"error": "Only organisers can do that.", "code": "not_allowed"}
        answer_conforms("GET", PICKER, 403, answer.json())


@pytest.mark.django_db
def test_the_picker_offers_approved_members_by_prefix_only(organiser, make_member):
    carla = make_member("carla")
    Member.objects.filter(pk=carla.pk).update(display_name="Zed")
    make_member("carol")
    for name, membership in (("cara", "pending"), ("cate", "removed")):
        member = make_member(name)
        Member.objects.filter(pk=member.pk).update(membership=membership)
    Member.objects.create_user(username="cass", is_active=False)  # cannot sign in
    client = _client(organiser)

    def offered(prefix: str) -> list[str]:
        answer = client.get(PICKER, {"q": prefix})
        assert answer.status_code == 200
        answer_conforms("GET", PICKER, 200, answer.json())
        return [option["username"] for option in answer.json()["results"]]

    assert offered("ca") == ["carla", "carol"]
    assert offered("CAR") == ["carla", "carol"]
    assert offered("ze") == ["carla"]  # by display name
    assert offered("x\x00") == []
    assert client.get(PICKER, {"q": "ze"}).json()["results"] == [
        {"username": "carla", "name": "Zed"}
    ]


@pytest.mark.django_db
def test_the_picker_gives_at_most_twenty(organiser, make_member):
    for number in range(25):
        make_member(f"player{number:02d}")
    answer = _client(organiser).get(PICKER, {"q": "player"}).json()
    assert answer["limit"] == 20
    assert [o["username"] for o in answer["results"]] == [f"player{n:02d}" for n in range(20)]


@pytest.mark.django_db
def test_member_fields_offer_the_picker_and_still_take_a_typed_username(organiser, alice):
    client = _client(organiser)
    page = client.get("/organise/").content.decode()
    assert page.count("data-member-picker") >= 3  # First, Second, the round robin's helper
    assert 'list="member-options"' in page
    assert '<datalist id="member-options">' in page
    assert "member_picker" in page
    answer = client.post("/organise/fixture/", {
        "fixture-name": "Typed", "fixture-ruleset": "word-duel", "fixture-visibility": "public",
        "fixture-no_show_minutes": "15", "fixture-first": "zoe"})  # fmt: skip
    assert answer.status_code == 400
    assert "There is no member called &#x27;zoe&#x27;." in answer.content.decode()
    page = client.get(LIST).content.decode()
    assert "member_picker" in page


# ---------------------------------------------------------------- the audit trail on the match page


@pytest.mark.django_db
def test_the_match_page_shows_rulings_and_substitutions_to_every_viewer_and_the_whole_trail_to_organisers(  # noqa: E501
    organiser, upcoming, make_member, alice, bob
):
    from matches import services

    carol = make_member("carol")
    organising.fixture_substitute(organiser=organiser, match_id=upcoming.id, position=1,
                                member_id=carol.pk, reason="Bob is ill")  # fmt: skip
    organising.fixture_reschedule(organiser=organiser, match_id=upcoming.id,
                                kickoff_at=upcoming.kickoff_at + timedelta(hours=1),
                                reason="Hall booked late")  # fmt: skip
    upcoming.refresh_from_db()
    services.match_apply_deadlines(match_id=upcoming.id, now=upcoming.kickoff_at)
    organising.match_adjudicate(organiser=organiser, match_id=upcoming.id, ruling="first",
                              reason="Carol could not continue")  # fmt: skip
    url = f"/matches/{upcoming.id}/"
    own = _client(organiser).get(url).content.decode()
    assert "Player substituted" in own
    assert "Second: carol replaced bob" in own
    assert "Bob is ill" in own
    assert "Hall booked late" in own
    for viewer in (make_member("dave"), None):
        page = _client(viewer).get(url).content.decode()
        assert "Result adjudicated</strong> by organiser" in page
        assert "Carol could not continue" in page
        assert "(a win for First)" in page
        assert "Player substituted</strong> by organiser" in page
        assert "Second: carol replaced bob" in page
        assert "Bob is ill" in page
        assert "Hall booked late" not in page  # a kick-off moved: the organisers' trail only


@pytest.mark.django_db
def test_a_members_only_matchs_trail_stays_behind_its_access_check(organiser, alice, bob,
                                                                   make_fixture):  # fmt: skip

    hidden = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    organising.match_adjudicate(organiser=organiser, match_id=hidden.id, ruling="void",
                              reason="Secret reason")  # fmt: skip
    answer = _client(None).get(f"/matches/{hidden.id}/")
    assert answer.status_code == 404
    assert "Secret reason" not in answer.content.decode()
    assert "Secret reason" in _client(alice).get(f"/matches/{hidden.id}/").content.decode()


@pytest.mark.django_db
def test_a_reschedule_in_the_trail_says_from_when_to_when(organiser, upcoming):

    before = upcoming.kickoff_at
    new = datetime(2031, 3, 4, 18, 30, tzinfo=UTC)
    organising.fixture_reschedule(organiser=organiser, match_id=upcoming.id, kickoff_at=new,
                                reason="Venue")  # fmt: skip
    page = _client(organiser).get(f"/matches/{upcoming.id}/").content.decode()
    # Both moments as <time>s, written in the viewer's zone by the page (UTC without it).
    assert (
        f'kick-off moved from <time datetime="{before.isoformat()}" data-localise>'
        f"{before:%a %-d %b %Y, %H:%M} UTC</time> to "
        f'<time datetime="{new.isoformat()}" data-localise>Tue 4 Mar 2031, 18:30 UTC</time>'
    ) in page


@pytest.mark.django_db
def test_a_date_too_far_ahead_is_a_form_error_not_a_500(organiser, upcoming):
    client = _client(organiser)
    for url, data in [
        (
            f"{LIST}{upcoming.id}/reschedule/",
            {"kickoff_at": "9999-12-31T23:59", "utc_offset": "840", "reason": "x"},
        ),
        (LIST, {"kickoff_from": "9999-12-31T23:59", "utc_offset": "-840"}),
    ]:
        answer = client.post(url, data) if "reschedule" in url else client.get(url, data)
        assert answer.status_code == 400, url
        assert "That date is too far ahead." in answer.content.decode()
    schedule = client.post("/organise/fixture/", {
        "fixture-name": "Far", "fixture-ruleset": "word-duel", "fixture-visibility": "public",
        "fixture-no_show_minutes": "15", "fixture-kickoff_at": "9999-12-31T23:59",
        "fixture-utc_offset": "840"})  # fmt: skip
    assert schedule.status_code == 400
    assert "That date is too far ahead." in schedule.content.decode()


@pytest.mark.django_db
def test_the_tournament_page_links_organisers_to_its_fixtures(organiser, alice, bob):
    cup = organising.create_round_robin(
        organiser=organiser, name="Cup", players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(hours=1), interval=timedelta(days=1),
    )  # fmt: skip
    link = f'href="{LIST}?tournament={cup.id}"'
    assert link in _client(organiser).get(f"/tournaments/{cup.id}/").content.decode()
    assert link not in _client(alice).get(f"/tournaments/{cup.id}/").content.decode()
