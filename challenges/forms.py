"""The form to post a challenge: checked here for shape, by the service for the rules."""

from __future__ import annotations

from django import forms

from engine.rulesets import DEFAULT_RULESET, RULESETS


def _ruleset_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in RULESETS]


class ChallengeForm(forms.Form):
    ruleset = forms.ChoiceField(choices=_ruleset_choices, initial=DEFAULT_RULESET)
    rated = forms.TypedChoiceField(
        choices=[("no", "No: a friendly"), ("yes", "Yes: the result moves both ratings")],
        coerce=lambda value: value == "yes",
        initial="no",
        widget=forms.RadioSelect,
        label="Rated",
    )
    opponent = forms.CharField(
        max_length=150,
        required=False,
        label="Only for (username, optional)",
        help_text="Leave empty to let any member accept.",
    )
