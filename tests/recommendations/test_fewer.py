"""Night downshift, fewer instances: a project's alike instances weighed together at night.

Pure tests on hand-built evidence (each saving recomputed here from price x hours x weeks), then
one run through the database and the API: a project-targeted recommendation, stored once.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from apps.billing.models import BillLine
from apps.recommendations import services
from apps.recommendations.models import Recommendation, Status
from apps.recommendations.rules import (
    DEFAULT_RULE_THRESHOLDS,
    FEWER_INSTANCES,
    PRICE_FROM_BILLS,
    PRICE_FROM_CATALOG,
    Text,
    evaluate,
    evaluate_groups,
    fewer_at_night,
)
from apps.recommendations.selectors import realised_saving
from tests.recommendations.builders import END, evidence, profile, working_hours_matrix
from tests.recommendations.factories import AS_OF, bill_hours, make_instance, set_profile, set_usage
from tests.recommendations.words import english, english_list

CENT = Decimal("0.01")
TH = DEFAULT_RULE_THRESHOLDS
# 09-19 on weekdays is the day: 50 h; the window is the other 118 h of the week.
NIGHT_HOURS = 168 - 50


def member(index: int, night: float, day: float = 80.0, **changes):
    """One of a project's GN7.2XLARGE32 web servers: ``day`` % p95 09-19 on weekdays, ``night``
    % the rest of the week, running throughout, billed 5.00 CNY/h."""
    p95 = working_hours_matrix(busy=day, off=night)
    return evidence(
        instance_id=100 + index,
        provider_id=f"ins-web{index}",
        name=f"web-{index}",
        profile=profile(p95, np.ones((7, 24))),
        **changes,
    )


def month_hours(weekly: int | Decimal) -> Decimal:
    return (Decimal(weekly) * TH.days_per_month / 7).quantize(Decimal("0.1"), ROUND_HALF_UP)


def test_it_runs_the_night_of_four_alike_instances_on_one_and_prices_the_three_stopped() -> None:
    group = [member(0, 16.0), member(1, 18.0), member(2, 17.0), member(3, 16.0)]
    (finding,) = fewer_at_night(group, TH)
    assert finding.saving is not None
    assert finding.kind == "night_downshift"
    assert (finding.instance_id, finding.target) == (None, "project:3")
    assert finding.parameters == {
        "variant": FEWER_INSTANCES,
        "instance_type": "GN7.2XLARGE32",
        "region": "ap-shanghai",
        "keep": 1,
        "runs": [[0, 19, 14], [1, 19, 14], [2, 19, 14], [3, 19, 14], [4, 19, 62]],
    }
    # The one with the highest night load (18 %) keeps serving; the other three stop.
    stopped = ["ins-web0", "ins-web2", "ins-web3"]
    assert finding.action["stop_instances"] == stopped
    assert finding.action["keep_instances"] == ["ins-web1"]
    ids = '\'["ins-web0","ins-web2","ins-web3"]\''
    stop = (
        f"tccli cvm StopInstances --region ap-shanghai --InstanceIds {ids} "
        "--StoppedMode STOP_CHARGING"
    )
    start = f"tccli cvm StartInstances --region ap-shanghai --InstanceIds {ids}"
    assert finding.action["commands"] == [stop, start]
    assert finding.action["cron"] == [
        "CRON_TZ=Asia/Shanghai",
        f"0 19 * * 1-5 {stop}",
        f"0 9 * * 1-5 {start}",
    ]
    assert finding.action["window"]["tz"] == "Asia/Shanghai"
    assert finding.action["window"]["weekly_hours"] == NIGHT_HOURS
    # The evidence: each instance's night p95, their sum, which fits on one at <= 70 %.
    night = finding.evidence["night_p95_peak_pct"]
    assert night == {"ins-web0": 16.0, "ins-web1": 18.0, "ins-web2": 17.0, "ins-web3": 16.0}
    assert finding.evidence["summed_night_p95_peak_pct"] == sum(night.values()) == 67.0
    assert finding.evidence["kept_load_max_pct"] == 67.0 <= finding.evidence["target_load_max_pct"]
    assert finding.evidence["running_hours_per_week_in_window"] == dict.fromkeys(stopped, "118.0")
    # (n - k) x 5.0000 CNY/h (1680.00 billed / 336 h) x 118 h/week x 30/7 weeks/month.
    per_instance = (Decimal("5.0000") * month_hours(NIGHT_HOURS)).quantize(CENT)
    assert finding.saving.monthly_amount == (4 - 1) * per_instance == Decimal("7585.50")
    # The same from the evidence alone: each stopped one's price x its hours in the window.
    prices = finding.evidence["hourly_price"]
    weekly = finding.evidence["running_hours_per_week_in_window"]
    assert prices == dict.fromkeys(stopped, "5.0000")
    assert finding.saving.monthly_amount == sum(
        (Decimal(prices[pid]) * month_hours(Decimal(weekly[pid]))).quantize(CENT) for pid in stopped
    )
    assert finding.saving.price_source == PRICE_FROM_BILLS
    assert f"sum = {finding.saving.monthly_amount} CNY/month" in english(finding.saving.formula)
    # Honest about what a stop with STOP_CHARGING leaves billed, and about who takes the load.
    assert "disks" in english(finding.explanation)
    assert english_list(finding.action["still_billed_when_stopped"]) == [
        "system and data disks",
        "bandwidth",
    ]
    assert finding.risk.reason == Text("fewer_instances.risk_one", {"keep": 1})
    assert "ins-web1" in english(finding.action["steps"][0])


def test_it_keeps_two_when_the_night_load_needs_two_and_prices_from_the_catalog() -> None:
    """100 % of one instance at night needs two at 70 %: stop two of four (no bills: the
    catalog's 5.20 CNY/h, and it says so)."""
    group = [member(i, 25.0, billed_hours=Decimal(0)) for i in range(4)]
    (finding,) = fewer_at_night(group, TH)
    assert finding.saving is not None
    assert finding.parameters["keep"] == 2
    assert finding.action["stop_instances"] == ["ins-web0", "ins-web1"]
    per_instance = (Decimal("5.20") * month_hours(NIGHT_HOURS)).quantize(CENT)
    assert finding.saving.monthly_amount == 2 * per_instance
    assert finding.saving.price_source == PRICE_FROM_CATALOG
    assert "catalog price 5.20 CNY/h" in english(finding.saving.formula)


def test_it_stops_none_when_the_night_load_needs_every_instance() -> None:
    # 3 x 28 % = 84 % of one instance: two carry it at 70 % each, but not at 40 % each.
    group = [member(i, 28.0) for i in range(3)]
    assert fewer_at_night(group, TH)[0].parameters["keep"] == 2
    strict = TH.with_overrides({"downshift_target_load_max_pct": 40})
    assert fewer_at_night(group, strict) == []


def test_it_leaves_out_instances_busy_at_night_too() -> None:
    """Above the night-downshift level (30 %) at night on its own, an instance is not a
    replica with a quiet night (a training job, say): it is not weighed with the others."""
    assert fewer_at_night([member(i, 60.0) for i in range(4)], TH) == []
    busy = member(3, 45.0)
    (finding,) = fewer_at_night([member(0, 16.0), member(1, 18.0), busy], TH)
    assert "ins-web3" not in finding.evidence["night_p95_peak_pct"]
    assert finding.action["stop_instances"] == ["ins-web0"]


def test_it_leaves_a_group_low_around_the_clock_to_the_other_rules() -> None:
    # Never busier than one instance can carry: no night to single out.
    assert fewer_at_night([member(i, 15.0, day=15.0) for i in range(4)], TH) == []


def test_it_needs_at_least_two_alike_instances() -> None:
    alone = member(0, 16.0)
    assert fewer_at_night([alone], TH) == []
    assert evaluate_groups([alone], evaluate(alone), TH) == evaluate(alone)
    # Different types are different groups: nothing to weigh together, and the rule refuses.
    other = member(1, 16.0, instance_type="GN7.5XLARGE80")
    assert evaluate_groups([alone, other], [], TH) == []
    with pytest.raises(ValueError, match="different groups"):
        fewer_at_night([alone, other], TH)


def test_it_leaves_an_instance_on_a_monthly_subscription_out() -> None:
    """The subscription is paid whether it runs or not: it keeps running (and carrying load),
    the three pay-as-you-go ones are the group."""
    prepaid = member(9, 5.5, charge_type="PREPAID")
    group = [member(0, 16.0), member(1, 18.0), member(2, 17.0), prepaid]
    (finding,) = fewer_at_night(group, TH)
    assert finding.saving is not None
    assert finding.evidence["instances"] == 3
    assert "ins-web9" not in finding.evidence["night_p95_peak_pct"]
    assert finding.action["stop_instances"] == ["ins-web0", "ins-web2"]
    assert all("ins-web9" not in command for command in finding.action["commands"])
    per_instance = (Decimal("5.0000") * month_hours(NIGHT_HOURS)).quantize(CENT)
    assert finding.saving.monthly_amount == 2 * per_instance


def test_the_fleet_pass_skips_scheduled_instances_and_replaces_what_it_contradicts() -> None:
    """web-0 sits under 15 % at night: its own schedule stands and it is not in the group. The
    others get the group's finding; the two it stops lose their "switch to monthly" (priced on
    an uptime the stop changes), the one it keeps has it still."""
    fleet = [member(0, 10.0), member(1, 20.0), member(2, 22.0), member(3, 21.0)]
    per_instance = [finding for ev in fleet for finding in evaluate(ev, TH)]
    assert ("schedule", 100) in [(f.kind, f.instance_id) for f in per_instance]
    assert {f.instance_id for f in per_instance if f.kind == "subscription"} == {101, 102, 103}
    out = evaluate_groups(fleet, per_instance, TH)
    (group,) = [f for f in out if f.instance_id is None]
    assert group.action["stop_instances"] == ["ins-web1", "ins-web3"]
    assert group.action["keep_instances"] == ["ins-web2"]
    assert "ins-web0" not in group.evidence["night_p95_peak_pct"]
    assert ("schedule", 100) in [(f.kind, f.instance_id) for f in out]
    assert {f.instance_id for f in out if f.kind == "subscription"} == {102}


def test_the_fleet_pass_replaces_the_members_own_night_downshifts() -> None:
    """Two-card instances at 20 % at night each get a smaller type on their own; together one of
    them carries the night (40 %), which the group finding says instead."""
    two_cards = {"instance_type": "GN7.8XLARGE128", "gpu_count": 2}
    fleet = [member(i, 20.0, day=70.0, **two_cards) for i in range(2)]
    per_instance = [finding for ev in fleet for finding in evaluate(ev, TH)]
    assert [f.instance_id for f in per_instance if f.kind == "night_downshift"] == [100, 101]
    out = evaluate_groups(fleet, per_instance, TH)
    (downshift,) = [f for f in out if f.kind == "night_downshift"]
    assert downshift.target == "project:3"
    assert downshift.parameters["instance_type"] == "GN7.8XLARGE128"


def test_it_reads_the_members_evidence_days_and_leaves_young_ones_running() -> None:
    young = dataclasses.replace(member(3, 10.0), existed_hours=5 * 24.0)
    (finding,) = fewer_at_night([member(0, 16.0), member(1, 18.0), young], TH)
    assert "ins-web3" not in finding.evidence["night_p95_peak_pct"]
    assert finding.action["stop_instances"] == ["ins-web0"]


# --- through the run and the API -------------------------------------------------------------


def _web_fleet(organization, nights: list[float]):
    first = make_instance(organization, "web-0")
    assert first.project is not None
    assert first.account is not None
    instances = [first] + [
        make_instance(organization, f"web-{i}", project=first.project, account=first.account)
        for i in range(1, len(nights))
    ]
    for instance, night in zip(instances, nights, strict=True):
        set_usage(instance, gpu_util_p95=80.0)
        bill_hours(instance, start=END - dt.timedelta(days=14), hours=14 * 24)
        p95 = working_hours_matrix(busy=80.0, off=night)
        set_profile(instance, p95)
    return instances


@pytest.mark.django_db
def test_a_run_stores_one_project_recommendation_shown_by_the_api(acme, alice_client) -> None:
    instances = _web_fleet(acme, [16.0, 18.0, 17.0, 16.0])
    project = instances[0].project
    services.recommendations_run(organization=acme, as_of=AS_OF)
    row = Recommendation.objects.get(kind="night_downshift")
    assert (row.instance_id, row.project_id, row.status) == (None, project.pk, Status.OPEN)
    stopped = ["ins-web-0", "ins-web-2", "ins-web-3"]
    # 5.00 CNY/h on the bills x 118 h/week x 30/7, for each of the three.
    per_instance = (Decimal("5.0000") * month_hours(NIGHT_HOURS)).quantize(CENT)
    assert row.monthly_saving == 3 * per_instance
    assert row.price_source == "bills"
    # Nothing per instance (busy by day, above the schedule's 15 % at night, one card each).
    assert list(Recommendation.objects.values_list("kind", "instance")) == [
        ("night_downshift", None)
    ]

    listed = alice_client.get("/api/v1/recommendations", {"kind": "night_downshift"}).json()
    (item,) = listed["results"]
    assert (item["target"], item["instance"], item["instance_name"]) == ("project", None, None)
    assert (item["project"], item["project_name"]) == (project.pk, project.name)
    assert item["saving"]["monthly_amount"] == str(row.monthly_saving)
    detail = alice_client.get(f"/api/v1/recommendations/{row.pk}").json()
    ids = '\'["ins-web-0","ins-web-2","ins-web-3"]\''
    assert detail["action"]["commands"] == [
        f"tccli cvm StopInstances --region ap-shanghai --InstanceIds {ids} "
        "--StoppedMode STOP_CHARGING",
        f"tccli cvm StartInstances --region ap-shanghai --InstanceIds {ids}",
    ]
    assert detail["action"]["stopped_mode"] == "STOP_CHARGING"
    figures = {f["name"]: f["value"] for f in detail["evidence"]["figures"]}
    assert figures["night_p95_peak_pct.ins-web-1"] == "18.0"
    assert figures["summed_night_p95_peak_pct"] == "67.0"
    for pid in stopped:
        assert figures[f"running_hours_per_week_in_window.{pid}"] == "118.0"
    assert {p["name"]: p["value"] for p in detail["parameters"]}["keep"] == "1"

    again = services.recommendations_run(organization=acme, as_of=AS_OF)
    assert (again.created, again.updated, again.resolved) == (0, 0, 0)
    assert Recommendation.objects.filter(kind="night_downshift").count() == 1


@pytest.mark.django_db
def test_the_group_pass_reads_the_downshift_lookback(acme) -> None:
    """With its own 12-day lookback the group is priced and its confidence counted over 12 days
    (the bills' 288 h at 5.00 CNY/h), not the shared 14."""
    _web_fleet(acme, [16.0, 18.0, 17.0, 16.0])
    services.recommendation_settings_update(
        organization=acme, thresholds={"downshift_lookback_days": 12}
    )
    services.recommendations_run(organization=acme, as_of=AS_OF)
    row = Recommendation.objects.get(kind="night_downshift")
    assert row.evidence_days == 12.0
    assert "1440.00 CNY runtime billed / 288.0 h billed = 5.0000 CNY/h" in row.saving_formula
    assert row.monthly_saving == 3 * (Decimal("5.0000") * month_hours(NIGHT_HOURS)).quantize(CENT)


@pytest.mark.django_db
def test_an_accepted_fewer_at_night_is_measured_on_the_bills_of_the_instances_it_stops(
    acme, alice
) -> None:
    instances = _web_fleet(acme, [16.0, 18.0, 17.0, 16.0])
    services.recommendations_run(organization=acme, as_of=AS_OF)
    row = services.recommendation_accept(
        recommendation=Recommendation.objects.get(kind="night_downshift"), actor=alice, now=END
    )
    stopped = [instances[i] for i in (0, 2, 3)]
    # After: the three stopped ones billed one more day, the one kept billed two (not counted);
    # the account's bills are synced two days past acceptance.
    for instance in stopped:
        bill_hours(instance, start=END, hours=24)
    bill_hours(instances[1], start=END, hours=48)
    BillLine.objects.create(
        organization=acme,
        account=instances[0].account,
        bill_id="cos-synced",
        component_code="v_cos_storage",
        item_code="cos",
        month="2026-11",
        fee_begin_at=END + dt.timedelta(days=1),
        fee_end_at=END + dt.timedelta(days=2, seconds=-1),
        list_cost=Decimal("1.00"),
        cost=Decimal("1.00"),
    )

    realised = realised_saving(row, now=END + dt.timedelta(days=7))

    assert realised is not None
    assert realised.instances == ["web-0", "web-2", "web-3"]
    assert (realised.before_start, realised.before_end) == (END - dt.timedelta(days=14), END)
    assert (realised.after_start, realised.after_end) == (END, END + dt.timedelta(days=2))
    # By hand from the stopped three's lines: 3 x 336 h x 5.00 before, 3 x 24 h x 5.00 after.
    lines = BillLine.objects.filter(instance__in=stopped)
    before = sum(line.cost for line in lines if line.fee_begin_at < END)
    after = sum(line.cost for line in lines if line.fee_begin_at >= END)
    assert (realised.cost_before, realised.cost_after) == (before, after)
    assert (before, after) == (Decimal("5040.00"), Decimal("360.00"))
    assert (realised.weeks_before, realised.weeks_after) == (2.0, 0.2857)
    weekly_before = (before / Decimal("2")).quantize(CENT)
    weekly_after = (after / Decimal("0.2857")).quantize(CENT)
    assert (realised.weekly_cost_before, realised.weekly_cost_after) == (
        weekly_before,
        weekly_after,
    )
    assert realised.monthly_saving_realised == (
        (weekly_before - weekly_after) * 30 / Decimal(7)
    ).quantize(CENT)
    assert realised.monthly_saving_promised == row.monthly_saving


def test_it_lists_its_members_with_shares_that_sum_to_the_saving_exactly() -> None:
    """Three stopped at different prices (1680.00, 1681.01 and 1700.03 billed over 336 h):
    each one's share is its own cents, and the shares add up to the saving to the cent."""
    costs = {0: "1680.00", 2: "1681.01", 3: "1700.03"}
    group = [
        member(i, night, billed_runtime_cost=Decimal(costs.get(i, "1680.00")))
        for i, night in enumerate([16.0, 18.0, 17.0, 16.0])
    ]
    (finding,) = fewer_at_night(group, TH)
    assert finding.saving is not None
    members = finding.action["members"]
    assert [(m["instance_id"], m["provider_id"], m["name"], m["role"]) for m in members] == [
        (100, "ins-web0", "web-0", "stop"),
        (101, "ins-web1", "web-1", "keep"),
        (102, "ins-web2", "web-2", "stop"),
        (103, "ins-web3", "web-3", "stop"),
    ]
    shares = {m["provider_id"]: Decimal(m["monthly_share"]) for m in members}
    assert shares["ins-web1"] == Decimal("0.00")
    assert len({shares["ins-web0"], shares["ins-web2"], shares["ins-web3"]}) == 3
    # Each share recomputed from the evidence: its price x its hours in the window.
    prices = finding.evidence["hourly_price"]
    weekly = finding.evidence["running_hours_per_week_in_window"]
    for pid in finding.action["stop_instances"]:
        expected = (Decimal(prices[pid]) * month_hours(Decimal(weekly[pid]))).quantize(CENT)
        assert shares[pid] == expected, pid
    assert sum(shares.values()) == finding.saving.monthly_amount


@pytest.mark.django_db
def test_the_api_lists_the_members_by_both_ids_and_filters_by_either(acme, alice_client) -> None:
    instances = _web_fleet(acme, [16.0, 18.0, 17.0, 16.0])
    services.recommendations_run(organization=acme, as_of=AS_OF)
    row = Recommendation.objects.get(kind="night_downshift")
    for url in ("/api/v1/recommendations", f"/api/v1/recommendations/{row.pk}"):
        body = alice_client.get(url).json()
        item = body["results"][0] if "results" in body else body
        assert (item["instance"], item["cloud_instance_id"]) == (None, None)
        by_pid = {i.provider_id: i for i in instances}
        assert [
            (m["instance"], m["cloud_instance_id"], m["name"], m["role"]) for m in item["members"]
        ] == [
            (by_pid[pid].pk, pid, by_pid[pid].name, "keep" if pid == "ins-web-1" else "stop")
            for pid in sorted(by_pid)
        ]
        assert sum(Decimal(m["monthly_share"]) for m in item["members"]) == row.monthly_saving
        assert item["saving"]["monthly_amount"] == str(row.monthly_saving)
