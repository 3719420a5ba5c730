"""GET /metrics: OpenMetrics text parsed with prometheus_client, values checked against the DB.

The data sits around the real clock (the endpoint reads ``timezone.now()``): the last billed
hours, the latest hour rollups and phase segments. The organization's timezone is chosen so
that its local midnight is about ten hours back, so "today" holds the billed hours.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from django.utils import timezone
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Organization
from apps.alerts.services import budget_create
from apps.analysis.engine import Phase
from apps.analysis.models import PhaseSegment
from apps.billing.models import BillLine
from apps.billing.signals import bill_lines_changed
from apps.billing.sync import BEIJING
from apps.cloud.models import CloudAccount, Instance, Project
from apps.metrics.models import InstanceHourRollup

pytestmark = pytest.mark.django_db

DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(client: APIClient) -> tuple[Samples, set[str]]:
    response = client.get("/metrics")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/openmetrics-text")
    families = list(text_string_to_metric_families(response.content.decode()))
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in families
        for sample in family.samples
    }
    return samples, {family.name for family in families}


def value(samples: Samples, name: str, **labels: str) -> float:
    matches = [v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls)]
    assert len(matches) == 1, (name, labels, matches)
    return matches[0]


class World:
    """Acme: two pay-as-you-go instances of project vision, one unallocated subscription."""

    def __init__(self, acme: Organization) -> None:
        now = timezone.now()
        offset = 10 - now.hour
        offset = offset + 24 if offset < -12 else offset - 24 if offset > 14 else offset
        Organization.objects.filter(pk=acme.pk).update(timezone=f"Etc/GMT{-offset:+d}")
        self.hour = now.replace(minute=0, second=0, microsecond=0)
        account = CloudAccount.objects.create(
            organization=acme, name="Tencent", secret_id="AKID", secret_key_encrypted="x",
            regions=["ap-shanghai"],
        )  # fmt: skip
        vision = Project.objects.create(organization=acme, name="vision", slug="vision")

        def instance(name: str, cards: int, charge: str, project: Project | None) -> Instance:
            return Instance.objects.create(
                organization=acme, account=account, provider_id=f"ins-{name}", name=name,
                region="ap-shanghai", zone="ap-shanghai-2", instance_type="GN7.2XLARGE32",
                gpu_model="T4", gpu_count=cards, charge_type=charge, project=project,
                tags={"team": "cv"} if project else {},
            )  # fmt: skip

        self.a = instance("a", 1, "POSTPAID_BY_HOUR", vision)
        self.b = instance("b", 2, "POSTPAID_BY_HOUR", vision)
        self.c = instance("c", 1, "PREPAID", None)
        h0, h1 = self.hour - dt.timedelta(hours=3), self.hour - dt.timedelta(hours=2)
        serial = iter(range(1000))

        def line(inst: Instance, begin: dt.datetime, cost: str, component: str = "v_cvm_compute",
                 hours: float = 1) -> None:  # fmt: skip
            BillLine.objects.create(
                organization=acme, account=account, bill_id=f"b{next(serial)}",
                component_code=component, item_code="i", month=begin.strftime("%Y-%m"),
                # What billing's classifier stores for these codes: disks keep billing.
                component_class="storage" if "disk" in component else "runtime",
                resource_id=inst.provider_id, instance=inst, project=inst.project,
                fee_begin_at=begin, fee_end_at=begin + dt.timedelta(hours=hours, seconds=-1),
                list_cost=Decimal(cost), cost=Decimal(cost),
            )  # fmt: skip

        line(self.a, self.hour - dt.timedelta(hours=30), "99")  # outside the day of lookback
        line(self.a, h0, "5.20")
        line(self.a, h0, "0.10", component="v_cvm_disk_system")
        line(self.a, h1, "5.30")
        line(self.a, h1, "0.10", component="v_cvm_disk_system")
        line(self.b, h0, "13.60")
        line(self.c, self.hour - dt.timedelta(days=10), "2160", hours=720)
        # As a bills sync does: the costs rollup, which budgets read, follows.
        bill_lines_changed.send(sender=BillLine, organization=acme, months=None)
        for inst, hour, util in ((self.a, h0, 90.0), (self.a, h1, 40.0), (self.b, h0, 10.0)):
            InstanceHourRollup.objects.create(
                organization=acme, instance=inst, hour_start=hour, gpu_count=inst.gpu_count,
                gpu_util_pct_avg=util, gpu_util_pct_minutes=60,
            )  # fmt: skip
        # a was idle through both its billed hours; b trained through its one.
        for inst, phase, start, end in (
            (self.a, Phase.IDLE, h0, self.hour - dt.timedelta(hours=1)),
            (self.b, Phase.TRAINING, h0, h1),
        ):
            PhaseSegment.objects.create(
                organization=acme, instance=inst, phase=phase, start_at=start, end_at=end,
                mean_gpu_util_pct=1.0,
            )  # fmt: skip


@pytest.fixture
def world(acme: Organization) -> World:
    return World(acme)


@pytest.fixture
def acme_key(acme: Organization, key_client: Callable[..., tuple[APIClient, ApiKey]]) -> APIClient:
    return key_client(acme)[0]


def test_it_exposes_per_instance_gauges_that_match_the_database(
    world: World, acme_key: APIClient
) -> None:
    samples, _ = scrape(acme_key)
    a = {"instance_id": "ins-a", "project": "vision", "team": "cv", "instance_type": "GN7.2XLARGE32",
         "region": "ap-shanghai"}  # fmt: skip
    # The cost rate is the latest billed hour's lines, every component: recomputed from the DB.
    latest = BillLine.objects.filter(
        instance=world.a, fee_begin_at__gte=world.hour - dt.timedelta(hours=24)
    )
    last_hour = max(latest.values_list("fee_begin_at", flat=True))
    by_hand = sum(latest.filter(fee_begin_at=last_hour).values_list("cost", flat=True), Decimal(0))
    assert by_hand == Decimal("5.40")
    assert value(samples, "gpu_ledger_instance_cost_rate_per_hour", **a, currency="CNY") == float(
        by_hand
    )
    # A subscription costs its price over its hours: 2160 / 720.
    assert (
        value(
            samples,
            "gpu_ledger_instance_cost_rate_per_hour",
            instance_id="ins-c",
            project="Unallocated",
        )
        == 3.0
    )
    assert value(samples, "gpu_ledger_instance_gpu_util_percent", **a) == 40.0
    assert value(samples, "gpu_ledger_instance_phase", **a, phase="idle") == 1.0
    assert value(samples, "gpu_ledger_instance_phase", **a, phase="training") == 0.0
    assert value(samples, "gpu_ledger_instance_phase", instance_id="ins-b", phase="training") == 1.0
    assert value(samples, "gpu_ledger_instance_phase", instance_id="ins-c", phase="unknown") == 1.0
    # a was idle through its two billed compute hours of today: their cost is idle money.
    compute_today = BillLine.objects.filter(
        instance=world.a,
        component_class="runtime",
        fee_begin_at__gte=world.hour - dt.timedelta(hours=3),
    )
    idle = sum(compute_today.values_list("cost", flat=True), Decimal(0))
    assert value(samples, "gpu_ledger_instance_idle_cost_today", **a) == float(idle) == 10.5
    assert value(samples, "gpu_ledger_instance_idle_cost_today", instance_id="ins-b") == 0.0
    assert value(samples, "gpu_ledger_instance_data_bound_cost_today", **a) == 0.0
    assert not [
        k
        for k in samples
        if k[0] == "gpu_ledger_instance_gpu_util_percent" and ("instance_id", "ins-c") in k[1]
    ]


def test_it_sums_projects_and_averages_their_utilization_over_cards(
    world: World, acme_key: APIClient
) -> None:
    samples, _ = scrape(acme_key)
    assert value(samples, "gpu_ledger_project_cost_rate_per_hour", project="vision") == 5.40 + 13.60
    assert value(samples, "gpu_ledger_project_cost_rate_per_hour", project="Unallocated") == 3.0
    # a: 40 % on 1 card, b: 10 % on 2 cards.
    assert value(samples, "gpu_ledger_project_gpu_util_percent", project="vision") == 20.0
    assert value(samples, "gpu_ledger_project_instances", project="vision") == 2
    assert value(samples, "gpu_ledger_project_idle_cost_today", project="vision") == 10.5


def test_it_needs_an_api_key_and_shows_only_its_organizations_instances(
    world: World, globex: Organization, alice_client: APIClient,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
) -> None:  # fmt: skip
    assert APIClient().get("/metrics").status_code == 401
    assert alice_client.get("/metrics").status_code == 401  # a session is not a scraper
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Bearer glk_nothing_here")
    assert bad.get("/metrics").status_code == 401
    samples, _ = scrape(key_client(globex)[0])
    assert not [k for k in samples if any(label == "instance_id" for label, _ in k[1])]


def test_the_grafana_dashboard_reads_only_metrics_the_endpoint_exposes(
    world: World, acme_key: APIClient
) -> None:
    _, families = scrape(acme_key)
    dashboard = json.loads(DASHBOARD.read_text())
    panels = [p for row in dashboard["panels"] for p in [row, *row.get("panels", [])]]
    exprs = [(p["title"], t["expr"]) for p in panels for t in p.get("targets", [])]
    assert len(exprs) >= 6
    for title, expr in exprs:
        names = set(re.findall(r"\bgpu_ledger_[a-z_]+", expr))
        assert names, f"panel {title!r} reads no GPU Ledger metric: {expr}"
        assert names <= families, f"panel {title!r} reads {names - families}"


def _budget_by_hand(
    organization: Organization, amount: Decimal, project: Project | None, now: dt.datetime
) -> tuple[Decimal, Decimal]:
    """(used %, forecast %) of a CNY budget recomputed from the bill lines (none a purchase, so
    amortized is as billed), as costs' forecast defines it (``apps.costs.forecast``), in the bill
    month and days (Beijing): spent = the lines beginning this month before now; forecast =
    the complete days' + (the last 7 complete days' cost / 7, to the cent) x the days left,
    today included."""
    local = now.astimezone(BEIJING)
    start = local.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    today = local.replace(hour=0, minute=0, second=0, microsecond=0)
    end = (start + dt.timedelta(days=32)).replace(day=1)
    lines = BillLine.objects.filter(organization=organization, currency="CNY")
    if project is not None:
        lines = lines.filter(project=project)

    def cost(since: dt.datetime, until: dt.datetime) -> Decimal:
        return sum(
            (c for begin, c in lines.values_list("fee_begin_at", "cost") if since <= begin < until),
            Decimal(0),
        )

    cent = Decimal("0.01")
    spent = cost(start, now).quantize(cent, rounding=ROUND_HALF_UP)
    before = cost(start, today).quantize(cent, rounding=ROUND_HALF_UP)
    days_left = (end.date() - today.date()).days
    daily = (cost(today - dt.timedelta(days=7), today) / 7).quantize(cent, rounding=ROUND_HALF_UP)
    forecast = before + daily * days_left
    tenth = Decimal("0.1")
    return (
        (spent / amount * 100).quantize(tenth, rounding=ROUND_HALF_UP),
        (forecast / amount * 100).quantize(tenth, rounding=ROUND_HALF_UP),
    )


def test_it_exposes_each_budgets_use_recomputed_from_the_bill_lines(
    world: World, acme: Organization, acme_key: APIClient
) -> None:
    acme.refresh_from_db()
    vision = Project.objects.get(organization=acme, slug="vision")
    budget_create(organization=acme, name="All GPUs", amount=Decimal("5000"))
    budget_create(organization=acme, name="Vision", amount=Decimal("200"), project=vision)
    budget_create(organization=acme, name="Dollars", amount=Decimal("100"), currency="USD")

    before = timezone.now()
    samples, families = scrape(acme_key)
    after = timezone.now()

    assert {"gpu_ledger_budget_used_percent", "gpu_ledger_budget_forecast_percent"} <= families
    for name, amount, project, label in (
        ("All GPUs", Decimal("5000"), None, ""),
        ("Vision", Decimal("200"), vision, "vision"),
    ):
        used, forecast_early = _budget_by_hand(acme, amount, project, before)
        used_late, forecast_late = _budget_by_hand(acme, amount, project, after)
        assert used == used_late  # no line begins between the two instants
        labels = {"budget": name, "project": label, "currency": "CNY"}
        assert value(samples, "gpu_ledger_budget_used_percent", **labels) == float(used)
        # The forecast shrinks by the second as the month's days left do; the scrape's own
        # instant lies between the two.
        scraped = Decimal(str(value(samples, "gpu_ledger_budget_forecast_percent", **labels)))
        assert forecast_late <= scraped <= forecast_early
        assert used > 0
        assert forecast_early > 0
    # Away from a month's first day, every line of the world counts: vision's are
    # 99 + 5.20 + 0.10 + 5.30 + 0.10 + 13.60 = 123.30 of 200 (61.65 -> 61.7 %), the
    # organization's add the subscription's 2,160: 2,283.30 of 5,000 (45.7 %).
    if world.hour.astimezone(BEIJING).day > 11:
        assert value(samples, "gpu_ledger_budget_used_percent", budget="Vision") == 61.7
        assert value(samples, "gpu_ledger_budget_used_percent", budget="All GPUs") == 45.7
    # A budget in a currency nobody bills in has spent nothing.
    assert value(samples, "gpu_ledger_budget_used_percent", budget="Dollars", currency="USD") == 0.0
    assert value(samples, "gpu_ledger_budget_forecast_percent", budget="Dollars") == 0.0
