"""HTTP fuzzing: the JSON API from its OpenAPI schema (schemathesis), and the page routes.

* **API** (schemathesis, both positive and negative generation, every operation of the schema
  a Daphne process serves at ``/api/schema/``) over real HTTP to that process, as an
  anonymous visitor with random ids and as a seated member (session cookie and CSRF token)
  on real matches, a members-only one among them. Every answer is JSON (or the GCG text),
  conforms to the schema and is not a 5xx; every refused request (4xx) leaves the database
  exactly as it was; the server's log holds no traceback and no 500.
* **Pages** (hypothesis, in process): random paths made from the real routes, random query
  strings, methods and bodies (form, multipart, JSON, bytes), with and without the CSRF
  token, anonymous, as a member and as an organiser. No answer is a 500 and no exception
  escapes a view; refusals change nothing.

CI profile: ``FUZZ_EXAMPLES`` (default 20) examples per operation, mode and caller for the
API, 10 times that for the pages. Long profile: e.g. ``FUZZ_EXAMPLES=400``.
"""

from __future__ import annotations

import json
import os
import string
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
import requests
import schemathesis
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup

from matches.models import Match
from rounds.services.lifecycle import rounds_open
from tests.matches.test_ws_helpers import seeded_match
from tests.reliability.harness import check_integrity, record_figures

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.timeout(300 + 6 * FUZZ_EXAMPLES),
]


TABLES = (
    "matches_match",
    "matches_seat",
    "matches_turn",
    "matches_commitreceipt",
    "matches_tournament",
    "accounts_member",
    "django_session",
    "rounds_roundsmatch",
    "rounds_roundsplayer",
    "rounds_closedround",
)


def fingerprint() -> dict[str, str]:
    """Everything a request could change: a digest of every row of every table we own."""
    with connection.cursor() as cursor:
        digests = {}
        for table in TABLES:
            digest = "SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), ''))"
            cursor.execute(f"{digest} FROM {table} t")  # our own table names only
            digests[table] = cursor.fetchone()[0]
    return digests


def csrf_token(client: Client) -> str:
    """The CSRF cookie a page with a form sets (sign-in for visitors, any page for members)."""
    client.get("/accounts/sign-in/")
    if django_settings.CSRF_COOKIE_NAME not in client.cookies:
        client.get("/")  # signed in: the sign-in page redirects; the sign-out form is here
    return client.cookies[django_settings.CSRF_COOKIE_NAME].value


# ---------------------------------------------------------------- the API, with schemathesis


#: Schemathesis findings about the schema's precision, not the server's health: each allowed
#: only on the operation where it is expected (docs/RELIABILITY.md); anything else (a 5xx, an
#: answer that violates the schema, an undocumented status, a gap elsewhere) fails the test.
KNOWN_SCHEMA_GAPS = {
    # A replay of a turn not yet played is a documented 400, but the number of turns played
    # is not something a schema can state as a maximum.
    ("anyone", "GET", "/api/matches/{match_id}/replay"): {"Schema-valid request rejected"},
    # A well-formed value is refused once the seat has given one, or the tiles are dealt:
    # a 400 that depends on the match's state, not on the request.
    ("anyone", "POST", "/api/matches/{match_id}/contribute"): {"Schema-valid request rejected"},
    # The member's own requests carry their real session cookie whatever the generated case
    # holds, so a case "without" the cookie is not one. (The visitor's carry none: for them
    # a 200 without the cookie would fail the test.)
    ("member", "POST", "/api/matches/{match_id}/contribute"): {
        "API accepts invalid authentication",
        "Schema-violating request accepted",
    },
    # A rounds request refused for the match's state (joined already, not the host, a round
    # not open): a 400 or 409 that depends on the match, not on the request.
    **{
        ("anyone", "POST", f"/api/rounds/{{match_id}}/{action}"): {"Schema-valid request rejected"}
        for action in ("join", "start", "start-round", "submit")
    },
    # As for contribute: the member's requests carry their real session cookie.
    **{
        ("member", "POST", f"/api/rounds/{{match_id}}/{action}"): {
            "API accepts invalid authentication",
            "Schema-violating request accepted",
        }
        for action in ("join", "start", "start-round", "submit")
    },
}


def test_api_fuzzed_from_its_schema_never_fails_and_refusals_change_nothing(
    start_daphne, make_fixture, alice, bob
) -> None:
    """Schemathesis over real HTTP against a Daphne process serving the ASGI application."""
    web = start_daphne()
    live = seeded_match(make_fixture, alice, bob, seed=51, visibility=Match.Visibility.MEMBERS)
    waiting = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(days=1))
    match_ids = (live.pk, waiting.pk)
    rounds_ids = (
        rounds_open(
            member=alice,
            name="Fuzzed rounds",
            turn_time=timedelta(minutes=3),
            round_time=timedelta(hours=1),
            gramma_ana=True,
        ).pk,
    )
    schema = schemathesis.openapi.from_url(f"{web.http_url}/api/schema/")
    base_url = web.http_url

    anonymous = requests.Session()
    member = requests.Session()
    browser = Client()
    browser.force_login(alice)
    token = csrf_token(browser)
    member.cookies.set(django_settings.SESSION_COOKIE_NAME, browser.cookies["sessionid"].value)
    member.cookies.set(django_settings.CSRF_COOKIE_NAME, token)
    csrf = {"X-CSRFToken": token, "Referer": f"{web.http_url}/"}
    statuses: Counter[int] = Counter()
    gaps: Counter[str] = Counter()
    negative: Counter[str] = Counter()

    def probe(case: Any, session: requests.Session, headers: dict[str, str]) -> None:
        caller = "member" if session is member else "visitor"
        before = fingerprint()
        response = case.call(base_url=base_url, session=session, headers=headers)
        statuses[response.status_code] += 1
        assert response.status_code < 500, f"{response.status_code} {case.method} {case.path}"
        kind = response.headers.get("content-type", [""])[0]  # (schemathesis: lists)
        assert kind.startswith(("application/json", "text/plain")), (case.method, case.path, kind)
        where = (case.method.upper(), case.path)
        allowed = KNOWN_SCHEMA_GAPS.get(("anyone", *where), set()) | KNOWN_SCHEMA_GAPS.get(
            (caller, *where), set()
        )
        try:
            case.validate_response(response, headers=headers)
        except (AssertionError, FailureGroup) as error:
            found = error.exceptions if isinstance(error, FailureGroup) else (error,)
            for failure in found:
                title = getattr(failure, "title", type(failure).__name__)
                assert title in allowed, f"{case.method} {case.path}: {failure}"
                gaps[f"{caller} {case.method} {case.path}: {title}"] += 1
        if 400 <= response.status_code < 500:
            assert fingerprint() == before, f"{case.method} {case.path} refused but changed"

    def fuzz(operation: Any, mode: GenerationMode, session: requests.Session,
             headers: dict[str, str], **parameters: Any) -> None:  # fmt: skip
        strategy = operation.as_strategy(generation_mode=mode, **parameters)

        @hypothesis_settings(
            max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck)
        )
        @given(case=strategy)
        def run(case: Any) -> None:
            if mode is GenerationMode.NEGATIVE:
                negative[f"{operation.method} {operation.path}"] += 1
            probe(case, session, headers)

        try:
            run()
        except Unsatisfiable:
            # Only an operation with nothing to get wrong has no negative case: the list
            # (every parameter optional, any query is a query), the schema itself, and a read
            # whose one parameter, its id, was given (its id is fuzzed unfixed as well).
            assert mode is GenerationMode.NEGATIVE
            fixed = "path_parameters" in parameters
            assert fixed or "{match_id}" not in operation.path, (
                f"no negative case for {operation.path}"
            )

    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 5
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fuzz(operation, mode, anonymous, {})
            if "{match_id}" in operation.path:
                ids = rounds_ids if operation.path.startswith("/api/rounds/") else match_ids
                for match_id in ids:
                    fuzz(operation, mode, member, csrf, path_parameters={"match_id": match_id})
    assert all(
        negative[f"{operation.method} {operation.path}"]
        for operation in operations
        if "{match_id}" in operation.path
    ), negative
    log = web.log_text()
    assert "Traceback" not in log, log[-2000:]
    assert '" 500 ' not in log, log[-2000:]
    check_integrity()
    record_figures(
        "fuzz-api",
        {
            "operations": len(operations),
            "requests": sum(statuses.values()),
            "statuses": statuses,
            "schema_gaps": gaps,
        },
    )


# ---------------------------------------------------------------- the pages, with hypothesis

segments = st.one_of(
    st.sampled_from(["1", "0", "-1", "99999999999999999999", "..", "%2e%2e", "%00", "x" * 300]),
    st.text(alphabet=string.ascii_letters + string.digits + "-_.~%", min_size=1, max_size=12),
    st.text(min_size=1, max_size=6).map(lambda t: t.replace("/", "")).filter(bool),
)
routes = st.sampled_from(
    [
        "",
        "me/matches/",
        "matches/{id}/",
        "matches/{id}/seat/",
        "matches/{id}/key/",
        "matches/{id}/export.gcg",
        "tournaments/{id}/",
        "tournaments/",
        "players/{junk}/",
        "organise/",
        "organise/fixture/",
        "organise/round-robin/",
        "organise/fixtures/",
        "organise/fixtures/{id}/reschedule/",
        "organise/fixtures/{id}/cancel/",
        "organise/fixtures/{id}/substitute/",
        "organise/fixtures/{id}/adjudicate/",
        "organise/tournaments/{id}/postpone/",
        "api/organise/members/",
        "accounts/sign-in/",
        "accounts/sign-up/",
        "accounts/sign-out/",
        "api/matches/",
        "api/matches/{id}/",
        "api/matches/{id}/replay",
        "api/matches/{id}/review",
        "api/matches/{id}/contribute",
        "api/schema/",
        # /healthz answers 503 by design here (no Celery worker or beat runs beside this
        # test; tests/foundation covers it): the one process's own check is fuzzed instead.
        "healthz/web",
        "admin/",
        "admin/login/",
        "{junk}/",
        "matches/{junk}/",
    ]
)
form_fields = st.dictionaries(
    st.sampled_from(
        [
            "position",
            "key",
            "username",
            "password",
            "password1",
            "password2",
            "next",
            "fixture-name",
            "fixture-kickoff_at",
            "fixture-first",
            "fixture-visibility",
            "rr-name",
            "rr-players",
            "rr-interval_days",
            "value",
            "turn",
            "limit",
            "offset",
            "status",
            "kickoff_at",
            "kickoff_from",
            "utc_offset",
            "reason",
            "member",
            "ruling",
            "round_number",
            "hours",
            "back",
            "tournament",
            "q",
        ]
    )
    | st.text(max_size=10),
    st.text(max_size=40)
    | st.sampled_from(["0", "1", "-1", "2", "", "null", "http://evil.example"]),
    max_size=6,
)
requests_ = st.fixed_dictionaries(
    {
        "route": routes,
        "id": st.sampled_from(["{live}", "{waiting}", "{members}"]) | segments,
        "junk": segments,
        "method": st.sampled_from(["GET", "POST", "POST", "HEAD", "PUT", "DELETE", "OPTIONS"]),
        "query": form_fields,
        "body": st.one_of(
            form_fields.map(lambda d: ("form", d)),
            form_fields.map(lambda d: ("multipart", d)),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda c: (
                    st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c, max_size=3)
                ),
                max_leaves=8,
            ).map(lambda v: ("json", v)),
            st.binary(max_size=300).map(lambda b: ("bytes", b)),
        ),
        "who": st.sampled_from(["anonymous", "member", "organiser"]),
        "csrf": st.booleans(),
    }
)


def test_page_routes_fuzzed_never_answer_500_and_refusals_change_nothing(
    organiser, alice, bob, make_fixture
) -> None:
    live = seeded_match(make_fixture, alice, bob, seed=52)
    members = seeded_match(make_fixture, bob, alice, seed=53, visibility=Match.Visibility.MEMBERS)
    waiting = make_fixture(first=alice, kickoff_at=timezone.now() + timedelta(days=1))
    ids = {"{live}": live.pk, "{waiting}": waiting.pk, "{members}": members.pk}
    people = {"anonymous": None, "member": alice, "organiser": organiser}
    statuses: Counter[int] = Counter()

    @hypothesis_settings(
        max_examples=FUZZ_EXAMPLES * 10,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(request=requests_)
    def run(request: dict[str, Any]) -> None:
        ident = str(ids.get(request["id"], request["id"]))
        path = "/" + request["route"].replace("{id}", ident).replace("{junk}", request["junk"])
        client = Client(enforce_csrf_checks=True)  # raises any exception a view lets escape
        if people[request["who"]] is not None:
            client.force_login(people[request["who"]])
        extra: dict[str, Any] = {}
        kind, payload = request["body"]
        if request["csrf"]:
            token = csrf_token(client)
            extra["HTTP_X_CSRFTOKEN"] = token
            if kind in {"form", "multipart"}:
                payload = {**payload, "csrfmiddlewaretoken": token}
        before = fingerprint()
        response = _send(client, request["method"], path, request["query"], kind, payload, extra)
        statuses[response.status_code] += 1
        assert response.status_code < 500, (request, response.status_code)
        if request["method"] in {"POST", "PUT", "DELETE"} and not request["csrf"]:
            assert response.status_code in {403, 404, 405}, (request, response.status_code)
        if response.status_code >= 400:
            assert fingerprint() == before, request

    run()
    check_integrity()
    record_figures("fuzz-pages", {"requests": sum(statuses.values()), "statuses": statuses})


def _send(
    client: Client,
    method: str,
    path: str,
    query: dict[str, str],
    kind: str,
    payload: Any,
    extra: dict[str, Any],
) -> Any:
    """One request through the test client; a query string rides on every method."""
    from urllib.parse import urlencode

    target = f"{path}?{urlencode(query)}" if query else path
    if method in {"GET", "HEAD", "OPTIONS"}:
        return getattr(client, method.lower())(target, **extra)
    if kind == "form":
        data, content_type = urlencode(payload), "application/x-www-form-urlencoded"
    elif kind == "multipart":
        return (
            getattr(client, method.lower())(target, payload, **extra)
            if method == "POST"
            else (getattr(client, method.lower())(target, urlencode(payload), **extra))
        )
    elif kind == "json":
        data, content_type = json.dumps(payload), "application/json"
    else:
        data, content_type = payload, "application/octet-stream"
    return getattr(client, method.lower())(target, data, content_type=content_type, **extra)
