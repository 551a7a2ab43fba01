"""A match keeps its position once (matches/stored_game.py), and migration 0008 converts the old.

The stored position is exactly the replay of the match's log without the history; a commit
reads no earlier turn; and matches stored in format 1 (the whole game, history and all)
come out of the migration with the same position, exports and bag check.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from engine import Game
from matches import services
from matches.integrity import match_problems
from matches.models import Match, Seat
from matches.records import replayed_game, verify_bag
from matches.stored_game import POSITION_FORMAT, game_of, position_state
from tests.matches.test_records import play_out
from tournaments import services as organising

pytestmark = pytest.mark.django_db


def _seats(match: Match) -> list[Seat]:
    return list(match.seats.order_by("position"))


def test_the_stored_position_is_the_replay_of_the_log_without_its_history(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=5, turns=9)
    seats, turns = _seats(match), list(match.turns.order_by("number"))
    whole = replayed_game(match, seats, turns)
    assert whole.turn_number == len(turns) == 9
    assert game_of(match, seats) == replace(whole, turns=(), turns_before=whole.turn_number)
    assert match.game_state == position_state(whole)
    # Nothing of the history is kept: no turn, no rack before a turn.
    assert set(match.game_state) == {
        "format", "board", "bag", "draws", "scoreless_streak", "end_reason", "result",
        "adjustments",
    }  # fmt: skip


def test_a_game_resumed_from_a_position_plays_on_like_the_whole_game(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=8, turns=6)
    seats = _seats(match)
    resumed = game_of(match, seats)
    whole = replayed_game(match, seats, list(match.turns.order_by("number")))
    from engine import Pass

    after_resumed = resumed.apply(Pass(), player=resumed.to_move, lexicon=None)
    after_whole = whole.apply(Pass(), player=whole.to_move, lexicon=None)
    assert after_resumed.turn_number == after_whole.turn_number == 7
    assert after_resumed.turns == after_whole.turns[-1:]
    assert replace(after_resumed, turns=(), turns_before=0) == replace(
        after_whole, turns=(), turns_before=0
    )
    with pytest.raises(ValueError, match="whole history"):
        resumed.to_json()  # the engine's record format needs what the position dropped


def test_a_position_of_another_format_is_refused_by_name(live_match: Match) -> None:
    Match.objects.filter(pk=live_match.pk).update(game_state={"format": 1, "turns": []})
    live_match.refresh_from_db()
    with pytest.raises(ValueError, match="unsupported position format 1"):
        game_of(live_match, _seats(live_match))
    assert any("cannot be read" in problem for problem in match_problems(live_match))


# ---------------------------------------------------------------- migration 0008


def _format_1(match: Match) -> dict:
    """What the code before migration 0008 stored for ``match``: the engine's whole game."""
    seats, turns = _seats(match), list(match.turns.order_by("number"))
    return replayed_game(match, seats, turns).to_json()


def _observed(match: Match, client: Client) -> dict:
    """Everything the position feeds: the game, the bag check, the record and the replay."""
    match.refresh_from_db()
    seats = _seats(match)
    seen: dict = {
        "status": match.status,
        "problems": match_problems(match),
        "counters": (match.turn_number, match.to_move, match.bag_count),
        "seats": [(seat.rack, seat.score) for seat in seats],
    }
    if match.game_state is not None:
        seen["game"] = game_of(match, seats)
        record = client.get(reverse("api:match-export-gcg", args=[match.pk]))
        replay = client.get(
            reverse("api:match-replay", args=[match.pk]), {"turn": match.turn_number}
        )
        assert (record.status_code, replay.status_code) == (200, 200)
        seen["gcg"], seen["replay"] = record.content.decode(), replay.json()
    if match.is_over and match.game_state is not None:
        seen["bag"] = verify_bag(match).mismatches
    return seen


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_every_match_of_the_demo_and_of_random_games() -> None:
    with open(os.devnull, "w") as quiet:
        call_command("demo", "--password", "demo-pass-123", stdout=quiet)
    members = {member.username: member for member in Member.objects.all()}
    alice, bob, carol, dave = (members[name] for name in ("alice", "bob", "carol", "dave"))

    def fixture(first: Member, second: Member) -> Match:
        return organising.create_fixture(
            organiser=members["organiser"], name="random game", first=first, second=second
        )

    played_out = play_out(fixture(alice, bob), (alice, bob), seed=3)
    assert played_out.end_reason in {"played_out", "six_scoreless"}
    live = play_out(fixture(carol, dave), (carol, dave), seed=4, turns=11)
    resigned = play_out(fixture(dave, alice), (dave, alice), seed=6, turns=5)
    services.match_resign(match_id=resigned.id, member=dave, client_id="gives-up")
    fixture(bob, carol)  # live, no move yet
    matches = list(Match.objects.order_by("pk"))
    statuses = {match.status for match in matches}
    assert statuses >= {Match.Status.SCHEDULED, Match.Status.LIVE, Match.Status.FINISHED}
    assert live.status == Match.Status.LIVE
    client = Client()  # public matches: the record and replay as any visitor sees them
    before = {match.pk: _observed(match, client) for match in matches}
    assert all(seen["problems"] == [] for seen in before.values())

    # Back to 0007, with every dealt match stored as the code of that time stored it (read
    # first: today's models see columns 0007's tables lack).
    old_states = {match.pk: _format_1(match) for match in matches if match.game_state is not None}
    executor = MigrationExecutor(connection)
    executor.migrate([("matches", "0007_organiser_substitute_postpone")])
    for pk, state in old_states.items():
        Match.objects.filter(pk=pk).update(game_state=state)
    assert len(old_states) == 4
    assert all(Game.from_json(state).turn_number >= 0 for state in old_states.values())

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    after = {match.pk: _observed(match, client) for match in matches}
    assert after == before
    for match in Match.objects.exclude(game_state=None):
        assert match.game_state["format"] == POSITION_FORMAT
        assert "turns" not in match.game_state
