"""Records for one viewer: the API's rows and states, the replay, GCG, the bag's proof.

While a match is played, a replay shows what the viewer saw at that turn (the public facts,
and their own rack as it was then) and a GCG export holds their own racks only. Once it is
over the whole record is public (:mod:`matches.visibility.record`): every seat's racks, every
swap's letters, the final racks and the seed, to whoever may see the match.
"""

from __future__ import annotations

from engine import Game, export_gcg, get_ruleset
from matches.models import Match, Seat, Turn
from matches.records import replayed_game
from matches.schemas import (
    BagProof,
    Contribution,
    MatchRow,
    MatchState,
    Replay,
    SeatRow,
    SeatView,
)
from matches.visibility.access import MatchAccess
from matches.visibility.analysis import turn_analysis
from matches.visibility.pages import result_text
from matches.visibility.payloads import (
    board_rows,
    final_score,
    match_view,
    move_views,
    seat_name,
)
from matches.visibility.policy import may_see_rack, revealed_seed
from matches.visibility.record import record_is_public, seats_shown, turn_tiles
from matches.visibility.titles import match_title


def bag_proof(match: Match, seats: list[Seat]) -> BagProof:
    """The bag's commitment, each seat's contribution, and the seed once the match is over.

    A contribution alone predicts nothing (the draws are keyed by the secret seed), so it is
    public from the moment it is made; the seed is withheld until the end.
    """
    return BagProof(
        commitment=match.bag_commitment,
        seed=revealed_seed(match),
        contributions=[
            Contribution(position=seat.position, value=seat.contribution or None) for seat in seats
        ],
    )


def api_match_row(match: Match) -> MatchRow:
    """One match of the API's list: public facts only (prefetch ``seats__member``)."""
    return MatchRow(
        id=match.id,
        name=match_title(match, list(match.seats.all())),
        status=match.status,
        visibility=match.visibility,
        ruleset=match.ruleset,
        kickoff_at=match.kickoff_at,
        finished_at=match.finished_at,
        tournament_id=match.tournament_id,
        round_number=match.round_number,
        result=match.result,
        end_reason=match.end_reason,
        turn_number=match.turn_number,
        to_move=match.to_move,
        seats=[
            SeatRow(
                position=seat.position,
                label=seat.get_position_display(),
                member_id=seat.member_id,
                name=seat_name(seat),
                score=seat.score,
            )
            for seat in match.seats.all()
        ],
    )


def api_match_state(access: MatchAccess) -> MatchState:
    """The API's match state: the viewer's view (as on the page) plus the bag's proof."""
    view = match_view(access)
    return MatchState(**dict(view), bag=bag_proof(access.match, access.seats))


def _rack_after(turns: list[Turn], seats: list[Seat], position: int, count: int) -> str:
    """Seat ``position``'s rack after ``count`` turns.

    A rack changes only on its owner's turns, so it is the ``rack_before`` of the owner's next
    turn, or the stored rack when they have not moved since.
    """
    later = next((turn for turn in turns[count:] if turn.position == position), None)
    return later.rack_before if later is not None else seats[position].rack


class TurnNotPlayed(ValueError):
    """A replay asked for a turn that has not been played."""


def replay(access: MatchAccess, turn: int) -> Replay:
    """The match after ``turn`` turns (0: the opening position).

    The same public facts as :func:`match_view` at that moment, and the viewer's own rack
    as it was then; the other rack only as a count. Once the match is over, every seat's
    rack at that step and the tiles of each turn shown too (the whole record is public).
    """
    match, seats, turns, viewer = access.match, access.seats, access.turns, access.viewer
    count = len(turns)
    if not 0 <= turn <= count:
        raise TurnNotPlayed(f"turn must be between 0 and {count}")
    shown = turns[:turn]
    final = turn == count
    ruleset = get_ruleset(match.ruleset)
    if shown:
        # The final position's scores include the end-of-game rack adjustments.
        last = shown[-1]
        scores = [s.score for s in seats] if final else list(last.totals)
        bag_count = last.bag_count
    else:
        scores = [0] * len(seats)
        dealt = match.game_state is not None
        dealt_tiles = len(seats) * ruleset.rack_size
        bag_count = ruleset.tile_count - dealt_tiles if dealt else match.bag_count
    racks = [_rack_after(turns, seats, seat.position, turn) for seat in seats]
    public = record_is_public(match)
    return Replay(
        match_id=match.id,
        name=match_title(match, seats),
        ruleset=match.ruleset,
        lexicon=match.lexicon,
        board_size=ruleset.board_size,
        visibility=match.visibility,
        turn=turn,
        turn_count=count,
        final=final,
        status=match.status if final else Match.Status.LIVE,
        result=match.result if final else "",
        end_reason=match.end_reason if final else "",
        turn_number=turn,
        to_move=match.to_move if final else turns[turn].position,
        bag_count=bag_count,
        board=board_rows(ruleset.board_size, shown),
        moves=move_views(match, shown),
        bag_commitment=match.bag_commitment,
        bag_seed=revealed_seed(match),
        seats=[
            SeatView(
                position=seat.position,
                label=seat.get_position_display(),
                member_id=seat.member_id,
                name=seat_name(seat),
                score=scores[seat.position],
                rack_count=len(racks[seat.position]),
                place=seat.place if final else None,
            )
            for seat in seats
        ],
        your_seat=viewer.seat,
        rack=list(racks[viewer.seat])
        if viewer.seat is not None and may_see_rack(match, viewer, viewer.seat)
        else None,
        racks=[list(rack) for rack in racks] if public else None,
        turn_tiles=turn_tiles(shown) if public else None,
        final_score=final_score(match, seats) if final else None,
        analysis=turn_analysis(access, turn),
    )


def _gcg_notes(match: Match, seats: list[Seat]) -> list[str]:
    """Why a match ended when no rack line says so (a forfeit, a no-show, a resignation).

    GCG has no event for a resignation (its move lines are plays, exchanges, passes,
    challenges, time penalties and end-of-game racks), so, like a forfeit, it is a
    ``#note`` after the last move, which readers show and keep.
    """
    if match.end_reason in (Match.EndReason.FORFEIT, Match.EndReason.NO_SHOW):
        return [f"{result_text(match, seats)}: {match.get_end_reason_display().lower()}."]
    if match.end_reason == Match.EndReason.RESIGNED:
        loser = max(seats, key=lambda seat: seat.place or 0)  # the resigner is placed last
        who = seat_name(loser) or loser.get_position_display()
        return [f"{who} ({loser.get_position_display()}) resigned. {result_text(match, seats)}."]
    return []


def gcg_for(access: MatchAccess) -> str | None:
    """The match as a GCG record for its viewer, or None before the tiles are dealt.

    While it is played: rack letters (and a swap's letters) only for the viewer's own seat,
    the other seat's exchanges as counts. Once it is over, for everyone who may see it: the
    rack on every move line, every exchange's letters, the end-of-game racks as letters, and
    for a game that ended with no end-of-game rack lines (a resignation, a forfeit) the racks
    left as ``#rack1``/``#rack2``. Blanks are lower case. The writer folds every name, the
    title and the notes onto one line each: a display name cannot add a line to the record.
    """
    match, seats, viewer = access.match, access.seats, access.viewer
    if match.game_state is None:
        return None
    game = replayed_game(match, seats, access.turns)  # the whole game, from the log
    names = tuple(seat_name(seat) or seat.get_position_display() for seat in seats)
    return export_gcg(
        game,
        player_names=names,
        visible_racks=seats_shown(match, viewer),
        title=match_title(match, seats),
        game_id=("wordduel", str(match.id)),
        notes=_gcg_notes(match, seats),
        pragmas=chain_pragmas(match, access.turns) + _racks_left(match, seats, game),
    )


def _racks_left(match: Match, seats: list[Seat], game: Game) -> list[tuple[str, str]]:
    """``#rack1``/``#rack2``: the racks held when a public record stops with no end-of-game
    rack lines to show them (a resignation, a forfeit, an organiser's ruling). GCG's
    pragmas for the racks at the end of a record that was not played out."""
    if not record_is_public(match) or game.adjustments:
        return []
    return [(f"rack{seat.position + 1}", seat.rack) for seat in seats if seat.rack]


def chain_pragmas(match: Match, turns: list[Turn]) -> list[tuple[str, str]]:
    """The turn log's chain as GCG pragmas: ``#bag-commitment HEX`` (turn 1's previous hash),
    then ``#turn-hash N HEX`` for each turn (readers keep pragmas they do not know)."""
    return [("bag-commitment", match.bag_commitment)] + [
        ("turn-hash", f"{turn.number} {turn.record_hash}") for turn in turns
    ]
