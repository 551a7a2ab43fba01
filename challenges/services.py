"""Every change to a challenge or a rematch offer, one keyword-only function each, one
transaction each (the manner of ``matches.services``; docs/RULES.md, section 17).

Each locks the row it decides (a challenge, or the original match of a rematch) so two
requests at once are decided one after the other; a refusal is a typed ``ServiceError`` with
a stable code, raised with nothing changed. An agreement makes its fixture the way every
fixture is made (``matches.services.create_match``, both seats filled, then
``after_seating``, which opens it at once: no kick-off), and its news goes out after commit.
A challenge or a rematch is a friendly: never part of a tournament.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from accounts.models import Member
from challenges.errors import ChallengeUnavailable, InvalidChallenge, RematchUnavailable
from challenges.models import Challenge, RematchOffer, challenge_expiry
from common.errors import NotAllowed, SignInRequired
from common.events import ChallengePosted, FixtureScheduled, RematchOffered, emit
from engine.rulesets import RULESETS
from matches import visibility
from matches.models import Match, Seat
from matches.news import Event, PrivateEvent, publish_on_commit
from matches.services import create_match
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.creation import NAME_LENGTH
from matches.services.errors import MembershipRequired
from matches.services.lifecycle import after_seating, apply_deadlines
from matches.visibility.access import is_club_member

#: A member may have this many challenges open (posted, not accepted, withdrawn or expired).
MAX_OPEN_CHALLENGES = 5

SIGN_IN_TO_CHALLENGE = "Sign in to post or accept a challenge."
MEMBERS_CHALLENGE = "Only approved club members can post or accept challenges."
NO_SUCH_OPPONENT = "There is no club member by that name."
NOT_YOURSELF = "You cannot challenge yourself."
TOO_MANY_OPEN = (
    f"You already have {MAX_OPEN_CHALLENGES} open challenges. Withdraw one before posting another."
)
NO_SUCH_CHALLENGE = "There is no such challenge."
ALREADY_ACCEPTED = "This challenge has already been accepted."
WITHDRAWN = "This challenge was withdrawn."
EXPIRED = "This challenge has expired."
OWN_CHALLENGE = "You cannot accept your own challenge."
NOT_FOR_YOU = "This challenge is for another member."
POSTER_GONE = "The member who posted this challenge is no longer a club member."
ONLY_POSTER_WITHDRAWS = "Only the member who posted a challenge can withdraw it."

SIGN_IN_TO_REMATCH = "Sign in to offer or answer a rematch."
MEMBERS_REMATCH = "Only approved club members can offer or answer a rematch."
ONLY_PLAYERS_REMATCH = "Only the two players of this match can offer or answer a rematch."
NOT_FRIENDLY = "Only a finished friendly match (unrated, in no tournament) can be rematched."
OPPONENT_GONE = "A rematch needs both players to be club members."
NONE_OFFERED = "No rematch has been offered on this match."
OWN_OFFER = "You offered this rematch: the other player accepts or declines it."
DECLINED = "This rematch was declined."
ALREADY_REMATCHED = "This rematch has already been accepted."


# ------------------------------------------------------------------ the fixture both agreed


def _start_friendly(
    *,
    name: str,
    first: Member,
    second: Member,
    ruleset: str,
    lexicon: str,
    rated: bool,
    visibility_: str,
    created_by: Member,
    now: datetime,
) -> tuple[Match, list[Event]]:
    """A fixture of ``first`` v ``second``, in no tournament, live at once (no kick-off);
    its new seats locked while they are filled. The news is returned, to publish after
    commit."""
    match = create_match(
        name=name[:NAME_LENGTH],
        organiser=created_by,
        kickoff_at=None,
        ruleset=ruleset,
        lexicon=lexicon,
        visibility_=visibility_,
        no_show_window=None,
        rated=rated,
    )
    seats = locked_seats(match)
    for seat, player in zip(seats, (first, second), strict=True):
        seat.member = player
        seat.seated_at = now
        seat.save(update_fields=["member", "seated_at"])
    events = after_seating(match, seats, now=now)
    assert match.status == Match.Status.LIVE, "both seats and no kick-off: live at once"
    return match, events


def require_challenger(member: Any) -> None:
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_CHALLENGE)
    if not is_club_member(member):
        raise MembershipRequired(MEMBERS_CHALLENGE)


def _require_rematcher(member: Any) -> None:
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_REMATCH)
    if not is_club_member(member):
        raise MembershipRequired(MEMBERS_REMATCH)


# ------------------------------------------------------------------ challenges


def _opponent(poster: Member, username: str) -> Member | None:
    username = username.strip()
    if not username:
        return None
    opponent = Member.objects.filter(username__iexact=username).first()
    if opponent is None or not is_club_member(opponent):
        raise InvalidChallenge(NO_SUCH_OPPONENT)
    if opponent.pk == poster.pk:
        raise InvalidChallenge(NOT_YOURSELF)
    return opponent


def open_challenge_filter(now: datetime) -> dict[str, Any]:
    """The lookups of a challenge that is still open at ``now`` (not expired)."""
    return {"status": Challenge.Status.OPEN, "expires_at__gt": now}


def challenge_post(
    *,
    member: Any,
    ruleset: str = "word-duel",
    rated: bool = False,
    opponent_username: str = "",
    now: datetime | None = None,
) -> Challenge:
    """Post a friendly challenge, open for ``CHALLENGE_LIFETIME``: to any member, or, with
    ``opponent_username``, to that approved member only, who is notified after the commit.
    Locks the poster's member row, so two posts at once both count against
    ``MAX_OPEN_CHALLENGES``."""
    require_challenger(member)
    if ruleset not in RULESETS:
        raise InvalidChallenge(f"There is no ruleset called {ruleset!r}.")
    opponent = _opponent(member, opponent_username)
    with transaction.atomic():
        Member.objects.select_for_update().filter(pk=member.pk).first()
        now = now or _now()
        if Challenge.objects.filter(poster=member, **open_challenge_filter(now)).count() >= (
            MAX_OPEN_CHALLENGES
        ):
            raise InvalidChallenge(TOO_MANY_OPEN)
        challenge = Challenge.objects.create(
            poster=member,
            opponent=opponent,
            ruleset=ruleset,
            rated=rated,
            posted_at=now,
            expires_at=challenge_expiry(now),
        )
        emit(ChallengePosted(challenge_id=challenge.pk, opponent_id=challenge.opponent_id))
    return challenge


def _locked_challenge(challenge_id: int) -> Challenge:
    """The challenge row, locked until the transaction ends (not its members' rows)."""
    try:
        return Challenge.objects.select_for_update(of=("self",)).get(pk=challenge_id)
    except Challenge.DoesNotExist:
        raise ChallengeUnavailable(NO_SUCH_CHALLENGE) from None


def _accept_refusal(
    challenge: Challenge, member: Any, poster: Member, now: datetime
) -> ChallengeUnavailable | None:
    """Why ``member`` may not accept ``challenge`` now, if they may not."""
    if challenge.status == Challenge.Status.ACCEPTED:
        return ChallengeUnavailable(ALREADY_ACCEPTED)
    if challenge.status == Challenge.Status.WITHDRAWN:
        return ChallengeUnavailable(WITHDRAWN)
    if challenge.expires_at <= now:
        return ChallengeUnavailable(EXPIRED)
    if challenge.poster_id == member.pk:
        return ChallengeUnavailable(OWN_CHALLENGE)
    if challenge.opponent_id not in (None, member.pk):
        return ChallengeUnavailable(NOT_FOR_YOU)
    if not is_club_member(poster):
        return ChallengeUnavailable(POSTER_GONE)
    return None


def challenge_accept(*, challenge_id: int, member: Any, now: datetime | None = None) -> Match:
    """Accept a challenge: its fixture, the poster First and ``member`` Second, starts at
    once. Locks the challenge row: of two accepts at once the second waits, then finds it
    accepted (``challenge_unavailable``) and changes nothing. The poster, First, is told as
    the player to move always is: a "your move" notice (no second notice of the fixture)."""
    require_challenger(member)
    with transaction.atomic():
        challenge = _locked_challenge(challenge_id)
        now = now or _now()
        poster = Member.objects.get(pk=challenge.poster_id)
        refusal = _accept_refusal(challenge, member, poster, now)
        if refusal is not None:
            raise refusal
        match, events = _start_friendly(
            name="Challenge",  # the title adds who sits (matches.visibility.titles)
            first=poster,
            second=member,
            ruleset=challenge.ruleset,
            lexicon=challenge.lexicon,
            rated=challenge.rated,
            visibility_=Match.Visibility.MEMBERS,
            created_by=poster,
            now=now,
        )
        challenge.status = Challenge.Status.ACCEPTED
        challenge.accepted_by = member
        challenge.decided_at = now
        challenge.match = match
        challenge.save(update_fields=["status", "accepted_by", "decided_at", "match"])
        publish_on_commit(events)
    return match


def challenge_withdraw(*, challenge_id: int, member: Any, now: datetime | None = None) -> Challenge:
    """Withdraw one's own challenge before anyone accepts it (again: no change). Locks the
    challenge row, so a withdrawal and an acceptance at once are decided one way only."""
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_CHALLENGE)
    with transaction.atomic():
        challenge = _locked_challenge(challenge_id)
        if challenge.poster_id != member.pk:
            raise NotAllowed(ONLY_POSTER_WITHDRAWS)
        if challenge.status == Challenge.Status.ACCEPTED:
            raise ChallengeUnavailable(ALREADY_ACCEPTED)
        if challenge.status == Challenge.Status.OPEN:
            challenge.status = Challenge.Status.WITHDRAWN
            challenge.decided_at = now or _now()
            challenge.save(update_fields=["status", "decided_at"])
    return challenge


# ------------------------------------------------------------------ rematches


@dataclass(frozen=True)
class RematchState:
    """The offer as it now stands, and the new match once both players have agreed."""

    offer: RematchOffer
    rematch: Match | None = None


def is_friendly(match: Match) -> bool:
    """A match a rematch may follow: finished with a result of the board (not cancelled or
    voided), unrated, in no tournament."""
    return (
        match.status == Match.Status.FINISHED
        and match.tournament_id is None
        and not match.rated
        and match.end_reason not in (Match.EndReason.CANCELLED, Match.EndReason.VOIDED)
    )


def _rematch_refusal(match: Match, seats: list[Seat], member: Any) -> RematchUnavailable | None:
    if not any(seat.member_id == member.pk for seat in seats):
        return None  # a stranger: NotAllowed, raised by the caller
    if not is_friendly(match):
        return RematchUnavailable(NOT_FRIENDLY)
    other = next(seat.member for seat in seats if seat.member_id != member.pk)
    if other is None or not is_club_member(other):
        return RematchUnavailable(OPPONENT_GONE)
    return None


def _decide(*, match_id: int, member: Any, decide: Any, now: datetime | None) -> RematchState:
    """Lock the original match and its seats, apply a passed deadline (it stands, even when
    the request is refused), check the requester is a player of a friendly, then ``decide``."""
    _require_rematcher(member)
    refusal: Exception | None = None
    state: RematchState | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        seats = locked_seats(match)
        now = now or _now()
        events = apply_deadlines(match, seats, now=now)
        if not any(seat.member_id == member.pk for seat in seats):
            refusal = NotAllowed(ONLY_PLAYERS_REMATCH)
        else:
            refusal = _rematch_refusal(match, seats, member)
        if refusal is None:
            offer = (
                RematchOffer.objects.select_for_update().filter(original=match).first()
            )  # (already serialised by the match lock; locked for clarity)
            with transaction.atomic():  # a refusal from ``decide`` undoes only its own writes
                try:
                    state = decide(match, seats, offer, now)
                except RematchUnavailable as error:
                    refusal = error
                    transaction.set_rollback(True)
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    assert state is not None
    return state


def _start_rematch(
    match: Match, seats: list[Seat], offer: RematchOffer, now: datetime
) -> RematchState:
    """Both agree: the new fixture, First and Second swapped, the same rules and flag."""
    first, second = seats[1].member, seats[0].member
    assert first is not None
    assert second is not None
    rematch, events = _start_friendly(
        name="Rematch",  # the title adds who sits (matches.visibility.titles)
        first=first,
        second=second,
        ruleset=match.ruleset,
        lexicon=match.lexicon,
        rated=match.rated,
        visibility_=match.visibility,
        created_by=offer.offered_by,
        now=now,
    )
    offer.status = RematchOffer.Status.ACCEPTED
    offer.decided_at = now
    offer.rematch = rematch
    offer.save(update_fields=["status", "decided_at", "rematch"])
    if offer.offered_by_id != first.pk:  # (First hears "your move", as always)
        emit(FixtureScheduled(match_id=rematch.id, member_ids=(offer.offered_by_id,)))
    publish_on_commit(events)
    _tell_players(match, seats, offer)
    return RematchState(offer, rematch)


def _tell_players(match: Match, seats: list[Seat], offer: RematchOffer) -> None:
    """The offer as it now stands, to the two players' open pages of the original match
    (private news, after commit: a spectator learns nothing of it)."""
    offered_by = next(seat.position for seat in seats if seat.member_id == offer.offered_by_id)
    news = visibility.rematch_news(
        state=offer.status, offered_by=offered_by, rematch_id=offer.rematch_id
    )
    publish_on_commit(
        [
            PrivateEvent(match.id, seat.member_id, "rematch", news)
            for seat in seats
            if seat.member_id is not None
        ]
    )


def rematch_offer(*, match_id: int, member: Any, now: datetime | None = None) -> RematchState:
    """Offer a rematch of a finished friendly ``member`` played in. Locks the original match
    and its seats (one offer per match, whoever asks first). Offering again changes nothing;
    offering when the other player has already offered is agreeing, and starts the rematch."""

    def decide(
        match: Match, seats: list[Seat], offer: RematchOffer | None, now: datetime
    ) -> RematchState:
        if offer is None:
            offer = RematchOffer.objects.create(original=match, offered_by=member, offered_at=now)
            other = next(seat.member_id for seat in seats if seat.member_id != member.pk)
            assert other is not None
            emit(RematchOffered(match_id=match.id, member_id=other))  # the other is told
            _tell_players(match, seats, offer)
            return RematchState(offer)
        if offer.status == RematchOffer.Status.DECLINED:
            raise RematchUnavailable(DECLINED)
        if offer.status == RematchOffer.Status.ACCEPTED:
            return RematchState(offer, offer.rematch)
        if offer.offered_by_id == member.pk:
            return RematchState(offer)
        return _start_rematch(match, seats, offer, now)

    return _decide(match_id=match_id, member=member, decide=decide, now=now)


def rematch_accept(*, match_id: int, member: Any, now: datetime | None = None) -> RematchState:
    """Accept the other player's rematch offer: the new fixture starts at once, seats
    swapped. Locks the original match and its seats, so it starts once; accepting again
    answers with the same rematch."""

    def decide(
        match: Match, seats: list[Seat], offer: RematchOffer | None, now: datetime
    ) -> RematchState:
        if offer is None:
            raise RematchUnavailable(NONE_OFFERED)
        if offer.status == RematchOffer.Status.DECLINED:
            raise RematchUnavailable(DECLINED)
        if offer.status == RematchOffer.Status.ACCEPTED:
            return RematchState(offer, offer.rematch)
        if offer.offered_by_id == member.pk:
            raise RematchUnavailable(OWN_OFFER)
        return _start_rematch(match, seats, offer, now)

    return _decide(match_id=match_id, member=member, decide=decide, now=now)


def rematch_decline(*, match_id: int, member: Any, now: datetime | None = None) -> RematchState:
    """Decline the rematch offered on a match (either player: the one offered it, or the one
    who offered, calling it off). Final: no other offer on that match. Locks the original
    match and its seats; declining again changes nothing."""

    def decide(
        match: Match, seats: list[Seat], offer: RematchOffer | None, now: datetime
    ) -> RematchState:
        if offer is None:
            raise RematchUnavailable(NONE_OFFERED)
        if offer.status == RematchOffer.Status.ACCEPTED:
            raise RematchUnavailable(ALREADY_REMATCHED)
        if offer.status == RematchOffer.Status.OFFERED:
            offer.status = RematchOffer.Status.DECLINED
            offer.decided_at = now
            offer.save(update_fields=["status", "decided_at"])
            _tell_players(match, seats, offer)
        return RematchState(offer)

    return _decide(match_id=match_id, member=member, decide=decide, now=now)
