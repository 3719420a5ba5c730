"""``GET /api/v1/costs``: the organization's billed money by period and dimension.

A thin adapter: the query string is validated by ``params``, the figures come from
``selectors`` (bill lines summed in SQL), and the answer is shaped as ``CostReportSerializer``
documents it.
"""

from __future__ import annotations

import zoneinfo
from decimal import Decimal
from typing import Any

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api.conditional import ConditionalGetMixin
from apps.api.views import OrganizationAPIView
from apps.costs import bases, selectors
from apps.costs.params import DIMENSIONS, GRANULARITIES, MAX_DAYS, MAX_GROUP_BY, cost_query_parse
from apps.costs.serializers import CostReportSerializer, money

UNALLOCATED = "Unallocated"
NONE_LABEL = "(none)"
_FILTER_PARAMS = [
    OpenApiParameter(
        name,
        # At least one value: a list of only commas and blanks is a 400 (it would filter on
        # nothing, silently).
        {"type": "string", "pattern": r"[^\s,]"},
        description=f"Only lines whose {name} is one of these (comma-separated).",
    )
    for name in DIMENSIONS
]


def _key_json(dimension: str, value: str | None, labels: dict[str, dict[str, str]]) -> dict:
    if value is None:
        label = UNALLOCATED if dimension == "project" else NONE_LABEL
    else:
        label = labels.get(dimension, {}).get(value, value)
    return {"dimension": dimension, "value": value, "label": label}


class CostReportView(ConditionalGetMixin, OrganizationAPIView):
    """Cost (RealCost), amortized or as billed, by local day, week or month, grouped by up to
    two dimensions."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "start",
                OpenApiTypes.DATE,
                description="First local day (yyyy-mm-dd); default: the 1st.",
            ),
            OpenApiParameter(
                "end",
                OpenApiTypes.DATE,
                description="Last local day, inclusive, not before start; default: today.",
            ),
            OpenApiParameter(
                "granularity",
                str,
                enum=list(GRANULARITIES),
                description="Bucket size (weeks start on Monday). The period may be at most "
                f"{MAX_DAYS['day']} days by day, {MAX_DAYS['week']} by week or month.",
            ),
            OpenApiParameter(
                "group_by",
                str,
                description=f"Up to {MAX_GROUP_BY} comma-separated dimensions of "
                f"{', '.join(DIMENSIONS)} or tag:<key>.",
            ),
            OpenApiParameter(
                "currency", str, enum=["CNY", "USD"], description="Default: the organization's."
            ),
            OpenApiParameter(
                "basis",
                str,
                enum=list(bases.BASES),
                description="billed (as invoiced: a line on the day it was charged) or "
                "amortized (purchases and refunds spread over the period they cover); "
                f"default: {bases.DEFAULT_BASIS}.",
            ),
            *_FILTER_PARAMS,
            OpenApiParameter(
                "tag:<key>",
                {"type": "string", "pattern": r"[^\s,]"},
                description="Filter on a tag, e.g. tag:team=research.",
            ),
        ],
        responses={
            200: CostReportSerializer,
            400: OpenApiResponse(description="A parameter is invalid; the body names it."),
        },
    )
    def get(self, request: Request) -> Response:
        organization = self.tenant.organization
        now = timezone.now()
        query = cost_query_parse(
            request.query_params.dict(),
            tz=organization.timezone,
            currency=organization.currency,
            today=now.astimezone(zoneinfo.ZoneInfo(organization.timezone)).date(),
        )
        # The report, its previous period and (by project or of no groups) the unallocated
        # reasons come from one pass over the daily rollup; the month to date from the bill
        # days.
        report = selectors.cost_report(organization=organization, query=query, now=now)
        unallocated = report.unallocated
        mtd = report.month_to_date
        assert mtd is not None
        previous = query.previous()
        # A 90-day report by project has ~9,000 points: each bucket's date written once.
        buckets = [(bucket, bucket.isoformat()) for bucket in report.buckets]
        zero = money(Decimal(0))
        body: dict[str, Any] = {
            "basis": query.basis,
            "start": query.start,
            "end": query.end,
            "timezone": organization.timezone,
            "granularity": query.granularity,
            "group_by": list(query.group_by),
            "filters": {name: sorted(values) for name, values in sorted(query.filters.items())},
            "currency": query.currency,
            "buckets": report.buckets,
            "total": money(report.total),
            "previous_period": {
                "start": previous.start,
                "end": previous.end,
                "cost": money(report.previous_total),
            },
            "unallocated": {
                "cost": money(unallocated.cost),
                "share_pct": round(float(unallocated.cost / report.total * 100), 2)
                if report.total
                else None,
                "by_reason": [
                    {"reason": reason.value, "reason_label": reason.label, "cost": money(cost)}
                    for reason, cost in unallocated.by_reason.items()
                ],
            },
            "month_to_date": {
                "month": mtd.month,
                "month_start": mtd.month_start,
                "month_end": mtd.month_end,
                "today": mtd.today,
                "cost": money(mtd.spent),
                "cost_before_today": money(mtd.spent_before_today),
                "run_rate_daily": money(mtd.run_rate_daily),
                "run_rate_days": mtd.run_rate_days,
                "days_left": mtd.days_left,
                "known_purchases": money(mtd.known_purchases),
                "forecast": money(mtd.forecast),
                "method": mtd.method,
            },
            "groups": [
                {
                    "keys": [
                        _key_json(name, value, report.labels)
                        for name, value in zip(query.group_by, group.key, strict=True)
                    ],
                    "cost": money(group.total),
                    "previous_cost": money(group.previous_total),
                    "series": [
                        {
                            "period_start": label,
                            "cost": money(group.series[bucket]) if bucket in group.series else zero,
                        }
                        for bucket, label in buckets
                    ],
                }
                for group in report.groups
            ],
        }
        return Response(body)
