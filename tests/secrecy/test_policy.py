"""The secrecy policy itself (``matches/visibility/policy.py``): what it grants whom and
when, and that docs/RULES.md states exactly that (the table there is this module's
rendering of the rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from matches.models import Match
from matches.visibility.access import Viewer
from matches.visibility.policy import (
    ALWAYS,
    RULES,
    THE_GAME,
    Audience,
    Fact,
    Phase,
    may_know,
    phase_of,
    revealed_seed,
)

RULES_MD = Path(__file__).resolve().parents[2] / "docs" / "RULES.md"
_STATUS = {Phase.SCHEDULED: "scheduled", Phase.LIVE: "live", Phase.OVER: "finished"}


def a_match(phase: Phase, *, visibility: str = Match.Visibility.MEMBERS) -> Match:
    """An unsaved match in ``phase``, created by member 1 (an organiser)."""
    return Match(
        name="m",
        status=_STATUS[phase],
        visibility=visibility,
        game_state=None if phase == Phase.SCHEDULED else {"format": 2},
        created_by_id=1,
        bag_seed="ab" * 32,
    )


#: The viewers of RULES.md's table: a name, the match they look at, who they are.
VIEWERS: list[tuple[str, str, Viewer]] = [
    ("a player (their own seat)", "members", Viewer(member_id=2, seat=0, is_member=True)),
    ("their opponent (the other seat)", "members", Viewer(member_id=3, seat=1, is_member=True)),
    # The computer reads its members-only match with the match's key, as a player may.
    (
        "the computer (a player like any other)",
        "members",
        Viewer(member_id=9, seat=1, has_key=True),
    ),
    (
        "an organiser",
        "members",
        Viewer(member_id=4, is_organiser=True, is_member=True),
    ),
    ("another member", "members", Viewer(member_id=5, is_member=True)),
    ("a key holder", "members", Viewer(has_key=True)),
    ("a spectator of a public match, signed in or not", "public", Viewer()),
    (
        "anyone else (not signed in, a sign-up waiting, a removed member: no key)",
        "members",
        Viewer(member_id=6),
    ),
]
#: The table's columns: a heading and the fact (with whose seat, for a seat's own facts).
COLUMNS: list[tuple[str, Fact, str | None]] = [
    ("the record", Fact.RECORD, None),
    ("their own rack, draws, swaps", Fact.RACK, "own"),
    ("any other seat's rack, draws, swaps", Fact.RACK, "other"),
    ("the bag", Fact.BAG, None),
    ("the seed", Fact.SEED, None),
    ("the viewing key", Fact.VIEWING_KEY, None),
]


def _cell(viewer: Viewer, visibility: str, fact: Fact, whose: str | None) -> str:
    if whose == "own" and viewer.seat is None:
        return "(no seat)"
    seat = None if whose is None else viewer.seat if whose == "own" else 1 - (viewer.seat or 0)
    known = {
        phase
        for phase in Phase
        if may_know(a_match(phase, visibility=visibility), viewer, fact, seat=seat)
    }
    if fact == Fact.RACK and whose is not None:  # a seat's swaps follow its rack's rule
        swaps = {
            phase
            for phase in Phase
            if may_know(a_match(phase, visibility=visibility), viewer, Fact.SWAPPED, seat=seat)
        }
        assert swaps == known, (viewer, whose)
    if known == set(ALWAYS):
        return "yes"
    if known == {Phase.OVER}:
        return "after the end"
    if not known:
        return "never"
    return ", ".join(sorted(known))


def policy_table() -> list[str]:
    """RULES.md's table of the policy, rendered from the rules."""
    lines = [
        "| | " + " | ".join(heading for heading, _, _ in COLUMNS) + " |",
        "|---" * (len(COLUMNS) + 1) + "|",
    ]
    for name, visibility, viewer in VIEWERS:
        cells = [_cell(viewer, visibility, fact, whose) for _, fact, whose in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def test_rules_md_states_the_policy_as_the_code_has_it() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    table = policy_table()
    assert "\n".join(table) in text, "RULES.md's policy table is not the policy:\n" + "\n".join(
        table
    )


def test_after_the_end_the_whole_record_is_one_rule() -> None:
    """The end's rule is one line of the policy: the game's every secret, to every watcher."""
    ending = [rule for rule in RULES if rule.phases != ALWAYS]
    assert len(ending) == 1
    (rule,) = ending
    assert rule.phases == {Phase.OVER}
    assert rule.facts == THE_GAME == {Fact.RACK, Fact.SWAPPED, Fact.BAG, Fact.SEED}
    assert rule.audience == Audience.WATCHERS


@pytest.mark.parametrize("phase", list(Phase))
@pytest.mark.parametrize("fact", list(Fact))
def test_someone_who_may_not_watch_may_know_nothing(phase: Phase, fact: Fact) -> None:
    match = a_match(phase)
    for viewer in (Viewer(), Viewer(member_id=6), Viewer(member_id=7, seat=0)):
        assert not may_know(match, viewer, fact, seat=0)
        assert not may_know(match, viewer, fact, seat=None)


def test_before_the_end_the_bag_and_the_seed_are_nobodys() -> None:
    for phase in (Phase.SCHEDULED, Phase.LIVE):
        match = a_match(phase)
        for _, _, viewer in VIEWERS:
            assert not may_know(match, viewer, Fact.BAG)
            assert not may_know(match, viewer, Fact.SEED)
        assert revealed_seed(match) is None
    assert revealed_seed(a_match(Phase.OVER)) == "ab" * 32


def test_the_phase_of_a_match() -> None:
    assert phase_of(a_match(Phase.SCHEDULED)) == Phase.SCHEDULED
    assert phase_of(a_match(Phase.LIVE)) == Phase.LIVE
    assert phase_of(a_match(Phase.OVER)) == Phase.OVER
    undealt = a_match(Phase.SCHEDULED)
    undealt.status = Match.Status.ABANDONED  # over without a deal: the seed is told too
    assert phase_of(undealt) == Phase.OVER
