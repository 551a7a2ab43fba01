"""docs/PROTOCOL.md and the code say the same thing.

Every JSON example in the document is valid JSON; every client example is a request the
parser accepts; every server frame type and every code the server can send is documented,
with the exact text where the text is fixed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter

from engine import errors
from matches import schemas
from matches.live import consumer as consumers
from matches.live import protocol
from matches.management.commands.protocol_schema import protocol_document

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json"
SERVER_TYPES = {"snapshot", "ack", "error", "turn", "rack", "opened", "seat_taken", "ended",
                "key_rotated", "fixture_changed", "fairness", "rematch",
                "challenge_result"}  # fmt: skip


def _examples() -> list[dict[str, Any]]:
    """Every JSON object in the document's ```json blocks (a block may hold several)."""
    text = DOC.read_text(encoding="utf-8")
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL):
        at = 0
        while at < len(block):
            if block[at].isspace():
                at += 1
                continue
            value, at = decoder.raw_decode(block, at)
            found.append(value)
    return found


def _rule_errors() -> list[type[errors.MoveError]]:
    return [
        error
        for error in vars(errors).values()
        if isinstance(error, type)
        and issubclass(error, errors.MoveError)
        and error is not errors.MoveError  # the abstract base is never raised
    ]


def test_every_example_is_json_with_a_known_type():
    examples = _examples()
    assert len(examples) >= 20
    for example in examples:
        assert example["type"] in {*protocol.REQUEST_TYPES, *SERVER_TYPES}, example


def test_every_client_example_is_accepted_by_the_parser():
    requests = [e for e in _examples() if e["type"] in protocol.REQUEST_TYPES]
    assert {request["type"] for request in requests} == set(protocol.REQUEST_TYPES)
    for request in requests:
        parsed = protocol.parse_request(json.dumps(request))
        assert type(parsed).__name__.lower().startswith(request["type"].replace("_", ""))


def test_every_server_frame_type_has_an_example():
    assert {e["type"] for e in _examples()} >= SERVER_TYPES


def test_every_server_example_is_a_frame_the_schemas_define():
    """Each server frame shown in the document is exactly one the schemas allow (no field
    more, none missing, every type right), by the models and by the published JSON Schema."""
    frames = TypeAdapter(schemas.ServerFrame)
    document = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = Draft202012Validator({**document, "$ref": "#/$defs/ServerFrame"})
    shown = [e for e in _examples() if e["type"] not in protocol.REQUEST_TYPES]
    assert len(shown) >= 12
    for example in shown:
        frames.validate_python(example)
        errors = list(validator.iter_errors(example))
        assert not errors, (example["type"], [error.message for error in errors][:3])


def test_every_client_example_matches_the_published_schema():
    document = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    validator = Draft202012Validator({**document, "$ref": "#/$defs/ClientFrame"})
    for example in (e for e in _examples() if e["type"] in protocol.REQUEST_TYPES):
        assert not list(validator.iter_errors(example)), example


def test_the_published_schema_is_what_the_schemas_generate_now():
    """docs/protocol.schema.json is generated (manage.py protocol_schema); never stale."""
    assert SCHEMA_FILE.read_text(encoding="utf-8") == protocol_document()


@pytest.mark.parametrize(
    ("code", "message"),
    [
        consumers.SIGNED_OUT,
        consumers.MEMBERSHIP_ENDED,
        consumers.SYNC_LIMITED,
        consumers.SIGN_IN_TO_PLAY,
        consumers.SIGN_IN_TO_SIT,
        consumers.RATE_LIMITED,
        consumers.SERVER_ERROR,
        consumers.KEY_REVOKED,
        consumers.NO_SUCH_MATCH,
    ],
)
def test_every_consumer_error_is_documented_word_for_word(code, message):
    text = DOC.read_text(encoding="utf-8")
    assert f"`{code}`" in text
    assert message in text


@pytest.mark.parametrize("error", _rule_errors(), ids=lambda error: error.__name__)
def test_every_rule_refusal_is_documented(error):
    text = DOC.read_text(encoding="utf-8")
    assert f"`{error.code}`" in text
    if error not in {errors.MoveError, errors.MalformedMove, errors.NotAWord}:  # texts vary
        assert error.default_message in text


@pytest.mark.parametrize(
    "frame",
    ["nope", "[]", '{"type": "dance"}', '{"type": "pass", "turn": 0}',
     '{"type": "pass", "id": "x", "turn": 0, "please": 1}', '{"type": "pass", "id": 1, "turn": 0}',
     "x" * (protocol.MAX_FRAME_BYTES + 1)],
)  # fmt: skip
def test_every_frame_error_code_is_documented(frame):
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.parse_request(frame)
    assert f"`{refused.value.code}`" in DOC.read_text(encoding="utf-8")


def test_the_documented_limits_are_the_codes_limits():
    text = DOC.read_text(encoding="utf-8")
    assert f"at most **{protocol.MAX_FRAME_BYTES // 1024} KiB**" in text
    assert f"1–{protocol.MAX_CLIENT_ID_LENGTH} printable" in text
    for code in (
        consumers.CLOSE_FORBIDDEN,
        consumers.CLOSE_NOT_FOUND,
        consumers.CLOSE_TOO_MANY,
        consumers.CLOSE_NEWS_LOST,
        consumers.CLOSE_TOO_MANY_SOCKETS,
        consumers.CLOSE_TOO_MANY_NEW_SOCKETS,
        consumers.CLOSE_SIGNED_OUT,
    ):
        assert f"| {code} |" in text
