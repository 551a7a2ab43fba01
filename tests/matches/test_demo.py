"""``manage.py demo``: a password that can be read off a terminal, a later ``make run`` that
says who the demo members are, and ``--reset-password`` to get in again."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from accounts.models import Member
from tournaments.management.commands import demo

pytestmark = pytest.mark.django_db

LOOK_ALIKES = set("0Oo1lIi")
PRINTED = re.compile(r"Password for all of them: (\S+)")


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("demo", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def printed_password(text: str) -> str:
    found = PRINTED.search(text)
    assert found, text
    return found[1]


def test_generated_passwords_have_no_look_alike_characters() -> None:
    passwords = {demo.new_password() for _ in range(300)}
    assert len(passwords) == 300  # random, not a constant
    for password in passwords:
        assert not LOOK_ALIKES & set(password), password
        assert re.fullmatch(r"[A-Za-z2-9]{4}-[A-Za-z2-9]{4}-[A-Za-z2-9]{4}", password), password
    assert not LOOK_ALIKES & set(demo.LEGIBLE_CHARACTERS)
    # Over 300 passwords every legible character turns up: the alphabet is not cut short.
    assert set("".join(passwords)) - {"-"} == set(demo.LEGIBLE_CHARACTERS)


def test_the_first_run_prints_a_legible_password_that_signs_everyone_in() -> None:
    out, _ = run("--if-empty")
    password = printed_password(out)
    assert not LOOK_ALIKES & set(password)
    for name in demo.DEMO_MEMBERS:
        assert Member.objects.get(username=name).check_password(password), name
    assert demo.RESET_COMMAND in out


def test_a_second_run_names_the_demo_members_and_how_to_get_a_password() -> None:
    first, _ = run("--if-empty")
    password = printed_password(first)
    again, _ = run("--if-empty")
    assert "no demo data added" in again
    assert "Password for all of them" not in again  # it cannot be read back, and is not
    assert password not in again
    assert "Demo members: alice, bob, carol, dave" in again
    assert "Demo organiser: organiser" in again
    assert demo.RESET_COMMAND in again
    assert Member.objects.filter(username__in=demo.DEMO_MEMBERS).count() == 5


def test_a_second_run_among_other_members_does_not_mention_a_demo() -> None:
    Member.objects.create_user(username="zoe", password="pw-correct-horse")
    out, _ = run("--if-empty")
    assert "no demo data added" in out
    assert "Demo members" not in out
    assert demo.RESET_COMMAND not in out


def test_reset_password_gives_every_demo_member_a_new_printed_password() -> None:
    old = printed_password(run("--if-empty")[0])
    out, _ = run("--reset-password")
    new = printed_password(out)
    assert new != old
    assert not LOOK_ALIKES & set(new)
    for name in demo.DEMO_MEMBERS:
        member = Member.objects.get(username=name)
        assert member.check_password(new), name
        assert not member.check_password(old), name
    assert "alice, bob, carol, dave, organiser" in out


def test_reset_password_can_be_given_and_touches_no_one_else() -> None:
    run("--if-empty", "--password", "first-pass-123")
    zoe = Member.objects.create_user(username="zoe", password="pw-correct-horse")
    run("--reset-password", "--password", "second-pass-456")
    assert Member.objects.get(username="bob").check_password("second-pass-456")
    zoe.refresh_from_db()
    assert zoe.check_password("pw-correct-horse")


def test_reset_password_without_demo_members_creates_nothing() -> None:
    out, err = run("--reset-password")
    assert "no demo members" in err
    assert "Password for all of them" not in out
    assert not Member.objects.exists()
