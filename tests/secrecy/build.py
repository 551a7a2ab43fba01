"""Building a world and taking down everything each viewer gets from it, on every channel.

One world is one tournament match between alice (First) and bob (Second), organised by
olive and watched by carol (a member), a key holder, an anonymous visitor, dave (a
sign-up still waiting for approval) and a guest (a visitor who plays the computer without an
account, by its browser's guest cookie). Before its kick-off olive puts bob in carol's seat and
moves the kick-off, and beside it carol and bob play a friendly that carol resigns and
offers to rematch: so every kind of notice is really caused (``_schedule``, ``_friendly``).
Its life has three phases, and at the end of each the world *looks*: every role fetches
every page, API answer, replay step, record, feed and data download it can ask for, and
takes what arrived by socket, email, web push and the server's log since the last look.
The worlds run on the real parts: PostgreSQL and Redis, the websocket consumer through
``wordduel.asgi.application`` (channels' communicator), Django's request handling (its test
client), an SMTP server (aiosmtpd) and a stand-in push service, whose payloads are
decrypted as a browser would.

Each world starts from an empty database whose id sequences start again at 1 (``flush``),
and the clock stands still at set moments (time-machine), so two worlds give the same ids
and times without any normalising.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import logging
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import http_ece
import pytest
import time_machine
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, Permission
from django.core.management import call_command
from django.db import connections
from django.test import Client
from django.utils import timezone

from accounts.guests import GUEST_COOKIE, guest_cookie_value
from accounts.models import Member
from challenges import services as challenges
from common.logs import JsonFormatter
from matches import services, visibility
from matches.models import Match, OrganiserAction, Seat, Turn
from matches.visibility import policy
from notifications import delivery, sweeps
from notifications.batching import process_batch
from notifications.models import CalendarFeed, Delivery, Kind, Notice, NotificationSettings
from tests.conftest import _drop_rate_limits
from tests.matches.test_ws_helpers import ORIGIN, headers_for, session_cookie, socket_path
from tests.secrecy import plants, worlds
from tests.secrecy.worlds import LOG, ROLES, Look, Role, WorldRecord, WorldSpec
from tournaments import services as organising
from wordduel.asgi import application

db = database_sync_to_async
ARRIVAL = 10  # seconds: a bound for a frame that must come, never a measurement

#: What each seat's player contributes to the bag before the deal (public once made).
CONTRIBUTIONS = ("aa" * 16, "bb" * 16, "cc" * 16, "dd" * 16)


# ---------------------------------------------------------------- the outside parts


#: Loggers of the test's stand-ins (aiosmtpd's SMTP server), which are not the server's.
STAND_INS = ("mail.log",)


class LogCapture(logging.Handler):
    """Every log record at INFO and above (the deployed level), as the JSON line production
    writes (``common.logs.JsonFormatter``)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(STAND_INS):
            return  # the test's SMTP server's own log, not the server's
        self.lines.append(self.format(record))

    def take(self) -> list[str]:
        taken, self.lines = self.lines, []
        return taken


@dataclass
class Outside:
    """The real parts outside the server: the SMTP server's inbox, the push service, the
    browser's push keys, the log."""

    inbox: Any
    push: Any
    keys: Any
    log: LogCapture
    #: Per world label: the notice kinds at least one delivery of was sent.
    kinds_sent: dict[str, set[str]] = field(default_factory=dict)
    _taken_mail: int = 0
    _taken_push: int = 0

    def new_mail(self) -> list[EmailMessage]:
        messages = self.inbox.messages[self._taken_mail :]
        self._taken_mail = len(self.inbox.messages)
        return messages

    def new_pushes(self) -> list[Any]:
        requests = self.push.requests[self._taken_push :]
        self._taken_push = len(self.push.requests)
        return requests


# ---------------------------------------------------------------- rendering a channel

BOUNDARY = re.compile(r'boundary="[^"]*"')


def email_text(message: EmailMessage) -> str:
    """An email as it was received: its headers (but the Message-ID) and each MIME part's
    type, file name and decoded content. MIME boundaries are random per message and carry
    nothing; the parts between them are compared whole."""
    lines = [
        f"{name}: {BOUNDARY.sub('boundary=<boundary>', value)}"
        for name, value in message.items()
        if name != "Message-ID"
    ]
    for part in message.walk():
        if part.is_multipart():
            continue
        lines.append(f"--- part {part.get_content_type()} {part.get_filename() or ''}")
        lines.append(str(part.get_content()))
    return "\n".join(lines)


def push_text(request: Any, keys: Any) -> str:
    """A push as the browser reads it: the payload decrypted with the browser's keys (the
    ciphertext is random per message), and the request's path and TTL."""
    plain = http_ece.decrypt(
        request.body,
        private_key=keys.private_key,
        auth_secret=keys.auth_secret,
        version="aes128gcm",
    )
    return f"{request.path} ttl={request.headers.get('ttl')} {plain.decode()}"


def response_text(response: Any) -> str:
    """An HTTP answer as its reader gets it: status, type, attachment name, redirect, body
    (a zip as its entries and their bytes: the archive's own bytes hold compression
    details, not data)."""
    head = [
        f"status {response.status_code}",
        f"type {response.get('Content-Type', '')}",
        f"disposition {response.get('Content-Disposition', '')}",
        f"location {response.get('Location', '')}",
    ]
    body = b"".join(response.streaming_content) if response.streaming else response.content
    if response.get("Content-Type", "").startswith("application/zip"):
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            entries = [
                f"== {info.filename}\n{archive.read(info).decode()}" for info in archive.infolist()
            ]
        return "\n".join([*head, *entries])
    return "\n".join([*head, body.decode("utf-8", errors="replace")])


# ---------------------------------------------------------------- the world's parts


@dataclass
class Cast:
    """A world's rows as the test holds them: its members by username, its match, its
    tournament, each role's HTTP client."""

    members: dict[str, Member]
    match_id: int
    tournament_id: int
    clients: dict[str, Client]

    def member(self, role: Role) -> Member | None:
        return self.members[role.username] if role.username else None


def _reset_database() -> None:
    """An empty database whose sequences start again at 1, and no rate limit counted."""
    call_command("flush", interactive=False, verbosity=0)
    _drop_rate_limits()


def _make_members(spec: WorldSpec, push_url: str, keys: Any) -> dict[str, Member]:
    """The world's accounts, with emails, notification settings, calendar secrets and a
    browser subscribed to push each (the pending sign-up's may be refused)."""
    members = {}
    for username in worlds.USERNAMES:
        member = Member.objects.create_user(
            username=username, password="pw-correct-horse", email=f"{username}@example.org"
        )
        members[username] = member
    members["olive"].user_permissions.add(Permission.objects.get(codename="organise"))
    members["olive"] = Member.objects.get(pk=members["olive"].pk)
    dave = members["dave"]
    dave.membership = Member.Membership.PENDING
    dave.save(update_fields=["membership"])
    # A guest (accounts.guests), named alike in every world: no email, no push, no session.
    guest = Member(username="guest-of-the-world", is_active=False, membership="guest")
    guest.set_unusable_password()
    guest.save()
    members["guest"] = guest
    for username, member in members.items():
        if member.is_guest:
            continue
        prefs, _ = NotificationSettings.objects.get_or_create(member=member)
        if username == "alice":  # "your move" as a digest, at the hour of the live look
            prefs.your_move_email = NotificationSettings.EmailMode.DIGEST
            prefs.digest_hour = worlds.live_look(len(spec.moves())).hour
            prefs.save()
        CalendarFeed.objects.create(member=member, secret=f"calendar-of-{username}")
        client = Client()
        client.force_login(member)
        answer = client.post(
            "/notifications/push/subscribe/",
            json.dumps(
                {
                    "endpoint": f"{push_url}/{username}",
                    "expirationTime": None,
                    "keys": {"p256dh": keys.p256dh, "auth": keys.auth},
                }
            ),
            content_type="application/json",
        )
        assert answer.status_code == 200 or username == "dave", answer.content
    return members


def _schedule(spec: WorldSpec, members: dict[str, Member]) -> tuple[int, int]:
    """The tournament and its one fixture, with the world's seed, key and contributions.

    The fixture is first drawn for alice and carol a day later; before anything is dealt,
    olive puts bob in carol's seat and moves the kick-off to ``KICKOFF``, through the
    organiser's services, so the players are really told of a substitution and of a moved
    kick-off (``substitute``, ``moved``) about the very match whose secrets the worlds vary.
    """
    olive = members["olive"]
    tournament = organising.create_round_robin(
        organiser=olive,
        name="Spring Cup",
        players=[members["alice"], members["carol"]],
        first_kickoff=worlds.KICKOFF + timedelta(days=1),
        interval=timedelta(days=1),
        visibility_=spec.visibility,
        rated=True,
    )
    match = tournament.matches.get()
    organising.fixture_substitute(
        organiser=olive,
        match_id=match.pk,
        position=Seat.Position.SECOND,
        member_id=members["bob"].pk,
        reason="carol is away that week",
    )
    assert [seat.member.username for seat in match.seats.order_by("position")] == ["alice", "bob"]
    if spec.is_table:
        # The tournament's duel stays as scheduled (after every look), with a seed and a key
        # of its own the same in every world; the world's match is the table.
        _fix_secrets(match.pk, worlds.seed_hex("tournament duel"), "key-of-the-tournament-duel")
        match = organising.create_fixture(
            organiser=olive,
            name="Club table",
            kickoff_at=worlds.KICKOFF,
            ruleset="classic",
            table=[members[username] for username in spec.players],
            visibility_=spec.visibility,
        )
    else:
        organising.fixture_reschedule(
            organiser=olive,
            match_id=match.pk,
            kickoff_at=worlds.KICKOFF,
            reason="both players asked for the day before",
        )
    _fix_secrets(match.pk, spec.seed, spec.viewing_key)
    for username, value in zip(spec.players, CONTRIBUTIONS, strict=False):
        services.match_contribute_entropy(
            match_id=match.pk, member=members[username], value_hex=value
        )
    return match.pk, tournament.pk


def _fix_secrets(match_id: int, seed: str, viewing_key: str) -> None:
    Match.objects.filter(pk=match_id).update(
        bag_seed=seed,
        bag_commitment=hashlib.sha256(bytes.fromhex(seed)).hexdigest(),
        viewing_key=viewing_key,
    )


def _friendly(members: dict[str, Member]) -> None:
    """carol challenges bob (``challenge``), bob accepts, carol resigns at once and offers a
    rematch (``rematch``): the friendly notices, caused through the challenge services. The
    friendly is the same in every world (its seed, key and the server's contributions come
    from :func:`worlds.fixed_secrets`); none of the varied facts is in it."""
    carol, bob = members["carol"], members["bob"]
    posted = challenges.challenge_post(member=carol, opponent_username="bob")
    with pytest.MonkeyPatch.context() as patch:
        worlds.fixed_secrets(patch)
        friendly = challenges.challenge_accept(challenge_id=posted.pk, member=bob)
    services.match_resign(match_id=friendly.pk, member=carol, client_id="friendly-resign")
    challenges.rematch_offer(match_id=friendly.pk, member=carol)


def _setup(spec: WorldSpec, outside: Outside) -> Cast:
    _reset_database()
    worlds.install_script(spec)
    members = _make_members(spec, outside.push.url, outside.keys)
    match_id, tournament_id = _schedule(spec, members)
    _friendly(members)
    clients = {}
    for role in ROLES:
        client = Client()
        member = members.get(role.username or "")
        if role.guest:
            client.cookies[GUEST_COOKIE] = guest_cookie_value(members["guest"])
        elif member is not None:
            client.force_login(member)
        clients[role.name] = client
    return Cast(members, match_id, tournament_id, clients)


#: The organiser's change each kind of notice tells of (``notifications/organiser_content.py``).
ACTION_OF_KIND = {
    Kind.MOVED: OrganiserAction.Kind.RESCHEDULE,
    Kind.SUBSTITUTE: OrganiserAction.Kind.SUBSTITUTE,
}


def _notify_every_kind(cast: Cast, phase: str) -> None:
    """Record one notice of every kind (``notifications.models.Kind``, so a kind added
    later is covered too) about the match for every member, and deliver it through the
    real path: the content built for that member, sent by email and push where it holds.

    A moved kick-off and a substitution name the organiser's change they tell of (the
    world's own, made in :func:`_schedule`), so each member gets their content while it
    holds. A challenge and a rematch offer are about a friendly, never this match: these
    are not sent (their content refuses them), and the real ones of :func:`_friendly` are."""
    match = Match.objects.get(pk=cast.match_id)
    for kind in Kind:
        if kind == Kind.READY:  # about a Word Skill rounds match, never this match
            _deal_a_word_skill_round(cast, phase)
            continue
        action = (
            OrganiserAction.objects.filter(match=match, kind=ACTION_OF_KIND[kind])
            .order_by("-created_at", "-id")
            .first()
            if kind in ACTION_OF_KIND
            else None
        )
        for username, member in sorted(cast.members.items()):
            if member.is_guest:
                continue  # never told of anything (an inactive seat is not told)
            key = f"secrecy:{phase}:{kind}:{username}"
            Notice.objects.create(
                key=key,
                member=member,
                kind=kind,
                match=None if kind == Kind.DIGEST else match,
                turn_number=match.turn_number,
                hours=2,
                organiser_action=action,
                created_at=timezone.now(),
            )
            delivery.dispatch_notice(key=key)


def _deal_a_word_skill_round(cast: Cast, phase: str) -> None:
    """A Word Skill rounds match of the world's club members, started: its round 1 dealt
    tells each of them "Round 1 is ready" through the real path (``RoundDealt``,
    notifications/round_ready.py). It says nothing of the world's match, so it is the same in
    every world (its own bag is nobody's to see before its end, and no notice names it)."""
    from rounds import services as rounds

    players = [m for _, m in sorted(cast.members.items()) if visibility.is_club_member(m)]
    host, *others = players
    made = rounds.rounds_open(
        member=host,
        name=f"Word Skill {phase}",
        turn_time=timedelta(minutes=3),
        round_time=timedelta(hours=24),
    )
    for member in others:
        rounds.rounds_join(match_id=made.pk, member=member)
    rounds.rounds_start(match_id=made.pk, member=host)


def _kinds_sent() -> set[str]:
    return set(
        Delivery.objects.filter(status=Delivery.Status.SENT).values_list("notice__kind", flat=True)
    )


def _with_key(path: str, role: Role, spec: WorldSpec) -> str:
    if not role.with_key:
        return path
    return f"{path}{'&' if '?' in path else '?'}key={spec.viewing_key}"


def _paths(cast: Cast, role: Role, spec: WorldSpec, turns: int) -> list[str]:
    """Every address a role may ask for about the world (the match's own with the key):
    each replay step of the ``turns`` played, and one past them."""
    m, t = cast.match_id, cast.tournament_id
    of_match = [
        f"/matches/{m}/",
        f"/matches/{m}/export.gcg",
        f"/matches/{m}/verify.py",
        f"/api/matches/{m}/",
        f"/api/matches/{m}/export.gcg",
        f"/api/matches/{m}/review",
        *(f"/api/matches/{m}/replay?turn={turn}" for turn in range(turns + 2)),
    ]
    paths = [
        "/",
        "/me/matches/",
        "/tournaments/",
        f"/tournaments/{t}/",
        "/players/alice/",
        "/players/bob/",
        "/ratings/",
        "/organise/fixtures/",
        "/notifications/waiting/",
        "/notifications/next-move/",
        "/api/matches/",
        f"/api/tournaments/{t}/standings",
        f"/notifications/calendar/tournaments/{t}.ics",
        *(_with_key(path, role, spec) for path in of_match),
    ]
    member = cast.member(role)
    if member is not None:
        secret = f"calendar-of-{member.username}"
        paths += [
            f"/notifications/calendar/{member.pk}/{secret}.ics",
            f"/notifications/calendar/{member.pk}/{secret}/tournaments/{t}.ics",
            "/accounts/my-data/",
        ]
    return paths


def _fetch_all(cast: Cast, spec: WorldSpec, look: Look) -> None:
    turns = Match.objects.get(pk=cast.match_id).turn_number  # public: the same in both
    for role in ROLES:
        client = cast.clients[role.name]
        channels = look.channels(role.name)
        for path in _paths(cast, role, spec, turns):
            channels[f"GET {path.replace(spec.viewing_key, '<the key>')}"] = response_text(
                client.get(path)
            )


#: Every fact a world holds, with the seat it belongs to (None: the match's own).
FACTS: tuple[tuple[policy.Fact, int | None], ...] = (
    (policy.Fact.RECORD, None),
    (policy.Fact.RACK, 0),
    (policy.Fact.RACK, 1),
    (policy.Fact.RACK, 2),
    (policy.Fact.RACK, 3),
    (policy.Fact.SWAPPED, 0),
    (policy.Fact.SWAPPED, 1),
    (policy.Fact.SWAPPED, 2),
    (policy.Fact.SWAPPED, 3),
    (policy.Fact.BAG, None),
    (policy.Fact.SEED, None),
    (policy.Fact.VIEWING_KEY, None),
)


def _grants(cast: Cast, spec: WorldSpec) -> dict[str, set[tuple[policy.Fact, int | None]]]:
    """What the policy lets each role know of the match now (the log: nothing)."""
    match = Match.objects.get(pk=cast.match_id)
    grants: dict[str, set[tuple[policy.Fact, int | None]]] = {}
    for role in ROLES:
        user = cast.member(role) or AnonymousUser()
        viewer = visibility.viewer_for(match, user, spec.viewing_key if role.with_key else None)
        grants[role.name] = {
            (fact, seat) for fact, seat in FACTS if policy.may_know(match, viewer, fact, seat=seat)
        }
    grants[LOG] = set()
    return grants


def _public_hashes(match_id: int) -> tuple[str, list[str]]:
    match = Match.objects.get(pk=match_id)
    hashes = list(
        Turn.objects.filter(match_id=match_id)
        .order_by("number")
        .values_list("record_hash", flat=True)
    )
    return match.bag_commitment, hashes


def _phase(match_id: int) -> str:
    return str(policy.phase_of(Match.objects.get(pk=match_id)))


# ---------------------------------------------------------------- sockets


@dataclass
class Watch:
    """One role's socket: every frame it received, and where each step's frames begin."""

    role: Role
    communicator: WebsocketCommunicator | None
    refused: int | None = None
    frames: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)

    async def receive(self) -> dict[str, Any]:
        assert self.communicator is not None
        frame = await self.communicator.receive_json_from(timeout=ARRIVAL)
        self.frames.append(json.dumps(frame, sort_keys=True))
        self.kinds.append(frame["type"])
        return frame

    async def expect(self, kind: str) -> None:
        """Wait for a ``kind`` frame of this step (perhaps already here)."""
        if kind not in self.kinds[self.steps[-1] :]:
            await self.until(lambda frame: frame["type"] == kind)

    async def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            frame = await self.receive()
            if wanted(frame):
                return frame

    async def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        assert self.communicator is not None
        await self.communicator.send_json_to(frame)
        return await self.until(
            lambda f: f.get("id") == frame["id"] and f["type"] in {"ack", "error", "snapshot"}
        )

    def mark(self) -> None:
        self.steps.append(len(self.frames))

    def since(self, start: int) -> str:
        """The frames of the steps since mark ``start``, each step's frames sorted (news
        and a direct answer may cross; what was said is compared, not its interleaving)."""
        bounds = [*self.steps[start:], len(self.frames)]
        blocks = []
        for begin, end in itertools.pairwise(bounds):
            blocks.append("\n".join(sorted(self.frames[begin:end])))
        return "\n--- step\n".join(blocks)


async def _open(role: Role, cast: Cast, spec: WorldSpec) -> Watch:
    member = cast.member(role)
    key = spec.viewing_key if role.with_key else None
    if role.guest:
        guest = f"{GUEST_COOKIE}={guest_cookie_value(cast.members['guest'])}"
        headers = [ORIGIN, (b"cookie", guest.encode())]
    else:
        cookie = await db(session_cookie)(member) if member is not None else None
        headers = headers_for(cookie)
    communicator = WebsocketCommunicator(
        application, socket_path(cast.match_id, key), headers=headers
    )
    connected, code = await communicator.connect(timeout=ARRIVAL)
    assert connected, f"{role.name}: the handshake failed ({code})"
    first = await communicator.receive_output(timeout=ARRIVAL)
    if first["type"] == "websocket.close":
        await communicator.disconnect()
        return Watch(role, None, refused=int(first["code"]))
    watch = Watch(role, communicator)
    watch.mark()
    snapshot = json.loads(first["text"])
    watch.frames.append(json.dumps(snapshot, sort_keys=True))
    watch.kinds.append(snapshot["type"])
    return watch


async def _settle(
    watches: list[Watch], tag: str, *, news: str, racks_to: tuple[str, ...] = ()
) -> None:
    """After a step: each open socket waits for the step's public news, and the players in
    ``racks_to`` for their rack, then asks for a snapshot (so nothing sent before it is
    still on its way); then a new step begins."""
    for watch in watches:
        if watch.communicator is None:
            continue
        await watch.expect(news)
        if watch.role.username in racks_to:
            await watch.expect("rack")
        await watch.request({"type": "sync", "id": f"{tag}-sync"})
        watch.mark()


# ---------------------------------------------------------------- a world's life


@dataclass
class Builder:
    """Builds one world and looks at it in each phase."""

    spec: WorldSpec
    outside: Outside
    record: WorldRecord = field(init=False)
    _renders: int = 0

    def __post_init__(self) -> None:
        self.record = WorldRecord(self.spec)

    async def build(self) -> WorldRecord:
        with time_machine.travel(worlds.CREATED, tick=False) as clock:
            self.outside.new_mail(), self.outside.new_pushes(), self.outside.log.take()
            cast = await db(_setup)(self.spec, self.outside)
            clock.move_to(worlds.SCHEDULED_LOOK)
            watches = [await _open(role, cast, self.spec) for role in ROLES]
            marks = {id(watch): 0 for watch in watches}
            try:
                await self._look(cast, watches, marks, "scheduled")
                clock.move_to(worlds.KICKOFF)
                await db(services.open_due_matches)()
                await _settle(watches, "kickoff", news="opened", racks_to=self.spec.players)
                await self._play(cast, watches, clock)
                clock.move_to(worlds.live_look(len(self.spec.moves())))
                await db(sweeps.run_sweep)()
                await self._look(cast, watches, marks, "live")
                if self.spec.plants:
                    await self._plant(cast, self.record.look("live"))
                clock.move_to(worlds.live_look(len(self.spec.moves())) + timedelta(minutes=5))
                resigner = self._watch(watches, self.spec.players[self.spec.resigner])
                answer = await resigner.request({"type": "resign", "id": "resign"})
                assert answer.get("accepted") is True, answer
                await _settle(watches, "resigned", news="ended")
                clock.move_to(worlds.live_look(len(self.spec.moves())) + timedelta(minutes=10))
                await self._look(cast, watches, marks, "over")
            finally:
                for watch in watches:
                    if watch.communicator is not None:
                        await watch.communicator.disconnect()
                await db(connections.close_all)()
            self.outside.kinds_sent[self.spec.label] = await db(_kinds_sent)()
        return self.record

    @staticmethod
    def _watch(watches: list[Watch], username: str) -> Watch:
        return next(watch for watch in watches if watch.role.username == username)

    async def _play(self, cast: Cast, watches: list[Watch], clock: Any) -> None:
        """The public moves, each sent on its player's socket (its ack is that socket's)."""
        swaps = [0] * len(self.spec.players)
        for index, (seat, kind, detail) in enumerate(self.spec.moves()):
            clock.move_to(worlds.move_time(index))
            frame: dict[str, Any] = {"type": kind, "id": f"move-{index + 1}", "turn": index}
            if kind == "play":
                frame["tiles"] = [
                    {"row": row, "col": col, "letter": letter, "blank": False}
                    for row, col, letter in detail
                ]
            elif kind == "swap":
                frame["tiles"] = list(self.spec.swapped(seat, swaps[seat]))
                swaps[seat] += 1
                assert len(frame["tiles"]) == detail
            mover = self.spec.players[seat]
            answer = await self._watch(watches, mover).request(frame)
            assert answer.get("accepted") is True, answer
            await _settle(watches, f"move-{index + 1}", news="turn", racks_to=(mover,))

    async def _look(
        self, cast: Cast, watches: list[Watch], marks: dict[int, int], expected: str
    ) -> None:
        phase = await db(_phase)(cast.match_id)
        assert phase == expected, (phase, expected)
        look = Look(phase)
        # Every socket asks for a snapshot and sends a move it may not make (a refusal).
        for watch in watches:
            if watch.communicator is not None:
                await watch.request({"type": "sync", "id": f"{phase}-look"})
                await watch.request({"type": "pass", "id": f"{phase}-stale", "turn": 0})
        await db(_notify_every_kind)(cast, phase)
        await db(_fetch_all)(cast, self.spec, look)
        for watch in watches:
            text = (
                f"refused with {watch.refused}" if watch.refused else watch.since(marks[id(watch)])
            )
            look.channels(watch.role.name)["socket"] = text
            watch.mark()
            marks[id(watch)] = len(watch.steps) - 1
        # The notices a move recorded wait in the process's dispatch window: sent now (and any
        # send the window's timer has under way finished), so every world's look holds them.
        await db(process_batch().flush)()
        self._collect_outside(cast, look)
        look.grants = await db(_grants)(cast, self.spec)
        self.record.commitment, self.record.turn_hashes = await db(_public_hashes)(cast.match_id)
        self.record.looks.append(look)

    def _collect_outside(self, cast: Cast, look: Look) -> None:
        by_address = {f"{username}@example.org": username for username in cast.members}
        mail: dict[str, list[str]] = {}
        for message in self.outside.new_mail():
            mail.setdefault(by_address[message["To"]], []).append(email_text(message))
        pushes: dict[str, list[str]] = {}
        for request in self.outside.new_pushes():
            username = request.path.rsplit("/", 1)[-1]
            pushes.setdefault(username, []).append(push_text(request, self.outside.keys))
        for role in ROLES:
            if role.username is None:
                continue
            channels = look.channels(role.name)
            channels["email"] = "\n=== message\n".join(mail.get(role.username, []))
            channels["web push"] = "\n".join(pushes.get(role.username, []))
        look.channels(LOG)["log"] = "\n".join(self.outside.log.take())

    # ------------------------------------------------------------ planted leaks

    async def _plant(self, cast: Cast, look: Look) -> None:
        """Render each plant's channel for alice without the plant and with it; what the
        renders sent meanwhile (mail, pushes, log lines) is taken, so later looks never see
        it."""
        secrets = await db(_secrets)(cast.match_id)
        look.secrets = secrets
        clean = {channel: await self._render(channel, cast) for channel in plants.CHANNELS}
        for channel, spelling in plants.PLANTS:
            with pytest.MonkeyPatch.context() as patch:
                rewriting = plants.install(channel, spelling, secrets, patch, cast.match_id)
                with rewriting or contextlib.nullcontext():
                    planted = await self._render(channel, cast)
            look.planted[f"{channel} / {spelling}"] = (clean[channel], planted)
        channel, shape = plants.ANALYSIS
        clean_analysis = await self._render(channel, cast)
        with pytest.MonkeyPatch.context() as patch:
            plants.ungated_analysis(patch)
            look.planted[f"{channel} / {shape}"] = (
                clean_analysis,
                await self._render(channel, cast),
            )

    async def _render(self, channel: str, cast: Cast) -> str:
        """One channel as alice gets it now (the log: the lines the render wrote)."""
        self.outside.log.take()
        alice = cast.clients[ROLES[0].name]
        m = cast.match_id
        paths = {
            "match page": f"/matches/{m}/",
            "log": f"/matches/{m}/",
            "API answer": f"/api/matches/{m}/",
            "replay": f"/api/matches/{m}/replay?turn=4",
            "analysis": f"/api/matches/{m}/replay?turn=3",
            "review": f"/api/matches/{m}/review",
            "GCG": f"/api/matches/{m}/export.gcg",
            "data download": "/accounts/my-data/",
            "calendar feed": f"/notifications/calendar/{cast.members['alice'].pk}/"
            "calendar-of-alice.ics",
        }
        if channel == "socket":
            watch = await _open(ROLES[0], cast, self.spec)
            await watch.request({"type": "sync", "id": "planted"})
            assert watch.communicator is not None
            await watch.communicator.disconnect()
            text = "\n".join(watch.frames)
        elif channel in ("email", "web push"):
            self._renders += 1
            await db(_notify)(cast, "alice", f"secrecy-plant-{self._renders}")
            if channel == "email":
                text = "\n".join(
                    email_text(m) for m in self.outside.new_mail() if m["To"] == "alice@example.org"
                )
            else:
                text = "\n".join(
                    push_text(r, self.outside.keys)
                    for r in self.outside.new_pushes()
                    if r.path.endswith("/alice")
                )
        else:
            text = await db(lambda: response_text(alice.get(paths[channel])))()
        lines = self.outside.log.take()
        self.outside.new_mail(), self.outside.new_pushes()
        return "\n".join(lines) if channel == "log" else text


def _secrets(match_id: int) -> plants.Secrets:
    racks = dict(Turn.objects.filter(match_id=match_id).values_list("number", "rack_before"))
    rack = Seat.objects.get(match_id=match_id, position=1).rack
    return plants.Secrets(rack=rack, racks_before=racks)


def _notify(cast: Cast, username: str, key: str) -> None:
    """A two-hour forfeit warning to ``username``, delivered by email and push."""
    match = Match.objects.get(pk=cast.match_id)
    Notice.objects.create(
        key=key,
        member=cast.members[username],
        kind=Kind.FORFEIT,
        match=match,
        turn_number=match.turn_number,
        hours=2,
        created_at=timezone.now(),
    )
    delivery.dispatch_notice(key=key)


async def build_world(spec: WorldSpec, outside: Outside) -> WorldRecord:
    """Build ``spec``'s world and take down what each role got in each phase."""
    return await Builder(spec, outside).build()
