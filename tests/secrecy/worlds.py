"""Worlds: one members' club with one tournament match, played the same way on the board.

A :class:`WorldSpec` says everything a world's match holds: who may watch it, its secret
seed, its viewing key, and each seat's *hand* (its deal, what it draws after each of its
turns, the letters its swap returns). The moves on the board are the same in every world
(only the opening's first letter can be chosen), so two specs that differ only in hidden
facts make two matches that every viewer without those facts must see alike.

The bag follows a script (:func:`scripted_bag`): each world's draws, in the order the
engine makes them, keyed by the world's seed. The engine's own draw from the seed's HMAC
stream would make the racks a function of the seed, and no two seeds deal one seat the same
rack; with the script, one seat's racks can stay while the other seat's, the bag's split
and the seed change. Everything else is the product as deployed: the services, the socket
consumer, the pages, the API, the notices' content and delivery, the feeds.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from engine import game as engine_game
from engine.tiles import DrawStream
from matches import models as match_models
from matches.models import Match
from matches.services import lifecycle

# ---------------------------------------------------------------- the hidden facts


@dataclass(frozen=True)
class Hand:
    """A seat's hidden tiles: its deal, its draw after each of its turns, its swaps."""

    deal: str
    draws: tuple[str, ...]
    swaps: tuple[str, ...] = ()


def seed_hex(label: str) -> str:
    """A 32-byte seed named by ``label`` (hex)."""
    return hashlib.sha256(f"secrecy-{label}".encode()).hexdigest()


#: The moves every world makes, turn by turn: (seat, kind, tiles of a play or a swap's
#: count). ``{opening}`` is the opening word (the first letter is the spec's).
def public_moves(opening: str) -> list[tuple[int, str, Any]]:
    return [
        (0, "play", [(7, 7 + i, letter) for i, letter in enumerate(opening)]),  # HAT at 8H
        (1, "swap", 3),
        (0, "play", [(7, 10, "S")]),  # HATS
        (1, "play", [(8, 9, "O")]),  # TO, down from the T
        (0, "pass", None),
        (1, "pass", None),
    ]


@dataclass(frozen=True)
class WorldSpec:
    """A world: who may watch, the secret seed, the viewing key, each seat's hand."""

    label: str
    visibility: str
    seed: str
    viewing_key: str
    #: One hand per seat, in seat order (two, or four at a classic table).
    hands: tuple[Hand, ...]
    opening: str = "HAT"
    #: Who sits in each seat (a table seats the other member and the organiser too).
    players: tuple[str, ...] = ("alice", "bob")
    #: A table's draw for who starts, one tile a seat (back in the bag before the deal).
    first_draw: str = ""
    #: A table's (or a Reword duel's) moves (None: the duel's :func:`public_moves`).
    table_moves: tuple[tuple[int, str, Any], ...] | None = None
    #: The match's ruleset (a table is ``classic`` whatever this says).
    ruleset: str = "word-duel"
    #: The seat that resigns at the end (the other wins).
    resigner: int = 0
    #: Whether its live look also renders every planted leak (tests/secrecy/plants.py).
    #: The renders are part of the world's life: they send notices (rows, ids) and take
    #: sockets and pages, so every id after them is further on. Two worlds compared both
    #: plant, or neither does.
    plants: bool = False

    def moves(self) -> list[tuple[int, str, Any]]:
        if self.table_moves is not None:
            return list(self.table_moves)
        return public_moves(self.opening)

    @property
    def is_table(self) -> bool:
        return len(self.players) > 2

    def draw_script(self) -> list[str]:
        """Every tile the bag gives, in the order the engine asks: a table's draw for who
        starts, each seat's deal in seat order, then the mover's draw after each play or
        swap."""
        script = list(self.first_draw)
        for hand in self.hands:
            script += list(hand.deal)
        draws = [iter(hand.draws) for hand in self.hands]
        for seat, kind, _ in self.moves():
            if kind in ("play", "swap", "take_play"):
                script += list(next(draws[seat], ""))
        return script

    def swapped(self, seat: int, index: int) -> str:
        return self.hands[seat].swaps[index]


#: The base world's hands: alice (First) holds HATS from the deal; bob (Second) swaps EIN.
FIRST = Hand(deal="HATSERD", draws=("INL", "G"))
SECOND = Hand(deal="OEINRLU", draws=("PMB", "K"), swaps=("EIN",))
#: Other hands that fit the same moves.
FIRST_OTHER = Hand(deal="HATSQZ?", draws=("UEW", "V"))
SECOND_OTHER = Hand(deal="OAACGYW", draws=("FVJ", "X"), swaps=("AAC",))

MEMBERS_ONLY = Match.Visibility.MEMBERS
PUBLIC = Match.Visibility.PUBLIC

BASE = WorldSpec(
    label="base",
    visibility=MEMBERS_ONLY,
    seed=seed_hex("base"),
    viewing_key="key-of-the-base-world-000000000000000000000",
    hands=(FIRST, SECOND),
    plants=True,
)
#: The base world with bob's other tiles: what alice must not tell from the base world.
SECOND_VARIANT = replace(
    BASE, label="Second's other tiles", seed=seed_hex("second"), hands=(FIRST, SECOND_OTHER)
)


def variant(label: str, spec: WorldSpec = BASE, **changes: Any) -> WorldSpec:
    return replace(spec, label=label, **{"plants": False, **changes})


#: The base world without the plants: what the worlds without plants are compared with.
UNPLANTED_BASE = variant("base, no plants")

#: A classic table of four (alice, bob, carol, olive), with no plants: the same first moves
#: as a duel's, then two more seats that pass. Seat 0 draws the A for who starts.
TABLE_MOVES: tuple[tuple[int, str, Any], ...] = (
    (0, "play", [(7, 7, "H"), (7, 8, "A"), (7, 9, "T")]),  # HAT at 8H
    (1, "swap", 3),
    (2, "pass", None),
    (3, "pass", None),
    (0, "play", [(7, 10, "S")]),  # HATS
    (1, "play", [(8, 9, "O")]),  # TO, down from the T
)
THIRD = Hand(deal="CCDFGWY", draws=())
THIRD_OTHER = Hand(deal="AAEEIOU", draws=())
FOURTH = Hand(deal="BJMQVXZ", draws=())
TABLE = WorldSpec(
    label="a table of four",
    visibility=MEMBERS_ONLY,
    seed=seed_hex("table"),
    viewing_key="key-of-the-table-world-00000000000000000000",
    hands=(FIRST, SECOND, THIRD, FOURTH),
    players=("alice", "bob", "carol", "olive"),
    first_draw="AEIO",
    table_moves=TABLE_MOVES,
)


#: A Reword duel (RULES.md section 20): the duel's first moves, then Second steals the S of
#: HATS and plays it (AS, down from the A), First passes, and Second swaps an O (a tile both
#: of Second's hands hold) onto that A (HOT across, OS down) and plays the A it took (AH,
#: down into the H). A take-play's detail is (takes, tiles) in the protocol's shapes.
REWORD_MOVES: tuple[tuple[int, str, Any], ...] = (
    (0, "play", [(7, 7, "H"), (7, 8, "A"), (7, 9, "T")]),  # HAT at 8H
    (1, "swap", 3),
    (0, "play", [(7, 10, "S")]),  # HATS
    (1, "take_play", ([{"take": "steal", "row": 7, "col": 10}], [(8, 8, "S")])),  # AS
    (0, "pass", None),
    (
        1,
        "take_play",
        ([{"take": "swap", "row": 7, "col": 8, "letter": "O", "blank": False}], [(6, 7, "A")]),
    ),  # HOT and OS; AH
)
#: The Reword world's hands: Second draws nothing after a turn that played only the tile it
#: stole, and one tile after the swap's (its O stayed on the board).
REWORD_FIRST = Hand(deal="HATSERD", draws=("INL", "G"))
REWORD_SECOND = Hand(deal="OEINRLU", draws=("PMB", "", "K"), swaps=("EIN",))
REWORD_SECOND_OTHER = Hand(deal="OAACGYW", draws=("FVJ", "", "X"), swaps=("AAC",))
REWORD = WorldSpec(
    label="a Reword duel",
    visibility=MEMBERS_ONLY,
    seed=seed_hex("reword"),
    viewing_key="key-of-the-reword-world-0000000000000000000",
    hands=(REWORD_FIRST, REWORD_SECOND),
    table_moves=REWORD_MOVES,
    ruleset="reword",
)


# ---------------------------------------------------------------- the scripted bag

#: The draw script of each world's seed (bytes), filled as worlds are built.
SCRIPTS: dict[bytes, list[str]] = {}


class ScriptExhausted(AssertionError):
    """A world drew more tiles than its script holds: the spec does not fit its moves."""


def scripted_draw(real: Callable[..., Any]) -> Callable[..., Any]:
    """``draw_tiles`` that gives a scripted world its script's tiles (the stream's counter
    indexes the script, one step a tile, so a replay from the seed draws the same), and any
    other game the engine's own HMAC draws."""

    def draw(
        bag: tuple[str, ...], count: int, stream: DrawStream
    ) -> tuple[tuple[str, ...], tuple[str, ...], DrawStream]:
        script = SCRIPTS.get(stream.seed)
        if script is None:
            return real(bag, count, stream)
        remaining = list(bag)
        drawn = []
        counter = stream.counter
        for _ in range(min(count, len(remaining))):
            if counter >= len(script):
                raise ScriptExhausted(f"draw {counter} is past the script")
            tile = script[counter]
            if tile not in remaining:
                raise ScriptExhausted(f"draw {counter}: no {tile} left in the bag")
            remaining.remove(tile)
            drawn.append(tile)
            counter += 1
        return tuple(drawn), tuple(remaining), DrawStream(stream.seed, stream.salt, counter)

    return draw


def install_script(spec: WorldSpec) -> None:
    SCRIPTS[bytes.fromhex(spec.seed)] = spec.draw_script()


def patch_bag(monkeypatch: Any) -> None:
    """Make the engine draw from the scripts (the test's monkeypatch undoes it)."""
    monkeypatch.setattr(engine_game, "draw_tiles", scripted_draw(engine_game.draw_tiles))


class _FixedSecrets:
    """Stands in for the ``secrets`` module where a new match draws its seed and viewing key
    (``matches.models``) and the server contributes for a seat (``matches.services.
    lifecycle``): each draw is the next value of a fixed stream, the same in every world."""

    def __init__(self) -> None:
        self._draws = itertools.count()

    def _next(self, nbytes: int) -> bytes:
        digest = hashlib.sha256(f"secrecy-friendly-{next(self._draws)}".encode()).digest()
        return (digest * (nbytes // len(digest) + 1))[:nbytes]

    def token_hex(self, nbytes: int = 32) -> str:
        return self._next(nbytes).hex()

    def token_urlsafe(self, nbytes: int = 32) -> str:
        return base64.urlsafe_b64encode(self._next(nbytes)).rstrip(b"=").decode()


def fixed_secrets(monkeypatch: Any) -> None:
    """Make the matches made meanwhile (the worlds' friendly, which is dealt at once) draw
    their seed, key and contributions from a fixed stream, so it is the same in every world;
    the world's own match gets its spec's instead (``tests/secrecy/build.py``)."""
    fixed = _FixedSecrets()
    monkeypatch.setattr(match_models, "secrets", fixed)
    monkeypatch.setattr(lifecycle, "secrets", fixed)


# ---------------------------------------------------------------- the timeline

#: The world's clock stands still at each of these moments (nothing in a world depends on
#: how long a step took), so both worlds' times are the same to the microsecond.
CREATED = datetime(2031, 3, 3, 9, 0, tzinfo=UTC)
SCHEDULED_LOOK = CREATED + timedelta(minutes=10)
KICKOFF = CREATED + timedelta(hours=2)
#: A turn lasts this long in the worlds (the settings' FORFEIT_AFTER): the whole world
#: fits inside the channel layer's group expiry, so open sockets hear every move.
TURN_TIME = timedelta(hours=6)


def move_time(index: int) -> datetime:
    return KICKOFF + timedelta(minutes=1 + index)


def live_look(moves: int) -> datetime:
    """The live checkpoint: 90 minutes before the last move's deadline, when the sweep sends
    the two-hour forfeit warning."""
    return move_time(moves - 1) + TURN_TIME - timedelta(minutes=90)


# ---------------------------------------------------------------- who looks


@dataclass(frozen=True)
class Role:
    """A viewer: a member (by username) or an anonymous visitor, perhaps with the key; or a
    guest (a visitor who plays the computer without an account: its browser's guest cookie,
    no session)."""

    name: str
    username: str | None
    with_key: bool = False
    guest: bool = False


ROLES: tuple[Role, ...] = (
    Role("player First (alice)", "alice"),
    Role("player Second (bob), alice's opponent", "bob"),
    Role("other member (carol)", "carol"),
    Role("organiser (olive)", "olive"),
    Role("key holder", None, with_key=True),
    Role("anonymous visitor", None),
    Role("sign-up waiting for approval (dave)", "dave"),
    Role("guest playing the computer, no account", "guest", guest=True),
)
#: Everyone with an account in a world (the pending one included).
USERNAMES = ("olive", "alice", "bob", "carol", "dave")
#: The server's log is read by operators, who are no watchers of any match: the policy
#: grants it nothing, so it is checked in every pair of worlds, in every phase.
LOG = "the server's log"


# ---------------------------------------------------------------- what a world gave


@dataclass
class Look:
    """Everything each viewer got in one phase of a world: channel name -> bytes (as text),
    per role; and what the policy let each role know then."""

    phase: str
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    #: role name -> the facts (fact, seat) the policy let it know at this look.
    grants: dict[str, set[tuple[Any, int | None]]] = field(default_factory=dict)
    #: plant name -> (the channel rendered without the plant, and with it), for alice.
    planted: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: What the plants leaked (``tests.secrecy.plants.Secrets``).
    secrets: Any = None

    def channels(self, role: str) -> dict[str, str]:
        return self.outputs.setdefault(role, {})


@dataclass
class WorldRecord:
    """A built world: its spec, its public hashes (for the normaliser), and its looks."""

    spec: WorldSpec
    looks: list[Look] = field(default_factory=list)
    commitment: str = ""
    turn_hashes: list[str] = field(default_factory=list)

    def look(self, phase: str) -> Look:
        return next(look for look in self.looks if look.phase == phase)
