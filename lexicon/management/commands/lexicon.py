"""``manage.py lexicon check WORD... [--list NAME]`` and ``manage.py lexicon info``."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lexicon.lexicon import ENABLE, UnknownLexicon, available_lexicons, get_lexicon


class Command(BaseCommand):
    """Ask the word lists questions from the shell."""

    help = "Check words against a lexicon, or show a lexicon's size and load time."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        check = actions.add_parser("check", help="Is each word in the lexicon?")
        check.add_argument("words", nargs="+", metavar="WORD")
        check.add_argument("--list", default=ENABLE, dest="list_name", metavar="NAME")
        info = actions.add_parser("info", help="Word count and load time.")
        info.add_argument("--list", default=ENABLE, dest="list_name", metavar="NAME")

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["list_name"]
        started = time.perf_counter()
        try:
            lexicon = get_lexicon(name)
        except UnknownLexicon as error:
            known = ", ".join(available_lexicons())
            raise CommandError(f"{error} Known lists: {known}.") from None
        elapsed = time.perf_counter() - started
        if options["action"] == "info":
            self.stdout.write(
                f"{lexicon.name}: {len(lexicon):,} words of "
                f"{lexicon.min_len}-{lexicon.max_len} letters"
            )
            self.stdout.write(f"loaded in {lexicon.load_seconds * 1000:.0f} ms")
            if elapsed < lexicon.load_seconds / 2:
                self.stdout.write("(already loaded in this process)")
            self.stdout.write(f"source: {lexicon.source}")
            return
        missing = False
        for raw in options["words"]:
            word = raw.strip().upper()
            if word in lexicon:
                self.stdout.write(f"{word}: valid ({lexicon.name})")
            else:
                missing = True
                self.stdout.write(f"{word}: not in {lexicon.name}")
        if missing:
            sys.exit(1)
