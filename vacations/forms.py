from __future__ import annotations

from django import forms

from vacations.services import MAX_ALLOWANCE


class DeclareForm(forms.Form):
    """Days away, first to last inclusive. There is no member field: one declares for oneself."""

    first_day = forms.DateField(
        label="First day away", widget=forms.DateInput(attrs={"type": "date"})
    )
    last_day = forms.DateField(
        label="Last day away", widget=forms.DateInput(attrs={"type": "date"})
    )


OUT_OF_RANGE = f"A vacation allowance is a whole number of days from 0 to {MAX_ALLOWANCE}."


class AllowanceForm(forms.Form):
    days = forms.IntegerField(
        label="Vacation days per member",
        min_value=0,
        max_value=MAX_ALLOWANCE,
        error_messages={
            "min_value": OUT_OF_RANGE,
            "max_value": OUT_OF_RANGE,
            "invalid": OUT_OF_RANGE,
        },
    )
