"""The server-rendered pages: what each shows, the organiser's forms, the demo, the admin.

The leak scan renders every page for every role on a live match after real moves and checks
that no page carries another seat's rack, the bag, its seed or the game state.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from io import StringIO
from itertools import permutations

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import Member
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat, Tournament, Turn
from tests.matches.helpers import commit_move, commit_now, game_of
from tournaments import services as organising
from tournaments import standings

pytestmark = pytest.mark.django_db

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)
BEFORE = KICKOFF - timedelta(days=1)
RACK_ELEMENT = re.compile(r'<ol class="rack" id="your-rack"[^>]*>(.*?)</ol>', re.DOTALL)
TILE = re.compile(r'<li class="tile">(?:<span aria-hidden="true">)?([A-Z?])')


def signed_in(member: Member | None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def page(client: Client, url: str, **params: str) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


class _TileLetters(HTMLParser):
    """The letters of every tile element (class ``tile``) outside the board and the viewer's
    own rack: where a rack rendered one element per tile would show up."""

    VOID = frozenset({"br", "img", "input", "meta", "link", "hr", "col", "source", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool, bool]] = []  # tag, skipped, a tile
        self.letters: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        named = dict(attrs)
        skipped = (self.stack and self.stack[-1][1]) or named.get("id") in ("board", "your-rack")
        tile = "tile" in (named.get("class") or "").split()
        self.stack.append((tag, bool(skipped), tile))

    def handle_endtag(self, tag: str) -> None:
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self.stack and not self.stack[-1][1] and any(tile for _, _, tile in self.stack):
            self.letters += [char for char in data if char.isupper() or char == "?"]


def tile_letters_outside_board(html: str) -> Counter[str]:
    parser = _TileLetters()
    parser.feed(html)
    return Counter(parser.letters)


def rack_on(html: str) -> list[str] | None:
    """The tiles of the rack element on a page, or None when there is none."""
    found = RACK_ELEMENT.findall(html)
    assert len(found) <= 1
    return TILE.findall(found[0]) if found else None


# ------------------------------------------------------------------ playing a few real moves


def opening_play(rack: str) -> dict | None:
    """A two-letter word from ``rack`` across the star, if the rack makes one."""
    lexicon = get_lexicon("enable")
    for first, second in permutations([tile for tile in rack if tile != "?"], 2):
        if first + second in lexicon:
            return {
                "kind": "play",
                "tiles": [
                    {"row": 7, "col": 7, "letter": first, "blank": False},
                    {"row": 7, "col": 8, "letter": second, "blank": False},
                ],
            }
    return None


def play_a_few_moves(match: Match, first: Member, second: Member) -> None:
    """First plays a word (or swaps when the rack makes none), Second swaps all, First passes."""
    rack = Seat.objects.get(match=match, position=0).rack
    move = opening_play(rack) or {"kind": "swap", "tiles": list(rack)}
    commit_now(match, first, move, assert_accepted=True)
    commit_now(
        match,
        second,
        {"kind": "swap", "tiles": list(Seat.objects.get(match=match, position=1).rack)},
        assert_accepted=True,
    )
    commit_now(match, first, {"kind": "pass"}, assert_accepted=True)
    match.refresh_from_db()
    assert match.turn_number == 3


# ------------------------------------------------------------------ the leak scan


@pytest.fixture
def tournament_live(organiser, alice, bob) -> tuple[Tournament, Match]:
    """A members-only two-player round robin whose one match is live, after three moves."""
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Leak cup",
        players=[alice, bob],
        first_kickoff=timezone.now() - timedelta(minutes=1),
        interval=timedelta(hours=1),
        visibility_=Match.Visibility.MEMBERS,
    )
    match = tournament.matches.get()
    services.match_apply_deadlines(match_id=match.id)  # kick-off has passed: it opens
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    first = Seat.objects.get(match=match, position=0).member
    second = Seat.objects.get(match=match, position=1).member
    play_a_few_moves(match, first, second)
    return tournament, match


def test_no_page_leaks_a_rack_the_bag_or_the_game_state(
    tournament_live, organiser, alice, bob, make_member
) -> None:
    tournament, match = tournament_live
    carol = make_member("carol")
    seats = {seat.position: seat for seat in match.seats.all()}
    racks = {seat.member_id: seat.rack for seat in seats.values()}
    assert all(len(rack) == 7 for rack in racks.values())
    state = match.game_state
    # Nobody's: the bag, its order and seed. Each seat's own: its rack now, its rack before
    # each of its turns, the tiles it swapped back.
    nobodys = [match.bag_seed, state["bag"]]
    own_secrets: dict[int, set[str]] = {seat.member_id: {seat.rack} for seat in seats.values()}
    for turn in match.turns.all():
        member_id = seats[turn.position].member_id
        own_secrets[member_id] |= {turn.rack_before, turn.swapped} - {""}
    roles: dict[str, tuple[Member | None, dict[str, str]]] = {
        "anonymous": (None, {}),
        "key holder": (None, {"key": match.viewing_key}),
        "member": (carol, {}),
        "first": (seats[0].member, {}),
        "second": (seats[1].member, {}),
        "organiser": (organiser, {}),
    }
    page_url = f"/matches/{match.id}/"
    urls = [
        "/",
        page_url,
        f"/matches/{match.id}/export.gcg",
        f"/tournaments/{tournament.id}/",
        "/tournaments/",
        f"/players/{seats[0].member.username}/",
        f"/players/{seats[1].member.username}/",
        "/me/matches/",
        "/organise/",
        "/no-such-page/",
    ]
    rendered = 0
    for role, (member, params) in roles.items():
        client = signed_in(member)
        for url in urls:
            response = client.get(url, params if url.startswith("/matches/") else {})
            html = response.content.decode()
            rendered += 1
            assert "game_state" not in html, (role, url)
            assert "bag_seed" not in html, (role, url)
            for secret in nobodys:
                assert secret not in html, (role, url)
            for member_id, secrets in own_secrets.items():
                if member is None or member_id != member.pk:
                    for secret in secrets:
                        assert secret not in html, (role, url, "another seat's tiles")
            own = racks.get(member.pk) if member else None
            outside = tile_letters_outside_board(html)
            for member_id, secrets in own_secrets.items():
                if member is None or member_id != member.pk:
                    for secret in secrets:  # any two of its tiles, in any order
                        shared = outside & Counter(secret)
                        assert sum(shared.values()) < 2, (role, url, "tiles of", secret)
            shown = rack_on(html)
            if url == page_url and own is not None:
                assert response.status_code == 200
                assert "".join(shown) == own  # the seated player sees their own rack
            else:
                assert shown is None, (role, url)
    assert rendered == len(roles) * len(urls)
    # and the public facts are there for a watcher
    html = page(signed_in(carol), f"/matches/{match.id}/")
    assert "swapped 7 tiles" in html
    assert f'<span id="bag-count">{match.bag_count}</span>' in html


# ------------------------------------------------------------------ the match page


def test_match_page_shows_the_fixture_and_its_kick_off(make_fixture, alice) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = make_fixture(first=alice, kickoff_at=KICKOFF, name="Sunday duel")
        html = page(signed_in(None), f"/matches/{match.id}/")
    assert '<h1 id="match-title">Sunday duel: alice v (free seat)</h1>' in html
    assert '<time datetime="2031-05-04T18:00:00+00:00" data-localise>' in html
    assert "Sun 4 May 2031, 18:00 UTC" in html
    assert "Scheduled" in html


def test_a_free_seat_offers_sign_in_to_visitors_and_a_form_to_members(
    make_fixture, alice, bob
) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = make_fixture(first=alice, kickoff_at=KICKOFF)
        anonymous = page(signed_in(None), f"/matches/{match.id}/")
        member = page(signed_in(bob), f"/matches/{match.id}/")
        seated = page(signed_in(alice), f"/matches/{match.id}/")
    assert "Sign in to take a seat" in anonymous
    assert f'href="/accounts/sign-in/?next=%2Fmatches%2F{match.id}%2F"' in anonymous
    assert "Take a seat" not in anonymous
    assert f'action="/matches/{match.id}/seat/"' in member
    assert "csrfmiddlewaretoken" in member
    assert "Take a seat" in member
    assert "You are seated as First" in seated
    assert "Take a seat" not in seated  # one seat each


def test_sign_in_link_keeps_the_viewing_key(make_fixture, alice) -> None:
    match = make_fixture(first=alice, visibility=Match.Visibility.MEMBERS)
    html = page(signed_in(None), f"/matches/{match.id}/", key=match.viewing_key)
    assert f"next=%2Fmatches%2F{match.id}%2F%3Fkey%3D{match.viewing_key}" in html


def test_taking_a_seat_from_the_page(make_fixture, alice, bob) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = make_fixture(first=alice, kickoff_at=KICKOFF)
        client = signed_in(bob)
        response = client.post(f"/matches/{match.id}/seat/", {"position": "1"}, follow=True)
    html = response.content.decode()
    assert response.redirect_chain == [(f"/matches/{match.id}/", 302)]
    assert "You are seated as Second" in html
    assert Seat.objects.get(match=match, position=1).member == bob


def test_a_post_without_the_csrf_token_changes_nothing(make_fixture, alice, bob) -> None:
    match = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(days=1))
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    assert client.post(f"/matches/{match.id}/seat/", {"position": "1"}).status_code == 403
    assert Seat.objects.get(match=match, position=1).member is None


def test_the_board_labels_premium_squares(live_match) -> None:
    html = page(signed_in(None), f"/matches/{live_match.id}/")
    counts = {kind: html.count(f'class="sq {kind}"') for kind in ("tw", "tl", "dl")}
    assert counts == {"tw": 8, "tl": 12, "dl": 24}
    assert html.count('class="sq dw"') == 16
    assert '<td class="sq dw star" data-square="H8">★</td>' in html
    assert '<td class="sq tw" data-square="A1">TW</td>' in html
    assert '<td class="sq dl" data-square="D1">DL</td>' in html
    assert html.count('<tr><th scope="row">') == 15


def test_the_outspell_board_is_eleven_squares(make_fixture, alice, bob) -> None:
    match = make_fixture(first=alice, second=bob, ruleset="outspell")
    html = page(signed_in(None), f"/matches/{match.id}/")
    assert html.count('<tr><th scope="row">') == 11
    assert '<td class="sq dw star" data-square="F6">★</td>' in html


def test_moves_and_tiles_appear_after_play(live_match, alice, bob) -> None:
    play_a_few_moves(live_match, alice, bob)
    html = page(signed_in(None), f"/matches/{live_match.id}/")
    first = live_match.turns.get(number=1)
    assert first.kind == Turn.Kind.PLAY, "live_match's fixed deal gives First a two-letter opening"
    word = first.words[0]["tiles"].upper()
    assert f"played {word} at 8H" in html
    for tile in first.placement:
        square = f"{chr(65 + tile['col'])}{tile['row'] + 1}"
        cell = re.search(rf'<td class="sq tile[^"]*" data-square="{square}">(\w)', html)
        assert cell is not None
        assert cell[1] == tile["letter"]
    assert "swapped 7 tiles" in html
    assert "passed" in html
    assert 'id="your-rack"' not in html


def test_loading_the_page_at_kick_off_opens_the_match(make_fixture, alice, bob) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = make_fixture(first=alice, second=bob, kickoff_at=KICKOFF)
        assert "Scheduled" in page(signed_in(alice), f"/matches/{match.id}/")
    with time_machine.travel(KICKOFF, tick=False):
        html = page(signed_in(alice), f"/matches/{match.id}/")  # no sweep ran
    assert "Live: First (alice) to move" in html
    assert len(rack_on(html)) == 7


def test_a_finished_match_shows_its_result(make_fixture, alice) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = make_fixture(first=alice, kickoff_at=KICKOFF, name="Walkover")
    with time_machine.travel(KICKOFF + timedelta(hours=1), tick=False):
        html = page(signed_in(None), f"/matches/{match.id}/")  # the page load applies it
    assert "alice (First) won" in html
    assert "No-show" in html
    assert "Take a seat" not in html
    assert "Sign in to take a seat" not in html


def test_the_organiser_can_share_and_renew_the_link(make_fixture, organiser, alice) -> None:
    match = make_fixture(first=alice, visibility=Match.Visibility.MEMBERS)
    html = page(signed_in(organiser), f"/matches/{match.id}/")
    assert f"http://testserver/matches/{match.id}/?key={match.viewing_key}" in html
    assert 'data-copy="share-link"' in html
    assert "New viewing key" in html
    response = signed_in(organiser).post(f"/matches/{match.id}/key/", follow=True)
    assert "the old link no longer works" in response.content.decode()
    match.refresh_from_db()
    assert f"?key={match.viewing_key}" in response.content.decode()
    player = page(signed_in(alice), f"/matches/{match.id}/")
    assert f"?key={match.viewing_key}" in player
    assert "New viewing key" not in player


# ------------------------------------------------------------------ lists and tournaments


def _settle(match: Match, result: str, reason: str, scores: tuple[int, int]) -> None:
    """Test data: store an outcome directly (standings read outcomes, however they came)."""
    status = Match.Status.ABANDONED if reason == Match.EndReason.ABANDONED else "finished"
    Match.objects.filter(pk=match.pk).update(
        status=status, result=result, end_reason=reason, finished_at=timezone.now()
    )
    for position, score in enumerate(scores):
        Seat.objects.filter(match=match, position=position).update(score=score)


def _match_between(tournament: Tournament, a: Member, b: Member) -> Match:
    return tournament.matches.filter(seats__member=a).filter(seats__member=b).get()


def _won_by(match: Match, winner: Member) -> str:
    return "first" if match.seats.get(position=0).member == winner else "second"


def test_standings_count_wins_draws_forfeits_and_spread(organiser, make_member) -> None:
    a, b, c, d = (make_member(name) for name in ("ann", "ben", "cat", "dan"))
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Table",
        players=[a, b, c, d],
        first_kickoff=KICKOFF,
        interval=timedelta(hours=24),
    )
    ab = _match_between(tournament, a, b)  # ann beats ben 400-300 on the board
    first_is_a = ab.seats.get(position=0).member == a
    _settle(ab, _won_by(ab, a), "played_out", (400, 300) if first_is_a else (300, 400))
    cd = _match_between(tournament, c, d)  # a 350-350 draw
    _settle(cd, "draw", "six_scoreless", (350, 350))
    ac = _match_between(tournament, a, c)  # cat wins by forfeit although behind
    first_is_a = ac.seats.get(position=0).member == a
    _settle(ac, _won_by(ac, c), "forfeit", (200, 10) if first_is_a else (10, 200))
    bd = _match_between(tournament, b, d)  # abandoned: counts for nobody
    _settle(bd, "", "abandoned", (0, 0))
    # ann v dan and ben v cat are still scheduled: they do not count.
    table = standings.standings_by_name(tournament)
    assert (table["ann"].played, table["ann"].won, table["ann"].lost) == (2, 1, 1)
    assert table["ann"].spread == 100  # the forfeit adds no spread
    assert (table["ben"].played, table["ben"].lost, table["ben"].spread) == (1, 1, -100)
    assert (table["cat"].played, table["cat"].won, table["cat"].drawn) == (2, 1, 1)
    assert (table["dan"].played, table["dan"].drawn, table["dan"].spread) == (1, 1, 0)
    order = [line.name for line in standings.standings(tournament)]
    assert order == ["cat", "ann", "dan", "ben"]  # 1.5, then 1 (+100), 0.5, 0
    html = page(signed_in(None), f"/tournaments/{tournament.id}/")
    row = '<th scope="row"><a href="/players/{0}/">{0}</a></th>'
    assert [html.index(row.format(name)) for name in order] == sorted(
        html.index(row.format(name)) for name in order
    )
    assert "+100" in html
    assert "-100" in html
    for number in (1, 2, 3):
        assert f"<h3>Round {number}</h3>" in html
    for match in tournament.matches.all():
        assert f'href="/matches/{match.id}/"' in html


def test_home_lists_upcoming_live_and_finished(make_fixture, alice, bob) -> None:
    upcoming = make_fixture(first=alice, kickoff_at=KICKOFF, name="Later on")
    live = make_fixture(first=alice, second=bob, name="On now")
    done = make_fixture(first=bob, name="All over")
    _settle(done, "first", "no_show", (0, 0))
    html = page(signed_in(None), "/")
    finished_at = html.index("Recently finished")
    assert html.index("Later on") < finished_at
    assert html.index("On now") < finished_at
    assert html.index("All over") > finished_at
    assert upcoming.id != live.id


def test_my_matches_lists_my_results_newest_first(make_fixture, alice, bob, make_member) -> None:
    carol = make_member("carol")
    with time_machine.travel(BEFORE, tick=False):
        old = make_fixture(first=alice, second=bob, kickoff_at=KICKOFF, name="Older")
        new = make_fixture(
            first=carol, second=alice, kickoff_at=KICKOFF + timedelta(days=7), name="Newer"
        )
        make_fixture(first=bob, second=carol, kickoff_at=KICKOFF, name="Not mine")
    _settle(old, "first", "played_out", (321, 234))
    html = page(signed_in(alice), "/me/matches/")
    assert "Not mine" not in html
    assert html.index("Newer") < html.index("Older")
    assert '<span class="outcome won">Won</span>' in html
    assert "321–234" in html
    assert "<td>carol</td>" in html  # the opponents
    assert "<td>bob</td>" in html
    assert new.status == Match.Status.SCHEDULED


# ------------------------------------------------------------------ the organiser's forms


FIXTURE_FORM = {
    "fixture-name": "Form fixture",
    "fixture-kickoff_at": "2031-05-04T20:00",
    "fixture-ruleset": "classic",
    "fixture-visibility": "members",
    "fixture-no_show_minutes": "30",
    "fixture-first": "alice",
    "fixture-second": "",
    "fixture-utc_offset": "-120",  # the browser is at UTC+2
}


def test_the_organise_page_has_both_forms(organiser) -> None:
    html = page(signed_in(organiser), "/organise/")
    assert 'action="/organise/fixture/"' in html
    assert 'action="/organise/round-robin/"' in html
    assert 'type="datetime-local"' in html
    for label in ("Kick-off", "No-show window (minutes)", "First (username)", "Players"):
        assert f">{label}:</label>" in html
    assert html.count("csrfmiddlewaretoken") >= 3  # two forms and sign out


def test_scheduling_a_fixture_by_form(organiser, alice) -> None:
    with time_machine.travel(BEFORE, tick=False):
        response = signed_in(organiser).post("/organise/fixture/", FIXTURE_FORM)
    match = Match.objects.get(name="Form fixture")
    assert response.status_code == 302
    assert response["Location"] == f"/matches/{match.id}/"
    assert match.kickoff_at == KICKOFF  # 20:00 at UTC+2 is 18:00 UTC
    assert match.ruleset == "classic"
    assert match.visibility == Match.Visibility.MEMBERS
    assert match.no_show_window == timedelta(minutes=30)
    assert [s.member for s in match.seats.order_by("position")] == [alice, None]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"fixture-first": "nobody"}, "There is no member called &#x27;nobody&#x27;."),
        ({"fixture-second": "alice"}, "A member cannot sit on both sides of a fixture."),
        ({"fixture-kickoff_at": "2020-01-01T10:00"}, "The kick-off time is in the past."),
        ({"fixture-name": "  "}, "This field is required."),
        ({"fixture-no_show_minutes": "0"}, "greater than or equal to 1"),
        ({"fixture-ruleset": "chess"}, "Select a valid choice."),
    ],
)
def test_a_bad_fixture_form_says_why_and_creates_nothing(organiser, alice, change, message) -> None:
    with time_machine.travel(BEFORE, tick=False):
        response = signed_in(organiser).post("/organise/fixture/", {**FIXTURE_FORM, **change})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Match.objects.exists()


def test_creating_a_round_robin_by_form(organiser, make_member) -> None:
    for name in ("ann", "ben", "cat", "dan"):
        make_member(name)
    with time_machine.travel(BEFORE, tick=False):
        response = signed_in(organiser).post(
            "/organise/round-robin/",
            {
                "rr-name": "Spring league",
                "rr-players": "ann, ben\ncat\r\n\ndan",
                "rr-first_kickoff": "2031-05-04T18:00",
                "rr-interval_hours": "12",
                "rr-meetings": "twice",
                "rr-ruleset": "word-duel",
                "rr-visibility": "public",
            },
        )
    tournament = Tournament.objects.get(name="Spring league")
    assert response.status_code == 302
    assert response["Location"] == f"/tournaments/{tournament.id}/"
    assert tournament.matches.count() == 12
    kickoffs = sorted({m.kickoff_at for m in tournament.matches.all()})
    assert kickoffs == [KICKOFF + timedelta(hours=12) * i for i in range(6)]


@pytest.mark.parametrize(
    ("players", "message"),
    [
        ("ann, zed, yan", "There is no member called &#x27;zed&#x27;, &#x27;yan&#x27;."),
        ("ann", "A round robin needs at least two players."),
        ("ann, ANN", "Each player can be entered only once."),
    ],
)
def test_a_bad_round_robin_form_says_why(organiser, make_member, players, message) -> None:
    make_member("ann")
    with time_machine.travel(BEFORE, tick=False):
        response = signed_in(organiser).post(
            "/organise/round-robin/",
            {
                "rr-name": "Broken",
                "rr-players": players,
                "rr-first_kickoff": "2031-05-04T18:00",
                "rr-interval_hours": "12",
                "rr-meetings": "once",
                "rr-ruleset": "word-duel",
                "rr-visibility": "public",
            },
        )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


# ------------------------------------------------------------------ demo and admin


def test_demo_creates_members_a_round_robin_and_two_fixtures() -> None:
    out = StringIO()
    call_command("demo", "--if-empty", "--password", "demo-pass-123", stdout=out)
    text = out.getvalue()
    assert "Password for all of them: demo-pass-123" in text
    assert "/accounts/sign-in/" in text
    for name in ("alice", "bob", "carol", "dave", "organiser"):
        assert Member.objects.get(username=name).check_password("demo-pass-123")
    assert Member.objects.get(username="organiser").is_organiser
    assert not Member.objects.get(username="alice").is_organiser
    tournament = Tournament.objects.get()
    assert tournament.matches.count() == 6
    others = Match.objects.filter(tournament=None)
    public = others.get(visibility=Match.Visibility.PUBLIC)
    assert timedelta(0) < public.kickoff_at - timezone.now() <= timedelta(minutes=1)
    assert all(seat.member_id for seat in public.seats.all())
    members_only = others.get(visibility=Match.Visibility.MEMBERS)
    assert sum(seat.member_id is None for seat in members_only.seats.all()) == 1
    again = StringIO()
    call_command("demo", "--if-empty", stdout=again)
    assert "no demo data added" in again.getvalue()
    assert Match.objects.count() == 8


def test_demo_prints_a_random_password_by_default() -> None:
    out = StringIO()
    call_command("demo", stdout=out)
    password = re.search(r"Password for all of them: (\S+)", out.getvalue())[1]
    assert Member.objects.get(username="bob").check_password(password)


def test_the_admin_shows_no_hidden_state(live_match, alice, bob) -> None:
    play_a_few_moves(live_match, alice, bob)
    admin = Member.objects.create_superuser("root", password="pw-root-horse")
    client = signed_in(admin)
    state = live_match.game_state
    secrets = [live_match.bag_seed, state["bag"], live_match.viewing_key] + [
        seat.rack for seat in live_match.seats.all()
    ]
    seat = live_match.seats.get(position=0)
    turn = live_match.turns.get(number=1)
    urls = [
        "/admin/matches/match/",
        f"/admin/matches/match/{live_match.id}/change/",
        "/admin/matches/seat/",
        f"/admin/matches/seat/{seat.id}/change/",
        "/admin/matches/turn/",
        f"/admin/matches/turn/{turn.id}/change/",
        "/admin/matches/tournament/",
        "/admin/accounts/member/",
        f"/admin/accounts/member/{alice.id}/change/",
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        for secret in secrets:
            assert secret not in html, url
        for field in ("game_state", "bag_seed", "rack_before", "id_rack", "id_drawn"):
            assert field not in html, url
    assert client.get("/admin/matches/match/add/").status_code == 403


def test_the_page_scan_sees_a_rack_rendered_one_element_per_tile(live_match, make_member) -> None:
    """The plant: a foreign rack drawn as tile elements (in another order) outside the board
    and outside the viewer's rack is found; the clean page has no tile outside them."""
    html = page(signed_in(make_member("viewer")), f"/matches/{live_match.id}/")
    assert sum(tile_letters_outside_board(html).values()) == 0
    rack = Seat.objects.get(match=live_match, position=1).rack
    tiles = "".join(f'<li class="tile">{letter}</li>' for letter in reversed(rack))
    planted = html.replace("</main>", f'<ol class="rack">{tiles}</ol></main>', 1)
    assert planted != html
    shared = tile_letters_outside_board(planted) & Counter(rack)
    assert sum(shared.values()) == len(rack)


def test_a_one_tile_play_down_a_column_is_shown_down_the_column(live_match, alice, bob) -> None:
    """The move log keeps each word's GCG position; a one-tile play whose only word runs
    down is listed at its column-first position (``H8``), not guessed as an across play."""
    from engine import Pass, Play, legal_moves

    commit_move(
        match_id=live_match.id, member=alice, move={"kind": "pass"}, against_turn=0, client_id="a"
    )
    commit_move(
        match_id=live_match.id, member=bob, move={"kind": "pass"}, against_turn=1, client_id="b"
    )
    live_match.refresh_from_db()
    game = game_of(live_match)
    lexicon = get_lexicon("enable")
    opening = next(
        move
        for move in legal_moves(game, lexicon=lexicon)
        if isinstance(move.move, Play) and len(move.tiles) == 2 and move.words[0].across
    )
    commit_move(
        match_id=live_match.id, member=alice, move=opening.move, against_turn=2, client_id="o"
    )
    live_match.refresh_from_db()
    game = game_of(live_match)
    down = [
        move
        for move in legal_moves(game, lexicon=lexicon)
        if isinstance(move.move, Play) and len(move.tiles) == 1 and len(move.words) == 1
        and not move.words[0].across
    ]  # fmt: skip
    if not down:  # bob's rack makes none: pass, and alice's does
        commit_move(match_id=live_match.id, member=bob, move=Pass(), against_turn=3, client_id="p")
        live_match.refresh_from_db()
        game = game_of(live_match)
        down = [
            move
            for move in legal_moves(game, lexicon=lexicon)
            if isinstance(move.move, Play) and len(move.tiles) == 1 and len(move.words) == 1
            and not move.words[0].across
        ]  # fmt: skip
    assert down, "no one-tile play down a column in this seeded game"
    play = down[0]
    mover = alice if game.to_move == 0 else bob
    outcome = commit_move(
        match_id=live_match.id,
        member=mover,
        move=play.move,
        against_turn=game.turn_number,
        client_id="down",
    )
    assert outcome.accepted, outcome.message
    word = play.words[0]
    column_first = f"{chr(ord('A') + word.col)}{word.row + 1}"
    assert word.position == column_first  # GCG: the column letter first means down
    html = page(signed_in(None), f"/matches/{live_match.id}/")
    assert f"played {word.word} at {column_first}" in html
    view = Client().get(f"/api/matches/{live_match.id}/").json()
    assert view["moves"][-1]["words"][0]["position"] == column_first
