"""The standings' order (docs/RULES.md section 12): points, spread, head-to-head among exactly
the tied players (again among a smaller group it leaves tied), then the earlier member; and
what a forfeit, a resignation, an adjudication, a void and a cancellation count for.

Results are stored directly on round-robin fixtures (the table reads outcomes, however they
came); the services that produce each kind of ending have their own tests.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import Member
from matches.models import Match, Seat, Tournament
from tournaments import services as organising
from tournaments import standings

pytestmark = pytest.mark.django_db

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)


def round_robin(organiser: Member, players: list[Member], name: str = "Cup") -> Tournament:
    """Every pair once, all kicking off in 2031 (so nothing opens by itself)."""
    return organising.create_round_robin(
        organiser=organiser,
        name=name,
        players=players,
        first_kickoff=KICKOFF,
        interval=timedelta(hours=24),
    )


def between(tournament: Tournament, a: Member, b: Member) -> Match:
    return tournament.matches.filter(seats__member=a).filter(seats__member=b).get()


def settle(
    tournament: Tournament,
    a: Member,
    b: Member,
    *,
    scores: tuple[int, int],
    winner: Member | None = None,
    reason: str = Match.EndReason.PLAYED_OUT,
    status: str = Match.Status.FINISHED,
) -> Match:
    """Store ``a`` v ``b``'s outcome: ``scores`` as (a's, b's); no winner is a draw (or no
    result, for an ended match with ``status`` abandoned)."""
    match = between(tournament, a, b)
    a_first = match.seats.get(position=0).member_id == a.pk
    if status == Match.Status.ABANDONED:
        result = Match.Result.NONE
    elif winner is None:
        result = Match.Result.DRAW
    else:
        result = Match.Result.FIRST if (winner == a) == a_first else Match.Result.SECOND
    Match.objects.filter(pk=match.pk).update(
        status=status, result=result, end_reason=reason, finished_at=timezone.now()
    )
    first_score, second_score = scores if a_first else scores[::-1]
    Seat.objects.filter(match=match, position=0).update(score=first_score)
    Seat.objects.filter(match=match, position=1).update(score=second_score)
    return match


def order(tournament: Tournament) -> list[str]:
    return [line.username for line in standings.standings(tournament)]


def table(tournament: Tournament) -> dict[str, standings.Standing]:
    return {line.username: line for line in standings.standings(tournament)}


def test_equal_wins_are_broken_by_spread(organiser, make_member) -> None:
    ann, ben, cat = (make_member(name) for name in ("ann", "ben", "cat"))
    cup = round_robin(organiser, [ann, ben, cat])
    settle(cup, ann, cat, scores=(350, 300), winner=ann)  # ann +50
    settle(cup, ben, cat, scores=(420, 300), winner=ben)  # ben +120
    lines = table(cup)
    assert (lines["ann"].points, lines["ann"].spread) == (1, 50)
    assert (lines["ben"].points, lines["ben"].spread) == (1, 120)
    assert (lines["cat"].points, lines["cat"].spread) == (0, -170)
    assert order(cup) == ["ben", "ann", "cat"]  # ben joined after ann: spread decided
    assert lines["ben"].separated_by == ""  # no tie to break


def test_equal_wins_and_spread_are_broken_by_head_to_head(organiser, make_member) -> None:
    ann, ben, cat = (make_member(name) for name in ("ann", "ben", "cat"))
    cup = round_robin(organiser, [ann, ben, cat])
    settle(cup, ann, cat, scores=(400, 300), winner=ann)  # ann +100
    settle(cup, ben, ann, scores=(350, 300), winner=ben)  # ben +50, ann -50
    # ann and ben: 1 win, +50 each; ben beat ann, so ben is above her though she joined first.
    lines = table(cup)
    assert [(lines[n].points, lines[n].spread) for n in ("ann", "ben")] == [(1, 50), (1, 50)]
    assert order(cup) == ["ben", "ann", "cat"]
    assert lines["ben"].separated_by == "head-to-head"


def test_a_three_way_tie_uses_only_the_games_among_the_three(organiser, make_member) -> None:
    # Joined in the order cat, bea, ann (the last resort would say cat, bea, ann), and named
    # so that the alphabet would say ann, bea, cat: head-to-head must give ann, bea, cat
    # from the games among them while dan and eve, outside the tie, change nothing.
    cat, bea, ann, dan, eve = (make_member(name) for name in ("cat", "bea", "ann", "dan", "eve"))
    cup = round_robin(organiser, [ann, bea, cat, dan, eve])
    # Among the three: ann beats bea by 30 and cat by 10; bea beats cat by 50.
    settle(cup, ann, bea, scores=(330, 300), winner=ann)
    settle(cup, ann, cat, scores=(310, 300), winner=ann)
    settle(cup, bea, cat, scores=(350, 300), winner=bea)
    # Against the others, so all three end on 2 wins and a spread of 0.
    settle(cup, ann, dan, scores=(300, 320), winner=dan)
    settle(cup, ann, eve, scores=(300, 320), winner=eve)
    settle(cup, bea, dan, scores=(310, 300), winner=bea)
    settle(cup, bea, eve, scores=(300, 330), winner=eve)
    settle(cup, cat, dan, scores=(330, 300), winner=cat)
    settle(cup, cat, eve, scores=(330, 300), winner=cat)
    settle(cup, dan, eve, scores=(300, 300))  # a draw
    lines = table(cup)
    for name in ("ann", "bea", "cat"):
        assert (lines[name].played, lines[name].points, lines[name].spread) == (4, 2, 0), name
    assert (lines["eve"].points, lines["eve"].spread) == (2.5, 20)
    assert (lines["dan"].points, lines["dan"].spread) == (1.5, -20)
    assert order(cup) == ["eve", "ann", "bea", "cat", "dan"]
    assert [lines[n].separated_by for n in ("ann", "bea", "cat")] == [
        "head-to-head",
        "head-to-head",
        "",
    ]


def test_head_to_head_is_applied_again_to_a_smaller_group_it_leaves_tied(
    organiser, make_member
) -> None:
    # A cycle among three: ann beats bea by 10, cat beats ann by 30, bea beats cat by 20.
    # Among the three, bea and cat each have 1 point and +10, ann 1 point and -20: ann is
    # third of them; then among exactly bea and cat, bea beat cat.
    cat, ann, bea, dan = (make_member(name) for name in ("cat", "ann", "bea", "dan"))
    cup = round_robin(organiser, [ann, bea, cat, dan])
    settle(cup, ann, bea, scores=(310, 300), winner=ann)
    settle(cup, cat, ann, scores=(330, 300), winner=cat)
    settle(cup, bea, cat, scores=(320, 300), winner=bea)
    settle(cup, ann, dan, scores=(350, 300), winner=ann)  # each then 2 wins, +30
    settle(cup, bea, dan, scores=(320, 300), winner=bea)
    settle(cup, cat, dan, scores=(320, 300), winner=cat)
    lines = table(cup)
    assert {(lines[n].points, lines[n].spread) for n in ("ann", "bea", "cat")} == {(2, 30)}
    assert order(cup) == ["bea", "cat", "ann", "dan"]  # not cat, ann, bea (joining order)
    assert lines["bea"].separated_by == "head-to-head"
    assert lines["cat"].separated_by == "head-to-head"


def test_the_last_resort_is_the_earlier_member(organiser, make_member) -> None:
    # zoe joined before amy; equal on everything, and they have not met.
    zoe, amy, cat, dan = (make_member(name) for name in ("zoe", "amy", "cat", "dan"))
    cup = round_robin(organiser, [zoe, amy, cat, dan])
    settle(cup, zoe, cat, scores=(340, 300), winner=zoe)
    settle(cup, amy, dan, scores=(340, 300), winner=amy)
    assert order(cup)[:2] == ["zoe", "amy"]
    assert table(cup)["zoe"].separated_by == "member number"


def test_a_head_to_head_cycle_falls_to_the_last_resort(organiser, make_member) -> None:
    cat, ann, bea = (make_member(name) for name in ("cat", "ann", "bea"))
    cup = round_robin(organiser, [ann, bea, cat])
    settle(cup, ann, bea, scores=(320, 300), winner=ann)
    settle(cup, bea, cat, scores=(320, 300), winner=bea)
    settle(cup, cat, ann, scores=(320, 300), winner=cat)
    assert order(cup) == ["cat", "ann", "bea"]  # the order they joined in
    assert [line.separated_by for line in standings.standings(cup)] == [
        "member number",
        "member number",
        "",
    ]


def test_what_each_ending_counts_for(organiser, make_member) -> None:
    """Forfeit, no-show and adjudication: the result, no spread. Resignation: the scores
    as they stood, never for the resigner. Voided and cancelled: nothing."""
    ann, ben, cat, dan = (make_member(name) for name in ("ann", "ben", "cat", "dan"))
    cup = round_robin(organiser, [ann, ben, cat, dan])
    settle(cup, ann, ben, scores=(50, 300), winner=ann, reason=Match.EndReason.FORFEIT)
    settle(cup, ann, cat, scores=(100, 400), winner=cat, reason=Match.EndReason.ADJUDICATED)
    settle(cup, ann, dan, scores=(200, 100), winner=dan, reason=Match.EndReason.RESIGNED)
    settle(cup, ben, cat, scores=(90, 10), reason=Match.EndReason.ADJUDICATED)  # a draw
    voided = settle(
        cup,
        ben,
        dan,
        scores=(300, 0),
        reason=Match.EndReason.VOIDED,
        status=Match.Status.ABANDONED,
    )
    settle(
        cup,
        cat,
        dan,
        scores=(0, 0),
        reason=Match.EndReason.CANCELLED,
        status=Match.Status.ABANDONED,
    )
    lines = table(cup)
    got = {n: (lines[n].played, lines[n].won, lines[n].drawn, lines[n].lost) for n in lines}
    assert got == {
        "ann": (3, 1, 0, 2),
        "ben": (2, 0, 1, 1),
        "cat": (2, 1, 1, 0),
        "dan": (1, 1, 0, 0),
    }
    # ann resigned 200-100 ahead: 0 to both; every other ending: no spread at all.
    assert {n: lines[n].spread for n in lines} == {"ann": 0, "ben": 0, "cat": 0, "dan": 0}
    assert standings.game_counts(voided, list(voided.seats.all())) == []


def test_a_resignation_while_behind_counts_the_scores(organiser, make_member) -> None:
    ann, ben = make_member("ann"), make_member("ben")
    cup = round_robin(organiser, [ann, ben])
    settle(cup, ann, ben, scores=(150, 210), winner=ben, reason=Match.EndReason.RESIGNED)
    lines = table(cup)
    assert (lines["ann"].spread, lines["ben"].spread) == (-60, 60)


def test_a_no_show_counts_for_the_player_who_came(organiser, make_member) -> None:
    ann, ben = make_member("ann"), make_member("ben")
    cup = round_robin(organiser, [ann, ben])
    match = settle(cup, ann, ben, scores=(0, 0), winner=ann, reason=Match.EndReason.NO_SHOW)
    Seat.objects.filter(match=match, member=ben).update(member=None)  # ben never sat down
    lines = table(cup)
    assert (lines["ann"].played, lines["ann"].won, lines["ann"].spread) == (1, 1, 0)
    assert lines["ben"].played == 0
