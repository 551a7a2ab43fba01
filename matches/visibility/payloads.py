"""The match as data for one viewer: snapshots, news, acknowledgements (``matches.schemas``).

A rack's letters go only to the seat that holds them; the tiles a swap returned only to the
swapper; the bag's contents, order and seed to nobody (the seed only after the game, for
verification). Every builder takes the rows it needs, so what it shows is what was read.

:func:`match_view` builds from a :class:`MatchAccess` alone, without a query: a socket builds
it on the event loop. The news (:func:`public_match`, :func:`turn_news`) is built by the
services under the match lock, and reads the players' time away in their transaction.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.utils import timezone

from engine import BLANK, get_ruleset
from matches import away
from matches.away import TimeAway
from matches.challenge_window import challenge_until, open_play_player
from matches.models import Match, Seat, Turn
from matches.schemas import (
    AwayNotice,
    Challenged,
    ChallengeNews,
    ChallengeView,
    CommitAccepted,
    FinalScore,
    MatchView,
    MoveView,
    NoNews,
    OpenPlayView,
    PublicMatch,
    RackAdjustment,
    RackNews,
    RematchNews,
    ResultNews,
    SeatsNews,
    SeatView,
    TakeView,
    TileView,
    TurnNews,
    UnseenTile,
    UnseenTiles,
    WordView,
)
from matches.stored_game import adjustments_of
from matches.visibility.access import MatchAccess, Viewer, can_share
from matches.visibility.policy import may_see_rack, revealed_seed
from matches.visibility.titles import match_title


def seat_name(seat: Seat) -> str | None:
    """The seated member's name as the site shows it (a display name with the username
    beside it, so no one passes for another), or None for a free seat."""
    return seat.member.label if seat.member is not None else None


def seat_views(seats: list[Seat]) -> list[SeatView]:
    """Who sits where, scores and rack counts: public facts."""
    return [
        SeatView(
            position=seat.position,
            label=seat.get_position_display(),
            member_id=seat.member_id,
            name=seat_name(seat),
            score=seat.score,
            rack_count=len(seat.rack),
            place=seat.place,
        )
        for seat in seats
    ]


def move_view(turn: Turn, previous_hash: str) -> MoveView:
    """One move of the log as everyone may see it (a swap is only a count), with its link in
    the turn log's chain: ``previous_hash`` is the turn before's record hash (the bag's
    commitment for turn 1)."""
    play = turn.kind == Turn.Kind.PLAY
    return MoveView(
        number=turn.number,
        position=turn.position,
        kind=turn.kind,
        tiles=[TileView(**tile) for tile in turn.placement] if play else [],
        swap_count=turn.swap_count if turn.kind == Turn.Kind.SWAP else 0,
        words=[WordView(**word) for word in turn.words],
        score=turn.score,
        totals=turn.totals,
        bag_count=turn.bag_count,
        at=turn.created_at,
        previous_hash=previous_hash,
        record_hash=turn.record_hash,
        challenge=None if turn.challenge is None else challenge_view(turn.challenge),
        lost_turn=turn.lost_turn,
        takes=[TakeView(**take) for take in turn.takes],
    )


def challenge_view(challenge: dict[str, Any]) -> ChallengeView:
    """A decided challenge as a turn row keeps it (engine ``ChallengeResult.to_json``)."""
    phonies = [str(word) for word in challenge["phonies"]]
    return ChallengeView(
        by=challenge["by"], phonies=phonies, points=challenge["points"], withdrawn=bool(phonies)
    )


def open_play_view(match: Match, seats: list[Seat]) -> OpenPlayView | None:
    """The last play while it may be challenged (who played it, who may challenge it and
    until when); None when no play is open or the window has passed."""
    player = open_play_player(match)
    until = challenge_until(match)
    if player is None or (until is not None and until <= timezone.now()):
        return None
    return OpenPlayView(
        turn_number=match.turn_number,
        player=player,
        challengers=[seat.position for seat in seats if seat.position != player],
        until=until,
    )


def move_views(match: Match, turns: list[Turn]) -> list[MoveView]:
    """The move log from turn 1, each move linked to the one before it."""
    previous = [match.bag_commitment, *(turn.record_hash for turn in turns)]
    return [move_view(turn, previous[index]) for index, turn in enumerate(turns)]


def _withdrawn(turn: Turn) -> bool:
    """A phony taken back after a challenge: its tiles are no longer on the board."""
    return turn.challenge is not None and bool(turn.challenge["phonies"])


def board_rows(board_size: int, turns: list[Turn]) -> list[str]:
    """The board as strings, one per row: ``.`` empty, capitals tiles, lower case blanks."""
    grid = [["."] * board_size for _ in range(board_size)]
    for turn in turns:
        if turn.kind != Turn.Kind.PLAY or _withdrawn(turn):
            continue
        for take in turn.takes:  # Reword: a swap puts a rack tile down, a steal empties
            placed = take["placed"]
            if placed is None:
                grid[take["row"]][take["col"]] = "."
            else:
                grid[take["row"]][take["col"]] = placed.lower() if take["placed_blank"] else placed
        for tile in turn.placement:
            letter = tile["letter"].lower() if tile["blank"] else tile["letter"].upper()
            grid[tile["row"]][tile["col"]] = letter
    return ["".join(row) for row in grid]


def final_score(match: Match, seats: list[Seat]) -> FinalScore | None:
    """How the final scores were reached, once the game is over; None before (and for a
    match that ended without a deal). Rack letters never: a count and its value, as the GCG
    record's end-of-game lines publish them after the end."""
    if not match.is_over or match.game_state is None:
        return None
    adjustments = adjustments_of(match)
    final = [seat.score for seat in seats]
    before = [
        score - sum(a.points for a in adjustments if a.player == seat)
        for seat, score in enumerate(final)
    ]
    return FinalScore(
        before=tuple(before),
        adjustments=[
            RackAdjustment(
                position=a.player,
                rack_owner=a.rack_owner,
                tile_count=len(a.rack),
                points=a.points,
                totals=a.totals,
            )
            for a in adjustments
        ],
        final=tuple(final),
    )


def public_match(match: Match, seats: list[Seat], turns: list[Turn]) -> PublicMatch:
    """Everything about the match that everyone who may watch it may see (the news of its
    opening: built by a service, which holds the rows; the time away is read here)."""
    time_away = away.read(match, seats, now=timezone.now())
    return PublicMatch(**_public_fields(match, seats, turns, time_away))


def _public_fields(
    match: Match, seats: list[Seat], turns: list[Turn], time_away: TimeAway
) -> dict[str, object]:
    return {
        "match_id": match.id,
        "name": match_title(match, seats),
        "ruleset": match.ruleset,
        "lexicon": match.lexicon,
        "board_size": get_ruleset(match.ruleset).board_size,
        "visibility": match.visibility,
        "status": match.status,
        "result": match.result,
        "end_reason": match.end_reason,
        "kickoff_at": match.kickoff_at,
        "no_show_at": match.no_show_at,
        # The deadline the clock applies: later by the mover's declared vacation, if any.
        "turn_deadline_at": time_away.turn_deadline_at,
        "turn_number": match.turn_number,
        "to_move": match.to_move,
        "bag_count": match.bag_count,
        "board": board_rows(get_ruleset(match.ruleset).board_size, turns),
        "moves": move_views(match, turns),
        "bag_commitment": match.bag_commitment,
        "bag_seed": revealed_seed(match),
        "seats": seat_views(seats),
        "final_score": final_score(match, seats),
        "away": away_notices(seats, time_away),
        "seat_count": match.seat_count,
        "challenge_rule": match.challenge_rule,
        "open_play": open_play_view(match, seats),
    }


def away_notices(seats: list[Seat], time_away: TimeAway) -> list[AwayNotice]:
    """The players' declared days away in this match that have not ended."""
    names = {seat.position: seat_name(seat) or seat.get_position_display() for seat in seats}
    return [
        AwayNotice(
            position=spell.position,
            name=names[spell.position],
            first_day=spell.first_day,
            last_day=spell.last_day,
            away_now=spell.away_now,
        )
        for spell in time_away.spells
    ]


def own_rack(match: Match, seats: list[Seat], viewer: Viewer) -> list[str] | None:
    """The viewer's own rack, or None when they hold no seat (the policy asked)."""
    if viewer.seat is None or not may_see_rack(match, viewer, viewer.seat):
        return None
    return list(next(seat for seat in seats if seat.position == viewer.seat).rack)


VOWELS = frozenset("AEIOU")
#: The tracker's order: the alphabet, then the blanks.
TRACKER_ORDER = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", BLANK]


def unseen_tiles(ruleset: str, board: list[str], rack: list[str] | None) -> UnseenTiles:
    """What a viewer has not seen: the ruleset's whole set less the board and ``rack`` (the
    viewer's own, None for a spectator). A blank on the board is a blank seen, whatever
    letter it stands for. Built from the board and one rack only, so it holds nothing a
    viewer could not count at the table."""
    unseen = Counter(get_ruleset(ruleset).full_bag)
    unseen.subtract(
        char if char.isupper() else BLANK for row in board for char in row if char != "."
    )
    unseen.subtract(rack or [])
    counts = {tile: unseen[tile] for tile in TRACKER_ORDER if unseen[tile] > 0}
    total = sum(counts.values())
    vowels = sum(counts.get(tile, 0) for tile in VOWELS)
    blanks = counts.get(BLANK, 0)
    return UnseenTiles(
        tiles=[UnseenTile(tile=tile, count=count) for tile, count in counts.items()],
        total=total,
        vowels=vowels,
        consonants=total - vowels - blanks,
        blanks=blanks,
    )


def match_view(access: MatchAccess) -> MatchView:
    """The public facts plus, for a seated viewer, their own rack, the tiles this viewer has
    not seen (counts), and the share link for those who may copy it: from ``access`` alone,
    with no query (the socket builds it on the event loop)."""
    match, viewer = access.match, access.viewer
    shared = can_share(match, viewer)
    public = PublicMatch(**_public_fields(match, access.seats, access.turns, access.away))
    rack = own_rack(match, access.seats, viewer)
    return MatchView(
        **dict(public),
        your_seat=viewer.seat,
        rack=rack,
        unseen=unseen_tiles(match.ruleset, public.board, rack),
        can_share=shared,
        viewing_key=match.viewing_key if shared else None,
    )


def turn_news(match: Match, turn: Turn, seats: list[Seat], *, previous_hash: str) -> TurnNews:
    """The public news of one move: the move (with its link in the chain: the turn before's
    record hash), totals, counts, who is next and until when (built by the commit service,
    under the match lock: the deadline a vacation pauses is read in its transaction)."""
    time_away = away.read(match, seats, now=timezone.now())
    return TurnNews(
        move=move_view(turn, previous_hash),
        turn_number=match.turn_number,
        to_move=match.to_move,
        bag_count=match.bag_count,
        turn_deadline_at=time_away.turn_deadline_at,  # a vacation pauses it
        seats=seat_views(seats),
        open_play=open_play_view(match, seats),
    )


def challenge_news(
    match: Match, turn: Turn, seats: list[Seat], turns: list[Turn], *, previous_hash: str
) -> ChallengeNews:
    """The public news of a decided challenge of ``turn`` (the play, as it now stands, linked
    to the turn before it): the outcome, the board after it (``turns``: the whole log), who
    is next and until when (built by the challenge service, under the match lock)."""
    assert turn.challenge is not None, "the turn was challenged"
    time_away = away.read(match, seats, now=timezone.now())
    return ChallengeNews(
        move=move_view(turn, previous_hash),
        challenge=challenge_view(turn.challenge),
        board=board_rows(get_ruleset(match.ruleset).board_size, turns),
        turn_number=match.turn_number,
        to_move=match.to_move,
        bag_count=match.bag_count,
        turn_deadline_at=time_away.turn_deadline_at,
        seats=seat_views(seats),
    )


def challenged(turn: Turn) -> Challenged:
    """The challenger's acknowledgement: the outcome of their challenge of ``turn``."""
    assert turn.challenge is not None, "the turn was challenged"
    return Challenged(turn_number=turn.number, challenge=challenge_view(turn.challenge))


def rack_news(match: Match, seat: Seat) -> RackNews:
    """A seat's own rack: only ever sent to that seat's member."""
    return RackNews(position=seat.position, rack=list(seat.rack), turn_number=match.turn_number)


def seats_news(seats: list[Seat]) -> SeatsNews:
    """Who sits where now (after someone sat down)."""
    return SeatsNews(seats=seat_views(seats))


def no_news() -> NoNews:
    """The body of an event that says only that it happened."""
    return NoNews()


def result_news(match: Match, seats: list[Seat]) -> ResultNews:
    """How the match ended: result, reason, final scores."""
    return ResultNews(
        status=match.status,
        result=match.result,
        end_reason=match.end_reason,
        scores=[seat.score for seat in seats],
        places=[seat.place for seat in seats],
        finished_at=match.finished_at,
        final_score=final_score(match, seats),
        bag_seed=match.bag_seed if match.is_over else None,
    )


def rematch_news(*, state: str, offered_by: int, rematch_id: int | None) -> RematchNews:
    """A rematch offered, accepted or declined: for the two players of the match only."""
    return RematchNews.model_validate(
        {"state": state, "offered_by": offered_by, "rematch_id": rematch_id}
    )


def commit_accepted(match: Match, seat: Seat, turn: Turn) -> CommitAccepted:
    """The accepted-commit acknowledgement for the mover: the score and their new rack."""
    return CommitAccepted(
        score=turn.score,
        words=[WordView(**word) for word in turn.words],
        turn_number=match.turn_number,
        rack=list(seat.rack),
    )
