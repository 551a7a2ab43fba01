"""The organiser's form for a new knockout: parses and gives field errors; the service
(``tournaments.services.create_knockout``) still checks everything that matters."""

from __future__ import annotations

from datetime import timedelta
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
from tournaments.models import Knockout
from tournaments.services.knockout import MAX_BEST_OF

BEST_OF_CHOICES = [
    (str(n), f"Best of {n}" if n > 1 else "One game") for n in range(1, MAX_BEST_OF + 1, 2)
]


class KnockoutForm(FirstKickoffMixin):
    """Create a knockout: players (in seed order, if seeded by hand), the seeding, games a
    tie, the first kick-off and the interval between a tie's games."""

    name = forms.CharField(max_length=120)
    players = forms.CharField(
        label="Players",
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Usernames, one per line or separated by commas; the top seed first if "
        "you seed them in this order.",
    )
    seeding = forms.ChoiceField(
        choices=Knockout.Seeding.choices,
        initial=Knockout.Seeding.RATING,
        help_text="Top seeds get the byes and meet each other last.",
    )
    best_of = forms.TypedChoiceField(
        label="Games a tie",
        choices=BEST_OF_CHOICES,
        coerce=int,
        initial="1",
        help_text="A tie is won by the first to a majority (a drawn game is half each).",
    )
    first_kickoff = forms.DateTimeField(
        label="First kick-off",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript). Round 1's first games.",
    )
    interval_hours = hours_between(
        label="Hours between games",
        help_text="A tie's next game kicks off this long after its last (or when it is "
        "made, if later); a round's first games this long after the round before's last.",
    )
    ruleset = ruleset_field()
    visibility = visibility_field()
    rated = rated_field()
    challenge_rule = challenge_rule_field()
    challenge_window_hours = challenge_window_field()
    finish_line = finish_line_field()

    def clean_players(self) -> list[Member]:
        return entrants(self.cleaned_data["players"], at_least="A knockout needs")

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournaments.services.create_knockout``."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "players": data["players"],
            "seeding": data["seeding"],
            "best_of": data["best_of"],
            "first_kickoff": data["first_kickoff"],
            "interval": timedelta(hours=float(data["interval_hours"])),
            "ruleset": data["ruleset"],
            "visibility_": data["visibility"],
            "rated": data["rated"],
            **table_kwargs(data),
        }
