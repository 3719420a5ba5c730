"""The pure inputs and outputs of the recommendation rules (no Django, no I/O, no clock).

Inputs are what the analysis, the metric rollups, the bills and the price catalog say about one
instance over the lookback; outputs are priced findings. Money is ``Decimal`` with its currency;
times are timezone-aware UTC datetimes passed in by the caller.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import numpy as np

POSTPAID = "POSTPAID_BY_HOUR"
PREPAID = "PREPAID"
SPOT = "SPOTPAID"

#: DescribeInstances' InstanceState of a stopped instance, and the StopChargingMode under
#: which a pay-as-you-go one bills no runtime while stopped.
STOPPED = "STOPPED"
STOP_CHARGING = "STOP_CHARGING"

PRICE_FROM_BILLS = "bills"
PRICE_FROM_CATALOG = "catalog"

#: The class ``apps.billing.classify`` gives a component it cannot place (priced as runtime).
UNKNOWN = "unknown"


@dataclasses.dataclass(frozen=True)
class BilledComponent:
    """One component of an instance's hourly usage lines over the lookback, as billed.

    ``component_class`` is runtime, storage, network or unknown; ``runtime`` says whether it
    is priced as runtime (billing's one definition, ``apps.billing.runtime``, decides: the
    rules do not repeat it); ``hours`` the hours its own lines bill (a disk bills while the
    instance is stopped, so its hours can exceed the instance's runtime hours).
    """

    component_class: str
    code: str
    name: str
    cost: Decimal
    hours: Decimal
    runtime: bool


@dataclasses.dataclass(frozen=True)
class TypeOffer:
    """One instance type sold in the instance's zone, with the account's prices.

    ``None`` where the catalog has no price for that charge type.
    """

    instance_type: str
    family: str
    gpu_model: str
    gpu_count: float
    gpu_memory_gb: float
    hourly_postpaid: Decimal | None = None
    monthly_prepaid: Decimal | None = None
    hourly_spot: Decimal | None = None
    currency: str = "CNY"


@dataclasses.dataclass(frozen=True)
class ReservedPrice:
    """An organization-entered reserved-instance price: an hourly equivalent, billed always."""

    region: str
    instance_type: str
    hourly: Decimal
    term_years: int
    currency: str


@dataclasses.dataclass(frozen=True)
class Profile:
    """The hour-of-week profile of the lookback's last 14 days, in the organization's timezone.

    ``p95_pct`` and ``coverage`` are 7 x 24 (Monday first); NaN p95 where nothing was observed.
    ``supporting_weeks`` comes from the analysis' off window (0 when it found none).
    """

    tz: str
    p95_pct: np.ndarray
    coverage: np.ndarray
    start_at: dt.datetime
    end_at: dt.datetime
    supporting_weeks: int = 0


@dataclasses.dataclass(frozen=True)
class InstanceEvidence:
    """Everything the rules know about one instance over ``[start, end)``.

    Hourly arrays hold one value per UTC hour of the lookback, NaN for an hour without data:
    the p95 and average GPU utilization, average and p95 GPU memory, p95 temperature and the
    observed minutes of GPU utilization. ``phase_minutes`` are the analysis' minutes per phase
    key over the lookback; ``phase_minutes_missing`` says, per phase key, how many of those
    minutes were classified without a metric (metric API name -> minutes, e.g.
    ``{"data_processing": {"cpu_util": 900}}``): what the analysis could not see. Billing: the
    runtime cost billed (every runtime component of the hours of use: compute, GPU, unknown
    components) and the hours it covers, each hour once (pay-as-you-go and spot lines only),
    and every usage component of the lookback (runtime and persistent: disks, IPs);
    ``existed_hours`` is how long the instance existed within the lookback. ``state`` and
    ``stop_charging_mode`` are what the last inventory sync read (DescribeInstances), not
    the state as of the lookback's end: whether it is stopped, and billed, now.
    """

    instance_id: int
    provider_id: str
    name: str
    region: str
    zone: str
    instance_type: str
    family: str
    gpu_model: str
    gpu_count: float
    gpu_memory_gb: float
    charge_type: str
    project_id: int | None
    start: dt.datetime
    end: dt.datetime
    existed_hours: float
    gpu_util_p95: np.ndarray
    gpu_util_avg: np.ndarray
    gpu_mem_avg: np.ndarray
    gpu_mem_p95: np.ndarray
    gpu_temp_p95: np.ndarray
    observed_minutes: np.ndarray
    phase_minutes: Mapping[str, int]
    phase_minutes_missing: Mapping[str, Mapping[str, int]] = dataclasses.field(default_factory=dict)
    billed_runtime_cost: Decimal = Decimal(0)
    billed_hours: Decimal = Decimal(0)
    billed_components: Sequence[BilledComponent] = ()
    currency: str = "CNY"
    offers: Sequence[TypeOffer] = ()
    reserved_prices: Sequence[ReservedPrice] = ()
    profile: Profile | None = None
    tags: Mapping[str, str] = dataclasses.field(default_factory=dict)
    state: str = ""
    stop_charging_mode: str = ""

    @property
    def observed_hours(self) -> int:
        """Hours with at least one observed minute of GPU utilization."""
        return int(np.count_nonzero(self.observed_minutes > 0))

    @property
    def evidence_days(self) -> float:
        return round(float(self.observed_minutes.sum()) / 1440.0, 2)

    def offer(self, instance_type: str | None = None) -> TypeOffer | None:
        wanted = instance_type or self.instance_type
        return next((o for o in self.offers if o.instance_type == wanted), None)


@dataclasses.dataclass(frozen=True)
class Text:
    """Words as a rule says them: a message code and its parameters, rendered in the reader's
    language where they are shown (``apps.recommendations.messages``): the rules write no prose.

    A parameter is data (a name, an id, a type, a command), a number as the rule formatted it
    (a string or a ``Decimal``: the rendering keeps it as it is), a nested ``Text`` (a sentence
    embedding another, e.g. how a price was found) or a list of those (joined the way the
    reader's language writes a list; ``Text(LIST_SEMICOLON, {"items": [...]})`` for clauses).
    """

    code: str
    params: Mapping[str, object] = dataclasses.field(default_factory=dict)


#: The codes of a list joined by semicolons (clauses) and by plus signs (a sum's parts); a bare
#: list parameter is joined by commas.
LIST_SEMICOLON = "list.semicolon"
LIST_PLUS = "list.plus"


def day_of_week(day: int) -> Text:
    """A weekday (0 = Monday), named in the reader's language."""
    return Text(f"weekday.{day}")


@dataclasses.dataclass(frozen=True)
class Saving:
    """A monthly saving and exactly how it was computed.

    Never negative: a change that costs more has no saving (``Finding.saving`` is None) and
    says what it costs in its own figures (``UpsizeFigures``).
    """

    monthly_amount: Decimal
    currency: str
    formula: Text
    price_source: str


@dataclasses.dataclass(frozen=True)
class PaidWhileWaiting:
    """What a month of the GPU waiting for data costs: money and GPU-hours, apart from savings.

    Not a saving: a faster input pipeline gives the waiting time back to the work, and the
    bill stays what it is unless the instance then shrinks. ``monthly_amount`` is None when no
    price is known (the GPU-hours still are); ``formula`` recomputes both from the evidence.
    """

    monthly_amount: Decimal | None
    gpu_hours_per_month: Decimal
    currency: str
    formula: Text
    price_source: str


#: Why an upsize finding proposes what it does: the next larger type of the family, or none
#: because the catalog of the instance's zone has no larger type of its family.
NEXT_IN_FAMILY = "next_in_family"
NO_LARGER_TYPE = "no_larger_type"


@dataclasses.dataclass(frozen=True)
class UpsizeFigures:
    """What relieving GPU memory pressure costs: per month and per unit of work.

    ``reason`` is ``NEXT_IN_FAMILY`` (``target_type`` is the family's next larger type) or
    ``NO_LARGER_TYPE`` (none in the zone's catalog: the pressure stands, nothing to price).
    ``monthly_extra_cost`` is what the same month's work costs more on the target, never
    negative (0.00 where it costs less: the finding's saving then says by how much); the
    samples per currency unit (BERT-base training samples per yuan for CNY) compare the work
    each buys. None where the target, the price or the throughput is unknown.
    """

    reason: str
    target_type: str | None
    monthly_extra_cost: Decimal | None
    current_samples_per_currency_unit: Decimal | None
    target_samples_per_currency_unit: Decimal | None
    currency: str
    formula: Text
    price_source: str


@dataclasses.dataclass(frozen=True)
class Confidence:
    evidence_days: float
    coverage_pct: float
    """Observed minutes as a share of the minutes the instance existed in the lookback."""
    level: str


@dataclasses.dataclass(frozen=True)
class Risk:
    level: int
    """0 (none) .. 4 (high): how likely the change hurts the workload."""
    reason: Text


@dataclasses.dataclass(frozen=True)
class Finding:
    """One priced recommendation as the rules produce it (not yet stored)."""

    kind: str
    instance_id: int | None
    project_id: int | None
    parameters: Mapping[str, object]
    """What identifies the finding beyond kind and target (e.g. the target type)."""
    title: Text
    explanation: Text
    saving: Saving | None
    """None where the finding saves nothing the bill shows (thermal, the data pipeline)."""
    confidence: Confidence
    risk: Risk
    evidence: Mapping[str, Any]
    action: Mapping[str, Any]
    """``steps`` (a list of ``Text``), ``commands`` and ``cron`` (shell lines, not words), the
    kind's own fields (a schedule's ``window``, ``still_billed_when_stopped`` as ``Text``)."""
    paid_while_waiting: PaidWhileWaiting | None = None
    upsize: UpsizeFigures | None = None
    role: str = "plan"
    """``plans.PLAN`` (part of the instance's plan: headline totals add these up) or
    ``plans.ALTERNATIVE`` (excludes or overlaps the plan: shown with its own figure)."""

    @property
    def target(self) -> str:
        if self.instance_id is not None:
            return f"instance:{self.instance_id}"
        return f"project:{self.project_id}"
