"""The verifiable bag: contributions before the deal, one HMAC stream for every draw (the
engine's, as live matches use it), ``verify_bag`` on finished games, and the stand-alone
recipe of docs/RECORDS.md run against a real game.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import Member
from engine import Game, get_ruleset, replay
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat, Turn
from matches.records import move_of, salt_of, verify_bag
from tests.matches.helpers import commit_move, game_of
from tests.matches.test_records import play_out

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def upcoming(make_fixture, alice: Member, bob: Member) -> Match:
    """Both seated, kick-off tomorrow: not dealt yet."""
    return make_fixture(first=alice, second=bob, kickoff_at=timezone.now() + timedelta(days=1))


def _contribute(match: Match, member: Any, value: Any) -> Seat:
    return services.match_contribute_entropy(match_id=match.id, member=member, value_hex=value)


def _verify(match_id: int) -> tuple[int, str]:
    """Run ``manage.py verify_bag``: (exit status, what it printed)."""
    from io import StringIO

    out = StringIO()
    try:
        call_command("verify_bag", str(match_id), stdout=out)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue()
    except CommandError as error:
        return error.returncode, f"{out.getvalue()}{error}"
    return 0, out.getvalue()


# ---------------------------------------------------------------- contributing


def test_a_seated_player_contributes_once_before_the_deal(upcoming: Match, alice: Member) -> None:
    seat = _contribute(upcoming, alice, " " + "AB" * 16 + "\n")
    assert seat.position == 0
    assert Seat.objects.get(pk=seat.pk).contribution == "ab" * 16
    with pytest.raises(services.ServiceError, match="already added its value"):
        _contribute(upcoming, alice, "cd" * 32)
    assert Seat.objects.get(pk=seat.pk).contribution == "ab" * 16


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("ab" * 15, "16 to 32 bytes (32 to 64 hex digits)"),
        ("ab" * 33, "16 to 32 bytes (32 to 64 hex digits)"),
        ("a" * 33, "written in hex"),
        ("xy" * 16, "written in hex"),
        ("ab " * 16, "written in hex"),
        ("", "written in hex"),
        (None, "as a string of hex digits"),
        (1234, "as a string of hex digits"),
    ],
)
def test_a_bad_value_is_refused_and_changes_nothing(
    upcoming: Match, bob: Member, value: Any, message: str
) -> None:
    with pytest.raises(services.ServiceError, match=re.escape(message)):
        _contribute(upcoming, bob, value)
    assert upcoming.seats.get(position=1).contribution == ""


def test_only_a_seated_member_may_contribute(upcoming: Match, make_member) -> None:
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.NotAllowed, match="Sign in"):
        _contribute(upcoming, AnonymousUser(), "ab" * 16)
    with pytest.raises(services.NotAllowed, match="Only a player seated in this match"):
        _contribute(upcoming, make_member(), "ab" * 16)
    with pytest.raises(services.ServiceError, match="no such match"):
        services.match_contribute_entropy(
            match_id=upcoming.id + 999, member=make_member(), value_hex="ab" * 16
        )


def test_no_contribution_after_the_deal_or_the_end(
    live_match: Match, alice: Member, bob: Member
) -> None:
    with pytest.raises(services.ServiceError, match=r"The tiles have already been dealt\."):
        _contribute(live_match, alice, "ab" * 16)
    match = play_out(live_match, (alice, bob), seed=1)
    with pytest.raises(services.ServiceError, match=r"This match is over\."):
        _contribute(match, bob, "ab" * 16)


def test_a_kick_off_that_has_passed_deals_first_and_refuses(upcoming: Match, alice: Member) -> None:
    after = upcoming.kickoff_at + timedelta(seconds=1)
    with (
        time_machine.travel(after, tick=False),
        pytest.raises(services.ServiceError, match="already been dealt"),
    ):
        _contribute(upcoming, alice, "ab" * 16)
    upcoming.refresh_from_db()
    assert upcoming.status == Match.Status.LIVE  # the deal stands


def test_the_deal_is_keyed_by_the_seed_over_both_contributions(
    upcoming: Match, alice: Member
) -> None:
    mine = "0123456789abcdef" * 4  # 32 bytes
    _contribute(upcoming, alice, mine)
    assert services.open_due_matches(now=upcoming.kickoff_at) == [upcoming.id]
    upcoming.refresh_from_db()
    seats = list(upcoming.seats.order_by("position"))
    assert seats[0].contribution == mine
    assert len(bytes.fromhex(seats[1].contribution)) == 16  # the server's, for a silent seat
    stored = game_of(upcoming)
    assert stored.stream.seed.hex() == upcoming.bag_seed
    assert stored.stream.salt.hex() == mine + seats[1].contribution
    dealt = Game.new(
        ruleset=upcoming.ruleset, seed=bytes.fromhex(upcoming.bag_seed), salt=salt_of(seats)
    )
    assert dealt == stored
    assert [seat.rack for seat in seats] == ["".join(rack) for rack in dealt.racks]
    # Another value would have dealt other racks: the contribution really keys the stream.
    other = Game.new(ruleset=upcoming.ruleset, seed=dealt.seed, salt=b"\x00" + dealt.salt[1:])
    assert other.racks != dealt.racks or other.bag != dealt.bag


# ---------------------------------------------------------------- one stream, one code path


def test_a_live_game_is_the_engine_replay_of_its_seed_contributions_and_moves(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=21)
    assert match.is_over
    turns = list(match.turns.order_by("number"))
    seats = list(match.seats.order_by("position"))
    lexicon = get_lexicon(match.lexicon, max_len=get_ruleset(match.ruleset).lexicon_max_len)
    again = replay(
        [move_of(turn) for turn in turns],
        ruleset=match.ruleset,
        seed=bytes.fromhex(match.bag_seed),
        salt=salt_of(seats),
        lexicon=lexicon,
    )
    # The stored position is the replay's, without the history (the turns are the log).
    assert game_of(match) == replace(again, turns=(), turns_before=again.turn_number)
    assert [turn.drawn for turn in turns] == ["".join(t.drawn) for t in again.turns]
    assert any(turn.kind == Turn.Kind.SWAP for turn in turns)


_RANDOM_FUNCTIONS = ("random", "getrandbits", "shuffle", "choice", "choices", "sample",
                     "randrange", "randint", "uniform", "randbytes")  # fmt: skip


@contextlib.contextmanager
def no_chance(used: list[str]) -> Iterator[None]:
    """Every function of Python's ``random`` (module, instances, SystemRandom) raises, and
    says so in ``used``, while the block runs."""

    def forbidden(name: str) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            used.append(name)
            raise AssertionError(f"random.{name} was called")

        return refuse

    with pytest.MonkeyPatch.context() as patch:
        for name in _RANDOM_FUNCTIONS:
            for owner in (random, random.Random, random.SystemRandom):
                if hasattr(owner, name):
                    patch.setattr(owner, name, forbidden(name))
        yield


def test_no_source_of_chance_but_the_committed_stream_decides_a_draw(
    live_match: Match, alice: Member, bob: Member, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole game through the services with Python's ``random`` out of reach while each
    service runs: the game still plays to its end, and every draw is the engine's replay of
    the seed and the contributions, so nothing else shuffles a bag."""
    real_commit = services.match_commit
    used: list[str] = []

    def commit_without_chance(**kwargs: Any) -> services.CommitOutcome:
        with no_chance(used):
            return real_commit(**kwargs)

    monkeypatch.setattr(services, "match_commit", commit_without_chance)
    match = play_out(live_match, (alice, bob), seed=33)
    assert match.is_over
    assert used == []
    turns = list(match.turns.order_by("number"))
    assert any(turn.kind == Turn.Kind.SWAP for turn in turns)  # a swap reshuffles the bag
    replayed = replay(
        [move_of(turn) for turn in turns],
        ruleset=match.ruleset,
        seed=bytes.fromhex(match.bag_seed),
        salt=salt_of(list(match.seats.order_by("position"))),
        lexicon=get_lexicon(match.lexicon, max_len=get_ruleset(match.ruleset).lexicon_max_len),
    )
    assert [turn.drawn for turn in turns] == ["".join(t.drawn) for t in replayed.turns]


def test_the_guard_against_chance_sees_every_kind_of_shuffle() -> None:
    """The plant: a bag shuffled with ``random`` in any of its forms is caught."""
    used: list[str] = []
    with no_chance(used):
        for shuffle in (random.shuffle, random.Random(1).shuffle, random.SystemRandom().shuffle):
            with pytest.raises(AssertionError):
                shuffle(list("AEIOU"))
        with pytest.raises(AssertionError):
            random.SystemRandom().random()
    assert used == ["shuffle", "shuffle", "shuffle", "random"]
    random.Random(1).shuffle(list("AEIOU"))  # and nothing stays patched after it


def test_nothing_sent_during_play_carries_the_seed(
    live_match: Match, alice: Member, bob: Member
) -> None:
    seed = live_match.bag_seed
    acks: list[dict[str, Any]] = []

    def check(match: Match) -> None:
        from django.contrib.auth.models import AnonymousUser

        from matches import visibility

        for member in (alice, bob, AnonymousUser()):
            access = services.look_at_match(user=member, match_id=match.pk, key=None)
            acks.append(visibility.api_match_state(access).model_dump(mode="json"))
        turns = list(match.turns.order_by("number"))
        seats = list(match.seats.order_by("position"))
        for seat in seats:
            acks.append(visibility.commit_accepted(match, seat, turns[-1]).model_dump(mode="json"))
            acks.append(visibility.rack_news(match, seat).model_dump(mode="json"))
        acks.append(visibility.public_match(match, seats, turns).model_dump(mode="json"))

    play_out(live_match, (alice, bob), seed=8, turns=6, after_turn=check)
    text = json.dumps(acks)
    assert seed not in text
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() in text  # only the commitment


# ---------------------------------------------------------------- verify_bag


def test_verify_bag_passes_on_a_played_out_game(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=13)
    assert match.status == Match.Status.FINISHED
    status, output = _verify(match.id)
    assert status == 0, output
    assert output.startswith(f"OK match {match.id}")
    assert f"{match.turn_number} turns" in output


def test_verify_bag_passes_after_six_scoreless_turns(
    live_match: Match, alice: Member, bob: Member
) -> None:
    for number in range(6):
        match = Match.objects.get(pk=live_match.pk)
        outcome = commit_move(
            match_id=match.id,
            member=(alice, bob)[number % 2],
            move={"kind": "pass"},
            against_turn=match.turn_number,
            client_id=f"p{number}",
        )
        assert outcome.accepted
    match = Match.objects.get(pk=live_match.pk)
    assert match.end_reason == Match.EndReason.SIX_SCORELESS
    assert verify_bag(match).ok
    assert _verify(match.id)[0] == 0


def test_verify_bag_reports_one_altered_draw(live_match: Match, alice: Member, bob: Member) -> None:
    match = play_out(live_match, (alice, bob), seed=13)
    turn = match.turns.filter(kind=Turn.Kind.PLAY).exclude(drawn="").order_by("number")[2]
    forged = ("Q" if turn.drawn[0] != "Q" else "Z") + turn.drawn[1:]
    Turn.objects.filter(pk=turn.pk).update(drawn=forged)
    status, output = _verify(match.id)
    assert status == 1
    assert f"MISMATCH turn {turn.number} drawn: recorded {forged!r}, recomputed " in output
    assert output.count("MISMATCH") == 1


def test_verify_bag_reports_a_forged_commitment(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=13, turns=4)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, bag_commitment="0" * 64)
    report = verify_bag(Match.objects.get(pk=match.pk))
    assert [m.split(":")[0] for m in report.mismatches] == ["commitment"]


def test_verify_bag_refuses_while_the_seed_is_secret(live_match: Match) -> None:
    status, output = _verify(live_match.id)
    assert status == 1
    assert "is not over: its bag seed is still secret" in output
    assert live_match.bag_seed not in output
    assert _verify(live_match.id + 999)[0] == 1


def test_verify_bag_on_a_match_never_dealt_checks_the_commitment(
    make_fixture, organiser: Member
) -> None:
    match = make_fixture(kickoff_at=timezone.now() - timedelta(hours=2))
    services.default_no_shows()
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED
    assert _verify(match.id)[0] == 0


# ---------------------------------------------------------------- the recipe in docs/RECORDS.md


def _recipe() -> dict[str, Any]:
    text = (ROOT / "docs" / "RECORDS.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    assert re.findall(r"^(?:import|from) (\S+)", blocks[0], re.M) == ["hashlib", "hmac"]
    namespace: dict[str, Any] = {}
    exec(compile(blocks[0], "docs/RECORDS.md", "exec"), namespace)  # noqa: S102
    return namespace


def test_the_documented_recipe_recomputes_a_real_game(
    live_match: Match, alice: Member, bob: Member
) -> None:
    recipe = _recipe()
    table = recipe["WORD_DUEL"]
    assert sorted(t for t, n in table.items() for _ in range(n)) == list(
        get_ruleset("word-duel").full_bag
    )
    match = play_out(live_match, (alice, bob), seed=17)
    turns = list(match.turns.order_by("number"))
    seats = list(match.seats.order_by("position"))
    assert recipe["commitment_ok"](match.bag_seed, match.bag_commitment)
    assert not recipe["commitment_ok"](match.bag_seed, "0" * 64)

    moves = [recipe_move(turn) for turn in turns]
    opening, drawn = recipe["recompute_draws"](
        match.bag_seed, [seat.contribution for seat in seats], moves
    )
    # Turns 1 and 2 are First's and Second's first moves: their racks are the deal.
    assert ["".join(sorted(rack)) for rack in opening] == [t.rack_before for t in turns[:2]]
    assert ["".join(tiles) for tiles in drawn] == [turn.drawn for turn in turns]
    assert len(drawn) == match.turn_number


def recipe_move(turn: Turn) -> tuple[str, str]:
    """A turn as the recipe takes it: public tiles for a play, the letters for a swap."""
    if turn.kind == Turn.Kind.PLAY:
        return ("play", "".join("?" if t["blank"] else t["letter"] for t in turn.placement))
    if turn.kind == Turn.Kind.SWAP:
        return ("swap", turn.swapped)
    return ("pass", "")


def test_verify_bag_passes_on_a_forfeited_match(
    live_match: Match, alice: Member, bob: Member
) -> None:
    match = play_out(live_match, (alice, bob), seed=9, turns=5)
    assert match.turn_deadline_at is not None
    services.forfeit_stalled_matches(now=match.turn_deadline_at)
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.FORFEIT
    status, output = _verify(match.id)
    assert (status, output.startswith("OK")) == (0, True), output
