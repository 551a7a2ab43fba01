"""Secrecy by noninterference: for every pair of worlds that differ only in some facts, every
viewer whom the policy (``matches/visibility/policy.py``) keeps from all of those facts, in a
phase, got the very same bytes from both worlds in that phase, on every channel
(``tests/secrecy/build.py`` lists them). A leak of any shape or spelling is a difference.

Which viewers are held to it is read from the policy at each look, so when a rule changes
(the whole record public after the end, say), the pairs check what the new rule keeps.
Each pair also shows that its worlds do differ, for someone the policy lets see it: the
comparison is never between two things that could not have differed.
"""

from __future__ import annotations

import pytest

from matches.visibility.policy import Fact
from notifications.models import Kind
from tests.secrecy.build import Outside, build_world
from tests.secrecy.compare import differences, normalise
from tests.secrecy.plants import ANALYSIS, FIELD, PLANTS, SPELLINGS, spelled
from tests.secrecy.worlds import (
    BASE,
    FIRST,
    FIRST_OTHER,
    PUBLIC,
    REWORD,
    REWORD_SECOND_OTHER,
    SECOND,
    SECOND_OTHER,
    SECOND_VARIANT,
    TABLE,
    THIRD_OTHER,
    UNPLANTED_BASE,
    Hand,
    WorldRecord,
    WorldSpec,
    seed_hex,
    variant,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PUBLIC_BASE = variant("public", visibility=PUBLIC, seed=seed_hex("public"))
#: Each pair: the world it is compared with, the other world, and the facts they differ in.
#: (The seed differs in every pair but the key's, so each also shows it stays secret.)
PAIRS: dict[str, tuple[WorldSpec, WorldSpec, set[tuple[Fact, int | None]]]] = {
    "Second's rack, draws and swap, the bag and the seed": (
        BASE,
        SECOND_VARIANT,
        {(Fact.RACK, 1), (Fact.SWAPPED, 1), (Fact.BAG, None), (Fact.SEED, None)},
    ),
    "First's rack and draws, the bag and the seed": (
        UNPLANTED_BASE,
        variant("First's other tiles", seed=seed_hex("first"), hands=(FIRST_OTHER, SECOND)),
        {(Fact.RACK, 0), (Fact.BAG, None), (Fact.SEED, None)},
    ),
    "the viewing key": (
        UNPLANTED_BASE,
        variant("another key", viewing_key="another-key-0000000000000000000000000000000"),
        {(Fact.VIEWING_KEY, None)},
    ),
    "the board itself": (
        UNPLANTED_BASE,
        variant(
            "another opening",
            seed=seed_hex("cat"),
            opening="CAT",
            hands=(Hand(deal="CATSERD", draws=FIRST.draws), SECOND),
            resigner=1,
        ),
        {(Fact.RECORD, None), (Fact.RACK, 0), (Fact.BAG, None), (Fact.SEED, None)},
    ),
    "a public match: both racks, the bag, the seed and the key": (
        PUBLIC_BASE,
        variant(
            "public, other tiles",
            PUBLIC_BASE,
            seed=seed_hex("public-other"),
            hands=(FIRST_OTHER, SECOND_OTHER),
            viewing_key="another-key-0000000000000000000000000000000",
        ),
        {
            (Fact.RACK, 0),
            (Fact.RACK, 1),
            (Fact.SWAPPED, 1),
            (Fact.BAG, None),
            (Fact.SEED, None),
            (Fact.VIEWING_KEY, None),
        },
    ),
    "a table of four: Third's rack, the bag and the seed": (
        TABLE,
        variant(
            "a table of four, Third's other tiles",
            TABLE,
            seed=seed_hex("table-third"),
            hands=(*TABLE.hands[:2], THIRD_OTHER, TABLE.hands[3]),
        ),
        {(Fact.RACK, 2), (Fact.BAG, None), (Fact.SEED, None)},
    ),
    "a Reword duel: Second's rack, draws and swap after its swaps and steals, the bag and the "
    "seed": (
        REWORD,
        variant(
            "a Reword duel, Second's other tiles",
            REWORD,
            seed=seed_hex("reword-second"),
            hands=(REWORD.hands[0], REWORD_SECOND_OTHER),
        ),
        {(Fact.RACK, 1), (Fact.SWAPPED, 1), (Fact.BAG, None), (Fact.SEED, None)},
    ),
}

#: Worlds already built in this run, by label: a world is a value (same spec, same bytes),
#: so the worlds several pairs share are built once.
_BUILT: dict[str, WorldRecord] = {}
_KINDS_SENT: dict[str, set[str]] = {}


async def world(spec: WorldSpec, outside: Outside) -> WorldRecord:
    if spec.label not in _BUILT:
        _BUILT[spec.label] = await build_world(spec, outside)
        _KINDS_SENT[spec.label] = outside.kinds_sent[spec.label]
    return _BUILT[spec.label]


#: The worlds each pair builds, in groups that ``make secrecy`` runs on its two cores
#: (``--dist loadgroup``: the tests sharing worlds run in one process, which builds them once).
GROUPS = {
    "Second's rack, draws and swap, the bag and the seed": "second",
    "First's rack and draws, the bag and the seed": "first",
    "the viewing key": "first",
    "the board itself": "first",
    "a public match: both racks, the bag, the seed and the key": "public",
    "a table of four: Third's rack, the bag and the seed": "table",
    "a Reword duel: Second's rack, draws and swap after its swaps and steals, the bag and the "
    "seed": "reword",
}


@pytest.mark.parametrize(
    "pair", [pytest.param(pair, marks=pytest.mark.xdist_group(GROUPS[pair])) for pair in PAIRS]
)
async def test_two_worlds_look_alike_to_everyone_the_policy_keeps_from_their_difference(
    pair: str, outside: Outside
) -> None:
    first_spec, second_spec, varied = PAIRS[pair]
    assert first_spec.plants == second_spec.plants, "both worlds plant, or neither does"
    first = await world(first_spec, outside)
    second = await world(second_spec, outside)
    leaks, shown = [], []
    for look in first.looks:
        for role, granted in sorted(look.grants.items()):
            found = differences(first, second, phase=look.phase, role=role)
            if granted & varied:
                shown += found
            else:
                leaks += found
    assert not leaks, "\n\n".join(leaks)
    assert shown, f"the worlds of {pair!r} looked the same even to those who may tell them apart"


@pytest.mark.xdist_group("second")
async def test_every_kind_of_notice_is_sent_in_the_worlds(outside: Outside) -> None:
    """Every kind of notice the code defines reached a member's inbox or browser in the base
    world, so the comparison covered its content (a new kind that no world causes fails
    here: teach ``tests/secrecy/build.py`` to cause it)."""
    await world(BASE, outside)
    assert set(Kind) <= _KINDS_SENT[BASE.label]


def readable(text: str) -> str:
    """``text`` with iCalendar's folded lines joined and its escaped commas plain."""
    return text.replace("\r\n ", "").replace("\\,", ",")


@pytest.mark.parametrize(
    "plant",
    [
        pytest.param(name, marks=pytest.mark.xdist_group("second"))
        for name in [f"{c} / {s}" for c, s in PLANTS] + [" / ".join(ANALYSIS)]
    ],
)
async def test_a_planted_leak_is_caught_whatever_its_spelling(plant: str, outside: Outside) -> None:
    """bob's rack planted in one of alice's channels (tests/secrecy/plants.py): without the
    plant the two worlds give alice the same bytes there, with it they do not, so the suite
    above would fail on it."""
    first = await world(BASE, outside)
    second = await world(SECOND_VARIANT, outside)
    channel, spelling = plant.split(" / ", maxsplit=1)
    kind = "log" if channel == "log" else channel
    (clean_first, planted_first) = first.look("live").planted[plant]
    (clean_second, planted_second) = second.look("live").planted[plant]
    for world_record, planted in ((first, planted_first), (second, planted_second)):
        shown = readable(planted)
        secrets = world_record.look("live").secrets
        if spelling == FIELD:
            assert "rack_left" in shown or "rack-left" in shown, shown
        elif spelling in SPELLINGS:
            assert spelled(secrets.rack, spelling) in shown, shown
        else:  # the analysis, given before the end
            assert '"best": {' in shown, shown
    assert normalise(clean_first, first, channel=kind) == normalise(
        clean_second, second, channel=kind
    )
    assert normalise(planted_first, first, channel=kind) != normalise(
        planted_second, second, channel=kind
    ), f"the leak planted in {plant} went unseen"
