"""The exports' row formats: costs.csv (the product's own columns) and FOCUS (CSV and JSON).

Every format is a generator over ``selectors.lines_with_gpu_figures``: rows are produced one
chunk of lines at a time and written out as they come, never collected.
"""

from __future__ import annotations

import csv
import io
import zoneinfo
from collections.abc import Iterable, Iterator
from typing import Any

from apps.core.spreadsheet import spreadsheet_row
from apps.exports.focus import (
    GpuFigures,
    charge_period,
    focus_row,
    iso_z,
    json_value,
    line_charge_type,
    merged_tags,
    text_value,
)

#: costs.csv: one bill line (a component of a cloud bill line) with its allocation.
COST_COLUMNS: tuple[str, ...] = (
    "day",
    "charge_period_start",
    "charge_period_end",
    "bill_month",
    "bill_id",
    "project",
    "team",
    "tags",
    "instance_id",
    "instance_name",
    "instance_type",
    "gpu_model",
    "region",
    "zone",
    "charge_type",
    "component",
    "item",
    "list_cost",
    "cost",
    "currency",
)
UNALLOCATED = "Unallocated"


def cost_row(row: dict[str, Any], tz: zoneinfo.ZoneInfo) -> list[str]:
    """A bill line as costs.csv text; ``day`` is the charge period's start in ``tz``."""
    start, end = charge_period(row["fee_begin_at"], row["fee_end_at"])
    tags = merged_tags(row)
    focus = focus_row(row, GpuFigures())
    return [
        start.astimezone(tz).date().isoformat(),
        iso_z(start),
        iso_z(end),
        row["month"],
        row["bill_id"],
        row["project__name"] or UNALLOCATED,
        tags.get("team", ""),
        text_value(tags),
        row["instance__provider_id"] or row["resource_id"] or "",
        row["instance__name"] or row["resource_name"] or "",
        row["instance__instance_type"] or "",
        row["instance__gpu_model"] or "",
        focus["RegionId"] or "",
        focus["AvailabilityZone"] or "",
        line_charge_type(row),
        row["component_name"] or row["component_code"],
        row["item_name"] or row["item_code"],
        text_value(row["list_cost"]),
        text_value(row["cost"]),
        row["currency"],
    ]


def focus_text_row(values: dict[str, Any], names: tuple[str, ...]) -> list[str]:
    """A FOCUS row (``focus.focus_rows``) as CSV text, in the order of a version's ``names``."""
    return [text_value(values[name]) for name in names]


def focus_json_row(values: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: json_value(values[name]) for name in names}


def csv_stream(header: Iterable[str], rows: Iterable[list[str]]) -> Iterator[bytes]:
    """UTF-8 CSV in pieces of about 64 KiB: a write per row would send thousands of tiny
    chunks. No byte-order mark: FOCUS readers expect the first column's name as is.

    Every cell is neutralised against formula injection (apps/core/spreadsheet.py): a name
    starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'``; numbers stay numbers.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(spreadsheet_row(header))
    for row in rows:
        writer.writerow(spreadsheet_row(row))
        if buffer.tell() >= 1 << 16:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode()
