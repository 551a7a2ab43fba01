"""A Swiss of tables through the services: created with its table (seats, challenge rule and
window, finish line, what a table game scores), refused with a clear error where it cannot
be, each round seated at tables that every fixture inherits, and the standings, the API and
the CSV exports counting a table game (docs/RULES.md sections 3 and 12).

Finished tables are stored directly on the fixtures the Swiss made (as
tests/matches/test_standings.py stores finished duels): the services that end a table have
their own tests.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Member
from matches.models import Match, Seat, Tournament
from matches.services.errors import InvalidFixture
from tests.tournaments.pages import client_for, local_minute
from tournaments import exports, services, standings
from tournaments.models import Swiss, SwissBye
from tournaments.services.fixtures import TABLES_ONLY_IN_A_SWISS
from tournaments.services.swiss import TOO_FEW_FOR_TABLES

pytestmark = pytest.mark.django_db

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)


def table_swiss(
    organiser: Member, players: Sequence[Member], *, seat_count: int = 4, **settings
) -> Tournament:
    """A classic Swiss of tables kicking off in 2031 (so nothing opens by itself)."""
    return services.create_swiss(
        organiser=organiser,
        name="Club tables",
        players=players,
        rounds=3,
        first_kickoff=KICKOFF,
        interval=timedelta(days=7),
        ruleset="classic",
        seat_count=seat_count,
        **settings,
    )


def members(make_member, count: int, prefix: str = "t") -> list[Member]:
    return [make_member(f"{prefix}{i}") for i in range(1, count + 1)]


def seated(match: Match) -> list[Member]:
    """The players at ``match``'s table in seat order (every seat of a Swiss's is filled)."""
    players = [seat.member for seat in match.seats.order_by("position")]
    assert all(player is not None for player in players)
    return [player for player in players if player is not None]


def finish_table(
    match: Match,
    places: dict[Member, int],
    scores: dict[Member, int],
    *,
    reason: str = Match.EndReason.PLAYED_OUT,
) -> Match:
    """Store ``match`` (a table of 3-4) as finished with each player's place and score."""
    for member, place in places.items():
        Seat.objects.filter(match=match, member=member).update(place=place, score=scores[member])
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED,
        result=Match.Result.TABLE,
        end_reason=reason,
        finished_at=timezone.now(),
    )
    match.refresh_from_db()
    return match


def test_a_round_of_seven_at_tables_of_four_is_a_four_and_a_three(organiser, make_member) -> None:
    players = members(make_member, 7)
    tournament = table_swiss(
        organiser,
        players,
        challenge_rule="double",
        challenge_window=timedelta(hours=12),
        finish_line=300,
        rated=True,
    )
    paired = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    assert (paired.bye, paired.gibson) == (None, None)
    assert [match.seat_count for match in paired.matches] == [4, 3]
    everyone = [member for match in paired.matches for member in seated(match)]
    assert sorted(m.pk for m in everyone) == sorted(p.pk for p in players)
    for match in paired.matches:
        assert (match.ruleset, match.challenge_rule, match.challenge_window, match.finish_line) == (
            "classic",
            "double",
            timedelta(hours=12),
            300,
        )
        assert match.rated
        assert match.round_number == 1
        assert match.status == Match.Status.SCHEDULED
    assert not SwissBye.objects.exists()
    swiss = Swiss.objects.get(tournament=tournament)
    assert (swiss.seat_count, swiss.gibsonization) == (4, False)  # no Gibson at tables


def test_round_two_seats_the_standings_top_down_without_repeating_a_pair(
    organiser, make_member
) -> None:
    players = members(make_member, 16)
    tournament = table_swiss(organiser, players)
    first = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    round_one = [seated(match) for match in first.matches]
    # Every table's seat 0 wins, seat 1 second...: the standings then rank each table's
    # winners on top, as round 1's tables would be if cut top down again.
    for match, table in zip(first.matches, round_one, strict=True):
        finish_table(
            match,
            {m: place for place, m in enumerate(table, start=1)},
            {m: 400 - 50 * place for place, m in enumerate(table, start=1)},
        )
    second = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    table_of = {m.pk: n for n, table in enumerate(round_one) for m in table}
    for match in second.matches:
        tables_met = [table_of[m.pk] for m in seated(match)]
        assert len(set(tables_met)) == 4, "no two players of one round-1 table meet again"
    # The top table holds the four round-1 winners (they lead on 3 points each).
    winners = {table[0].pk for table in round_one}
    assert {m.pk for m in seated(second.matches[0])} == winners


def test_a_table_of_four_scores_by_place_with_ties_sharing(organiser, make_member) -> None:
    players = members(make_member, 4)
    tournament = table_swiss(organiser, players)
    (match,) = services.pair_next_round(organiser=organiser, tournament_id=tournament.id).matches
    ann, ben, cat, dan = seated(match)
    finish_table(
        match,
        {ann: 1, ben: 2, cat: 2, dan: 4},
        {ann: 400, ben: 350, cat: 350, dan: 300},
    )
    table = standings.standings(tournament)
    assert [line.member_id for line in table] == [ann.pk, ben.pk, cat.pk, dan.pk]
    by = dict(zip(("ann", "ben", "cat", "dan"), table, strict=True))
    # By place: 3, 1½, 1½, 0 (the same as a point per player placed below, a half per tie).
    assert [by[n].points for n in ("ann", "ben", "cat", "dan")] == [3.0, 1.5, 1.5, 0.0]
    # Spread: the duel spread against each other player, summed.
    assert [by[n].spread for n in ("ann", "ben", "cat", "dan")] == [200, 0, 0, -200]
    assert [(by[n].played, by[n].won, by[n].drawn, by[n].lost) for n in ("ann", "ben")] == [
        (1, 1, 0, 0),
        (1, 0, 0, 1),
    ]
    # ben and cat are equal on points and spread, and drew where they met (the same place):
    # head-to-head leaves them equal, and the last resort decides.
    assert by["ben"].separated_by == "member number"


def test_first_place_only_scores_one_shared_on_a_tie(organiser, make_member) -> None:
    players = members(make_member, 3)
    tournament = table_swiss(organiser, players, seat_count=3, table_points="wins")
    (match,) = services.pair_next_round(organiser=organiser, tournament_id=tournament.id).matches
    ann, ben, cat = seated(match)
    finish_table(match, {ann: 1, ben: 1, cat: 3}, {ann: 330, ben: 330, cat: 280})
    lines = {line.member_id: line for line in standings.standings(tournament)}
    assert [lines[m.pk].points for m in (ann, ben, cat)] == [0.5, 0.5, 0.0]
    assert [(lines[m.pk].won, lines[m.pk].drawn, lines[m.pk].lost) for m in (ann, ben, cat)] == [
        (0, 1, 0),
        (0, 1, 0),
        (0, 0, 1),
    ]
    assert [lines[m.pk].spread for m in (ann, ben, cat)] == [50, 50, -100]
    api = standings.api_standings(tournament)
    assert api.tie_break_order[0] == (
        "points (a win 1, a draw ½; at a table 1 for first place, shared equally on a tie)"
    )


def test_a_table_of_three_seated_again_adds_up_by_place(organiser, make_member) -> None:
    """Three players can only meet again (a repeat nobody can avoid); two level on points
    and spread who beat each other once each are equal on head-to-head too."""
    players = members(make_member, 3)
    tournament = table_swiss(organiser, players, seat_count=3)
    (match,) = services.pair_next_round(organiser=organiser, tournament_id=tournament.id).matches
    ann, ben, cat = seated(match)
    finish_table(match, {ann: 2, ben: 1, cat: 3}, {ann: 300, ben: 310, cat: 290})
    (again,) = services.pair_next_round(organiser=organiser, tournament_id=tournament.id).matches
    finish_table(again, {ann: 1, ben: 2, cat: 3}, {ann: 310, ben: 300, cat: 290})
    table = standings.standings(tournament)
    assert {(line.points, line.spread) for line in table[:2]} == {(3.0, 30)}
    # They met twice, once each way: equal head-to-head; the last resort decides.
    assert table[0].separated_by == "member number"
    (third,) = services.pair_next_round(organiser=organiser, tournament_id=tournament.id).matches
    finish_table(third, {ann: 2, ben: 2, cat: 1}, {ann: 300, ben: 300, cat: 300})
    table = standings.standings(tournament)
    assert [line.points for line in table] == [3.5, 3.5, 2.0]


def test_a_resigned_table_counts_no_spread_in_the_resigners_favour(organiser, make_member) -> None:
    players = members(make_member, 3)
    tournament = table_swiss(organiser, players, seat_count=3)
    (match,) = services.pair_next_round(organiser=organiser, tournament_id=tournament.id).matches
    ann, ben, cat = seated(match)
    # cat resigned while ahead of ben: placed last, cat's lead over ben counts for nobody.
    finish_table(
        match,
        {ann: 1, ben: 2, cat: 3},
        {ann: 300, ben: 200, cat: 250},
        reason=Match.EndReason.RESIGNED,
    )
    lines = {line.member_id: line for line in standings.standings(tournament)}
    assert [lines[m.pk].spread for m in (ann, ben, cat)] == [150, -100, -50]
    Match.objects.filter(pk=match.pk).update(end_reason=Match.EndReason.FORFEIT)
    lines = {line.member_id: line for line in standings.standings(tournament)}
    assert [lines[m.pk].spread for m in (ann, ben, cat)] == [0, 0, 0]
    assert [lines[m.pk].points for m in (ann, ben, cat)] == [2.0, 1.0, 0.0]


def test_the_api_and_the_csv_files_show_the_tables(organiser, make_member) -> None:
    players = members(make_member, 5)
    tournament = table_swiss(organiser, players, finish_line=250)
    paired = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    three, duel = paired.matches
    assert (three.seat_count, duel.seat_count) == (3, 2)
    ann, ben, cat = seated(three)
    finish_table(three, {ann: 1, ben: 2, cat: 3}, {ann: 260, ben: 240, cat: 200})
    client = Client()
    swiss = client.get(f"/api/tournaments/{tournament.id}/swiss").json()
    assert swiss["table"] == {
        "seat_count": 4,
        "challenge_rule": "void",
        "challenge_window_seconds": None,
        "finish_line": 250,
        "table_points": "places",
    }
    rows = list(csv.DictReader(io.StringIO(exports.results_csv(tournament))))
    assert len(rows) == 1
    assert (rows[0]["first"], rows[0]["second"], rows[0]["third"], rows[0]["fourth"]) == (
        ann.username,
        ben.username,
        cat.username,
        "",
    )
    assert (rows[0]["places"], rows[0]["spread"], rows[0]["result"]) == (
        "1 2 3",
        "80",
        f"{ann.username} won",
    )
    lines = list(csv.DictReader(io.StringIO(exports.standings_csv(tournament))))
    assert [(line["member"], line["points"], line["spread"]) for line in lines] == [
        (ann.username, "2", "80"),
        (ben.username, "1", "20"),
        *((member.username, "0", "0") for member in seated(duel)),  # not played yet
        (cat.username, "0", "-100"),
    ]
    page = client.get(f"/tournaments/{tournament.id}/")
    assert page.status_code == 200
    assert b'id="swiss-tables"' in page.content
    assert b"tsh's .t file" not in page.content
    assert client.get(f"/tournaments/{tournament.id}/results.t").status_code == 404


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"ruleset": "word-duel", "seat_count": 3},
            "The word-duel ruleset does not seat 3 players.",
        ),
        ({"seat_count": 5}, "The classic ruleset does not seat 5 players."),
        ({"challenge_rule": "triple"}, "No challenge rule is called 'triple'."),
        ({"challenge_window": timedelta(0)}, "The challenge window must be positive."),
        ({"finish_line": 0}, "A finish line is a positive score."),
        ({"table_points": "goals"}, "A table game scores by place or by first place only."),
    ],
)
def test_a_swiss_of_tables_is_refused_as_it_says(organiser, make_member, settings, message) -> None:
    players = members(make_member, 4)
    arguments = {"ruleset": "classic", "seat_count": 4, **settings}
    with pytest.raises(InvalidFixture) as refused:
        services.create_swiss(
            organiser=organiser,
            name="Refused",
            players=players,
            rounds=3,
            first_kickoff=KICKOFF,
            interval=timedelta(days=7),
            **arguments,
        )
    assert str(refused.value) == message
    assert refused.value.code == "invalid_fixture"
    assert not Tournament.objects.exists()


def test_two_players_are_too_few_for_tables(organiser, alice, bob) -> None:
    with pytest.raises(InvalidFixture, match=TOO_FEW_FOR_TABLES):
        table_swiss(organiser, [alice, bob], seat_count=3)
    assert not Tournament.objects.exists()


def test_round_robins_knockouts_and_leagues_seat_two(organiser, make_member) -> None:
    players = members(make_member, 4)
    common = {"organiser": organiser, "name": "Tables?", "players": players, "ruleset": "classic"}
    attempts = [
        lambda: services.create_round_robin(
            first_kickoff=KICKOFF, interval=timedelta(days=1), seat_count=4, **common
        ),
        lambda: services.create_knockout(
            first_kickoff=KICKOFF, interval=timedelta(days=1), seat_count=3, **common
        ),
        lambda: services.create_league(
            start=KICKOFF,
            interval=timedelta(days=1),
            division_size=4,
            movers=1,
            seat_count=4,
            **common,
        ),
    ]
    for attempt in attempts:
        with pytest.raises(InvalidFixture, match="paired only in a Swiss") as refused:
            attempt()
        assert str(refused.value) == TABLES_ONLY_IN_A_SWISS
    assert not Tournament.objects.exists()
    # Their duels take the table's other settings, which every fixture inherits.
    cup = services.create_round_robin(
        first_kickoff=KICKOFF,
        interval=timedelta(days=1),
        challenge_rule="five_point",
        finish_line=200,
        **common,
    )
    assert set(cup.matches.values_list("seat_count", "challenge_rule", "finish_line")) == {
        (2, "five_point", 200)
    }


def test_an_organiser_creates_a_swiss_of_tables_on_the_form(organiser, make_member) -> None:
    names = [member.username for member in members(make_member, 5, prefix="form")]
    form = {
        "swiss-name": "Club tables",
        "swiss-players": "\n".join(names),
        "swiss-rounds": "3",
        "swiss-first_kickoff": local_minute(timezone.now() + timedelta(days=2)),
        "swiss-interval_hours": "72",
        "swiss-ruleset": "classic",
        "swiss-visibility": "public",
        "swiss-rated": "on",
        "swiss-bye_points": "1",
        "swiss-bye_spread": "50",
        "swiss-prize_places": "3",
        "swiss-seat_count": "4",
        "swiss-table_points": "wins",
        "swiss-challenge_rule": "double",
        "swiss-challenge_window_hours": "6",
        "swiss-finish_line": "300",
    }
    client = client_for(organiser)
    refused = client.post("/organise/swiss/", {**form, "swiss-ruleset": "word-duel"})
    assert refused.status_code == 400
    assert "The word-duel ruleset does not seat 4 players." in refused.content.decode()
    assert not Swiss.objects.exists()

    answer = client.post("/organise/swiss/", form)
    assert answer.status_code == 302
    swiss = Swiss.objects.get(tournament__name="Club tables")
    assert (
        swiss.seat_count,
        swiss.table_points,
        swiss.challenge_rule,
        swiss.challenge_window,
        swiss.finish_line,
    ) == (4, "wins", "double", timedelta(hours=6), 300)
    page = client.get(answer["Location"]).content.decode()
    assert "A Swiss of tables: each round seats everyone at tables of up to 4" in page
