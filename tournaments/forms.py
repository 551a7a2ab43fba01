"""Tournament forms: turn what an organiser posts into typed values for the services, or
say what is wrong.

The services still check everything that matters (permissions, seats, rules); these forms
only parse and give friendly field errors before a service is called.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from django import forms
from django.utils import timezone

from accounts.models import Member
from engine import RULESETS
from matches.models import Match
from tournaments.services.fixtures import SCHEDULED_VARIANTS

#: Browsers send datetime-local as ``2025-06-14T18:30`` (seconds optional).
DATETIME_LOCAL_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
#: The largest UTC offset in use (UTC+14, UTC-12), in minutes.
MAX_OFFSET_MINUTES = 14 * 60
#: A kick-off may be this far in the past (a form filled in slowly), no further.
KICKOFF_GRACE = timedelta(minutes=5)
PLAYER_SEPARATORS = re.compile(r"[\s,;]+")
#: Times from this year on are refused: a no-show deadline or a postponement after one
#: would not fit in a datetime.
LAST_YEAR = 9000
TOO_FAR_AHEAD = "That date is too far ahead."


def ruleset_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in (*RULESETS, *SCHEDULED_VARIANTS)]


def hours_between(
    *, label: str = "Hours between rounds", initial: int = 72, help_text: str = ""
) -> forms.DecimalField:
    """A format's interval, in hours (0 to 90 days)."""
    return forms.DecimalField(
        label=label,
        min_value=0,
        max_value=24 * 90,
        max_digits=6,
        decimal_places=2,
        initial=initial,
        help_text=help_text,
    )


def ruleset_field() -> forms.ChoiceField:
    return forms.ChoiceField(choices=ruleset_choices, initial="word-duel")


#: The engine's challenge rules in words (docs/RULES.md section 18).
CHALLENGE_CHOICES = [
    ("void", "Void: a phony is refused outright"),
    ("single", "Single: a wrong challenge costs nothing"),
    ("double", "Double: a wrong challenge loses the challenger's next turn"),
    ("five_point", "5-point: a wrong challenge gives the player 5 points"),
    ("ten_point", "10-point: a wrong challenge gives the player 10 points"),
]


def challenge_rule_field() -> forms.ChoiceField:
    """Not required: a form posted without it (an older page, a script) plays void."""
    return forms.ChoiceField(
        label="Challenges", choices=CHALLENGE_CHOICES, initial="void", required=False
    )


def challenge_window_field() -> forms.DecimalField:
    """How long a play stays open to a challenge, in hours; empty: the next move's deadline."""
    return forms.DecimalField(
        label="Challenge window (hours)",
        required=False,
        min_value=Decimal("0.01"),
        max_value=24 * 14,
        max_digits=6,
        decimal_places=2,
        help_text="Empty: a play can be challenged until the next player moves or their "
        "time runs out.",
    )


def finish_line_field() -> forms.IntegerField:
    return forms.IntegerField(
        label="Finish Line",
        required=False,
        min_value=1,
        max_value=2000,
        help_text="Empty: off. Otherwise a game ends when a player reaches this score.",
    )


def table_kwargs(data: dict[str, Any]) -> dict[str, Any]:
    """The table fields' service keywords (``challenge_rule``, ``challenge_window``,
    ``finish_line``) from a form's cleaned data."""
    window = data.get("challenge_window_hours")
    return {
        "challenge_rule": data.get("challenge_rule") or "void",
        "challenge_window": timedelta(hours=float(window)) if window is not None else None,
        "finish_line": data.get("finish_line"),
    }


def visibility_field() -> forms.ChoiceField:
    return forms.ChoiceField(choices=Match.Visibility.choices, initial="public")


def rated_field() -> forms.BooleanField:
    """A tournament format's "rated", on by default (a friendly fixture's is off)."""
    return forms.BooleanField(
        required=False, initial=True, help_text="Every result moves both players' ratings."
    )


class DateTimeLocalInput(forms.DateTimeInput):
    """An ``<input type="datetime-local">`` that renders its value the way browsers expect."""

    input_type = "datetime-local"

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs=attrs, format="%Y-%m-%dT%H:%M")


#: The ``<datalist>`` a page's member fields share, filled as you type by member_picker.js.
MEMBER_DATALIST = "member-options"


def member_input(**attrs: str) -> forms.TextInput:
    """A username field the picker script suggests approved members for (a plain text
    field without JavaScript, still checked by the form)."""
    return forms.TextInput(
        attrs={"list": MEMBER_DATALIST, "autocomplete": "off", "data-member-picker": "", **attrs}
    )


def find_member(username: str) -> Member | None:
    """A member by username: exact first, then ignoring case when that is unambiguous. Only
    accounts that can sign in (not the computer's: it plays practice matches only)."""
    username = username.strip()
    members = Member.objects.filter(is_active=True, membership=Member.Membership.APPROVED)
    member = members.filter(username=username).first()
    if member is None:
        candidates = list(members.filter(username__iexact=username)[:2])
        member = candidates[0] if len(candidates) == 1 else None
    return member


class LocalTimeMixin(forms.Form):
    """Kick-off times typed in the browser's own time zone.

    ``datetime-local`` carries no zone, so a tiny script fills ``utc_offset`` with the
    browser's offset (minutes, as JavaScript's ``getTimezoneOffset`` gives it). Without
    JavaScript it stays 0 and times are read as UTC, which the label says.
    """

    utc_offset = forms.IntegerField(
        required=False,
        min_value=-MAX_OFFSET_MINUTES,
        max_value=MAX_OFFSET_MINUTES,
        widget=forms.HiddenInput(attrs={"data-utc-offset": ""}),
    )

    def to_utc(self, value: datetime | None) -> datetime | None:
        """Read a zone-less time as the browser's local time and return it in UTC."""
        if value is None:
            return None
        offset = self.cleaned_data.get("utc_offset") or 0
        naive = timezone.make_naive(value, UTC) if timezone.is_aware(value) else value
        if naive.year >= LAST_YEAR:  # (a deadline after it would not fit in a datetime)
            raise forms.ValidationError(TOO_FAR_AHEAD)
        return timezone.make_aware(naive, UTC) + timedelta(minutes=offset)

    def check_not_past(self, field: str) -> None:
        """Refuse a kick-off already in the past (usually a wrong date or time zone)."""
        value = self.cleaned_data.get(field)
        if value is not None and value < timezone.now() - KICKOFF_GRACE:
            self.add_error(field, "The kick-off time is in the past.")


class FixtureForm(LocalTimeMixin):
    """Schedule one fixture."""

    name = forms.CharField(
        max_length=120,
        help_text="The fixture's own name; its title adds the players (Final: alice v bob).",
    )
    kickoff_at = forms.DateTimeField(
        label="Kick-off",
        required=False,
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript). Leave empty to start as soon "
        "as both seats are taken.",
    )
    ruleset = forms.ChoiceField(choices=ruleset_choices, initial="word-duel")
    visibility = forms.ChoiceField(choices=Match.Visibility.choices, initial="public")
    no_show_minutes = forms.IntegerField(
        label="No-show window (minutes)",
        min_value=1,
        max_value=7 * 24 * 60,
        initial=15,
        help_text="An empty seat this long after kick-off loses by default.",
    )
    rated = forms.BooleanField(
        required=False,
        initial=False,
        help_text="The result moves both players' ratings. Leave friendlies and practice unrated.",
    )
    first = forms.CharField(
        label="First (username)", required=False, max_length=150, widget=member_input()
    )
    second = forms.CharField(
        label="Second (username)", required=False, max_length=150, widget=member_input()
    )
    seats = forms.TypedChoiceField(
        label="Seats",
        choices=[(2, "2"), (3, "3"), (4, "4")],
        coerce=int,
        initial=2,
        required=False,
        empty_value=None,
        help_text="A classic table seats 3 or 4; Word Duel is always a duel.",
    )
    third = forms.CharField(
        label="Third (username)", required=False, max_length=150, widget=member_input()
    )
    fourth = forms.CharField(
        label="Fourth (username)", required=False, max_length=150, widget=member_input()
    )
    challenge_rule = challenge_rule_field()
    challenge_window_hours = challenge_window_field()
    finish_line = finish_line_field()

    def _clean_player(self, field: str) -> Member | None:
        username = self.cleaned_data.get(field, "").strip()
        if not username:
            return None
        member = find_member(username)
        if member is None:
            raise forms.ValidationError(f"There is no member called {username!r}.")
        return member

    def clean_first(self) -> Member | None:
        return self._clean_player("first")

    def clean_second(self) -> Member | None:
        return self._clean_player("second")

    def clean_third(self) -> Member | None:
        return self._clean_player("third")

    def clean_fourth(self) -> Member | None:
        return self._clean_player("fourth")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "kickoff_at" in data:
            data["kickoff_at"] = self.to_utc(data["kickoff_at"])
            self.check_not_past("kickoff_at")
        first, second = data.get("first"), data.get("second")
        if first is not None and first == second:
            self.add_error("second", "A member cannot sit on both sides of a fixture.")
        seats = data.get("seats") or 2
        for place, field in ((3, "third"), (4, "fourth")):
            if data.get(field) is not None and seats < place:
                self.add_error(field, f"This fixture has {seats} seats.")
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournaments.services.create_fixture`` (a table of 3-4
        as ``table``, its players in seat order)."""
        data = self.cleaned_data
        kwargs: dict[str, Any] = {
            "name": data["name"],
            "kickoff_at": data["kickoff_at"],
            "first": data["first"],
            "second": data["second"],
            "ruleset": data["ruleset"],
            "visibility_": data["visibility"],
            "no_show_window": timedelta(minutes=data["no_show_minutes"]),
            "rated": data["rated"],
            **table_kwargs(data),
        }
        seats = data.get("seats") or 2
        if seats > 2:
            players = [data.get(field) for field in ("first", "second", "third", "fourth")]
            kwargs.update(first=None, second=None, table=players[:seats])
        return kwargs


def entrants(text: str, *, at_least: str | None) -> list[Member]:
    """The members a tournament form names (usernames, one per line or separated by commas):
    each once, each a member, at least two (``at_least``: "A Swiss needs", …; None for a
    list that may be empty, as a league's new entrants)."""
    names = [name for name in PLAYER_SEPARATORS.split(text) if name]
    if len({name.lower() for name in names}) != len(names):
        raise forms.ValidationError("Each player can be entered only once.")
    members, unknown = [], []
    for name in names:
        member = find_member(name)
        if member is None:
            unknown.append(name)
        else:
            members.append(member)
    if unknown:
        raise forms.ValidationError(
            "There is no member called " + ", ".join(repr(name) for name in unknown) + "."
        )
    if at_least is not None and len(members) < 2:
        raise forms.ValidationError(f"{at_least} at least two players.")
    return members


class FirstKickoffMixin(LocalTimeMixin):
    """A tournament form's first kick-off, read in the organiser's time and not in the past."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if "first_kickoff" in data:
            data["first_kickoff"] = self.to_utc(data["first_kickoff"])
            self.check_not_past("first_kickoff")
        return data


class RoundRobinForm(FirstKickoffMixin):
    """Create a round-robin tournament: every player meets every other once or twice."""

    ONCE, TWICE = "once", "twice"

    name = forms.CharField(max_length=120)
    players = forms.CharField(
        label="Players",
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Usernames, one per line or separated by commas.",
    )
    first_kickoff = forms.DateTimeField(
        label="First kick-off",
        input_formats=DATETIME_LOCAL_FORMATS,
        widget=DateTimeLocalInput(),
        help_text="Your local time (UTC without JavaScript).",
    )
    interval_hours = hours_between(initial=24)
    meetings = forms.ChoiceField(
        label="Each pair meets",
        choices=[(ONCE, "Once"), (TWICE, "Twice (seats swapped)")],
        initial=ONCE,
        widget=forms.RadioSelect,
    )
    ruleset = ruleset_field()
    visibility = visibility_field()
    rated = rated_field()
    challenge_rule = challenge_rule_field()
    challenge_window_hours = challenge_window_field()
    finish_line = finish_line_field()
    seed_by_rating = forms.BooleanField(
        label="Seed by rating",
        required=False,
        initial=True,
        help_text="Pair the players in order of rating (top seeds meet each other last).",
    )

    def clean_players(self) -> list[Member]:
        return entrants(self.cleaned_data["players"], at_least="A round robin needs")

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``tournaments.services.create_round_robin``."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "players": data["players"],
            "first_kickoff": data["first_kickoff"],
            "interval": timedelta(hours=float(data["interval_hours"])),
            "double": data["meetings"] == self.TWICE,
            "ruleset": data["ruleset"],
            "visibility_": data["visibility"],
            "rated": data["rated"],
            "seed_by_rating": data["seed_by_rating"],
            **table_kwargs(data),
        }
