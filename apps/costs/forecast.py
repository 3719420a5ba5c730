"""The month-end forecast: one formula, for the Overview, the cost report and the budgets.

The month is the bill month (Beijing time, as Tencent bills), and its days are Beijing days,
so the same fleet forecasts the same figure whatever the viewer's timezone. Money is amortized
(``apps.costs.bases``): a renewal is spread over the days it covers instead of one day's lump,
so it is neither in the run rate nor lost:

- ``spent_before_today``: the month's amortized cost of its complete days (before today);
- ``run_rate_daily``: the average daily amortized cost of the last ``RUN_RATE_DAYS`` complete
  days *without* the spread lines' money (purchases and refunds), rounded to the cent as every
  screen shows it;
- ``known_purchases``: the spread lines' money on the days from today to the month's end
  (purchases and refunds already billed, wherever they were charged);
- ``forecast`` = spent_before_today + run_rate_daily x days_left + known_purchases, where
  ``days_left`` counts the days from today to the month's end, today included.

A month that has ended forecasts what it cost; a month not yet begun forecasts nothing. The
figures are read from ``CostBillDay`` (one row per Beijing day, currency and project).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Mapping
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import QuerySet

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.billing.months import bill_month_bounds
from apps.billing.selectors import cost_totals
from apps.billing.sync import BEIJING
from apps.costs import bases
from apps.costs.models import CostBillDay
from apps.costs.sums import grouped_sums_many

RUN_RATE_DAYS = 7
CENT = Decimal("0.01")
METHOD = (
    "Bill month (Beijing time), amortized: cost of the month's complete days + the average "
    f"daily cost of the last {RUN_RATE_DAYS} complete days without purchases x the days left, "
    "today included + the purchases and refunds already billed for those days."
)
ZERO = Decimal(0)


@dataclasses.dataclass(frozen=True)
class DayMoney:
    """One Beijing day's amortized money and the part of it spread from purchases/refunds."""

    amortized: Decimal = ZERO
    spread: Decimal = ZERO


@dataclasses.dataclass(frozen=True)
class Forecast:
    month: str
    month_start: dt.date
    month_end: dt.date
    today: dt.date
    spent: Decimal
    spent_before_today: Decimal
    run_rate_daily: Decimal
    run_rate_days: int
    days_left: int
    known_purchases: Decimal
    forecast: Decimal
    method: str = METHOD


def bill_month_of(moment: dt.datetime) -> str:
    """The bill month (yyyy-mm, Beijing time) of ``moment``."""
    return moment.astimezone(BEIJING).strftime("%Y-%m")


def forecast_of(days: Mapping[dt.date, DayMoney], month: str, as_of: dt.datetime) -> Forecast:
    """The forecast of bill ``month`` as of ``as_of`` from its Beijing days' money (the days of
    the month and the ``RUN_RATE_DAYS`` before today; missing days hold nothing)."""
    start, end = bill_month_bounds(month)
    month_start = start.astimezone(BEIJING).date()
    month_end = (end - dt.timedelta(days=1)).astimezone(BEIJING).date()
    today = as_of.astimezone(BEIJING).date()

    def total(first: dt.date, last: dt.date, *, field: str = "amortized") -> Decimal:
        return sum(
            (getattr(money, field) for day, money in days.items() if first <= day <= last), ZERO
        )

    if today < month_start or today > month_end:
        # Not begun: nothing yet. Ended: what it cost, nothing left to forecast.
        spent = total(month_start, month_end) if today > month_end else ZERO
        return Forecast(
            month=month,
            month_start=month_start,
            month_end=month_end,
            today=min(max(today, month_start), month_end),
            spent=spent,
            spent_before_today=spent,
            run_rate_daily=ZERO,
            run_rate_days=RUN_RATE_DAYS,
            days_left=0,
            known_purchases=ZERO,
            forecast=spent,
        )
    yesterday = today - dt.timedelta(days=1)
    before = total(month_start, yesterday)
    window_start = today - dt.timedelta(days=RUN_RATE_DAYS)
    recent = total(window_start, yesterday) - total(window_start, yesterday, field="spread")
    rate = (recent / RUN_RATE_DAYS).quantize(CENT, rounding=ROUND_HALF_UP)
    days_left = (month_end - today).days + 1
    known = total(today, month_end, field="spread")
    return Forecast(
        month=month,
        month_start=month_start,
        month_end=month_end,
        today=today,
        spent=before + total(today, today),
        spent_before_today=before,
        run_rate_daily=rate,
        run_rate_days=RUN_RATE_DAYS,
        days_left=days_left,
        known_purchases=known,
        forecast=before + rate * days_left + known,
    )


def _read_window(month: str) -> tuple[dt.date, dt.date]:
    start, end = bill_month_bounds(month)
    first, last = start.astimezone(BEIJING).date(), (end - dt.timedelta(days=1)).astimezone(BEIJING)
    return first - dt.timedelta(days=RUN_RATE_DAYS), last.date()


def project_day_money(
    organization: Organization,
    currency: str,
    month: str,
    *,
    project_slugs: Collection[str] | None = None,
    until: dt.datetime | None = None,
) -> dict[int | None, dict[dt.date, DayMoney]]:
    """Project id (None: unallocated) -> Beijing day -> money, of the days ``forecast_of``
    reads for ``month``; only the projects named by ``project_slugs`` when given. One query.

    With ``until`` (a moment in the past: a budget as of the bills' boundary), the lines of
    ``until``'s day count only if they begin before it (a second query, over that day's lines);
    its spread share counts in full, as every day's does."""
    out = _day_money(_bill_days(organization, currency, month, project_slugs))
    if until is not None:
        _cut_at(out, organization, currency, until)
    return out


def day_money(
    organization: Organization,
    currency: str,
    month: str,
    *,
    project_slugs: Collection[str] | None = None,
) -> dict[dt.date, DayMoney]:
    """``merged(project_day_money(...))`` summed by the database: one row per day (~40)
    instead of one per project and day (~300 on the bench's 20 projects), which the cost
    report's month to date paid ~3 ms a request (under cProfile) to read and merge."""
    rows = _bill_days(organization, currency, month, project_slugs)
    return {
        day: DayMoney(amortized=amortized, spread=spread)
        for (day,), (amortized, spread) in grouped_sums_many(rows, ("day",), ("cost", "spread"))
    }


def _bill_days(
    organization: Organization,
    currency: str,
    month: str,
    project_slugs: Collection[str] | None,
) -> QuerySet[CostBillDay]:
    """The ``CostBillDay`` rows ``forecast_of`` reads for ``month`` (of ``project_slugs``)."""
    first, last = _read_window(month)
    rows = CostBillDay.objects.for_organization(organization).filter(
        currency=currency, day__gte=first, day__lte=last
    )
    if project_slugs is not None:
        rows = rows.filter(project__slug__in=list(project_slugs))
    return rows


def _cut_at(
    out: dict[int | None, dict[dt.date, DayMoney]],
    organization: Organization,
    currency: str,
    until: dt.datetime,
) -> None:
    """Replace the kept (not spread) money of ``until``'s Beijing day by its lines' that begin
    before ``until``."""
    day = until.astimezone(BEIJING).date()
    start = dt.datetime.combine(day, dt.time(), tzinfo=BEIJING)
    lines = BillLine.objects.for_organization(organization).filter(
        currency=currency, fee_begin_at__gte=start, fee_begin_at__lt=until
    )
    kept = cost_totals(bases.kept_lines(lines), "project_id")
    for days in out.values():
        if day in days:
            days[day] = DayMoney(amortized=days[day].spread, spread=days[day].spread)
    for project_id, amount in kept.items():
        if project_id not in out:
            continue
        before = out[project_id].get(day, DayMoney())
        out[project_id][day] = DayMoney(before.amortized + amount, before.spread)


def _day_money(rows: QuerySet[CostBillDay]) -> dict[int | None, dict[dt.date, DayMoney]]:
    out: dict[int | None, dict[dt.date, DayMoney]] = defaultdict(dict)
    # Both sums in one query (the report's month to date paid a second pass over the rows).
    for (project_id, day), (amortized, spread) in grouped_sums_many(
        rows, ("project_id", "day"), ("cost", "spread")
    ):
        out[project_id][day] = DayMoney(amortized=amortized, spread=spread)
    return dict(out)


def merged(per_project: Mapping[int | None, Mapping[dt.date, DayMoney]]) -> dict[dt.date, DayMoney]:
    """The days' money of all of ``per_project`` together."""
    out: dict[dt.date, DayMoney] = {}
    for days in per_project.values():
        for day, money in days.items():
            before = out.get(day, DayMoney())
            out[day] = DayMoney(before.amortized + money.amortized, before.spread + money.spread)
    return out


def month_end_forecast(
    organization: Organization,
    *,
    currency: str,
    as_of: dt.datetime,
    month: str | None = None,
    project_slugs: Collection[str] | None = None,
) -> Forecast:
    """The forecast of the organization (or of the projects ``project_slugs``) for bill
    ``month`` (default: the bill month of ``as_of``)."""
    month = month or bill_month_of(as_of)
    days = day_money(organization, currency, month, project_slugs=project_slugs)
    return forecast_of(days, month, as_of)
