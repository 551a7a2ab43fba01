"""The organiser's form for a new Swiss: parses and gives field errors; the service
(``tournaments.services.create_swiss``) still checks everything that matters."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django import forms

from accounts.models import Member
from tournaments.forms import (
    DATETIME_LOCAL_FORMATS,
    DateTimeLocalInput,
    FirstKickoffMixin,
    challenge_rule_field,
    challenge_window_field,
    entrants,
    finish_line_field,
    hours_between,
    rated_field,
    ruleset_field,
    table_kwargs,
    visibility_field,
)
from tournaments.models import Swiss
from tournaments.services.swiss import MAX_BYE_SPREAD, MAX_ROUNDS

BYE_CHOICES = [("1", "A win"), ("0.5", "A draw"), ("0", "A loss")]
SEAT_CHOICES = [
    ("2", "2: duels"),
    ("3", "Up to 3: tables of 3 (the classic ruleset)"),
    ("4", "Up to 4: tables of 4 and 3 (the classic ruleset)"),
]


class SwissForm(FirstKickoffMixin):
    """Create a Swiss: players, rounds, the first kick-off and the interval, the bye's
    score, the prize places (for Gibsonization); the table (seats, challenges, Finish Line)
    and what a table game scores."""

    name = forms.CharField(max_length=120)
    players = forms.CharField(
        label="Players",
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Usernames, one per line or separated by commas.",
    )
    rounds = forms.IntegerField(min_value=1, max_value=MAX_ROUNDS, initial=5)
    first_kickoff = forms.DateTimeField(
        label="First kick-off",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript). A round paired later kicks "
        "off when it is paired.",
    )
    interval_hours = hours_between()
    ruleset = ruleset_field()
    visibility = visibility_field()
    rated = rated_field()
    bye_points = forms.ChoiceField(label="A bye scores", choices=BYE_CHOICES, initial="1")
    bye_spread = forms.IntegerField(
        label="A bye's spread",
        min_value=-MAX_BYE_SPREAD,
        max_value=MAX_BYE_SPREAD,
        initial=50,
    )
    prize_places = forms.IntegerField(
        label="Prize places",
        min_value=1,
        max_value=100,
        initial=3,
        help_text="A leader who cannot be caught meets a player out of these places.",
    )
    gibsonization = forms.BooleanField(
        required=False,
        initial=True,
        help_text="Pair a leader certain of first place away from the contenders (as tsh).",
    )
    pair_automatically = forms.BooleanField(
        label="Pair rounds automatically",
        required=False,
        initial=True,
        help_text=(
            "Round 1 now, and each later round as soon as the one before is complete; you "
            "can still pair a round early from the tournament's page."
        ),
    )

    seat_count = forms.TypedChoiceField(
        label="Players a game",
        choices=SEAT_CHOICES,
        coerce=int,
        required=False,
        empty_value=None,
        initial="2",
        help_text="More than 2: each round seats everyone at tables, grouped by the standings "
        "(no byes, no Gibsonization).",
    )
    table_points = forms.ChoiceField(
        label="A table game scores",
        choices=Swiss.TablePoints.choices,
        required=False,
        initial=Swiss.TablePoints.PLACES,
        help_text="By place is the same as a point for each player placed below you and a "
        "half for each tie. A duel scores a win 1, a draw ½ either way.",
    )
    challenge_rule = challenge_rule_field()
    challenge_window_hours = challenge_window_field()
    finish_line = finish_line_field()

    def clean_players(self) -> list[Member]:
        return entrants(self.cleaned_data["players"], at_least="A Swiss needs")

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournaments.services.create_swiss``."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "players": data["players"],
            "rounds": data["rounds"],
            "first_kickoff": data["first_kickoff"],
            "interval": timedelta(hours=float(data["interval_hours"])),
            "ruleset": data["ruleset"],
            "visibility_": data["visibility"],
            "rated": data["rated"],
            "bye_points": Decimal(data["bye_points"]),
            "bye_spread": data["bye_spread"],
            "prize_places": data["prize_places"],
            "gibsonization": data["gibsonization"],
            "pair_automatically": data["pair_automatically"],
            "seat_count": data["seat_count"] or 2,
            "table_points": data["table_points"] or Swiss.TablePoints.PLACES,
            **table_kwargs(data),
        }
