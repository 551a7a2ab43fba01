"""Importing a record: stored for its owner only, shared by a rotatable link, never a match;
bad input refused with the line at fault and nothing written; the pages over real requests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from imports import services, tasks
from imports.access import ImportedGameNotFound, access_imported_game
from imports.errors import (
    ImportedGameMissing,
    NotText,
    RecordTooBig,
    UnknownChoice,
    UnreadableRecord,
)
from imports.models import ImportedGame
from matches.models import Match, Seat, Turn
from matches.services import SignInRequired

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
PHONIES = (FIXTURES / "phonies_formed.gcg").read_bytes()
SHORT = (
    b"#player1 ann Ann\n#player2 bo Bo\n"
    b">ann: AEGINRT 8D GRANITE +70 70\n>bo: DEILOPU H5 PUD. +7 7\n"
)


def import_(owner, data=SHORT, **kw) -> ImportedGame:
    """Import and analyse (as the worker does), so the member may import again at once."""
    kw.setdefault("ruleset", "classic")
    kw.setdefault("lexicon", "enable")
    game = services.import_game(owner=owner, data=data, **kw)
    tasks.analyse_import(game.pk)
    game.refresh_from_db()
    return game


# ---------------------------------------------------------------- the services


def test_an_import_is_the_owners_and_no_match(make_member) -> None:
    owner = make_member()
    before = (Match.objects.count(), Seat.objects.count(), Turn.objects.count())
    game = import_(owner, PHONIES, file_name="phonies.gcg")
    assert game.owner == owner
    assert game.share_key is None
    assert game.title == "New Player 1 vs Quackle"
    assert game.file_name == "phonies.gcg"
    assert game.record_text == PHONIES.decode()
    assert game.encoding == "utf-8"
    assert game.replay["turns"][0]["flags"][0]["code"] == "not_in_lexicon"
    assert (Match.objects.count(), Seat.objects.count(), Turn.objects.count()) == before


def test_the_title_is_the_members_then_the_records(make_member) -> None:
    owner = make_member()
    assert import_(owner, b"#title Final\n" + SHORT).title == "Final"
    assert import_(owner, b"#title Final\n" + SHORT, title=" Mine \n too ").title == "Mine too"


def test_pasted_text_and_a_latin_1_file(make_member) -> None:
    owner = make_member()
    assert import_(owner, SHORT.decode()).encoding == ""
    latin = (FIXTURES / "constructs" / "iso_8859_1_no_pragma.gcg").read_bytes()
    game = import_(owner, latin)
    assert game.encoding == "iso8859-1"
    assert game.record_text == latin.decode("iso8859-1")


@pytest.mark.parametrize(
    ("data", "error", "message"),
    [
        (
            b"#player1 a A\n" + b"#note " + b"x" * services.MAX_IMPORT_BYTES,
            RecordTooBig,
            "the limit is 256 KiB",
        ),
        (
            b"#player1 a A\n>a: AT 8G AT +4 4\x00\n",
            NotText,
            "line 2 holds the control character U+0000",
        ),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", NotText, "line 3"),
        (
            SHORT + b">bo: DEILOPU H5 PUL. +6 six\n",
            UnreadableRecord,
            "Cannot read line 5: bad score or total",
        ),
        (SHORT + b"oops\n", UnreadableRecord, "Cannot read line 5: not a pragma"),
        (SHORT + b">ann: AT 8O AT +4 74\n", UnreadableRecord, "line 5: 8O AT runs off the board"),
        (b"", UnreadableRecord, "The record is empty."),
        (b"#player1 a A\n", UnreadableRecord, "no move lines"),
    ],
    ids=["too_big", "nul", "png", "score", "stray", "off_board", "empty", "no_moves"],
)
def test_bad_records_are_refused_and_nothing_is_kept(make_member, data, error, message) -> None:
    owner = make_member()
    with pytest.raises(error) as caught:
        import_(owner, data)
    assert message in str(caught.value)
    assert ImportedGame.objects.count() == 0


def test_a_refusal_says_its_line_and_code(make_member) -> None:
    with pytest.raises(UnreadableRecord) as caught:
        import_(make_member(), SHORT + b">bo: DEILOPU H5 PUL. +6 six\n")
    assert (caught.value.line, caught.value.code, caught.value.status) == (5, "unreadable", 400)


def test_unknown_choices_and_visitors_are_refused(make_member, django_user_model) -> None:
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(UnknownChoice):
        import_(make_member(), ruleset="nope")
    with pytest.raises(UnknownChoice):
        import_(make_member(), lexicon="../../etc/passwd")
    with pytest.raises(SignInRequired):
        import_(AnonymousUser())
    assert ImportedGame.objects.count() == 0


def test_sharing_is_by_a_rotatable_link_and_only_the_owner_changes_it(make_member) -> None:
    owner, other = make_member(), make_member()
    game = import_(owner)
    with pytest.raises(ImportedGameNotFound):
        access_imported_game(user=other, game_id=game.pk, key=None)
    first = services.rotate_share_key(game_id=game.pk, member=owner)
    seen = access_imported_game(user=other, game_id=game.pk, key=first)
    assert seen.has_key
    assert not seen.is_owner
    second = services.rotate_share_key(game_id=game.pk, member=owner)
    assert second != first
    with pytest.raises(ImportedGameNotFound):
        access_imported_game(user=other, game_id=game.pk, key=first)
    assert access_imported_game(user=other, game_id=game.pk, key=second).has_key
    services.stop_sharing(game_id=game.pk, member=owner)
    with pytest.raises(ImportedGameNotFound):
        access_imported_game(user=other, game_id=game.pk, key=second)
    for change in (services.rotate_share_key, services.stop_sharing, services.delete_imported_game):
        with pytest.raises(ImportedGameMissing):
            change(game_id=game.pk, member=other)
    assert ImportedGame.objects.filter(pk=game.pk, share_key=None).exists()
    services.delete_imported_game(game_id=game.pk, member=owner)
    assert not ImportedGame.objects.exists()


# ---------------------------------------------------------------- the pages


def signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def test_upload_a_file_and_see_the_replay(make_member) -> None:
    owner = make_member()
    client = signed_in(owner)
    upload = SimpleUploadedFile("phonies.gcg", PHONIES, content_type="application/octet-stream")
    answer = client.post(
        reverse("imports:list"), {"record_file": upload, "ruleset": "classic", "lexicon": "enable"}
    )
    game = ImportedGame.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == reverse("imports:game", args=[game.pk])
    tasks.analyse_import(game.pk)  # as the worker does, after the request
    page = client.get(answer["Location"]).content.decode()
    assert "Not in ENABLE: CRAMESY." in page
    assert "Best play: <strong>H3 CYMARS</strong> +34" in page
    assert "Turn 23 of 23" in page
    listing = client.get(reverse("imports:list")).content.decode()
    assert "New Player 1 vs Quackle" in listing


def test_a_step_shows_the_board_after_that_turn(make_member) -> None:
    owner = make_member()
    game = import_(owner, PHONIES)
    page = signed_in(owner).get(reverse("imports:game", args=[game.pk]), {"turn": "1"})
    html = page.content.decode()
    tiles = re.findall(r'<td class="sq tile[^"]*" data-square="(\w+)"', html)
    assert sorted(tiles) == sorted(["D8", "E8", "F8", "G8", "H8", "I8", "J8"])
    assert "Turn 1 of 23" in html
    for odd in ("-5", "999", "x", ""):
        assert (
            signed_in(owner).get(reverse("imports:game", args=[game.pk]), {"turn": odd}).status_code
            == 200
        )


def test_paste_a_record(make_member) -> None:
    client = signed_in(make_member())
    answer = client.post(
        reverse("imports:list"),
        {"record_text": SHORT.decode(), "ruleset": "classic", "lexicon": "enable", "title": "T"},
    )
    assert answer.status_code == 302
    assert ImportedGame.objects.get().title == "T"


@pytest.mark.parametrize(
    ("post", "message"),
    [
        ({"record_text": SHORT.decode() + "oops\n"}, "Cannot read line 5: not a pragma"),
        ({}, "Choose a GCG file, or paste a record."),
        ({"record_text": SHORT.decode(), "ruleset": "chess"}, "Select a valid choice."),
        ({"record_text": "x" * (services.MAX_IMPORT_BYTES + 1)}, "the limit is 256 KiB"),
    ],
)
def test_a_refused_upload_says_why_and_keeps_nothing(make_member, post, message) -> None:
    data = {"ruleset": "classic", "lexicon": "enable", **post}
    answer = signed_in(make_member()).post(reverse("imports:list"), data)
    assert answer.status_code == 400
    assert message in answer.content.decode()
    assert ImportedGame.objects.count() == 0


def test_a_file_too_big_is_refused_before_it_is_read(make_member) -> None:
    big = SimpleUploadedFile("big.gcg", b"#note " + b"x" * services.MAX_IMPORT_BYTES)
    answer = signed_in(make_member()).post(
        reverse("imports:list"), {"record_file": big, "ruleset": "classic", "lexicon": "enable"}
    )
    assert answer.status_code == 400
    assert "the limit is 256 KiB" in answer.content.decode()
    assert ImportedGame.objects.count() == 0


def test_only_the_owner_or_the_link_opens_a_game(make_member) -> None:
    owner, other = make_member(), make_member()
    game = import_(owner)
    url = reverse("imports:game", args=[game.pk])
    assert signed_in(other).get(url).status_code == 404
    assert Client().get(url).status_code == 404
    assert Client().get(reverse("imports:list")).status_code == 302  # to sign in
    for action in ("share", "unshare", "delete"):
        assert (
            signed_in(other).post(reverse(f"imports:{action}", args=[game.pk])).status_code == 404
        )
    owner_client = signed_in(owner)
    assert owner_client.post(reverse("imports:share", args=[game.pk])).status_code == 302
    key = ImportedGame.objects.get().share_key
    assert key
    assert key in owner_client.get(url).content.decode()
    assert signed_in(other).get(url, {"key": key}).status_code == 200
    assert Client().get(url, {"key": key}).status_code == 200
    assert 'id="share"' not in signed_in(other).get(url, {"key": key}).content.decode()
    assert Client().get(url, {"key": key + "x"}).status_code == 404
    owner_client.post(reverse("imports:delete", args=[game.pk]))
    assert Client().get(url, {"key": key}).status_code == 404


def test_the_home_page_links_to_imports_for_members(make_member) -> None:
    assert reverse("imports:list") in signed_in(make_member()).get("/").content.decode()
    assert reverse("imports:list") not in Client().get("/").content.decode()
