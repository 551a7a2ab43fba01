"""What a Swiss tournament keeps beside the core's :class:`matches.models.Tournament`: its
format and settings (:class:`Swiss`, one-to-one), each round as paired (:class:`SwissRound`,
with its Gibson, and whether the organiser forced it) and each bye with its score
(:class:`SwissBye`, counted by the standings); a director's choices (:class:`TournamentOptions`:
tie-breaks, move time) and each player withdrawn (:class:`Withdrawal`). The fixtures
themselves are the core's matches, made through ``create_match``; nothing here changes the
core's tables."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models

from matches.models import Match, Tournament


class Swiss(models.Model):
    """A tournament paired round by round from its standings (docs/RULES.md section 3)."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="swiss"
    )
    rounds = models.PositiveSmallIntegerField()
    #: Round N kicks off at first_kickoff + (N - 1) * interval, or when paired if later.
    first_kickoff = models.DateTimeField()
    interval = models.DurationField()
    ruleset = models.CharField(max_length=40, default="word-duel")
    lexicon = models.CharField(max_length=40, default="enable")
    visibility = models.CharField(
        max_length=10, choices=Match.Visibility.choices, default=Match.Visibility.PUBLIC
    )
    no_show_window = models.DurationField(null=True, blank=True)
    #: What a bye scores: the club's usual is a win (1 point) with +50 spread.
    bye_points = models.DecimalField(max_digits=2, decimal_places=1, default=1)
    bye_spread = models.IntegerField(default=50)
    #: How many places win a prize: a Gibsonized leader meets a player out of them.
    prize_places = models.PositiveSmallIntegerField(default=3)
    gibsonization = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"Swiss: {self.tournament}"

    @property
    def paired_rounds(self) -> int:
        return self.round_set.count()


class SwissRound(models.Model):
    """One round as paired: when, by whom, its Gibson, and whether it was forced before
    the round before it was complete."""

    swiss = models.ForeignKey(Swiss, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    paired_at = models.DateTimeField()
    paired_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    gibson = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    forced = models.BooleanField(default=False)
    #: The earlier rounds' games still unfinished when a forced round was paired.
    unfinished = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["swiss", "number"], name="swiss_round_once"),
        ]

    def __str__(self) -> str:
        return f"{self.swiss.tournament} · Round {self.number}"


class SwissBye(models.Model):
    """A player's bye in one round, with the score it counts for in the standings."""

    swiss = models.ForeignKey(Swiss, on_delete=models.CASCADE, related_name="byes")
    round_number = models.PositiveSmallIntegerField()
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="swiss_byes"
    )
    points = models.DecimalField(max_digits=2, decimal_places=1)
    spread = models.IntegerField()

    class Meta:
        ordering = ["round_number"]
        constraints = [
            models.UniqueConstraint(fields=["swiss", "round_number"], name="swiss_one_bye_a_round"),
        ]

    def __str__(self) -> str:
        return f"{self.member} · bye in round {self.round_number}"


def default_tie_breaks() -> list[str]:
    """Spread, then head-to-head: the table's order before organisers could choose."""
    return ["spread", "head_to_head"]


class TournamentOptions(models.Model):
    """A director's choices for one tournament (docs/RULES.md section 12 and section 3):
    the order of its tie-breaks (keys of :data:`tournaments.standings.TIE_BREAKS`) and the
    time each move of its fixtures may take (none: the club's ``FORFEIT_AFTER``)."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="options"
    )
    tie_breaks = models.JSONField(default=default_tie_breaks)
    turn_time = models.DurationField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Options: {self.tournament}"


def turn_time_of(tournament: Tournament) -> timedelta | None:
    """The move time a tournament's new fixtures take (None: the club's usual)."""
    options = TournamentOptions.objects.filter(tournament=tournament).first()
    return options.turn_time if options is not None else None


class Withdrawal(models.Model):
    """A player withdrawn from a tournament in progress, and which rule settled their
    unplayed fixtures: ``removed`` (they had played under half their games: those fixtures
    are cancelled and count for nobody) or ``forfeited`` (each is a win for the opponent)."""

    class Rule(models.TextChoices):
        REMOVED = "removed", "Unplayed fixtures removed"
        FORFEITED = "forfeited", "Unplayed fixtures forfeited to the opponents"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="withdrawals")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="withdrawals"
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=500)
    rule = models.CharField(max_length=10, choices=Rule.choices)
    #: Their games finished and in all when withdrawn (what decided the rule).
    played = models.PositiveSmallIntegerField()
    games = models.PositiveSmallIntegerField()
    withdrawn_at = models.DateTimeField()

    class Meta:
        ordering = ["withdrawn_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "member"], name="withdrawn_once"),
        ]

    def __str__(self) -> str:
        return f"{self.member} withdrawn from {self.tournament}"
