"""The organiser's league forms: a new league, the next season, a member withdrawn. They
parse and give field errors; the services (``tournaments.services.league``) still check
everything that matters."""

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
    find_member,
    finish_line_field,
    hours_between,
    member_input,
    rated_field,
    ruleset_field,
    table_kwargs,
    visibility_field,
)
from tournaments.league import MAX_DIVISION_SIZE

ONCE, TWICE = "once", "twice"


def _first_kickoff() -> forms.DateTimeField:
    return forms.DateTimeField(
        label="First kick-off",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript). Every division's first round.",
    )


class LeagueForm(FirstKickoffMixin):
    """Create a league and its first season: the players in order (best first) or by
    rating, the division size, how many go up and down, each division's round robin."""

    name = forms.CharField(max_length=120)
    players = forms.CharField(
        label="Players",
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Usernames, best first, one per line or separated by commas: the first "
        "season's divisions are cut from the top of this list.",
    )
    seed_by_rating = forms.BooleanField(
        label="Order by rating",
        required=False,
        initial=False,
        help_text="Place the players by their rating (highest first) instead of your order.",
    )
    division_size = forms.IntegerField(
        label="Players a division", min_value=2, max_value=MAX_DIVISION_SIZE, initial=8
    )
    movers = forms.IntegerField(
        label="Promoted and relegated",
        min_value=1,
        max_value=MAX_DIVISION_SIZE // 2,
        initial=2,
        help_text="How many go up from each division but the top, and down from each but "
        "the bottom (at most half a division).",
    )
    first_kickoff = _first_kickoff()
    interval_hours = hours_between()
    meetings = forms.ChoiceField(
        label="Each pair meets",
        choices=[(ONCE, "Once"), (TWICE, "Twice, home and away (seats swapped)")],
        initial=ONCE,
        widget=forms.RadioSelect,
    )
    ruleset = ruleset_field()
    visibility = visibility_field()
    rated = rated_field()
    challenge_rule = challenge_rule_field()
    challenge_window_hours = challenge_window_field()
    finish_line = finish_line_field()

    def clean_players(self) -> list[Member]:
        return entrants(self.cleaned_data["players"], at_least="A league needs")

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournaments.services.create_league``."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "players": data["players"],
            "seed_by_rating": data["seed_by_rating"],
            "division_size": data["division_size"],
            "movers": data["movers"],
            "start": data["first_kickoff"],
            "interval": timedelta(hours=float(data["interval_hours"])),
            "double": data["meetings"] == TWICE,
            "ruleset": data["ruleset"],
            "visibility_": data["visibility"],
            "rated": data["rated"],
            **table_kwargs(data),
        }


class NextSeasonForm(FirstKickoffMixin):
    """Close the season (if it is not) and start the next: its kick-off, new entrants."""

    first_kickoff = _first_kickoff()
    entrants = forms.CharField(
        label="New entrants",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Usernames, one per line or separated by commas. They start in the "
        "bottom division (highest-rated first), or in new divisions below it.",
    )
    force = forms.BooleanField(
        required=False,
        label="Close the season even though games are unfinished (the table as it is now "
        "is final; those games are played on but no longer count for the league)",
    )

    def clean_entrants(self) -> list[Member]:
        return entrants(self.cleaned_data.get("entrants", ""), at_least=None)

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournaments.services.start_next_season``."""
        data = self.cleaned_data
        return {
            "start": data["first_kickoff"],
            "entrants": data["entrants"],
            "force": data["force"],
        }


class LeagueWithdrawForm(forms.Form):
    """Withdraw a member from the league after this season."""

    member = forms.CharField(label="Member (username)", max_length=150, widget=member_input())
    reason = forms.CharField(max_length=500, help_text="Kept with the league's record.")

    def clean_member(self) -> Member:
        username = self.cleaned_data["member"]
        member = find_member(username)
        if member is None:
            raise forms.ValidationError(f"There is no member called {username!r}.")
        return member
