"""The word checker over HTTP: the page ``/words/?q=`` and the API's ``/api/words/?q=``.

Both ask :mod:`lexicon.checker`, which applies the board's own acceptance policy. Anyone may
use them, signed in or not; nothing is stored. Words that cannot be checked (none, too many,
not letters, too long) are a 400 that says why: the API's ``ApiError``, the page's message.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from ninja import Router

from engine import DEFAULT_RULESET
from lexicon.checker import (
    CHECKABLE_RULESETS,
    MAX_QUERY_LENGTH,
    MAX_WORD_LENGTH,
    MAX_WORDS,
    QUERY_PATTERN,
    BadWords,
    WordCheck,
    check_words,
    parse_words,
)
from lexicon.lexicon import ENABLE, available_lexicons
from matches.api import ApiRefusal
from matches.schemas import ApiError, WordCheckAnswer, WordVerdict

router = Router(tags=["words"])


def checked(query: str, *, lexicon: str, ruleset: str) -> WordCheck:
    """The verdicts on the words of ``query`` (or BadWords)."""
    return check_words(parse_words(query), lexicon=lexicon, ruleset=ruleset)


def _one(request: HttpRequest, name: str, default: str) -> str:
    """A query parameter given at most once (a repeated one is refused, not guessed at)."""
    values = request.GET.getlist(name)
    if len(values) > 1:
        raise BadWords("repeated", f"Give {name} once.")
    return values[0] if values else default


def _parameters() -> list[dict[str, object]]:
    """The operation's query parameters as the schema states them: exactly what is accepted
    (the operation reads them itself, so that every refusal keeps its own words)."""

    def query(
        name: str, schema: dict[str, object], description: str, *, required: bool
    ) -> dict[str, object]:
        return {
            "in": "query",
            "name": name,
            "required": required,
            "schema": schema,
            "description": description,
        }

    return [
        query(
            "q",
            {"type": "string", "maxLength": MAX_QUERY_LENGTH, "pattern": QUERY_PATTERN},
            f"Up to {MAX_WORDS} words of letters A-Z (at most {MAX_WORD_LENGTH} each), "
            "separated by spaces, tabs, line breaks or commas.",
            required=True,
        ),
        query(
            "lexicon",
            {"type": "string", "enum": available_lexicons(), "default": ENABLE},
            "The match's word list.",
            required=False,
        ),
        query(
            "ruleset",
            {"type": "string", "enum": list(CHECKABLE_RULESETS), "default": DEFAULT_RULESET},
            "The match's ruleset (its board sets the longest word).",
            required=False,
        ),
    ]


@router.get(
    "/",
    response={200: WordCheckAnswer, 400: ApiError},
    url_name="words",
    summary="Check words",
    openapi_extra={"parameters": _parameters()},
)
def words_check(request: HttpRequest) -> WordCheckAnswer:
    """Whether a match's board would accept each word: the same list, the same test.
    Anyone may ask; nothing is stored."""
    try:
        check = checked(
            _one(request, "q", ""),
            lexicon=_one(request, "lexicon", ENABLE),
            ruleset=_one(request, "ruleset", DEFAULT_RULESET),
        )
    except BadWords as bad:
        raise ApiRefusal(400, bad.code, bad.message) from None
    return WordCheckAnswer(
        lexicon=check.lexicon,
        ruleset=check.ruleset,
        max_length=check.max_length,
        words=[WordVerdict(word=v.word, accepted=v.accepted) for v in check.verdicts],
    )


@require_GET
def words_page(request: HttpRequest) -> HttpResponse:
    """The form, and the verdicts on the words asked about (a 400 with the reason if bad)."""
    query = request.GET.get("q")
    lexicon = request.GET.get("lexicon", ENABLE)
    ruleset = request.GET.get("ruleset", DEFAULT_RULESET)
    context: dict[str, object] = {
        "query": (query or "")[:MAX_QUERY_LENGTH],
        "lexicon": lexicon,
        "ruleset": ruleset,
        "lexicons": available_lexicons(),
        "rulesets": list(CHECKABLE_RULESETS),
        "max_words": MAX_WORDS,
        "max_query": MAX_QUERY_LENGTH,
    }
    status = 200
    if query is not None:
        try:
            context["check"] = checked(query, lexicon=lexicon, ruleset=ruleset)
        except BadWords as bad:
            context["error"] = bad.message
            status = 400
    return render(request, "matches/words.html", context, status=status)
