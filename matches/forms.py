"""The match pages' one form: which seat a member takes."""

from __future__ import annotations

from django import forms

from matches.models import Seat


class TakeSeatForm(forms.Form):
    """Which seat to take; none means the first free one."""

    position = forms.TypedChoiceField(
        choices=Seat.Position.choices, coerce=int, required=False, empty_value=None
    )
