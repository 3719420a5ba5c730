"""Query parameters and the typed JSON shape of the exports.

``start``/``end`` are ISO 8601 dates (midnight in the organization's timezone) or date-times
(naive = the organization's timezone); the export holds the lines whose charge period starts in
``[start, end)``. A bad value is a 400 naming the parameter.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import zoneinfo
from typing import Any

from rest_framework import serializers

from apps.analysis.serializers import parse_moment
from apps.api.serializers import StrictSerializer
from apps.exports.focus_columns import (
    ALL_COLUMNS,
    DATETIME,
    DECIMAL,
    DEFAULT_VERSION,
    JSON,
    VERSIONS,
    FocusColumn,
)
from apps.exports.selectors import LineCursor

MAX_DAYS = 366
DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 5000


class ExportQuerySerializer(StrictSerializer):
    """``?start=&end=``: defaults to the current month to date in the organization's timezone."""

    start = serializers.CharField(required=False, help_text="ISO date or date-time, inclusive.")
    end = serializers.CharField(required=False, help_text="ISO date or date-time, exclusive.")

    def __init__(self, *args: Any, tz: str, now: dt.datetime, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tz, self.now = tz, now

    def moment(self, attrs: dict[str, Any], field: str) -> dt.datetime | None:
        if field not in attrs:
            return None
        try:
            return parse_moment(attrs[field], self.tz, field=field)
        except OverflowError as error:  # e.g. 0001-01-01 in a timezone east of UTC
            raise serializers.ValidationError({field: ["Out of the supported range."]}) from error

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        local_now = self.now.astimezone(zoneinfo.ZoneInfo(self.tz))
        month_start = local_now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        start = self.moment(attrs, "start") or month_start.astimezone(dt.UTC)
        end = self.moment(attrs, "end") or self.now
        if end <= start:
            raise serializers.ValidationError({"end": ["Must be after start."]})
        if end - start > dt.timedelta(days=MAX_DAYS):
            raise serializers.ValidationError(
                {"start": [f"The period may be at most {MAX_DAYS} days."]}
            )
        return {**attrs, "start": start, "end": end}


class FocusQuerySerializer(ExportQuerySerializer):
    """The FOCUS exports' query: the period and the specification version."""

    version = serializers.ChoiceField(
        choices=list(VERSIONS),
        required=False,
        default=DEFAULT_VERSION,
        help_text=f"FOCUS version of the columns (default {DEFAULT_VERSION}).",
    )


def encode_cursor(cursor: LineCursor) -> str:
    raw = f"{cursor.fee_begin_at.isoformat()}|{cursor.line_id}|{cursor.row_index}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(text: str) -> LineCursor:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        moment, line_id, row_index = raw.split("|")
        cursor = LineCursor(dt.datetime.fromisoformat(moment), int(line_id), int(row_index))
    except (ValueError, binascii.Error, UnicodeDecodeError) as error:
        raise serializers.ValidationError({"cursor": ["Not a cursor of this export."]}) from error
    if cursor.fee_begin_at.tzinfo is None or cursor.row_index < 0:
        raise serializers.ValidationError({"cursor": ["Not a cursor of this export."]})
    return cursor


class FocusPageQuerySerializer(FocusQuerySerializer):
    cursor = serializers.CharField(required=False, help_text="The `next` link's cursor.")
    page_size = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_PAGE_SIZE, default=DEFAULT_PAGE_SIZE
    )

    def validate_cursor(self, value: str) -> LineCursor:
        return decode_cursor(value)


def _field(column: FocusColumn) -> serializers.Field:
    only = "" if len(column.versions) == len(VERSIONS) else f" FOCUS {min(column.versions)} on."
    common: dict[str, Any] = {
        "allow_null": column.nullable,
        # A column of some versions only is absent from the others' rows.
        "required": len(column.versions) == len(VERSIONS),
        "help_text": f"FOCUS {column.data_type}, {column.feature_level}.{only} "
        f"{column.description}",
    }
    if column.data_type == DECIMAL:
        # Costs have the bills' 8 decimals; an amortized row's quantities 12.
        return serializers.DecimalField(max_digits=34, decimal_places=12, **common)
    if column.data_type == DATETIME:
        return serializers.DateTimeField(**common)
    if column.data_type == JSON:
        return serializers.DictField(child=serializers.CharField(), **common)
    if column.allowed_values:
        return serializers.ChoiceField(choices=list(column.allowed_values), **common)
    return serializers.CharField(**common)


# One typed field per FOCUS column of any version, so the OpenAPI schema states each type.
FocusRowSerializer = type(
    "FocusRowSerializer",
    (serializers.Serializer,),
    {column.name: _field(column) for column in ALL_COLUMNS},
)


class FocusPageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The following page, or null.")
    results = FocusRowSerializer(many=True)
