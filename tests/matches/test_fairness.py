"""The turn log's hash chain and a viewer's own check of a finished game's bag.

Games are played through the services; the chain is read back from every place it is
published (turn news, replay, API, GCG) and checked by ``check_integrity`` and by the
offline script anyone who may watch downloads (the same checks as the page's fairness.js).
The whole record is public after the end, so every viewer's check replays every draw: a
turn, a draw or a swap's letters changed in the database afterwards is caught and named.
"""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from engine import format_gcg, parse_gcg
from imports.services import import_game
from matches import services, visibility
from matches.chain import canonical_json, chain_hashes, public_record, record_hash
from matches.integrity import match_problems
from matches.models import Match, Turn
from matches.offline_check import check
from tests.matches.test_records import play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(live_match: Match, alice: Member, bob: Member) -> Match:
    """A finished game with swaps by both seats (seed 3 of the random player)."""
    match = play_out(live_match, (alice, bob), seed=3)
    assert match.is_over
    return match


def record_for(match: Match, user: Any) -> dict[str, Any]:
    access = services.look_at_match(user=user, match_id=match.id, key=None)
    record = visibility.fairness_record(access)
    assert record is not None
    return record.model_dump(mode="json")


def stored_hashes(match: Match) -> list[str]:
    return list(match.turns.order_by("number").values_list("record_hash", flat=True))


# ---------------------------------------------------------------- the chain


def test_each_turn_is_chained_to_the_one_before_from_the_commitment(finished: Match) -> None:
    turns = list(finished.turns.order_by("number"))
    assert stored_hashes(finished) == chain_hashes(turns, finished.bag_commitment)
    first = public_record(turns[0], finished.bag_commitment)
    assert first["previous"] == finished.bag_commitment
    assert record_hash(turns[1], turns[0].record_hash) == turns[1].record_hash
    assert match_problems(finished) == []


def test_the_canonical_record_is_exact_bytes() -> None:
    turn = Turn(
        number=2, position=1, kind="play", swap_count=0, score=9, first_total=10,
        second_total=9, bag_count=80,
        placement=[{"row": 7, "col": 8, "letter": "E", "blank": True, "extra": 1}],
        words=[{"word": "HE", "tiles": "He", "position": "8H", "score": 9}],
    )  # fmt: skip
    assert canonical_json(public_record(turn, "ab" * 32)) == (
        b'{"bag_count":80,"kind":"play","number":2,"position":1,"previous":"' + b"ab" * 32
        + b'","score":9,"swap_count":0,"tiles":[{"blank":true,"col":8,"letter":"E","row":7}],'
        b'"totals":[10,9],"words":[{"position":"8H","score":9,"tiles":"He","word":"HE"}]}'
    )  # fmt: skip
    assert canonical_json({"w": "É"}) == b'{"w":"\\u00c9"}'


def test_the_chain_is_published_alike_in_the_replay_the_api_and_the_gcg(
    finished: Match, alice: Member
) -> None:
    hashes = stored_hashes(finished)
    client = Client()
    client.force_login(alice)
    state = client.get(reverse("api:match", args=[finished.id])).json()
    assert [move["record_hash"] for move in state["moves"]] == hashes
    assert [move["previous_hash"] for move in state["moves"]] == [
        finished.bag_commitment,
        *hashes[:-1],
    ]
    middle = len(hashes) // 2
    replay = client.get(reverse("api:match-replay", args=[finished.id]), {"turn": middle}).json()
    assert [move["record_hash"] for move in replay["moves"]] == hashes[:middle]

    gcg = client.get(reverse("match-export-gcg", args=[finished.id])).content
    record = parse_gcg(gcg)
    published = [value for name, value in record.pragmas if name == "turn-hash"]
    assert published == [f"{n} {value}" for n, value in enumerate(hashes, start=1)]
    assert record.pragma("bag-commitment") == finished.bag_commitment
    # Written back and read again (the engine keeps pragmas it does not know), and imported.
    again = parse_gcg(format_gcg(record))
    assert again.pragmas == record.pragmas
    imported = import_game(owner=alice, data=gcg, ruleset="word-duel", lexicon="enable")
    assert parse_gcg(imported.record_text).pragmas == record.pragmas
    assert len(imported.replay["turns"]) >= len(hashes)


def test_turn_news_carries_the_link_as_the_turn_is_made(live_match: Match, alice, bob) -> None:
    from channels.layers import get_channel_layer  # noqa: F401  (the real layer is in use)

    captured: list[dict[str, Any]] = []

    def keep(match: Match) -> None:
        turn = match.turns.order_by("-number").first()
        assert turn is not None
        access = services.look_at_match(user=AnonymousUser(), match_id=match.id, key=None)
        previous = access.turns[-2].record_hash if len(access.turns) > 1 else match.bag_commitment
        news = visibility.turn_news(match, turn, access.seats, previous_hash=previous)
        captured.append(news.model_dump(mode="json")["move"])

    play_out(live_match, (alice, bob), seed=5, turns=4, after_turn=keep)
    assert [move["record_hash"] for move in captured] == stored_hashes(live_match)
    assert captured[0]["previous_hash"] == live_match.bag_commitment


def test_an_edited_past_turn_breaks_the_chain_and_is_named(finished: Match) -> None:
    Turn.objects.filter(match=finished, number=5).update(score=99)
    problems = match_problems(finished)
    assert any(problem.startswith("turn 5's public record") for problem in problems), problems
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("check_integrity", str(finished.id), stdout=out)
    assert "turn 5's public record does not match" in out.getvalue()


def test_a_rewritten_hash_is_caught_at_the_next_turn(finished: Match) -> None:
    turn = finished.turns.get(number=4)
    turn.score += 1
    previous = finished.turns.get(number=3).record_hash
    turn.record_hash = record_hash(turn, previous)
    turn.save()
    assert any(problem.startswith("turn 5's") for problem in match_problems(finished))


# ---------------------------------------------------------------- the viewer's own check


def every_draw(match: Match) -> int:
    """How many tiles left the bag in ``match``: both racks dealt, then every turn's draw."""
    rack_size = 7
    return 2 * rack_size + sum(len(turn.drawn) for turn in match.turns.all())


@pytest.mark.parametrize("who", ["alice", "bob", "spectator"])
def test_the_offline_check_verifies_every_draw_of_both_seats_for_every_viewer(
    finished: Match, who: str, request: pytest.FixtureRequest
) -> None:
    user = AnonymousUser() if who == "spectator" else request.getfixturevalue(who)
    ok, lines = check(record_for(finished, user))
    assert ok, lines
    assert any("turns are chained" in line for line in lines)
    assert (
        f"All {every_draw(finished)} draws of both seats match the seed committed before the "
        "game." in lines
    ), lines
    swaps = finished.turns.filter(kind=Turn.Kind.SWAP).count()
    plays = finished.turns.filter(kind=Turn.Kind.PLAY).count()
    assert swaps
    assert f"All {plays} plays and {swaps} swaps used only tiles" in "\n".join(lines)


def run_file(client: Client, match: Match, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    answer = client.get(reverse("match-verify", args=[match.id]))
    assert answer.status_code == 200
    assert "attachment" in answer["Content-Disposition"]
    script = tmp_path / "verify.py"
    script.write_bytes(answer.content)
    return subprocess.run(
        [sys.executable, "-I", str(script)], check=False, capture_output=True, text=True
    )


def test_a_spectators_downloaded_file_checks_every_draw_and_catches_an_altered_one(
    finished: Match, tmp_path: Path
) -> None:
    """A spectator's file catches an altered draw of either seat (before the end's record was
    public, it checked no seat's draws at all)."""
    spectator = Client()
    run = run_file(spectator, finished, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK" in run.stdout
    assert f"All {every_draw(finished)} draws of both seats match" in run.stdout

    seconds = finished.turns.filter(position=1).exclude(drawn="").order_by("number").first()
    assert seconds is not None
    altered = "".join(reversed("ABCDEFG"[: len(seconds.drawn)]))
    Turn.objects.filter(pk=seconds.pk).update(
        drawn=altered if sorted(altered) != sorted(seconds.drawn) else "Z" * len(altered)
    )
    run = run_file(spectator, finished, tmp_path)
    assert run.returncode == 1
    assert f"Turn {seconds.number}: Second drew" in run.stdout


def test_a_spectators_check_catches_altered_swapped_letters(finished: Match) -> None:
    """The letters a swap returned are in the record once the game is over, so a spectator's
    check replays every draw after a swap too, and a swap rewritten afterwards fails."""
    swap = finished.turns.filter(kind=Turn.Kind.SWAP).order_by("number").first()
    assert swap is not None, "the fixture game should hold a swap"
    assert record_for(finished, AnonymousUser())["turn_tiles"][swap.number - 1]["swapped"] == (
        swap.swapped
    )
    # The same number of letters, from the same rack, but not the ones the swap returned.
    rack = list(swap.rack_before)
    for letter in swap.swapped:
        rack.remove(letter)
    other = "".join(rack[: len(swap.swapped)])
    if len(other) < len(swap.swapped) or sorted(other) == sorted(swap.swapped):
        other = "Q" * len(swap.swapped)
    Turn.objects.filter(pk=swap.pk).update(swapped=other)
    ok, lines = check(record_for(finished, AnonymousUser()))
    assert not ok
    # The swapper then held other tiles than the record says: named at their next turn.
    who = ("First", "Second")[swap.position]
    later = finished.turns.filter(position=swap.position, number__gt=swap.number)
    following = later.order_by("number").first()
    failure = (
        f"FAILED: Turn {following.number}: {who}'s rack was"
        if following is not None
        else f"FAILED: {who}'s last rack was"
    )
    assert any(line.startswith(failure) for line in lines), lines


def test_no_check_and_no_file_before_the_end(live_match: Match, alice: Member) -> None:
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("match", args=[live_match.id])).content.decode()
    assert "fairness-record" not in page
    assert client.get(reverse("match-verify", args=[live_match.id])).status_code == 404


def test_the_record_is_every_seats_tiles_and_the_same_for_every_viewer(
    finished: Match, alice: Member, bob: Member
) -> None:
    turns = list(finished.turns.order_by("number"))
    assert any(turn.kind == Turn.Kind.SWAP and turn.position == 1 for turn in turns)
    spectator = record_for(finished, AnonymousUser())
    assert record_for(finished, alice) == spectator
    assert record_for(finished, bob) == spectator
    assert spectator["turn_tiles"] == [
        {
            "number": turn.number,
            "position": turn.position,
            "rack_before": turn.rack_before,
            "drawn": turn.drawn,
            "swapped": turn.swapped if turn.kind == Turn.Kind.SWAP else "",
        }
        for turn in turns
    ]
    assert spectator["final_racks"] == [seat.rack for seat in finished.seats.order_by("position")]


# ---------------------------------------------------------------- the data migration


@pytest.mark.django_db(transaction=True)
def test_the_migration_backfills_the_chain_of_turns_already_played(
    live_match: Match, alice: Member, bob: Member
) -> None:
    play_out(live_match, (alice, bob), seed=7, turns=6)
    expected = stored_hashes(live_match)
    executor = MigrationExecutor(connection)
    executor.migrate([("matches", "0004_resign")])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    # Forward to every app's last migration: going back to 0004 also unapplied the apps
    # whose migrations depend on later ones of matches (vacations, challenges), and the
    # tests after this one in the same worker need their tables.
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert stored_hashes(live_match) == expected
    assert match_problems(Match.objects.get(pk=live_match.id)) == []
