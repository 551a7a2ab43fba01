"""``manage.py demo_ratings [--if-empty]``: a past season of rated leagues among the demo members.

Run after ``manage.py demo`` (``make run`` does). Three double round robins, played out in
the past weeks through the same services as live play (each move a commit, made at its
moment with the service's ``now``), so every result moves the ratings exactly as a live
one does; then an upcoming rated league, seeded by the ratings that produced. The moves are
the engine's random player's (``engine.randomplay``: a legal play from the mover's
own rack, now and then a swap or a pass), from a fixed seed.
"""

from __future__ import annotations

import itertools
import random
from argparse import ArgumentParser
from datetime import datetime, timedelta
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction
from django.test.utils import override_settings
from django.utils import timezone

from accounts.models import Member
from engine import Game
from engine.randomplay import AnagramIndex, random_move
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat
from matches.stored_game import game_of
from ratings.models import RatingChange
from tournaments import services as tournament_services

PLAYERS = ("alice", "bob", "carol", "dave")
ORGANISER = "organiser"
LEAGUES = ("Spring league", "Summer league", "Autumn league")
#: Between two moves of a demo game, two rounds of a league, and two leagues' starts.
MOVE_GAP = timedelta(minutes=7)
ROUND_GAP = timedelta(days=2)
LEAGUE_GAP = timedelta(weeks=3)
SEED = 2026


class Command(BaseCommand):
    help = "Play a past season of rated leagues among the demo members (after `manage.py demo`)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when any rating change exists already (for `make run`).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and RatingChange.objects.exists():
            self.stdout.write("Ratings exist already; no rated season added.")
            return
        members = {m.username: m for m in Member.objects.filter(username__in=PLAYERS)}
        organiser = Member.objects.filter(username=ORGANISER).first()
        if len(members) != len(PLAYERS) or organiser is None or not organiser.is_organiser:
            self.stderr.write("The demo members are missing: run `manage.py demo` first.")
            return
        players = [members[name] for name in PLAYERS]
        now = timezone.now().replace(second=0, microsecond=0)
        start = now - LEAGUE_GAP * len(LEAGUES)
        player = _Player(random.Random(SEED))
        self.stdout.write(f"Playing a rated season: {len(LEAGUES)} leagues (about half a minute)")
        # A past season is old news: its notices are recorded as for any match, but kept in
        # memory instead of printed, so the quick start's console shows only today's email.
        with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
            played = self._play_leagues(organiser, players, start, player)
        self._announce(organiser, players, now, played)

    def _play_leagues(
        self, organiser: Member, players: list[Member], start: datetime, player: _Player
    ) -> int:
        played = 0
        for index, name in enumerate(LEAGUES):
            first_kickoff = start + LEAGUE_GAP * index
            # One transaction a league: nothing outside (a page, a sweep, a notice sent after
            # a commit) sees its fixtures before they are played, and looks at them with
            # today's clock, which would forfeit every one of them.
            with transaction.atomic():
                league = tournament_services.create_round_robin(
                    organiser=organiser,
                    name=name,
                    players=players,
                    first_kickoff=first_kickoff,
                    interval=ROUND_GAP,
                    rated=True,
                    seed_by_rating=True,
                )
                for match in league.matches.order_by("round_number", "id"):
                    _play(match, player)
                    played += 1
            self.stdout.write(f"  {name}: {league.matches.count()} matches played.")
        return played

    def _announce(
        self, organiser: Member, players: list[Member], now: datetime, played: int
    ) -> None:
        upcoming = tournament_services.create_round_robin(
            organiser=organiser,
            name="Winter league",
            players=players,
            first_kickoff=(now + timedelta(days=2)).replace(minute=0),
            interval=ROUND_GAP,
            rated=True,
            seed_by_rating=True,
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Rated season played: {played} matches in {len(LEAGUES)} leagues; "
                f"the Winter league (tournament {upcoming.id}) is seeded by rating."
            )
        )
        self.stdout.write("  Leaderboard: /ratings/   A player's history: /players/alice/")


class _Player:
    """The engine's random player, with one word list and anagram index per lexicon."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lexicons: dict[tuple[str, int], tuple[Any, AnagramIndex]] = {}

    def move(self, game: Game, lexicon_name: str) -> Any:
        key = (lexicon_name, game.ruleset.lexicon_max_len)
        if key not in self.lexicons:
            lexicon = get_lexicon(lexicon_name, max_len=key[1])
            self.lexicons[key] = (lexicon, AnagramIndex(lexicon, max_len=key[1]))
        lexicon, index = self.lexicons[key]
        return random_move(game, lexicon=lexicon, index=index, rng=self.rng)


def _play(match: Match, player: _Player) -> None:
    """Play ``match`` to its end from its kick-off, one commit a move, each at its moment."""
    assert match.kickoff_at is not None
    moment: datetime = match.kickoff_at
    client_ids = itertools.count()
    services.match_apply_deadlines(match_id=match.id, now=moment)  # the kick-off opens it
    while True:
        moment += MOVE_GAP
        match.refresh_from_db()
        if match.is_over:
            return
        assert match.to_move is not None, "a live match has a player to move"
        seats = list(Seat.objects.filter(match=match).order_by("position"))
        mover = seats[match.to_move].member
        services.match_commit(
            match_id=match.id,
            member=mover,
            move=player.move(game_of(match, seats), match.lexicon),  # its own rack
            against_turn=match.turn_number,
            client_id=f"demo-{next(client_ids)}",
            now=moment,
        )
