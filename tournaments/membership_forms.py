"""The organisers' form for removing a member: what becomes of their fixtures, and why."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.models import Member
from tournaments.forms import member_input
from tournaments.organise_forms import clean_member

WITHDRAW, SUBSTITUTE = "withdraw", "substitute"
NAME_A_SUBSTITUTE = "Name the member who takes their seats."
WITHDRAW_LABEL = (
    "Withdraw them: cancel their fixtures not yet kicked off; they lose their live matches"
)
SUBSTITUTE_LABEL = (
    "Seat a substitute in their fixtures not yet kicked off (they lose their live matches)"
)


class RemovalForm(forms.Form):
    """Remove a member: withdraw them from their fixtures, or seat a substitute in them."""

    fixtures = forms.ChoiceField(
        label="Their fixtures",
        choices=[(WITHDRAW, WITHDRAW_LABEL), (SUBSTITUTE, SUBSTITUTE_LABEL)],
        initial=WITHDRAW,
        required=False,  # a member holding no fixture is simply removed
        widget=forms.RadioSelect,
    )
    substitute = forms.CharField(
        label="Substitute (username)", required=False, max_length=150, widget=member_input()
    )
    reason = forms.CharField(
        label="Reason",
        required=False,
        max_length=500,
        help_text="Kept with each fixture's record and told to their opponents.",
    )

    def clean_substitute(self) -> Member | None:
        return clean_member(self.cleaned_data.get("substitute", ""))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["fixtures"] = data.get("fixtures") or WITHDRAW
        wanted = data["fixtures"] == SUBSTITUTE and data.get("substitute") is None
        if wanted and "substitute" not in self.errors:
            self.add_error("substitute", NAME_A_SUBSTITUTE)
        return data

    def substitute_id(self) -> int | None:
        data = self.cleaned_data
        if data["fixtures"] != SUBSTITUTE or data.get("substitute") is None:
            return None
        return int(data["substitute"].pk)
