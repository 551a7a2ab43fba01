"""The notification settings page's form: every field validated before anything is saved."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import forms

from accounts.time_zones import time_zone_choices as time_zones
from notifications.models import CHOSEN_KINDS, Channel, NotificationSettings
from notifications.sweeps import MAX_WARNING_HOURS

MAX_WARNINGS = 6
HOURS = [(h, f"{h:02d}:00") for h in range(24)]


@lru_cache(maxsize=1)
def field_name(channel: str, kind: str) -> str:
    return f"{channel}_{kind}"


class WarningHoursField(forms.CharField):
    """``24, 2``: whole hours before the deadline, 1 to 71, at most six."""

    def to_python(self, value: Any) -> list[int]:  # type: ignore[override]
        text = super().to_python(value) or ""
        if not text.strip():
            return []
        try:
            hours = sorted(
                {int(part) for part in text.replace(";", ",").split(",") if part.strip()},
                reverse=True,
            )
        except ValueError:
            raise forms.ValidationError(
                "Write whole hours separated by commas, e.g. 24, 2."
            ) from None
        if any(not 1 <= h <= MAX_WARNING_HOURS for h in hours):
            raise forms.ValidationError(
                f"Each warning must be 1 to {MAX_WARNING_HOURS} hours before."
            )
        if len(hours) > MAX_WARNINGS:
            raise forms.ValidationError(f"At most {MAX_WARNINGS} warnings.")
        return hours


class NotificationSettingsForm(forms.Form):
    time_zone = forms.ChoiceField(choices=time_zones)
    your_move_email = forms.ChoiceField(
        choices=NotificationSettings.EmailMode.choices, label="Your-move emails"
    )
    digest_hour = forms.TypedChoiceField(choices=HOURS, coerce=int, label="Digest at")
    practice_your_move = forms.BooleanField(
        required=False, label="Tell me it is my move in practice games against the computer"
    )
    email_warning_hours = WarningHoursField(
        required=False, max_length=60, label="Forfeit warnings by email, hours before"
    )
    push_warning_hours = WarningHoursField(
        required=False, max_length=60, label="Forfeit warnings by push, hours before"
    )
    quiet_start = forms.TypedChoiceField(
        choices=[("", "none"), *HOURS],
        coerce=int,
        empty_value=None,
        required=False,
        label="Quiet from",
    )
    quiet_end = forms.TypedChoiceField(
        choices=[("", "none"), *HOURS],
        coerce=int,
        empty_value=None,
        required=False,
        label="until",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind in CHOSEN_KINDS:
            for channel in Channel:
                self.fields[field_name(channel, kind)] = forms.BooleanField(
                    required=False, label=f"{kind.label} by {channel.label.lower()}"
                )

    @classmethod
    def initial_of(cls, prefs: NotificationSettings) -> dict[str, Any]:
        initial: dict[str, Any] = {
            "time_zone": prefs.time_zone,
            "your_move_email": prefs.your_move_email,
            "digest_hour": prefs.digest_hour,
            "practice_your_move": prefs.practice_your_move,
            "email_warning_hours": ", ".join(map(str, prefs.warning_hours(Channel.EMAIL))),
            "push_warning_hours": ", ".join(map(str, prefs.warning_hours(Channel.PUSH))),
            "quiet_start": prefs.quiet_start,
            "quiet_end": prefs.quiet_end,
        }
        for kind in CHOSEN_KINDS:
            for channel in Channel:
                initial[field_name(channel, kind)] = kind in prefs.kinds(channel)
        return initial

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (data.get("quiet_start") is None) != (data.get("quiet_end") is None):
            raise forms.ValidationError("Give quiet hours both a start and an end, or neither.")
        return data

    def values(self) -> dict[str, Any]:
        """The model's fields from the cleaned form."""
        data = self.cleaned_data
        return {
            "time_zone": data["time_zone"],
            "your_move_email": data["your_move_email"],
            "digest_hour": data["digest_hour"],
            "practice_your_move": data["practice_your_move"],
            "email_warning_hours": data["email_warning_hours"],
            "push_warning_hours": data["push_warning_hours"],
            "quiet_start": data["quiet_start"],
            "quiet_end": data["quiet_end"],
            "email_kinds": [k.value for k in CHOSEN_KINDS if data[field_name(Channel.EMAIL, k)]],
            "push_kinds": [k.value for k in CHOSEN_KINDS if data[field_name(Channel.PUSH, k)]],
        }

    def rows(self) -> list[dict[str, Any]]:
        """The kinds as table rows: label, the email box, the push box."""
        return [
            {
                "label": kind.label,
                "email": self[field_name(Channel.EMAIL, kind)],
                "push": self[field_name(Channel.PUSH, kind)],
            }
            for kind in CHOSEN_KINDS
        ]
