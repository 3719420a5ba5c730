"""Bill lines and balance snapshots, exactly as the cloud bills them.

One ``BillLine`` per (cloud bill line, component): Tencent splits an hourly line into a compute
component, a disk component and so on. Money is Decimal with the currency beside it; bill APIs
send yuan strings with 8 decimals, kept in full so totals reconcile to the cent.
"""

from __future__ import annotations

from typing import TypedDict

from django.db import models

from apps.billing import classify
from apps.cloud.models import ChargeType, CloudAccount, Instance, Project
from apps.core.models import OrganizationScopedModel


class _MoneyDigits(TypedDict):
    # A TypedDict, not a plain dict, so the type checker can match ``**MONEY`` to the field's
    # keyword arguments.
    max_digits: int
    decimal_places: int


MONEY: _MoneyDigits = {"max_digits": 20, "decimal_places": 8}


class ChargeCategory(models.TextChoices):
    """What a line is (``apps.billing.classify``): FOCUS's ChargeCategory, refunds apart."""

    USAGE = classify.USAGE, "Usage"
    PURCHASE = classify.PURCHASE, "Purchase"
    REFUND = classify.REFUND, "Refund"
    CREDIT = classify.CREDIT, "Credit"
    ADJUSTMENT = classify.ADJUSTMENT, "Adjustment"


class ComponentClass(models.TextChoices):
    """What a component pays for: runtime stops with STOP_CHARGING, storage and network don't."""

    RUNTIME = classify.RUNTIME, "Runtime (CPU, memory, GPU)"
    STORAGE = classify.STORAGE, "Storage (disks, snapshots)"
    NETWORK = classify.NETWORK, "Network (bandwidth, public IPs)"
    UNKNOWN = classify.UNKNOWN, "Unknown (priced as runtime)"


class BillLine(OrganizationScopedModel):
    account = models.ForeignKey(CloudAccount, on_delete=models.CASCADE, related_name="bill_lines")
    bill_id = models.CharField(max_length=64)
    component_code = models.CharField(max_length=64)
    item_code = models.CharField(max_length=128)
    month = models.CharField(max_length=7, help_text="Bill month yyyy-mm (Beijing time).")
    resource_id = models.CharField(max_length=128, blank=True, db_index=True)
    resource_name = models.CharField(max_length=200, blank=True)
    instance = models.ForeignKey(
        Instance, null=True, blank=True, on_delete=models.SET_NULL, related_name="bill_lines"
    )
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="bill_lines"
    )
    product_name = models.CharField(max_length=200, blank=True)
    component_name = models.CharField(max_length=200, blank=True)
    item_name = models.CharField(
        max_length=200,
        blank=True,
        help_text="ItemCodeName, e.g. 运算组件-GPU计算型GN7-8核32G-1*T4.",
    )
    pay_mode_name = models.CharField(max_length=64, blank=True)
    action_type = models.CharField(max_length=64, blank=True)
    action_type_name = models.CharField(max_length=64, blank=True)
    region_name = models.CharField(max_length=64, blank=True)
    zone_name = models.CharField(max_length=64, blank=True)
    fee_begin_at = models.DateTimeField()
    fee_end_at = models.DateTimeField()
    list_cost = models.DecimalField(**MONEY, help_text="Cost at list price (Cost).")
    cost = models.DecimalField(**MONEY, help_text="Cost after discounts (RealCost).")
    cash_paid = models.DecimalField(**MONEY, default=0)
    voucher_paid = models.DecimalField(**MONEY, default=0)
    incentive_paid = models.DecimalField(**MONEY, default=0)
    transfer_paid = models.DecimalField(**MONEY, default=0)
    currency = models.CharField(max_length=3, default="CNY")
    used_amount = models.DecimalField(max_digits=20, decimal_places=6, null=True, blank=True)
    used_unit = models.CharField(max_length=32, blank=True)
    time_span = models.DecimalField(max_digits=20, decimal_places=6, null=True, blank=True)
    time_unit = models.CharField(max_length=32, blank=True)
    tags = models.JSONField(default=dict, blank=True)
    # What the line is, read from the bill's own words by ``apps.billing.classify`` at sync.
    charge_type = models.CharField(
        max_length=20,
        blank=True,
        choices=ChargeType.choices,
        help_text="How the resource was bought, as the line says ('' when it says nothing).",
    )
    charge_category = models.CharField(
        max_length=16, choices=ChargeCategory.choices, default=ChargeCategory.USAGE
    )
    component_class = models.CharField(
        max_length=16, choices=ComponentClass.choices, default=ComponentClass.UNKNOWN
    )
    commitment = models.CharField(
        max_length=2, blank=True, help_text="RI or SP when a commitment paid for the component."
    )
    cost_without_commitment = models.DecimalField(
        **MONEY, null=True, blank=True, help_text="OriginalCostWithRI / OriginalCostWithSP."
    )
    single_price = models.DecimalField(
        **MONEY, null=True, blank=True, help_text="SinglePrice: list unit price."
    )
    contract_price = models.DecimalField(
        **MONEY, null=True, blank=True, help_text="ContractPrice: the unit price paid."
    )
    price_unit = models.CharField(max_length=32, blank=True, help_text="e.g. 元/小时.")
    payer_uin = models.CharField(max_length=32, blank=True)
    owner_uin = models.CharField(max_length=32, blank=True)
    pay_time = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "bill_id", "component_code", "item_code"],
                name="billline_unique_component",
            )
        ]
        indexes = [
            models.Index(fields=["organization", "month"]),
            models.Index(fields=["account", "month"]),
            # An instance's lines over a period: the analysis' billed hours (fleet_pricing).
            models.Index(fields=["instance", "fee_begin_at"], name="billline_instance_fee"),
            # The exports (in charge-period order), budgets and costs read an organization's
            # lines by the start of their charge period, not by bill month.
            models.Index(fields=["organization", "fee_begin_at"], name="billline_org_fee_begin"),
            # Purchases still covering a period that started after them (the FOCUS export's
            # amortized rows): few lines, found without reading the hourly ones.
            models.Index(
                fields=["organization", "fee_end_at"],
                name="billline_org_prepaid_end",
                condition=models.Q(charge_category__in=["purchase", "refund"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.bill_id}/{self.component_code} {self.cost} {self.currency}"


class BalanceSnapshot(OrganizationScopedModel):
    """The account balance at a moment (the balance API sends fen; stored as money)."""

    account = models.ForeignKey(CloudAccount, on_delete=models.CASCADE, related_name="balances")
    taken_at = models.DateTimeField()
    available = models.DecimalField(max_digits=16, decimal_places=2, help_text="RealBalance")
    cash = models.DecimalField(max_digits=16, decimal_places=2)
    frozen = models.DecimalField(max_digits=16, decimal_places=2)
    owed = models.DecimalField(max_digits=16, decimal_places=2)
    currency = models.CharField(max_length=3, default="CNY")

    class Meta:
        ordering = ["-taken_at"]
        get_latest_by = "taken_at"

    def __str__(self) -> str:
        return f"{self.available:,} {self.currency} available at {self.taken_at:%Y-%m-%d %H:%M}"


class InstanceBillDay(OrganizationScopedModel):
    """An instance's runtime lines (``apps.billing.runtime``) of one UTC day and bill month, summed.

    What the recommendation rules price from (the discounted hourly price actually paid is
    ``cost`` over ``billed_seconds``, every runtime component of the hours included), read as
    about one row per instance-day instead of every hourly line. ``billed_seconds`` counts
    each billed span once, however many runtime components bill it. Derived data:
    ``apps.billing.rollups`` rewrites a month's rows from its bill lines whenever the bills
    sync or the instance attachment writes those lines, so it always equals the sum of the
    lines. A UTC day can hold lines of two bill months (bill months are
    Beijing time), hence the month in the key.
    """

    account = models.ForeignKey(CloudAccount, on_delete=models.CASCADE, related_name="+")
    month = models.CharField(max_length=7, help_text="Bill month yyyy-mm (Beijing time).")
    instance = models.ForeignKey(
        Instance, on_delete=models.CASCADE, related_name="bill_days", db_index=False
    )
    day = models.DateField(help_text="UTC day of the lines' fee_begin_at.")
    currency = models.CharField(max_length=3, default="CNY")
    cost = models.DecimalField(**MONEY, help_text="Sum of the lines' cost (RealCost).")
    billed_seconds = models.BigIntegerField(
        help_text="Seconds the lines bill, each span once, its last second included "
        "(10:00:00-10:59:59 is 3600)."
    )
    lines = models.PositiveIntegerField(help_text="How many bill lines are summed.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "day", "account", "month", "currency"],
                name="instancebillday_unique",
            )
        ]
        indexes = [models.Index(fields=["account", "month"], name="billday_account_month")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.day} {self.cost} {self.currency}"


class InstanceComponentDay(OrganizationScopedModel):
    """An instance's hourly usage lines of one UTC day and bill month, summed per component.

    Every class (runtime, storage, network, unknown): what an instance's price is made of, so
    the evidence of a recommendation can name each component with its hourly price, and what
    keeps billing when it is stopped (disks, IPs). Derived data, rewritten with
    ``InstanceBillDay`` by ``apps.billing.rollups``.
    """

    account = models.ForeignKey(CloudAccount, on_delete=models.CASCADE, related_name="+")
    month = models.CharField(max_length=7, help_text="Bill month yyyy-mm (Beijing time).")
    instance = models.ForeignKey(
        Instance, on_delete=models.CASCADE, related_name="component_days", db_index=False
    )
    day = models.DateField(help_text="UTC day of the lines' fee_begin_at.")
    currency = models.CharField(max_length=3, default="CNY")
    component_class = models.CharField(max_length=16, choices=ComponentClass.choices)
    component_code = models.CharField(max_length=64)
    component_name = models.CharField(max_length=200, blank=True)
    cost = models.DecimalField(**MONEY, help_text="Sum of the lines' cost (RealCost).")
    billed_seconds = models.BigIntegerField(help_text="Seconds the component's lines bill.")
    lines = models.PositiveIntegerField(help_text="How many bill lines are summed.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "instance", "day", "account", "month", "currency", "component_class",
                    "component_code",
                ],
                name="instancecomponentday_unique",
            )
        ]  # fmt: skip
        indexes = [models.Index(fields=["account", "month"], name="componentday_account_month")]

    def __str__(self) -> str:
        return f"{self.instance_id} {self.day} {self.component_code} {self.cost} {self.currency}"
