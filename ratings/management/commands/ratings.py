"""``manage.py ratings --rebuild``: recompute every rating from the match log.

``manage.py ratings`` alone lists each ruleset's leaderboard as it stands now.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from ratings import selectors
from ratings.services import rebuild_ratings


class Command(BaseCommand):
    help = "Show the ratings, or --rebuild them all from the rated matches (deterministic)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="Recompute every rating and rating change from the finished rated matches.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rebuild"]:
            rebuilt = rebuild_ratings()
            self.stdout.write(
                self.style.SUCCESS(
                    f"Rebuilt {rebuilt.ratings} rating{'s' if rebuilt.ratings != 1 else ''} "
                    f"from {rebuilt.matches} rated match{'es' if rebuilt.matches != 1 else ''}."
                )
            )
            return
        now = timezone.now()
        rulesets = selectors.rated_rulesets()
        if not rulesets:
            self.stdout.write("No ratings yet.")
        for ruleset in rulesets:
            board = selectors.leaderboard(ruleset, now=now)
            self.stdout.write(f"{ruleset}:")
            for rank, line in enumerate(board.settled, start=1):
                self.stdout.write(
                    f"  {rank:>3}. {line.username:<20} {line.shown:>6} ±{line.rounded_deviation}"
                )
            for line in board.provisional:
                self.stdout.write(
                    f"       {line.username:<20} {line.shown:>6} ±{line.rounded_deviation}"
                )
