"""Planted leaks: the other seat's rack slipped into one channel, in one spelling, to show
that the two-world comparison catches it however it is written.

A plant wraps one of our own builders for the length of one render (a test's monkeypatch,
undone at once), or, for the HTTP answers, rewrites the answer in a middleware the suite
adds (:class:`PlantedLeakMiddleware`, idle unless a plant is active). What it leaks comes
from the world's hidden rows, as a real bug's would: bob's rack now, or each move's rack
before it was made. The three spellings are the ones an audit found to slip past the shape
scanners: a new field (``rack_left`` under each move, or a field or line of its own), the
letters separated by commas (``A, E, I``), and lower case. Each plant's channel is rendered
once without it and once with it, in two worlds that differ only in bob's tiles: alice must
get the same bytes without the plant, and different ones with it.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse

#: The spellings of a leaked rack.
FIELD = "a new field"
COMMAS = "letters separated by commas"
LOWER = "lower case"
SPELLINGS = (FIELD, COMMAS, LOWER)


@dataclass(frozen=True)
class Secrets:
    """What a plant leaks, read from the world's rows before the render: bob's rack now,
    and the rack each turn was made from (by turn number)."""

    rack: str
    racks_before: dict[int, str]


def spelled(rack: str, spelling: str) -> str:
    if spelling == COMMAS:
        return ", ".join(rack)
    if spelling == LOWER:
        return rack.lower()
    return rack


# ---------------------------------------------------------------- leaks in each form


def json_leak(text: str, secrets: Secrets, spelling: str) -> str:
    """A JSON document with the rack in it: ``rack_left`` under each move (the rack that
    move was made from; at the top when there is no move), or the first ``name`` with the
    rack after it, with commas or in lower case."""
    document = json.loads(text)
    if spelling == FIELD:
        moves = [node for node in _nodes(document) if "swap_count" in node]
        for move in moves:
            move["rack_left"] = secrets.racks_before.get(move.get("number", 0), secrets.rack)
        if not moves and isinstance(document, dict):
            document["rack_left"] = secrets.rack
    else:
        named = next((node for node in _nodes(document) if isinstance(node.get("name"), str)), None)
        if named is not None:
            named["name"] += f" ({spelled(secrets.rack, spelling)})"
        elif isinstance(document, dict):
            document["detail"] = spelled(secrets.rack, spelling)
    return json.dumps(document)


def _nodes(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for child in value.values():
            yield from _nodes(child)
    elif isinstance(value, list):
        for child in value:
            yield from _nodes(child)


def html_leak(text: str, secrets: Secrets, spelling: str) -> str:
    """A page with the rack in it: an attribute of its own, or words on the page."""
    if spelling == FIELD:
        planted = f'<span data-rack-left="{secrets.rack}"></span>'
    else:
        planted = f"<p>They hold {spelled(secrets.rack, spelling)}.</p>"
    return text.replace("</body>", planted + "</body>", 1)


def text_leak(text: str, secrets: Secrets, spelling: str) -> str:
    """A text record (GCG) with the rack in it: a pragma line of its own, or a note."""
    if spelling == FIELD:
        return text + f"#rack_left {secrets.rack}\n"
    return text + f"#note the opponent holds {spelled(secrets.rack, spelling)}\n"


def line_leak(secrets: Secrets, spelling: str) -> str:
    """A line of a notice or an event's description with the rack in it."""
    if spelling == FIELD:
        return f"rack_left: {secrets.rack}"
    return f"Your opponent holds {spelled(secrets.rack, spelling)}."


# ---------------------------------------------------------------- the HTTP answers' plant


@dataclass
class _Active:
    path: str
    rewrite: Callable[[str], str]


_ACTIVE: list[_Active] = []


class PlantedLeakMiddleware:
    """Rewrites the answer to one path while a plant is active (the suite adds it to the
    settings' middleware; with no plant active it changes nothing)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        for active in _ACTIVE:
            if request.get_full_path() == active.path and not response.streaming:
                response.content = active.rewrite(response.content.decode()).encode()
        return response


@contextlib.contextmanager
def answers_rewritten(path: str, rewrite: Callable[[str], str]) -> Iterator[None]:
    _ACTIVE.append(_Active(path, rewrite))
    try:
        yield
    finally:
        _ACTIVE.pop()


# ---------------------------------------------------------------- builders wrapped


def install(channel: str, spelling: str, secrets: Secrets, monkeypatch: Any, match_id: int) -> Any:
    """Plant the leak for ``channel``; returns a context to render under (the HTTP plants)
    or None (the builders wrapped with ``monkeypatch``, undone by the caller)."""
    if channel in ("match page",):
        return answers_rewritten(
            f"/matches/{match_id}/", lambda text: html_leak(text, secrets, spelling)
        )
    if channel in ("API answer", "replay", "review"):
        path = {
            "API answer": f"/api/matches/{match_id}/",
            "replay": f"/api/matches/{match_id}/replay?turn=4",
            "review": f"/api/matches/{match_id}/review",
        }[channel]
        return answers_rewritten(path, lambda text: json_leak(text, secrets, spelling))
    if channel == "socket":
        from matches.live import consumer as consumers

        encode = consumers.encode
        monkeypatch.setattr(
            consumers, "encode", lambda frame: json_leak(encode(frame), secrets, spelling)
        )
    elif channel in ("GCG", "data download"):
        from matches import visibility

        gcg_for = visibility.gcg_for

        def leaky_gcg(access: Any) -> str | None:
            text = gcg_for(access)
            return None if text is None else text_leak(text, secrets, spelling)

        monkeypatch.setattr(visibility, "gcg_for", leaky_gcg)
    elif channel == "email":
        from notifications import content, wording

        build = content.build

        def leaky_build(*args: Any, **kwargs: Any) -> Any:
            built = build(*args, **kwargs)
            if isinstance(built, wording.Stale):
                return built
            return built.model_copy(update={"lines": [*built.lines, line_leak(secrets, spelling)]})

        monkeypatch.setattr(content, "build", leaky_build)
    elif channel == "web push":
        from notifications import delivery, schemas

        class LeakyPayload(schemas.PushPayload):
            rack_left: str | None = None

            @classmethod
            def of(cls, built: Any) -> Any:
                payload = schemas.PushPayload.of(built)
                if spelling == FIELD:
                    return cls(**payload.model_dump(), rack_left=secrets.rack)
                body = f"{payload.body} {line_leak(secrets, spelling)}"
                return cls(**{**payload.model_dump(), "body": body})

        monkeypatch.setattr(delivery, "PushPayload", LeakyPayload)
    elif channel == "calendar feed":
        from notifications import calendar

        kickoff_event = calendar.kickoff_event

        def leaky_event(**kwargs: Any) -> Any:
            facts = [*kwargs.pop("facts"), line_leak(secrets, spelling)]
            return kickoff_event(facts=facts, **kwargs)

        monkeypatch.setattr(calendar, "kickoff_event", leaky_event)
    elif channel == "log":
        from matches.visibility import pages

        match_view = pages.match_view
        logger = logging.getLogger("matches.visibility")

        def logged_view(access: Any) -> Any:
            logger.info("match %s shown; %s", access.match.id, line_leak(secrets, spelling))
            return match_view(access)

        monkeypatch.setattr(pages, "match_view", logged_view)
    else:
        raise AssertionError(f"no plant for {channel}")
    return None


def ungated_analysis(monkeypatch: Any) -> None:
    """The replay's analysis for every viewer and before the end: the best play of the
    rack each turn was made from (the other seat's rack, spelled as a play)."""
    from analysis.best import best_play_of
    from matches.schemas import BestPlayView, TileView, TurnAnalysis, WordView
    from matches.visibility import exports

    def analysis(access: Any, turn: int) -> Any:
        if turn >= len(access.turns):
            return None
        made = access.turns[turn]
        best = best_play_of(access.match, access.turns, turn)
        return TurnAnalysis(
            number=made.number,
            position=made.position,
            kind=made.kind,
            score=made.score,
            best=BestPlayView(
                tiles=[TileView(**tile) for tile in best.placement],
                words=[WordView(**word) for word in best.words],
                score=best.score,
                bingo=best.bingo,
            )
            if best.found
            else None,
        )

    monkeypatch.setattr(exports, "turn_analysis", analysis)


#: Every channel a plant is put in, each in every spelling; and the analysis given early.
CHANNELS = (
    "socket",
    "match page",
    "API answer",
    "replay",
    "review",
    "GCG",
    "data download",
    "email",
    "web push",
    "calendar feed",
    "log",
)
PLANTS = [(channel, spelling) for channel in CHANNELS for spelling in SPELLINGS]
ANALYSIS = ("analysis", "the best play of the opponent's rack, before the end")
