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
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
    #: For each SQL parameter: the name of the value that fills it.
    slots: tuple[str, ...]
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
            cursor.execute(compiled.sql, [values[slot] for slot in compiled.slots])
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
        slots = []
        for param in params:
            names = [name for name, marker in self._markers.items() if marker == param]
            if len(names) != 1:
                raise ValueError(f"parameter {param!r} is not exactly one marker")
            slots.append(names[0])
        if set(slots) != self._markers.keys():
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

    def insert(self, instance: Model) -> bool:
        """Insert ``instance``'s row; False (and ``instance`` left unsaved) if, with
        ``ignore_conflicts``, a unique constraint already held its values
        (``bulk_create(ignore_conflicts=True)``'s ``ON CONFLICT DO NOTHING``)."""
        sql, params = self._sql_and_params(instance, adding=True)
        with connections[self._using].cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
        if row is None:
            return False
        instance.pk = row[0]
        instance._state.adding = False
        instance._state.db = self._using
        return True

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
    it is for ``save(update_fields=...)``. No signal is sent (see :class:`PreparedInsert`).
    """

    def __init__(self, model: type[Model], fields: list[str], *, using: str = "default") -> None:
        self._model = model
        self._using = using
        self._fields: list[Any] = [model._meta.get_field(name) for name in fields]
        self._local = threading.local()

    def update(self, instance: Model) -> None:
        sql, params = self._sql_and_params(instance, adding=False)
        with connections[self._using].cursor() as cursor:
            cursor.execute(sql, [*params, instance.pk])
            if cursor.rowcount != 1:
                raise DatabaseError("Save with update_fields did not affect any rows.")

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
