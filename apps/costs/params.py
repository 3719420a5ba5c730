"""The query of the cost report: dimensions, period, granularity, filters; validated strictly.

Every parameter that is not understood is a 400 naming it, so a typo (``?group_by=projet``,
``?projcet=x``) never silently widens a finance report.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import zoneinfo
from collections.abc import Mapping

from rest_framework import serializers

from apps.accounts.models import Currency
from apps.costs.bases import BASES, DEFAULT_BASIS

# Plain dimensions; a tag dimension is ``tag:<key>``.
DIMENSIONS = (
    "project",
    "instance",
    "instance_type",
    "gpu_model",
    "charge_type",
    "region",
    "phase",
)
TAG_PREFIX = "tag:"
GRANULARITIES = ("day", "week", "month")
# The longest period per granularity, inclusive of both ends: a year of days (leap years too)
# keeps a report under ~370 columns; weeks and months may span three years.
MAX_DAYS = {"day": 366, "week": 1096, "month": 1096}
MAX_GROUP_BY = 2
_TAG_KEY = re.compile(r"^[^\s,=]{1,127}$")
_FIXED = {"start", "end", "granularity", "group_by", "currency", "basis"}


@dataclasses.dataclass(frozen=True)
class CostQuery:
    """A validated report query; ``start`` and ``end`` are local days, both included."""

    start: dt.date
    end: dt.date
    granularity: str
    group_by: tuple[str, ...]
    filters: Mapping[str, frozenset[str]]
    currency: str
    tz: zoneinfo.ZoneInfo
    basis: str = DEFAULT_BASIS
    """``billed`` (as invoiced) or ``amortized`` (purchases spread: ``apps.costs.bases``)."""

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    def start_at(self) -> dt.datetime:
        """The first moment of the period (local midnight of ``start``)."""
        return dt.datetime.combine(self.start, dt.time(), tzinfo=self.tz)

    def end_at(self) -> dt.datetime:
        """The first moment after the period (local midnight after ``end``)."""
        return dt.datetime.combine(self.end + dt.timedelta(days=1), dt.time(), tzinfo=self.tz)

    def previous(self) -> CostQuery:
        """The period of equal length just before this one, with the same filters."""
        length = dt.timedelta(days=self.days)
        return dataclasses.replace(self, start=self.start - length, end=self.end - length)


def is_dimension(name: str) -> bool:
    if name.startswith(TAG_PREFIX):
        return bool(_TAG_KEY.match(name[len(TAG_PREFIX) :]))
    return name in DIMENSIONS


def _date(params: Mapping[str, str], name: str, default: dt.date) -> dt.date:
    if name not in params:
        return default
    try:
        return dt.date.fromisoformat(params[name].strip())
    except ValueError:
        raise serializers.ValidationError(
            {name: ["Expected an ISO 8601 date (yyyy-mm-dd) in the organization's timezone."]}
        ) from None


def cost_query_parse(
    params: Mapping[str, str], *, tz: str, currency: str, today: dt.date
) -> CostQuery:
    """Validate the query string of ``GET /costs``.

    ``start``/``end`` default to the first of the current month and today; ``granularity`` to
    ``day``; ``basis`` to ``amortized``; ``group_by`` (comma-separated, at most two) to nothing (one total row). Any other
    parameter names a dimension to filter on (comma-separated values: any of them).
    """
    errors: dict[str, list[str]] = {}
    start = _date(params, "start", today.replace(day=1))
    end = _date(params, "end", today)
    granularity = params.get("granularity", "day")
    if granularity not in GRANULARITIES:
        errors["granularity"] = [f"Expected one of {', '.join(GRANULARITIES)}."]
    if end < start:
        errors["end"] = ["Must not be before start."]
    elif granularity in MAX_DAYS and (end - start).days + 1 > MAX_DAYS[granularity]:
        errors["end"] = [
            f"The period may be at most {MAX_DAYS[granularity]} days with granularity "
            f"{granularity}."
        ]
    group_by: tuple[str, ...] = ()
    if params.get("group_by", "").strip():
        group_by = tuple(part.strip() for part in params["group_by"].split(","))
        unknown = [part for part in group_by if not is_dimension(part)]
        if unknown:
            errors["group_by"] = [
                f"Unknown dimension {unknown[0]!r}: expected {', '.join(DIMENSIONS)} or tag:<key>."
            ]
        elif len(group_by) > MAX_GROUP_BY or len(set(group_by)) != len(group_by):
            errors["group_by"] = [f"At most {MAX_GROUP_BY} distinct dimensions."]
    basis = params.get("basis", DEFAULT_BASIS)
    if basis not in BASES:
        errors["basis"] = [f"Expected one of {', '.join(BASES)}."]
    chosen_currency = params.get("currency", currency)
    if chosen_currency not in Currency.values:
        errors["currency"] = [f"Expected one of {', '.join(Currency.values)}."]
    filters: dict[str, frozenset[str]] = {}
    for name, value in params.items():
        if name in _FIXED:
            continue
        if not is_dimension(name):
            errors[name] = ["Unknown parameter."]
            continue
        values = frozenset(part.strip() for part in value.split(",") if part.strip())
        if not values:
            errors[name] = ["Expected at least one value."]
            continue
        filters[name] = values
    if errors:
        raise serializers.ValidationError(errors)
    return CostQuery(
        start=start,
        end=end,
        granularity=granularity,
        group_by=group_by,
        filters=filters,
        currency=chosen_currency,
        tz=zoneinfo.ZoneInfo(tz),
        basis=basis,
    )
