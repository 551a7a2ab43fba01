"""An import costs its request no move generator: the record is checked and kept at once, and
the best plays are found by a Celery task (its id, its state, safe to rerun). A member has
one import in progress at a time and a daily allowance; a sign-up waiting for approval (or a
removed member) imports nothing; the analysis stops at a number of moves as well as a time,
and the page says so."""

from __future__ import annotations

import html
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Member
from imports import services, tasks
from imports.errors import ImportInProgress, ImportLimitReached, MembersOnlyImport
from imports.models import ImportedGame

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
PHONIES = (FIXTURES / "phonies_formed.gcg").read_bytes()
SHORT = (
    b"#player1 ann Ann\n#player2 bo Bo\n"
    b">ann: AEGINRT 8D GRANITE +70 70\n>bo: DEILOPU H5 PUD. +7 7\n"
)


def import_(owner, data=SHORT, **kw) -> ImportedGame:
    kw.setdefault("ruleset", "classic")
    kw.setdefault("lexicon", "enable")
    return services.import_game(owner=owner, data=data, **kw)


def signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def page_of(client: Client, game: ImportedGame) -> str:
    answer = client.get(reverse("imports:game", args=[game.pk]))
    assert answer.status_code == 200
    return html.unescape(answer.content.decode())


# ---------------------------------------------------------------- the request and the task


def test_the_request_keeps_the_record_and_the_task_finds_the_best_plays(make_member) -> None:
    owner = make_member()
    game = import_(owner, PHONIES)
    # At once: checked, placed and kept, but no move generator has run yet.
    assert game.status == ImportedGame.Status.QUEUED
    turns = game.replay["turns"]
    assert turns[0]["flags"][0]["code"] == "not_in_lexicon"
    assert {turn["analysis"] for turn in turns} <= {"pending", "not_a_move", "no_rack"}
    assert all(turn["best"] is None for turn in turns)
    client = signed_in(owner)
    waiting = page_of(client, game)
    assert 'id="import-status"' in waiting
    assert "Finding the best play of each rack" in waiting
    assert '<meta http-equiv="refresh"' in waiting  # the page reloads itself until done
    assert "Best play:" not in waiting

    assert tasks.analyse_import(game.pk) == "done"
    game.refresh_from_db()
    assert game.status == ImportedGame.Status.DONE
    assert game.analysed_at is not None
    done = page_of(client, game)
    assert "Best play: <strong>H3 CYMARS</strong> +34" in done
    assert '<meta http-equiv="refresh"' not in done
    assert "Finding the best play" not in done


def test_the_task_is_safe_to_rerun_and_takes_only_a_queued_import(make_member) -> None:
    game = import_(make_member(), PHONIES)
    assert tasks.analyse_import(game.pk) == "done"
    game.refresh_from_db()
    analysed = game.replay
    assert tasks.analyse_import(game.pk) == "not queued"  # a second delivery changes nothing
    game.refresh_from_db()
    assert game.replay == analysed
    assert tasks.analyse_import(game.pk + 1000) == "not queued"  # deleted, or never made


def test_an_import_being_analysed_is_not_taken_twice_unless_its_worker_died(
    make_member, settings
) -> None:
    game = import_(make_member())
    ImportedGame.objects.filter(pk=game.pk).update(
        status=ImportedGame.Status.RUNNING, started_at=timezone.now()
    )
    assert tasks.analyse_import(game.pk) == "not queued"
    stalled = timezone.now() - timedelta(seconds=settings.IMPORT_STALLED_AFTER_SECONDS + 1)
    ImportedGame.objects.filter(pk=game.pk).update(started_at=stalled)
    assert tasks.analyse_import(game.pk) == "done"


def test_a_lost_task_is_queued_again_by_the_sweep(make_member, settings) -> None:
    from wordduel.celery import app

    game = import_(make_member())  # its task is queued after a commit that never comes here
    assert services.requeue_stalled_imports() == []  # not lost yet: it may be on its way
    later = timezone.now() + timedelta(seconds=settings.IMPORT_STALLED_AFTER_SECONDS + 1)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        assert services.requeue_stalled_imports(now=later) == [game.pk]
    finally:
        app.conf.task_always_eager = eager
    game.refresh_from_db()
    assert game.status == ImportedGame.Status.DONE


def test_a_failed_analysis_keeps_the_checked_replay_and_says_so(make_member) -> None:
    owner = make_member()
    game = import_(owner)
    ImportedGame.objects.filter(pk=game.pk).update(record_text="not a record any more")
    assert tasks.analyse_import(game.pk) == "failed"
    game.refresh_from_db()
    assert game.status == ImportedGame.Status.FAILED
    page = page_of(signed_in(owner), game)
    assert "The best plays could not be found for this game." in page
    assert '<meta http-equiv="refresh"' not in page
    assert "Turn 2 of 2" in page  # the checked replay is still there


# ---------------------------------------------------------------- bounded by moves


def test_the_analysis_stops_at_a_number_of_moves_and_the_page_says_so(
    make_member, settings
) -> None:
    settings.IMPORT_ANALYSIS_MAX_MOVES = 3
    owner = make_member()
    game = import_(owner, PHONIES)
    tasks.analyse_import(game.pk)
    game.refresh_from_db()
    analysed = [t["analysis"] for t in game.replay["turns"] if t["analysis"] != "not_a_move"]
    assert analysed[:3] == ["done", "done", "done"]
    assert set(analysed[3:]) == {"over_cap"}
    page = page_of(signed_in(owner), game)
    assert "The best play is found for the first 3 moves of a record only" in page
    assert "Not analysed: an import analyses its first 3 moves." in page


# ---------------------------------------------------------------- who may import, how much


@pytest.fixture(params=[Member.Membership.PENDING, Member.Membership.REMOVED])
def outsider(request, make_member) -> Member:
    member = make_member()
    member.membership = request.param
    member.save(update_fields=["membership"])
    return member


def test_a_member_not_approved_cannot_import(outsider) -> None:
    with pytest.raises(MembersOnlyImport) as refused:
        import_(outsider)
    assert (refused.value.code, refused.value.status) == ("members_only", 403)
    client = signed_in(outsider)
    listing = html.unescape(client.get(reverse("imports:list")).content.decode())
    assert MembersOnlyImport.MESSAGE in listing
    assert 'enctype="multipart/form-data"' not in listing  # no form offered
    answer = client.post(
        reverse("imports:list"),
        {"record_text": SHORT.decode(), "ruleset": "classic", "lexicon": "enable"},
    )
    assert answer.status_code == 403
    assert MembersOnlyImport.MESSAGE in html.unescape(answer.content.decode())
    assert not ImportedGame.objects.exists()


def test_one_import_at_a_time(make_member) -> None:
    owner = make_member()
    first = import_(owner)
    with pytest.raises(ImportInProgress) as refused:
        import_(owner)
    assert (refused.value.code, refused.value.status) == ("import_in_progress", 429)
    assert ImportedGame.objects.count() == 1
    import_(make_member())  # another member is not held up
    tasks.analyse_import(first.pk)
    import_(owner)  # the first is done: the next is taken
    assert ImportedGame.objects.filter(owner=owner).count() == 2


def test_the_page_refuses_a_second_import_while_the_first_is_analysed(make_member) -> None:
    owner = make_member()
    import_(owner)
    answer = signed_in(owner).post(
        reverse("imports:list"),
        {"record_text": SHORT.decode(), "ruleset": "classic", "lexicon": "enable"},
    )
    assert answer.status_code == 429
    assert ImportInProgress.MESSAGE in html.unescape(answer.content.decode())
    assert ImportedGame.objects.count() == 1


def test_a_daily_allowance_of_imports(make_member, settings) -> None:
    settings.IMPORT_DAILY_LIMIT = 2
    owner = make_member()
    for _ in range(2):
        tasks.analyse_import(import_(owner).pk)
    # Deleting one gives nothing back: the work was done.
    services.delete_imported_game(game_id=ImportedGame.objects.first().pk, member=owner)
    with pytest.raises(ImportLimitReached) as refused:
        import_(owner)
    assert (refused.value.code, refused.value.status) == ("import_limit", 429)
    assert "2 imports a day" in refused.value.message
    assert ImportedGame.objects.filter(owner=owner).count() == 1
    import_(make_member())  # another member's allowance is their own


def test_a_refused_record_costs_no_allowance(make_member, settings) -> None:
    settings.IMPORT_DAILY_LIMIT = 1
    owner = make_member()
    with pytest.raises(services.UnreadableRecord):
        import_(owner, SHORT + b"oops\n")
    import_(owner)
