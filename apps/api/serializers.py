"""Serializer plumbing shared by every app's API: strict input.

Unknown fields and wrong JSON types are errors, not silently dropped or coerced: a finance
script that sends ``{"scope": "write", "nmae": "x"}`` or ``{"name": 5}`` learns so at once.
The schema says so too (apps/api/schema.py): a strict request body has
``additionalProperties: false``, and a decimal is a string of the one pattern stated below.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


def decimal_pattern(field: serializers.DecimalField) -> str:
    """The plain decimals ``field`` takes, as a regular expression (the schema's pattern too):
    ASCII digits, at most ``decimal_places`` after a point, at most the whole digits its
    ``max_digits`` leave (leading zeros aside, as DRF counts them), a minus sign only where
    negative values are allowed."""
    if field.max_whole_digits is None:
        whole = "[0-9]+"
    elif field.max_whole_digits == 0:
        whole = "0+"
    else:
        whole = f"0*[0-9]{{1,{field.max_whole_digits}}}"
    places = "" if field.decimal_places == 0 else f"(\\.[0-9]{{1,{field.decimal_places}}})?"
    sign = "" if _non_negative(field) else "-?"
    return f"^{sign}{whole}{places}$"


def _non_negative(field: serializers.DecimalField) -> bool:
    return field.min_value is not None and field.min_value >= 0


def _decimal_errors(field: serializers.DecimalField, value: Any) -> list[str]:
    """What is wrong with ``value`` as the text of a decimal, before DRF reads it: DRF would
    also take a JSON number (a float: money is not a float), spaces, ``1e3``, ``1_000``,
    ``.5`` or other scripts' digits, none of which the schema admits."""
    if not isinstance(value, str):
        return ['Must be a string, e.g. "1200.50".']
    if _non_negative(field) and value.startswith("-"):
        return [str(field.error_messages["min_value"]).format(min_value=field.min_value)]
    if not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", value):
        return ['Must be a plain decimal number, e.g. "1200.50".']
    return []  # DRF checks the digits and the bounds, with its own messages


class StrictInputMixin:
    # Not a docstring: drf-spectacular would show it as every strict serializer's description.
    # Rejects unknown fields, non-string values for text fields and decimals not written as
    # plain decimal strings.

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            errors: dict[str, list[str]] = {}
            writable = {name for name, field in self.fields.items() if not field.read_only}  # type: ignore[attr-defined]
            for key in data:
                if key not in writable:
                    errors[key] = ["Unknown field."]
            for name, field in self.fields.items():  # type: ignore[attr-defined]
                text_like = isinstance(field, serializers.CharField | serializers.ChoiceField)
                if (
                    name in data
                    and text_like
                    and data[name] is not None
                    and not isinstance(data[name], str)
                ):
                    errors[name] = ["Must be a string."]
                if (
                    name in data
                    and isinstance(field, serializers.DecimalField)
                    and not field.read_only
                    and data[name] is not None
                ):
                    problems = _decimal_errors(field, data[name])
                    if problems:
                        errors[name] = problems
            if errors:
                # With what DRF finds in the other fields, so one answer names every bad field.
                try:
                    super().to_internal_value(data)  # type: ignore[misc]
                except serializers.ValidationError as more:
                    if isinstance(more.detail, dict):
                        errors = {**more.detail, **errors}  # type: ignore[dict-item]
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictSerializer(StrictInputMixin, serializers.Serializer):
    pass


class StrictModelSerializer(StrictInputMixin, serializers.ModelSerializer):
    pass


# A wall-clock time without a date or an offset, as TimeField reads and writes it ("09:00:00",
# "09:00"); the schema's ``format: time`` (RFC 3339) would demand an offset.
LOCAL_TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,6})?)?$"


@extend_schema_field(
    {"type": "string", "pattern": LOCAL_TIME_PATTERN, "example": "09:00:00"},
)
class LocalTimeField(serializers.TimeField):
    """A local time of day (``HH:MM[:SS[.ffffff]]``), taken exactly as the schema states it
    (TimeField alone also takes ``0900`` or an offset it then drops)."""

    def to_internal_value(self, value: Any) -> Any:
        if isinstance(value, str) and not re.match(LOCAL_TIME_PATTERN, value):
            self.fail("invalid", format="hh:mm[:ss[.uuuuuu]]")
        return super().to_internal_value(value)


class StatedCharField(serializers.CharField):
    """A text field whose request schema states limits its validators enforce and
    drf-spectacular cannot see (a function validator's pattern, a list of names): ``schema``
    is merged into the field's request schema (apps/api/schema.py)."""

    def __init__(self, *, schema: dict[str, Any], **kwargs: Any) -> None:
        self.stated_schema = schema
        super().__init__(**kwargs)

    def request_schema(self) -> dict[str, Any]:
        return dict(self.stated_schema)
