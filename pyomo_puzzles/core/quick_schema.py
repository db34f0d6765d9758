"""A quick check that data conforms to a JSON Schema, for the common case of a valid file.

Importing jsonschema costs about 50 ms, paid by every command and every pipeline job that
reads a data file or a configuration. Nearly every file they read is valid, so this module
answers "valid" for the keywords the schemas here use, in plain Python; anything else
(invalid data, or a keyword it does not know) goes to jsonschema, which then finds and
words the error exactly as before. It must never call valid what jsonschema would reject:
`tests/test_quick_schema.py` holds it to that on the fuzzed files of every family.

Semantics are those of `instances.validator_class`: draft 2020-12, with an integer a whole number
as written (``3``, not ``3.0``) and a number finite.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples",
                         "deprecated", "readOnly", "writeOnly", "format"})
"""Keywords that assert nothing (format is an annotation unless a format checker is given)."""


class Unsupported(Exception):
    """The schema uses a keyword this checker does not know: ask jsonschema."""


def conforms(data: Any, schema: Any) -> bool | None:
    """True if `data` satisfies `schema`, False if not, None if this checker cannot tell."""
    try:
        return _valid(data, schema)
    except (Unsupported, RecursionError, re.error, OverflowError, TypeError, ValueError):
        return None


_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _is(value: Any, kind: str) -> bool:
    check = _TYPES.get(kind)
    if check is None:
        raise Unsupported(kind)
    return check(value)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers, 1 equals 1.0, containers compare deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


@lru_cache(maxsize=256)
def _pattern(text: str) -> re.Pattern:
    return re.compile(text)


def _valid(value: Any, schema: Any) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise Unsupported("schema")
    for keyword, argument in schema.items():
        if keyword in ANNOTATIONS or keyword in ("properties", "additionalProperties"):
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise Unsupported(keyword)
        if not check(value, argument, schema):
            return False
    return _object_fields(value, schema)


def _object_fields(value: Any, schema: dict) -> bool:
    """properties and additionalProperties, which depend on each other."""
    if not isinstance(value, dict) or ("properties" not in schema and "additionalProperties" not in schema):
        return True
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict):
        raise Unsupported("properties")
    for key, item in value.items():
        if key in properties:
            if not _valid(item, properties[key]):
                return False
        elif not _valid(item, extra):
            return False
    return True


def _type(value, kinds, schema) -> bool:
    return any(_is(value, kind) for kind in ([kinds] if isinstance(kinds, str) else kinds))


def _number_bound(compare):
    def check(value, bound, schema) -> bool:
        return not _is(value, "number") or compare(value, bound)
    return check


def _unique(value, wanted, schema) -> bool:
    if not wanted or not isinstance(value, list):
        return True
    return len({_canonical(item) for item in value}) == len(value)


def _canonical(value: Any) -> tuple:
    """Equal under `_equal` gives equal canonical forms (numbers as floats: values that
    only look equal as floats are then called duplicates, and jsonschema decides)."""
    if isinstance(value, bool) or value is None:
        return ("constant", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    raise Unsupported(type(value).__name__)


def _required(value, names, schema) -> bool:
    return not isinstance(value, dict) or all(name in value for name in names)


def _property_names(value, names_schema, schema) -> bool:
    return not isinstance(value, dict) or all(_valid(key, names_schema) for key in value)


def _items(value, item_schema, schema) -> bool:
    if isinstance(item_schema, list):
        raise Unsupported("items as a list")
    return not isinstance(value, list) or all(_valid(item, item_schema) for item in value)


_KEYWORDS = {
    "type": _type,
    "enum": lambda value, options, schema: any(_equal(value, option) for option in options),
    "const": lambda value, constant, schema: _equal(value, constant),
    "minimum": _number_bound(lambda value, bound: value >= bound),
    "maximum": _number_bound(lambda value, bound: value <= bound),
    "exclusiveMinimum": _number_bound(lambda value, bound: value > bound),
    "exclusiveMaximum": _number_bound(lambda value, bound: value < bound),
    "minLength": lambda value, size, schema: not isinstance(value, str) or len(value) >= size,
    "maxLength": lambda value, size, schema: not isinstance(value, str) or len(value) <= size,
    "pattern": lambda value, text, schema: not isinstance(value, str) or _pattern(text).search(value) is not None,
    "minItems": lambda value, size, schema: not isinstance(value, list) or len(value) >= size,
    "maxItems": lambda value, size, schema: not isinstance(value, list) or len(value) <= size,
    "uniqueItems": _unique,
    "items": _items,
    "required": _required,
    "propertyNames": _property_names,
    "minProperties": lambda value, size, schema: not isinstance(value, dict) or len(value) >= size,
    "maxProperties": lambda value, size, schema: not isinstance(value, dict) or len(value) <= size,
    "allOf": lambda value, schemas, schema: all(_valid(value, s) for s in schemas),
    "anyOf": lambda value, schemas, schema: any(_valid(value, s) for s in schemas),
    "oneOf": lambda value, schemas, schema: sum(_valid(value, s) for s in schemas) == 1,
    "not": lambda value, negated, schema: not _valid(value, negated),
}
