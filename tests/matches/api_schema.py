"""The API's served OpenAPI document, and a check that an answer is what it promises.

Used by every API test: each JSON answer is validated against the response the generated
schema declares for its operation and status (an undeclared refusal, such as Django's own
405, against the ``ApiError`` component every refusal shares).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import openapi_schema_validator
from django.test import Client


@cache
def served_schema() -> dict[str, Any]:
    response = Client().get("/api/schema/")
    assert response.status_code == 200
    schema: dict[str, Any] = response.json()
    return schema


def _operation(method: str, path: str) -> dict[str, Any] | None:
    for template, operations in served_schema()["paths"].items():
        pattern = re.sub(r"\{[^}]+\}", r"[^/]+", template)
        if re.fullmatch(pattern, path):
            operation: dict[str, Any] | None = operations.get(method.lower())
            return operation
    return None


def answer_conforms(method: str, url: str, status: int, body: Any) -> None:
    """Fail unless ``body`` is what the schema says ``method url`` answers with ``status``."""
    spec = served_schema()
    if urlsplit(url).path == "/api/schema/":
        return  # the document itself
    operation = _operation(method, urlsplit(url).path)
    response = (operation or {}).get("responses", {}).get(str(status))
    if response is not None and "application/json" in response.get("content", {}):
        schema = response["content"]["application/json"]["schema"]
    else:
        assert status >= 400, f"{method} {url} answered {status}, which the schema does not name"
        schema = {"$ref": "#/components/schemas/ApiError"}
    openapi_schema_validator.validate(
        body,
        {**schema, "components": spec["components"]},
        cls=openapi_schema_validator.OAS31Validator,
    )
