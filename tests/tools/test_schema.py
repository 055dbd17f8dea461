"""The tool-input validator: the first complaint, in words naming the field."""

from __future__ import annotations

from typing import Any

from tools.schema import validate

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1},
        "limit": {"type": "integer", "minimum": 1, "maximum": 10},
        "edits": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {"old": {"type": "string"}},
                "required": ["old"],
            },
        },
    },
    "required": ["path"],
    "additionalProperties": False,
}


def test_a_valid_input_has_no_complaint() -> None:
    assert validate(SCHEMA, {"path": "a", "limit": 3, "edits": [{"old": "x"}]}) is None


def test_a_number_outside_its_bounds_names_the_bound() -> None:
    assert validate(SCHEMA, {"path": "a", "limit": 0}) == "limit must be >= 1, got 0"
    assert validate(SCHEMA, {"path": "a", "limit": 11}) == "limit must be <= 10, got 11"


def test_a_boolean_is_not_a_number() -> None:
    assert validate(SCHEMA, {"path": "a", "limit": True}) == (
        "limit must be of type integer, got bool"
    )


def test_an_object_names_its_missing_and_its_unexpected_fields() -> None:
    assert validate(SCHEMA, {}) == "input is missing the required field 'path'"
    assert validate(SCHEMA, {"path": "a", "mode": 1}) == (
        "input has an unexpected field 'mode' (expected: path, limit, edits)"
    )


def test_an_array_checks_its_length_then_each_item_by_its_place() -> None:
    assert validate(SCHEMA, {"path": "a", "edits": []}) == "edits must have at least 1 item(s)"
    too_many = [{"old": "x"}] * 3
    assert validate(SCHEMA, {"path": "a", "edits": too_many}) == (
        "edits must have at most 2 item(s)"
    )
    assert validate(SCHEMA, {"path": "a", "edits": [{"old": "x"}, {}]}) == (
        "edits[1] is missing the required field 'old'"
    )


def test_an_empty_string_under_min_length_is_refused() -> None:
    assert validate(SCHEMA, {"path": ""}) == "path must not be empty"
