"""Forms of the organisers' fixture list: its filters and one form per action.

They parse only; the services decide (an action the fixture's state no longer allows is
the service's refusal, shown on the page). A member is typed as a username, found as you
type by the picker (``member_picker.js``), and checked here: an unknown, pending or removed
account is a form error.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django import forms

from accounts.models import Member
from matches.models import Match, Seat, Tournament
from tournaments.forms import (
    DATETIME_LOCAL_FORMATS,
    DateTimeLocalInput,
    LocalTimeMixin,
    find_member,
    member_input,
)
from tournaments.services.organising import (
    MAX_POSTPONE_DAYS,
    MAX_REASON_LENGTH,
    POSTPONE_NOT_LATER,
    POSTPONE_TOO_LONG,
    RULINGS,
)


def clean_member(value: str) -> Member | None:
    """The approved member called ``value`` (None for nothing typed), or a form error."""
    username = (value or "").strip()
    if not username:
        return None
    member = find_member(username)
    if member is None:
        raise forms.ValidationError(f"There is no member called {username!r}.")
    return member


def clean_player(value: str) -> Member | None:
    """Anyone who has held a seat under the username ``value``, approved or not (a removed
    member's fixtures are still theirs to find), or a form error for a name nobody has."""
    username = (value or "").strip()
    if not username:
        return None
    member = Member.objects.filter(username__iexact=username).first()
    if member is None:
        raise forms.ValidationError(f"There is no member called {username!r}.")
    return member


def _reason_field() -> forms.CharField:
    # Not required here: the service's own refusal says why a reason is needed.
    return forms.CharField(
        required=False,
        max_length=MAX_REASON_LENGTH,
        help_text="Kept with the fixture's record.",
    )


class FixtureFilterForm(LocalTimeMixin):
    """Which fixtures to list; every field optional."""

    status = forms.ChoiceField(required=False, choices=[("", "Any status"), *Match.Status.choices])
    tournament = forms.ModelChoiceField(
        required=False, queryset=Tournament.objects.order_by("-created_at"), empty_label="Any"
    )
    member = forms.CharField(
        required=False, max_length=150, label="Player (username)", widget=member_input()
    )
    kickoff_from = forms.DateTimeField(
        required=False,
        label="Kick-off from",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
    )
    kickoff_to = forms.DateTimeField(
        required=False,
        label="Kick-off until",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
    )

    def clean_member(self) -> Member | None:
        return clean_player(self.cleaned_data.get("member", ""))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for field in ("kickoff_from", "kickoff_to"):
            if data.get(field) is not None:
                data[field] = self.to_utc(data[field])
        return data

    def selector_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``organise_selectors.fixture_rows``."""
        data = self.cleaned_data
        return {
            "status": data.get("status") or None,
            "tournament": data.get("tournament"),
            "member": data.get("member"),
            "kickoff_from": data.get("kickoff_from"),
            "kickoff_to": data.get("kickoff_to"),
        }


class RescheduleForm(LocalTimeMixin):
    kickoff_at = forms.DateTimeField(
        label="New kick-off",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript).",
    )
    reason = _reason_field()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kickoff_at") is not None:
            data["kickoff_at"] = self.to_utc(data["kickoff_at"])
        return data


class CancelForm(forms.Form):
    reason = _reason_field()


class SubstituteForm(forms.Form):
    position = forms.TypedChoiceField(label="Seat", choices=Seat.Position.choices, coerce=int)
    member = forms.CharField(label="New player (username)", max_length=150, widget=member_input())
    reason = _reason_field()

    def clean_member(self) -> Member | None:
        return clean_member(self.cleaned_data.get("member", ""))


RULING_LABELS = {"first": "A win for First", "second": "A win for Second", "draw": "A draw",
                 "void": "Void (no result, unrated)"}  # fmt: skip


class AdjudicateForm(forms.Form):
    ruling = forms.ChoiceField(choices=[(ruling, RULING_LABELS[ruling]) for ruling in RULINGS])
    reason = _reason_field()


#: The interval's own words for what the service refuses (a number out of range, or too
#: many digits to be one): the same text as the service's refusal, never Django's default.
_POSTPONE_ERRORS = {
    "min_value": POSTPONE_NOT_LATER,
    "max_value": POSTPONE_TOO_LONG,
    "max_digits": POSTPONE_TOO_LONG,
    "max_whole_digits": POSTPONE_TOO_LONG,
    "max_decimal_places": "Give the hours to at most two decimal places.",
    "invalid": "Give the hours as a number.",
    "required": "Give the hours to postpone the round by.",
}


class PostponeForm(forms.Form):
    round_number = forms.IntegerField(label="Round", min_value=1, max_value=10_000)
    hours = forms.DecimalField(
        label="Later by (hours)",
        min_value=Decimal("0.01"),
        max_value=MAX_POSTPONE_DAYS * 24,
        max_digits=7,
        decimal_places=2,
        initial=24,
        error_messages=_POSTPONE_ERRORS,
    )
    carry_later = forms.BooleanField(
        label="Postpone the later rounds with it",
        required=False,
        help_text="Every later round still to kick off moves by the same interval.",
    )
    reason = _reason_field()

    def interval(self) -> timedelta:
        return timedelta(hours=float(self.cleaned_data["hours"]))
