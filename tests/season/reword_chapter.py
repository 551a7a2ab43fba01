"""A chapter of the season: a Reword evening (issue 40). The lead wires it into
``tests/season/test_season.py`` (``a_reword_evening(season)``, after the members have
joined); it needs nothing of the other chapters but the members.

Cat plays the computer at Reword from the home page's form, over her socket: she steals and
swaps tiles from the board (moves found by the engine's own generator, sent as the protocol's
``play`` with ``takes``), the computer at Hard answers with swaps and steals of its own, live;
practice is quiet, so nobody is told a thing until she resigns. Then the page's move list,
the replay and the GCG record show the takes, and the bag check of the finished game passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import StealTake, SwapTake, TakePlay
from matches import offline_check
from matches.models import Match
from tests.matches.helpers import title_of
from tests.matches.reword_helpers import best_plain, best_take, play_frame
from tests.matches.test_ws_helpers import current_game
from tests.season.play import Board, client_id, position_now, send
from tests.season.world import page_text

if TYPE_CHECKING:  # the season's own type, from the module that runs the chapters
    from tests.season.test_season import Season

#: The most turns the evening lasts: Cat resigns once both sides have taken from the board.
MOST_TURNS = 30


def a_reword_evening(season: Season) -> None:
    """Cat's Reword game against the computer, with swaps and steals on both sides."""
    cat = season["cat"]
    home = page_text(cat.get("/").text)
    assert "Reword: swap and steal tiles from the board" in home
    started = cat.submit("/", "Play the computer", {"ruleset": "reword", "level": "hard"})
    match = Match.objects.get(pk=int(started.url.rstrip("/").split("/")[-1]))
    assert (match.ruleset, match.status) == ("reword", "live")
    board = Board(season.world, match.id, cat)
    assert board.snapshot["your_seat"] == 0
    assert board.snapshot["ruleset"] == "reword"
    title = title_of(match)

    made: set[str] = set()
    computer_took = False
    state = board.snapshot
    while not ({"steal", "swap"} <= made and computer_took):
        assert state["turn_number"] < MOST_TURNS, "no swap and steal on both sides"
        assert state["to_move"] == 0, state["to_move"]
        move = _cats_move(match.id, made)
        news = _play(board, move, turn=state["turn_number"])
        if isinstance(move, TakePlay):
            made.add("steal" if isinstance(move.takes[0], StealTake) else "swap")
            assert news["move"]["takes"] == _takes_shown(move, news)
        if news["to_move"] is None:
            break
        answer = news["turn_number"] + 1
        reply = board.wait_for(
            lambda f, n=answer: f["type"] == "turn" and f["data"]["turn_number"] == n
        )["data"]
        assert reply["move"]["position"] == 1  # the computer's own move, live
        computer_took = computer_took or bool(reply["move"]["takes"])
        state = board.sync()
    season.ledger.expect({}, what="a Reword practice's swaps and steals")
    assert {"steal", "swap"} <= made
    assert computer_took, "the computer at Hard never swapped or stole"

    assert send(board, {"type": "resign"})["code"] == "resigned"
    season.ledger.expect(
        {"cat": [f"You lost by resignation: {title}"]}, what="Cat's Reword game resigned"
    )
    fairness = board.event("fairness")["data"]
    ok, lines = offline_check.check(fairness)
    assert ok, lines
    board.close()
    _the_record_shows_the_takes(season, match)


def _cats_move(match_id: int, made: set[str]) -> Any:
    """A steal first, then a swap, then the best plain play (or take) the engine finds."""
    game = current_game(match_id)
    for sort in ("steal", "swap"):
        if sort not in made and (move := best_take(game, sort=sort)) is not None:
            return move
    plain = best_plain(game)
    if plain is not None:
        return plain.move
    return best_take(game, sort="steal") or best_take(game, sort="swap")


def _play(board: Board, move: Any, *, turn: int) -> dict[str, Any]:
    frame = play_frame(
        move, turn=turn, client_id=client_id(board.who), after=position_now(board.match_id)
    )
    ack = board.request(frame)
    assert ack["type"] == "ack", ack
    assert ack["accepted"], f"{board.who}'s Reword move was refused: {ack}"
    assert sorted(ack["rack"]) == sorted(current_game(board.match_id).racks[0])
    return board.wait_for(lambda f: f["type"] == "turn" and f["data"]["turn_number"] == turn + 1)[
        "data"
    ]


def _takes_shown(move: TakePlay, news: dict[str, Any]) -> list[dict[str, Any]]:
    """What the news must say of ``move``'s takes: each as made (the tile taken is the news's
    own, checked against the board by the replay below)."""
    shown = []
    for take, seen in zip(move.takes, news["move"]["takes"], strict=True):
        swap = take if isinstance(take, SwapTake) else None
        shown.append(
            {
                "take": "swap" if swap else "steal",
                "row": take.row,
                "col": take.col,
                "letter": seen["letter"],
                "blank": seen["blank"],
                "placed": swap.letter if swap else None,
                "placed_blank": bool(swap and swap.blank),
            }
        )
    return shown


def _the_record_shows_the_takes(season: Season, match: Match) -> None:
    """The finished game's page, replay and GCG record, as another member reads them."""
    ann = season["ann"]
    turns = match.turns.order_by("number")
    taken = [turn for turn in turns if turn.takes]
    assert taken
    page = page_text(ann.get(f"/matches/{match.id}/").text)
    assert "stole " in page
    assert "swapped " in page
    replay = ann.get(f"/api/matches/{match.id}/replay?turn={turns.count()}").json()
    assert [move["takes"] for move in replay["moves"]] == [turn.takes for turn in turns]
    gcg = ann.get(f"/matches/{match.id}/export.gcg").text
    swaps = sum(take["take"] == "swap" for turn in taken for take in turn.takes)
    steals = sum(take["take"] == "steal" for turn in taken for take in turn.takes)
    assert gcg.count(" ~") == swaps
    assert gcg.count(" ^") == steals
