"""The word checker: ``/api/words/?q=`` and ``/words/?q=``.

Its verdict is the board's: each word is also played across an empty board of the ruleset
and the engine's own check (``score_play`` with the list the commit service loads) must
agree. Signed-out callers may use it; bad input is a 400 that says why, in the API's shape
(validated against the served OpenAPI document) and on the page.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Board, NotAWord, PlacedTile, get_ruleset
from engine.scoring import evaluate_play
from lexicon.checker import (
    MAX_QUERY_LENGTH,
    MAX_WORDS,
    QUERY_PATTERN,
    BadWords,
    check_words,
    parse_words,
)
from lexicon.lexicon import get_lexicon
from tests.depth import repetitions
from tests.matches.api_schema import answer_conforms

pytestmark = pytest.mark.django_db

API = "/api/words/"


def api_get(params: dict[str, str]) -> tuple[int, Any]:
    """GET the API signed out; every answer must be what the served schema says."""
    response = Client().get(API, params)
    assert response["Content-Type"].startswith("application/json")
    answer_conforms("GET", API, response.status_code, response.json())
    return response.status_code, response.json()


def board_accepts(word: str, ruleset: str) -> bool:
    """Play ``word`` across the middle row of an empty board, from the first column, and ask
    the engine (as a commit would: the match's list at the ruleset's longest word)."""
    rules = get_ruleset(ruleset)
    if len(word) > rules.board_size:
        return False  # it cannot even be laid down
    centre = rules.board_size // 2
    first = max(0, min(centre - len(word) // 2, rules.board_size - len(word)))
    tiles = [PlacedTile(centre, first + i, letter) for i, letter in enumerate(word)]
    lexicon = get_lexicon("enable", max_len=rules.lexicon_max_len)
    try:
        # The rules' check itself (a play of 8 or more tiles is malformed, not unknown).
        evaluate_play(Board.empty(rules.board_size), tiles, ruleset=rules, lexicon=lexicon)
    except NotAWord:
        return False
    return True


WORDS = ["cat", "QI", "za", "aa", "xyzzy", "quixotic", "abbreviation", "zzz", "oxyphenbutazone"]


@pytest.mark.parametrize("ruleset", ["word-duel", "classic", "outspell", "reword"])
def test_each_verdict_is_the_boards(ruleset) -> None:
    status, answer = api_get({"q": " ".join(WORDS), "ruleset": ruleset})
    assert status == 200
    assert answer["ruleset"] == ruleset
    assert answer["lexicon"] == "enable"
    assert [verdict["word"] for verdict in answer["words"]] == [w.upper() for w in WORDS]
    verdicts = {verdict["word"]: verdict["accepted"] for verdict in answer["words"]}
    for word in WORDS:
        assert verdicts[word.upper()] == board_accepts(word.upper(), ruleset), (word, ruleset)
    assert verdicts["CAT"] is True
    assert verdicts["ZZZ"] is False
    # A 12-letter word: a word on the 15 x 15 boards, too long for outspell's 11 x 11.
    assert verdicts["ABBREVIATION"] is (ruleset != "outspell")


def test_several_words_by_spaces_or_commas_each_once_in_order() -> None:
    status, answer = api_get({"q": " Cat,dog,,  cat  QAT "})
    assert status == 200
    assert answer["words"] == [
        {"word": "CAT", "accepted": True},
        {"word": "DOG", "accepted": True},
        {"word": "QAT", "accepted": True},
    ]
    assert answer["max_length"] == 15


@pytest.mark.parametrize(
    ("params", "code", "says"),
    [
        ({}, "no_words", "Give one or more words"),
        ({"q": " , "}, "no_words", "Give one or more words"),
        ({"q": "cat d0g"}, "not_letters", "'d0g' is not a word"),
        ({"q": "café"}, "not_letters", "letters A-Z"),
        ({"q": "<script>"}, "not_letters", "letters A-Z"),
        ({"q": "a" * 16}, "too_long", "more than 15 letters"),
        ({"q": " ".join(f"{a}{b}" for a in "ABC" for b in "ABCDEFGH")}, "too_many", "20"),
        ({"q": "x" * 401}, "too_long", "at most 400 characters"),
        ({"q": "cat", "ruleset": "scrabble"}, "unknown_ruleset", "word-duel"),
        ({"q": "cat", "lexicon": "../etc/passwd"}, "unknown_lexicon", "enable"),
    ],
)
def test_bad_input_is_a_400_that_says_why(params, code, says) -> None:
    status, answer = api_get(params)
    assert status == 400
    assert answer["code"] == code
    assert says in answer["error"]
    page = Client().get("/words/", params or {"q": ""})
    assert page.status_code == 400
    assert 'role="alert"' in page.content.decode()


def test_a_word_given_twice_counts_twice_and_is_answered_once() -> None:
    words = [chr(65 + i // 26) + chr(65 + i % 26) for i in range(MAX_WORDS // 2)]
    assert parse_words(" ".join(words + words)) == tuple(words)
    with pytest.raises(BadWords, match="at most 20 words"):
        parse_words(" ".join([*words, *words, "CAT"]))


def test_a_repeated_parameter_is_refused() -> None:
    response = Client().get(f"{API}?q=cat&q=dog")
    assert response.status_code == 400
    assert response.json() == {"error": "Give q once.", "code": "repeated"}


@settings(max_examples=repetitions(full=400, quick=100), deadline=None)
@given(
    st.one_of(
        st.text(alphabet="ab ,\t\n\r-é1", max_size=60),
        st.lists(st.text(alphabet="abcXYZ", min_size=0, max_size=17), max_size=23).map(" ".join),
        st.text(alphabet="a ", min_size=380, max_size=420),
    )
)
def test_the_schemas_pattern_says_exactly_what_is_accepted(query: str) -> None:
    """The API's documented pattern (and length) and the checker's rules are one rule."""
    documented = re.fullmatch(QUERY_PATTERN, query) is not None and len(query) <= MAX_QUERY_LENGTH
    try:
        parse_words(query)
    except BadWords:
        accepted = False
    else:
        accepted = True
    assert accepted == documented, query


def test_the_page_works_signed_out_and_shows_each_verdict() -> None:
    client = Client()
    empty = client.get("/words/")
    assert empty.status_code == 200
    assert 'name="q"' in empty.content.decode()
    assert 'id="verdicts"' not in empty.content.decode()
    page = client.get("/words/", {"q": "cat xyzzy", "ruleset": "outspell"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-word="CAT" data-accepted="yes"' in html
    assert 'data-word="XYZZY" data-accepted="no"' in html


def test_the_checker_matches_the_policy_function() -> None:
    check = check_words(parse_words("qat qi"), ruleset="classic")
    assert [(v.word, v.accepted) for v in check.verdicts] == [("QAT", True), ("QI", False)]
    assert check.max_length == 15


def test_asking_writes_nothing(django_assert_num_queries) -> None:
    with django_assert_num_queries(0):
        response = Client().get(API, {"q": "cat"})
    assert response.status_code == 200
