"""Billing 2018-07-09: DescribeBillDetail and DescribeAccountBalance."""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import datetime
from typing import Any

from ..billing import BillLine
from ..constants import (
    ACCOUNT_UIN,
    BEIJING,
    BILL_DETAIL_DEFAULT_LIMIT,
    BILL_DETAIL_MAX_LIMIT,
    month_bounds,
    month_of,
)
from ..errors import ApiError, invalid_value
from .params import RequestContext, check, paging

MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
# Bills are kept for 18 months.
MAX_MONTHS_BACK = 18


def _month_from_times(begin: str, end: str) -> str:
    try:
        first = datetime.strptime(begin, "%Y-%m-%d %H:%M:%S")
        last = datetime.strptime(end, "%Y-%m-%d %H:%M:%S")
    except ValueError as exc:
        raise invalid_value("BeginTime", "expected yyyy-mm-dd hh:ii:ss") from exc
    if (first.year, first.month) != (last.year, last.month):
        raise invalid_value("EndTime", "BeginTime and EndTime must be in the same month")
    if last < first:
        raise invalid_value("EndTime", "EndTime must not be earlier than BeginTime")
    return first.strftime("%Y-%m")


def _encode_context(month: str, settled: int, offset: int) -> str:
    raw = json.dumps({"m": month, "s": settled, "o": offset}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_context(context: str) -> tuple[str, int]:
    try:
        raw = base64.urlsafe_b64decode(context + "=" * (-len(context) % 4))
        data = json.loads(raw)
        return str(data["m"]), int(data["s"])
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise invalid_value("Context", "not a Context returned by this API") from exc


def _line_matches(line: BillLine, params: dict[str, Any]) -> bool:
    detail = line.detail
    return (
        params.get("ResourceId") in (None, detail["ResourceId"])
        and params.get("PayMode") in (None, line.pay_mode)
        and params.get("ActionType") in (None, detail["ActionTypeName"])
        and params.get("BusinessCode") in (None, detail["BusinessCode"])
        and params.get("ProjectId") in (None, detail["ProjectId"])
    )


def describe_bill_detail(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """One page of a month's bill lines. ``Context`` pins the snapshot of the first page."""
    check(
        params,
        {
            "Offset": int,
            "Limit": int,
            "PeriodType": str,
            "Month": str,
            "BeginTime": str,
            "EndTime": str,
            "NeedRecordNum": int,
            "ProductCode": str,
            "PayMode": str,
            "ResourceId": str,
            "ActionType": str,
            "ProjectId": int,
            "BusinessCode": str,
            "Context": str,
            "PayerUin": str,
        },
        required=("Offset", "Limit"),
    )
    offset, limit = paging(
        params,
        BILL_DETAIL_DEFAULT_LIMIT,
        BILL_DETAIL_MAX_LIMIT,
        "InvalidParameterValue.LimitExceeded",
    )
    if params.get("PeriodType") not in (None, "byUsedTime", "byPayTime"):
        raise invalid_value("PeriodType", "must be byUsedTime or byPayTime")
    if params.get("PayMode") not in (None, "prePay", "postPay"):
        raise invalid_value("PayMode", "must be prePay or postPay")
    if params.get("PayerUin") not in (None, ACCOUNT_UIN):
        raise ApiError("UnauthorizedOperation.CamNoAuth", "No permission for this PayerUin.")
    if params.get("Month") is not None:
        month = params["Month"]
        if not MONTH.match(month):
            raise invalid_value("Month", "expected yyyy-mm")
    elif params.get("BeginTime") is not None and params.get("EndTime") is not None:
        month = _month_from_times(params["BeginTime"], params["EndTime"])
    else:
        raise ApiError(
            "MissingParameter", "Either `Month` or `BeginTime` and `EndTime` is required."
        )
    now_month = month_of(ctx.now)
    oldest = datetime.fromtimestamp(ctx.now, BEIJING)
    oldest_index = oldest.year * 12 + oldest.month - 1 - MAX_MONTHS_BACK
    year, mon = (int(p) for p in month.split("-"))
    if year * 12 + mon - 1 < oldest_index:
        raise invalid_value("Month", f"bills are kept for {MAX_MONTHS_BACK} months")

    settled = ctx.cloud.bills.settled_until(ctx.now)
    if params.get("Context"):
        context_month, settled = _decode_context(params["Context"])
        if context_month != month:
            raise invalid_value("Context", "the Context belongs to another month")
    if month > now_month or month_bounds(month)[0] > ctx.now:
        lines: list[BillLine] = []
    else:
        lines = [
            line for line in ctx.cloud.bills.lines(month, settled) if _line_matches(line, params)
        ]
    page = lines[offset : offset + limit]
    return {
        "DetailSet": [line.detail for line in page],
        "Total": len(lines),
        "Context": _encode_context(month, settled, offset + len(page)),
    }


def describe_account_balance(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """Balances in fen: the initial cash minus every bill line settled so far."""
    check(params, {"TempCredit": bool})
    cash = ctx.cloud.bills.balance_fen(ctx.now)
    return {
        "Balance": cash,
        "Uin": int(ACCOUNT_UIN),
        "RealBalance": cash,
        "CashAccountBalance": cash,
        "IncomeIntoAccountBalance": 0,
        "PresentAccountBalance": 0,
        "FreezeAmount": 0,
        "OweAmount": 0,
        "IsAllowArrears": False,
        "IsCreditLimited": False,
        "CreditAmount": 0,
        "CreditBalance": 0,
        "RealCreditBalance": 0,
        "TempCredit": 0,
        "TempAmountInfoList": [],
    }
