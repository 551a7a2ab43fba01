"""A whole knockout played through the services: created (round 1's games scheduled, byes
decided), each game ended by a resignation (``match_resign``) or an organiser's ruling
(``match_adjudicate``), the tie and the rounds moved on by the ``MatchFinished``
subscriber after each commit; a voided game replayed; a drawn tie settled as RULES.md
says; advancing twice changes nothing; the refusals."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from common.errors import NotAllowed
from common.events import MatchFinished
from matches.models import Match
from matches.services.errors import InvalidFixture
from matches.services.resignation import match_resign
from tournaments import services
from tournaments.models import Knockout, KnockoutGame, KnockoutTie
from tournaments.subscribers import advance_its_knockout

pytestmark = pytest.mark.django_db

_client_ids = itertools.count(1)


def _knockout(organiser, players, **settings):
    return services.create_knockout(
        organiser=organiser,
        name="Club Cup",
        players=players,
        first_kickoff=timezone.now() - timedelta(minutes=1),
        interval=timedelta(0),
        **{"seeding": Knockout.Seeding.ORDER, **settings},
    )


def _live(tournament) -> list[Match]:
    return list(tournament.matches.filter(status=Match.Status.LIVE).order_by("id"))


def _seated(match: Match) -> tuple[int, int]:
    seats = sorted(match.seats.all(), key=lambda seat: seat.position)
    return (seats[0].member_id, seats[1].member_id)


def _lose(match: Match, loser, capture) -> None:
    """``loser`` resigns ``match``; the after-commit subscribers run as after a real commit."""
    with capture(execute=True):
        match_resign(match_id=match.id, member=loser, client_id=f"resign-{next(_client_ids)}")


def _tie(tournament, round_number: int, slot: int) -> KnockoutTie:
    return KnockoutTie.objects.get(knockout_id=tournament.id, round=round_number, slot=slot)


def test_a_whole_knockout_of_five_best_of_three(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    p = [make_member(f"s{i}") for i in range(1, 6)]  # seeds 1..5, in this order
    seed = {member.pk: number for number, member in enumerate(p, start=1)}
    tournament = _knockout(organiser, p, best_of=3)
    knockout = Knockout.objects.get(tournament=tournament)
    assert (knockout.size, knockout.rounds, knockout.current_round) == (8, 3, 1)

    # Round 1: seeds 1, 2 and 3 have byes; 4 v 5 is the only game, seed 4 First.
    byes = KnockoutTie.objects.filter(knockout=knockout, round=1, winner__isnull=False)
    assert sorted(seed[t.winner_id] for t in byes) == [1, 2, 3]
    (game,) = _live(tournament)
    assert [seed[pk] for pk in _seated(game)] == [4, 5]
    assert game.round_number == 1
    assert game.name == "Club Cup · Quarter-final · Game 1"
    # Round 2 already knows seeds 1, 2 and 3; its other place waits for 4 v 5.
    semi_top = _tie(tournament, 2, 0)
    assert (semi_top.top_id, semi_top.bottom_id) == (p[0].pk, None)

    # Seed 5 wins game 1, seed 4 game 2 (seed 5 First now), seed 5 game 3: an upset.
    _lose(game, p[3], django_capture_on_commit_callbacks)
    (game,) = _live(tournament)
    assert [seed[pk] for pk in _seated(game)] == [5, 4]
    _lose(game, p[4], django_capture_on_commit_callbacks)
    (game,) = _live(tournament)
    assert [seed[pk] for pk in _seated(game)] == [4, 5]
    _lose(game, p[3], django_capture_on_commit_callbacks)
    assert _tie(tournament, 1, 1).winner_id == p[4].pk

    # Round 2 (the semi-finals) starts at once: 1 v 5 and 2 v 3, the higher seed First.
    knockout.refresh_from_db()
    assert knockout.current_round == 2
    semis = _live(tournament)
    assert sorted([seed[pk] for pk in _seated(m)] for m in semis) == [[1, 5], [2, 3]]
    assert {m.name for m in semis} == {"Club Cup · Semi-final · Game 1"}

    # The higher seeds win both semi-finals in two games.
    for _ in range(2):
        for match in _live(tournament):
            first, second = _seated(match)
            loser = max((first, second), key=seed.__getitem__)
            _lose(match, next(m for m in p if m.pk == loser), django_capture_on_commit_callbacks)
    assert _tie(tournament, 2, 0).winner_id == p[0].pk
    assert _tie(tournament, 2, 1).winner_id == p[1].pk

    # The final: 1 v 2; seed 2 wins 2-0 and is the champion.
    (final,) = _live(tournament)
    assert [seed[pk] for pk in _seated(final)] == [1, 2]
    assert final.name == "Club Cup · Final · Game 1"
    _lose(final, p[0], django_capture_on_commit_callbacks)
    (final,) = _live(tournament)
    assert [seed[pk] for pk in _seated(final)] == [2, 1]
    _lose(final, p[0], django_capture_on_commit_callbacks)
    assert _tie(tournament, 3, 0).winner_id == p[1].pk
    assert not _live(tournament)
    assert services.advance_knockout(tournament_id=tournament.id).champion == p[1].pk
    # 3 games in round 1, 4 in the semi-finals, 2 in the final.
    assert KnockoutGame.objects.filter(tie__knockout=knockout).count() == 9
    assert tournament.matches.count() == 9


def test_advancing_again_changes_nothing(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    players = [make_member(f"q{i}") for i in range(1, 5)]
    tournament = _knockout(organiser, players)
    first, second = _live(tournament)
    _lose(first, players[3], django_capture_on_commit_callbacks)
    before = tournament.matches.count()
    again = services.advance_knockout(tournament_id=tournament.id)
    assert (again.decided, again.scheduled, again.rounds_started) == ([], [], [])
    by_hand = services.advance_knockout_now(organiser=organiser, tournament_id=tournament.id)
    assert by_hand.scheduled == []
    assert tournament.matches.count() == before
    # The subscriber itself, heard twice for the same finish: no second game, no change.
    finished = MatchFinished(
        match_id=first.id, result="second", reason="resigned", rated=False, seats=()
    )
    advance_its_knockout(finished)
    advance_its_knockout(finished)
    assert tournament.matches.count() == before
    _lose(second, players[2], django_capture_on_commit_callbacks)
    (final,) = _live(tournament)
    assert set(_seated(final)) == {players[0].pk, players[1].pk}
    # The final's advance ran after its own commit; running it again schedules no more.
    assert services.advance_knockout(tournament_id=tournament.id).scheduled == []
    assert tournament.matches.count() == before + 1


def test_a_voided_game_is_replayed_and_a_drawn_best_of_one_goes_to_the_higher_seed(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    low, high = make_member("low"), make_member("high")
    tournament = _knockout(organiser, [high, low])  # high is seed 1
    (game,) = _live(tournament)
    with django_capture_on_commit_callbacks(execute=True):
        services.match_adjudicate(
            organiser=organiser, match_id=game.id, ruling="void", reason="The club's power cut."
        )
    (replay,) = _live(tournament)
    assert replay.id != game.id
    assert KnockoutGame.objects.get(match=replay).number == 2
    assert _seated(replay) == (low.pk, high.pk)  # game 2: the other player First
    with django_capture_on_commit_callbacks(execute=True):
        services.match_adjudicate(
            organiser=organiser, match_id=replay.id, ruling="draw", reason="Agreed drawn."
        )
    tie = _tie(tournament, 1, 0)
    assert tie.winner_id == high.pk  # level, no spread: the higher seed
    assert not _live(tournament)


def test_a_player_removed_from_the_club_loses_the_tie_by_walkover(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    from accounts.services import membership_remove

    top, bottom = make_member("stays"), make_member("goes")
    tournament = _knockout(organiser, [top, bottom], best_of=3)
    (game,) = _live(tournament)
    # Removed mid-game: the live game is lost (RULES.md section 3), 1-0 in a best of 3; the
    # tie's next game would seat a non-member, so the tie is decided by walkover instead.
    with django_capture_on_commit_callbacks(execute=True):
        membership_remove(organiser=organiser, member_id=bottom.pk, reason="Left the club.")
    game.refresh_from_db()
    assert game.end_reason == Match.EndReason.WITHDRAWN
    tie = _tie(tournament, 1, 0)
    assert (tie.winner_id, tie.walkover) == (top.pk, True)
    assert tournament.matches.count() == 1
    assert not _live(tournament)


def test_refusals(organiser, make_member, alice) -> None:
    players = [make_member(f"r{i}") for i in range(1, 4)]
    with pytest.raises(NotAllowed):
        _knockout(alice, players)
    with pytest.raises(InvalidFixture, match="odd number"):
        _knockout(organiser, players, best_of=2)
    with pytest.raises(InvalidFixture, match="at least two"):
        _knockout(organiser, players[:1])
    with pytest.raises(InvalidFixture, match="only once"):
        _knockout(organiser, [players[0], players[0]])
    with pytest.raises(InvalidFixture, match="Seed the players"):
        _knockout(organiser, players, seeding="random")
    tournament = _knockout(organiser, players)
    with pytest.raises(NotAllowed):
        services.advance_knockout_now(organiser=alice, tournament_id=tournament.id)
    with pytest.raises(services.NotAKnockout) as refused:
        services.advance_knockout(tournament_id=tournament.id + 1000)
    assert refused.value.code == "not_knockout"


def test_seeding_by_rating_puts_the_highest_rated_first(organiser, make_member) -> None:
    from ratings.models import Rating

    players = [make_member(f"t{i}") for i in range(1, 5)]
    best = players[3]
    Rating.objects.create(
        member=best, ruleset="word-duel", rating=2100, deviation=60, volatility=0.06
    )
    tournament = services.create_knockout(
        organiser=organiser,
        name="Rated Cup",
        players=players,
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(hours=72),
    )
    top = _tie(tournament, 1, 0)
    assert (top.top_id, top.top_seed) == (best.pk, 1)
    assert (top.bottom_seed, _tie(tournament, 1, 1).top_seed) == (4, 2)
    assert tournament.matches.filter(status=Match.Status.SCHEDULED).count() == 2
