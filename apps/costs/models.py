"""The daily cost rollup the report reads instead of the bill lines.

A fleet bills one line per instance, hour and component: 1,000 instances are 4.3 M lines in 90
days, too many to sum per request. ``CostDay`` sums them per local day (the organization's
timezone) and per everything a report groups or filters by, except the hour: one or two rows
per instance-day and basis (``apps.costs.bases``: billed on the day a line was charged,
amortized with purchases spread over the days they cover). Amounts are the lines' exact sums (NUMERIC), so the report still adds up to
the bill lines to the last of their eight decimals.

It is derived data, rebuilt by ``services.cost_days_rebuild`` whenever the bill lines change
(billing's ``bill_lines_changed`` signal: after a bills sync, for the months read, and after
projects are reassigned) and in full when the organization's timezone changes (the local
days move) or a migration dropped it; never on a read. The phase split needs the hours and reads the bill lines.
"""

from __future__ import annotations

from django.db import models

from apps.billing.models import MONEY
from apps.core.models import OrganizationQuerySet
from apps.costs.bases import BASES

BASIS_CHOICES = [(basis, basis) for basis in BASES]


class CostDay(models.Model):
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    day = models.DateField(help_text="Local day (organization's timezone) the money is on.")
    basis = models.CharField(
        max_length=9, choices=BASIS_CHOICES, help_text="billed (as invoiced) or amortized."
    )
    # The lines' own columns the report's dimensions read (see apps.costs.dimensions).
    instance = models.ForeignKey(
        "cloud.Instance", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    project = models.ForeignKey(
        "cloud.Project", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    currency = models.CharField(max_length=3)
    charge_type = models.CharField(max_length=20, blank=True)
    region_name = models.CharField(max_length=64, blank=True)
    zone_name = models.CharField(max_length=64, blank=True)
    tags = models.JSONField(default=dict, blank=True)
    cost = models.DecimalField(**MONEY, help_text="Sum of the lines' cost (RealCost).")
    line_count = models.PositiveIntegerField()

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["organization", "basis", "day"], name="costday_org_basis_day"),
            # The unallocated share's reasons read only the rows without a project (~1 in 10):
            # through this index ~2 ms instead of scanning every row of the period (~20 ms).
            models.Index(
                fields=["organization", "basis", "day"],
                condition=models.Q(project__isnull=True),
                name="costday_basis_unallocated",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.organization_id} {self.day} {self.cost} {self.currency}"


class CostProjectDay(models.Model):
    """``CostDay`` summed per local day, currency and project: what an unfiltered report by
    project (or without groups) and the month to date read.

    A 1,000-instance fleet has ~1,000 ``CostDay`` rows a day; a report by project of 90 days and
    its previous period summed ~180,000 of them per request. This is one row per project and
    day (~50). Written from ``CostDay`` by ``services.cost_days_rebuild`` for the days it
    rebuilds, so it always holds the same money as those rows.
    """

    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    day = models.DateField(help_text="Local day (organization's timezone) the money is on.")
    basis = models.CharField(max_length=9, choices=BASIS_CHOICES)
    currency = models.CharField(max_length=3)
    project = models.ForeignKey(
        "cloud.Project", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    # Why money without a project has none (``billing.selectors.UnallocatedReason``), one row
    # per reason and day: the cost report's "unallocated by reason" without grouping ~10,000
    # CostDay rows by their tags per request. It depends on the instances' current tags and
    # the project tag keys, so ``services.cost_unallocated_days_refresh`` rewrites these rows
    # when either changes. Blank on a project's rows.
    unallocated_reason = models.CharField(max_length=16, blank=True, default="")
    cost = models.DecimalField(**MONEY, help_text="Sum of the day's CostDay rows of the project.")

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["organization", "basis", "day"], name="costprojectday_basis_day")
        ]

    def __str__(self) -> str:
        return f"{self.organization_id} {self.day} {self.project_id} {self.cost} {self.currency}"


class CostBillDay(models.Model):
    """The organization's money per bill day (Beijing time, as Tencent bills), currency and
    project: what the month-end forecast reads (``apps.costs.forecast``), so that it is the
    same whatever the organization's timezone. Written by ``services.cost_days_rebuild`` with
    ``CostDay``, from the same lines.
    """

    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    day = models.DateField(help_text="Beijing day the money is on.")
    currency = models.CharField(max_length=3)
    project = models.ForeignKey(
        "cloud.Project", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    cost = models.DecimalField(**MONEY, help_text="Amortized cost of the day.")
    spread = models.DecimalField(
        **MONEY, help_text="The part of cost spread from purchases and refunds (known ahead)."
    )

    objects = OrganizationQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["organization", "day"], name="costbillday_org_day")]

    def __str__(self) -> str:
        return f"{self.organization_id} {self.day} {self.project_id} {self.cost} {self.currency}"


class CostRollupState(models.Model):
    """The timezone an organization's ``CostDay`` rows were built in (absent: never built)."""

    organization = models.OneToOneField(
        "accounts.Organization", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    tz = models.CharField(max_length=64)
    rebuilt_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"cost rollup of {self.organization_id} ({self.tz})"
