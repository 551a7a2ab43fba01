"""GCG records: 50 engine games and games played through the services round-trip through the
engine's reader and re-score with 0 mismatches; while a match is played an export shows rack
letters only to their owner, and once it is over every rack to everyone. Also home of
:func:`play_out`, which the API and bag tests use to finish real games.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from engine import (
    Game,
    export_gcg,
    get_ruleset,
    parse_gcg,
    verify_record,
    verify_records,
)
from engine.gcg import END_RACK, EXCHANGE, PASS, PLAY
from engine.randomplay import AnagramIndex, random_move
from lexicon.lexicon import Lexicon, get_lexicon
from matches import services
from matches.models import Match, Turn
from tests.depth import QUICK
from tests.matches.helpers import commit_move, game_of, title_of


@cache
def enable() -> Lexicon:
    return get_lexicon("enable", max_len=15)


@cache
def anagrams() -> AnagramIndex:
    return AnagramIndex(enable())


def random_game(seed: int, *, ruleset: str = "word-duel") -> Game:
    """A whole game between two random players, on the engine alone."""
    rng = random.Random(seed)
    game = Game.new(ruleset=ruleset, seed=rng.randbytes(32), salt=rng.randbytes(32))
    lexicon = get_lexicon("enable", max_len=get_ruleset(ruleset).lexicon_max_len)
    while not game.is_over:
        move = random_move(
            game, lexicon=lexicon, index=anagrams(), rng=rng, swap_chance=0.08, pass_chance=0.02
        )
        game = game.apply(move, player=game.to_move, lexicon=lexicon)
    return game


def play_out(
    match: Match,
    players: tuple[Member, Member],
    *,
    seed: int,
    turns: int | None = None,
    after_turn: Callable[[Match], None] | None = None,
) -> Match:
    """Play ``match`` through ``services.match_commit`` with random legal moves.

    Stops when the match is over (or after ``turns`` turns); ``after_turn`` sees the match
    after each accepted commit. The chooser reads the hidden game, as only a test may.
    """
    rng = random.Random(seed)
    played = 0
    while turns is None or played < turns:
        match.refresh_from_db()
        if match.status != Match.Status.LIVE:
            break
        game = game_of(match)
        lexicon = get_lexicon(match.lexicon, max_len=game.ruleset.lexicon_max_len)
        move = random_move(
            game, lexicon=lexicon, index=anagrams(), rng=rng, swap_chance=0.12, pass_chance=0.03
        )
        outcome = commit_move(
            match_id=match.id,
            member=players[game.to_move],
            move=move.to_dict(),
            against_turn=match.turn_number,
            client_id=f"turn-{match.turn_number}",
        )
        assert outcome.accepted, outcome.message
        played += 1
        match.refresh_from_db()
        if after_turn is not None:
            after_turn(match)
    match.refresh_from_db()
    return match


#: At the quick depth a "whole game" is this many random turns, then a resignation.
QUICK_GAME_TURNS = 12


def play_to_the_end(
    match: Match,
    players: tuple[Member, Member],
    *,
    seed: int,
    after_turn: Callable[[Match], None] | None = None,
) -> Match:
    """Play ``match`` until it is over: to its natural end (``make test``), or, at the quick
    depth (``make check``), for ``QUICK_GAME_TURNS`` turns and then the player to move
    resigns, so a finished game costs a tenth as much."""
    match = play_out(
        match, players, seed=seed, turns=QUICK_GAME_TURNS if QUICK else None, after_turn=after_turn
    )
    if match.status == Match.Status.LIVE:
        game = game_of(match)
        services.match_resign(
            match_id=match.id, member=players[game.to_move], client_id="quick-depth-resign"
        )
        match.refresh_from_db()
        if after_turn is not None:
            after_turn(match)  # a resignation ends the game without adding a turn
    return match


# ---------------------------------------------------------------- engine level: 50 games


@pytest.fixture(scope="module")
def fifty_games() -> list[Game]:
    return [random_game(seed) for seed in range(50)]


def test_fifty_exported_games_read_back_and_rescore_with_no_mismatch(
    fifty_games: list[Game], tmp_path: Path
) -> None:
    paths = []
    for number, game in enumerate(fifty_games):
        visible = [frozenset({0, 1}), frozenset({0}), frozenset({1}), frozenset()][number % 4]
        text = export_gcg(game, player_names=("Ann Lee", "Bo"), visible_racks=visible)
        target = tmp_path / f"game{number:02}.gcg"
        target.write_text(text, encoding="utf-8")
        paths.append(target)
    report = verify_records(paths, ruleset="word-duel", lexicon=enable())
    assert report.failures == ()
    assert report.mismatches == ()
    assert report.games == 50
    assert report.plays == sum(turn.kind == "play" for game in fifty_games for turn in game.turns)


def test_exported_events_match_the_game_turn_by_turn(fifty_games: list[Game]) -> None:
    swaps = blanks = 0
    for number, game in enumerate(fifty_games):
        seat = number % 2
        record = parse_gcg(
            export_gcg(game, player_names=("a", "b"), visible_racks=frozenset({seat}))
        )
        events = record.events
        assert len(events) == len(game.turns) + len(game.adjustments)
        for event, turn in zip(events, game.turns, strict=False):
            assert event.nick == ("a", "b")[turn.player]
            assert event.total == turn.totals[turn.player]
            assert event.score == turn.score
            # Racks only for the seat that may see them, as during play.
            assert event.rack == ("".join(turn.rack_before) if turn.player == seat else "")
            if turn.kind == "play":
                main = turn.words[0]
                assert event.kind == PLAY
                assert event.position == main.position
                for char, tile in zip(event.word or "", main.tiles, strict=True):
                    assert char in (".", tile)  # a blank stays lower case
                blanks += sum(char.islower() for char in event.word or "")
            elif turn.kind == "swap":
                swaps += 1
                assert event.kind == EXCHANGE
                assert event.exchange_count == len(turn.move.tiles)
                own = turn.player == seat
                assert event.exchanged == ("".join(sorted(turn.move.tiles)) if own else None)
            else:
                assert event.kind == PASS
        ends = events[len(game.turns) :]
        assert all(event.kind == END_RACK for event in ends)
        for event, adjustment in zip(ends, game.adjustments, strict=True):
            assert event.score == adjustment.points
            assert event.total == adjustment.totals[adjustment.player]
            shown = adjustment.rack_owner == seat
            assert event.end_rack == ("".join(adjustment.rack) if shown else None)
        if game.adjustments:
            last = {event.nick: event.total for event in events}
            assert (last["a"], last["b"]) == game.scores
    assert swaps > 0, "the sample should contain swaps"
    assert blanks > 0, "the sample should contain blanks"


# ---------------------------------------------------------------- through the DB and HTTP


@pytest.fixture
def finished(live_match: Match, alice: Member, bob: Member) -> Match:
    match = play_out(live_match, (alice, bob), seed=7)
    assert match.status == Match.Status.FINISHED
    return match


def _export(client: Client, match: Match, *, key: str | None = None) -> str:
    url = reverse("match-export-gcg", args=[match.id])
    response = client.get(url, {"key": key} if key else {})
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    assert "attachment" in response["Content-Disposition"]
    return response.content.decode()


def test_exports_of_a_finished_match_rescore_and_show_every_rack_to_everyone(
    finished: Match, alice: Member, bob: Member, tmp_path: Path
) -> None:
    """Once the match is over its record is public: the spectator's export, and each
    player's, hold every rack and every exchange's letters, and are the same file."""
    turns = list(finished.turns.order_by("number"))
    viewers: list[tuple[str, Client]] = [("spectator", Client())]
    for member in (alice, bob):
        client = Client()
        client.force_login(member)
        viewers.append((member.username, client))
    paths = []
    texts = set()
    for name, client in viewers:
        text = _export(client, finished)
        texts.add(text)
        (tmp_path / f"{name}.gcg").write_text(text, encoding="utf-8")
        paths.append(tmp_path / f"{name}.gcg")
        record = parse_gcg(text)
        assert record.title == title_of(finished)  # the label and the players
        assert [p.nick for p in record.players if p] == ["alice", "bob"]
        assert ("id", f"wordduel {finished.id}") in record.pragmas
        for event, turn in zip(record.events, turns, strict=False):
            assert event.rack == turn.rack_before
            if turn.kind == Turn.Kind.PLAY:
                assert event.position == turn.words[0]["position"]
                assert event.word is not None
                # The placed tiles in board order; blanks lower case, other letters capitals.
                placed = sorted(turn.placement, key=lambda tile: (tile["row"], tile["col"]))
                assert event.word.replace(".", "") == "".join(
                    tile["letter"].lower() if tile["blank"] else tile["letter"] for tile in placed
                )
            elif turn.kind == Turn.Kind.SWAP:
                assert event.exchange_count == turn.swap_count
                assert event.exchanged == "".join(sorted(turn.swapped))
        # The end-of-game lines bring the totals to the final scores.
        finals = {event.nick: event.total for event in record.events}
        assert [finals["alice"], finals["bob"]] == [s.score for s in finished.seats.all()]
        if finished.end_reason in (Match.EndReason.PLAYED_OUT, Match.EndReason.SIX_SCORELESS):
            assert any(event.kind == END_RACK for event in record.events)
        _, mismatches = verify_record(record, ruleset="word-duel", lexicon=enable())
        assert mismatches == []
    assert len(texts) == 1, "every viewer downloads the same record after the end"
    report = verify_records(paths, ruleset="word-duel", lexicon=enable())
    assert report.ok, [str(m) for m in report.mismatches]
    assert report.games == 3


def test_while_it_is_played_an_export_shows_only_the_downloaders_own_racks(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=8, turns=6)
    assert match.status == Match.Status.LIVE
    turns = list(match.turns.order_by("number"))
    swappers = {turn.position for turn in turns if turn.kind == Turn.Kind.SWAP}
    assert swappers == {0, 1}, "the sample should hold a swap by each seat"
    viewers: list[tuple[Client, int | None]] = [(Client(), None)]
    for seat, member in enumerate((alice, bob)):
        client = Client()
        client.force_login(member)
        viewers.append((client, seat))
    for client, seat in viewers:
        record = parse_gcg(_export(client, match))
        assert len(record.events) == len(turns)
        for event, turn in zip(record.events, turns, strict=True):
            own = turn.position == seat
            assert event.rack == (turn.rack_before if own else "")
            if turn.kind == Turn.Kind.SWAP:
                assert event.exchanged == ("".join(sorted(turn.swapped)) if own else None)
                assert event.exchange_count == turn.swap_count
        assert record.racks == (None, None)


def test_the_export_is_also_served_under_the_api(finished: Match) -> None:
    response = Client().get(reverse("api:match-export-gcg", args=[finished.id]))
    assert response.status_code == 200
    assert parse_gcg(response.content.decode()).events


def test_a_live_match_exports_its_moves_so_far(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=3, turns=4)
    client = Client()
    client.force_login(alice)
    record = parse_gcg(_export(client, match))
    assert len(record.events) == 4
    assert not any(event.kind == END_RACK for event in record.events)


def test_members_only_export_needs_a_member_or_the_key(
    make_fixture, alice: Member, bob: Member, make_member
) -> None:
    match = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    url = reverse("match-export-gcg", args=[match.id])
    assert Client().get(url).status_code == 404
    assert Client().get(url, {"key": "wrong"}).status_code == 404
    assert Client().get(url, {"key": match.viewing_key}).status_code == 200
    member = Client()
    member.force_login(make_member())
    assert member.get(url).status_code == 200


def test_no_export_before_the_deal_and_for_a_missing_match(make_fixture, alice: Member) -> None:
    scheduled = make_fixture(first=alice)
    assert Client().get(reverse("match-export-gcg", args=[scheduled.id])).status_code == 404
    assert Client().get(reverse("match-export-gcg", args=[scheduled.id + 1000])).status_code == 404


def test_a_forfeited_match_exports_its_moves_and_a_note(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=9, turns=3)
    assert match.turn_deadline_at is not None
    services.forfeit_stalled_matches(now=match.turn_deadline_at)
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.FORFEIT
    text = _export(Client(), match)
    record = parse_gcg(text)
    assert len(record.events) == 3
    assert record.events[-1].notes == ("alice (First) won: forfeit.",)
    _, mismatches = verify_record(record, ruleset="word-duel", lexicon=enable())
    assert mismatches == []


def test_hostile_names_that_slipped_in_cannot_forge_a_record(live_match, alice, bob) -> None:
    """Names are refused with a line break when set (accounts, services); were one to reach
    the database anyway, the export still holds exactly the game that was played."""
    Member.objects.filter(pk=alice.pk).update(display_name="Eve\n#player2 mallory hax\n>x")
    Match.objects.filter(pk=live_match.pk).update(
        name="GCG\n#player1 hacked hacked\n>hacked: ZZZZZZZ 8H ZZZ +999 999\u2028#note x"
    )
    match = play_out(live_match, (alice, bob), seed=3, turns=4)
    client = Client()
    client.force_login(alice)
    text = client.get(f"/matches/{match.pk}/export.gcg").content.decode()
    record = parse_gcg(text)
    assert len(record.players) == 2
    assert all("\n" not in player.name for player in record.players)
    assert sum(line.startswith("#player") for line in text.splitlines()) == 2
    assert not any("hacked" in event.nick or event.score == 999 for event in record.events)
    logged = list(match.turns.order_by("number"))
    plays = [event for event in record.events if event.kind == "play"]
    assert [event.score for event in plays] == [t.score for t in logged if t.kind == "play"]
    assert len(record.events) >= len(logged)
