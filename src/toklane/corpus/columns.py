"""Shard columns: records to Arrow columns, and one schema for every shard of a job.

The rules (docs/corpus.md, "Columns"):

- Every field of every record is a column: the union of the records' keys, in order of
  first appearance. A record without a field has null there; inside objects, likewise
  (a struct column has the union of the objects' keys).
- A column's type is the one Arrow infers from all its values across the job (integers
  with floats: float64; int32 in one Parquet file and int64 in another: int64; objects:
  a struct of the union of their keys; lists: a list of their items' union).
- A column whose values cannot share one type that Parquet stores (``1`` and ``"x"``,
  ``true`` and ``1``, an integer beyond int64, an integer beyond 2^53 beside floats,
  only empty objects) holds each value's JSON text instead (a string; JSON ``null`` is
  null), in every shard of the job, and its Arrow field carries the metadata
  ``{"toklane": "json"}``. Nothing is dropped or rounded.
- ``input_ids`` and ``num_tokens`` come last.

Shards are written as their splits finish, before later records are seen, so each is
written with the columns and types of its own rows; :func:`unify_shards` then gives every
shard of the job the union schema (:func:`target_schema`), rewriting those that differ.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import chain
from typing import Any

import pyarrow as pa

from .records import IDS, NUM_TOKENS

JSON_META = {b"toklane": b"json"}
_CONVERSION_ERRORS = (pa.ArrowException, OverflowError, ValueError, TypeError)


class Mismatch(Exception):
    """Column ``name`` cannot take the type chosen for it: it must be JSON text."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def is_json(field: pa.Field) -> bool:
    """Whether ``field`` is a column of JSON texts (see the module docstring)."""
    return field.metadata is not None and field.metadata.get(b"toklane") == b"json"


def json_field(name: str) -> pa.Field:
    return pa.field(name, pa.string(), metadata=JSON_META)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def json_texts(values: Iterable[Any]) -> pa.Array:
    """Each value's JSON text (None stays null)."""
    return pa.array([None if v is None else _dump(v) for v in values], type=pa.string())


def storable(kind: pa.DataType) -> bool:
    """Whether Parquet can store ``kind`` (it has no struct without fields)."""
    if pa.types.is_struct(kind):
        return kind.num_fields > 0 and all(storable(kind.field(i).type) for i in range(kind.num_fields))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return storable(kind.value_type)
    if pa.types.is_map(kind):
        return storable(kind.key_type) and storable(kind.item_type)
    return True


def _has_float(kind: pa.DataType) -> bool:
    if pa.types.is_floating(kind):
        return True
    return any(_has_float(kind.field(i).type) for i in range(kind.num_fields))


def _bools_as_numbers(kind: pa.DataType, values: list[Any]) -> bool:
    """Whether Arrow's inference read a JSON ``true``/``false`` among ``values`` as a float of
    ``kind`` (``[0.5, true]`` infers float64 and stores 1.0): the column must be JSON text."""
    if not _has_float(kind):
        return False
    if pa.types.is_floating(kind):
        return any(v is True or v is False for v in values)
    if pa.types.is_struct(kind):
        objects = [v for v in values if isinstance(v, dict)]
        return any(
            _bools_as_numbers(kind.field(i).type, [v.get(kind.field(i).name) for v in objects])
            for i in range(kind.num_fields)
        )
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _bools_as_numbers(kind.value_type, [x for v in values if isinstance(v, list) for x in v])
    return False


def infer(values: list[Any]) -> pa.Array | None:
    """``values`` as an Arrow array of the type Arrow infers, when that type holds every value as
    it is; None otherwise."""
    try:
        array = pa.array(values)
    except _CONVERSION_ERRORS:
        return None
    return None if _bools_as_numbers(array.type, values) else array


def column(values: list[Any]) -> tuple[pa.Array, bool]:
    """``values`` as :func:`infer` gives them where Parquet can store that type, else as JSON
    texts; and whether it is JSON texts."""
    array = infer(values)
    if array is None or not storable(array.type):
        return json_texts(values), True
    return array, False


def records_table(rows: Sequence[dict[str, Any]], keep: Sequence[str] | None = None) -> pa.Table:
    """A table of JSON records: a column per key of any record (only ``keep`` when given), in
    order of first appearance; null where a record lacks the key."""
    names = dict.fromkeys(chain.from_iterable(rows))
    if keep is not None:
        wanted = set(keep)
        names = {n: None for n in names if n in wanted}
    arrays, fields = [], []
    for name in names:
        array, as_json = column([row.get(name) for row in rows])
        arrays.append(array)
        fields.append(json_field(name) if as_json else pa.field(name, array.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields)) if fields else pa.table({})


def _merge(kinds: list[pa.DataType]) -> pa.DataType | None:
    """The one type all ``kinds`` promote to (null for none), or None if there is none."""
    merged = pa.null()
    for kind in kinds:
        if kind == merged:
            continue
        try:
            merged = (
                pa.unify_schemas([pa.schema([("x", merged)]), pa.schema([("x", kind)])], promote_options="permissive")
                .field("x")
                .type
            )
        except _CONVERSION_ERRORS:
            return None
    return merged


def target_schema(schemas: Iterable[pa.Schema], as_json: Iterable[str] = ()) -> pa.Schema:
    """The job's schema over parts with ``schemas``: every column of any part, in order of first
    appearance (``input_ids``, ``num_tokens`` last), each of the type its parts promote to, or JSON
    texts where there is none, where any part holds it as JSON texts and no other part gives it a
    type, or where it is named in ``as_json`` (a part's values did not fit the promoted type)."""
    kinds: dict[str, list[pa.DataType]] = {}
    forced = set(as_json)
    for schema in schemas:
        for field in schema:
            found = kinds.setdefault(field.name, [])
            if not is_json(field):
                found.append(field.type)
    tail = [n for n in (IDS, NUM_TOKENS) if n in kinds]
    fields = []
    for name in [n for n in kinds if n not in tail] + tail:
        merged = _merge(kinds[name]) if kinds[name] else None
        if name in forced or merged is None or not storable(merged):
            fields.append(json_field(name))
        else:
            fields.append(pa.field(name, merged))
    return pa.schema(fields)


def _drops_keys(kind: pa.DataType, target: pa.DataType) -> bool:
    """Whether casting ``kind`` to ``target`` would drop an object key: Arrow casts a struct to one
    without some of its fields by leaving them out (a part whose objects were JSON texts -- their
    key ``a`` held only empty objects -- gave no key to the job's type)."""
    if pa.types.is_struct(kind):
        if not pa.types.is_struct(target):
            return False  # not a struct cast: Arrow refuses it
        names = {target.field(i).name: target.field(i).type for i in range(target.num_fields)}
        return any(
            kind.field(i).name not in names or _drops_keys(kind.field(i).type, names[kind.field(i).name])
            for i in range(kind.num_fields)
        )
    if (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and (
        pa.types.is_list(target) or pa.types.is_large_list(target)
    ):
        return _drops_keys(kind.value_type, target.value_type)
    return False


def _conformed(name: str, data: pa.ChunkedArray, source: pa.Field, field: pa.Field) -> pa.ChunkedArray | pa.Array:
    if is_json(field):
        return data if is_json(source) else json_texts(data.to_pylist())
    try:
        if is_json(source):  # JSON texts back to values (the values of only-empty objects, say)
            data = infer([None if v is None else json.loads(v) for v in data.to_pylist()])
            if data is None:
                raise Mismatch(name)
        if data.type == field.type:
            return data
        if _drops_keys(data.type, field.type):
            raise Mismatch(name)  # the column becomes JSON text: every key kept
        return data.cast(field.type)  # safe casts only: no value changes
    except _CONVERSION_ERRORS:
        raise Mismatch(name) from None


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with exactly ``schema``'s columns (nulls for those it lacks); raises
    :class:`Mismatch` naming a column whose values do not fit its type there."""
    arrays = []
    for field in schema:
        index = table.schema.get_field_index(field.name)
        if index < 0:
            arrays.append(pa.nulls(table.num_rows, field.type))
        else:
            arrays.append(_conformed(field.name, table.column(index), table.schema.field(index), field))
    return pa.Table.from_arrays(arrays, schema=schema.with_metadata(table.schema.metadata))


def same_columns(a: pa.Schema, b: pa.Schema) -> bool:
    """Whether ``a`` and ``b`` have the same columns, types and JSON marks (other metadata aside)."""
    return [(f.name, f.type, is_json(f)) for f in a] == [(f.name, f.type, is_json(f)) for f in b]


def retyped(schema: pa.Schema, target: pa.Schema) -> list[str]:
    """The columns of ``schema`` that ``target`` gives another type (or makes or unmakes JSON text)."""
    out = []
    for field in schema:
        index = target.get_field_index(field.name)
        if index >= 0 and (field.type, is_json(field)) != (target.field(index).type, is_json(target.field(index))):
            out.append(field.name)
    return out


def misfits(table: pa.Table, target: pa.Schema) -> set[str]:
    """The columns of ``table`` whose values do not fit the type ``target`` gives them."""
    bad = set()
    for name in retyped(table.schema, target):
        index = table.schema.get_field_index(name)
        try:
            _conformed(name, table.column(index), table.schema.field(index), target.field(name))
        except Mismatch:
            bad.add(name)
    return bad


def _each(fn: Callable[[int, pa.Schema], Any], parts: list[int], schema: pa.Schema, threads: int) -> list[Any]:
    """``fn(i, schema)`` for each of ``parts``, on up to ``threads`` threads (Arrow's I/O releases the GIL)."""
    if threads > 1 and len(parts) > 1:
        with ThreadPoolExecutor(min(threads, len(parts))) as pool:
            return list(pool.map(fn, parts, [schema] * len(parts)))
    return [fn(i, schema) for i in parts]


def settle(
    schemas: list[pa.Schema],
    check: Callable[[int, pa.Schema], set[str]],
    apply: Callable[[int, pa.Schema], None],
    threads: int = 1,
) -> pa.Schema:
    """The common schema of parts with ``schemas`` (:func:`target_schema`), applied to each part
    whose columns differ. ``check(i, schema)`` names the columns of part ``i`` whose values do not
    fit ``schema`` (:func:`misfits`); those become JSON text and the schema is found again, so
    ``apply(i, schema)`` runs once per part, with the final schema, whatever order the parts
    take (parts are never rewritten under a schema that is later given up)."""
    forced: set[str] = set()
    while True:
        target = target_schema(schemas, forced)
        todo = [i for i, s in enumerate(schemas) if not same_columns(s, target)]
        needs_check = [i for i in todo if retyped(schemas[i], target)]
        bad = set().union(*_each(check, needs_check, target, threads))
        if bad:
            forced |= bad
            continue
        _each(apply, todo, target, threads)
        return target


def unify_tables(tables: list[pa.Table]) -> pa.Table:
    """``tables`` end to end under their common schema (:func:`settle`)."""
    parts = list(tables)

    def apply(i: int, schema: pa.Schema) -> None:
        parts[i] = conform(parts[i], schema)

    settle([t.schema for t in tables], lambda i, schema: misfits(parts[i], schema), apply)
    return parts[0] if len(parts) == 1 else pa.concat_tables(parts)


def describe(schema: pa.Schema, keep: Sequence[str] | None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(the input columns, those holding JSON texts, notes for the user) of a job's shards."""
    names = tuple(f.name for f in schema if f.name not in (IDS, NUM_TOKENS))
    as_json = tuple(f.name for f in schema if is_json(f))
    notes = [
        f"column {name!r} holds values of more than one kind across records (e.g. numbers and text): "
        "the shards hold each value's JSON text"
        for name in as_json
    ]
    missing = [name for name in keep or () if name not in names]
    if missing:
        notes.append(f"no record has the column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}")
    return names, as_json, tuple(notes)
