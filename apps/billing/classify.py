"""What a bill line is, read from what the bill itself says (pure: no Django, no database).

Tencent documents a CVM bill line (``DescribeBillDetail``) as one charge of one resource for one
period, with one ``ComponentSet`` entry per part billed (compute, GPU, system and data disks,
network). Three things about it decide every figure derived from it, and none of them may be read
from a code we expect to see: ``ActionType`` codes are not a documented stable list, and component
codes differ by product, region and era. So each is read from the *names* Tencent documents (the
Chinese transaction type ``ActionTypeName``, the pay mode, a component's ``ComponentCodeName``),
with the codes only as a second opinion:

- ``charge_type``: how the resource was bought (spot, subscription, pay-as-you-go), from
  ``ActionTypeName`` (竞价实例小时结 is spot), a component's ``InstanceType`` (``spot``),
  ``PayModeName`` (包年包月 / 按量计费) and ``PayMode`` (prePay / postPay); "" when the line
  says nothing about it.
- ``charge_category``: usage, a purchase (新购, 续费, 升配), a refund (退款, 退费, 转按量,
  降配), a credit (调账 naming a compensation: SLA 赔偿, 补偿) or another adjustment (调账).
- ``component_class`` of each component: ``runtime`` (CPU, memory, GPU: what stops billing when
  an instance is stopped with STOP_CHARGING), ``storage`` (disks, snapshots, images: keep billing),
  ``network`` (bandwidth, traffic, public IPs: keep billing) or ``unknown``. Prices treat an
  unknown component as runtime, and count it visibly, rather than drop money they cannot place.
- ``commitment`` of each component: ``RI`` or ``SP`` when a reserved instance or savings plan
  paid for (part of) it, from the component's ``InstanceType``.

The rules are word lists, matched in order, so a name we have never seen falls through to a safe
default instead of a wrong class. ``apps/billing/migrations/0006`` holds a frozen copy of these
rules for the rows stored before the columns existed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

POSTPAID = "POSTPAID_BY_HOUR"
PREPAID = "PREPAID"
SPOT = "SPOTPAID"

USAGE = "usage"
PURCHASE = "purchase"
REFUND = "refund"
CREDIT = "credit"
ADJUSTMENT = "adjustment"

RUNTIME = "runtime"
STORAGE = "storage"
NETWORK = "network"
UNKNOWN = "unknown"
#: What counts as an hour of running an instance: unknown components are priced as runtime.
PRICED_AS_RUNTIME = (RUNTIME, UNKNOWN)

RESERVED_INSTANCE = "RI"
SAVINGS_PLAN = "SP"

# Transaction types (ActionTypeName), most specific first. 转按量 (a subscription converted to
# pay-as-you-go) and 降配 (a downgrade) pay the unused part back: refunds.
_CATEGORY_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (REFUND, ("退款", "退费", "退还", "转按量", "降配", "refund")),
    (PURCHASE, ("新购", "续费", "升配", "购买", "预付", "purchase", "renew")),
)
_ADJUSTMENT_WORDS = ("调账", "adjust")
_CREDIT_WORDS = ("赔偿", "补偿", "赔付", "sla", "credit", "代金")

# Component names (ComponentCodeName, ItemCodeName) and code words, per class. Storage and
# network before runtime: "高性能云硬盘" is a disk although nothing in it says so in English,
# while a compute component's name (运算组件-GPU计算型GN7-8核32G) has no disk or network word.
_CLASS_NAME_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (STORAGE, ("盘", "存储", "快照", "镜像")),
    (NETWORK, ("带宽", "流量", "公网", "网络", "弹性ip", "ip地址", "负载均衡")),
    (RUNTIME, ("运算", "计算", "cpu", "内存", "gpu", "显卡", "vgpu", "实例")),
)
_CLASS_CODE_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    (STORAGE, frozenset({"disk", "cbs", "storage", "snapshot", "image", "ssd", "hdd"})),
    (
        NETWORK,
        frozenset({"bandwidth", "traffic", "network", "net", "eip", "ip", "internet", "clb"}),
    ),
    (RUNTIME, frozenset({"compute", "cpu", "mem", "memory", "gpu", "vgpu", "instance"})),
)
_CODE_TOKEN = re.compile(r"[a-z0-9]+")


def _text(value: Any) -> str:
    return str(value or "").strip().lower()


def charge_type_of(line: Mapping[str, Any]) -> str:
    """The charge type a raw ``BillDetail`` dict states; "" when it states none."""
    action = _text(line.get("ActionTypeName"))
    kinds = {_text(c.get("InstanceType")) for c in line.get("ComponentSet") or []}
    if "竞价" in action or "spot" in kinds:
        return SPOT
    pay_mode_name = _text(line.get("PayModeName"))
    pay_mode = _text(line.get("PayMode"))
    if "包年包月" in action or "包年包月" in pay_mode_name or pay_mode == "prepay":
        return PREPAID
    if "按量" in action or "按量" in pay_mode_name or pay_mode == "postpay":
        return POSTPAID
    return ""


def charge_category_of(line: Mapping[str, Any]) -> str:
    """Usage, purchase, refund, credit or adjustment, from the line's transaction type."""
    action = _text(line.get("ActionTypeName"))
    if any(word in action for word in _ADJUSTMENT_WORDS):
        names = " ".join(
            _text(c.get(field))
            for c in line.get("ComponentSet") or []
            for field in ("ItemCodeName", "ComponentCodeName")
        )
        return CREDIT if any(w in f"{action} {names}" for w in _CREDIT_WORDS) else ADJUSTMENT
    for category, words in _CATEGORY_WORDS:
        if any(word in action for word in words):
            return category
    return USAGE


def component_class_of(component: Mapping[str, Any]) -> str:
    """Runtime, storage, network or unknown: the component's own name decides, then its
    item's name, then the words of its codes."""
    for field in ("ComponentCodeName", "ItemCodeName"):
        name = _text(component.get(field))
        for component_class, words in _CLASS_NAME_WORDS:
            if name and any(word in name for word in words):
                return component_class
    tokens = _code_tokens(component.get(f) for f in ("ComponentCode", "ItemCode"))
    for component_class, code_words in _CLASS_CODE_WORDS:
        if tokens & code_words:
            return component_class
    return UNKNOWN


def _code_tokens(codes: Iterable[Any]) -> set[str]:
    return {token for code in codes for token in _CODE_TOKEN.findall(_text(code))}


def commitment_of(component: Mapping[str, Any]) -> str:
    """``RI`` or ``SP`` when a commitment paid for the component, else ""."""
    kind = _text(component.get("InstanceType"))
    if kind == "ri" or "预留" in kind:
        return RESERVED_INSTANCE
    if kind == "sp" or "节省" in kind:
        return SAVINGS_PLAN
    return ""
