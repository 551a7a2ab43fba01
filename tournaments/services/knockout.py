"""A knockout tournament: created with its seeded bracket (round 1's first games scheduled),
then advanced game by game as its matches finish (docs/RULES.md section 3, "Knockout"; the
bracket is the pure :mod:`tournaments.knockout`). One transaction each; refusals are typed.

Advancing reads everything from the rows under the knockout's lock, so it is safe to run
twice, or at once from two places: the ``MatchFinished`` subscriber
(``tournaments/subscribers.py``) and the organiser's "advance now" both call
:func:`advance_knockout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction

from accounts.models import Member
from common.errors import ServiceError
from matches.models import Match, Tournament
from matches.services.common import now as _now
from matches.services.common import require_organiser
from matches.services.creation import NAME_LENGTH, create_match
from matches.services.errors import InvalidFixture
from matches.visibility.access import is_club_member
from ratings.selectors import current_ratings
from tournaments import knockout as bracket
from tournaments.knockout_selectors import tie_games, top_moves_first
from tournaments.models import Knockout, KnockoutGame, KnockoutTie
from tournaments.services.fixtures import (
    announce_round,
    check_players,
    check_rules,
    check_table,
    clean_name,
    seat_players,
)

#: The longest tie: best of this many games.
MAX_BEST_OF = 9

TOO_FEW_PLAYERS = "A knockout needs at least two players."
TOO_MANY_PLAYERS = f"A knockout takes at most {bracket.MAX_ENTRANTS} players."
ENTERED_TWICE = "Each player can be entered only once."
BEST_OF_OUT_OF_RANGE = f"A tie is best of an odd number of games, from 1 to {MAX_BEST_OF}."
NEGATIVE_INTERVAL = "The interval between games cannot be negative."
NO_SUCH_SEEDING = "Seed the players by rating or in the order given."


class NotAKnockout(ServiceError):
    """There is no knockout tournament with that id."""

    code = "not_knockout"
    status = 404
    MESSAGE = "There is no such knockout tournament."


def create_knockout(
    *,
    organiser: Member,
    name: str,
    players: Sequence[Member],
    first_kickoff: datetime,
    interval: timedelta,
    best_of: int = 1,
    seeding: str = Knockout.Seeding.RATING,
    ruleset: str = "word-duel",
    lexicon: str = "enable",
    visibility_: str = Match.Visibility.PUBLIC,
    no_show_window: timedelta | None = None,
    rated: bool = False,
    now: datetime | None = None,
    seat_count: int = 2,
    challenge_rule: str = "void",
    challenge_window: timedelta | None = None,
    finish_line: int | None = None,
) -> Tournament:
    """A knockout with its whole bracket drawn: ``players`` seeded by rating in ``ruleset``
    (``seeding="rating"``) or in the order given (``"order"``), byes to the top seeds, and
    round 1's first games scheduled to kick off at ``first_kickoff`` (at once if it has
    passed). Every tie is best of ``best_of`` (odd); a tie's next game kicks off
    ``interval`` after its last. Every game is a duel played at ``challenge_rule``,
    ``challenge_window`` and ``finish_line``; a ``seat_count`` other than 2 is refused (a
    tie is between two: tables are a Swiss's). Writes only new rows, in one transaction."""
    require_organiser(organiser)
    now = now or _now()
    name = clean_name(name, what="tournament")
    unique = list(dict.fromkeys(players))
    if len(unique) != len(players):
        raise InvalidFixture(ENTERED_TWICE)
    if len(unique) < 2:
        raise InvalidFixture(TOO_FEW_PLAYERS)
    if len(unique) > bracket.MAX_ENTRANTS:
        raise InvalidFixture(TOO_MANY_PLAYERS)
    check_players(unique)
    if not 1 <= best_of <= MAX_BEST_OF or best_of % 2 == 0:
        raise InvalidFixture(BEST_OF_OUT_OF_RANGE)
    if seeding not in Knockout.Seeding.values:
        raise InvalidFixture(NO_SUCH_SEEDING)
    if interval < timedelta(0):
        raise InvalidFixture(NEGATIVE_INTERVAL)
    check_rules(ruleset, lexicon)
    check_table(
        ruleset,
        seat_count=seat_count,
        challenge_rule=challenge_rule,
        challenge_window=challenge_window,
        finish_line=finish_line,
    )
    if no_show_window is not None and no_show_window <= timedelta(0):
        raise InvalidFixture("The no-show window must be positive.")
    ids = [player.pk for player in unique]
    if seeding == Knockout.Seeding.RATING:
        ratings = current_ratings(ids, ruleset, now=now)
        ids = list(bracket.seeded_by_rating(ids, {pk: r.rating for pk, r in ratings.items()}))
    drawn = bracket.draw(ids)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name, organiser=organiser, rated=rated, visibility=visibility_
        )
        tournament.players.set(unique)
        knockout = Knockout.objects.create(
            tournament=tournament,
            best_of=best_of,
            seeding=seeding,
            size=drawn.size,
            rounds=drawn.rounds,
            first_kickoff=first_kickoff,
            interval=interval,
            ruleset=ruleset,
            lexicon=lexicon,
            visibility=visibility_,
            no_show_window=no_show_window,
            challenge_rule=challenge_rule,
            challenge_window=challenge_window,
            finish_line=finish_line,
        )
        _draw_ties(knockout, drawn, now=now)
        _advance(knockout, now=now)
    return tournament


def _draw_ties(knockout: Knockout, drawn: bracket.Bracket, *, now: datetime) -> None:
    """Every tie of every round (later rounds empty until their players are known); a
    round-1 bye is decided at once and its winner placed in round 2."""
    rows = [
        KnockoutTie(
            knockout=knockout,
            round=tie.round,
            slot=tie.slot,
            top_id=tie.top.id if tie.top else None,
            top_seed=tie.top.seed if tie.top else None,
            bottom_id=tie.bottom.id if tie.bottom else None,
            bottom_seed=tie.bottom.seed if tie.bottom else None,
        )
        for tie in drawn.first_round
    ]
    for number in range(2, drawn.rounds + 1):
        rows += [
            KnockoutTie(knockout=knockout, round=number, slot=slot)
            for slot in range(drawn.size >> number)
        ]
    KnockoutTie.objects.bulk_create(rows)
    for tie, drawn_tie in zip(knockout.ties.filter(round=1), drawn.first_round, strict=True):
        winner = drawn_tie.bye_winner
        if winner is not None:
            _decide(knockout, tie, winner.id, winner.seed, now=now)


@dataclass(frozen=True)
class Advanced:
    """What :func:`advance_knockout` did: the ties it decided (ids), the games it
    scheduled, the rounds it started, and the champion once the final is decided."""

    decided: list[int] = field(default_factory=list)
    scheduled: list[Match] = field(default_factory=list)
    rounds_started: list[int] = field(default_factory=list)
    champion: int | None = None


def advance_knockout(*, tournament_id: int, now: datetime | None = None) -> Advanced:
    """Bring the knockout up to date with its finished games: each tie of the current
    round whose last game is over is decided or given its next game (the other player
    moving first); once every tie of the round is decided, the next round's first games
    are scheduled and announced (``RoundPaired``). Locks the knockout row. Nothing to do
    is no change, so running it twice changes nothing more."""
    now = now or _now()
    with transaction.atomic():
        knockout = (
            Knockout.objects.select_for_update()
            .select_related("tournament")
            .filter(tournament_id=tournament_id)
            .first()
        )
        if knockout is None:
            raise NotAKnockout(NotAKnockout.MESSAGE)
        return _advance(knockout, now=now)


def advance_knockout_now(
    *, organiser: Member, tournament_id: int, now: datetime | None = None
) -> Advanced:
    """The organiser's "advance now": :func:`advance_knockout` at their word (should the
    advance after a game's finish have failed, it is logged and this catches up)."""
    require_organiser(organiser)
    return advance_knockout(tournament_id=tournament_id, now=now)


def _advance(knockout: Knockout, *, now: datetime) -> Advanced:
    decided: list[int] = []
    scheduled: list[Match] = []
    started: list[int] = []
    while True:
        ties = list(
            knockout.ties.filter(round=knockout.current_round).select_related("top", "bottom")
        )
        openers: list[Match] = []
        for tie in ties:
            if tie.winner_id is not None:
                continue
            games = list(tie.games.select_related("match").prefetch_related("match__seats"))
            if games and not games[-1].match.is_over:
                continue  # the tie's game is being played
            score = _score(knockout, tie, games)
            if score.decided:
                on_top = score.winner is bracket.Side.TOP
                winner_id = tie.top_id if on_top else tie.bottom_id
                seed = tie.top_seed if on_top else tie.bottom_seed
                assert winner_id is not None
                assert seed is not None
                _decide(knockout, tie, winner_id, seed, now=now)
                decided.append(tie.pk)
                continue
            walkover = _walkover(tie)
            if walkover is not None:
                _decide(knockout, tie, *walkover, now=now, walkover=True)
                decided.append(tie.pk)
                continue
            match = _schedule_game(knockout, tie, games, now=now)
            scheduled.append(match)
            if not games:
                openers.append(match)
        if openers:
            announce_round(knockout.tournament_id, knockout.current_round, openers)
            started.append(knockout.current_round)
        if any(tie.winner_id is None for tie in ties) or knockout.current_round >= knockout.rounds:
            break
        knockout.current_round += 1
        knockout.save(update_fields=["current_round"])
    final = knockout.ties.filter(round=knockout.rounds).first()
    champion = final.winner_id if final is not None else None
    return Advanced(decided, scheduled, started, champion)


def _score(knockout: Knockout, tie: KnockoutTie, games: list[KnockoutGame]) -> bracket.TieScore:
    """The tie so far, from its games that count (knockout_selectors.tie_games)."""
    assert tie.top_seed is not None
    assert tie.bottom_seed is not None
    return bracket.score_tie(
        knockout.best_of,
        tie_games(tie, games),
        top_seed=tie.top_seed,
        bottom_seed=tie.bottom_seed,
    )


def _walkover(tie: KnockoutTie) -> tuple[int, int] | None:
    """The player who goes through without playing on, when the other (or both) is no
    longer a club member as the tie's next game falls due: the one still a member, or of
    two gone the higher seed (the next round walks them over in turn)."""
    top, bottom = tie.top, tie.bottom
    assert top is not None
    assert bottom is not None
    assert tie.top_seed is not None
    assert tie.bottom_seed is not None
    top_in, bottom_in = is_club_member(top), is_club_member(bottom)
    if top_in and bottom_in:
        return None
    if top_in != bottom_in:
        return (top.pk, tie.top_seed) if top_in else (bottom.pk, tie.bottom_seed)
    if tie.top_seed < tie.bottom_seed:
        return (top.pk, tie.top_seed)
    return (bottom.pk, tie.bottom_seed)


def _decide(
    knockout: Knockout,
    tie: KnockoutTie,
    winner_id: int,
    seed: int,
    *,
    now: datetime,
    walkover: bool = False,
) -> None:
    """Record ``tie``'s winner and draw them into the next round's tie (top from an even
    slot, bottom from an odd one)."""
    tie.winner_id = winner_id
    tie.decided_at = now
    tie.walkover = walkover
    tie.save(update_fields=["winner", "decided_at", "walkover"])
    if tie.round >= knockout.rounds:
        return
    side = "top" if tie.slot % 2 == 0 else "bottom"
    knockout.ties.filter(round=tie.round + 1, slot=tie.slot // 2).update(
        **{f"{side}_id": winner_id, f"{side}_seed": seed}
    )


def _schedule_game(
    knockout: Knockout, tie: KnockoutTie, games: list[KnockoutGame], *, now: datetime
) -> Match:
    """The tie's next game, seated (the higher seed First in odd games), announced
    (``FixtureScheduled``) and opened at once if its kick-off has come. Game 1 of round 1
    kicks off at the first kick-off; game 1 of a later round ``interval`` after the
    round before's last kick-off; a later game ``interval`` after the tie's last."""
    tournament = knockout.tournament
    number = len(games) + 1
    if games:
        kickoff = (games[-1].match.kickoff_at or now) + knockout.interval
    elif knockout.current_round == 1:
        kickoff = knockout.first_kickoff
    else:
        last = (
            Match.objects.filter(
                knockout_game__tie__knockout=knockout,
                knockout_game__tie__round=knockout.current_round - 1,
            )
            .order_by("-kickoff_at")
            .values_list("kickoff_at", flat=True)
            .first()
        )
        kickoff = (last or now) + knockout.interval
    kickoff = max(kickoff, now)
    label = f"{tournament.name} · {bracket.round_name(tie.round, knockout.rounds)}"
    if knockout.best_of > 1:
        label += f" · Game {number}"
    match = create_match(
        name=label[:NAME_LENGTH],
        organiser=tournament.organiser,
        kickoff_at=kickoff,
        ruleset=knockout.ruleset,
        lexicon=knockout.lexicon,
        visibility_=knockout.visibility,
        no_show_window=knockout.no_show_window,
        tournament=tournament,
        round_number=tie.round,
        rated=tournament.rated,
        challenge_rule=knockout.challenge_rule,
        challenge_window=knockout.challenge_window,
        finish_line=knockout.finish_line,
    )
    KnockoutGame.objects.create(tie=tie, match=match, number=number)
    top, bottom = tie.top, tie.bottom
    assert top is not None
    assert bottom is not None
    seated = (top, bottom) if top_moves_first(tie, number) else (bottom, top)
    seat_players(match, seated, now=now)
    return match
