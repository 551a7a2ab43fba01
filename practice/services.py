"""Practice matches: a member against the computer, started at once, its level changeable.

Services in the manner of ``matches.services``: one transaction each, the match row locked
where a match changes, news only after the commit. The match is an ordinary fixture (the same
board, commits, events and receipts), members-only and unrated, the member First and the
computer Second; or, at a classic practice table of 3-4, the member First and one to three
computers in the seats after (any seat left is free for another member), under the challenge
rule the member chose. ``ComputerOpponent`` says how each computer plays.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from accounts.models import Member
from engine import CHALLENGE_RULES
from engine.computer import get_level
from lexicon.difficulty import HARDEST, check_cap
from matches.models import Match, Seat
from matches.news import publish_on_commit
from matches.services import create_match
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.errors import MatchMissing
from matches.services.lifecycle import after_seating
from matches.visibility.access import is_club_member
from practice.models import ComputerOpponent

#: The computer's account: it holds the seat, so its moves go through the same commit service
#: as anyone's. It cannot sign in (inactive, no usable password).
COMPUTER_USERNAME = "wordduel-computer"
#: A table's further computers each hold a seat of their own (a member sits once per match).
COMPUTER_USERNAMES = (COMPUTER_USERNAME, f"{COMPUTER_USERNAME}-2", f"{COMPUTER_USERNAME}-3")
#: The ruleset of a practice table of 3-4 (Word Duel stays a duel).
TABLE_RULESET = "classic"
TABLE_SEATS = (3, 4)
#: The rulesets of a practice duel: Word Duel, and Reword (swaps and steals from the board;
#: the computer makes them at Normal and Hard, mostly plain plays at Easy).
DUEL_RULESETS = ("word-duel", "reword")

MEMBERS_PRACTISE = (
    "Only approved club members can play the computer (a sign-up waits for an organiser's"
    " approval first)."
)


def unfinished_practice_message(limit: int) -> str:
    """The refusal of one practice match too many (``PRACTICE_MAX_UNFINISHED``)."""
    return (
        f"You have {limit} practice matches unfinished, as many as a member may: finish or "
        "resign one to start another."
    )


class PracticeRefused(Exception):
    """A practice request that cannot be done; the message is for people."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def computer_member(number: int = 1) -> Member:
    """The computer's account (the ``number``-th of a table's computers), made on first use."""
    member, created = Member.objects.get_or_create(
        username=COMPUTER_USERNAMES[number - 1], defaults={"is_active": False}
    )
    if created:
        member.set_unusable_password()
        member.save(update_fields=["password"])
    elif member.is_active or member.has_usable_password():
        raise PracticeRefused("The computer's account name belongs to a member.")
    return member


def is_computer(member: object) -> bool:
    """Whether ``member`` is the computer's account."""
    return isinstance(member, Member) and member.username in COMPUTER_USERNAMES


def checked_level(level: str) -> str:
    try:
        return get_level(level).name
    except ValueError as error:
        raise PracticeRefused(str(error)) from None


def start_practice(
    *,
    member: Member,
    level: str = "normal",
    vocabulary_cap: int = HARDEST,
    seats: int = 2,
    computers: int = 1,
    challenge_rule: str = "void",
    ruleset: str = "word-duel",
) -> Match:
    """A live match of ``member`` (First) against the computer (Second), no kick-off, under
    ``ruleset`` (one of ``DUEL_RULESETS``); or,
    with ``seats`` 3 or 4, a classic table with ``computers`` (1 to seats - 1) in the seats
    after the member's under ``challenge_rule`` (live once any free seat is taken).

    Locks the member's row, so that two requests at once count the member's unfinished
    practice matches one after the other: at most ``PRACTICE_MAX_UNFINISHED`` at a time."""
    if not getattr(member, "is_authenticated", False) or not member.is_active:
        raise PracticeRefused("Sign in to play the computer.")
    if is_computer(member):
        raise PracticeRefused("The computer does not practise against itself.")
    if not is_club_member(member):  # its match is members-only: they could not open it
        raise PracticeRefused(MEMBERS_PRACTISE)
    chosen = checked_level(level)
    try:
        cap = check_cap(vocabulary_cap)
    except ValueError as error:
        raise PracticeRefused(str(error)) from None
    _check_table(seats=seats, computers=computers, challenge_rule=challenge_rule)
    if ruleset not in DUEL_RULESETS or (seats != 2 and ruleset != DUEL_RULESETS[0]):
        raise PracticeRefused(
            "A practice duel is Word Duel or Reword; a practice table is a classic table."
        )
    accounts = [computer_member(number) for number in range(1, computers + 1)]
    with transaction.atomic():
        Member.objects.select_for_update().filter(pk=member.pk).values_list("pk").first()
        limit = settings.PRACTICE_MAX_UNFINISHED
        if unfinished_practice(member) >= limit:
            raise PracticeRefused(unfinished_practice_message(limit))
        if seats == 2:
            return open_practice_match(
                player=member, computer=accounts[0], level=chosen, cap=cap, ruleset=ruleset
            )
        return _open_practice_table(
            player=member,
            computers=accounts,
            seats=seats,
            level=chosen,
            cap=cap,
            challenge_rule=challenge_rule,
        )


def _check_table(*, seats: int, computers: int, challenge_rule: str) -> None:
    """A duel (one computer, no challenges: Word Duel's) or a table of 3-4 with one computer
    or more and a seat for the member; the rule one of the engine's."""
    if seats == 2:
        if computers != 1 or challenge_rule != "void":
            raise PracticeRefused("A practice duel is against one computer, without challenges.")
        return
    if seats not in TABLE_SEATS:
        raise PracticeRefused("A practice table seats 3 or 4 players.")
    if not 1 <= computers <= seats - 1:
        raise PracticeRefused(f"A table of {seats} takes one to {seats - 1} computers.")
    if challenge_rule not in CHALLENGE_RULES:
        raise PracticeRefused(f"No challenge rule is called {challenge_rule!r}.")


def _open_practice_table(
    *,
    player: Member,
    computers: list[Member],
    seats: int,
    level: str,
    cap: int,
    challenge_rule: str,
) -> Match:
    """A classic table inside the caller's transaction: ``player`` First, ``computers`` in
    the seats after, the rest free; members-only and unrated; live at once when full."""
    match = create_match(
        name="Practice table",
        organiser=player,
        kickoff_at=None,
        ruleset=TABLE_RULESET,
        lexicon="enable",
        visibility_=Match.Visibility.MEMBERS,
        no_show_window=None,
        rated=False,
        seat_count=seats,
        challenge_rule=challenge_rule,
    )
    now = _now()
    rows = locked_seats(match)
    for position, member in enumerate([player, *computers]):
        if position:
            ComputerOpponent.objects.create(
                match=match, position=position, level=level, vocabulary_cap=cap
            )
        rows[position].member = member
        rows[position].seated_at = now
        rows[position].save(update_fields=["member", "seated_at"])
    publish_on_commit(after_seating(match, rows, now=now))
    return match


def open_practice_match(
    *, player: Member, computer: Member, level: str, cap: int, ruleset: str = "word-duel"
) -> Match:
    """The practice match itself, inside the caller's transaction (which has checked who
    may start one and the ``ruleset``): ``player`` First, the computer Second, live at
    once, members-only and unrated; its opening news after the commit."""
    match = create_match(
        name="Practice",  # the title adds who sits (matches.visibility.titles)
        organiser=player,
        kickoff_at=None,
        ruleset=ruleset,
        lexicon="enable",
        visibility_=Match.Visibility.MEMBERS,
        no_show_window=None,
        rated=False,
    )
    ComputerOpponent.objects.create(match=match, position=1, level=level, vocabulary_cap=cap)
    now = _now()
    seats = locked_seats(match)
    for seat, member in zip(seats, (player, computer), strict=True):
        seat.member = member
        seat.seated_at = now
        seat.save(update_fields=["member", "seated_at"])
    publish_on_commit(after_seating(match, seats, now=now))
    return match


def unfinished_practice(member: Member) -> int:
    """How many practice matches the member started (against the computer, organised by
    the member: a fixture an organiser gave the computer a seat in is not one) not over."""
    return (
        Match.objects.filter(
            created_by=member,
            computers__isnull=False,
            status__in=[Match.Status.SCHEDULED, Match.Status.LIVE],
        )
        .distinct()
        .count()
    )


def set_level(*, match_id: int, member: Member, level: str) -> ComputerOpponent:
    """The computer's level from its next move on (every computer's, at a table); only a
    member it plays may change it, while the match is not over."""
    chosen = checked_level(level)
    with transaction.atomic():
        try:
            match = locked_match(match_id)
        except MatchMissing:
            raise PracticeRefused("There is no such match.") from None
        opponents = list(ComputerOpponent.objects.filter(match=match).order_by("position"))
        if not opponents:
            raise PracticeRefused("This match is not against the computer.")
        plays_it = (
            Seat.objects.filter(match=match, member_id=member.pk)
            .exclude(position__in=[opponent.position for opponent in opponents])
            .exists()
        )
        if not plays_it:
            raise PracticeRefused("Only the member the computer plays may change its level.")
        if match.is_over:
            raise PracticeRefused("The match is over.")
        ComputerOpponent.objects.filter(match=match).update(level=chosen)
    opponents[0].level = chosen
    return opponents[0]


def seat_computer(*, match_id: int, organiser: Member, position: int, level: str) -> Match:
    """An organiser fills an empty seat of a scheduled, unrated fixture with the computer (a
    bye filler). A full fixture opens as with any seating; if the computer is then to move,
    its move is queued after the commit (and beat's sweep makes any it misses)."""
    if not (getattr(organiser, "is_authenticated", False) and organiser.is_organiser):
        raise PracticeRefused("Only organisers can seat the computer.")
    chosen = checked_level(level)
    if position not in (0, 1):
        raise PracticeRefused("Choose First or Second.")
    computer = computer_member()
    with transaction.atomic():
        try:
            match = locked_match(match_id)
        except MatchMissing:
            raise PracticeRefused("There is no such match.") from None
        if match.status != Match.Status.SCHEDULED:
            raise PracticeRefused("The computer can only fill a seat before the match begins.")
        if match.rated:
            raise PracticeRefused("The computer cannot play a rated match.")
        seats = locked_seats(match)
        seat = seats[position]
        if seat.member_id is not None:
            raise PracticeRefused("That seat is taken.")
        if any(other.member_id == computer.pk for other in seats):
            raise PracticeRefused("The computer already sits in this match.")
        ComputerOpponent.objects.create(match=match, position=position, level=chosen)
        now = _now()
        seat.member = computer
        seat.seated_at = now
        seat.save(update_fields=["member", "seated_at"])
        events = after_seating(match, seats, now=now)
        publish_on_commit(events)
    return match
