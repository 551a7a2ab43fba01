"""Reword through the commit service: a take-play is written as one turn, shown as the move
log's ``takes``, rebuilt identically from the log, and every refusal of the engine's is
relayed with nothing changed. Real PostgreSQL; the moves come from the engine's generator.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from engine import Pass, PlacedTile, Play, StealTake, SwapTake, TakePlay, export_gcg
from engine.board import format_position
from engine.errors import (
    NotAnEndLetter,
    NoTileToTake,
    SquareBlocked,
    TakeBreaksWord,
    TakenTileNotPlayed,
    TakenTwice,
    TakesOff,
    TilesNotOnRack,
    TooManyTakes,
)
from engine.reword import steal_squares
from lexicon.lexicon import get_lexicon
from matches import offline_check, services, visibility
from matches.chain import chain_problems
from matches.integrity import match_problems
from matches.live.protocol import move_of as frame_move
from matches.live.protocol import parse_request
from matches.models import CommitReceipt, Match, Seat, Turn
from matches.records import move_of, new_game, replayed_game, replayed_steps, verify_bag
from matches.schemas import PlayRequest, TakeView
from matches.visibility.pages import move_lines
from tests.matches.helpers import assert_tiles_conserved, commit_now, game_of, rack_of
from tests.matches.reword_helpers import best_plain, best_take, planned_move, reword_match

pytestmark = pytest.mark.django_db


def state_of(match: Match) -> tuple:
    """Everything a refused move must leave as it was."""
    match.refresh_from_db()
    seats = tuple(
        Seat.objects.filter(match=match).order_by("position").values_list("rack", "score")
    )
    return (match.game_state, match.turn_number, match.to_move, match.bag_count, seats,
            Turn.objects.filter(match=match).count())  # fmt: skip


def mover(match: Match, alice, bob):
    match.refresh_from_db()
    return (alice, bob)[match.to_move]


def play_until_a_steal(match: Match, alice, bob) -> None:
    """Plain plays (the best of each rack) until the board has a tile a steal could take."""
    for _ in range(6):
        game = game_of(match)
        if steal_squares(game.board) and best_take(game, sort="steal") is not None:
            return
        plain = best_plain(game)
        move = plain.move if plain is not None else Pass()
        commit_now(match, mover(match, alice, bob), move, assert_accepted=True)
    raise AssertionError("no steal became possible")


@pytest.fixture
def reword(make_fixture, alice, bob) -> Match:
    match = reword_match(make_fixture, alice, bob, seed=7)
    play_until_a_steal(match, alice, bob)
    return match


def test_a_take_play_is_one_turn_public_as_takes_and_secret_as_to_the_rack(reword, alice, bob):
    game = game_of(reword)
    move = best_take(game, sort="steal")
    assert move is not None
    player = mover(reword, alice, bob)
    seat = reword.to_move
    before = rack_of(reword, seat)
    outcome = commit_now(reword, player, move, client_id="take-1", assert_accepted=True)
    reword.refresh_from_db()
    turn = Turn.objects.get(match=reword, number=reword.turn_number)
    take = move.takes[0]
    face = game.board.cells[take.row * game.board.size + take.col]
    assert turn.kind == "play"
    assert turn.placement == [tile.to_dict() for tile in move.tiles]
    assert turn.takes == [
        {"take": "steal", "row": take.row, "col": take.col, "letter": face.upper(),
         "blank": face.islower(), "placed": None, "placed_blank": False}
    ]  # fmt: skip
    # The rack: what was left after the play (taken tiles included), then the draw.
    assert turn.rack_before == before
    from_rack = len(move.tiles) - len(move.takes)
    assert len(turn.drawn) == min(from_rack, game.bag_count)
    assert outcome.ack["rack"] == list(rack_of(reword, seat))
    assert outcome.ack["score"] == turn.score > 0
    # Everyone's view: a play with its takes, the board as the takes and the play left it.
    public = visibility.match_view(
        services.look_at_match(user=AnonymousUser(), match_id=reword.id, key=None)
    )
    shown = public.moves[-1]
    assert shown.kind == "play"
    assert shown.takes == [TakeView(**turn.takes[0])]
    after = game_of(reword)
    assert public.board == list(after.board.rows())
    assert public.rack is None
    # the match page's move list says it in words, and the page shows it to a spectator
    square = format_position(take.row, take.col, across=True)
    taken = face.lower() if face.islower() else face
    line = move_lines(public)[-1]
    assert line.what.startswith(f"stole {taken} at {square}, then played ")
    page = Client().get(f"/matches/{reword.id}/").content.decode()
    assert f"stole {taken} at {square}, then played" in page
    assert_tiles_conserved(reword)
    assert match_problems(reword) == []


def test_a_swap_take_records_both_tiles_and_the_board_shows_the_rack_tile(reword, alice, bob):
    game = game_of(reword)
    move = best_take(game, sort="swap")
    assert move is not None
    commit_now(reword, mover(reword, alice, bob), move, assert_accepted=True)
    reword.refresh_from_db()
    turn = Turn.objects.get(match=reword, number=reword.turn_number)
    take = move.takes[0]
    assert isinstance(take, SwapTake)
    face = game.board.cells[take.row * game.board.size + take.col]
    assert turn.takes == [
        {"take": "swap", "row": take.row, "col": take.col, "letter": face.upper(),
         "blank": face.islower(), "placed": take.letter, "placed_blank": take.blank}
    ]  # fmt: skip
    board = game_of(reword).board
    assert board.cells[take.row * board.size + take.col] == take.placed.board_char
    view = visibility.match_view(services.look_at_match(user=bob, match_id=reword.id, key=None))
    assert view.board == list(board.rows())
    square = format_position(take.row, take.col, across=True)
    taken = face.lower() if face.islower() else face
    assert move_lines(view)[-1].what.startswith(
        f"swapped {take.placed.board_char} for {taken} at {square}, then played "
    )
    assert_tiles_conserved(reword)


def _refusals(game) -> list[tuple[object, type]]:
    """One move for each class of Reword refusal, on this position, with the error the
    engine gives it (each checked against the engine first: the test's premise)."""
    rack = game.racks[game.to_move]
    legal = best_take(game, sort="steal")
    assert legal is not None
    steal = legal.takes[0]
    size = game.board.size
    stolen = game.board.cells[steal.row * size + steal.col]
    empty = next(
        (row, col) for row in range(size) for col in range(size)
        if game.board.cells[row * size + col] is None
    )  # fmt: skip
    middle = _middle_letter(game.board)
    not_held = next(letter for letter in "ZQXJKVWY" if letter not in rack)
    breaker = _word_breaking_swap(game)
    plain = best_plain(game)
    assert plain is not None
    cases = [
        (TakePlay((steal,) * 5, legal.tiles), TooManyTakes),
        (TakePlay((StealTake(*empty),), legal.tiles), NoTileToTake),
        (TakePlay((StealTake(*middle),), legal.tiles), NotAnEndLetter),
        (TakePlay((steal, steal), legal.tiles), TakenTwice),
        (TakePlay((SwapTake(steal.row, steal.col, not_held),), legal.tiles), TilesNotOnRack),
        (TakePlay((breaker,), legal.tiles), TakeBreaksWord),
        (
            TakePlay(
                (steal,), (PlacedTile(steal.row, steal.col, stolen.upper(), stolen.islower()),)
            ),
            SquareBlocked,
        ),
        (TakePlay((steal,), plain.move.tiles), TakenTileNotPlayed),
    ]
    lexicon = get_lexicon("enable")
    for move, error in cases:
        with pytest.raises(error):
            game.apply(move, player=game.to_move, lexicon=lexicon)
    return cases


def _middle_letter(board) -> tuple[int, int]:
    """A tile inside a word across (neither its first nor its last letter)."""
    rows = board.rows()
    for row, text in enumerate(rows):
        for col in range(1, len(text) - 1):
            if all(char != "." for char in text[col - 1 : col + 2]):
                return row, col
    columns = ["".join(row[col] for row in rows) for col in range(board.size)]
    for col, text in enumerate(columns):
        for row in range(1, len(text) - 1):
            if all(char != "." for char in text[row - 1 : row + 2]):
                return row, col
    raise AssertionError("no word of three letters on the board")


def _word_breaking_swap(game) -> SwapTake:
    """A swap of a rack tile onto a board tile that leaves a word that is not one."""
    from engine.errors import MoveError
    from engine.reword import apply_takes

    lexicon = get_lexicon("enable")
    rack = game.racks[game.to_move]
    for row, col, _ in game.board.occupied():
        for tile in sorted(set(rack) - {"?"}):
            swap = SwapTake(row, col, tile)
            try:
                apply_takes(game.board, rack, (swap,), lexicon=lexicon)
            except TakeBreaksWord:
                return swap
            except MoveError:
                continue
    raise AssertionError("every swap leaves words")


def test_every_class_of_take_refusal_is_relayed_with_its_code_and_nothing_changes(
    reword, alice, bob
):
    game = game_of(reword)
    player = mover(reword, alice, bob)
    before = state_of(reword)
    for number, (move, error) in enumerate(_refusals(game)):
        outcome = commit_now(reword, player, move, client_id=f"refused-{number}")
        assert not outcome.accepted
        assert outcome.code == error.code, (error, outcome)
        assert outcome.message, outcome
        assert state_of(reword) == before, error
        receipt = CommitReceipt.objects.get(match=reword, client_id=f"refused-{number}")
        assert (receipt.accepted, receipt.response["code"]) == (False, error.code)
    # the word a refused swap would break is named, in capitals
    breaking = next(move for move, error in _refusals(game) if error is TakeBreaksWord)
    outcome = commit_now(reword, player, breaking)
    assert outcome.message.startswith("That would leave ")
    assert outcome.message.endswith(" on the board, which is not a word.")
    assert_tiles_conserved(reword)


def test_takes_on_a_word_duel_match_are_refused_and_nothing_changes(live_match, alice, bob):
    first = best_plain(game_of(live_match))
    assert first is not None
    commit_now(live_match, alice, first.move, assert_accepted=True)
    end = first.move.tiles[-1]
    second = best_plain(game_of(live_match))
    assert second is not None
    move = TakePlay((StealTake(end.row, end.col),), second.move.tiles)
    before = state_of(live_match)
    outcome = commit_now(live_match, bob, move, client_id="takes-off")
    assert (outcome.accepted, outcome.code) == (False, TakesOff.code)
    assert outcome.message == TakesOff.default_message
    assert state_of(live_match) == before
    # a play frame's takes are the engine's take-play (so the socket is refused the same)
    frame = {"type": "play", "id": "x", "turn": 1, "tiles": [t.to_dict() for t in move.tiles],
             "takes": [take.to_dict() for take in move.takes]}  # fmt: skip
    parsed = parse_request(json.dumps(frame))
    assert isinstance(parsed, PlayRequest)
    assert frame_move(parsed) == move


def test_a_whole_game_with_takes_rebuilds_identically_from_its_log(make_fixture, alice, bob):
    """Played to its end through the service: every stored turn gives back its move, the
    replayed game is the stored one, the chain holds, the bag checks (server, offline script)
    pass, and the GCG record shows the takes once the game is over."""
    match = reword_match(make_fixture, alice, bob, seed=3)
    moves = []
    while True:
        match.refresh_from_db()
        if match.is_over:
            break
        assert len(moves) < 80
        move = planned_move(game_of(match))
        commit_now(match, mover(match, alice, bob), move, assert_accepted=True)
        moves.append(move)
        assert_tiles_conserved(match)
    takes = [move for move in moves if isinstance(move, TakePlay)]
    assert sum(isinstance(m.takes[0], StealTake) for m in takes) >= 2
    assert sum(isinstance(m.takes[0], SwapTake) for m in takes) >= 2
    assert any(len(m.takes) == 2 for m in takes)
    turns = list(match.turns.order_by("number"))
    assert [move_of(turn) for turn in turns] == moves
    seats = list(match.seats.order_by("position"))
    replayed = replayed_game(match, seats, turns)
    stored = game_of(match)
    assert (replayed.board, replayed.racks, replayed.scores, replayed.bag) == (
        stored.board, stored.racks, stored.scores, stored.bag
    )  # fmt: skip
    assert chain_problems(turns, match.bag_commitment) == []
    assert verify_bag(match).ok, verify_bag(match).mismatches
    assert match_problems(match) == []
    access = services.look_at_match(user=AnonymousUser(), match_id=match.id, key=None)
    record = visibility.fairness_record(access)
    assert record is not None
    ok, lines = offline_check.check(json.loads(record.model_dump_json()))
    assert ok, lines
    assert any(move.takes for move in record.moves)
    gcg = visibility.gcg_for(access)
    assert gcg is not None
    names = tuple(seat.member.username for seat in seats)
    assert gcg.count(" ~") == sum(isinstance(t, SwapTake) for m in takes for t in m.takes)
    assert gcg.count(" ^") == sum(isinstance(t, StealTake) for m in takes for t in m.takes)
    assert export_gcg(replayed, player_names=names).count(" ^") == gcg.count(" ^")
    # the replay carries the takes (one schema), and each step's board is the engine's
    steps = [game for _turn, game in replayed_steps(new_game(match, seats), turns)]
    for number in (1, len(turns) // 2, len(turns)):
        step = visibility.replay(access, number)
        assert [len(view.takes) for view in step.moves] == [len(t.takes) for t in turns[:number]]
        assert step.board == list(steps[number - 1].board.rows())


def test_a_tampered_take_is_found_by_the_bag_checks(make_fixture, alice, bob):
    match = reword_match(make_fixture, alice, bob, seed=3)
    while not match.is_over:
        commit_now(match, mover(match, alice, bob), planned_move(game_of(match)),
                   assert_accepted=True)  # fmt: skip
        match.refresh_from_db()
    access = services.look_at_match(user=AnonymousUser(), match_id=match.id, key=None)
    record = json.loads(visibility.fairness_record(access).model_dump_json())  # type: ignore[union-attr]
    move = next(move for move in record["moves"] if move["takes"])
    move["takes"][0]["letter"] = "Z" if move["takes"][0]["letter"] != "Z" else "Q"
    ok, lines = offline_check.check(record)
    assert not ok
    assert any(f"Turn {move['number']}" in line for line in lines if line.startswith("FAILED"))


def test_a_plain_play_on_reword_is_a_play_with_no_takes(make_fixture, alice, bob):
    match = reword_match(make_fixture, alice, bob, seed=5)
    plain = best_plain(game_of(match))
    assert plain is not None
    assert isinstance(plain.move, Play)
    commit_now(match, alice, plain.move, assert_accepted=True)
    turn = Turn.objects.get(match=match)
    assert (turn.kind, turn.takes) == ("play", [])
    assert move_of(turn) == plain.move
    view = visibility.match_view(services.look_at_match(user=bob, match_id=match.id, key=None))
    assert view.moves[0].takes == []
    assert "takes" not in json.dumps(_chain_record(turn, match.bag_commitment))


def _chain_record(turn: Turn, previous: str) -> dict:
    from matches.chain import public_record

    return public_record(turn, previous)
