"""A season chapter for a Word Skill tournament (a "rounds series", docs/RULES.md section 19).

``a_word_skill_series(season)``: the organiser creates the tournament on her pages, enters
four members and schedules two sessions the same evening; three say "I'm here" for the
first, which beat opens at its kick-off and the three play through the API, watched by a
visitor on the rounds socket; only one says it for the second, which beat cancels. The
tournament's page and API then give the standings exactly, and every notice is asserted
through the ledger.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from tests.season.rounds_chapter import MAX_ROUNDS, QUIET, _tiles_of, _Watcher
from tests.season.world import page_text, wait_until

SERIES = "Winter Word Skill"
#: Entered when the tournament is created; dan is entered afterwards.
FIRST_ENTRANTS = ("ann", "ben", "cat")
#: Those who say "I'm here" for session 1, seated in member order (the order they joined).
SESSION_ONE = ("ann", "cat", "dan")
#: Who passes a round instead of playing their best word (so the totals differ).
PASSES = {1: "cat", 2: "dan"}
CANCELLED = "Fewer than two entrants were present at kick-off: the session is cancelled."


def _ready(number: int, title: str) -> dict[str, list[str]]:
    """ "Round n is ready" to each member at the session's match but the quiet."""
    return {
        name: [f"Round {number} is ready: {title}"] for name in SESSION_ONE if name not in QUIET
    }


def _results(match_id: int, title: str) -> dict[str, list[str]]:
    """The result notice each of the three is sent at the end: their place among them, from
    their totals (level totals sharing it)."""
    from notifications.wording import place_outcome
    from rounds.models import ClosedRound

    records = [row.record for row in ClosedRound.objects.filter(match_id=match_id)]
    totals = [sum(record["scores"][seat] for record in records) for seat in range(3)]
    told = {}
    for seat, name in enumerate(SESSION_ONE):
        place = 1 + sum(total > totals[seat] for total in totals)
        outcome = place_outcome(place, shared=totals.count(totals[seat]) > 1, count=3)
        told[name] = [f"{outcome}: {title}"]
    return told


def _shown(name: str) -> str:
    from accounts.models import Member

    return str(Member.objects.get(username=name))


def _organise(season: Any) -> int:
    """olga finds the page on her Organise page, creates the tournament and enters dan: the
    tournament's id."""
    from matches.models import Tournament

    olga = season["olga"]
    organise = olga.get("/organise/")
    assert 'href="/organise/rounds-series/"' in organise.text
    page = olga.submit(
        "/organise/rounds-series/",
        "Create",
        {
            "name": SERIES,
            "players": ", ".join(FIRST_ENTRANTS),
            "turn_time": "180",
            "round_time": "1800",
            "visibility": "public",
        },
    )
    assert f"Created {SERIES}." in page_text(page.text)
    tournament = Tournament.objects.get(name=SERIES)
    organise_path = f"/organise/rounds-series/{tournament.pk}/"
    assert page.url.endswith(organise_path)
    page = olga.submit(organise_path, "Enter", {"username": "dan"})
    assert "Entered Dan." in page_text(page.text)
    return tournament.pk


def a_word_skill_series(season: Any) -> None:
    """olga creates "Winter Word Skill" (ann, ben and cat; dan entered after) and schedules
    two sessions, at 19:00 the next day and two hours later. ann, cat and dan say "I'm
    here" for session 1; at its kick-off beat opens its rounds match with the three (ben
    missing) and deals round 1. They play every round through the API, their best word
    each, but cat passes round 1 and dan round 2; each round dealt tells ann and dan "Round
    n is ready" (cat is quiet), and the end tells the three their places. Only ben says
    "I'm here" for session 2: at its kick-off beat cancels it, saying why, and tells nobody.
    The page and the API then rank the four by their totals (the missed session counting 0)
    with each total's percentage of the top, the sum of every closed round's best play."""
    from matches.models import Match
    from rounds.models import ClosedRound, RoundsMatch, RoundsSession

    olga = season["olga"]
    tournament_id = _organise(season)
    organise_path = f"/organise/rounds-series/{tournament_id}/"
    first_kickoff = (season.world.clock.now() + timedelta(days=1)).replace(
        hour=19, minute=0, second=0, microsecond=0
    )
    kickoffs = (first_kickoff, first_kickoff + timedelta(hours=2))
    # The club's other games keep their clocks: nothing of theirs falls due before the second
    # session (a week later, the Spring League's second season forfeits by the turn clock).
    assert not Match.objects.filter(
        status=Match.Status.LIVE, turn_deadline_at__lte=kickoffs[1] + timedelta(hours=1)
    ).exists(), "a live match's deadline falls in the tournament's evening"
    for number, kickoff in enumerate(kickoffs, start=1):
        page = olga.submit(
            organise_path, "Schedule", {"kickoff_at": kickoff.strftime("%Y-%m-%dT%H:%M")}
        )
        assert f"Scheduled session {number}." in page_text(page.text)
    sessions = list(RoundsSession.objects.filter(series__tournament_id=tournament_id))
    assert sorted((s.number, s.kickoff_at) for s in sessions) == list(enumerate(kickoffs, 1))
    season.ledger.expect({}, what="a Word Skill tournament created and scheduled")

    series_path = f"/rounds/series/{tournament_id}/"

    def check_in(name: str, number: int) -> None:
        page = season[name].submit(series_path, "I'm here", action=f"/sessions/{number}/check-in/")
        assert f"You are in for session {number}." in page_text(page.text)

    for name in SESSION_ONE:
        check_in(name, 1)
    session = RoundsSession.objects.get(series__tournament_id=tournament_id, number=1)
    assert sorted(m.username for m in session.present.all()) == sorted(SESSION_ONE)
    season.ledger.expect({}, what="three say they are there for session 1")

    # Session 1: beat opens it at its kick-off with the three, and deals round 1.
    season.world.to(kickoffs[0] + timedelta(seconds=1))
    session = wait_until(
        lambda: RoundsSession.objects.filter(
            series__tournament_id=tournament_id,
            number=1,
            status=RoundsSession.Status.OPENED,
        ).first(),
        what="session 1 opened by beat at its kick-off",
    )
    match_id = session.match_id
    match = RoundsMatch.objects.get(pk=match_id)
    title = f"{SERIES} · session 1"
    assert (match.name, match.host.username, match.status) == (title, "olga", "live")
    season.ledger.expect(_ready(1, title), what="session 1 kicked off")
    positions = {name: position for position, name in enumerate(SESSION_ONE)}
    watcher = _Watcher(season, match_id)
    try:
        snapshot = watcher.until(lambda f: f["type"] == "snapshot")["snapshot"]
        assert [p["name"] for p in snapshot["players"]] == [_shown(n) for n in SESSION_ONE]
        number = 1
        while number <= MAX_ROUNDS:
            for name in SESSION_ONE:
                member = season[name]
                started = member.post_json(
                    f"/api/rounds/{match_id}/start-round", {"round": number}
                ).json()["state"]
                assert started["your_round"]["number"] == number
                tiles = None if PASSES.get(number) == name else _tiles_of(match_id)
                body = (
                    {"round": number, "tiles": tiles} if tiles else {"round": number, "pass": True}
                )
                answer = member.post_json(f"/api/rounds/{match_id}/submit", body).json()
                assert answer["state"]["your_position"] == positions[name]
            watcher.until(
                lambda f, n=number: f["type"] == "round_closed" and f["data"]["number"] == n
            )
            over = RoundsMatch.objects.get(pk=match_id).status == RoundsMatch.Status.FINISHED
            season.ledger.expect(
                _results(match_id, title) if over else _ready(number + 1, title),
                what=f"session 1, round {number}",
            )
            if over:
                break
            number += 1
        ended = watcher.until(lambda f: f["type"] == "ended")["data"]
    finally:
        watcher.close()  # (before the clock's jump: daphne drops a socket left open across one)

    # What the three scored, from the closed rounds' records: their totals and the top.
    records = [
        row.record for row in ClosedRound.objects.filter(match_id=match_id).order_by("number")
    ]
    assert len(records) == number
    totals = {
        name: sum(record["scores"][position] for record in records)
        for name, position in positions.items()
    }
    top = sum(max(*record["scores"], 0) for record in records)
    assert [totals[name] for name in SESSION_ONE] == ended["totals"]
    assert records[0]["scores"][positions["cat"]] == 0  # cat passed round 1...
    assert records[1]["scores"][positions["dan"]] == 0  # ...and dan round 2
    assert totals["ann"] == top > totals["cat"]
    assert top > totals["dan"]

    # Session 2: only ben says he is there; beat cancels it at its kick-off.
    check_in("ben", 2)
    season.world.to(kickoffs[1] + timedelta(seconds=1))
    wait_until(
        lambda: RoundsSession.objects.filter(
            series__tournament_id=tournament_id,
            number=2,
            status=RoundsSession.Status.CANCELLED,
        ).exists(),
        what="session 2 cancelled by beat at its kick-off",
    )
    season.ledger.expect({}, what="session 2 cancelled")

    # The standings: by total (ben's missed session and the cancelled one count 0).
    scored = {**totals, "ben": 0}
    order = sorted(scored, key=lambda name: (-scored[name], _shown(name)))
    want_rows = []
    for index, name in enumerate(order):
        tied = want_rows and want_rows[-1]["total"] == scored[name]
        want_rows.append(
            {
                "place": want_rows[-1]["place"] if tied else index + 1,
                "name": _shown(name),
                "total": scored[name],
                "percent": round(100 * scored[name] / top, 1),
                "sessions_played": 0 if name == "ben" else 1,
                "by_session": [scored[name], 0],
            }
        )
    for viewer in (season["ben"], season.world.member("visitor", "10.9.9.7")):
        view = viewer.get(f"/api/series/{tournament_id}").json()
        assert view["top"] == top
        assert [{key: row[key] for key in want_rows[0]} for row in view["standings"]] == want_rows
        assert [
            (s["number"], s["status"], s["match_id"], s["reason"], s["present"], s["top"])
            for s in view["sessions"]
        ] == [
            (1, "opened", match_id, "", sorted(_shown(n) for n in SESSION_ONE), top),
            (2, "cancelled", None, CANCELLED, [_shown("ben")], 0),
        ]
        assert view["sessions"][0]["rounds_closed"] == number
    page = page_text(season["ann"].get(series_path).text)
    assert f"Session 2 {kickoffs[1]:%a %-d %b %Y, %H:%M} UTC Cancelled: {CANCELLED} Ben 0" in page
    table = " ".join(
        f"{row['place']} {row['name']} {row['total']} {row['percent']:.1f}% "
        f"{row['sessions_played']} {row['by_session'][0]} {row['by_session'][1]}"
        for row in want_rows
    )
    assert f"Place Player Total % of top Sessions S1 S2 {table}" in page, page
    season.results[SERIES] = {"top": top, "totals": scored}
