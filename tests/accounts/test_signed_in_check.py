"""A socket's session check gives Django's answer, case by case (accounts/sessions.py).

Each case signs a member in with Django's test client, lets the check confirm it once (Django
asked), changes one thing, and compares the check's answer with Django's own
``auth.get_user`` (``user_of_session``) for the same session at that moment. While nothing
has changed, the check is one statement.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Member
from accounts.session_store import SessionStore
from accounts.sessions import SignedInCheck, user_of_session

pytestmark = pytest.mark.django_db


def _signed_in(member: Member) -> str:
    client = Client()
    client.force_login(member)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


def _djangos_answer(key: str, member: Member) -> Member | None:
    user = user_of_session(key)
    return user if user.is_authenticated and user.pk == member.pk else None


def _statements(call: Callable[[], object]) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as queries:
        answer = call()
    return answer, len(queries)


def test_a_confirmed_session_is_one_statement_and_the_member_freshly_read(alice) -> None:
    key = _signed_in(alice)
    check = SignedInCheck(session_key=key, member_id=alice.pk)
    first, asked = _statements(check.member)
    assert first == alice
    assert asked >= 2  # the session, then the member: Django's own check
    again, statements = _statements(check.member)
    assert again == alice
    assert statements == 1
    assert isinstance(again, Member)
    assert again is not first
    assert not hasattr(again, "live_session_data")  # the session's data stays inside
    assert again.__dict__.keys() == first.__dict__.keys()


def _sign_out(key: str, member: Member) -> None:
    Session.objects.filter(session_key=key).delete()


def _expire(key: str, member: Member) -> None:
    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )


def _change_password(key: str, member: Member) -> None:
    member.set_password("a whole new secret 42")
    member.save()


def _sign_out_elsewhere(key: str, member: Member) -> None:
    from accounts.services import account_sign_out_elsewhere

    account_sign_out_elsewhere(member=member)


def _deactivate(key: str, member: Member) -> None:
    Member.objects.filter(pk=member.pk).update(is_active=False)


def _delete_account(key: str, member: Member) -> None:
    from accounts.services import account_delete

    account_delete(member=member)


def _session_now_someone_elses(key: str, member: Member) -> None:
    other = Member.objects.create_user(username="mallory", password="x" * 12)
    store = SessionStore(key)
    store["_auth_user_id"] = str(other.pk)
    store["_auth_user_hash"] = other.get_session_auth_hash()
    store.save()


@pytest.mark.parametrize(
    "change",
    [
        _sign_out,
        _expire,
        _change_password,
        _sign_out_elsewhere,
        _deactivate,
        _delete_account,
        _session_now_someone_elses,
    ],
    ids=lambda change: change.__name__.strip("_").replace("_", " "),
)
def test_after_each_change_that_ends_it_the_check_says_what_django_says(alice, change) -> None:
    key = _signed_in(alice)
    check = SignedInCheck(session_key=key, member_id=alice.pk)
    assert check.member() == alice
    change(key, Member.objects.get(pk=alice.pk))
    assert _djangos_answer(key, alice) is None
    assert check.member() is None
    assert check.member() is None  # and stays so


def test_an_edit_that_keeps_it_signed_in_is_asked_of_django_and_seen(alice) -> None:
    key = _signed_in(alice)
    check = SignedInCheck(session_key=key, member_id=alice.pk)
    check.member()
    Member.objects.filter(pk=alice.pk).update(display_name="Alice of the Dunes")
    assert _djangos_answer(key, alice) == alice
    edited, statements = _statements(check.member)
    assert edited is not None
    assert edited.display_name == "Alice of the Dunes"
    assert statements > 1  # the row changed: Django was asked again
    _, statements = _statements(check.member)
    assert statements == 1


def test_session_data_that_changes_is_asked_of_django(alice) -> None:
    key = _signed_in(alice)
    check = SignedInCheck(session_key=key, member_id=alice.pk)
    check.member()
    store = SessionStore(key)
    store["seen_tour"] = True
    store.save()
    member, statements = _statements(check.member)
    assert member == alice == _djangos_answer(key, alice)
    assert statements > 1


def test_a_backend_not_known_to_read_only_the_row_is_always_asked(alice, settings) -> None:
    other = "django.contrib.auth.backends.AllowAllUsersModelBackend"
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, other]
    key = _signed_in(alice)
    store = SessionStore(key)
    store[BACKEND_SESSION_KEY] = other
    store.save()
    check = SignedInCheck(session_key=key, member_id=alice.pk)
    for _ in range(2):
        answer, statements = _statements(check.member)
        assert answer == _djangos_answer(key, alice)
        assert statements > 1


def test_no_session_and_another_members_session_are_not_signed_in(alice, bob) -> None:
    assert SignedInCheck(session_key=None, member_id=alice.pk).member() is None
    assert SignedInCheck(session_key="", member_id=alice.pk).member() is None
    bobs = _signed_in(bob)
    assert SignedInCheck(session_key=bobs, member_id=alice.pk).member() is None
    assert SignedInCheck(session_key=bobs, member_id=bob.pk).member() == bob
