"""Tournaments, fixtures (Match), seats with their hidden racks, and the move log (Turn).

The ``Turn`` rows are the log; a match's current position is kept once beside it, each part
in one place (matches/stored_game.py): the racks and scores on the seats, the turn number and
whose move on the match, and the board, the bag and the draw stream's counter in
``Match.game_state``. None of the hidden fields ever leaves the server except through
``matches.visibility``.
"""

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q


def new_viewing_key() -> str:
    """256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def new_bag_seed() -> str:
    """The secret 256-bit seed of a fixture's bag, as hex."""
    return secrets.token_hex(32)


def default_no_show_window() -> timedelta:
    return settings.NO_SHOW_WINDOW


class Visibility(models.TextChoices):
    """Who may watch: anyone, or the club's members only (a viewing key opens one match)."""

    PUBLIC = "public", "Public"
    MEMBERS = "members", "Members only"


class Tournament(models.Model):
    name = models.CharField(max_length=120)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_tournaments"
    )
    players = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="tournaments")
    # Decided when the tournament is created; its fixtures are rated alike (ratings app).
    rated = models.BooleanField(default=False)
    #: Who may see it: a members-only format's tournament is hidden from visitors from its
    #: creation, before it has a fixture to say so (matches.visibility.can_view_tournament).
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class Match(models.Model):
    """A scheduled fixture: its seats (two, or three to four at a classic table), a name,
    usually a kick-off time."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        LIVE = "live", "Live"
        FINISHED = "finished", "Finished"
        ABANDONED = "abandoned", "Abandoned"

    Visibility = Visibility

    class Result(models.TextChoices):
        NONE = "", "No result"
        FIRST = "first", "First won"
        SECOND = "second", "Second won"
        DRAW = "draw", "Draw"
        #: A table of 3-4: who won is each seat's ``place``.
        TABLE = "table", "Places at the table"

    class EndReason(models.TextChoices):
        NONE = "", "Not over"
        PLAYED_OUT = "played_out", "Played out"
        SIX_SCORELESS = "six_scoreless", "Six scoreless turns"
        FINISH_LINE = "finish_line", "Finish Line reached"
        FORFEIT = "forfeit", "Forfeit"
        NO_SHOW = "no_show", "No-show"
        ABANDONED = "abandoned", "Both seats empty"
        RESIGNED = "resigned", "Resignation"
        CANCELLED = "cancelled", "Cancelled by an organiser"
        ADJUDICATED = "adjudicated", "Adjudicated by an organiser"
        VOIDED = "voided", "Voided by an organiser"
        WITHDRAWN = "withdrawn", "Withdrawn by an organiser"

    name = models.CharField(max_length=120)
    tournament = models.ForeignKey(
        Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="matches"
    )
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="created_matches",
    )
    ruleset = models.CharField(max_length=20, default="word-duel")
    lexicon = models.CharField(max_length=40, default="enable")
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    viewing_key = models.CharField(max_length=64, default=new_viewing_key, editable=False)
    # Decided when the fixture is created: a rated match's result moves both players'
    # ratings (ratings app); friendlies and practice are unrated.
    rated = models.BooleanField(default=False)
    #: How many seats the table has: 2, or 3-4 where the ruleset seats them (engine
    #: ``Ruleset.seat_counts``). Fixed at creation: a seat row per position.
    seat_count = models.PositiveSmallIntegerField(default=2)
    #: The challenge rule (engine ``CHALLENGE_RULES``): ``void`` refuses a phony outright;
    #: the others let a play stand, open to a challenge, until the next move or the window.
    challenge_rule = models.CharField(max_length=10, default="void")
    #: How long a play stays open to a challenge; None: until the next move's deadline.
    challenge_window = models.DurationField(null=True, blank=True)
    #: Finish Line: the score that ends the game when a player reaches it (None: off).
    finish_line = models.PositiveSmallIntegerField(null=True, blank=True)

    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.SCHEDULED, db_index=True
    )
    result = models.CharField(max_length=6, choices=Result.choices, default="", blank=True)
    end_reason = models.CharField(max_length=14, choices=EndReason.choices, default="", blank=True)

    # The clock, as data (RULES.md "The clock"); each deadline is indexed for the sweeps.
    kickoff_at = models.DateTimeField(null=True, blank=True)
    no_show_window = models.DurationField(default=default_no_show_window)
    no_show_at = models.DateTimeField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    turn_deadline_at = models.DateTimeField(null=True, blank=True)
    #: The time each move may take (its tournament's, set by a director); None: the club's
    #: ``FORFEIT_AFTER``. Read with the row, so a move's deadline costs no query.
    turn_time = models.DurationField(null=True, blank=True)

    # Public progress: part of the position (matches/stored_game.py), and what listings and the
    # stale-turn check read. ``bag_count`` is derived, written beside the bag it counts.
    turn_number = models.PositiveIntegerField(default=0)
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    bag_count = models.PositiveSmallIntegerField(default=0)

    # Hidden state: never serialised except by visibility.py, never logged. The position's
    # parts without a column: the board, the bag, the draw counter (matches/stored_game.py).
    game_state = models.JSONField(null=True, blank=True, editable=False)
    bag_seed = models.CharField(max_length=64, default=new_bag_seed, editable=False)
    bag_commitment = models.CharField(max_length=64, editable=False, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    opened_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["kickoff_at", "id"]
        verbose_name_plural = "matches"
        indexes = [
            models.Index(
                fields=["kickoff_at", "id"],
                name="match_due_kickoff",
                condition=Q(status="scheduled"),
            ),
            models.Index(
                fields=["no_show_at", "id"],
                name="match_due_no_show",
                condition=Q(status="scheduled"),
            ),
            models.Index(
                fields=["turn_deadline_at", "id"],
                name="match_due_forfeit",
                condition=Q(status="live"),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(to_move__isnull=True) | Q(to_move__lt=models.F("seat_count")),
                name="match_to_move_a_seat",
            ),
            models.CheckConstraint(
                condition=Q(seat_count__gte=2, seat_count__lte=4), name="match_two_to_four_players"
            ),
            models.CheckConstraint(
                condition=Q(
                    challenge_rule__in=["void", "single", "double", "five_point", "ten_point"]
                ),
                name="match_known_challenge_rule",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.bag_commitment:
            self.bag_commitment = hashlib.sha256(bytes.fromhex(self.bag_seed)).hexdigest()
        super().save(*args, **kwargs)

    @property
    def is_over(self) -> bool:
        return self.status in {self.Status.FINISHED, self.Status.ABANDONED}

    @property
    def time_per_move(self) -> timedelta:
        """How long each move may take: the fixture's own time, or the club's."""
        return self.turn_time if self.turn_time is not None else settings.FORFEIT_AFTER


class Seat(models.Model):
    """One place at a match's table (0: First, 1: Second, 2: Third, 3: Fourth); holds the
    member and their hidden rack."""

    class Position(models.IntegerChoices):
        FIRST = 0, "First"
        SECOND = 1, "Second"
        THIRD = 2, "Third"
        FOURTH = 3, "Fourth"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(choices=Position.choices)
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="seats",
    )
    # Part of the match's position (matches/stored_game.py): this seat's tiles and score.
    rack = models.CharField(max_length=9, blank=True, editable=False)
    score = models.IntegerField(default=0)
    #: The seat's place once the match is over (1: won; tied seats share a place); None
    #: before the end and for a match that ended with no result.
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # The seat's contribution to the bag's randomness (hex), fixed before the deal.
    contribution = models.CharField(max_length=64, blank=True, editable=False)
    seated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="seat_one_per_position"),
            models.UniqueConstraint(
                fields=["match", "member"],
                condition=Q(member__isnull=False),
                name="seat_member_once_per_match",
            ),
            models.CheckConstraint(
                condition=Q(position__in=[0, 1, 2, 3]), name="seat_at_most_four_positions"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} · {self.get_position_display()}"


class Turn(models.Model):
    """One entry of the move log; ``rack_before``, ``drawn`` and ``swapped`` are the mover's secret
    until the match is over (then public: matches/visibility/record.py)."""

    class Kind(models.TextChoices):
        PLAY = "play", "Play"
        SWAP = "swap", "Swap"
        PASS = "pass", "Pass"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField()
    position = models.PositiveSmallIntegerField(choices=Seat.Position.choices)
    kind = models.CharField(max_length=4, choices=Kind.choices)
    # Public: the placed tiles with their squares (play) or the count (swap).
    placement = models.JSONField(default=list)
    swap_count = models.PositiveSmallIntegerField(default=0)
    words = models.JSONField(default=list)
    score = models.IntegerField(default=0)
    first_total = models.IntegerField()
    second_total = models.IntegerField()
    #: A table of 3-4: the other seats' totals (None at two seats).
    third_total = models.IntegerField(null=True, blank=True)
    fourth_total = models.IntegerField(null=True, blank=True)
    bag_count = models.PositiveSmallIntegerField()
    # Private to the mover.
    rack_before = models.CharField(max_length=9, editable=False)
    swapped = models.CharField(max_length=9, blank=True, editable=False)
    drawn = models.CharField(max_length=9, blank=True, editable=False)
    client_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField()
    #: Public: the challenge of this play once adjudicated (engine ``ChallengeResult``: who
    #: challenged, the phonies, the points it moved); None when it was not challenged. The
    #: totals above are then the totals after the challenge.
    challenge = models.JSONField(null=True, blank=True)
    #: Public: a turn lost to a wrong challenge under the double rule (a pass nobody made).
    #: False in the database too: a row written without it (the code before tables) was played.
    lost_turn = models.BooleanField(default=False, db_default=False)
    #: Public: Reword's swaps and steals before this play, in order, as ``schemas.TakeView``
    #: (the tile taken and, for a swap, the rack tile put down); empty for every other turn,
    #: in the database too: a row written without it (the code before Reword) took nothing.
    takes = models.JSONField(default=list, db_default=[], blank=True)
    # Public: SHA-256 of this turn's public record, which names the previous turn's hash (the
    # bag's commitment for turn 1): the tamper-evident chain of matches/chain.py.
    record_hash = models.CharField(max_length=64, editable=False)

    class Meta:
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="turn_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="turn_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.match} · turn {self.number}"

    @property
    def totals(self) -> tuple[int, ...]:
        """Every seat's total after this turn, in seat order."""
        extra = (t for t in (self.third_total, self.fourth_total) if t is not None)
        return (self.first_total, self.second_total, *extra)

    def set_totals(self, totals: tuple[int, ...]) -> None:
        """Write ``totals`` (2 to 4 seats) on the total columns."""
        self.first_total, self.second_total = totals[0], totals[1]
        self.third_total = totals[2] if len(totals) > 2 else None
        self.fourth_total = totals[3] if len(totals) > 3 else None


class CommitReceipt(models.Model):
    """The answer given to a client's request id (a move, a seat), so a retry answers the
    same and applies once."""

    class Kind(models.TextChoices):
        MOVE = "move", "Move"
        SEAT = "seat", "Seat"
        RESIGN = "resign", "Resignation"
        CHALLENGE = "challenge", "Challenge"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="receipts")
    kind = models.CharField(
        max_length=10, choices=Kind.choices, default=Kind.MOVE, db_default=Kind.MOVE
    )
    member = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    client_id = models.CharField(max_length=64)
    accepted = models.BooleanField()
    # The sender's own acknowledgement; holds their rack, so only ever returned to them.
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match", "member", "client_id"], name="receipt_once_per_client_id"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} · {self.client_id}"


class OrganiserAction(models.Model):
    """The audit trail of organisers' changes to fixtures: who, what, when and why.

    Written by the organiser services in the transaction that makes the change. Organisers
    see every entry; a ruling on a result (a cancellation, an adjudication, a void) is shown
    to everyone who may watch the match.
    """

    class Kind(models.TextChoices):
        RESCHEDULE = "reschedule", "Kick-off rescheduled"
        CANCEL = "cancel", "Fixture cancelled"
        ADJUDICATE = "adjudicate", "Result adjudicated"
        VOID = "void", "Match voided"
        SUBSTITUTE = "substitute", "Player substituted"
        POSTPONE = "postpone", "Round postponed"
        WITHDRAW = "withdraw", "Player withdrawn"

    #: The entries that decide a result, shown to every viewer of the match.
    RESULT_KINDS = frozenset({Kind.CANCEL, Kind.ADJUDICATE, Kind.VOID, Kind.WITHDRAW})

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="organiser_actions")
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    reason = models.CharField(max_length=500)
    # What changed, in plain values (the old and new kick-off, the result awarded).
    details = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["match", "created_at"], name="organiser_action_match")]

    def __str__(self) -> str:
        return f"{self.match} · {self.get_kind_display()}"
