"""Recommendation rules vs the analysis itself, on PostgreSQL, side by side in one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gpu_ledger_bench_recommendations \\
        .venv/bin/python -m bench.recommendations_rules [--quick] [--no-record]

Creates (and finally drops) the database, writes the analysis end-to-end bench's fleet
(1,000 instances x 30 days, or 100 x 7 with --quick) through the real metric store, gives every
instance an account, catalog prices and an hourly compute bill line for each hour of the
rules' 14-day lookback, then times in one process:

- ``analysis.services.analysis_run`` over the whole fleet and period (first run, empty result
  tables): what the rules run after;
- ``recommendations.services.recommendations_run`` for the organization as of the end, first
  run (every finding created) and again (nothing changes), with its stages: reading the
  evidence (hour rollups, phase minutes, profiles, bills, prices) and the pure rules.

Target: the recommendation run <= 0.5x the analysis. Appends a dated section to RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections import Counter
from decimal import Decimal
from typing import Any

from bench.analysis_end_to_end import FIRST_DAY, clear_results, end_to_end, generate
from bench.harness import machine, record, setup_django, teardown
from bench.metrics_store import create_fleet

HOURLY_CNY = Decimal("5.20")
RUNS = 2


def clear_recommendations() -> None:
    from apps.recommendations.models import Recommendation, RecommendationEvent

    RecommendationEvent.objects.all().delete()
    Recommendation.objects.all().delete()


def add_accounts_prices_and_bills(ids: list[int], start: dt.datetime, end: dt.datetime) -> int:
    """An account with catalog prices, and one compute line per instance-hour of the range."""
    from apps.accounts.models import Organization
    from apps.billing.models import BillLine
    from apps.billing.rollups import bill_days_refresh
    from apps.cloud.models import CloudAccount, Instance, InstancePrice, InstanceType

    organization = Organization.objects.get(slug="bench")
    account = CloudAccount.objects.create(
        organization=organization,
        name="bench",
        secret_id="AKID-bench",
        secret_key_encrypted="unused",
        regions=["ap-shanghai"],
    )
    Instance.objects.filter(pk__in=ids).update(
        account=account, zone="ap-shanghai-2", gpu_model="NVIDIA T4", gpu_memory_gb=16
    )
    for name, cards, hourly in (("GN7.2XLARGE32", 1, "5.20"), ("GN7.8XLARGE128", 2, "13.60")):
        InstanceType.objects.create(
            instance_type=name, family="GN7", gpu_count=cards, gpu_model="NVIDIA T4",
            gpu_memory_gb=16,
        )  # fmt: skip
        for charge, fields in (
            ("POSTPAID_BY_HOUR", {"hourly": Decimal(hourly)}),
            ("PREPAID", {"monthly": (Decimal(hourly) * 720 * Decimal("0.585")).quantize(1)}),
            ("SPOTPAID", {"hourly": Decimal(hourly) / 5}),
        ):
            InstancePrice.objects.create(
                account=account, region="ap-shanghai", zone="ap-shanghai-2",
                instance_type=name, charge_type=charge, **fields,
            )  # fmt: skip
    hours = int((end - start) / dt.timedelta(hours=1))
    lines = 0
    for instance_id in ids:
        BillLine.objects.bulk_create(
            [
                BillLine(
                    organization=organization,
                    account=account,
                    bill_id=f"{instance_id}-{hour}",
                    component_code="v_cvm_compute",
                    item_code="cvm",
                    month="2026-11",
                    instance_id=instance_id,
                    fee_begin_at=start + dt.timedelta(hours=hour),
                    fee_end_at=start + dt.timedelta(hours=hour, minutes=59, seconds=59),
                    list_cost=HOURLY_CNY,
                    cost=HOURLY_CNY,
                )
                for hour in range(hours)
            ],
            batch_size=2000,
        )
        lines += hours
    # As the bills sync does after writing a month's lines (not timed: it is the sync's work).
    bill_days_refresh(account=account)
    return lines


def recommendations(end: dt.datetime) -> tuple[float, dict[str, float], Any, Counter]:
    """Wall time of the run and its stages (evidence read, rules), timed by wrapping."""
    from apps.accounts.models import Organization
    from apps.recommendations import rules, services
    from apps.recommendations.models import Recommendation

    organization = Organization.objects.get(slug="bench")
    stages: dict[str, float] = {"read evidence": 0.0, "rules (pure)": 0.0}
    read, evaluate = services.organization_evidence, rules.evaluate

    def timed_read(**kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return read(**kwargs)
        finally:
            stages["read evidence"] += time.perf_counter() - started

    def timed_rules(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return evaluate(*args)
        finally:
            stages["rules (pure)"] += time.perf_counter() - started

    setattr(services, "organization_evidence", timed_read)  # noqa: B010 (timing wrapper)
    setattr(rules, "evaluate", timed_rules)  # noqa: B010
    try:
        started = time.perf_counter()
        result = services.recommendations_run(organization=organization, as_of=end)
        total = time.perf_counter() - started
    finally:
        setattr(services, "organization_evidence", read)  # noqa: B010
        setattr(rules, "evaluate", evaluate)  # noqa: B010
    kinds = Counter(Recommendation.objects.values_list("kind", flat=True))
    return total, stages, result, kinds


def run(instances: int, days: int) -> tuple[list[tuple[str, str, str, str]], str]:
    ids = create_fleet(instances)
    print(f"generating {instances} instances x {days} days ...")
    generate(ids, days)
    start = dt.datetime.combine(FIRST_DAY, dt.time(), tzinfo=dt.UTC)
    end = start + dt.timedelta(days=days)
    lines = add_accounts_prices_and_bills(ids, end - dt.timedelta(days=14), end)
    print(f"{lines} bill lines; timing ...")
    from apps.analysis.signals import analysis_completed

    # The analysis alone: its run would otherwise queue the recommendations task.
    analysis_completed.disconnect(dispatch_uid="recommendations.after_analysis")
    # Best of RUNS on each side: the machine is shared and noisy, and the same statistic on
    # both sides keeps the ratio fair. Each first run starts from empty result tables.
    analyses = []
    for attempt in range(RUNS):
        if attempt:
            clear_results()
        analyses.append(end_to_end(ids, start, end)[0])
    analysis = min(analyses)
    firsts = []
    for attempt in range(RUNS):
        if attempt:
            clear_recommendations()
        firsts.append(recommendations(end))
    first, stages, result, kinds = min(firsts, key=lambda run: run[0])
    again, _again_stages, repeat, _kinds = recommendations(end)
    ratio = first / analysis
    rows = [
        (
            f"analysis_run (first run), the reference, best of {RUNS}",
            f"{analysis:.2f} s; all: {', '.join(f'{a:.2f}' for a in analyses)}",
            "",
            "",
        ),
        (
            f"recommendations_run, first run (every finding created), best of {RUNS}",
            f"{first:.2f} s = {ratio:.2f}x the analysis; all: "
            + ", ".join(f"{run[0]:.2f}" for run in firsts),
            "<= 0.5x",
            "pass" if ratio <= 0.5 else "FAIL",
        ),
        *((f"  of which {name}", f"{seconds:.2f} s", "", "") for name, seconds in stages.items()),
        (
            "recommendations_run again (idempotent)",
            f"{again:.2f} s = {again / analysis:.2f}x; created {repeat.created}, "
            f"updated {repeat.updated}, unchanged {repeat.unchanged}",
            "",
            "",
        ),
        (
            "findings",
            f"{result.findings}: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
            "",
            "",
        ),
    ]
    for row in rows:
        print(f"{row[0]:60s} {row[1]} {row[3]}")
    return rows, f"{instances} instances x {days} days, {lines} bill lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 instances x 7 days")
    parser.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        sys.exit("bench.recommendations_rules needs DATABASE_URL=postgres://...")
    instances, days = (100, 7) if args.quick else (1000, 30)
    setup_django(database_url)
    try:
        rows, what = run(instances, days)
        info = machine()
    finally:
        teardown(database_url)
    if not args.no_record:
        text = record(
            "recommendation rules vs the analysis",
            rows,
            command=f"make bench-recommendations{' (--quick)' if args.quick else ''}",
            info=f"{info}; {what}",
        )
        print(text)


if __name__ == "__main__":
    main()
