"""The data of ``bench.bench_api``: a fleet billed the way Tencent documents a GPU bill.

DOMAIN.md, "How a GPU bill looks": a bill line is one charge of one resource for one period, and
the product stores one ``BillLine`` per (line, component) (``apps.billing.sync``: unique on
account, BillId, ComponentCode, ItemCode). So each instance-hour of a pay-as-you-go or spot
instance is one BillId with a row per component: compute (运算组件), GPU, the system disk (系统盘),
a data disk (数据盘) on every other instance and public bandwidth (带宽) on one in four. Codes and
names are the simulator's (``apps/cloud/providers/tencent/simulator/components.py``, after
Tencent's documented examples); ``component_class`` / ``charge_type`` / ``charge_category`` are
what ``apps.billing.classify`` reads from those names, and ``classification_check`` checks that
on every distinct shape written, so the bench cannot drift from the classifier.

The fleet mixes three ways of paying (by instance index ``n``):

- ``n % 20 < 3``: prepaid (PREPAID). No hourly lines: one line per month, 包年包月新购 for the
  first and 包年包月续费 for each renewal, at the instance's anniversary hour, covering the month
  to the second before the next renewal (charge_category purchase): what amortization spreads.
- ``3 <= n % 20 < 6``: spot (SPOTPAID). 竞价实例小时结 under the pay-as-you-go ActionType code
  (no "spot" in it); the runtime parts (compute, GPU) paid at a fifth of their list price,
  disks and bandwidth at the pay-as-you-go price.
- the rest: pay-as-you-go (POSTPAID_BY_HOUR), 按量计费小时结, at a per-instance discount.

Hourly lines for the last ``hourly_days`` Beijing days (by default the 92 days the Overview's
reads reach: 30 days, their previous 30, this month and the same days of last month); before
that, to a year, the same components *daily-aggregated*: the 24 hourly lines of a component and
day summed into one line (00:00:00-23:59:59 Beijing, TimeSpan 86,400 s) with the same names, so
a year x 1,000 instances stays ~9 M rows instead of ~28 M (a few minutes on 2 cores instead of
half an hour). ``--hourly-days 365`` builds the whole year hourly.

Everything is generated inside PostgreSQL (``INSERT ... SELECT`` over ``generate_series``: no
row crosses the wire).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import zoneinfo
from collections.abc import Iterator
from typing import Any

BEIJING = zoneinfo.ZoneInfo("Asia/Shanghai")
PAYER_UIN = "100012345678"
PREPAID_EVERY = (0, 3)  # n % 20 in [0, 3): prepaid
SPOT_EVERY = (3, 6)  # n % 20 in [3, 6): spot
SPOT_RUNTIME_RATE = "0.2"
MONTHLY_DISCOUNT = "0.65"
HOURS_PER_MONTH = 720

# (ComponentCode, ItemCode, ComponentCodeName, ItemCodeName, class, runtime, hourly list price
# per unit, units (SQL over the instance ``f``), unit, who has it: all / data (every other) /
# band (one in four)). Prices after the simulator's catalog: T4 class cards, premium disks.
COMPONENTS: tuple[tuple[str, str, str, str, str, bool, str, str, str, str], ...] = (
    ("virtual_v_cvm_compute", "virtual_v_cvm_compute_gn7", "运算组件",
     "运算组件-GPU计算型GN7-8核32G", "runtime", True, "1.32", "f.gpu_count", "个", "all"),
    ("v_cvm_gpu", "sv_cvm_gpu_t4", "GPU", "GPU-1*NVIDIA T4", "runtime", True, "6.90",
     "f.gpu_count", "个", "all"),
    ("v_cvm_rootdisk", "sv_cvm_rootdisk_cbspremium", "系统盘", "高性能云系统盘", "storage",
     False, "0.0005", "100", "GB", "all"),
    ("v_cvm_datadisk", "sv_cvm_datadisk_cbsssd", "数据盘", "SSD云数据盘", "storage", False,
     "0.0014", "500", "GB", "data"),
    ("v_cvm_bandwidth", "sv_cvm_bandwidth_postpay", "带宽", "带宽-按带宽计费", "network", False,
     "0.06", "10", "Mbps", "band"),
)  # fmt: skip

# The line shapes: (ActionType, ActionTypeName, PayModeName, charge_type, charge_category).
_PAYG = ("postpay_deduct_h", "按量计费小时结", "按量计费", "POSTPAID_BY_HOUR", "usage")
_SPOT = ("postpay_deduct_h", "竞价实例小时结", "按量计费", "SPOTPAID", "usage")
_PURCHASE = ("prepay_purchase", "包年包月新购", "包年包月", "PREPAID", "purchase")
_RENEW = ("prepay_renew", "包年包月续费", "包年包月", "PREPAID", "purchase")

_COLUMNS = (
    "organization_id, account_id, bill_id, component_code, item_code, month, resource_id, "
    "resource_name, instance_id, project_id, product_name, component_name, item_name, "
    "pay_mode_name, action_type, action_type_name, region_name, zone_name, fee_begin_at, "
    "fee_end_at, list_cost, cost, cash_paid, voucher_paid, incentive_paid, transfer_paid, "
    "currency, used_amount, used_unit, time_span, time_unit, tags, charge_type, "
    "charge_category, component_class, commitment, single_price, contract_price, price_unit, "
    "payer_uin, owner_uin, pay_time, created_at, updated_at"
)


def charge_type_of_index(n: int) -> str:
    """How instance ``n`` of the fleet is bought."""
    if PREPAID_EVERY[0] <= n % 20 < PREPAID_EVERY[1]:
        return "PREPAID"
    if SPOT_EVERY[0] <= n % 20 < SPOT_EVERY[1]:
        return "SPOTPAID"
    return "POSTPAID_BY_HOUR"


def _parts_sql() -> str:
    """The fleet's instances crossed with the components each has (SQL ``FROM`` fragment)."""
    values = ", ".join(
        f"('{code}', '{item}', '{name}', '{item_name}', '{cls}', {str(runtime).lower()}, "
        f"{price}::numeric, '{unit}', '{who}')"
        for code, item, name, item_name, cls, runtime, price, _units, unit, who in COMPONENTS
    )
    units = " ".join(
        f"WHEN '{code}' THEN {units_sql}" for code, *_rest, units_sql, _unit, _who in COMPONENTS
    )
    return f"""
        (SELECT i.id, i.provider_id, i.name, i.project_id, i.tags, i.gpu_count, i.charge_type,
                (row_number() OVER (ORDER BY i.id) - 1)::int AS n
         FROM cloud_instance i WHERE i.organization_id = %(org)s) f
        CROSS JOIN LATERAL (
            SELECT c.*, (CASE c.code {units} END)::numeric AS units
            FROM (VALUES {values}) AS c(code, item, name, item_name, class, runtime, price,
                                        unit, who)
            WHERE c.who = 'all' OR (c.who = 'data' AND f.n %% 2 = 0)
               OR (c.who = 'band' AND f.n %% 4 = 1)
        ) c
    """


def _shape_case(column: int) -> str:
    """The spot or pay-as-you-go value of a shape column, by the instance's charge type."""
    return f"CASE WHEN f.charge_type = 'SPOTPAID' THEN '{_SPOT[column]}' ELSE '{_PAYG[column]}' END"


def _usage_lines(cursor: Any, params: dict[str, Any], *, hours_per_line: int) -> None:
    """Usage lines of the spot and pay-as-you-go instances, one per component per period of
    ``hours_per_line`` hours (1: hourly; 24: a day's hourly lines summed) in ``[first, until)``."""
    # The unit price paid: spot runtime parts at a fifth of list; everything else at the
    # instance's discount (80-98 % of list).
    contract = (
        f"round(c.price * CASE WHEN f.charge_type = 'SPOTPAID' AND c.runtime "
        f"THEN {SPOT_RUNTIME_RATE} ELSE 0.8 + 0.02 * (f.n %% 10) END, 8)"
    )
    step = f"interval '{hours_per_line} hours'"
    suffix = "h" if hours_per_line == 1 else "d"
    cursor.execute(
        f"""
        INSERT INTO billing_billline ({_COLUMNS})
        SELECT %(org)s, %(account)s,
            f.provider_id || '-{suffix}' || extract(epoch FROM h)::bigint,
            c.code, c.item, to_char(h AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM'),
            f.provider_id, f.name, f.id, f.project_id, '云服务器CVM', c.name, c.item_name,
            {_shape_case(2)}, {_shape_case(0)}, {_shape_case(1)}, '华东地区（上海）', '上海二区',
            h, h + {step} - interval '1 second',
            round(c.price * c.units * {hours_per_line}, 8),
            {contract} * c.units * {hours_per_line},
            {contract} * c.units * {hours_per_line}, 0, 0, 0,
            'CNY', c.units, c.unit, {3600 * hours_per_line}, '秒', f.tags, f.charge_type,
            'usage', c.class, '', c.price, {contract}, '元/' || c.unit || '/小时',
            '{PAYER_UIN}', '{PAYER_UIN}', h + {step}, now(), now()
        FROM {_parts_sql()}
        CROSS JOIN generate_series(%(first)s::timestamptz,
                                   %(until)s::timestamptz - {step}, {step}) h
        WHERE f.charge_type <> 'PREPAID'
        """,
        params,
    )


def _prepaid_lines(cursor: Any, params: dict[str, Any]) -> None:
    """One purchase line per prepaid instance and month: 新购 for the first, 续费 after, at the
    instance's anniversary hour (day 1 + n % 28, 10:00 Beijing), covering to the second before
    the next one. Those beginning before ``first`` but covering part of it are included."""
    cursor.execute(
        f"""
        INSERT INTO billing_billline ({_COLUMNS})
        SELECT %(org)s, %(account)s, f.provider_id || '-m' || extract(epoch FROM b)::bigint,
            c.code, replace(c.item, '_postpay', '_prepay'),
            to_char(b AT TIME ZONE 'Asia/Shanghai', 'YYYY-MM'),
            f.provider_id, f.name, f.id, f.project_id, '云服务器CVM', c.name, c.item_name,
            '{_RENEW[2]}',
            CASE WHEN k = 0 THEN '{_PURCHASE[0]}' ELSE '{_RENEW[0]}' END,
            CASE WHEN k = 0 THEN '{_PURCHASE[1]}' ELSE '{_RENEW[1]}' END,
            '华东地区（上海）', '上海二区', b, e,
            round(c.price * {HOURS_PER_MONTH} * c.units, 8),
            round(c.price * {HOURS_PER_MONTH} * {MONTHLY_DISCOUNT}, 8) * c.units,
            round(c.price * {HOURS_PER_MONTH} * {MONTHLY_DISCOUNT}, 8) * c.units, 0, 0, 0,
            'CNY', c.units, c.unit, 1, '月', f.tags, 'PREPAID', 'purchase', c.class, '',
            round(c.price * {HOURS_PER_MONTH}, 8),
            round(c.price * {HOURS_PER_MONTH} * {MONTHLY_DISCOUNT}, 8),
            '元/' || c.unit || '/月', '{PAYER_UIN}', '{PAYER_UIN}', b, now(), now()
        FROM {_parts_sql()}
        CROSS JOIN LATERAL generate_series(0, %(months)s) k
        CROSS JOIN LATERAL (
            SELECT ((%(anchor)s::timestamp + (f.n %% 28) * interval '1 day'
                     + k * interval '1 month') AT TIME ZONE 'Asia/Shanghai') AS b,
                   ((%(anchor)s::timestamp + (f.n %% 28) * interval '1 day'
                     + (k + 1) * interval '1 month') AT TIME ZONE 'Asia/Shanghai')
                   - interval '1 second' AS e
        ) p
        WHERE f.charge_type = 'PREPAID' AND b < %(until)s AND e >= %(first)s
        """,
        params,
    )


def bill_lines_build(
    cursor: Any, *, organization_id: int, account_id: int, today: dt.date, days: int,
    hourly_days: int, until: dt.datetime,
) -> dict[str, int]:  # fmt: skip
    """A year (``days``) of the fleet's bill lines up to ``until`` (the last whole hour):
    daily-aggregated before the last ``hourly_days`` Beijing days, hourly after. Returns the
    lines written per shape."""
    first = dt.datetime.combine(today - dt.timedelta(days=days), dt.time(), tzinfo=BEIJING)
    hourly_first = dt.datetime.combine(
        today - dt.timedelta(days=min(hourly_days, days)), dt.time(), tzinfo=BEIJING
    )
    params = {"org": organization_id, "account": account_id}
    written: dict[str, int] = {}
    if hourly_first > first:
        _usage_lines(cursor, {**params, "first": first, "until": hourly_first}, hours_per_line=24)
        written["daily-aggregated usage"] = cursor.rowcount
    _usage_lines(cursor, {**params, "first": hourly_first, "until": until}, hours_per_line=1)
    written["hourly usage"] = cursor.rowcount
    # Anniversaries from the Beijing month before ``first`` on: the line covering ``first``.
    month_before = (first.replace(day=1) - dt.timedelta(days=1)).replace(day=1)
    anchor = dt.datetime.combine(month_before.date(), dt.time(10))
    _prepaid_lines(
        cursor,
        {**params, "first": first, "until": until, "anchor": anchor, "months": days // 28 + 2},
    )
    written["prepaid purchases and renewals"] = cursor.rowcount
    return written


def classification_check(cursor: Any, organization_id: int) -> int:
    """Every distinct line shape written, read back through ``apps.billing.classify`` as the
    sync would read the raw line: exit if any class, charge type or category disagrees.
    Returns how many shapes were checked."""
    from apps.billing import classify

    cursor.execute(
        "SELECT DISTINCT action_type_name, pay_mode_name, component_code, component_name, "
        "item_code, item_name, charge_type, charge_category, component_class "
        "FROM billing_billline WHERE organization_id = %s",
        [organization_id],
    )
    shapes = cursor.fetchall()
    wrong = []
    for action, pay_mode, code, name, item, item_name, charge_type, category, cls in shapes:
        component = {
            "ComponentCode": code,
            "ComponentCodeName": name,
            "ItemCode": item,
            "ItemCodeName": item_name,
        }
        raw = {"ActionTypeName": action, "PayModeName": pay_mode, "ComponentSet": [component]}
        read = (
            classify.charge_type_of(raw),
            classify.charge_category_of(raw),
            classify.component_class_of(component),
        )
        if read != (charge_type, category, cls):
            wrong.append(f"{action}/{name}: stored {(charge_type, category, cls)}, read {read}")
    if wrong:
        raise SystemExit("bench lines disagree with apps.billing.classify: " + "; ".join(wrong))
    return len(shapes)


@contextlib.contextmanager
def bulk_load(cursor: Any, tables: list[str]) -> Iterator[None]:
    """Load ``tables`` without their indexes and constraints, then build them once.

    The usual bulk-load practice: updating half a dozen indexes and queueing a deferred foreign
    key check per row is most of an INSERT's cost; one index build over the loaded table is a
    sort. Primary keys stay; everything else is recreated exactly from its definition.
    """
    cursor.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid::regclass::text = ANY(%s) AND contype IN ('u', 'f')",
        [tables],
    )
    constraints = cursor.fetchall()
    for table, name, _definition in constraints:
        cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    cursor.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = ANY(%s) "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
        [tables],
    )
    indexes = cursor.fetchall()
    for name, _definition in indexes:
        cursor.execute(f'DROP INDEX "{name}"')
    yield
    for _name, definition in indexes:
        cursor.execute(definition)
    for table, name, definition in constraints:
        cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def rollups_build(cursor: Any, organization_id: int, first: dt.date, until: dt.date) -> None:
    """Hourly and daily metric rollups of every instance for ``[first, until)``, in SQL."""
    from apps.metrics.models import InstanceDayRollup, InstanceHourRollup

    util = "(35 + 30 * sin(i.id + extract(epoch FROM h) / 7200.0) + 10 * random())"
    known = {
        "organization_id": str(organization_id),
        "instance_id": "i.id",
        "created_at": "now()",
        "updated_at": "now()",
        "gpu_util_pct_avg": util,
        "gpu_util_pct_p95": f"LEAST({util} + 15, 100)",
        "gpu_util_pct_max": f"LEAST({util} + 25, 100)",
        "gpu_util_pct_minutes": "60",
        "cpu_util_pct_avg": "20 + 10 * random()",
        "cpu_util_pct_minutes": "60",
        "gpu_count": "i.gpu_count",
        "gpu_hours": "i.gpu_count",
        "gpu_busy_hours": f"i.gpu_count * {util} / 100",
        "currency": "''",
    }
    for model, grain, column, step in (
        (InstanceHourRollup, "hour", "hour_start", "1 hour"),
        (InstanceDayRollup, "day", "day", "1 day"),
    ):
        exprs = {**known, column: "h" if grain == "hour" else "h::date"}
        if grain == "day":
            exprs.update(
                gpu_util_pct_minutes="1440",
                cpu_util_pct_minutes="1440",
                gpu_hours="i.gpu_count * 24",
                gpu_busy_hours=f"i.gpu_count * 24 * {util} / 100",
                project_id="i.project_id",
            )
        columns, values = [], []
        for field in model._meta.concrete_fields:
            if field.primary_key:
                continue
            columns.append(str(field.column))
            if field.column in exprs:
                values.append(exprs[field.column])
            elif field.get_internal_type() in ("PositiveSmallIntegerField", "PositiveIntegerField"):
                values.append("0")
            else:
                values.append("NULL")
        cursor.execute(
            f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}) "
            f"SELECT {', '.join(values)} FROM cloud_instance i CROSS JOIN generate_series("
            f"%s::timestamptz, %s::timestamptz - interval '{step}', interval '{step}') h "
            "WHERE i.organization_id = %s",
            [
                dt.datetime.combine(first, dt.time(), tzinfo=dt.UTC),
                dt.datetime.combine(until, dt.time(), tzinfo=dt.UTC),
                organization_id,
            ],
        )
