"""The tournaments list (current, upcoming, past), a tournament's results round by round and
its linked standings, and a player's page (results, current matches, head-to-head) as each
kind of visitor may see it: a members-only match never reaches an anonymous visitor or a
sign-up still waiting, on any of these pages."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from accounts.models import Member
from matches.models import Match, Seat, Tournament
from tests.matches.test_pages import page, signed_in
from tests.matches.test_standings import between, round_robin, settle
from tournaments import listing as tournaments
from tournaments import services as organising

pytestmark = pytest.mark.django_db

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)


def pending(make_member, name: str) -> Member:
    member = make_member(name)
    member.membership = Member.Membership.PENDING
    member.save(update_fields=["membership"])
    return member


def section(html: str, element_id: str) -> str:
    """The HTML of the ``<section id=...>`` (to its closing tag)."""
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</section>", start)]


def rows(html: str) -> list[str]:
    return re.findall(r"<tr[ >].*?</tr>", html, re.DOTALL)


def cells(row: str) -> list[str]:
    """The text of each cell of a table row, tags stripped, spaces squeezed."""
    found = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.DOTALL)
    return [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in found]


# ------------------------------------------------------------------ the tournaments list


def _listed(html: str, bucket: str) -> list[str]:
    return re.findall(r'<li data-tournament="\d+"><a href="/tournaments/\d+/">([^<]+)</a>',
                      section(html, bucket))  # fmt: skip


def test_the_list_sorts_tournaments_into_current_upcoming_and_past(
    organiser, alice, bob, make_member
) -> None:
    carol = make_member("carol")
    with time_machine.travel(KICKOFF - timedelta(days=10), tick=False):
        spring = round_robin(organiser, [alice, bob], name="Spring")  # one fixture, at KICKOFF
        summer = organising.create_round_robin(
            organiser=organiser, name="Summer", players=[alice, bob, carol],
            first_kickoff=KICKOFF + timedelta(days=2), interval=timedelta(days=1),
        )  # fmt: skip
        empty = Tournament.objects.create(name="Nothing yet", organiser=organiser)

    def lists(at: datetime) -> tournaments.TournamentLists:
        return tournaments.tournament_lists(None, now=at)

    def names(found: list[tournaments.TournamentLine]) -> list[str]:
        return [line.name for line in found]

    before = lists(KICKOFF - timedelta(minutes=1))
    assert names(before.upcoming) == ["Spring", "Summer", "Nothing yet"]  # soonest first
    assert before.current == before.past == []
    # Spring's kick-off has come (no sweep has opened it yet): it is current.
    at_kickoff = lists(KICKOFF)
    assert names(at_kickoff.current) == ["Spring"]
    assert names(at_kickoff.upcoming) == ["Summer", "Nothing yet"]
    # Spring's one match over: past; Summer's first round kicked off: current.
    settle(spring, alice, bob, scores=(400, 300), winner=alice)
    later = lists(KICKOFF + timedelta(days=2, hours=1))
    assert names(later.past) == ["Spring"]
    assert names(later.current) == ["Summer"]
    assert names(later.upcoming) == ["Nothing yet"]
    # A live match makes a tournament current whatever the clock says.
    Match.objects.filter(pk=summer.matches.order_by("id").last().pk).update(
        status=Match.Status.LIVE
    )
    assert names(lists(KICKOFF - timedelta(days=5)).current) == ["Summer"]
    # Every fixture ended (one cancelled before its kick-off): past.
    for match in summer.matches.all():
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.ABANDONED, end_reason=Match.EndReason.CANCELLED
        )
    assert names(lists(KICKOFF - timedelta(days=5)).past) == ["Summer", "Spring"]
    assert empty.id in [line.id for line in lists(KICKOFF).upcoming]
    # The page, at a moment: each bucket links its tournaments.
    settle(spring, alice, bob, scores=(400, 300), winner=alice)
    with time_machine.travel(KICKOFF + timedelta(days=3), tick=False):
        html = page(signed_in(None), "/tournaments/")
    assert _listed(html, "past") == ["Summer", "Spring"]
    assert _listed(html, "upcoming") == ["Nothing yet"]
    assert "No tournament is under way." in section(html, "current")
    assert f'href="/tournaments/{spring.id}/"' in html


def test_a_cancelled_fixture_alone_has_not_kicked_off(organiser, alice, bob, make_member) -> None:
    carol = make_member("carol")
    cup = round_robin(organiser, [alice, bob, carol])
    first = cup.matches.order_by("kickoff_at", "id").first()
    Match.objects.filter(pk=first.pk).update(
        status=Match.Status.ABANDONED, end_reason=Match.EndReason.CANCELLED
    )
    found = tournaments.tournament_lists(None, now=KICKOFF - timedelta(days=1))
    assert [line.name for line in found.upcoming] == ["Cup"]


def test_members_only_tournaments_are_listed_for_members_only(
    organiser, alice, bob, make_member
) -> None:
    waiting = pending(make_member, "walt")
    organising.create_round_robin(
        organiser=organiser, name="Open cup", players=[alice, bob],
        first_kickoff=KICKOFF, interval=timedelta(hours=1),
    )  # fmt: skip
    organising.create_round_robin(
        organiser=organiser, name="Club cup", players=[alice, bob],
        first_kickoff=KICKOFF, interval=timedelta(hours=1),
        visibility_=Match.Visibility.MEMBERS,
    )  # fmt: skip
    for visitor in (None, waiting):
        html = page(signed_in(visitor), "/tournaments/")
        assert _listed(html, "upcoming") == ["Open cup"], visitor
        assert "Club cup" not in html
    assert sorted(_listed(page(signed_in(alice), "/tournaments/"), "upcoming")) == [
        "Club cup",
        "Open cup",
    ]


def test_the_navigation_links_the_tournaments_list(alice) -> None:
    for visitor in (None, alice):
        html = page(signed_in(visitor), "/")
        nav = html[html.index('<nav aria-label="Main">') : html.index("</nav>")]
        assert 'href="/tournaments/"' in nav


# ------------------------------------------------------------------ a tournament's page


def test_results_round_by_round_and_a_linked_table(organiser, make_member) -> None:
    ann, ben, cat, dan = (make_member(name) for name in ("ann", "ben", "cat", "dan"))
    cup = round_robin(organiser, [ann, ben, cat, dan])
    ann_ben = settle(cup, ann, ben, scores=(412, 380), winner=ann)
    cat_dan = settle(cup, cat, dan, scores=(300, 300))
    ann_cat = settle(cup, ann, cat, scores=(10, 200), winner=ann, reason="forfeit")
    html = page(signed_in(None), f"/tournaments/{cup.id}/")
    results = html[html.index('id="fixtures-heading"') :]
    expected_rounds = sorted({m.round_number for m in cup.matches.all()})
    assert expected_rounds == [1, 2, 3]
    headings = re.findall(r"<h3>Round (\d+)</h3>", results)
    assert headings == ["1", "2", "3"]
    by_round = re.split(r"<h3>Round \d+</h3>", results)[1:]
    for number, chunk in zip(expected_rounds, by_round, strict=True):
        in_round = {m.id for m in cup.matches.filter(round_number=number)}
        assert {int(i) for i in re.findall(r'<tr data-match="(\d+)">', chunk)} == in_round
        played = sum(m.id in in_round for m in (ann_ben, cat_dan, ann_cat))
        assert f"{played} of 2 played." in chunk

    def row_of(match: Match) -> list[str]:
        found = re.search(rf'<tr data-match="{match.id}">.*?</tr>', results, re.DOTALL)
        assert found is not None
        return cells(found.group(0))

    def first_and_second(match: Match) -> tuple[str, str]:
        seats = list(match.seats.order_by("position"))
        return seats[0].member.username, seats[1].member.username

    for match, ann_side, other_side in ((ann_ben, 412, 380), (ann_cat, 10, 200)):
        first, second = first_and_second(match)
        score = f"{ann_side}–{other_side}" if first == "ann" else f"{other_side}–{ann_side}"
        position = "First" if first == "ann" else "Second"
        _, _, shown_first, shown_score, shown_second, result = row_of(match)
        assert (shown_first, shown_second) == (first, second)
        assert shown_score == score
        assert result.startswith(f"ann ({position}) won")
    assert row_of(ann_cat)[-1].endswith("(Forfeit)")
    assert row_of(cat_dan)[3:6:2] == ["300–300", "Draw (Played out)"]
    unplayed = cup.matches.filter(status=Match.Status.SCHEDULED).first()
    assert row_of(unplayed)[3:6:2] == ["—", "Scheduled"]
    # The table: linked names, points, the order's words.
    table = section(html, "standings-heading")
    assert [cells(row)[1].split(" (")[0] for row in rows(table)[1:]] == ["ann", "cat", "dan", "ben"]
    for name in ("ann", "ben", "cat", "dan"):
        assert f'<a href="/players/{name}/">{name}</a>' in table
    assert cells(rows(table)[1])[2:] == ["2", "2", "0", "0", "2", "+32"]
    assert "then head-to-head points among the tied players" in table


def test_a_player_who_is_no_longer_a_member_is_not_linked(organiser, make_member) -> None:
    ann, ben = make_member("ann"), make_member("ben")
    cup = round_robin(organiser, [ann, ben])
    settle(cup, ann, ben, scores=(400, 300), winner=ann)
    Member.objects.filter(pk=ben.pk).update(membership=Member.Membership.REMOVED)
    html = page(signed_in(ann), f"/tournaments/{cup.id}/")
    assert 'href="/players/ann/"' in html
    assert 'href="/players/ben/"' not in html
    assert '<th scope="row">ben</th>' in html


# ------------------------------------------------------------------ a player's page


@pytest.fixture
def alices_season(organiser, alice, bob, make_member):
    """alice's results: two public wins over bob (one a forfeit), a public draw with carol, a
    members-only loss to bob; a live public match with carol; a scheduled one with dave; a
    voided match with bob."""
    carol, dave = make_member("carol"), make_member("dave")
    cup = round_robin(organiser, [alice, bob, carol, dave], name="Public cup")
    club = organising.create_round_robin(
        organiser=organiser, name="Club cup", players=[alice, bob],
        first_kickoff=KICKOFF, interval=timedelta(hours=1),
        visibility_=Match.Visibility.MEMBERS,
    )  # fmt: skip
    again = organising.create_round_robin(
        organiser=organiser, name="Return cup", players=[alice, bob, carol],
        first_kickoff=KICKOFF, interval=timedelta(hours=1),
    )  # fmt: skip
    won = settle(cup, alice, bob, scores=(420, 350), winner=alice)
    drawn = settle(cup, alice, carol, scores=(333, 333), reason="six_scoreless")
    forfeit = settle(again, alice, bob, scores=(100, 250), winner=alice, reason="forfeit")
    hidden = settle(club, bob, alice, scores=(480, 301), winner=bob)
    voided = settle(again, alice, carol, scores=(20, 30), status="abandoned", reason="voided")
    live = between(cup, alice, dave)
    alices_seat = live.seats.get(member=alice).position
    Match.objects.filter(pk=live.pk).update(status=Match.Status.LIVE, to_move=alices_seat)
    Seat.objects.filter(match=live, member=alice).update(score=77)
    Seat.objects.filter(match=live, member=dave).update(score=55)
    scheduled = between(again, bob, carol)  # not alice's
    friendly = organising.create_fixture(
        organiser=organiser, name="Friendly", first=alice, second=dave, kickoff_at=KICKOFF
    )
    return {
        "won": won, "drawn": drawn, "forfeit": forfeit, "hidden": hidden, "voided": voided,
        "live": live, "scheduled": scheduled, "friendly": friendly, "carol": carol, "dave": dave,
    }  # fmt: skip


def _match_ids(html: str) -> set[int]:
    return {int(i) for i in re.findall(r'<tr data-match="(\d+)">', html)}


def test_the_player_page_for_a_member(alices_season, alice, bob) -> None:
    season = alices_season
    html = page(signed_in(bob), "/players/alice/")
    results = section(html, "results")
    assert _match_ids(results) == {season[k].id for k in ("won", "drawn", "forfeit", "hidden")}
    lines = {int(re.search(r'data-match="(\d+)"', r).group(1)): cells(r) for r in rows(results)[1:]}
    assert lines[season["won"].id][2:] == ["bob", "420–350", "won (Played out)"]
    assert lines[season["drawn"].id][2:] == ["carol", "333–333", "drawn (Six scoreless turns)"]
    assert lines[season["forfeit"].id][2:] == ["bob", "100–250", "won (Forfeit)"]
    assert lines[season["hidden"].id][2:] == ["bob", "301–480", "lost (Played out)"]
    current = section(html, "current-matches")
    found = [int(i) for i in re.findall(r'<tr data-match="(\d+)">', current)]
    assert found == [season["live"].id, season["friendly"].id]  # live first
    assert season["scheduled"].id not in _match_ids(current)
    live_row = cells(re.search(rf'<tr data-match="{season["live"].id}">.*?</tr>', current,
                               re.DOTALL).group(0))  # fmt: skip
    assert live_row[1:] == ["Live (alice to move)", "dave", "77–55"]
    friendly_row = cells(re.search(rf'<tr data-match="{season["friendly"].id}">.*?</tr>',
                                   current, re.DOTALL).group(0))  # fmt: skip
    assert friendly_row[2:] == ["dave", "—"]
    assert friendly_row[1].startswith("Kick-off Sun 4 May 2031, 18:00")
    # Against bob: 2 wins, 1 loss; spread +70 (the board) + 0 (the forfeit) - 179 = -109.
    h2h = section(html, "head-to-head")
    record = {cells(r)[0]: cells(r)[1:] for r in rows(h2h)[1:]}
    assert record == {"bob": ["3", "2", "0", "1", "-109"], "carol": ["1", "0", "1", "0", "0"]}
    assert 'href="/players/bob/"' in h2h
    assert f'href="/matches/{season["voided"].id}/"' not in html  # no result: not a result
    assert 'id="ratings-heading"' in html  # members see the ratings part


@pytest.mark.parametrize("who", ["anonymous", "pending"])
def test_a_members_only_match_never_reaches_a_visitor_who_is_not_a_member(
    alices_season, make_member, who
) -> None:
    season = alices_season
    visitor = None if who == "anonymous" else pending(make_member, "walt")
    html = page(signed_in(visitor), "/players/alice/")
    hidden = season["hidden"]
    assert f"/matches/{hidden.id}/" not in html
    assert hidden.name not in html
    assert "Club cup" not in html
    assert _match_ids(section(html, "results")) == {
        season[k].id for k in ("won", "drawn", "forfeit")
    }
    record = {cells(r)[0]: cells(r)[1:] for r in rows(section(html, "head-to-head"))[1:]}
    assert record["bob"] == ["2", "2", "0", "0", "+70"]  # the hidden loss not counted
    assert 'id="ratings-heading"' not in html
    assert "Ratings are shown to signed-in members." in html
    # And the same viewer's bob page: the hidden win is not there either.
    bobs = page(signed_in(visitor), "/players/bob/")
    assert f"/matches/{hidden.id}/" not in bobs


def test_only_an_approved_member_has_a_page(make_member, alice) -> None:
    waiting = pending(make_member, "walt")
    removed = make_member("rex")
    Member.objects.filter(pk=removed.pk).update(membership=Member.Membership.REMOVED)
    for visitor in (None, alice):
        client = signed_in(visitor)
        assert client.get("/players/walt/").status_code == 404
        assert client.get("/players/rex/").status_code == 404
        assert client.get("/players/nobody/").status_code == 404
        assert client.get("/players/alice/").status_code == 200
    assert signed_in(waiting).get("/players/walt/").status_code == 404


def test_a_player_with_nothing_yet_says_so(alice) -> None:
    html = page(signed_in(None), "/players/alice/")
    assert "No results yet." in html
    assert "No live or scheduled matches." in html
    assert "No games against other members yet." in html


def test_the_match_page_links_its_players(make_fixture, alice, bob) -> None:
    match = make_fixture(first=alice, second=bob)
    html = page(signed_in(None), f"/matches/{match.id}/")
    links = section_of_paragraph(html, "player-pages")
    assert links.count("<a ") == 2
    assert 'href="/players/alice/"' in links
    assert 'href="/players/bob/"' in links
    Member.objects.filter(pk=bob.pk).update(membership=Member.Membership.REMOVED)
    links = section_of_paragraph(page(signed_in(None), f"/matches/{match.id}/"), "player-pages")
    assert 'href="/players/bob/"' not in links
    assert 'href="/players/alice/"' in links


def section_of_paragraph(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return html[start : html.index("</p>", start)]


# ------------------------------------------------------------------ the standings API


def test_the_standings_api_answers_the_table_in_order(organiser, make_member) -> None:
    from tests.matches.test_api import _get

    ann, ben, cat = (make_member(name) for name in ("ann", "ben", "cat"))
    cup = round_robin(organiser, [ann, ben, cat])
    settle(cup, ann, cat, scores=(400, 300), winner=ann)
    settle(cup, ben, ann, scores=(350, 300), winner=ben)
    status, body = _get(signed_in(None), f"/api/tournaments/{cup.id}/standings")
    assert status == 200
    assert body["name"] == "Cup"
    assert body["tie_break_order"][2] == "head-to-head points among the tied players"
    rows = [(r["rank"], r["username"], r["points"], r["spread"], r["separated_by"])
            for r in body["standings"]]  # fmt: skip
    assert rows == [
        (1, "ben", 1.0, 50, "head-to-head"),
        (2, "ann", 1.0, 50, ""),
        (3, "cat", 0.0, -100, ""),
    ]


def test_the_standings_api_hides_what_the_page_hides(organiser, alice, bob, make_member) -> None:
    from tests.matches.test_api import _get

    club = organising.create_round_robin(
        organiser=organiser, name="Club cup", players=[alice, bob],
        first_kickoff=KICKOFF, interval=timedelta(hours=1),
        visibility_=Match.Visibility.MEMBERS,
    )  # fmt: skip
    url = f"/api/tournaments/{club.id}/standings"
    for visitor in (None, pending(make_member, "walt")):
        status, body = _get(signed_in(visitor), url)
        assert (status, body["code"]) == (404, "not_found")
    assert _get(signed_in(alice), url)[0] == 200
    assert _get(signed_in(alice), "/api/tournaments/999999/standings")[0] == 404
