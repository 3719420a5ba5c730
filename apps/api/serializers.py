"""Serializer plumbing shared by every app's API: strict input.

Unknown fields and wrong JSON types are errors, not silently dropped or coerced: a finance
script that sends ``{"scope": "write", "nmae": "x"}`` or ``{"name": 5}`` learns so at once.
"""

from __future__ import annotations

from typing import Any

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
