"""``GET /metrics``: the organization's GPU spend and use as Prometheus gauges (OpenMetrics).

Authorised by an API key only (``Authorization: Bearer glk_...``, as Prometheus'
``authorization`` scrape setting sends it): a scraper is a tool, not a person with a session.
Every scrape builds a registry of its own with one collector holding that organization's
figures, so nothing of one organization can linger in a process-wide registry for another.

Per instance (labels instance_id, instance_name, project, team, instance_type, region, gpu_model):
cost rate per hour, GPU utilization, current phase (1 for it, 0 for the others), GPU count, and
idle and data-bound cost of the organization's day so far. Per project: the sums, and the GPU
utilization averaged over the project's cards. Money carries a ``currency`` label. Per budget
(labels budget, project (empty for the whole organization), currency): the percent of this
month's amount spent so far and the forecast percent at month end, as the budget alerts see them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.openmetrics.exposition import CONTENT_TYPE_LATEST, generate_latest
from rest_framework import permissions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.accounts.models import ApiKey
from apps.analysis.models import PHASE_KEYS
from apps.api.authentication import ApiKeyAuthentication
from apps.exports.gauges import BudgetGauges, InstanceGauges, budget_gauges, instance_gauges

PREFIX = "gpu_ledger"
# Not "instance": Prometheus sets that label to the scrape target (and would rename ours).
INSTANCE_LABELS = ["instance_id", "instance_name", "project", "team", "instance_type", "region", "gpu_model"]  # fmt: skip


def _labels(item: InstanceGauges) -> list[str]:
    return [
        item.provider_id,
        item.name,
        item.project,
        item.team,
        item.instance_type,
        item.region,
        item.gpu_model,
    ]


class LedgerCollector:
    """Yields the gauges of one organization's instances and projects (see the module doc)."""

    def __init__(
        self, instances: list[InstanceGauges], budgets: Sequence[BudgetGauges] = ()
    ) -> None:
        self.instances = instances
        self.budgets = budgets

    def collect(self) -> Iterator[Metric]:
        yield from self._instance_metrics()
        yield from self._project_metrics()
        yield from self._budget_metrics()

    def _budget_metrics(self) -> Iterator[Metric]:
        labels = ["budget", "project", "currency"]
        used = GaugeMetricFamily(
            f"{PREFIX}_budget_used_percent",
            "Percent of the budget's monthly amount spent so far this month (real cost).",
            labels=labels,
        )
        forecast = GaugeMetricFamily(
            f"{PREFIX}_budget_forecast_percent",
            "Forecast spend at month end (spent + 7-day daily average x days left), in percent.",
            labels=labels,
        )
        for item in self.budgets:
            values = [item.budget, item.project, item.currency]
            used.add_metric(values, float(item.used_pct))
            forecast.add_metric(values, float(item.forecast_pct))
        yield from (used, forecast)

    def _instance_metrics(self) -> Iterator[Metric]:
        money = [*INSTANCE_LABELS, "currency"]
        rate = GaugeMetricFamily(
            f"{PREFIX}_instance_cost_rate_per_hour",
            "Cost of the instance's latest billed hour (or its subscription per hour).",
            labels=money,
        )
        util = GaugeMetricFamily(
            f"{PREFIX}_instance_gpu_util_percent",
            "Average GPU utilization of the instance's latest hour with data.",
            labels=INSTANCE_LABELS,
        )
        phase = GaugeMetricFamily(
            f"{PREFIX}_instance_phase",
            "1 for the phase of the latest analysed segment (unknown without one), 0 otherwise.",
            labels=[*INSTANCE_LABELS, "phase"],
        )
        gpus = GaugeMetricFamily(
            f"{PREFIX}_instance_gpus", "GPU cards of the instance.", labels=INSTANCE_LABELS
        )
        idle = GaugeMetricFamily(
            f"{PREFIX}_instance_idle_cost_today",
            "Money spent while idle since local midnight (the organization's timezone).",
            labels=money,
        )
        data_bound = GaugeMetricFamily(
            f"{PREFIX}_instance_data_bound_cost_today",
            "Money spent while data-bound since local midnight.",
            labels=money,
        )
        for item in self.instances:
            labels = _labels(item)
            rate.add_metric([*labels, item.currency], float(item.cost_rate_per_hour))
            if item.gpu_util_pct is not None:
                util.add_metric(labels, item.gpu_util_pct)
            for key in PHASE_KEYS:
                phase.add_metric([*labels, key], 1.0 if key == item.phase else 0.0)
            gpus.add_metric(labels, item.gpu_count)
            idle.add_metric([*labels, item.currency], float(item.idle_cost_today))
            data_bound.add_metric([*labels, item.currency], float(item.data_bound_cost_today))
        yield from (rate, util, phase, gpus, idle, data_bound)

    def _project_metrics(self) -> Iterator[Metric]:
        sums: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
        counts: dict[str, int] = defaultdict(int)
        busy: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # util x cards, cards
        for item in self.instances:
            figures = sums[(item.project, item.currency)]
            figures[0] += item.cost_rate_per_hour
            figures[1] += item.idle_cost_today
            figures[2] += item.data_bound_cost_today
            counts[item.project] += 1
            if item.gpu_util_pct is not None and item.gpu_count > 0:
                busy[item.project][0] += item.gpu_util_pct * item.gpu_count
                busy[item.project][1] += item.gpu_count
        families = [
            GaugeMetricFamily(f"{PREFIX}_project_{name}", doc, labels=["project", "currency"])
            for name, doc in (
                ("cost_rate_per_hour", "Sum of the project's instances' cost rates."),
                ("idle_cost_today", "Money the project's instances spent idle today."),
                ("data_bound_cost_today", "Money the project's instances spent data-bound today."),
            )
        ]
        for (project, currency), figures in sorted(sums.items()):
            for family, value in zip(families, figures, strict=True):
                family.add_metric([project, currency], float(value))
        instances = GaugeMetricFamily(
            f"{PREFIX}_project_instances", "Live instances of the project.", labels=["project"]
        )
        util = GaugeMetricFamily(
            f"{PREFIX}_project_gpu_util_percent",
            "GPU utilization of the project's instances, averaged over their cards.",
            labels=["project"],
        )
        for project, count in sorted(counts.items()):
            instances.add_metric([project], count)
            weighted, cards = busy[project]
            if cards:
                util.add_metric([project], weighted / cards)
        yield from (*families, instances, util)


def render_metrics(instances: list[InstanceGauges], budgets: Sequence[BudgetGauges] = ()) -> bytes:
    """The OpenMetrics text of the figures, from a registry made for this scrape."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(LedgerCollector(instances, budgets))
    return generate_latest(registry)


class HasApiKey(permissions.BasePermission):
    message = "Scrape with an API key: Authorization: Bearer <api key>."

    def has_permission(self, request: Request, view: object) -> bool:
        return isinstance(request.auth, ApiKey)


class FirstRenderer(BaseContentNegotiation):
    """Errors are JSON whatever a scraper accepts (its Accept names only metric formats)."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


class MetricsView(APIView):
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [HasApiKey]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = FirstRenderer

    @extend_schema(exclude=True)
    def get(self, request: Request) -> HttpResponse:
        assert isinstance(request.auth, ApiKey)
        organization, now = request.auth.organization, timezone.now()
        body = render_metrics(instance_gauges(organization, now), budget_gauges(organization, now))
        return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
