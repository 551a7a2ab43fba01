"""The secrecy policy: what each viewer may know of a match, and until when. Written once.

A *fact* is one kind of thing a match holds (the public record, a seat's rack, a swap's
letters, the bag, the seed, the viewing key). A :class:`Rule` grants some facts to an
*audience* during some *phases* of the match; what no rule grants, nobody may know. Nothing
at all is granted to someone who may not watch the match (:func:`can_watch`): for them the
match does not exist.

The policy is a bound on every output: pages, socket frames, API answers, records,
notices, feeds, the data download and the logs may show a viewer less than it grants, never
more. ``tests/secrecy`` proves it by noninterference: two matches that differ only in facts
this policy keeps from a viewer give that viewer the same bytes on every channel.
docs/RULES.md, section 5, is this table in words (a test holds the two together).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from matches.models import Match
from matches.visibility.access import Viewer, can_share, can_watch


class Phase(StrEnum):
    """Where a match is in its life, as far as secrets go."""

    SCHEDULED = "scheduled"  # not dealt yet: the seed exists, no rack does
    LIVE = "live"  # dealt and not over
    OVER = "over"  # finished, however it ended (a match that ended undealt included)


class Fact(StrEnum):
    """The kinds of things a match holds."""

    #: The board, the move log (a swap only as a count), scores, whose move and until when,
    #: the bag's count and each rack's count, names, times, the bag's commitment, the seats'
    #: contributions and the turn log's chain.
    RECORD = "record"
    #: A seat's rack at every turn: its deal, its draws, what it held at the end.
    RACK = "rack"
    #: The letters a seat's swaps returned to the bag.
    SWAPPED = "swapped"
    #: The bag's contents and order, beyond what a viewer counts from the board and the
    #: racks it may see.
    BAG = "bag"
    #: The bag's secret seed, which predicts every draw.
    SEED = "seed"
    #: A members-only match's viewing key (whoever holds it may watch without being a member).
    VIEWING_KEY = "viewing_key"


class Audience(StrEnum):
    """Who a rule grants its facts to (always among those who may watch the match)."""

    WATCHERS = "everyone who may watch the match"
    OWN_SEAT = "the player of the seat the fact belongs to"
    SHARERS = "its players, the organisers, the fixture's creator, and whoever holds the key"


ALWAYS = frozenset(Phase)
#: Every fact of the game itself that is secret while it is played.
THE_GAME = frozenset({Fact.RACK, Fact.SWAPPED, Fact.BAG, Fact.SEED})


@dataclass(frozen=True)
class Rule:
    """``audience`` may know ``facts`` while the match is in one of ``phases``."""

    facts: frozenset[Fact]
    audience: Audience
    phases: frozenset[Phase]


RULES: tuple[Rule, ...] = (
    Rule(frozenset({Fact.RECORD}), Audience.WATCHERS, ALWAYS),
    Rule(frozenset({Fact.RACK, Fact.SWAPPED}), Audience.OWN_SEAT, ALWAYS),
    Rule(frozenset({Fact.VIEWING_KEY}), Audience.SHARERS, ALWAYS),
    # After the end, the whole record is public to whoever may see the match.
    Rule(THE_GAME, Audience.WATCHERS, frozenset({Phase.OVER})),
)


def phase_of(match: Match) -> Phase:
    """The match's phase now."""
    if match.is_over:
        return Phase.OVER
    return Phase.SCHEDULED if match.game_state is None else Phase.LIVE


def _in_audience(audience: Audience, match: Match, viewer: Viewer, seat: int | None) -> bool:
    if audience == Audience.WATCHERS:
        return True
    if audience == Audience.OWN_SEAT:
        return seat is not None and viewer.seat == seat
    return can_share(match, viewer) or viewer.has_key


def may_know(match: Match, viewer: Viewer, fact: Fact, *, seat: int | None = None) -> bool:
    """Whether ``viewer`` may know ``fact`` of ``match`` now (``seat``: whose rack or swap)."""
    if not can_watch(match, viewer):
        return False
    phase = phase_of(match)
    return any(
        fact in rule.facts
        and phase in rule.phases
        and _in_audience(rule.audience, match, viewer, seat)
        for rule in RULES
    )


def may_see_rack(match: Match, viewer: Viewer, seat: int) -> bool:
    """Whether ``viewer`` may see seat ``seat``'s rack (and its draws) now."""
    return may_know(match, viewer, Fact.RACK, seat=seat)


def known_to_every_watcher(match: Match, fact: Fact) -> bool:
    """Whether ``fact`` is granted to everyone who may watch ``match`` now: what news
    broadcast to every socket of the match may carry."""
    phase = phase_of(match)
    return any(
        fact in rule.facts and phase in rule.phases and rule.audience == Audience.WATCHERS
        for rule in RULES
    )


def revealed_seed(match: Match) -> str | None:
    """The bag's seed, once every watcher may know it; None before."""
    return match.bag_seed if known_to_every_watcher(match, Fact.SEED) else None
