"""The club formats in the JSON API: a Swiss's rounds, a knockout's bracket and a league's
tables, each on a real tournament made through the services, each answer what its page
shows and what the served schema declares; a 404 for the wrong format, an unknown id, and
whoever may not see the page."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import openapi_schema_validator
import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Member
from matches.models import Match, Tournament
from tests.matches.api_schema import answer_conforms, served_schema
from tests.tournaments.pages import client_for
from tests.tournaments.test_knockout_services import _knockout, _live, _lose
from tests.tournaments.test_league_services import _league
from tests.tournaments.test_league_services import _play_out as _play_out_division
from tests.tournaments.test_swiss_services import _swiss
from tournaments import services
from tournaments.models import KnockoutTie, SwissBye

pytestmark = pytest.mark.django_db


def _get(url: str, member: Member | None = None) -> tuple[int, Any]:
    """GET an API answer as ``member`` (None: a visitor); it must be JSON and what the
    served schema says for its status."""
    client = Client()
    if member is not None:
        client.force_login(member)
    response = client.get(url)
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    answer_conforms("GET", url, response.status_code, response.json())
    return response.status_code, response.json()


def _ref(member: Member) -> dict[str, Any]:
    return {"member_id": member.pk, "username": member.username, "name": str(member)}


def _by_id(members: list[Member]) -> dict[int, Member]:
    return {member.pk: member for member in members}


# ---------------------------------------------------------------- Swiss


def test_a_swiss_answer_names_each_rounds_bye_and_how_it_was_paired(organiser, make_member) -> None:
    players = [make_member(f"sw{i}") for i in range(1, 6)]
    tournament = _swiss(organiser, players, rounds=3)
    status, answer = _get(f"/api/tournaments/{tournament.id}/swiss")
    assert status == 200
    assert (answer["paired"], answer["next_round"], answer["round_list"]) == (0, 1, [])

    first = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    services.match_adjudicate(
        organiser=organiser, match_id=first.matches[0].id, ruling="first", reason="Decided."
    )
    # One game of round 1 still live: round 2 paired by force.
    second = services.pair_next_round(organiser=organiser, tournament_id=tournament.id, force=True)

    status, answer = _get(f"/api/tournaments/{tournament.id}/swiss")  # a visitor: all public
    assert status == 200
    byes = {bye.round_number: bye for bye in SwissBye.objects.filter(swiss_id=tournament.id)}
    assert {1: first.bye, 2: second.bye} == {n: bye.member_id for n, bye in byes.items()}
    member = _by_id(players)
    assert answer == {
        "tournament_id": tournament.id,
        "name": "Autumn Swiss",
        "rounds": 3,
        "paired": 2,
        "next_round": 3,
        "unfinished": tournament.matches.filter(
            status__in=[Match.Status.SCHEDULED, Match.Status.LIVE]
        ).count(),
        "bye_points": 1.0,
        "bye_spread": 50,
        "prize_places": 3,
        "gibsonization": True,
        "pair_automatically": False,
        "table": {
            "seat_count": 2,
            "challenge_rule": "void",
            "challenge_window_seconds": None,
            "finish_line": None,
            "table_points": "places",
        },
        "round_list": [
            {
                "number": 1,
                "bye": {"member": _ref(member[first.bye]), "points": 1.0, "spread": 50},
                "gibson": None,
                "paired": "by_organiser",
                "unfinished": 0,
            },
            {
                "number": 2,
                "bye": {"member": _ref(member[second.bye]), "points": 1.0, "spread": 50},
                "gibson": None,
                "paired": "forced",
                "unfinished": 1,
            },
        ],
    }
    assert answer["unfinished"] == 3  # round 1's live game and round 2's two


def test_an_automatic_swiss_answer_names_its_gibson_and_no_next_round_after_the_last(
    organiser, alice, bob, django_capture_on_commit_callbacks
) -> None:
    """Two players, three rounds, paired automatically: alice wins the first two, so she is
    Gibsonized in round 3, the last."""
    with django_capture_on_commit_callbacks(execute=True):
        tournament = _swiss(organiser, [alice, bob], rounds=3, pair_automatically=True)
    for number in (1, 2):
        (match,) = tournament.matches.filter(round_number=number)
        winner = "first" if match.seats.get(position=0).member_id == alice.pk else "second"
        with django_capture_on_commit_callbacks(execute=True):
            services.match_adjudicate(
                organiser=organiser, match_id=match.id, ruling=winner, reason="Decided."
            )
    status, answer = _get(f"/api/tournaments/{tournament.id}/swiss", alice)
    assert status == 200
    assert (answer["paired"], answer["next_round"], answer["pair_automatically"]) == (3, None, True)
    assert [(r["number"], r["paired"], r["bye"]) for r in answer["round_list"]] == [
        (1, "automatically", None),
        (2, "automatically", None),
        (3, "automatically", None),
    ]
    assert [r["gibson"] for r in answer["round_list"]] == [None, None, _ref(alice)]


# ---------------------------------------------------------------- knockout


def _seated(match: Match) -> dict[int, int]:
    """Each seated member's score, by member id."""
    return {seat.member_id: seat.score for seat in match.seats.all()}


def test_a_bracket_answer_draws_the_ties_their_games_and_scores(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    p = [make_member(f"ko{i}") for i in range(1, 6)]  # seeds 1..5, in this order
    tournament = _knockout(organiser, p, best_of=3)
    (game_1,) = _live(tournament)
    _lose(game_1, p[3], django_capture_on_commit_callbacks)  # seed 5 wins game 1
    (game_2,) = _live(tournament)
    game_1.refresh_from_db()

    status, answer = _get(f"/api/tournaments/{tournament.id}/bracket")
    assert status == 200
    assert (answer["best_of"], answer["seeding"], answer["current_round"]) == (3, "order", 1)
    assert [r["name"] for r in answer["rounds"]] == ["Quarter-final", "Semi-final", "Final"]
    assert answer["champion"] is None
    quarters = answer["rounds"][0]["ties"]
    assert quarters[0] == {
        "slot": 0,
        "top": {"seed": 1, "member": _ref(p[0]), "won": True},
        "bottom": {"seed": None, "member": None, "won": False},
        "games": [],
        "score": None,
        "winner": "top",
        "bye": True,
        "walkover": False,
    }
    tie = quarters[1]
    assert (tie["top"]["seed"], tie["top"]["member"], tie["bottom"]["member"]) == (
        4,
        _ref(p[3]),
        _ref(p[4]),
    )
    assert (tie["winner"], tie["bye"], tie["walkover"]) == (None, False, False)
    assert (tie["score"]["top"], tie["score"]["bottom"], tie["score"]["games"]) == (0.0, 1.0, 1)
    assert tie["score"]["spread"] <= 0  # a resignation never favours the resigner (the top)
    scores = _seated(game_1)
    assert tie["games"] == [
        {
            "match_id": game_1.id,
            "number": 1,
            "status": "finished",
            "top_score": scores[p[3].pk],
            "bottom_score": scores[p[4].pk],
            "result": "ko5 (Second) won",
        },
        {
            "match_id": game_2.id,
            "number": 2,
            "status": "live",
            "top_score": 0,
            "bottom_score": 0,
            "result": "Live",
        },
    ]
    # Round 2: seed 1 waits for the winner of 4 v 5; seeds 2 and 3 are drawn.
    semis = answer["rounds"][1]["ties"]
    assert (semis[0]["top"]["member"], semis[0]["bottom"]["member"]) == (_ref(p[0]), None)
    assert (semis[1]["top"]["member"], semis[1]["bottom"]["member"]) == (_ref(p[1]), _ref(p[2]))
    assert answer["rounds"][2]["ties"][0]["games"] == []


def test_a_finished_bracket_names_its_champion_and_a_walkover(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    from accounts.services import membership_remove

    ann, ben = make_member("ann"), make_member("ben")
    final = _knockout(organiser, [ann, ben])
    (game,) = _live(final)
    _lose(game, ben, django_capture_on_commit_callbacks)
    status, answer = _get(f"/api/tournaments/{final.id}/bracket")
    assert status == 200
    assert answer["champion"] == _ref(ann)
    [tie] = answer["rounds"][0]["ties"]
    assert (tie["winner"], tie["top"]["won"], tie["walkover"]) == ("top", True, False)
    assert tie["score"]["top"] == 1.0

    stays, goes = make_member("stays"), make_member("goes")
    cup = _knockout(organiser, [stays, goes], best_of=3)
    with django_capture_on_commit_callbacks(execute=True):
        membership_remove(organiser=organiser, member_id=goes.pk, reason="Left the club.")
    assert KnockoutTie.objects.get(knockout_id=cup.id).walkover
    status, answer = _get(f"/api/tournaments/{cup.id}/bracket")
    [tie] = answer["rounds"][0]["ties"]
    assert (tie["winner"], tie["walkover"], answer["champion"]) == ("top", True, _ref(stays))


# ---------------------------------------------------------------- league


def _zones(division: dict[str, Any]) -> list[tuple[int, str, bool]]:
    return [(row["member_id"], row["zone"], row["leaving"]) for row in division["table"]]


def test_a_league_answer_has_its_tables_zones_leavers_and_earlier_seasons(
    organiser, make_member
) -> None:
    players = [make_member(f"lg{i}") for i in range(8)]
    ids = [player.pk for player in players]
    league = _league(organiser, players)
    url = f"/api/leagues/{league.id}"
    status, answer = _get(url)
    assert status == 200
    assert answer["settings"] == {
        "division_size": 4,
        "movers": 1,
        "ruleset": "word-duel",
        "lexicon": "enable",
        "visibility": "public",
        "interval_seconds": 0,
        "double": False,
        "rated": True,
    }
    assert (answer["league_id"], answer["name"], answer["season"]) == (
        league.id,
        "County League",
        1,
    )
    assert (answer["season_closed_at"], answer["previous"]) == (None, [])
    top, bottom = answer["divisions"]
    # Before a game, each table is in member order: the zones mark its edges.
    assert _zones(top) == [(ids[0], "none", False), (ids[1], "none", False),
                           (ids[2], "none", False), (ids[3], "relegation", False)]  # fmt: skip
    assert _zones(bottom) == [(ids[4], "promotion", False), (ids[5], "none", False),
                              (ids[6], "none", False), (ids[7], "none", False)]  # fmt: skip
    season = league.seasons.get()
    divisions = list(season.divisions.order_by("rank"))
    assert [d["tournament_id"] for d in answer["divisions"]] == [d.tournament_id for d in divisions]
    assert top["unfinished"] == 6
    assert top["table"][0]["rank"] == 1

    # Division 1 finishes p3 p1 p0 p2; division 2 p6 p4 p7 p5; p0 leaves after it.
    _play_out_division(organiser, divisions[0].tournament, [ids[3], ids[1], ids[0], ids[2]])
    _play_out_division(organiser, divisions[1].tournament, [ids[6], ids[4], ids[7], ids[5]])
    services.withdraw_from_league(
        organiser=organiser, league_id=league.id, member_id=ids[0], reason="Moving away."
    )
    status, answer = _get(url)
    top, bottom = answer["divisions"]
    assert _zones(top) == [(ids[3], "none", False), (ids[1], "none", False),
                           (ids[0], "none", True), (ids[2], "relegation", False)]  # fmt: skip
    assert _zones(bottom)[0] == (ids[6], "promotion", False)
    assert top["unfinished"] == 0
    assert top["table"][0]["points"] == 3.0
    # The table's lines are the standings' lines.
    standings = _get(f"/api/tournaments/{divisions[0].tournament_id}/standings")[1]["standings"]
    assert [{k: row[k] for k in standings[0]} for row in top["table"]] == standings

    services.start_next_season(
        organiser=organiser, league_id=league.id, start=timezone.now() + timedelta(days=7)
    )
    status, answer = _get(url)
    assert answer["season"] == 2
    [past] = answer["previous"]
    assert past["number"] == 1
    assert past["closed_at"] is not None
    member = _by_id(players)
    assert [(d["rank"], d["promoted"], d["relegated"]) for d in past["divisions"]] == [
        (1, [], [_ref(member[ids[2]])]),
        (2, [_ref(member[ids[6]])], []),
    ]
    assert [d["tournament_id"] for d in past["divisions"]] == [d.tournament_id for d in divisions]
    assert not any(row["leaving"] for d in answer["divisions"] for row in d["table"])


# ---------------------------------------------------------------- refusals


def _not_found(url: str, member: Member | None = None) -> None:
    status, answer = _get(url, member)
    assert status == 404, answer
    assert answer["code"] == "not_found"


def test_the_wrong_format_and_an_unknown_id_are_404(organiser, alice, bob) -> None:
    swiss = _swiss(organiser, [alice, bob])
    knockout = _knockout(organiser, [alice, bob])
    round_robin = services.create_round_robin(
        organiser=organiser,
        name="Round robin",
        players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=1),
    )
    for member in (None, alice):
        _not_found(f"/api/tournaments/{knockout.id}/swiss", member)
        _not_found(f"/api/tournaments/{round_robin.id}/swiss", member)
        _not_found(f"/api/tournaments/{swiss.id}/bracket", member)
        _not_found(f"/api/tournaments/{round_robin.id}/bracket", member)
        missing = Tournament.objects.latest("pk").pk + 1
        _not_found(f"/api/tournaments/{missing}/swiss", member)
        _not_found(f"/api/tournaments/{missing}/bracket", member)
        _not_found("/api/leagues/999999", member)
        _not_found("/api/leagues/first", member)
    assert _get(f"/api/tournaments/{swiss.id}/swiss")[0] == 200
    assert _get(f"/api/tournaments/{knockout.id}/bracket")[0] == 200


def test_a_members_only_format_is_a_404_to_a_visitor_as_its_page_is(
    organiser, alice, bob, make_member
) -> None:
    swiss = _swiss(organiser, [alice, bob], visibility_="members")
    # Hidden from its creation, before round 1 is paired (it has no fixture to say so yet),
    # and from the visitor's list of tournaments.
    assert not swiss.matches.exists()
    assert Client().get(f"/tournaments/{swiss.id}/").status_code == 404
    _not_found(f"/api/tournaments/{swiss.id}/swiss")
    assert swiss.name not in Client().get("/tournaments/").content.decode()
    assert swiss.name in client_for(make_member("dora")).get("/tournaments/").content.decode()
    services.pair_next_round(organiser=organiser, tournament_id=swiss.id)
    knockout = _knockout(organiser, [alice, bob], visibility_="members")
    league = _league(organiser, [alice, bob], division_size=2, visibility_="members")
    pages_and_answers = [
        (f"/tournaments/{swiss.id}/", f"/api/tournaments/{swiss.id}/swiss"),
        (f"/tournaments/{knockout.id}/", f"/api/tournaments/{knockout.id}/bracket"),
        (f"/leagues/{league.id}/", f"/api/leagues/{league.id}"),
    ]
    carol = make_member("carol")  # a member not playing: members see them all
    for page, url in pages_and_answers:
        assert Client().get(page).status_code == 404
        _not_found(url)
        assert _get(url, carol)[0] == 200
    # A league whose current season is public again is the visitor's to see, as its page.
    public = _league(organiser, [make_member("dee"), make_member("eve")], division_size=2)
    assert Client().get(f"/leagues/{public.id}/").status_code == 200
    assert _get(f"/api/leagues/{public.id}")[0] == 200


def test_the_schema_declares_the_formats_endpoints() -> None:
    status, schema = _get("/api/schema/")
    assert status == 200
    for path in (
        "/api/tournaments/{tournament_id}/swiss",
        "/api/tournaments/{tournament_id}/bracket",
        "/api/leagues/{league_id}",
    ):
        responses = schema["paths"][path]["get"]["responses"]
        assert set(responses) == {"200", "404"}


@pytest.mark.parametrize(
    ("heading", "component"),
    [
        ("### `GET /api/tournaments/<id>/swiss`", "SwissRounds"),
        ("### `GET /api/tournaments/<id>/bracket`", "Bracket"),
        ("### `GET /api/leagues/<id>`", "LeagueView"),
    ],
)
def test_the_documents_examples_are_answers_the_schema_allows(heading: str, component: str):
    """docs/API.md's example of each endpoint is valid JSON of the shape it documents."""
    document = (Path(__file__).resolve().parents[2] / "docs" / "API.md").read_text()
    section = document.split(heading, 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    spec = served_schema()
    openapi_schema_validator.validate(
        example,
        {"$ref": f"#/components/schemas/{component}", "components": spec["components"]},
        cls=openapi_schema_validator.OAS31Validator,
    )
