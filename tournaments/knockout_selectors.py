"""A knockout as its tournament page draws it: a column per round, each tie with its seeds,
names, the score of each game and of the tie, and its winner. Nothing here writes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from matches import visibility
from matches.game_counts import counts, game_counts
from matches.models import Match, Tournament
from tournaments import knockout as bracket
from tournaments.models import Knockout, KnockoutGame, KnockoutTie

if TYPE_CHECKING:
    from accounts.models import Member


@dataclass(frozen=True)
class BracketSide:
    """One side of a tie: seed and name (None: a bye, or a place not yet decided)."""

    seed: int | None
    name: str | None
    won: bool
    member: Member | None = None


@dataclass(frozen=True)
class BracketGame:
    """A game of a tie, scores from the tie's top side (``"—"`` before kick-off)."""

    match_id: int
    number: int
    score: str
    status_label: str
    #: The scores from the top's and the bottom's side (None before kick-off), and the
    #: match's status (``Match.Status``), for the API.
    top_score: int | None = None
    bottom_score: int | None = None
    status: str = Match.Status.SCHEDULED


@dataclass(frozen=True)
class BracketTie:
    slot: int
    top: BracketSide
    bottom: BracketSide
    games: list[BracketGame]
    #: The tie's points (``"2–1"``), once a game has a result.
    score: str
    bye: bool
    decided: bool
    #: Decided without playing on: the other player was no longer a club member.
    walkover: bool
    #: Where the tie stands by its counted games (None before one has a result).
    tie_score: bracket.TieScore | None = None


@dataclass(frozen=True)
class BracketRound:
    number: int
    name: str
    ties: list[BracketTie]


@dataclass(frozen=True)
class BracketView:
    best_of: int
    seeding: str
    current_round: int
    rounds: list[BracketRound]
    champion: str | None
    champion_member: Member | None = None

    @property
    def finished(self) -> bool:
        return self.champion is not None


def _side(member: Member | None, seed: int | None, winner_id: int | None) -> BracketSide:
    """The name as the site shows it (``Member.label``, as a seat's: display name and
    username, so no one passes for another)."""
    if member is None:
        return BracketSide(seed=seed, name=None, won=False)
    return BracketSide(seed=seed, name=member.label, won=member.pk == winner_id, member=member)


def top_moves_first(tie: KnockoutTie, number: int) -> bool:
    """Whether the tie's top player sits First in its game ``number`` (the higher seed is
    First in odd games): a game's sides go by its number, so a substitute seated by an
    organiser plays for the side whose seat they took."""
    assert tie.top_seed is not None
    assert tie.bottom_seed is not None
    return (tie.top_seed < tie.bottom_seed) == bracket.higher_seed_first(number)


def tie_games(tie: KnockoutTie, games: Iterable[KnockoutGame]) -> list[bracket.Game]:
    """The tie's games that count, as the bracket scores them: the winner by the game's
    result, the spread from the top's side as the standings count it (RULES.md section 12:
    a forfeit or a ruling adds none; a resignation never favours the resigner). A game
    with no result (cancelled, voided, abandoned) does not count: it is replayed."""
    counted = []
    for game in games:
        match = game.match
        if not counts(match):
            continue
        seats = sorted(match.seats.all(), key=lambda seat: seat.position)
        first_is_top = top_moves_first(tie, game.number)
        first_spread = 0
        for line in game_counts(match, seats):
            first_spread = line.spread if line.member_id == seats[0].member_id else -line.spread
            break
        if match.result == Match.Result.DRAW:
            winner = None
        else:
            first_won = match.result == Match.Result.FIRST
            winner = bracket.Side.TOP if first_won == first_is_top else bracket.Side.BOTTOM
        spread = first_spread if first_is_top else -first_spread
        counted.append(bracket.Game(winner=winner, spread=spread))
    return counted


def _tie(knockout: Knockout, tie: KnockoutTie) -> BracketTie:
    games = []
    for game in tie.games.all():
        match = game.match
        seats = sorted(match.seats.all(), key=lambda seat: seat.position)
        top_first = top_moves_first(tie, game.number)
        top_score, bottom_score = (
            (seats[0].score, seats[1].score) if top_first else (seats[1].score, seats[0].score)
        )
        kicked_off = match.status != Match.Status.SCHEDULED
        games.append(
            BracketGame(
                match_id=match.id,
                number=game.number,
                score=f"{top_score}\u2013{bottom_score}" if kicked_off else "\u2014",
                top_score=top_score if kicked_off else None,
                bottom_score=bottom_score if kicked_off else None,
                status=match.status,
                status_label=(
                    visibility.result_text(match, seats)
                    if match.is_over
                    else match.get_status_display()
                ),
            )
        )
    counted = tie_games(tie, tie.games.all())
    score = ""
    tie_score = None
    if counted:
        assert tie.top_seed is not None
        assert tie.bottom_seed is not None
        tie_score = bracket.score_tie(
            knockout.best_of, counted, top_seed=tie.top_seed, bottom_seed=tie.bottom_seed
        )
        score = tie_score.text
    bye = tie.round == 1 and (tie.top_id is None) != (tie.bottom_id is None)
    return BracketTie(
        slot=tie.slot,
        top=_side(tie.top, tie.top_seed, tie.winner_id),
        bottom=_side(tie.bottom, tie.bottom_seed, tie.winner_id),
        games=games,
        score=score,
        bye=bye,
        decided=tie.winner_id is not None,
        walkover=tie.walkover,
        tie_score=tie_score,
    )


def knockout_bracket(tournament: Tournament) -> BracketView | None:
    """The knockout's bracket, or None for a tournament of another format. For a visitor
    :func:`~matches.visibility.can_view_tournament` allowed: public facts only."""
    knockout = Knockout.objects.filter(tournament=tournament).first()
    if knockout is None:
        return None
    ties = knockout.ties.select_related("top", "bottom", "winner").prefetch_related(
        "games__match__seats__member"
    )
    by_round: dict[int, list[BracketTie]] = {}
    champion = None
    for tie in ties:
        by_round.setdefault(tie.round, []).append(_tie(knockout, tie))
        if tie.round == knockout.rounds and tie.winner is not None:
            champion = tie.winner
    return BracketView(
        best_of=knockout.best_of,
        seeding=knockout.get_seeding_display(),
        current_round=knockout.current_round,
        rounds=[
            BracketRound(
                number, bracket.round_name(number, knockout.rounds), by_round.get(number, [])
            )
            for number in range(1, knockout.rounds + 1)
        ],
        champion=champion.label if champion is not None else None,
        champion_member=champion,
    )
