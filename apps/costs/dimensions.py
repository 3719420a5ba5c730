"""How each report dimension reads off a bill line, as SQL the database groups and filters by.

A bill line is the unit of money: every dimension gives each line exactly one value (``None``
when it has none, e.g. no project), so grouping never counts a line twice or drops it and a
report's groups always add up to the lines' total.

- ``project``: the line's project slug (the sync allocates it from the line's tags, else its
  instance's project; ``None`` is the unallocated share).
- ``tag:<key>``: the line's own tag value, else its instance's (bills carry only
  cost-allocation tags, so the instance's tags complete them, as the sync does).
- ``instance``: the instance's resource id (``ins-...``); ``instance_type``, ``gpu_model`` and
  ``region``: the instance's. A line without an instance takes its region from its own
  region/zone names.
- ``charge_type``: how the line was billed (spot, subscription, pay-as-you-go), as the bill
  says it (``apps.billing.classify``), not the instance's current charge type, which a
  conversion changes for the past too; the instance's only where the line says nothing.
- ``phase``: not a column; see ``apps.costs.phases``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Expression,
    F,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Coalesce, NullIf

from apps.billing.instances import CITY_REGIONS, region_and_zone
from apps.costs.params import TAG_PREFIX


@dataclasses.dataclass(frozen=True)
class Dimension:
    """The SQL expressions of one dimension and how a grouped row becomes its value."""

    name: str
    expressions: Mapping[str, Expression | F]
    value: Callable[[Mapping[str, Any]], str | None]
    filter: Callable[[frozenset[str]], Q]


def _charge_type() -> Coalesce:
    # What the line says (``BillLine.charge_type``, read from the bill by
    # ``apps.billing.classify``), else its instance's: an adjustment may name no pay mode.
    return Coalesce(
        NullIf(F("charge_type"), Value("")), F("instance__charge_type"), output_field=CharField()
    )


def _tag(key: str) -> Case:
    return Case(
        When(tags__has_key=key, then=KeyTextTransform(key, "tags")),
        default=KeyTextTransform(key, "instance__tags"),
        output_field=CharField(),
    )


def _blank_none(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def _region_value(row: Mapping[str, Any], prefix: str) -> str | None:
    region = row[f"{prefix}instance"]
    if row[f"{prefix}has_instance"]:
        return _blank_none(region)
    return _blank_none(region_and_zone(row[f"{prefix}name"] or "", row[f"{prefix}zone"] or "")[0])


def _region_filter(values: frozenset[str]) -> Q:
    # Lines without an instance name their region in Chinese ("华南地区（广州）", "广州三区").
    cities = [city for city, region in CITY_REGIONS.items() if region in values]
    by_names = Q(pk__in=[])
    for city in cities:
        by_names |= Q(region_name__contains=f"（{city}）") | Q(zone_name__startswith=city)
    return Q(instance__region__in=values) | (Q(instance__isnull=True) & by_names)


def dimension(name: str, index: int) -> Dimension:
    """The dimension ``name`` (validated by ``params``); ``index`` keeps its aliases unique."""
    prefix = f"d{index}_"
    if name.startswith(TAG_PREFIX):
        key = name[len(TAG_PREFIX) :]
        return Dimension(
            name=name,
            expressions={f"{prefix}v": _tag(key)},
            value=lambda row: _blank_none(row[f"{prefix}v"]),
            filter=lambda values: Q(**{f"{prefix}v__in": values}),
        )
    if name == "charge_type":
        return Dimension(
            name=name,
            expressions={f"{prefix}v": _charge_type()},
            value=lambda row: row[f"{prefix}v"],
            filter=lambda values: Q(**{f"{prefix}v__in": values}),
        )
    if name == "region":
        return Dimension(
            name=name,
            expressions={
                f"{prefix}instance": F("instance__region"),
                f"{prefix}has_instance": Case(
                    When(instance__isnull=False, then=Value(True)),
                    default=Value(False),
                    output_field=BooleanField(),
                ),
                f"{prefix}name": F("region_name"),
                f"{prefix}zone": F("zone_name"),
            },
            value=lambda row: _region_value(row, prefix),
            filter=_region_filter,
        )
    column = {
        "project": "project__slug",
        "instance": "instance__provider_id",
        "instance_type": "instance__instance_type",
        "gpu_model": "instance__gpu_model",
    }[name]
    return Dimension(
        name=name,
        expressions={f"{prefix}v": F(column)},
        value=lambda row: _blank_none(row[f"{prefix}v"]),
        filter=lambda values: Q(**{f"{column}__in": values}),
    )


def filtered_lines(lines: QuerySet[Any], filters: Mapping[str, frozenset[str]]) -> QuerySet[Any]:
    """``lines`` (bill lines or their ``CostDay`` sums, which carry the same columns)
    restricted by every filter but ``phase`` (applied after the phase split)."""
    for index, (name, values) in enumerate(sorted(filters.items())):
        if name == "phase":
            continue
        item = dimension(name, 100 + index)
        # Computed dimensions (tags, charge type) are filtered through their annotation.
        lines = lines.alias(**item.expressions).filter(item.filter(values))
    return lines
