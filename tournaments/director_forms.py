"""Forms of a tournament's director page: its tie-breaks, its move time, a late entrant, a
withdrawal, an entries file; and the members file of the membership page. They parse only;
the services decide (docs/RULES.md section 3, "A director's tools")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms

from accounts.models import Member
from tournaments.forms import (
    DATETIME_LOCAL_FORMATS,
    DateTimeLocalInput,
    LocalTimeMixin,
    member_input,
)
from tournaments.organise_forms import _reason_field, clean_member
from tournaments.standings import TIE_BREAKS

#: The most a CSV file may hold (bytes), typed or uploaded.
MAX_CSV_BYTES = 64 * 1024
CSV_TOO_BIG = f"A file of at most {MAX_CSV_BYTES // 1024} KiB."
CSV_NOT_TEXT = "The file is not UTF-8 text."
NO_CSV = "Choose a CSV file, or paste its rows."

_NONE = [("", "—")]


class TieBreaksForm(forms.Form):
    """The tie-breaks in order: up to one per place, "—" ending the list."""

    first = forms.ChoiceField(choices=_NONE + list(TIE_BREAKS.items()), required=False)
    second = forms.ChoiceField(choices=_NONE + list(TIE_BREAKS.items()), required=False)
    third = forms.ChoiceField(choices=_NONE + list(TIE_BREAKS.items()), required=False)
    fourth = forms.ChoiceField(choices=_NONE + list(TIE_BREAKS.items()), required=False)

    def order(self) -> list[str]:
        """The chosen keys in order (the service refuses one chosen twice)."""
        data = self.cleaned_data
        return [data[place] for place in ("first", "second", "third", "fourth") if data[place]]


class TurnTimeForm(forms.Form):
    hours = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=30 * 24,
        help_text="Empty: the club's usual. From each fixture's next turn.",
    )

    def turn_time(self) -> timedelta | None:
        hours = self.cleaned_data["hours"]
        return None if hours is None else timedelta(hours=hours)


class _Schedule(LocalTimeMixin):
    first_kickoff = forms.DateTimeField(
        label="First kick-off",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript).",
    )
    interval_hours = forms.IntegerField(
        label="Hours between fixtures", min_value=0, max_value=90 * 24, initial=72
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("first_kickoff") is not None:
            data["first_kickoff"] = self.to_utc(data["first_kickoff"])
        return data

    def schedule(self) -> dict[str, Any]:
        return {
            "first_kickoff": self.cleaned_data["first_kickoff"],
            "interval": timedelta(hours=self.cleaned_data["interval_hours"]),
        }


class LateEntryForm(_Schedule):
    member = forms.CharField(label="Member (username)", max_length=150, widget=member_input())

    def clean_member(self) -> Member | None:
        return clean_member(self.cleaned_data["member"])


class WithdrawForm(forms.Form):
    member = forms.CharField(label="Member (username)", max_length=150)
    reason = _reason_field()

    def clean_member(self) -> Member | None:
        return clean_member(self.cleaned_data["member"]) or None


def csv_text(form: forms.Form) -> str:
    """The CSV of a form's ``file`` (uploaded) or ``rows`` (pasted), or a form error."""
    upload = form.cleaned_data.get("file")
    if upload is not None:
        if upload.size > MAX_CSV_BYTES:
            raise forms.ValidationError(CSV_TOO_BIG)
        try:
            return str(upload.read().decode("utf-8-sig"))
        except UnicodeDecodeError:
            raise forms.ValidationError(CSV_NOT_TEXT) from None
    rows = form.cleaned_data.get("rows") or ""
    if not rows.strip():
        raise forms.ValidationError(NO_CSV)
    return str(rows)


class _CsvMixin(forms.Form):
    file = forms.FileField(required=False, label="CSV file")
    rows = forms.CharField(
        required=False, max_length=MAX_CSV_BYTES, widget=forms.Textarea(attrs={"rows": 6})
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                data["text"] = csv_text(self)
            except forms.ValidationError as error:
                self.add_error(None, error)
        return data


class EntriesImportForm(_Schedule, _CsvMixin):
    """A CSV of usernames (one a row) to enter late."""


class MembersImportForm(_CsvMixin):
    """A CSV of ``name,email`` rows: one single-use invitation each."""

    days = forms.IntegerField(
        label="Links valid for (days)", min_value=1, max_value=365, initial=30
    )
