"""Challenges and rematches through their services: the fixture each agreement starts, and
every refusal (typed, with its code and the rules' words, changing nothing)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from challenges import services
from challenges.errors import ChallengeUnavailable, InvalidChallenge, RematchUnavailable
from challenges.models import CHALLENGE_LIFETIME, Challenge, RematchOffer
from common.errors import NotAllowed, SignInRequired
from matches import services as match_services
from matches.models import Match
from matches.services.common import now as _now
from matches.services.errors import MembershipRequired
from notifications.models import Notice
from tournaments import services as organising

pytestmark = pytest.mark.django_db


def _players(match: Match) -> list[str]:
    return [seat.member.username for seat in match.seats.order_by("position")]


# ------------------------------------------------------------------ posting


def test_posting_a_challenge_opens_it_for_seven_days_and_makes_no_match(alice) -> None:
    challenge = services.challenge_post(member=alice, ruleset="word-duel", rated=True)
    assert challenge.status == Challenge.Status.OPEN
    assert challenge.opponent is None
    assert challenge.rated is True
    assert challenge.expires_at - challenge.posted_at == CHALLENGE_LIFETIME == timedelta(days=7)
    assert Match.objects.count() == 0


def test_a_challenge_to_one_member_names_them(alice, bob) -> None:
    challenge = services.challenge_post(member=alice, opponent_username=" BOB ")
    assert challenge.opponent == bob


@pytest.mark.parametrize(
    ("ruleset", "opponent", "message"),
    [
        ("speedy", "", "There is no ruleset called 'speedy'."),
        ("word-duel", "nobody", services.NO_SUCH_OPPONENT),
        ("word-duel", "pat", services.NO_SUCH_OPPONENT),  # pending: not a member yet
        ("word-duel", "alice", services.NOT_YOURSELF),
    ],
)
def test_a_challenge_that_cannot_be_posted_is_refused(
    alice, pending, unchanged, ruleset, opponent, message
) -> None:
    with unchanged(), pytest.raises(InvalidChallenge) as refused:
        services.challenge_post(member=alice, ruleset=ruleset, opponent_username=opponent)
    assert refused.value.message == message
    assert refused.value.code == "invalid_challenge"


def test_only_approved_members_post(pending, unchanged) -> None:
    from django.contrib.auth.models import AnonymousUser

    with unchanged(), pytest.raises(MembershipRequired) as refused:
        services.challenge_post(member=pending)
    assert refused.value.message == services.MEMBERS_CHALLENGE
    with unchanged(), pytest.raises(SignInRequired):
        services.challenge_post(member=AnonymousUser())


def test_a_member_holds_at_most_five_open_challenges(alice, unchanged) -> None:
    for _ in range(services.MAX_OPEN_CHALLENGES):
        services.challenge_post(member=alice)
    with unchanged(), pytest.raises(InvalidChallenge) as refused:
        services.challenge_post(member=alice)
    assert refused.value.message == services.TOO_MANY_OPEN
    services.challenge_withdraw(challenge_id=Challenge.objects.first().pk, member=alice)
    services.challenge_post(member=alice)  # room again


# ------------------------------------------------------------------ accepting


def test_accepting_starts_a_live_friendly_with_the_poster_first(alice, bob) -> None:
    challenge = services.challenge_post(member=alice, ruleset="word-duel", rated=True)
    match = services.challenge_accept(challenge_id=challenge.pk, member=bob)
    assert match.status == Match.Status.LIVE
    assert match.turn_deadline_at is not None
    assert match.to_move == 0
    assert _players(match) == ["alice", "bob"]
    assert all(len(seat.rack) == 7 for seat in match.seats.all())
    assert match.tournament_id is None
    assert match.rated is True
    assert match.ruleset == "word-duel"
    assert match.visibility == Match.Visibility.MEMBERS
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.ACCEPTED
    assert challenge.accepted_by == bob
    assert challenge.match == match
    # the poster, First, hears that it is her move (and only that)
    told = list(Notice.objects.filter(match=match).values_list("member__username", "kind"))
    assert told == [("alice", "your_move")]


def test_an_addressed_challenge_is_accepted_by_its_member_only(alice, bob, carol, unchanged):
    challenge = services.challenge_post(member=alice, opponent_username="bob")
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk, member=carol)
    assert refused.value.message == services.NOT_FOR_YOU
    assert refused.value.code == "challenge_unavailable"
    match = services.challenge_accept(challenge_id=challenge.pk, member=bob)
    assert _players(match) == ["alice", "bob"]


def test_a_member_cannot_accept_their_own_challenge(alice, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk, member=alice)
    assert refused.value.message == services.OWN_CHALLENGE


def test_a_withdrawn_challenge_cannot_be_accepted(alice, bob, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    services.challenge_withdraw(challenge_id=challenge.pk, member=alice)
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk, member=bob)
    assert refused.value.message == services.WITHDRAWN


def test_an_expired_challenge_cannot_be_accepted(alice, bob, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    just_before = challenge.expires_at - timedelta(seconds=1)
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk, member=bob, now=challenge.expires_at)
    assert refused.value.message == services.EXPIRED
    match = services.challenge_accept(challenge_id=challenge.pk, member=bob, now=just_before)
    assert match.status == Match.Status.LIVE


def test_an_accepted_challenge_cannot_be_accepted_again(alice, bob, carol, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    services.challenge_accept(challenge_id=challenge.pk, member=bob)
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk, member=carol)
    assert refused.value.message == services.ALREADY_ACCEPTED
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_withdraw(challenge_id=challenge.pk, member=alice)
    assert refused.value.message == services.ALREADY_ACCEPTED


def test_pending_members_and_missing_challenges_are_refused(alice, pending, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    with unchanged(), pytest.raises(MembershipRequired):
        services.challenge_accept(challenge_id=challenge.pk, member=pending)
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk + 1000, member=alice)
    assert refused.value.message == services.NO_SUCH_CHALLENGE


def test_a_challenge_whose_poster_left_the_club_cannot_be_accepted(alice, bob, unchanged):
    challenge = services.challenge_post(member=alice)
    alice.membership = alice.Membership.REMOVED
    alice.save(update_fields=["membership"])
    with unchanged(), pytest.raises(ChallengeUnavailable) as refused:
        services.challenge_accept(challenge_id=challenge.pk, member=bob)
    assert refused.value.message == services.POSTER_GONE


def test_only_the_poster_withdraws(alice, bob, unchanged) -> None:
    challenge = services.challenge_post(member=alice)
    with unchanged(), pytest.raises(NotAllowed) as refused:
        services.challenge_withdraw(challenge_id=challenge.pk, member=bob)
    assert refused.value.message == services.ONLY_POSTER_WITHDRAWS
    services.challenge_withdraw(challenge_id=challenge.pk, member=alice)
    with unchanged():  # again: nothing more happens
        services.challenge_withdraw(challenge_id=challenge.pk, member=alice)


# ------------------------------------------------------------------ rematches


def test_a_rematch_both_accept_swaps_the_seats(finished_friendly, alice, bob) -> None:
    offered = services.rematch_offer(match_id=finished_friendly.id, member=bob)
    assert offered.rematch is None
    assert offered.offer.status == RematchOffer.Status.OFFERED
    again = services.rematch_offer(match_id=finished_friendly.id, member=bob)  # idempotent
    assert again.offer.pk == offered.offer.pk
    assert Match.objects.count() == 1
    accepted = services.rematch_accept(match_id=finished_friendly.id, member=alice)
    rematch = accepted.rematch
    assert rematch is not None
    assert rematch.status == Match.Status.LIVE
    assert _players(finished_friendly) == ["alice", "bob"]
    assert _players(rematch) == ["bob", "alice"]
    assert (rematch.ruleset, rematch.lexicon, rematch.rated, rematch.visibility) == (
        finished_friendly.ruleset,
        finished_friendly.lexicon,
        False,
        finished_friendly.visibility,
    )
    assert rematch.tournament_id is None
    # bob offered and is First now: his move is his notice; alice was there to accept
    told = list(Notice.objects.filter(match=rematch).values_list("member__username", "kind"))
    assert told == [("bob", "your_move")]
    # accepting or offering again answers with the same rematch, and makes no other
    assert services.rematch_accept(match_id=finished_friendly.id, member=alice).rematch == rematch
    assert services.rematch_offer(match_id=finished_friendly.id, member=bob).rematch == rematch
    assert Match.objects.count() == 2


def test_offering_back_an_offered_rematch_agrees_to_it(finished_friendly, alice, bob) -> None:
    services.rematch_offer(match_id=finished_friendly.id, member=alice)
    state = services.rematch_offer(match_id=finished_friendly.id, member=bob)
    assert state.rematch is not None
    assert _players(state.rematch) == ["bob", "alice"]
    # alice offered and sits Second now: she hears of the new fixture; bob of his move
    told = sorted(
        Notice.objects.filter(match=state.rematch).values_list("member__username", "kind")
    )
    assert told == [("alice", "fixture"), ("bob", "your_move")]


def test_a_declined_rematch_is_final(finished_friendly, alice, bob, unchanged) -> None:
    services.rematch_offer(match_id=finished_friendly.id, member=alice)
    declined = services.rematch_decline(match_id=finished_friendly.id, member=bob)
    assert declined.offer.status == RematchOffer.Status.DECLINED
    for service in (services.rematch_accept, services.rematch_offer):
        with unchanged(), pytest.raises(RematchUnavailable) as refused:
            service(match_id=finished_friendly.id, member=bob)
        assert refused.value.message == services.DECLINED
        assert refused.value.code == "rematch_unavailable"
    assert Match.objects.count() == 1


def test_the_offerer_may_call_the_rematch_off_but_not_accept_it(
    finished_friendly, alice, unchanged
) -> None:
    services.rematch_offer(match_id=finished_friendly.id, member=alice)
    with unchanged(), pytest.raises(RematchUnavailable) as refused:
        services.rematch_accept(match_id=finished_friendly.id, member=alice)
    assert refused.value.message == services.OWN_OFFER
    state = services.rematch_decline(match_id=finished_friendly.id, member=alice)
    assert state.offer.status == RematchOffer.Status.DECLINED


def test_only_the_two_players_take_part(finished_friendly, alice, carol, unchanged) -> None:
    with unchanged(), pytest.raises(NotAllowed) as refused:
        services.rematch_offer(match_id=finished_friendly.id, member=carol)
    assert refused.value.message == services.ONLY_PLAYERS_REMATCH
    services.rematch_offer(match_id=finished_friendly.id, member=alice)
    for service in (services.rematch_accept, services.rematch_decline):
        with unchanged(), pytest.raises(NotAllowed):
            service(match_id=finished_friendly.id, member=carol)


def test_nothing_to_accept_or_decline_before_an_offer(finished_friendly, bob, unchanged):
    for service in (services.rematch_accept, services.rematch_decline):
        with unchanged(), pytest.raises(RematchUnavailable) as refused:
            service(match_id=finished_friendly.id, member=bob)
        assert refused.value.message == services.NONE_OFFERED


def test_no_rematch_of_a_live_rated_or_tournament_match(
    make_fixture, live_match, alice, bob, organiser, unchanged
) -> None:
    with unchanged(), pytest.raises(RematchUnavailable) as refused:
        services.rematch_offer(match_id=live_match.id, member=alice)
    assert refused.value.message == services.NOT_FRIENDLY
    rated = organising.create_fixture(
        organiser=organiser, name="Rated", first=alice, second=bob, rated=True
    )
    match_services.match_resign(match_id=rated.id, member=bob, client_id="r")
    with unchanged(), pytest.raises(RematchUnavailable):
        services.rematch_offer(match_id=rated.id, member=alice)
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Cup",
        players=[alice, bob],
        first_kickoff=_now() - timedelta(minutes=1),
        interval=timedelta(days=1),
    )
    cup_match = tournament.matches.get()
    match_services.match_apply_deadlines(match_id=cup_match.id)
    match_services.match_resign(match_id=cup_match.id, member=bob, client_id="c")
    with unchanged(), pytest.raises(RematchUnavailable):
        services.rematch_offer(match_id=cup_match.id, member=alice)


def test_no_rematch_when_the_opponent_left_the_club(finished_friendly, alice, bob, unchanged):
    bob.membership = bob.Membership.REMOVED
    bob.save(update_fields=["membership"])
    with unchanged(), pytest.raises(RematchUnavailable) as refused:
        services.rematch_offer(match_id=finished_friendly.id, member=alice)
    assert refused.value.message == services.OPPONENT_GONE


def test_no_rematch_against_the_computer(alice, unchanged) -> None:
    from practice.services import start_practice

    match = start_practice(member=alice)
    match_services.match_resign(match_id=match.id, member=alice, client_id="giving-up")
    with unchanged(), pytest.raises(RematchUnavailable) as refused:
        services.rematch_offer(match_id=match.id, member=alice)
    assert refused.value.message == services.OPPONENT_GONE
