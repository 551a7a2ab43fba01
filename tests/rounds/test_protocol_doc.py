"""docs/PROTOCOL.md's section on Word Skill rounds and rounds/schemas.py say the same thing:
every ``json rounds`` example is a frame the schemas define (no field more or less), every
client and server frame type has one, and every fixed code and text is there."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from rounds.consumer import BAD_FRAME
from rounds.schemas import (
    ROUNDS_REQUEST_TYPES,
    ROUNDS_REQUESTS,
    ROUNDS_SERVER_TYPES,
    RoundsServerFrame,
)
from rounds.services.errors import NotLive, StaleRound

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def _examples() -> list[dict[str, Any]]:
    text = DOC.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```json rounds\n(.*?)```", text, flags=re.DOTALL):
        found += [json.loads(line) for line in block.splitlines() if line.strip()]
    return found


def test_every_rounds_example_is_a_frame_the_schemas_define() -> None:
    examples = _examples()
    assert len(examples) >= 14
    server = TypeAdapter(RoundsServerFrame)
    for example in examples:
        if (
            example["type"] in ROUNDS_REQUEST_TYPES
            and "reason" not in example
            and ("accepted" not in example and "code" not in example)
        ):
            ROUNDS_REQUESTS.validate_python(example)
        else:
            server.validate_python(example)


def test_every_rounds_frame_type_has_an_example() -> None:
    types = {example["type"] for example in _examples()}
    assert types >= set(ROUNDS_REQUEST_TYPES) | set(ROUNDS_SERVER_TYPES)


def test_the_rounds_codes_and_texts_are_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for code, message in (
        (StaleRound.code, StaleRound.MESSAGE),
        (NotLive.code, NotLive.MESSAGE),
        BAD_FRAME,
    ):
        assert f"`{code}`" in text
        assert message in text
