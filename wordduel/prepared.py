"""Querysets compiled to SQL once and run again with new values: the reads of a hot path.

Django compiles a QuerySet to SQL every time it is evaluated. On the commit path the same
few SELECTs (the match locked, its seats locked with their members, the client id's receipt,
the previous turn's hash) were compiled again on every move: a quarter of a move's CPU in
``bench/commit_path.py``. A :class:`PreparedQuery` builds its queryset once per thread, with
marker values where its parameters go, keeps the SQL Django compiled, and runs that SQL again
with the new values, turning rows into instances as Django's own ``ModelIterable`` does (the
same field converters, the same ``select_related`` population, annotations set as
attributes). What is written is still Django's SQL, so what the queryset says
(``select_for_update(of=...)``, joins, ordering, subqueries) is exactly what runs.

Only what this needs is supported: equality parameters, model instances or a flat
``values_list``. A queryset that does not use every marker as a plain parameter is refused
when it is first compiled. :class:`PreparedInsert` and :class:`PreparedUpdate` do the same
for the path's writes: the row inserted, and the changed columns of a row updated.

Inside :func:`writes_together`, those writes are held and sent as one statement (each a
data-modifying ``WITH`` of it): a move's five rows are one round trip and one statement's
work in psycopg and Django, not five. Any other statement on the connection first sends
what is held, so every statement still sees the writes made before it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.db import DatabaseError, connections
from django.db.models import Model, Q, QuerySet
from django.db.models.constants import OnConflict
from django.db.models.query import (  # type: ignore[attr-defined]  # (not in the stubs)
    FlatValuesListIterable,
    ModelIterable,
    get_related_populators,
)
from django.db.models.signals import post_save, pre_save
from django.db.models.sql import InsertQuery, UpdateQuery
from django.db.transaction import TransactionManagementError


@dataclass(frozen=True)
class _Compiled:
    """One thread's compiled form of a prepared query (its compiler is bound to the thread's
    connection, whose converters it applies)."""

    sql: str
    #: For each SQL parameter: the name of the value that fills it, and how the database
    #: wants it, when Django adapts it as it compiles (a datetime, on SQLite).
    slots: tuple[tuple[str, Callable[[Any], Any] | None], ...]
    compiler: Any
    converters: Any
    flat: bool
    locks: bool
    build: Callable[[tuple[Any, ...]], Any] | None


class PreparedQuery:
    """``build(**markers)`` is the queryset; :meth:`fetch` runs it with other values.

    ``markers`` gives each parameter a value of its type, within its column's range (Django
    compiles a value outside it to an empty query), that no other parameter of the query
    has: its places among the compiled SQL's parameters are where the call's values go.
    """

    def __init__(
        self,
        build: Callable[..., QuerySet[Any]],
        *,
        markers: Mapping[str, Any],
        using: str = "default",
    ) -> None:
        self._build = build
        self._markers = dict(markers)
        self._using = using
        self._local = threading.local()

    def fetch(self, **values: Any) -> list[Any]:
        """The rows for ``values`` (model instances, or single values for a flat
        ``values_list``), from the SQL compiled the first time this thread ran it."""
        if values.keys() != self._markers.keys():
            raise TypeError(f"expected the values {sorted(self._markers)}")
        connection = connections[self._using]
        compiled = self._compiled()
        if compiled.locks and not connection.in_atomic_block:
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        with connection.cursor() as cursor:
            params = [
                values[name] if adapt is None else adapt(values[name])
                for name, adapt in compiled.slots
            ]
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if compiled.converters:
            rows = list(compiled.compiler.apply_converters(rows, compiled.converters))
        if compiled.flat:
            return [row[0] for row in rows]
        assert compiled.build is not None
        return [compiled.build(row) for row in rows]

    def first(self, **values: Any) -> Any | None:
        rows = self.fetch(**values)
        return rows[0] if rows else None

    def _compiled(self) -> _Compiled:
        compiled: _Compiled | None = getattr(self._local, "compiled", None)
        if compiled is None:
            compiled = self._local.compiled = self._compile()
        return compiled

    def _compile(self) -> _Compiled:
        queryset = self._build(**self._markers)
        iterable = queryset._iterable_class
        if iterable not in (ModelIterable, FlatValuesListIterable):
            raise TypeError("a prepared query yields model instances or a flat values_list")
        compiler = queryset.query.get_compiler(using=self._using)
        sql, params = compiler.as_sql()
        ops = connections[self._using].ops
        slots = []
        for param in params:
            found = [
                (name, adapt)
                for name, marker in self._markers.items()
                for form, adapt in _forms(marker, ops)
                if form == param
            ]
            if len(found) != 1:
                raise ValueError(f"parameter {param!r} is not exactly one marker")
            slots.append(found[0])
        if {name for name, _ in slots} != self._markers.keys():
            raise ValueError("every marker must be a parameter of the compiled SQL")
        fields = [column for column, _sql, _alias in compiler.select[: compiler.col_count]]
        converters = compiler.get_converters(fields)
        build = None
        if iterable is ModelIterable:
            build = _row_builder(compiler, queryset.db)
        return _Compiled(
            sql=sql,
            slots=tuple(slots),
            compiler=compiler,
            converters=converters,
            flat=iterable is FlatValuesListIterable,
            locks=queryset.query.select_for_update,
            build=build,
        )


def _forms(marker: Any, ops: Any) -> list[tuple[Any, Callable[[Any], Any] | None]]:
    """How a marker may appear among the compiled parameters: as itself, or as the backend
    adapts a date or time while compiling (SQLite's backend turns them into text; PostgreSQL's
    keeps them), with the adapter to apply to the call's values."""
    forms: list[tuple[Any, Callable[[Any], Any] | None]] = [(marker, None)]
    if isinstance(marker, datetime):
        forms.append((ops.adapt_datetimefield_value(marker), ops.adapt_datetimefield_value))
    elif isinstance(marker, date):
        forms.append((ops.adapt_datefield_value(marker), ops.adapt_datefield_value))
    return [forms[0], *(form for form in forms[1:] if form[0] != marker)]


def _row_builder(compiler: Any, db: str) -> Callable[[tuple[Any, ...]], Model]:
    """What ``ModelIterable`` does with each row: the instance, then its select_related."""
    select, klass_info = compiler.select, compiler.klass_info
    model = klass_info["model"]
    start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
    init_list = [column[0].target.attname for column in select[start:end]]
    populators = get_related_populators(klass_info, select, db)
    annotations = list(compiler.annotation_col_map.items())

    def build(row: tuple[Any, ...]) -> Model:
        instance = model.from_db(db, init_list, row[start:end])
        for populator in populators:
            populator.populate(row, instance)
        for name, column in annotations:
            setattr(instance, name, row[column])
        return instance

    return build


def _no_save_signals(model: type[Model]) -> None:
    """A prepared write sends no ``pre_save``/``post_save``: refuse it for a model that has
    receivers, rather than let them miss its rows."""
    if pre_save.has_listeners(model) or post_save.has_listeners(model):
        raise RuntimeError(f"{model.__name__} has save signal receivers: save it with save()")


def _plain(value: Any) -> Any:
    """``value``, unless it is an expression (``F(...)``), whose SQL the compiled statement
    does not hold."""
    if hasattr(value, "resolve_expression"):
        raise ValueError("a prepared write takes plain values, not expressions")
    return value


class _PreparedWrite:
    """What an insert and an update share: the model, its fields, the SQL of this thread."""

    _model: type[Model]
    _using: str
    _fields: list[Any]
    _local: threading.local

    def _sql_and_params(self, instance: Model, *, adding: bool) -> tuple[str, list[Any]]:
        """This thread's SQL (compiled on its first call) and ``instance``'s values for it."""
        _no_save_signals(self._model)
        connection = connections[self._using]
        sql = getattr(self._local, "sql", None)
        if sql is None:
            sql = self._local.sql = self._compile(instance)
        params = [
            field.get_db_prep_save(_plain(field.pre_save(instance, adding)), connection=connection)
            for field in self._fields
        ]
        return sql, params

    def _compile(self, instance: Model) -> str:
        raise NotImplementedError


class PreparedInsert(_PreparedWrite):
    """``Model.save(force_insert=True)`` of one row, with the INSERT compiled once per thread.

    The values are prepared as Django prepares them (each field's ``pre_save`` and
    ``get_db_prep_save``), the new primary key is read back with ``RETURNING``, and the
    instance is marked saved. No ``pre_save``/``post_save`` signal is sent: use it only for a
    model that has no receivers (the commit path's ``Turn`` and ``CommitReceipt``).
    """

    def __init__(
        self, model: type[Model], *, ignore_conflicts: bool = False, using: str = "default"
    ) -> None:
        self._model = model
        self._using = using
        self._ignore_conflicts = ignore_conflicts
        self._fields = [
            field
            for field in model._meta.local_concrete_fields
            if not getattr(field, "generated", False) and field is not model._meta.auto_field
        ]
        self._local = threading.local()

    def insert(self, instance: Model) -> bool | None:
        """Insert ``instance``'s row; False (and ``instance`` left unsaved) if, with
        ``ignore_conflicts``, a unique constraint already held its values
        (``bulk_create(ignore_conflicts=True)``'s ``ON CONFLICT DO NOTHING``).

        Inside :func:`writes_together` the row is held and None returned: the primary key
        is set when the held writes are sent.
        """
        sql, params = self._sql_and_params(instance, adding=True)
        held = _held_writes(self._using)
        if held is not None:
            held.hold(_Held(sql=sql, params=params, instance=instance, inserts=True))
            return None
        with connections[self._using].cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        return _inserted(instance, row[0] if row is not None else None, self._using)

    def _compile(self, instance: Model) -> str:
        on_conflict = OnConflict.IGNORE if self._ignore_conflicts else None
        query = InsertQuery(self._model, on_conflict=on_conflict)
        query.insert_values(self._fields, [instance])
        compiler = query.get_compiler(using=self._using)
        compiler.returning_fields = [self._model._meta.pk]
        [(sql, params)] = compiler.as_sql()
        if len(params) != len(self._fields):  # a value compiled into the SQL (an expression)
            raise ValueError("a prepared insert takes one plain parameter per field")
        return str(sql)


class PreparedUpdate(_PreparedWrite):
    """``instance.save(update_fields=fields)``, with the UPDATE compiled once per thread.

    The values are prepared as Django prepares them; a row that is not there is an error, as
    it is for ``save(update_fields=...)`` (inside :func:`writes_together`, when the held
    writes are sent). No signal is sent (see :class:`PreparedInsert`).
    """

    def __init__(self, model: type[Model], fields: list[str], *, using: str = "default") -> None:
        self._model = model
        self._using = using
        self._fields: list[Any] = [model._meta.get_field(name) for name in fields]
        self._local = threading.local()

    def update(self, instance: Model) -> None:
        sql, params = self._sql_and_params(instance, adding=False)
        params.append(instance.pk)
        held = _held_writes(self._using)
        if held is not None:
            held.hold(_Held(sql=sql, params=params, instance=instance, inserts=False))
            return
        with connections[self._using].cursor() as cursor:
            cursor.execute(sql, params)
            _updated(cursor.rowcount)

    def _compile(self, instance: Model) -> str:
        query = UpdateQuery(self._model)
        query.add_update_fields(
            [(field, None, _plain(getattr(instance, field.attname))) for field in self._fields]
        )
        query.add_q(Q(pk=instance.pk))
        sql, params = query.get_compiler(using=self._using).as_sql()
        if len(params) != len(self._fields) + 1:
            raise ValueError("a prepared update takes one plain parameter per field")
        return str(sql)


def _inserted(instance: Model, pk: Any, using: str) -> bool:
    """Mark ``instance`` saved with its new ``pk``; False if no row was written (a
    conflict ignored)."""
    if pk is None:
        return False
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = using
    return True


def _updated(rowcount: int) -> None:
    if rowcount != 1:
        raise DatabaseError("Save with update_fields did not affect any rows.")


# -- writes sent together -------------------------------------------------------------------


@dataclass(frozen=True)
class _Held:
    """One prepared write waiting to be sent: its SQL, its values, its instance."""

    sql: str
    params: list[Any]
    instance: Model
    inserts: bool

    @property
    def row(self) -> tuple[str, Any]:
        return (self.instance._meta.db_table, self.instance.pk)


@dataclass
class _HeldWrites:
    """The writes held on one connection, and the wrapper that sends them before any other
    statement runs there."""

    using: str
    writes: list[_Held] = field(default_factory=list)

    def hold(self, write: _Held) -> None:
        # One statement may change a row only once: a second update of it sends the first.
        if not write.inserts and any(
            not held.inserts and held.row == write.row for held in self.writes
        ):
            self.send()
        self.writes.append(write)

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        """Django's execute wrapper: what is held goes first."""
        if self.writes:
            self.send()
        return execute(sql, params, many, context)

    def send(self) -> None:
        """Send the held writes (one statement) and mark their instances as written."""
        writes, self.writes = self.writes, []
        if not writes:
            return
        single = len(writes) == 1  # as it is: no WITH around it
        sql = writes[0].sql if single else _together(writes)
        params = writes[0].params if single else [value for w in writes for value in w.params]
        with connections[self.using].cursor() as cursor:
            cursor.execute(sql, params)  # (the wrapper has nothing to send: passes it on)
            if not single:
                answers = list(cursor.fetchone())
            elif writes[0].inserts:
                row = cursor.fetchone()
                answers = [row[0] if row is not None else None]  # None: a conflict ignored
            else:
                answers = [cursor.rowcount]
        pairs = list(zip(writes, answers, strict=True))
        for write, answer in pairs:  # a missing row fails them all, before any is marked
            if not write.inserts:
                _updated(answer)
        for write, answer in pairs:
            if write.inserts:
                _inserted(write.instance, answer, self.using)


def _together(writes: list[_Held]) -> str:
    """One statement of several writes: each a ``WITH`` query, then one row saying, for each,
    the primary key inserted (NULL for a conflict ignored) or the rows updated."""
    parts, answers = [], []
    for number, write in enumerate(writes):
        name = f"w{number}"
        if write.inserts:
            parts.append(f"{name} AS ({write.sql})")
            answers.append(f"(SELECT * FROM {name})")  # noqa: S608 (our names, Django's SQL)
        else:
            parts.append(f"{name} AS ({write.sql} RETURNING 1)")
            answers.append(f"(SELECT count(*) FROM {name})")  # noqa: S608
    return f"WITH {', '.join(parts)} SELECT {', '.join(answers)}"


_holding = threading.local()


def _held_writes(using: str) -> _HeldWrites | None:
    return getattr(_holding, using, None)


@contextmanager
def writes_together(*, using: str = "default") -> Iterator[None]:
    """Hold this thread's prepared writes on ``using`` and send them as one statement: when
    the block ends, or before any other statement runs on the connection.

    Use it inside a transaction (the rows are written there, not at the call). An exception
    out of the block drops what is still held; the transaction it is in must roll back. A
    block inside another joins it. On a database other than PostgreSQL (SQLite, for the
    quick start) nothing is held: a ``WITH`` may not hold writes there, so each goes at once.
    """
    connection = connections[using]
    if not connection.in_atomic_block:
        raise TransactionManagementError("writes_together needs a transaction")
    if _held_writes(using) is not None or connection.vendor != "postgresql":
        yield
        return
    held = _HeldWrites(using)
    setattr(_holding, using, held)
    try:
        with connection.execute_wrapper(held):
            yield
            held.send()
    finally:
        held.writes.clear()
        delattr(_holding, using)
