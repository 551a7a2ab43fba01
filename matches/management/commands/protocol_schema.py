"""``manage.py protocol_schema [--check]``: write the websocket protocol's JSON Schema.

``docs/protocol.schema.json`` defines every frame a client may send and every frame the
server sends, generated from ``matches/schemas.py``; ``--check`` exits 1 when the file is
not what the schemas generate now (the tests run it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from matches import schemas

DOCUMENT = Path(settings.BASE_DIR) / "docs" / "protocol.schema.json"

#: The frames, by the name the document gives them.
FRAMES: dict[str, Any] = {
    "PlayRequest": schemas.PlayRequest,
    "SwapRequest": schemas.SwapRequest,
    "PassRequest": schemas.PassRequest,
    "SyncRequest": schemas.SyncRequest,
    "TakeSeatRequest": schemas.TakeSeatRequest,
    "ResignRequest": schemas.ResignRequest,
    "ChallengeRequest": schemas.ChallengeRequest,
    "SnapshotFrame": schemas.SnapshotFrame,
    "ErrorFrame": schemas.ErrorFrame,
    "AcceptedAck": schemas.AcceptedAck,
    "RefusedAck": schemas.RefusedAck,
    "SeatedAck": schemas.SeatedAck,
    "ResignedAck": schemas.ResignedAck,
    "ChallengedAck": schemas.ChallengedAck,
    "TurnFrame": schemas.TurnFrame,
    "ChallengeResultFrame": schemas.ChallengeResultFrame,
    "RackFrame": schemas.RackFrame,
    "OpenedFrame": schemas.OpenedFrame,
    "SeatTakenFrame": schemas.SeatTakenFrame,
    "EndedFrame": schemas.EndedFrame,
    "KeyRotatedFrame": schemas.KeyRotatedFrame,
    "FixtureChangedFrame": schemas.FixtureChangedFrame,
    "FairnessFrame": schemas.FairnessFrame,
    "RematchFrame": schemas.RematchFrame,
}
CLIENT = [
    "PlayRequest",
    "SwapRequest",
    "PassRequest",
    "SyncRequest",
    "TakeSeatRequest",
    "ResignRequest",
    "ChallengeRequest",
]


def protocol_document() -> str:
    """The JSON Schema document, as the file holds it."""
    definitions = schemas.json_schema_of(FRAMES)
    ref = "#/$defs/{}".format
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://wordduel.example/protocol.schema.json",
        "title": "Word Duel websocket protocol",
        "description": (
            "Every frame of /ws/matches/<id>/ (docs/PROTOCOL.md), generated from "
            "matches/schemas.py by `manage.py protocol_schema`. A client frame is one of "
            "$defs/ClientFrame; a server frame one of $defs/ServerFrame."
        ),
        "$defs": {
            **definitions["$defs"],
            "ClientFrame": {"oneOf": [{"$ref": ref(name)} for name in CLIENT]},
            "ServerFrame": {
                "anyOf": [{"$ref": ref(name)} for name in FRAMES if name not in CLIENT]
            },
        },
    }
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = "Write docs/protocol.schema.json from matches/schemas.py (--check: is it current?)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")

    def handle(self, *args: Any, **options: Any) -> None:
        text = protocol_document()
        if options["check"]:
            current = DOCUMENT.read_text(encoding="utf-8") if DOCUMENT.exists() else ""
            if current != text:
                self.stderr.write(f"{DOCUMENT} is stale: run manage.py protocol_schema")
                sys.exit(1)
            self.stdout.write(f"{DOCUMENT} is current")
            return
        DOCUMENT.write_text(text, encoding="utf-8")
        self.stdout.write(f"wrote {DOCUMENT}")
