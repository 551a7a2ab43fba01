"""Random and mutated records at the import: refused with a clear error or imported, never a 500.

Hypothesis sends random bytes, random text and real records (the fixtures and the constructs)
with lines deleted, doubled, swapped, cut short or overwritten, as an uploaded file and as
pasted text, through the real upload view. Every answer is a redirect to the new replay (one
game more, and its page opens) or a 400 page that says what is wrong (no game more); the
service under it raises nothing but its own refusals.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, event, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from imports import services, tasks
from imports.errors import ImportRefused
from imports.models import ImportedGame
from tests.depth import repetitions

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gcg"
SOURCES = [
    *sorted((FIXTURES / "constructs").glob("*.gcg")),
    FIXTURES / "phonies_formed.gcg",
    FIXTURES / "many_challenges.gcg",
]
RECORDS = [path.read_bytes() for path in SOURCES]
LINE_BREAK = b"\n"

noise = st.binary(max_size=60) | st.text(max_size=60).map(lambda t: t.encode("utf-8", "replace"))


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A real record with one to four lines changed: the near misses a real file might hold."""
    lines = draw(st.sampled_from(RECORDS)).split(LINE_BREAK)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["delete", "double", "swap", "overwrite", "splice", "cut"]))
        event(how)
        if how == "delete":
            del lines[at]
        elif how == "double":
            lines.insert(at, lines[at])
        elif how == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif how == "overwrite":
            lines[at] = draw(noise)
        elif how == "splice":
            line = lines[at]
            cut = draw(st.integers(0, len(line)))
            lines[at] = line[:cut] + draw(noise) + line[cut:]
        else:
            lines[at] = lines[at][: draw(st.integers(0, len(lines[at])))]
    return LINE_BREAK.join(lines)


records = st.binary(max_size=400) | st.text(max_size=400).map(str.encode) | mutated()


@pytest.fixture
def client(make_member, settings) -> Client:
    settings.IMPORT_DAILY_LIMIT = 10_000  # one member makes every example's import
    member = make_member()
    client = Client()
    client.force_login(member)
    client.member = member  # type: ignore[attr-defined]
    return client


@hypothesis_settings(
    max_examples=repetitions(full=80, quick=20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=records, as_file=st.booleans())
def test_the_upload_view_answers_every_record(client: Client, data: bytes, as_file: bool) -> None:
    before = ImportedGame.objects.count()
    form = {"ruleset": "classic", "lexicon": "enable"}
    if as_file:
        form["record_file"] = SimpleUploadedFile("fuzz.gcg", data)  # type: ignore[assignment]
    else:
        form["record_text"] = data.decode("utf-8", "replace")
    answer = client.post(reverse("imports:list"), form)
    if answer.status_code == 302:
        event("imported")
        assert ImportedGame.objects.count() == before + 1
        game = ImportedGame.objects.latest("id")
        assert tasks.analyse_import(game.pk) == "done"  # as the worker does, after the request
        assert client.get(answer["Location"]).status_code == 200
    else:
        event("refused")
        assert answer.status_code == 400, answer.status_code
        assert ImportedGame.objects.count() == before
        assert 'class="error"' in answer.content.decode()


@hypothesis_settings(
    max_examples=repetitions(full=80, quick=20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=records | records.map(lambda b: b.decode("iso8859-1")))
def test_the_service_raises_only_its_refusals(make_member, data: bytes | str) -> None:
    owner = make_member()
    refusal: ImportRefused | None = None
    try:
        game = services.import_game(owner=owner, data=data, ruleset="classic", lexicon="enable")
    except ImportRefused as refused:
        refusal = refused
    if refusal is None:
        assert game.owner == owner
    else:
        event(refusal.code)
        assert str(refusal)
        assert not ImportedGame.objects.filter(owner=owner).exists()
