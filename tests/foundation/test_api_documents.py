"""The API's own documents: ``/api/`` leads to the docs, ``/api/docs`` and ``/api/schema/``
answer, and the schema has each key once (Swagger UI reads it as YAML and refuses a
duplicated key, so the docs page showed nothing but that error)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
import yaml
from django.core.exceptions import BadRequest, PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

pytestmark = pytest.mark.django_db


def _unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    keys = [key for key, _ in pairs]
    duplicated = sorted({key for key in keys if keys.count(key) > 1})
    assert not duplicated, f"duplicated keys {duplicated} in {keys}"
    return dict(pairs)


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses a mapping naming a key twice, as Swagger UI's does."""


def _construct_unique_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict:
    return _unique_keys(
        [
            (loader.construct_object(key, deep=True), loader.construct_object(value, deep=True))
            for key, value in node.value
        ]
    )


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


@pytest.fixture
def errors_logged(caplog) -> list[logging.LogRecord]:
    caplog.set_level(logging.ERROR)
    return caplog.records


def test_the_api_root_leads_to_the_docs(errors_logged) -> None:
    response = Client().get("/api/")
    assert response.status_code == 302
    assert response["Location"] == "/api/docs"
    assert Client().get("/api/", follow=True).status_code == 200
    assert [r for r in errors_logged if r.levelno >= logging.ERROR] == []


def test_the_docs_page_and_the_schema_answer(errors_logged) -> None:
    docs = Client().get("/api/docs")
    assert docs.status_code == 200
    assert docs["Content-Type"].startswith("text/html")
    assert b'"/api/schema/"' in docs.content  # the document the page reads
    schema = Client().get("/api/schema/")
    assert schema.status_code == 200
    assert schema["Content-Type"].startswith("application/json")
    assert [r for r in errors_logged if r.levelno >= logging.ERROR] == []


def test_the_schema_names_every_key_once_as_json_and_as_yaml() -> None:
    text = Client().get("/api/schema/").content.decode()
    document = json.loads(text, object_pairs_hook=_unique_keys)
    # JSON is YAML: read as Swagger UI reads it (js-yaml refuses a duplicated key).
    assert yaml.load(text, Loader=_UniqueKeyLoader) == document  # noqa: S506 (a SafeLoader)
    # Each operation's answers by status: the GCG export's 200 is text, stated once.
    export = document["paths"]["/api/matches/{match_id}/export.gcg"]["get"]["responses"]
    assert sorted(export) == ["200", "404"]
    assert list(export["200"]["content"]) == ["text/plain"]


def _refuses(request: HttpRequest, kind: str) -> HttpResponse:
    raise {"missing": Http404, "forbidden": PermissionDenied, "bad": BadRequest}[kind]("no")


#: A view of the kind ninja's own root view is (it raises Http404), mounted under /api/.
urlpatterns = [path("api/refuses/<str:kind>/", _refuses), path("", include("wordduel.urls"))]


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [("missing", 404, "not_found"), ("forbidden", 403, "forbidden"), ("bad", 400, "bad_request")],
)
def test_djangos_own_refusals_raised_under_the_api_are_json_refusals(
    kind: str, status: int, code: str, errors_logged
) -> None:
    """Not a 500 with a traceback: an Http404 (or 403, 400) a view raises is that refusal."""
    response = Client().get(f"/api/refuses/{kind}/")
    assert response.status_code == status
    assert response.json()["code"] == code
    assert [r for r in errors_logged if r.levelno >= logging.ERROR] == []
