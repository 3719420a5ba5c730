"""Export endpoints: costs.csv, FOCUS (1.3, or 1.2 on request) as CSV, and as JSON pages.

The CSV files are streamed: the response is a generator over a server-side cursor, so a year
of a large fleet's bill lines goes out in 64 KiB pieces and never sits in memory (see
bench/bench_exports.py for the peak memory of a month against a year). Authorised like every
endpoint (session or API key) and scoped to the request's organization.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import renderers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from apps.accounts.audit import actions as audit_actions
from apps.accounts.audit.services import audit_record
from apps.api.views import OrganizationAPIView
from apps.exports import rows, selectors
from apps.exports.focus_amortized import focus_rows
from apps.exports.focus_columns import DEFAULT_VERSION, VERSIONS, column_names
from apps.exports.serializers import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    ExportQuerySerializer,
    FocusPageQuerySerializer,
    FocusPageSerializer,
    FocusQuerySerializer,
    encode_cursor,
)

_PERIOD = [
    OpenApiParameter(
        "start",
        str,
        description="ISO date or date-time, inclusive (naive = the organization's timezone); "
        "default: the start of the current month.",
    ),
    OpenApiParameter(
        "end", str, description="ISO date or date-time, exclusive; default: now. At most 366 days."
    ),
]
_VERSION = OpenApiParameter(
    "version",
    str,
    enum=list(VERSIONS),
    description=f"FOCUS version of the columns (default {DEFAULT_VERSION}; 1.3 adds "
    "ServiceProviderName and HostProviderName).",
)
_CSV_RESPONSE = {
    (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="UTF-8 CSV, streamed.")
}


class CsvRenderer(renderers.BaseRenderer):
    """Lets a client ask for ``Accept: text/csv``; the rows themselves are streamed by the view,
    so this renders only an error (as one line of text)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> bytes:
        error = data.get("error", {}) if isinstance(data, dict) else {}
        return f"error,{error.get('message', '')}\r\n".encode()


class ExportView(OrganizationAPIView):
    renderer_classes = [renderers.JSONRenderer, CsvRenderer]

    def period(self, serializer_class: type[ExportQuerySerializer]) -> dict[str, Any]:
        # ``format`` is DRF's, not the export's: ``?format=csv`` picks the renderer (the schema
        # documents it), so the strict query serializer must not see it as an unknown field.
        # DRF itself answers an unknown format with a 404 but ignores an empty one; that is a
        # 400 here, as the schema's enum says.
        params = self.request.query_params.dict()
        if params.pop(api_settings.URL_FORMAT_OVERRIDE or "", None) == "":
            raise ValidationError({"format": ["Expected csv or json."]})
        serializer = serializer_class(
            data=params,
            tz=self.tenant.organization.timezone,
            now=timezone.now(),
        )
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def audit_download(self, export: str, period: dict[str, Any]) -> None:
        """Who downloaded which export of what period: an audit entry (the one write of a
        GET, made before the first row is sent; a download is a security-relevant read)."""
        audit_record(
            organization=self.tenant.organization,
            action=audit_actions.EXPORT_DOWNLOADED,
            target_type="export",
            target_label=export,
            details={"export": export, "start": period["start"], "end": period["end"]},
        )

    def csv_response(self, filename: str, body: Iterator[bytes]) -> StreamingHttpResponse:
        response = StreamingHttpResponse(body, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def filename(self, kind: str, period: dict[str, Any]) -> str:
        tz = zoneinfo.ZoneInfo(self.tenant.organization.timezone)
        first, last = (period[key].astimezone(tz).strftime("%Y%m%d") for key in ("start", "end"))
        return f"{self.tenant.organization.slug}-{kind}-{first}-{last}.csv"


class CostsCsvView(ExportView):
    """Bill lines with their allocation: local day, project, team, tags, instance, cost."""

    @extend_schema(
        operation_id="v1_exports_costs_csv_retrieve", parameters=_PERIOD, responses=_CSV_RESPONSE
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        period = self.period(ExportQuerySerializer)
        self.audit_download("costs.csv", period)
        organization = self.tenant.organization
        tz = zoneinfo.ZoneInfo(organization.timezone)
        lines = selectors.export_lines(
            organization=organization, start=period["start"], end=period["end"]
        )
        body = rows.csv_stream(
            rows.COST_COLUMNS,
            (rows.cost_row(row, tz) for row in selectors.streamed(lines)),
        )
        return self.csv_response(self.filename("costs", period), body)


class FocusCsvView(ExportView):
    """FOCUS: every mandatory column of the version, resource, region, pricing and commitment
    columns, tags, GPU columns; prepaid purchases amortized in EffectiveCost."""

    @extend_schema(
        operation_id="v1_exports_focus_csv_retrieve",
        parameters=[*_PERIOD, _VERSION],
        responses=_CSV_RESPONSE,
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        query = self.period(FocusQuerySerializer)
        self.audit_download("focus.csv", query)
        window = (query["start"], query["end"])
        names = column_names(query["version"])
        lines = selectors.export_lines(
            organization=self.tenant.organization, start=window[0], end=window[1], amortized=True
        )
        body = rows.csv_stream(
            names,
            (
                rows.focus_text_row(values, names)
                for row, gpu in selectors.lines_with_gpu_figures(lines, window=window)
                for values in focus_rows(row, gpu, window)
            ),
        )
        return self.csv_response(self.filename("focus", query), body)


class FocusPageView(ExportView):
    """The FOCUS rows as JSON, a page at a time (keyset cursor: follow ``next``)."""

    renderer_classes = [renderers.JSONRenderer]

    @staticmethod
    def page_rows(
        lines: Any,
        cursor: selectors.LineCursor | None,
        page_size: int,
        window: tuple[Any, Any],
    ) -> list[tuple[dict[str, Any], int, dict[str, Any]]]:
        """(line, row index, FOCUS row) from the cursor on: one more than a page when another
        follows. A line gives a row in the window but for a rare purchase that started before
        it and has no day starting in it, so one more line than a page almost always does; the
        lines are one chunk, so their GPU figures take the same few queries whatever the size.
        """
        page: list[tuple[dict[str, Any], int, dict[str, Any]]] = []
        while True:
            batch = list(
                selectors.lines_with_gpu_figures(
                    selectors.after_cursor(lines, cursor)[: page_size + 1],
                    chunk_size=page_size + 1,
                    window=window,
                )
            )
            for row, gpu in batch:
                skip = cursor.row_index if cursor and row["id"] == cursor.line_id else 0
                page += [
                    (row, index, values)
                    for index, values in enumerate(focus_rows(row, gpu, window))
                    if index >= skip
                ]
            if len(page) > page_size or len(batch) <= page_size:
                return page
            last = batch[-1][0]
            cursor = selectors.LineCursor(last["fee_begin_at"], last["id"] + 1)

    @extend_schema(
        parameters=[
            *_PERIOD,
            _VERSION,
            OpenApiParameter("cursor", str, description="The cursor of a `next` link."),
            OpenApiParameter(
                "page_size",
                {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
                description=f"Rows a page (default {DEFAULT_PAGE_SIZE}).",
            ),
        ],
        responses=FocusPageSerializer,
    )
    def get(self, request: Request) -> Response:
        query = self.period(FocusPageQuerySerializer)
        cursor = query.get("cursor")
        if not cursor:
            # The first page names the period; the pages after it continue that download.
            self.audit_download("focus", query)
        page_size = query["page_size"]
        window = (query["start"], query["end"])
        lines = selectors.export_lines(
            organization=self.tenant.organization, start=window[0], end=window[1], amortized=True
        )
        page = self.page_rows(lines, cursor, page_size, window)
        next_url = None
        if len(page) > page_size:
            row, index, _ = page[page_size]
            after = encode_cursor(selectors.LineCursor(row["fee_begin_at"], row["id"], index))
            params = {**request.query_params.dict(), "cursor": after}
            next_url = request.build_absolute_uri(f"{request.path}?{urlencode(params)}")
        names = column_names(query["version"])
        return Response(
            {
                "next": next_url,
                "results": [
                    rows.focus_json_row(values, names) for _, _, values in page[:page_size]
                ],
            }
        )
