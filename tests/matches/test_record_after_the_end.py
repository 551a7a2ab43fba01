"""After the end, the whole record is public (RULES.md section 5, RECORDS.md): every rack of
every turn, every swap's letters and the racks left at the end, to whoever may see the match,
in the replay, the GCG export and the bag check; before the end, nothing of it but a seat's
own tiles to that seat.

Games are played through the services. What the server sends is compared with the stored
turns, and the replay's racks with the engine's own replay of the game from its seed.
"""

from __future__ import annotations

import ast
import json
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import Member
from engine import Game, parse_gcg
from engine.gcg import END_RACK, EXCHANGE, PLAY
from imports.services import import_game
from matches import services
from matches.models import Match, Turn
from matches.records import move_of, salt_of
from tests.matches.test_api import _get
from tests.matches.test_records import play_out

pytestmark = pytest.mark.django_db

NICKS = ("alice", "bob")


@pytest.fixture
def played_out(live_match: Match, alice: Member, bob: Member) -> Match:
    """A game played to its end by going out, with swaps by both seats (seed 8)."""
    match = play_out(live_match, (alice, bob), seed=8)
    assert match.end_reason == Match.EndReason.PLAYED_OUT
    assert {t.position for t in match.turns.filter(kind=Turn.Kind.SWAP)} == {0, 1}
    return match


def client_of(member: Member | None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def export(client: Client, match: Match) -> str:
    answer = client.get(reverse("match-export-gcg", args=[match.id]))
    assert answer.status_code == 200, answer.content
    return answer.content.decode()


def replays(client: Client, match: Match) -> list[dict[str, Any]]:
    """Every step of the replay as ``client`` is served it (checked against the OpenAPI)."""
    url = reverse("api:match-replay", args=[match.id])
    steps = []
    for turn in range(match.turn_number + 1):
        status, answer = _get(client, url, {"turn": turn})
        assert status == 200, answer
        steps.append(answer)
    return steps


def turn_tiles(turn: Turn) -> dict[str, Any]:
    return {
        "number": turn.number,
        "position": turn.position,
        "rack_before": turn.rack_before,
        "drawn": turn.drawn,
        "swapped": turn.swapped if turn.kind == Turn.Kind.SWAP else "",
    }


def engine_racks(match: Match) -> list[list[str]]:
    """Both racks after each number of turns (0 to all), sorted: the engine's own replay of
    the game from its seed, the seats' values and the logged moves."""
    seats = list(match.seats.order_by("position"))
    game = Game.new(ruleset=match.ruleset, seed=bytes.fromhex(match.bag_seed), salt=salt_of(seats))
    steps = [["".join(sorted(rack)) for rack in game.racks]]
    for turn in match.turns.order_by("number"):
        game = game.apply(move_of(turn), player=game.to_move, lexicon=None)
        steps.append(["".join(sorted(rack)) for rack in game.racks])
    return steps


# ---------------------------------------------------------------- GCG


def test_a_finished_games_gcg_has_racks_on_every_move_line_and_letters_on_its_end_lines(
    played_out: Match,
) -> None:
    """A spectator's export: the standard rack field on every move line, every exchange's
    letters, and the end-of-game lines with the rack counted written as letters."""
    text = export(client_of(None), played_out)
    lines = [line for line in text.splitlines() if line.startswith(">")]
    turns = list(played_out.turns.order_by("number"))
    for line, turn in zip(lines, turns, strict=False):
        assert line.startswith(f">{NICKS[turn.position]}: {turn.rack_before} "), line
        if turn.kind == Turn.Kind.SWAP:
            assert f" -{''.join(sorted(turn.swapped))} +0 " in line, line
    # Going out: the player who went out gains the rack left, written as its letters and
    # with an empty rack field of their own; the other loses it, their rack on their line.
    seats = list(played_out.seats.order_by("position"))
    out = turns[-1].position
    left = seats[1 - out].rack
    assert left, "the opponent of the player who went out still held tiles"
    value = seats[out].score - (turns[-1].first_total, turns[-1].second_total)[out]
    assert value > 0
    assert lines[len(turns) :] == [
        f">{NICKS[out]}:  ({left}) +{value} {seats[out].score}",
        f">{NICKS[1 - out]}: {left} ({left}) -{value} {seats[1 - out].score}",
    ]
    record = parse_gcg(text)
    ends = [event for event in record.events if event.kind == END_RACK]
    assert [event.end_rack for event in ends] == [left, left]


def test_after_six_scoreless_turns_each_end_line_shows_the_rack_it_counts(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=2)
    assert match.end_reason == Match.EndReason.SIX_SCORELESS
    last = match.turns.order_by("-number").first()
    assert last is not None
    before = (last.first_total, last.second_total)
    lines = [line for line in export(client_of(None), match).splitlines() if line[:1] == ">"]
    ends = lines[match.turn_number :]
    expected = []
    for seat in match.seats.order_by("position"):
        if seat.rack:
            points = seat.score - before[seat.position]
            expected.append(
                f">{NICKS[seat.position]}: {seat.rack} ({seat.rack}) {points} {seat.score}"
            )
    assert expected
    assert ends == expected


def test_a_resigned_games_record_names_the_racks_left(
    live_match: Match, alice: Member, bob: Member
) -> None:
    """No end-of-game rack lines after a resignation: the racks left are GCG's ``#rack1``
    and ``#rack2``, once it is over, and not before."""
    match = play_out(live_match, (alice, bob), seed=8, turns=6)
    assert parse_gcg(export(client_of(alice), match)).racks == (None, None)
    services.match_resign(match_id=match.id, member=bob, client_id="resign")
    match.refresh_from_db()
    record = parse_gcg(export(client_of(None), match))
    seats = list(match.seats.order_by("position"))
    assert record.racks == (seats[0].rack, seats[1].rack)
    assert not any(event.kind == END_RACK for event in record.events)
    assert record.events[-1].notes == ("bob (Second) resigned. alice (First) won.",)


def test_the_finished_record_round_trips_through_import(played_out: Match, alice: Member) -> None:
    """Export, import, and it is the same game: every line's seat, rack, move, score and
    total, every exchange's letters, the end-of-game racks; written back, the same lines."""
    text = export(client_of(None), played_out)
    imported = import_game(owner=alice, data=text, ruleset="word-duel", lexicon="enable")
    steps = imported.replay["turns"]
    turns = list(played_out.turns.order_by("number"))
    assert len(steps) == len(turns) + 2  # and the two end-of-game lines
    for step, turn in zip(steps, turns, strict=False):
        assert (step["seat"], step["nick"]) == (turn.position, NICKS[turn.position])
        assert step["rack"] == turn.rack_before
        assert (step["score"], step["totals"]) == (
            turn.score,
            [turn.first_total, turn.second_total],
        )
        assert step["flags"] == []
        if turn.kind == Turn.Kind.PLAY:
            assert step["kind"] == PLAY
            placed = {(tile["row"], tile["col"]) for tile in turn.placement}
            assert {(tile["row"], tile["col"]) for tile in step["tiles"]} == placed
        elif turn.kind == Turn.Kind.SWAP:
            assert (step["kind"], step["move"]) == (EXCHANGE, f"-{''.join(sorted(turn.swapped))}")
    seats = list(played_out.seats.order_by("position"))
    assert [step["kind"] for step in steps[len(turns) :]] == [END_RACK, END_RACK]
    assert steps[-1]["totals"] == [seat.score for seat in seats]
    left = seats[1 - turns[-1].position].rack
    assert {step["move"] for step in steps[len(turns) :]} == {f"({left})"}
    assert parse_gcg(imported.record_text).events == parse_gcg(text).events


# ---------------------------------------------------------------- the replay


def test_a_spectators_replay_shows_every_rack_after_the_end_and_none_before(
    live_match: Match, alice: Member, bob: Member, make_member, organiser: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=8, turns=6)
    onlookers = {
        "visitor": client_of(None),
        "member": client_of(make_member("carol")),
        "organiser": client_of(organiser),
    }
    for name, client in onlookers.items():
        for step in replays(client, match):
            assert (step["rack"], step["racks"], step["turn_tiles"]) == (None, None, None), name
    for position, member in enumerate((alice, bob)):
        for step, racks in zip(replays(client_of(member), match), engine_racks(match), strict=True):
            assert "".join(sorted(step["rack"])) == racks[position]
            assert (step["racks"], step["turn_tiles"]) == (None, None)

    match = play_out(match, (alice, bob), seed=8)
    assert match.is_over
    turns = list(match.turns.order_by("number"))
    expected = engine_racks(match)
    for name, client in onlookers.items():
        steps = replays(client, match)
        assert len(steps) == len(turns) + 1
        for number, (step, racks) in enumerate(zip(steps, expected, strict=True)):
            assert ["".join(sorted(rack)) for rack in step["racks"]] == racks, (name, number)
            assert [seat["rack_count"] for seat in step["seats"]] == [len(r) for r in racks]
            assert step["turn_tiles"] == [turn_tiles(turn) for turn in turns[:number]]
            assert step["rack"] is None
        final = [seat.rack for seat in match.seats.order_by("position")]
        assert ["".join(rack) for rack in steps[-1]["racks"]] == final


# ---------------------------------------------------------------- swapped letters


def test_swapped_letters_are_public_after_the_end_and_private_before(
    live_match: Match, alice: Member, bob: Member
) -> None:
    """In the GCG export, the replay and the bag check's file: before the end a swap's
    letters reach only the swapper (the others get its count), after it everyone."""
    match = play_out(live_match, (alice, bob), seed=8, turns=4)
    swaps = list(match.turns.filter(kind=Turn.Kind.SWAP).order_by("number"))
    assert [swap.position for swap in swaps] == [0, 1]
    letters = ["".join(sorted(swap.swapped)) for swap in swaps]
    viewers = {"visitor": (client_of(None), None), "alice": (client_of(alice), 0)}
    viewers["bob"] = (client_of(bob), 1)

    def exchanges(client: Client) -> list[tuple[str | None, int | None]]:
        record = parse_gcg(export(client, match))
        return [
            (event.exchanged, event.exchange_count)
            for event in record.events
            if event.kind == EXCHANGE
        ]

    for name, (client, seat) in viewers.items():
        assert exchanges(client) == [
            (letters[i] if swap.position == seat else None, len(swap.swapped))
            for i, swap in enumerate(swaps)
        ], name
        assert all(step["turn_tiles"] is None for step in replays(client, match)), name
        assert client.get(reverse("match-verify", args=[match.id])).status_code == 404, name

    services.match_resign(match_id=match.id, member=alice, client_id="resign")
    match.refresh_from_db()
    for name, (client, _) in viewers.items():
        assert exchanges(client) == [(spelled, len(spelled)) for spelled in letters], name
        steps = replays(client, match)
        shown = [tiles["swapped"] for tiles in steps[-1]["turn_tiles"] if tiles["swapped"]]
        assert shown == [swap.swapped for swap in swaps], name
        record = verification_record(client, match)
        shown = [tiles["swapped"] for tiles in record["turn_tiles"] if tiles["swapped"]]
        assert shown == [swap.swapped for swap in swaps], name


def verification_record(client: Client, match: Match) -> dict[str, Any]:
    """The record a downloaded verification file holds (``RECORD = json.loads(...)``)."""
    answer = client.get(reverse("match-verify", args=[match.id]))
    assert answer.status_code == 200
    literal = re.search(r"^RECORD = json\.loads\((.*)\)$", answer.content.decode(), re.M)
    assert literal is not None
    return json.loads(ast.literal_eval(literal[1]))


# ---------------------------------------------------------------- verify_bag


def test_verify_bag_runs_every_viewers_check_of_every_draw(played_out: Match) -> None:
    out = StringIO()
    call_command("verify_bag", str(played_out.id), stdout=out)
    draws = 14 + sum(len(turn.drawn) for turn in played_out.turns.all())
    assert out.getvalue().splitlines()[0].startswith(f"OK match {played_out.id}")
    assert (
        f"OK the record every viewer checks: All {draws} draws of both seats match the seed "
        "committed before the game." in out.getvalue().splitlines()
    )
