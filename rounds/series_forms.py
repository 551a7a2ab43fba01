"""The organiser's forms for a Word Skill tournament: create it, enter a member, schedule a
session. Each checks its fields' shape; the services decide the rest (typed refusals)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms

from accounts.models import Member
from matches.models import Match
from rounds.models import MAX_ROUND_TIME, MAX_TURN_TIME, MIN_ROUND_TIME, MIN_TURN_TIME


def _seconds(value: timedelta) -> int:
    return int(value.total_seconds())


class SeriesForm(forms.Form):
    name = forms.CharField(max_length=120)
    players = forms.CharField(
        help_text="The entrants' usernames, separated by commas (two to eight)."
    )
    turn_time = forms.IntegerField(
        min_value=_seconds(MIN_TURN_TIME),
        max_value=_seconds(MAX_TURN_TIME),
        initial=180,
        help_text="Each player's own time for a round, in seconds.",
    )
    round_time = forms.IntegerField(
        min_value=_seconds(MIN_ROUND_TIME),
        max_value=_seconds(MAX_ROUND_TIME),
        initial=1800,
        help_text="How long a round stays open, in seconds.",
    )
    visibility = forms.ChoiceField(choices=Match.Visibility.choices)

    def clean_players(self) -> list[Member]:
        names = [n.strip() for n in self.cleaned_data["players"].split(",") if n.strip()]
        found = {m.username.lower(): m for m in Member.objects.filter(username__in=names)}
        missing = [n for n in names if n.lower() not in found]
        if missing:
            raise forms.ValidationError(f"No such member: {', '.join(missing)}.")
        return [found[n.lower()] for n in names]

    def service_kwargs(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "players": data["players"],
            "turn_time": timedelta(seconds=data["turn_time"]),
            "round_time": timedelta(seconds=data["round_time"]),
            "visibility_": data["visibility"],
        }


class EnterForm(forms.Form):
    username = forms.CharField(max_length=150)

    def clean_username(self) -> Member:
        member = Member.objects.filter(username=self.cleaned_data["username"].strip()).first()
        if member is None:
            raise forms.ValidationError("No such member.")
        return member


class SessionForm(forms.Form):
    kickoff_at = forms.DateTimeField(
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        help_text="The session's kick-off (the club's time zone).",
    )
