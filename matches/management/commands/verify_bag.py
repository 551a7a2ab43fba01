"""``manage.py verify_bag MATCH_ID``: recompute a finished match's bag from its revealed seed.

A thin shell over ``matches.records.verify_bag``, which compares the stored record with the
engine's recomputation, and over the check every viewer runs (``matches.offline_check``, the
page's fairness.js in Python) on the record they are given, which after the end holds every
seat's tiles: so it also says that every viewer, a spectator included, can check every draw.
Prints ``OK`` with what was checked, or each mismatch; exits 1 on any mismatch, and when the
match is not over (its seed is still secret).
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches import visibility
from matches.models import Match
from matches.offline_check import check
from matches.records import BagStillSecret, verify_bag


class Command(BaseCommand):
    """Check every rack and draw of a match against seed + contributions + recorded moves."""

    help = (
        "Recompute every rack and draw of a finished match from its revealed seed, the seats' "
        "contributions and the recorded moves, compare them with the stored record, and run "
        "the check every viewer runs on the record they are given."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("match_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        match_id = options["match_id"]
        try:
            match = Match.objects.get(pk=match_id)
        except Match.DoesNotExist:
            raise CommandError(f"There is no match {match_id}.") from None
        try:
            report = verify_bag(match)
        except BagStillSecret as error:
            raise CommandError(str(error)) from None
        if report.ok:
            checked, failures = viewers_check(match)
        else:
            checked, failures = [], []
        mismatches = report.mismatches + failures
        for mismatch in mismatches:
            self.stdout.write(f"MISMATCH {mismatch}")
        if mismatches:
            count = len(mismatches)
            self.stdout.write(f"Match {match.id}: {count} mismatch(es) in the bag record.")
            sys.exit(1)
        self.stdout.write(
            f"OK match {match.id}: commitment matches the seed; "
            f"{report.turns} turns of racks and draws recomputed and equal to the record."
        )
        for line in checked:
            self.stdout.write(f"OK the record every viewer checks: {line}")


def viewers_check(match: Match) -> tuple[list[str], list[str]]:
    """The check every viewer runs, on the record every viewer is given: (what it verified,
    its failures). Nothing for a match never dealt, which has no such record."""
    seats = list(match.seats.order_by("position"))
    turns = list(match.turns.order_by("number"))
    record = visibility.finished_record(match, seats, turns)
    if record is None:
        return [], []
    ok, lines = check(record.model_dump(mode="json"))
    if ok:
        return lines, []
    failed = [line.removeprefix("FAILED: ") for line in lines if line.startswith("FAILED: ")]
    return [], [f"the record every viewer checks: {failure}" for failure in failed]
