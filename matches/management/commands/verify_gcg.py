"""``manage.py verify_gcg [--ruleset classic] [--no-lexicon] FILE...``: re-score GCG records.

A thin shell over ``engine.verify_records``: prints each mismatch (a play's score, or
a cumulative total that is not the player's running total), then as the last line
``N games, M plays, K mismatches``; exits 1 when anything disagreed or could not be read.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine import RULESETS, UnknownRuleset, get_ruleset, verify_records
from lexicon.lexicon import get_lexicon


class Command(BaseCommand):
    """Check every play's recorded score in GCG files against the engine."""

    help = (
        "Replay GCG records on a board and compare each play's score with the engine's, and "
        "each cumulative total with the scores before it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--ruleset", default="classic", help=f"one of {', '.join(RULESETS)} (classic)"
        )
        parser.add_argument(
            "--no-lexicon", action="store_true", help="skip the word check (other lexicons)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            ruleset = get_ruleset(options["ruleset"])
        except UnknownRuleset as error:
            raise CommandError(str(error)) from None
        lexicon = None
        if not options["no_lexicon"]:
            lexicon = get_lexicon(ruleset.lexicon_name, max_len=ruleset.lexicon_max_len)
        report = verify_records(options["files"], ruleset=ruleset, lexicon=lexicon)
        for path, reason in report.failures:
            self.stderr.write(f"{path}: cannot read: {reason}")
        for mismatch in report.mismatches:
            self.stdout.write(str(mismatch))
        self.stdout.write(report.summary)
        if not report.ok:
            sys.exit(1)
