"""Word Skill's rounds (engine/rounds.py): the tie-breaks, scoring, the tray, the end, the log."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from engine import (
    MalformedMove,
    MatchOver,
    MissesStar,
    NotAWord,
    Pass,
    Play,
    Swap,
    TableNotAllowed,
    TilesNotOnRack,
)
from engine.errors import (
    AlreadySubmitted,
    NotSeated,
    RoundAlreadyStarted,
    RoundNotStarted,
    RoundTimeUp,
    SwapInRound,
)
from engine.movegen import legal_plays, ranked
from engine.rounds import (
    ABSENT,
    BY_DRAW,
    BY_ORDER,
    BY_SCORE,
    BY_SPEED,
    MAX_REDEALS,
    NO_PLAY,
    NO_WORDS,
    PASSED,
    PLAYED,
    SUPPLY_LOW,
    TIMED_OUT,
    WORDLESS_ROUNDS_TO_END,
    Close,
    RoundsGame,
    Start,
    Submit,
    action_from_json,
    action_to_json,
    apply_action,
    has_play,
    replay,
)
from engine.tiles import DrawStream, remove_tiles

from ..depth import repetitions
from .helpers import SEED, board_with, play

RULES = "word-skill"


def position(
    tray: str,
    *,
    players: int = 3,
    words: tuple[tuple[str, str], ...] = (),
    bag: str | None = None,
    seed: bytes = SEED,
    turn_time_ms: int | None = None,
) -> RoundsGame:
    """Round 1 of a game with a chosen board and tray; the bag is the rest of the set unless
    given (then tiles are not conserved: the test's business)."""
    game = RoundsGame.new(players=players, seed=seed, turn_time_ms=turn_time_ms)
    board = board_with(words, ruleset=RULES)
    assert game.current is not None
    if bag is None:
        rest = remove_tiles(game.ruleset.full_bag, (*board.tiles(), *tray))
        assert rest is not None
        bag_tiles = rest
    else:
        bag_tiles = tuple(sorted(bag))
    return replace(
        game,
        board=board,
        bag=bag_tiles,
        current=replace(game.current, tray=tuple(sorted(tray))),
    )


def conserved(game: RoundsGame) -> bool:
    return game.tiles_in_play() == sorted(game.ruleset.full_bag)


def started(game: RoundsGame, *starts: tuple[int, int]) -> RoundsGame:
    for player, at in starts:
        game = game.start(player=player, at_ms=at)
    return game


# -- who is placed --------------------------------------------------------------------------


def test_the_highest_score_is_placed_and_everyone_scores_their_own_play() -> None:
    game = started(position("CATSXYZ"), (0, 0), (1, 0), (2, 0))
    cat = play(game.board, "8H", "CAT")
    cats = play(game.board, "8H", "CATS")
    game = game.submit(cat, player=0, at_ms=1_000, lexicon=None)  # first and fastest
    game = game.submit(cats, player=1, at_ms=9_000, lexicon=None)
    game = game.submit(Pass(), player=2, at_ms=9_500, lexicon=None)
    record = game.rounds[-1]
    assert record.placed == 1
    assert record.decided_by == BY_SCORE
    assert record.scores == (14, 16, 0)  # CAT (5+1+1) x 2, CATS (5+1+1+1) x 2, a pass
    assert game.scores == record.totals == (14, 16, 0)
    assert [record.status_of(p) for p in range(3)] == [PLAYED, PLAYED, PASSED]
    assert game.board.rows()[7] == "." * 7 + "CATS" + "." * 4
    assert conserved(game)


def test_a_tie_on_score_goes_to_the_faster_submission() -> None:
    game = position("CATSXYZ")
    cat = play(game.board, "8H", "CAT")
    # Player 0 submits first, but player 1 started later and took less time.
    game = started(game, (0, 0), (1, 5_000))
    game = game.submit(cat, player=0, at_ms=7_000, lexicon=None)  # 7 s
    game = game.submit(cat, player=1, at_ms=8_000, lexicon=None)  # 3 s
    game = game.close_round(lexicon=None)
    record = game.rounds[-1]
    assert (record.placed, record.decided_by) == (1, BY_SPEED)
    assert record.scores == (14, 14, 0)
    assert record.status_of(2) == ABSENT


def test_a_tie_on_score_and_speed_goes_to_the_earlier_submission() -> None:
    game = position("CATSXYZ")
    cat = play(game.board, "8H", "CAT")
    game = started(game, (0, 0), (1, 1_000))
    # Both took 4 s; player 0 submitted at 4 s, player 1 at 5 s (applied first, even).
    game = game.submit(cat, player=1, at_ms=5_000, lexicon=None)
    game = game.submit(cat, player=0, at_ms=4_000, lexicon=None)
    game = game.close_round(lexicon=None)
    assert (game.rounds[-1].placed, game.rounds[-1].decided_by) == (0, BY_ORDER)


def test_an_exact_tie_is_drawn_from_the_committed_stream() -> None:
    winners: Counter[int | None] = Counter()
    for n in range(12):
        seed = bytes([n]) * 32
        game = started(position("CATSXYZ", seed=seed), (0, 0), (1, 0), (2, 0))
        cat = play(game.board, "8H", "CAT")
        before = game.stream
        for player in (2, 0, 1):
            game = game.submit(cat, player=player, at_ms=3_000, lexicon=None)
        record = game.rounds[-1]
        assert record.decided_by == BY_DRAW
        assert record.drawn_among == (2, 0, 1)  # in submission order
        index, _ = DrawStream(before.seed, before.salt, before.counter).randbelow(3)
        assert record.placed == (2, 0, 1)[index]
        assert record.scores == (14, 14, 14)
        winners[record.placed] += 1
    assert len(winners) == 3  # the draw, not an order, decides


def test_a_word_is_placed_even_when_it_scores_nothing() -> None:
    game = started(position("??JJQQZ"), (0, 0), (1, 0))
    blanks = play(game.board, "8G", "at")  # two blanks: 0 points
    game = game.submit(blanks, player=0, at_ms=10, lexicon=None)
    game = game.submit(Pass(), player=1, at_ms=20, lexicon=None)
    game = game.close_round(lexicon=None)
    record = game.rounds[-1]
    assert (record.placed, record.scores) == (0, (0, 0, 0))
    assert game.board.get(7, 6) == "a"


def test_a_player_who_never_starts_or_never_submits_scores_nothing() -> None:
    game = started(position("CATSXYZ", players=4), (0, 0), (1, 0), (2, 0))
    game = game.submit(play(game.board, "8H", "CATS"), player=0, at_ms=10, lexicon=None)
    game = game.submit(Pass(), player=1, at_ms=20, lexicon=None)
    assert game.current is not None
    assert game.round_number == 1
    game = game.close_round(lexicon=None)  # the round's deadline
    record = game.rounds[-1]
    assert [record.status_of(p) for p in range(4)] == [PLAYED, PASSED, TIMED_OUT, ABSENT]
    assert record.scores == (16, 0, 0, 0)
    assert game.round_number == 2


# -- the tray -------------------------------------------------------------------------------


def test_the_placed_tiles_are_replaced_from_the_bag_and_the_rest_kept() -> None:
    game = started(position("CATSXYZ"), (0, 0), (1, 0), (2, 0))
    game = game.submit(play(game.board, "8H", "CAT"), player=0, at_ms=1, lexicon=None)
    game = game.submit(play(game.board, "8H", "CATS"), player=1, at_ms=2, lexicon=None)
    bag_before = len(game.bag)
    game = game.submit(Pass(), player=2, at_ms=3, lexicon=None)
    record = game.rounds[-1]
    assert len(record.drawn) == 4
    assert game.current is not None
    assert sorted(game.current.tray) == sorted("XYZ" + "".join(record.drawn))
    assert len(game.bag) == bag_before - 4
    assert record.returned == ()
    assert conserved(game)


def test_a_round_with_no_word_deals_a_fresh_tray() -> None:
    game = started(position("CATSXYZ"), (0, 0))
    game = game.submit(Pass(), player=0, at_ms=1, lexicon=None)
    game = game.close_round(lexicon=None)
    record = game.rounds[-1]
    assert record.placed is None
    assert record.decided_by is None
    assert record.returned == tuple("ACSTXYZ")
    assert len(record.drawn) == 7
    assert game.current is not None
    assert game.current.tray == tuple(sorted(record.drawn))
    assert game.wordless_streak == 1
    assert conserved(game)


# -- the end --------------------------------------------------------------------------------


def test_the_game_ends_when_fewer_than_seven_tiles_remain_for_a_tray() -> None:
    tray, bag = "CATSXYZ", "EE"
    game = started(position(tray, bag=bag), (0, 0))
    game = game.submit(play(game.board, "8H", "CAT"), player=0, at_ms=1, lexicon=None)
    game = game.close_round(lexicon=None)  # 4 kept + 2 in the bag = 6
    assert game.end_reason == SUPPLY_LOW
    assert game.current is None
    assert game.is_over
    assert game.rounds[-1].returned == tuple("SXYZ")
    assert sorted(game.bag) == sorted("EESXYZ")
    assert game.winners == (0,)
    with pytest.raises(MatchOver):
        game.start(player=1, at_ms=5)
    with pytest.raises(MatchOver):
        game.close_round(lexicon=None)


def test_seven_tiles_left_still_make_a_tray() -> None:
    game = started(position("CATSXYZ", bag="EEE"), (0, 0))
    game = game.submit(play(game.board, "8H", "CAT"), player=0, at_ms=1, lexicon=None)
    game = game.close_round(lexicon=None)  # 4 kept + 3 = 7
    assert not game.is_over
    assert game.current is not None
    assert sorted(game.current.tray) == sorted("EEESXYZ")
    assert game.bag == ()


def test_the_game_ends_when_no_tray_dealt_has_a_play() -> None:
    lexicon = frozenset({"CAT", "CATS"})
    game = started(position("CATQQQQ", players=2, bag="QQQQQQQQ"), (0, 0), (1, 0))
    game = game.submit(play(game.board, "8H", "CAT"), player=0, at_ms=1, lexicon=lexicon)
    game = game.submit(Pass(), player=1, at_ms=2, lexicon=lexicon)
    record = game.rounds[-1]
    assert game.end_reason == NO_PLAY
    # QQQQ kept + QQQ drawn: no play; put back and dealt afresh MAX_REDEALS times, in vain.
    assert game.unplayable == (tuple("QQQQQQQ"),) * (MAX_REDEALS + 1)
    assert record.drawn == ("Q",) * (3 + 7 * MAX_REDEALS)
    assert sorted(record.returned) == ["Q"] * 7 * (MAX_REDEALS + 1)  # every tray went back
    assert record.redealt == ()  # round 1's own tray was dealt once
    assert game.bag == ("Q",) * 12  # the 4 kept and the 8 in the bag
    assert game.scores == (14, 0)


def test_has_play_tries_the_blanks() -> None:
    board = board_with((("8H", "CAT"),), ruleset=RULES)
    rules = position("CATSXYZ").ruleset
    lexicon = frozenset({"CAT", "CATS", "SCAT"})
    assert has_play(board, tuple("QQQQQQ?"), ruleset=rules, lexicon=lexicon)  # ? as S
    assert not has_play(board, tuple("QQQQQQQ"), ruleset=rules, lexicon=lexicon)
    # One blank cannot make SCATTER; two make a second CAT down through the A.
    scatter = frozenset({"CAT", "SCATTER"})
    assert not has_play(board, tuple("QQQQQQ?"), ruleset=rules, lexicon=scatter)
    assert has_play(board, tuple("QQQQQ??"), ruleset=rules, lexicon=scatter)


#: A seed whose first tray (DLNNTWX) has no word on the empty board in ENABLE.
UNPLAYABLE_FIRST = (20).to_bytes(32, "big")


def test_a_first_tray_with_no_play_is_redealt_from_the_stream(enable) -> None:
    game = RoundsGame.new(players=2, seed=UNPLAYABLE_FIRST, lexicon=enable)
    assert not game.is_over
    assert game.current is not None
    assert game.current.redealt == (tuple("DLNNTWX"),)
    assert game.current.tray == tuple("ACIIOOX")
    assert has_play(game.board, game.current.tray, ruleset=game.ruleset, lexicon=enable)
    assert conserved(game)
    # The same seed deals the same: the redeal is the stream's next draw, not a fresh seed.
    assert RoundsGame.new(players=2, seed=UNPLAYABLE_FIRST, lexicon=enable) == game
    # The rejected tray stays on the round's record once it closes, and in the JSON.
    closed = started(game, (0, 0), (1, 0)).close_round(lexicon=enable)
    assert closed.rounds[0].redealt == (tuple("DLNNTWX"),)
    assert closed.rounds[0].to_json()["redealt"] == ["DLNNTWX"]
    assert RoundsGame.from_json(closed.to_json()) == closed
    assert RoundsGame.from_json(game.position_json()) == game


def test_a_game_stored_before_redeals_keeps_its_rule(enable) -> None:
    """A position without ``max_redeals`` (written before the rule) ends as it always did."""
    old = RoundsGame.new(players=2, seed=UNPLAYABLE_FIRST, lexicon=enable, max_redeals=0)
    assert old.end_reason == NO_PLAY
    assert old.unplayable == (tuple("DLNNTWX"),)
    data = position("CATSXYZ").position_json()
    for key in ("max_redeals", "unplayable"):
        del data[key]
    assert data["current"].pop("redealt") == []
    restored = RoundsGame.from_json(data)
    assert restored.max_redeals == 0
    assert restored.current is not None
    assert restored.current.redealt == ()
    with pytest.raises(ValueError, match="max_redeals"):
        RoundsGame.new(players=2, max_redeals=-1)


def test_a_first_tray_with_no_play_ends_the_game_after_the_last_redeal() -> None:
    game = RoundsGame.new(players=2, seed=SEED, lexicon=frozenset({"ZZZZZZZZ"}))
    assert game.end_reason == NO_PLAY
    assert len(game.unplayable) == MAX_REDEALS + 1
    assert game.current is None
    assert game.round_number == 0
    assert game.bag == game.ruleset.full_bag
    assert game.winners == (0, 1)
    fewer = RoundsGame.new(players=2, seed=SEED, lexicon=frozenset({"ZZZZZZZZ"}), max_redeals=2)
    assert len(fewer.unplayable) == 3
    assert fewer.unplayable == game.unplayable[:3]  # the same stream, cut shorter


def test_rounds_with_no_word_end_the_game() -> None:
    game = position("CATSXYZ")
    for n in range(WORDLESS_ROUNDS_TO_END):
        assert not game.is_over
        game = game.close_round(lexicon=None)  # nobody even started
        assert game.wordless_streak == n + 1
    assert game.end_reason == NO_WORDS
    assert game.winners == (0, 1, 2)  # all level at 0
    assert conserved(game)


# -- refusals -------------------------------------------------------------------------------


def test_refusals_change_nothing() -> None:
    game = position("CATSXYZ", turn_time_ms=60_000)
    cat = play(game.board, "8H", "CAT")
    with pytest.raises(RoundNotStarted):
        game.submit(cat, player=0, at_ms=5, lexicon=None)
    game = game.start(player=0, at_ms=1_000)
    checks = [
        (RoundAlreadyStarted, lambda g: g.start(player=0, at_ms=2_000)),
        (NotSeated, lambda g: g.start(player=3, at_ms=2_000)),
        (NotSeated, lambda g: g.start(player=True, at_ms=2_000)),
        (SwapInRound, lambda g: g.submit(Swap(("C",)), player=0, at_ms=1_500, lexicon=None)),
        (
            TilesNotOnRack,
            lambda g: g.submit(play(g.board, "8H", "DOG"), player=0, at_ms=1_500, lexicon=None),
        ),
        (
            MissesStar,
            lambda g: g.submit(play(g.board, "1A", "CAT"), player=0, at_ms=1_500, lexicon=None),
        ),
        (
            NotAWord,
            lambda g: g.submit(
                play(g.board, "8H", "TAC"), player=0, at_ms=1_500, lexicon=frozenset({"CAT"})
            ),
        ),
        (RoundTimeUp, lambda g: g.submit(cat, player=0, at_ms=61_001, lexicon=None)),
        (MalformedMove, lambda g: g.submit(Play(()), player=0, at_ms=1_500, lexicon=None)),
    ]
    for error, attempt in checks:
        with pytest.raises(error):
            attempt(game)
    with pytest.raises(ValueError, match="before its player started"):
        game.submit(cat, player=0, at_ms=999, lexicon=None)
    # Still open for a good play, which is then the only one it takes.
    game = game.submit(cat, player=0, at_ms=61_000, lexicon=frozenset({"CAT"}))
    with pytest.raises(AlreadySubmitted):
        game.submit(Pass(), player=0, at_ms=61_000, lexicon=None)
    assert game.current is not None
    assert game.current.submissions[0].elapsed_ms == 60_000


def test_only_a_rounds_ruleset_and_two_players_or_more() -> None:
    with pytest.raises(TableNotAllowed):
        RoundsGame.new(players=3, ruleset="classic")
    with pytest.raises(TableNotAllowed):
        RoundsGame.new(players=1)
    assert RoundsGame.new(players=9, seed=SEED).players == 9


# -- whole games, storage and replay ---------------------------------------------------------


def self_play(seed: int, enable, *, players: int = 3) -> tuple[RoundsGame, list[RoundsGame]]:
    """A game of random choices among each tray's best plays, some players late or absent;
    every position after every action is returned too."""
    rng = random.Random(seed)
    game = RoundsGame.new(players=players, seed=bytes([seed]) * 32, salt=b"match", lexicon=enable)
    seen = [game]
    now = 0
    while not game.is_over:
        assert game.current is not None
        plays = ranked(legal_plays(game.board, game.current.tray, ruleset=RULES, lexicon=enable))
        number = game.round_number
        for player in range(players):
            if rng.random() < 0.15:
                continue  # away this round
            now += rng.randrange(1, 3) * 1_000
            game = game.start(player=player, at_ms=now)
            seen.append(game)
        for player in range(players):
            assert game.current is not None
            assert game.round_number == number
            if game.current.started[player] is None or rng.random() < 0.1:
                continue  # never submits: timed out
            now += rng.randrange(0, 3) * 1_000
            move = Pass() if not plays or rng.random() < 0.1 else rng.choice(plays[:3]).move
            game = game.submit(move, player=player, at_ms=now, lexicon=enable)
            seen.append(game)
        if game.round_number == number and not game.is_over:
            game = game.close_round(lexicon=enable)
            seen.append(game)
    return game, seen


def test_whole_games_conserve_tiles_and_replay_from_their_log(enable) -> None:
    for seed in range(repetitions(full=3, quick=1)):
        game, seen = self_play(seed, enable)
        assert all(conserved(position) for position in seen)
        assert game.is_over
        assert game.end_reason in (SUPPLY_LOW, NO_PLAY, NO_WORDS)
        assert game.scores == tuple(
            sum(record.scores[p] for record in game.rounds) for p in range(3)
        )
        assert game.winners == tuple(p for p in range(3) if game.scores[p] == max(game.scores))
        log = [action_to_json(action) for action in game.actions]
        replayed = replay(
            [action_from_json(row) for row in log],
            players=3,
            seed=bytes([seed]) * 32,
            salt=b"match",
            lexicon=enable,
        )
        assert replayed == game
        assert {type(a) for a in game.actions} <= {Start, Submit, Close}


def test_json_round_trips_and_a_position_plays_on_as_the_whole_game(enable) -> None:
    game, seen = self_play(7, enable)
    for before in seen:
        assert RoundsGame.from_json(before.to_json()) == before
    # A stored position (no closed rounds in it) takes the rest of the log to the same end.
    middle = seen[len(seen) // 2]
    restored = RoundsGame.from_json(middle.position_json())
    assert restored.rounds == ()
    assert restored.rounds_before == len(middle.rounds)
    rest = game.actions[len(middle.actions) :]
    for action in rest:
        restored = apply_action(restored, action, lexicon=enable)
    assert restored.to_json() | {"rounds": [], "rounds_before": 0} == game.to_json() | {
        "rounds": [],
        "rounds_before": 0,
    }
    assert restored.rounds == game.rounds[len(middle.rounds) :]


def test_a_stored_game_refuses_what_no_game_writes() -> None:
    data = position("CATSXYZ").to_json()
    for bad in (
        {"format": 2},
        {"ruleset": "classic"},
        {"end_reason": "bored"},
        {"current": None},  # not over, yet no round
        {"scores": [0]},
    ):
        with pytest.raises(ValueError, match=r"format|rounds|reason|round|players"):
            RoundsGame.from_json(data | bad)
    with pytest.raises(SwapInRound):
        action_from_json({"kind": "submit", "player": 0, "move": {"kind": "swap", "tiles": ["A"]},
                          "at_ms": 1})  # fmt: skip
