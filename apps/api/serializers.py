"""Serializer plumbing shared by every app's API: strict input.

Unknown fields and wrong JSON types are errors, not silently dropped or coerced: a finance
script that sends ``{"scope": "write", "nmae": "x"}`` or ``{"name": 5}`` learns so at once.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class StrictInputMixin:
    """Reject unknown fields and non-string values for text fields."""

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
            if errors:
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
