"""``python manage.py check_integrity``: exit 1 naming each unsound match and why."""

import sys

from django.core.management.base import BaseCommand

from matches.integrity import integrity_report
from matches.models import Match


class Command(BaseCommand):
    help = "Check every match's invariants: tiles conserved, log contiguous, scores, status."

    def add_arguments(self, parser):
        parser.add_argument("match_ids", nargs="*", type=int, help="only these matches")

    def handle(self, *args, match_ids: list[int], **options) -> None:
        matches = Match.objects.all()
        if match_ids:
            matches = matches.filter(pk__in=match_ids)
        bad = 0
        for match, problems in integrity_report(matches):
            bad += 1
            for problem in problems:
                self.stdout.write(f"match {match.pk} ({match.name}): {problem}")
        self.stdout.write(f"{matches.count()} matches checked, {bad} with problems")
        if bad:
            sys.exit(1)
