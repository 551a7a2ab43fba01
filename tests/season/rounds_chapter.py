"""A season chapter for Word Skill rounds (not wired in: the lead adds it to
``test_a_club_season`` after ``the_classic_table``).

``a_word_skill_evening(season)`` plays a whole rounds match on the season's live servers
(Daphne, the Celery worker and beat), through the API as a client does, watched over the
rounds socket by a visitor, with every notice asserted exactly through the ledger.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

from websockets.sync.client import connect

from engine import Play
from engine.rounds import ABSENT
from tests.season.world import PATIENCE, wait_until

WORD_SKILL_EVENING = "Word Skill evening"
#: The host first; Gramma Ana joins with her (player 1); then dan, then cat.
SKILL_PLAYERS = ("ann", "dan", "cat")
#: Members who turned "your move" off (test_season.QUIET): "Round n is ready" is chosen as
#: "your move", so they are not told.
QUIET = ("cat", "ben")
#: The most rounds a Word Skill game can last here (142 tiles); a bound on a runaway loop.
MAX_ROUNDS = 150


def _ready(number: int) -> dict[str, list[str]]:
    """The "Round n is ready" notices of a round dealt: each member playing, but the quiet."""
    subject = f"Round {number} is ready: {WORD_SKILL_EVENING}"
    return {name: [subject] for name in SKILL_PLAYERS if name not in QUIET}


def _tiles_of(match_id: int) -> list[dict[str, Any]] | None:
    """The best play of the open round's tray (every word allowed), or None: pass."""
    from rounds.models import RoundsMatch
    from tests.rounds.helpers import best_move

    move = best_move(RoundsMatch.objects.get(pk=match_id))
    if not isinstance(move, Play):
        return None
    return [
        {"row": t.row, "col": t.col, "letter": t.letter.upper(), "blank": t.blank}
        for t in move.tiles
    ]


def _results(match_id: int) -> dict[str, list[str]]:
    """The result notice each member who played is sent at the end: their place among all
    four (Gramma Ana included), level totals sharing it."""
    from notifications.wording import place_outcome
    from rounds.models import RoundsPlayer

    players = list(RoundsPlayer.objects.filter(match_id=match_id).select_related("member"))
    totals = [p.total for p in players]
    told = {}
    for player in players:
        if player.member is None:
            continue  # Gramma Ana
        place = 1 + sum(total > player.total for total in totals)
        shared = totals.count(player.total) > 1
        outcome = place_outcome(place, shared=shared, count=len(players))
        told[player.member.username] = [f"{outcome}: {WORD_SKILL_EVENING}"]
    return told


class _Watcher:
    """A visitor's socket on the rounds match: every frame kept."""

    def __init__(self, season: Any, match_id: int) -> None:
        self.season, self.match_id = season, match_id
        self.frames: list[dict[str, Any]] = []
        self.socket = self._connect()

    def _connect(self) -> Any:
        return connect(
            f"{self.season.world.ws}/ws/rounds/{self.match_id}/",
            origin=self.season.world.site,
            additional_headers={"X-Forwarded-For": "10.9.9.8"},
            open_timeout=PATIENCE,
        ).__enter__()

    def reopen(self) -> None:
        """A fresh socket, after a jump of the clock (Daphne drops sockets held open across
        one); the frames seen so far are kept, and seen frames are not waited on again."""
        self.socket = self._connect()
        self.seen = len(self.frames)

    seen = 0

    def until(self, wanted: Any) -> dict[str, Any]:
        for frame in self.frames[self.seen :]:
            if wanted(frame):
                return frame
        while True:
            frame = json.loads(self.socket.recv(timeout=PATIENCE))
            self.frames.append(frame)
            if wanted(frame):
                return frame

    def close(self) -> None:
        self.socket.close()


def a_word_skill_evening(season: Any) -> None:
    """ann opens a Word Skill rounds match with Gramma Ana; dan and cat join; ann starts it.
    Every round each member presses Start round and plays their best word (Gramma Ana plays
    right after the first of them), except cat, who never starts round 1: it closes at its
    deadline on the clock (beat's ``rounds.close_due_rounds``) and she scores nothing for it.
    Each round dealt tells ann and dan "Round n is ready" (cat turned "your move" off, and
    the notice is chosen as it); a visitor watching sees every round's plays only once it has
    closed, never a tray, and at the end the bag's seed, which checks against the commitment."""
    from rounds.models import ClosedRound, RoundsMatch

    ann = season["ann"]
    opened = ann.post_json(
        "/api/rounds/", {"name": WORD_SKILL_EVENING, "gramma_ana": True}, expect=201
    ).json()
    match_id = opened["state"]["id"]
    for name in SKILL_PLAYERS[1:]:
        joined = season[name].post_json(f"/api/rounds/{match_id}/join", {}).json()
        assert joined["code"] == "joined"
    season.ledger.expect({}, what="a rounds match opened and joined")
    watcher = _Watcher(season, match_id)
    try:
        snapshot = watcher.until(lambda f: f["type"] == "snapshot")["snapshot"]
        assert [p["name"] for p in snapshot["players"]] == ["Ann", "Gramma Ana", "Dan", "Cat"]
        assert snapshot["bag_seed"] is None
        ann.post_json(f"/api/rounds/{match_id}/start", {})
        season.ledger.expect(_ready(1), what="round 1 dealt")
        positions = {"ann": 0, "dan": 2, "cat": 3}
        number = 1
        while number <= MAX_ROUNDS:
            match = RoundsMatch.objects.get(pk=match_id)
            if match.status == RoundsMatch.Status.FINISHED:
                break
            for name in SKILL_PLAYERS:
                if number == 1 and name == "cat":
                    continue
                member = season[name]
                started = member.post_json(
                    f"/api/rounds/{match_id}/start-round", {"round": number}
                ).json()["state"]
                assert started["your_round"]["number"] == number
                tiles = _tiles_of(match_id)
                body = (
                    {"round": number, "tiles": tiles} if tiles else {"round": number, "pass": True}
                )
                answer = member.post_json(f"/api/rounds/{match_id}/submit", body).json()
                assert answer["state"]["your_position"] == positions[name]
            if number == 1:
                assert RoundsMatch.objects.get(pk=match_id).round_number == 1  # cat's absence
                deadline = RoundsMatch.objects.get(pk=match_id).round_deadline_at
                assert deadline is not None
                watcher.socket.close()
                season.world.to(deadline + timedelta(seconds=5))
                wait_until(
                    lambda: ClosedRound.objects.filter(match_id=match_id, number=1).exists(),
                    what="round 1 closed at its deadline",
                )
                watcher.reopen()
                again = watcher.until(lambda f: f["type"] == "snapshot")["snapshot"]
                assert [r["number"] for r in again["rounds"]] == [1]
                closed = again["rounds"][0]
            else:
                closed = watcher.until(
                    lambda f, n=number: f["type"] == "round_closed" and f["data"]["number"] == n
                )["data"]
            assert closed["players"][1]["status"] in {"played", "passed"}  # Gramma Ana
            over = RoundsMatch.objects.get(pk=match_id).status == RoundsMatch.Status.FINISHED
            season.ledger.expect(
                _results(match_id) if over else _ready(number + 1), what=f"round {number} closed"
            )
            number += 1
        ended = watcher.until(lambda f: f["type"] == "ended")["data"]
    finally:
        watcher.close()
    seed = ended["bag_seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == ended["bag_commitment"]
    assert not [f for f in watcher.frames if f["type"] == "round_started"]
    assert all(
        f["snapshot"]["your_round"] is None for f in watcher.frames if f["type"] == "snapshot"
    )
    first = ClosedRound.objects.get(match_id=match_id, number=1).record
    assert first["started"][3] is None  # cat: absent...
    assert first["scores"][3] == 0  # ...and scored nothing
    from engine import get_ruleset
    from engine.rounds import RoundRecord

    assert RoundRecord.from_json(first, rules=get_ruleset("word-skill")).status_of(3) == ABSENT
    final = ann.get(f"/api/rounds/{match_id}").json()
    assert final["status"] == "finished"
    assert final["bag_seed"] == seed
    assert [p["total"] for p in final["players"]] == ended["totals"]
    season.results[WORD_SKILL_EVENING] = ended
