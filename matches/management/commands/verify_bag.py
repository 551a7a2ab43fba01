"""``manage.py verify_bag MATCH_ID``: recompute a finished match's bag from its revealed seed.

A thin shell over ``matches.records.verify_bag``: prints ``OK`` with what was checked, or each
mismatch; exits 1 on any mismatch, and when the match is not over (its seed is still secret).
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.models import Match
from matches.records import BagStillSecret, verify_bag


class Command(BaseCommand):
    """Check every rack and draw of a match against seed + contributions + recorded moves."""

    help = (
        "Recompute every rack and draw of a finished match from its revealed seed, the seats' "
        "contributions and the recorded moves, and compare them with the stored record."
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
        for mismatch in report.mismatches:
            self.stdout.write(f"MISMATCH {mismatch}")
        if not report.ok:
            self.stdout.write(
                f"Match {match.id}: {len(report.mismatches)} mismatch(es) in the bag record."
            )
            sys.exit(1)
        self.stdout.write(
            f"OK match {match.id}: commitment matches the seed; "
            f"{report.turns} turns of racks and draws recomputed and equal to the record."
        )
