"""Late entry and withdrawal in a round robin in progress (docs/RULES.md section 3, "A
director's tools"): a late entrant's fixtures with each entrant still in, the withdrawal
rule both ways (under half played: unplayed fixtures removed; else forfeited), the typed
refusals, and the director's page for organisers only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from accounts.models import Member
from matches.models import Match, OrganiserAction
from matches.services.errors import InvalidFixture
from tests.matches.test_standings import KICKOFF, between, round_robin, settle
from tournaments import services
from tournaments.models import Withdrawal
from tournaments.services import director
from tournaments.standings import standings_by_name

pytestmark = pytest.mark.django_db

LATE = KICKOFF + timedelta(days=10)


@pytest.fixture
def players(make_member) -> dict[str, Member]:
    return {name: make_member(name) for name in ("ann", "bob", "cat", "dan")}


def _enter(organiser, tournament, member, *, first_kickoff=LATE, interval=timedelta(days=1)):
    return director.entrant_add(
        organiser=organiser,
        tournament_id=tournament.id,
        member_id=member.pk,
        first_kickoff=first_kickoff,
        interval=interval,
    )


def _withdraw(organiser, tournament, member, reason="Cannot play on"):
    return director.entrant_withdraw(
        organiser=organiser, tournament_id=tournament.id, member_id=member.pk, reason=reason
    )


def _players_of(match: Match) -> list[str]:
    return [seat.member.username for seat in match.seats.order_by("position")]


def test_a_late_entrant_plays_each_entrant_once_in_new_rounds(organiser, players, make_member):
    cup = round_robin(organiser, [players["ann"], players["bob"], players["cat"]])
    last_round = max(cup.matches.values_list("round_number", flat=True))
    eve = make_member("eve")
    made = director.entrant_add(
        organiser=organiser,
        tournament_id=cup.id,
        member_id=eve.pk,
        first_kickoff=LATE,
        interval=timedelta(days=2),
    )
    assert cup.players.filter(pk=eve.pk).exists()
    assert [m.round_number for m in made] == [last_round + 1, last_round + 2, last_round + 3]
    assert [m.kickoff_at for m in made] == [
        LATE,
        LATE + timedelta(days=2),
        LATE + timedelta(days=4),
    ]
    # Seats alternate; one fixture a round, so nobody plays twice in one.
    assert [_players_of(m) for m in made] == [["eve", "ann"], ["bob", "eve"], ["eve", "cat"]]
    assert all(m.status == Match.Status.SCHEDULED and m.tournament_id == cup.id for m in made)
    # A second time, or a Swiss, or a kick-off past, is refused, and nothing is made.
    count = cup.matches.count()
    with pytest.raises(director.EntryRefused, match="already entered"):
        _enter(organiser, cup, eve)
    with pytest.raises(InvalidFixture, match="must kick off in the future"):
        _enter(organiser, cup, players["dan"], first_kickoff=KICKOFF.replace(year=2001))
    assert cup.matches.count() == count
    assert not cup.players.filter(pk=players["dan"].pk).exists()


def test_a_swiss_and_a_finished_tournament_take_no_late_entrant(organiser, players, make_member):
    swiss = services.create_swiss(
        organiser=organiser,
        name="Open",
        players=[players["ann"], players["bob"]],
        rounds=1,
        first_kickoff=KICKOFF,
        interval=timedelta(days=1),
    )
    with pytest.raises(director.EntryRefused, match="for round robins"):
        _enter(organiser, swiss, players["cat"])
    pair = round_robin(organiser, [players["cat"], players["dan"]], name="Pair")
    settle(pair, players["cat"], players["dan"], scores=(300, 200), winner=players["cat"])
    with pytest.raises(director.EntryRefused, match="is over"):
        _enter(organiser, pair, players["ann"])


def test_under_half_played_the_unplayed_fixtures_are_removed(organiser, players) -> None:
    ann, bob, cat, dan = players.values()
    cup = round_robin(organiser, [ann, bob, cat, dan])
    settle(cup, ann, bob, scores=(400, 300), winner=ann)  # 1 of her 3 played
    live = between(cup, ann, cat)
    Match.objects.filter(pk=live.pk).update(status=Match.Status.LIVE)
    done = director.entrant_withdraw(
        organiser=organiser, tournament_id=cup.id, member_id=ann.pk, reason="Moved away"
    )
    assert done.withdrawal.rule == Withdrawal.Rule.REMOVED
    assert (done.withdrawal.played, done.withdrawal.games) == (1, 3)
    live.refresh_from_db()
    unplayed = between(cup, ann, dan)
    assert (live.status, live.end_reason, live.result) == ("abandoned", "voided", "")
    assert (unplayed.status, unplayed.end_reason, unplayed.result) == ("abandoned", "cancelled", "")
    assert sorted(outcome for _, outcome in done.settled) == ["removed", "removed"]
    assert OrganiserAction.objects.filter(kind=OrganiserAction.Kind.WITHDRAW).count() == 2
    table = standings_by_name(cup)
    assert (table["ann"].played, table["ann"].won) == (1, 1)  # her finished game stands
    assert (table["cat"].played, table["dan"].played) == (0, 0)
    # Withdrawn once only.
    with pytest.raises(director.EntryRefused, match="already been withdrawn"):
        _withdraw(organiser, cup, ann)


def test_half_or_more_played_the_unplayed_fixtures_are_forfeited(organiser, players) -> None:
    ann, bob, cat, dan = players.values()
    cup = round_robin(organiser, [ann, bob, cat, dan])
    Match.objects.filter(tournament=cup).update(rated=True)
    settle(cup, ann, bob, scores=(400, 300), winner=ann)
    settle(cup, ann, cat, scores=(300, 350), winner=cat)  # 2 of her 3 played
    done = director.entrant_withdraw(
        organiser=organiser, tournament_id=cup.id, member_id=ann.pk, reason="Ill"
    )
    assert done.withdrawal.rule == Withdrawal.Rule.FORFEITED
    forfeited = between(cup, ann, dan)
    dan_first = forfeited.seats.get(position=0).member_id == dan.pk
    assert forfeited.status == Match.Status.FINISHED
    assert forfeited.end_reason == Match.EndReason.WITHDRAWN
    assert forfeited.result == (Match.Result.FIRST if dan_first else Match.Result.SECOND)
    assert not forfeited.rated  # never played: counted, rated for nobody
    table = standings_by_name(cup)
    assert (table["dan"].won, table["dan"].spread) == (1, 0)
    assert (table["ann"].played, table["ann"].lost) == (3, 2)


def test_withdrawing_someone_not_entered_is_refused(organiser, players, make_member) -> None:
    cup = round_robin(organiser, [players["ann"], players["bob"]])
    with pytest.raises(director.EntryRefused, match="not entered"):
        _withdraw(organiser, cup, make_member("zed"))
    assert not Withdrawal.objects.exists()


def test_a_withdrawn_player_is_not_paired_with_a_late_entrant(organiser, players, make_member):
    ann, bob, cat, _ = players.values()
    cup = round_robin(organiser, [ann, bob, cat])
    _withdraw(organiser, cup, bob)
    made = _enter(organiser, cup, make_member("eve"))
    assert sorted(name for m in made for name in _players_of(m) if name != "eve") == ["ann", "cat"]
    with pytest.raises(director.EntryRefused, match="cannot enter it again"):
        _enter(organiser, cup, bob)


def _local(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M")


def test_the_director_page_enters_and_withdraws_for_organisers_only(organiser, players):
    ann, bob, cat, dan = players.values()
    cup = round_robin(organiser, [ann, bob, cat])
    url = f"/organise/tournaments/{cup.id}/director/"
    entry = {"entry-member": "dan", "entry-first_kickoff": _local(LATE),
             "entry-interval_hours": "24"}  # fmt: skip
    withdrawal = {"withdraw-member": "bob", "withdraw-reason": "Cannot play on"}
    someone = Client()
    someone.force_login(ann)
    assert someone.post(url + "enter/", entry).status_code == 403
    assert someone.post(url + "withdraw/", withdrawal).status_code == 403
    assert not cup.players.filter(pk=dan.pk).exists()
    assert not Withdrawal.objects.exists()

    client = Client()
    client.force_login(organiser)
    answer = client.post(url + "enter/", entry)
    assert answer.status_code == 302
    assert "Entered dan: 3 fixtures scheduled." in client.get(answer.url).content.decode()
    again = client.post(url + "enter/", entry)
    assert again.status_code == 409
    assert director.ALREADY_ENTERED in again.content.decode()
    answer = client.post(url + "withdraw/", withdrawal)
    assert answer.status_code == 302
    page = client.get(answer.url).content.decode()
    assert "Withdrew bob: unplayed fixtures removed (3)." in page
    assert "bob: Unplayed fixtures removed (0 of 3 played); Cannot play on" in page
    table = client.get(f"/tournaments/{cup.id}/").content.decode()
    assert '<a href="/players/bob/">bob</a> <span class="badge withdrawn">Withdrawn</span>' in table
    no_reason = client.post(url + "withdraw/", {"withdraw-member": "cat", "withdraw-reason": ""})
    assert no_reason.status_code == 400
    assert not Withdrawal.objects.filter(member=cat).exists()
