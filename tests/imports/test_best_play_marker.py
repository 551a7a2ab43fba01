"""An imported game's turn list marks a best play "(as played)" only when it is the play that
was made: another word from the same tiles, scoring the same, is shown as what it is."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from django.urls import reverse

from imports import services, tasks

pytestmark = pytest.mark.django_db


def the_engines_best(owner) -> tuple[str, str]:
    """Where and what the engine plays from DGO on an empty board (its first choice)."""
    probe = services.import_game(
        owner=owner,
        data=b"#player1 ann Ann\n#player2 bo Bo\n>ann: DGO 8G GOD +10 10\n",
        ruleset="classic",
        lexicon="enable",
    )
    tasks.analyse_import(probe.pk)  # as the worker does
    probe.refresh_from_db()
    best = probe.replay["turns"][0]["best"]
    probe.delete()
    return best["position"], best["word"]


def replay_page(owner, record: str) -> str:
    game = services.import_game(
        owner=owner, data=record.encode(), ruleset="classic", lexicon="enable"
    )
    tasks.analyse_import(game.pk)
    client = Client()
    client.force_login(owner)
    return html.unescape(client.get(reverse("imports:game", args=[game.pk])).content.decode())


def test_as_played_only_when_the_best_play_is_the_play_made(make_member) -> None:
    owner = make_member()
    position, word = the_engines_best(owner)
    assert sorted(word) == sorted("DGO")
    other = next(w for w in ("GOD", "DOG") if w != word)  # same tiles, same squares, same score
    header = "#player1 ann Ann\n#player2 bo Bo\n"

    page = replay_page(owner, header + f">ann: DGO {position} {other} +10 10\n")
    line = page[page.index("Best play:") :].split("</p>")[0]
    assert f"<strong>{position} {word}</strong> +10" in line
    assert "(as played)" not in line
    assert "(the same score as the play made)" in line

    page = replay_page(owner, header + f">ann: DGO {position} {word} +10 10\n")
    line = page[page.index("Best play:") :].split("</p>")[0]
    assert "(as played)" in line
