r"""What a Swiss, a league or a knockout keeps beside the core's
:class:`matches.models.Tournament`.

A Swiss: its format and settings (:class:`Swiss`, one-to-one), each round as paired
(:class:`SwissRound`, with its Gibson, and whether the organiser forced it) and each bye
with its score (:class:`SwissBye`, counted by the standings). A league (:class:`League`):
its :class:`LeagueSeason`\ s, each season's :class:`Division`\ s, each tied to the
round-robin tournament that is its fixtures, and the members withdrawn after a season
(:class:`LeagueLeaver`). A knockout: its settings (:class:`Knockout`, one-to-one), its
bracket's ties (:class:`KnockoutTie`) and the games played in each (:class:`KnockoutGame`).
A director's choices for any tournament (:class:`TournamentOptions`: tie-breaks, move
time) and each player withdrawn (:class:`Withdrawal`). The fixtures themselves are the
core's matches, made through ``create_match``; nothing here changes the core's tables."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models

from matches.models import Match, Tournament


class FixtureRules(models.Model):
    """What every fixture a format makes is played under, set once on the format: the
    ruleset and lexicon, who may watch, the no-show window, and the table's challenge rule,
    challenge window and finish line (``create_match``'s, docs/RULES.md section 18)."""

    ruleset = models.CharField(max_length=40, default="word-duel")
    lexicon = models.CharField(max_length=40, default="enable")
    visibility = models.CharField(
        max_length=10, choices=Match.Visibility.choices, default=Match.Visibility.PUBLIC
    )
    no_show_window = models.DurationField(null=True, blank=True)
    #: The engine's ``CHALLENGE_RULES``: ``void`` refuses a phony outright.
    challenge_rule = models.CharField(max_length=10, default="void")
    #: How long a play stays open to a challenge; None: until the next move's deadline.
    challenge_window = models.DurationField(null=True, blank=True)
    #: Finish Line: the score that ends a game (None: off).
    finish_line = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        abstract = True


class Swiss(FixtureRules):
    """A tournament paired round by round from its standings (docs/RULES.md section 3); a
    Swiss of tables seats each round's players at tables of up to ``seat_count``."""

    class TablePoints(models.TextChoices):
        PLACES = "places", "By place: N-1 for first ... 0 for last, ties sharing the average"
        WINS = "wins", "First place only: 1, shared equally on a tie"

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="swiss"
    )
    rounds = models.PositiveSmallIntegerField()
    #: Round N kicks off at first_kickoff + (N - 1) * interval, or when paired if later.
    first_kickoff = models.DateTimeField()
    interval = models.DurationField()
    #: What a bye scores: the club's usual is a win (1 point) with +50 spread.
    bye_points = models.DecimalField(max_digits=2, decimal_places=1, default=1)
    bye_spread = models.IntegerField(default=50)
    #: How many places win a prize: a Gibsonized leader meets a player out of them.
    prize_places = models.PositiveSmallIntegerField(default=3)
    gibsonization = models.BooleanField(default=True)
    #: Each round paired as soon as the one before is complete (round 1 when created);
    #: the organiser may still pair a round early, by hand.
    pair_automatically = models.BooleanField(default=False)
    #: The most players a game seats: 2 (duels), or 3-4 where the ruleset seats them, then
    #: each round is paired into tables (:mod:`tournaments.swiss_tables`).
    seat_count = models.PositiveSmallIntegerField(default=2)
    #: What a table game scores in the standings (a duel scores 1, ½, 0 under either).
    table_points = models.CharField(
        max_length=8, choices=TablePoints.choices, default=TablePoints.PLACES
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seat_count__gte=2, seat_count__lte=4),
                name="swiss_two_to_four_seats",
            ),
        ]

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
    #: None: paired automatically, when the round before was complete.
    paired_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
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


# ---------------------------------------------------------------- leagues


class League(FixtureRules):
    """Seasons of divisions, each a round robin, with promotion and relegation between
    them (docs/RULES.md section 3, "Leagues"; the rules are :mod:`tournaments.league`)."""

    name = models.CharField(max_length=120)
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_leagues"
    )
    division_size = models.PositiveSmallIntegerField()
    #: N: how many go up from each division but the top, and down from each but the bottom.
    movers = models.PositiveSmallIntegerField()
    #: Between one round of a division's round robin and the next.
    interval = models.DurationField()
    #: Each pair meets twice, seats swapped (home and away), rather than once.
    double = models.BooleanField(default=False)
    rated = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class LeagueSeason(models.Model):
    """One season: its number, when its first round kicks off, and when it was closed (its
    final standings then recorded on each division)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    start = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    #: Closed while games were unfinished: they play on, but no longer count for the league.
    forced = models.BooleanField(default=False)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="league_season_once"),
        ]

    def __str__(self) -> str:
        return f"{self.league} · Season {self.number}"


class Division(models.Model):
    """A season's division (rank 1 is the top): its round robin is an ordinary tournament,
    so standings, pages, notices, deadlines and ratings work as for any other."""

    season = models.ForeignKey(LeagueSeason, on_delete=models.CASCADE, related_name="divisions")
    rank = models.PositiveSmallIntegerField()
    tournament = models.OneToOneField(
        Tournament, on_delete=models.PROTECT, related_name="league_division"
    )
    #: Member ids in the order of the table when the season was closed (None while open).
    final_standings = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["rank"]
        constraints = [
            models.UniqueConstraint(fields=["season", "rank"], name="league_division_once"),
        ]

    def __str__(self) -> str:
        return f"{self.season} · Division {self.rank}"


class LeagueLeaver(models.Model):
    """A member withdrawn from a league after a season: they are not in the next one.
    Their results of that season stand."""

    season = models.ForeignKey(LeagueSeason, on_delete=models.CASCADE, related_name="leavers")
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="league_leavings"
    )
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    withdrawn_at = models.DateTimeField()
    reason = models.CharField(max_length=500)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["season", "member"], name="league_leave_once"),
        ]

    def __str__(self) -> str:
        return f"{self.member} leaves {self.season.league} after season {self.season.number}"


# ---------------------------------------------------------------- knockouts


class Knockout(FixtureRules):
    """A tournament played as a seeded bracket of best-of-N ties (docs/RULES.md section 3,
    "Knockout"; the bracket is the pure :mod:`tournaments.knockout`)."""

    class Seeding(models.TextChoices):
        RATING = "rating", "By rating"
        ORDER = "order", "In the organiser's order"

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, primary_key=True, related_name="knockout"
    )
    best_of = models.PositiveSmallIntegerField(default=1)
    seeding = models.CharField(max_length=8, choices=Seeding.choices, default=Seeding.RATING)
    #: Slots in the bracket (a power of two) and its rounds (the last is the final).
    size = models.PositiveSmallIntegerField()
    rounds = models.PositiveSmallIntegerField()
    #: Round 1's first games kick off here; each later game ``interval`` after the one
    #: before it in the tie (or the round's last kick-off), or when it is made if later.
    first_kickoff = models.DateTimeField()
    interval = models.DurationField()
    #: The round whose games are being played (the rounds after it wait for its winners).
    current_round = models.PositiveSmallIntegerField(default=1)

    def __str__(self) -> str:
        return f"Knockout: {self.tournament}"


class KnockoutTie(models.Model):
    """One tie of the bracket: its round and slot, the two drawn in it with their seeds
    (a member None: a bye in round 1, or a winner not yet known), and its winner."""

    knockout = models.ForeignKey(Knockout, on_delete=models.CASCADE, related_name="ties")
    round = models.PositiveSmallIntegerField()
    slot = models.PositiveSmallIntegerField()
    top = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    top_seed = models.PositiveSmallIntegerField(null=True, blank=True)
    bottom = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    bottom_seed = models.PositiveSmallIntegerField(null=True, blank=True)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    #: Decided without its games: the other player was no longer a club member.
    walkover = models.BooleanField(default=False)

    class Meta:
        ordering = ["round", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["knockout", "round", "slot"], name="knockout_tie_once"),
        ]

    def __str__(self) -> str:
        return f"{self.knockout.tournament} · Round {self.round} · Tie {self.slot + 1}"


class KnockoutGame(models.Model):
    """A match played in a tie: its number in the tie (from 1). A game that ended with no
    result (cancelled, voided, both absent) stays linked and is replayed under the next
    number."""

    tie = models.ForeignKey(KnockoutTie, on_delete=models.CASCADE, related_name="games")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="knockout_game")
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tie", "number"], name="knockout_game_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tie} · Game {self.number}"


# ---------------------------------------------------------------- a director's choices


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
