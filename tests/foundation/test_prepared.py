"""A prepared query answers what its queryset answers, from SQL compiled once per thread, and
keeps the queryset's row locks (wordduel/prepared.py), against the real PostgreSQL."""

from __future__ import annotations

import threading

import psycopg
import pytest
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError

from matches.models import Match, Seat, Turn
from tests.matches.helpers import opening_then_pass
from wordduel.prepared import PreparedQuery

SEATS = PreparedQuery(
    lambda match_id: (
        Seat.objects.select_for_update(of=("self",))
        .select_related("member")
        .filter(match_id=match_id)
        .order_by("position")
    ),
    markers={"match_id": 2_000_000_105},
)
MATCH = PreparedQuery(
    lambda match_id: Match.objects.filter(pk=match_id), markers={"match_id": 2_000_000_106}
)
HASHES = PreparedQuery(
    lambda match_id, number: (
        Turn.objects.filter(match_id=match_id, number__gte=number)
        .order_by("number")
        .values_list("record_hash", flat=True)
    ),
    markers={"match_id": 2_000_000_107, "number": 2_000_000_108},
)


def fields_of(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


@pytest.mark.django_db(transaction=True)
def test_it_answers_what_the_queryset_answers(live_match, alice, bob) -> None:
    opening_then_pass(live_match, alice, bob, ids=("p1", "p2"))
    [prepared] = MATCH.fetch(match_id=live_match.pk)
    expected = Match.objects.get(pk=live_match.pk)
    assert fields_of(prepared) == fields_of(expected)
    assert isinstance(prepared.game_state, dict)  # the JSON column converted, as Django does
    assert prepared._state.adding is False
    assert prepared._state.db == "default"

    assert HASHES.fetch(match_id=live_match.pk, number=1) == list(
        Turn.objects.filter(match=live_match)
        .order_by("number")
        .values_list("record_hash", flat=True)
    )
    assert HASHES.fetch(match_id=live_match.pk, number=99) == []
    assert MATCH.first(match_id=-42) is None


@pytest.mark.django_db(transaction=True)
def test_locked_seats_come_with_their_members_in_one_statement(
    live_match, alice, bob, django_assert_num_queries
) -> None:
    with transaction.atomic():
        SEATS.fetch(match_id=live_match.pk)  # compiled on this thread's first call
        with django_assert_num_queries(1):
            seats = SEATS.fetch(match_id=live_match.pk)
            assert [seat.position for seat in seats] == [0, 1]
            assert [seat.member.username for seat in seats] == [alice.username, bob.username]
    expected = Seat.objects.filter(match=live_match).order_by("position")
    assert [fields_of(seat) for seat in seats] == [fields_of(seat) for seat in expected]


@pytest.mark.django_db(transaction=True)
def test_the_sql_is_compiled_once_per_thread_and_keeps_the_row_lock(live_match) -> None:
    with transaction.atomic():
        SEATS.fetch(match_id=live_match.pk)
        compiled = SEATS._compiled()
        assert SEATS._compiled() is compiled
        assert "FOR UPDATE OF" in compiled.sql
        # Another connection cannot lock the seats while this transaction holds them.
        settings = connection.get_connection_params()
        refused: list[BaseException] = []

        def try_lock() -> None:
            with psycopg.connect(**settings, autocommit=False) as other:
                try:
                    other.execute(
                        "SELECT id FROM matches_seat WHERE match_id = %s FOR UPDATE NOWAIT",
                        [live_match.pk],
                    )
                except psycopg.errors.LockNotAvailable as error:
                    refused.append(error)

        thread = threading.Thread(target=try_lock)
        thread.start()
        thread.join(timeout=30)
        assert len(refused) == 1

    other_thread: list[object] = []

    def compile_there() -> None:
        try:
            with transaction.atomic():
                SEATS.fetch(match_id=live_match.pk)
                other_thread.append(SEATS._compiled())
        finally:
            connection.close()

    thread = threading.Thread(target=compile_there)
    thread.start()
    thread.join(timeout=30)
    assert other_thread
    assert other_thread[0] is not compiled


@pytest.mark.django_db(transaction=True)
def test_a_lock_outside_a_transaction_and_bad_definitions_are_refused(live_match) -> None:
    with pytest.raises(TransactionManagementError):
        SEATS.fetch(match_id=live_match.pk)
    with pytest.raises(TypeError):
        MATCH.fetch(id=live_match.pk)
    unused = PreparedQuery(
        lambda match_id: Match.objects.filter(pk=3), markers={"match_id": 2_000_000_109}
    )
    with pytest.raises(ValueError, match="parameter 3 is not exactly one marker"):
        unused.fetch(match_id=live_match.pk)  # a constant: its value would be compiled in
    ignored = PreparedQuery(
        lambda match_id: Match.objects.all(), markers={"match_id": 2_000_000_111}
    )
    with pytest.raises(ValueError, match="every marker"):
        ignored.fetch(match_id=live_match.pk)
    not_models = PreparedQuery(
        lambda match_id: Match.objects.filter(pk=match_id).values("pk"),
        markers={"match_id": 2_000_000_110},
    )
    with pytest.raises(TypeError, match="model instances or a flat values_list"):
        not_models.fetch(match_id=live_match.pk)


@pytest.mark.django_db(transaction=True)
def test_a_prepared_insert_writes_what_save_writes(live_match, alice) -> None:
    from matches.models import CommitReceipt
    from wordduel.prepared import PreparedInsert

    insert = PreparedInsert(CommitReceipt)
    response = {"code": "stale_turn", "message": "Your opponent moved.", "nested": [1, None]}
    prepared = CommitReceipt(
        match=live_match, member=alice, client_id="a", accepted=False, response=response
    )
    insert.insert(prepared)
    assert prepared.pk is not None
    assert prepared._state.adding is False
    saved = CommitReceipt.objects.create(
        match=live_match, member=alice, client_id="b", accepted=False, response=response
    )
    read = {r.client_id: r for r in CommitReceipt.objects.filter(pk__in=[prepared.pk, saved.pk])}
    assert set(read) == {"a", "b"}
    mine, djangos = fields_of(read["a"]), fields_of(read["b"])
    for name in ("id", "client_id", "created_at"):
        mine.pop(name), djangos.pop(name)
    assert mine == djangos
    assert read["a"].response == response
    again = CommitReceipt(match=live_match, member=alice, client_id="c", accepted=True, response={})
    insert.insert(again)  # the SQL compiled once serves the next row too
    assert CommitReceipt.objects.get(pk=again.pk).accepted is True


@pytest.mark.django_db(transaction=True)
def test_an_insert_that_ignores_conflicts_leaves_the_first_row(live_match, alice) -> None:
    from matches.models import CommitReceipt
    from wordduel.prepared import PreparedInsert

    insert = PreparedInsert(CommitReceipt, ignore_conflicts=True)
    first = CommitReceipt(match=live_match, member=alice, client_id="k", accepted=True, response={})
    assert insert.insert(first) is True
    assert first.pk is not None
    second = CommitReceipt(
        match=live_match, member=alice, client_id="k", accepted=False, response={"x": 1}
    )
    assert insert.insert(second) is False  # the unique key held: nothing written
    assert second.pk is None
    assert second._state.adding is True
    [row] = CommitReceipt.objects.filter(match=live_match, client_id="k")
    assert (row.pk, row.accepted, row.response) == (first.pk, True, {})


@pytest.mark.django_db(transaction=True)
def test_annotations_come_as_attributes_as_djangos_own(live_match) -> None:
    from django.db.models import Count, Subquery

    counted = PreparedQuery(
        lambda match_id, number: Match.objects.filter(pk=match_id).annotate(
            seats_taken=Count("seats"),
            first_hash=Subquery(
                Turn.objects.filter(match_id=match_id, number=number).values("record_hash")[:1]
            ),
        ),
        markers={"match_id": 2_000_000_109, "number": 2_000_000_110},
    )
    [prepared] = counted.fetch(match_id=live_match.pk, number=1)
    [expected] = Match.objects.filter(pk=live_match.pk).annotate(
        seats_taken=Count("seats"),
        first_hash=Subquery(
            Turn.objects.filter(match_id=live_match.pk, number=1).values("record_hash")[:1]
        ),
    )
    assert (prepared.seats_taken, prepared.first_hash) == (expected.seats_taken, None)
    assert prepared.seats_taken == 2
    assert fields_of(prepared) == fields_of(expected)


@pytest.mark.django_db(transaction=True)
def test_a_prepared_update_writes_only_its_fields_and_refuses_a_missing_row(live_match) -> None:
    from django.db import DatabaseError
    from django.db.models import F

    from wordduel.prepared import PreparedUpdate

    update = PreparedUpdate(Seat, ["rack", "score"])
    seat = Seat.objects.get(match=live_match, position=0)
    other = Seat.objects.get(match=live_match, position=1)
    before = fields_of(seat)
    seat.rack, seat.score, seat.contribution = "QZ", 77, "ff" * 32  # contribution: not updated
    update.update(seat)
    after = fields_of(Seat.objects.get(pk=seat.pk))
    assert (after["rack"], after["score"]) == ("QZ", 77)
    assert {k: v for k, v in after.items() if k not in ("rack", "score")} == {
        k: v for k, v in before.items() if k not in ("rack", "score")
    }
    assert fields_of(Seat.objects.get(pk=other.pk))["score"] == other.score

    gone = Seat(pk=2_000_000_999, rack="", score=0)
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        update.update(gone)
    expression = Seat.objects.get(pk=other.pk)
    expression.score = F("score") + 1
    with pytest.raises(ValueError, match="plain values, not expressions"):
        update.update(expression)
    assert Seat.objects.get(pk=other.pk).score == other.score


@pytest.mark.django_db(transaction=True)
def test_a_prepared_write_refuses_a_model_with_save_receivers(live_match) -> None:
    from django.db.models.signals import post_save

    from wordduel.prepared import PreparedUpdate

    seat = Seat.objects.get(match=live_match, position=0)
    heard: list[int] = []

    def receiver(sender, instance, **kwargs) -> None:
        heard.append(instance.pk)

    post_save.connect(receiver, sender=Seat)
    try:
        with pytest.raises(RuntimeError, match="has save signal receivers"):
            PreparedUpdate(Seat, ["score"]).update(seat)
    finally:
        post_save.disconnect(receiver, sender=Seat)
    PreparedUpdate(Seat, ["score"]).update(seat)  # no receivers again: written
    assert heard == []


# -- writes held and sent together ----------------------------------------------------------


class _Statements:
    """The statements run on the connection, in the order they ran (an execute wrapper,
    outside the held writes' own: a statement is noted once it has run, after the held
    writes it sent first)."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        self.sql.append(sql)
        return result


@pytest.mark.django_db(transaction=True)
def test_writes_held_together_are_one_statement_with_what_each_would_write(
    live_match, alice
) -> None:
    from matches.models import CommitReceipt
    from wordduel.prepared import PreparedInsert, PreparedUpdate, writes_together

    receipts = PreparedInsert(CommitReceipt, ignore_conflicts=True)
    seats = PreparedUpdate(Seat, ["rack", "score"])
    CommitReceipt.objects.create(
        match=live_match, member=alice, client_id="old", accepted=True, response={}
    )
    first, second = Seat.objects.filter(match=live_match).order_by("position")
    new = CommitReceipt(match=live_match, member=alice, client_id="new", accepted=True, response={})
    taken = CommitReceipt(
        match=live_match, member=alice, client_id="old", accepted=False, response={"x": 1}
    )
    statements = _Statements()
    with connection.execute_wrapper(statements), transaction.atomic(), writes_together():
        first.rack, first.score = "ABC", 12
        seats.update(first)
        assert receipts.insert(new) is None  # held: no key yet
        assert new.pk is None
        receipts.insert(taken)
        second.rack, second.score = "XYZ", 30
        seats.update(second)
        assert statements.sql == []  # nothing sent before the block ends
    [sent] = statements.sql
    assert sent.startswith("WITH ")
    assert new.pk is not None
    assert new._state.adding is False
    assert CommitReceipt.objects.get(pk=new.pk).client_id == "new"
    assert taken.pk is None
    assert taken._state.adding is True
    assert CommitReceipt.objects.get(match=live_match, client_id="old").response == {}
    rows = {s.position: (s.rack, s.score) for s in Seat.objects.filter(match=live_match)}
    assert rows == {0: ("ABC", 12), 1: ("XYZ", 30)}


@pytest.mark.django_db(transaction=True)
def test_any_other_statement_first_sends_what_is_held(live_match) -> None:
    from wordduel.prepared import PreparedUpdate, writes_together

    seats = PreparedUpdate(Seat, ["rack", "score"])
    seat = Seat.objects.get(match=live_match, position=0)
    statements = _Statements()
    with connection.execute_wrapper(statements), transaction.atomic(), writes_together():
        seat.score = 41
        seats.update(seat)
        assert Seat.objects.get(pk=seat.pk).score == 41  # the read sees the held write
        assert len(statements.sql) == 2
        assert statements.sql[0].startswith("UPDATE")
        seat.score = 42
        seats.update(seat)  # the same row again: sent alone when the block ends
        seat.score = 43
        seats.update(seat)  # a second update of one row sends the first
    assert [sql.split()[0] for sql in statements.sql] == ["UPDATE", "SELECT", "UPDATE", "UPDATE"]
    assert Seat.objects.get(pk=seat.pk).score == 43


@pytest.mark.django_db(transaction=True)
def test_a_held_write_that_fails_fails_the_block_and_the_transaction(live_match, alice) -> None:
    from django.db import DatabaseError

    from matches.models import CommitReceipt
    from wordduel.prepared import PreparedInsert, PreparedUpdate, writes_together

    receipt = CommitReceipt(
        match=live_match, member=alice, client_id="lost", accepted=True, response={}
    )

    def insert_then_update_a_missing_row() -> None:
        with transaction.atomic(), writes_together():
            PreparedInsert(CommitReceipt).insert(receipt)
            PreparedUpdate(Seat, ["score"]).update(Seat(pk=2_000_000_999, score=1))

    with pytest.raises(DatabaseError, match="did not affect any rows"):
        insert_then_update_a_missing_row()
    assert not CommitReceipt.objects.filter(client_id="lost").exists()
    assert receipt.pk is None

    kept = CommitReceipt(
        match=live_match, member=alice, client_id="dropped", accepted=True, response={}
    )

    def insert_then_fail() -> None:
        with transaction.atomic(), writes_together():
            PreparedInsert(CommitReceipt).insert(kept)
            raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        insert_then_fail()
    assert not CommitReceipt.objects.filter(client_id="dropped").exists()

    # Nothing is left held for the thread: the next write outside a block goes at once.
    again = CommitReceipt(
        match=live_match, member=alice, client_id="after", accepted=True, response={}
    )
    with transaction.atomic():
        assert PreparedInsert(CommitReceipt).insert(again) is True
    assert CommitReceipt.objects.filter(client_id="after").exists()


@pytest.mark.django_db(transaction=True)
def test_writes_together_needs_a_transaction_and_an_inner_block_joins_the_outer(
    live_match,
) -> None:
    from wordduel.prepared import PreparedUpdate, writes_together

    with pytest.raises(TransactionManagementError, match="needs a transaction"), writes_together():
        pass
    seat = Seat.objects.get(match=live_match, position=1)
    statements = _Statements()
    with connection.execute_wrapper(statements), transaction.atomic(), writes_together():
        with writes_together():
            seat.score = 5
            PreparedUpdate(Seat, ["score"]).update(seat)
        assert statements.sql == []  # still held by the outer block
    assert len(statements.sql) == 1
    assert Seat.objects.get(pk=seat.pk).score == 5
