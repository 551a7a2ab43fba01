"""The computer keeps the policy too: it is a player, so two worlds that deal its seat the
same tiles and differ in alice's tiles, the bag and the seed give it the same view, and it
makes the same move. It plays through its real path: seated by an organiser, its turn run by
the Celery task queued after alice's commit (in the process), choosing from its seat's view
(``practice.tasks.run_computer_turn``)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import Permission
from django.core.management import call_command

from accounts.models import Member
from matches import services
from matches.models import Match, Turn
from matches.visibility import policy
from practice import tasks
from practice.services import computer_member, seat_computer
from tests.conftest import _drop_rate_limits
from tests.matches.helpers import commit_move
from tests.notifications.conftest import eager_tasks  # noqa: F401 (a fixture, used by name)
from tests.secrecy import worlds
from tests.secrecy.worlds import FIRST, FIRST_OTHER, SECOND, Hand, WorldSpec, seed_hex
from tournaments import services as organising

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: The computer sits Second; after its deal and its draw, any tiles fit its play.
COMPUTERS_HAND = replace(SECOND, draws=("EEEEAAI",))
SPECS = (
    WorldSpec(
        label="computer",
        visibility=worlds.MEMBERS_ONLY,
        seed=seed_hex("computer"),
        viewing_key="key-of-the-computer-world-0000000000000000",
        hands=(FIRST, COMPUTERS_HAND),
    ),
    WorldSpec(
        label="computer, alice's other tiles",
        visibility=worlds.MEMBERS_ONLY,
        seed=seed_hex("computer-other"),
        viewing_key="key-of-the-computer-world-0000000000000000",
        hands=(Hand(deal=FIRST_OTHER.deal, draws=("UEW",)), COMPUTERS_HAND),
    ),
)


def _world(spec: WorldSpec, seen: list[Any]) -> dict[str, Any]:
    """alice opens with HAT against the computer; what the computer saw and what it did."""
    call_command("flush", interactive=False, verbosity=0)
    _drop_rate_limits()
    worlds.install_script(spec)
    olive = Member.objects.create_user(username="olive", password="pw-correct-horse")
    olive.user_permissions.add(Permission.objects.get(codename="organise"))
    olive = Member.objects.get(pk=olive.pk)
    alice = Member.objects.create_user(username="alice", password="pw-correct-horse")
    match = organising.create_fixture(
        organiser=olive,
        name="Bye round",
        first=alice,
        kickoff_at=worlds.KICKOFF,
        visibility_=spec.visibility,
    )
    seat_computer(match_id=match.pk, organiser=olive, position=1, level="normal")
    Match.objects.filter(pk=match.pk).update(
        bag_seed=spec.seed,
        bag_commitment=hashlib.sha256(bytes.fromhex(spec.seed)).hexdigest(),
        viewing_key=spec.viewing_key,
    )
    for member, value in ((alice, "aa" * 16), (computer_member(), "bb" * 16)):
        services.match_contribute_entropy(match_id=match.pk, member=member, value_hex=value)
    with time_machine.travel(worlds.KICKOFF, tick=False):
        services.open_due_matches()
    with time_machine.travel(worlds.move_time(0), tick=False):
        _, _, tiles = worlds.public_moves("HAT")[0]
        opening = {
            "kind": "play",
            "tiles": [{"row": r, "col": c, "letter": x, "blank": False} for r, c, x in tiles],
        }
        outcome = commit_move(
            match_id=match.pk, member=alice, move=opening, against_turn=0, client_id="open"
        )
        assert outcome.accepted, outcome
    match.refresh_from_db()
    turns = list(Turn.objects.filter(match=match).order_by("number"))
    assert [turn.position for turn in turns] == [0, 1], "the computer did not move"
    assert policy.phase_of(match) == policy.Phase.LIVE
    (view, choice) = seen[-1]
    replies = turns[1]
    hashes = {match.bag_commitment: "<bag-commitment>"} | {
        turn.record_hash: f"<turn-hash-{turn.number}>" for turn in turns
    }
    shown = view.model_dump_json()
    for digest, placeholder in hashes.items():
        shown = shown.replace(digest, placeholder)
    return {
        "the computer's view": shown,
        "its choice": repr(choice.move),
        "its move on the board": repr(
            (replies.kind, replies.placement, replies.words, replies.score, replies.swap_count)
        ),
        "alice's rack": turns[0].rack_before,
    }


def test_the_computer_sees_and_does_the_same_whatever_its_opponent_holds(
    eager_tasks,  # noqa: F811
    monkeypatch,
) -> None:
    worlds.patch_bag(monkeypatch)
    seen: list[Any] = []
    choose = tasks.computer_move

    def spied(view: Any, **kwargs: Any) -> Any:
        choice = choose(view, **kwargs)
        seen.append((view, choice))
        return choice

    monkeypatch.setattr(tasks, "computer_move", spied)
    first, second = (_world(spec, seen) for spec in SPECS)
    assert first["alice's rack"] != second["alice's rack"]  # the worlds do differ
    for what in ("the computer's view", "its choice", "its move on the board"):
        assert first[what] == second[what], what
