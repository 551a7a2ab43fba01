"""A tournament's results and standings as CSV, and its results as tsh's ``.t`` file
(docs/RULES.md section 12, "Exports"): downloaded from the tournament's page by whoever may
see it, read back with the stdlib ``csv`` module (and the ``.t`` file with tsh's own line
shape), holding only finished matches and nothing hidden."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client

from matches.models import Match, Seat
from tests.matches.test_standings import between, round_robin, settle
from tournaments import exports

pytestmark = pytest.mark.django_db

RACK = "QZXJKWV"


@pytest.fixture
def cup(organiser, make_member):
    """ann, ben, cat and dan: ann beat ben 420-350 on the board, ann and cat drew 300-300,
    cat won dan by forfeit; the other three fixtures still to play (one with a rack)."""
    ann, ben, cat, dan = (make_member(name) for name in ("ann", "ben", "cat", "dan"))
    tournament = round_robin(organiser, [ann, ben, cat, dan])
    settle(tournament, ann, ben, scores=(420, 350), winner=ann)
    settle(tournament, ann, cat, scores=(300, 300))
    settle(tournament, cat, dan, scores=(12, 40), winner=cat, reason=Match.EndReason.FORFEIT)
    unplayed = between(tournament, ben, dan)
    Seat.objects.filter(match=unplayed).update(rack=RACK)
    return tournament


def _read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_results_csv_holds_each_finished_match_and_reads_back(cup) -> None:
    answer = Client().get(f"/tournaments/{cup.id}/results.csv")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == 'attachment; filename="cup-results.csv"'
    text = answer.content.decode()
    assert RACK not in text
    rows = _read(text)
    assert tuple(rows[0]) == exports.RESULT_COLUMNS
    assert rows == [
        {key: str(value) for key, value in row.items()} for row in exports.result_rows(cup)
    ]
    finished = cup.matches.filter(status=Match.Status.FINISHED)
    assert sorted(int(row["match_id"]) for row in rows) == sorted(m.id for m in finished)
    by_players = {frozenset((row["first"], row["second"])): row for row in rows}
    ann_ben = by_players[frozenset(("ann", "ben"))]
    ann_first = ann_ben["first"] == "ann"
    assert (ann_ben["first_score"], ann_ben["second_score"]) == (
        ("420", "350") if ann_first else ("350", "420")
    )
    assert ann_ben["spread"] == ("70" if ann_first else "-70")
    assert ann_ben["end_reason"] == "Played out"
    assert ann_ben["result"].startswith("ann (")
    forfeit = by_players[frozenset(("cat", "dan"))]
    assert (forfeit["spread"], forfeit["end_reason"]) == ("0", "Forfeit")
    assert by_players[frozenset(("ann", "cat"))]["result"] == "Draw"
    assert all(row["finished_at"].endswith("+00:00") for row in rows)


def test_the_standings_csv_has_the_table_in_order_with_its_tie_break_columns(cup) -> None:
    answer = Client().get(f"/tournaments/{cup.id}/standings.csv")
    assert answer.status_code == 200
    rows = _read(answer.content.decode())
    assert tuple(rows[0]) == exports.STANDING_COLUMNS
    assert [row["member"] for row in rows] == ["ann", "cat", "dan", "ben"]
    ann = rows[0]
    assert (ann["rank"], ann["played"], ann["won"], ann["drawn"], ann["points"]) == (
        "1", "2", "1", "1", "1.5"
    )  # fmt: skip
    assert ann["spread"] == "70"
    # ann met ben (350 on the board) and cat (300 on the board; her forfeit win adds none).
    assert ann["opponents_scores"] == "650"
    assert ann["buchholz"] == "1.5"  # ben 0, cat 1.5


def test_a_page_links_the_exports_and_a_hidden_tournament_exports_nothing(cup, make_member):
    page = Client().get(f"/tournaments/{cup.id}/").content.decode()
    for name in ("results.csv", "standings.csv", "results.t"):
        assert f"/tournaments/{cup.id}/{name}" in page
    Match.objects.filter(pk=between(cup, *cup.players.order_by("id")[:2]).pk).update(
        visibility=Match.Visibility.MEMBERS
    )
    for name in ("results.csv", "standings.csv", "results.t"):
        assert Client().get(f"/tournaments/{cup.id}/{name}").status_code == 404
        member = Client()
        member.force_login(make_member())
        assert member.get(f"/tournaments/{cup.id}/{name}").status_code == 200


#: tsh's line: a name, a rating, the opponents' numbers; the scores.
TSH_LINE = re.compile(
    r"^(?P<name>.+?)\s+(?P<rating>\d+)\s*(?P<opponents>[\d ]*);\s*(?P<scores>[-\d ]*)$"
)


def _parse_tsh(text: str) -> list[dict[str, object]]:
    players = []
    for line in text.splitlines():
        found = TSH_LINE.match(line)
        assert found is not None, line
        players.append(
            {
                "name": found["name"],
                "rating": int(found["rating"]),
                "opponents": [int(n) for n in found["opponents"].split()],
                "scores": [int(n) for n in found["scores"].split()],
            }
        )
    return players


def test_the_t_file_parses_back_to_the_results(cup) -> None:
    answer = Client().get(f"/tournaments/{cup.id}/results.t")
    assert answer.status_code == 200
    assert answer["Content-Disposition"] == 'attachment; filename="cup.t"'
    text = answer.content.decode()
    assert RACK not in text
    players = _parse_tsh(text)
    assert sorted(p["name"] for p in players) == ["ann", "ben", "cat", "dan"]
    assert {p["rating"] for p in players} == {1500}  # all newcomers when it was created
    number = {p["name"]: index for index, p in enumerate(players, start=1)}
    rounds = {len(p["opponents"]) for p in players} | {len(p["scores"]) for p in players}
    last_round = max(m.round_number for m in cup.matches.filter(status=Match.Status.FINISHED))
    assert rounds == {last_round}
    # Every pairing on the board is seen from both sides, in the same round.
    for p in players:
        for index, opponent in enumerate(p["opponents"]):
            if opponent:
                assert players[opponent - 1]["opponents"][index] == number[p["name"]]
    by_name = {p["name"]: p for p in players}

    def cell(name: str, match: Match) -> tuple[int, int]:
        r = match.round_number - 1
        return by_name[name]["opponents"][r], by_name[name]["scores"][r]

    ann, ben, cat, dan = (cup.players.get(username=n) for n in ("ann", "ben", "cat", "dan"))
    assert cell("ann", between(cup, ann, ben)) == (number["ben"], 420)
    assert cell("ben", between(cup, ann, ben)) == (number["ann"], 350)
    assert cell("cat", between(cup, ann, cat)) == (number["ann"], 300)
    # A forfeit is written as tsh writes one: opponent 0, the spread credited.
    assert cell("cat", between(cup, cat, dan)) == (0, exports.FORFEIT_SPREAD)
    assert cell("dan", between(cup, cat, dan)) == (0, -exports.FORFEIT_SPREAD)


def test_a_name_tsh_would_misread_is_written_so_it_reads_back(organiser, make_member) -> None:
    first, second = make_member("one"), make_member("two")
    first.display_name = "Team 7; #1"
    first.save()
    tournament = round_robin(organiser, [first, second])
    settle(tournament, first, second, scores=(400, 300), winner=first)
    players = _parse_tsh(exports.tsh_file(tournament))
    assert players[0]["name"] == "Team _7 _1" or players[1]["name"] == "Team _7 _1"
    assert sorted(p["scores"][0] for p in players) == [300, 400]
