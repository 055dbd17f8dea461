"""A small JSON-schema validator for tool inputs.

It covers the subset our tool schemas use (type, properties, required, additionalProperties,
enum, items, minimum/maximum, minLength, minItems) and reports the first complaint in words the
model can act on. ``jsonschema`` would do the same but costs ~150 ms of imports at start-up.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def _type_ok(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    for name in names:
        kinds = _TYPES.get(name, (object,))
        # bool is an int in Python but not in JSON
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, kinds):
            return True
    return False


def validate(schema: dict[str, Any], value: Any, where: str = "input") -> str | None:
    """Return None when ``value`` satisfies ``schema``, else a one-line complaint."""
    expected = schema.get("type")
    if expected is not None and not _type_ok(value, expected):
        return f"{where} must be of type {expected}, got {type(value).__name__}"
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        return f"{where} must be one of {allowed}, got {value!r}"
    if isinstance(value, str) and len(value) < schema.get("minLength", 0):
        return f"{where} must not be empty"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(schema, value, where)
    if isinstance(value, dict):
        return _object(schema, value, where)
    if isinstance(value, list):
        return _array(schema, value, where)
    return None


def _number(schema: dict[str, Any], value: float, where: str) -> str | None:
    """The complaint about a number outside ``minimum`` / ``maximum``, or None."""
    if "minimum" in schema and value < schema["minimum"]:
        return f"{where} must be >= {schema['minimum']}, got {value}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"{where} must be <= {schema['maximum']}, got {value}"
    return None


def _object(schema: dict[str, Any], value: dict[str, Any], where: str) -> str | None:
    """The first complaint about an object: a required field missing, a field's value, or a
    field the schema does not allow."""
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return f"{where} is missing the required field {name!r}"
    for name, item in value.items():
        if name in props:
            err = validate(props[name], item, f"{where}.{name}" if where != "input" else name)
            if err:
                return err
        elif schema.get("additionalProperties") is False:
            known = ", ".join(props)
            return f"{where} has an unexpected field {name!r} (expected: {known})"
    return None


def _array(schema: dict[str, Any], value: list[Any], where: str) -> str | None:
    """The first complaint about an array: its length, then its items in order."""
    if len(value) < schema.get("minItems", 0):
        return f"{where} must have at least {schema['minItems']} item(s)"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return f"{where} must have at most {schema['maxItems']} item(s)"
    items = schema.get("items")
    if items:
        for i, item in enumerate(value):
            err = validate(items, item, f"{where}[{i}]")
            if err:
                return err
    return None
