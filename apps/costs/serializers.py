"""Response shapes of the cost and utilization endpoints (the views build plain dictionaries;
these describe them so the OpenAPI schema states every field and enum).

Money is a decimal string with the bills' eight decimals (so a report's cells add up to the
bill lines' total exactly, which cents would not) and the currency beside it.
"""

from __future__ import annotations

from decimal import Decimal

from rest_framework import serializers

from apps.accounts.models import Currency, Organization
from apps.analysis.models import PHASE_KEYS
from apps.billing.selectors import UnallocatedReason
from apps.cloud.models import Project
from apps.costs.bases import BASES
from apps.costs.params import DIMENSIONS, GRANULARITIES


def project_id_of(organization: Organization, slug: str | None) -> int | None:
    """The id of the organization's project named by ``slug`` (None: no filter); a 400 naming
    ``project`` when there is none, so another organization's project reads as absent."""
    if slug is None:
        return None
    project_id = (
        Project.objects.for_organization(organization)
        .filter(slug=slug)
        .values_list("id", flat=True)
        .first()
    )
    if project_id is None:
        raise serializers.ValidationError({"project": ["No such project."]})
    return project_id


def money(amount: Decimal) -> str:
    return f"{amount:.8f}"


class MoneyField(serializers.CharField):
    """A decimal string, e.g. "1234.56780000"."""

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("help_text", "Decimal string (8 decimals, the bills' precision).")
        super().__init__(**kwargs)  # type: ignore[arg-type]


class GroupKeySerializer(serializers.Serializer):
    dimension = serializers.CharField(
        help_text=f"One of {', '.join(DIMENSIONS)} or tag:<key>, as asked in group_by."
    )
    value = serializers.CharField(
        allow_null=True,
        help_text="project: slug; instance: resource id; tag: the tag value; phase: "
        f"{', '.join(PHASE_KEYS)}; null when the lines have none (e.g. unallocated).",
    )
    label = serializers.CharField(  # type: ignore[assignment]
        help_text="Human name (project or instance name)."
    )


class CostPointSerializer(serializers.Serializer):
    period_start = serializers.DateField(help_text="First local day of the bucket.")
    cost = MoneyField()


class CostGroupSerializer(serializers.Serializer):
    keys = GroupKeySerializer(many=True)
    cost = MoneyField()
    previous_cost = MoneyField(help_text="The same group in the previous period.")
    series = CostPointSerializer(many=True, help_text="One point per bucket, zeros included.")


class PeriodTotalSerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    cost = MoneyField()


class UnallocatedReasonCostSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=UnallocatedReason.choices)
    reason_label = serializers.CharField()
    cost = MoneyField()


class UnallocatedSerializer(serializers.Serializer):
    """The period's money without a project (every filter applied but ``phase``)."""

    cost = MoneyField(help_text="Cost of the period's lines without a project.")
    share_pct = serializers.FloatField(
        allow_null=True, help_text="cost / total x 100, 2 decimals; null when the total is 0."
    )
    by_reason = UnallocatedReasonCostSerializer(many=True)


class MonthToDateSerializer(serializers.Serializer):
    """This month in the organization's timezone, whatever the period asked for (every filter
    applied but ``phase``)."""

    month_start = serializers.DateField()
    month_end = serializers.DateField()
    today = serializers.DateField(help_text="Today in the organization's timezone.")
    cost = MoneyField(help_text="This month's cost so far, today's billed hours included.")
    cost_before_today = MoneyField()
    run_rate_daily = MoneyField(
        help_text="Average daily cost of the last run_rate_days days, rounded to the cent."
    )
    run_rate_days = serializers.IntegerField()
    days_left = serializers.IntegerField(help_text="Days of the month from today on, inclusive.")
    forecast = MoneyField(
        help_text="cost_before_today + run_rate_daily x days_left: the month-end estimate."
    )
    method = serializers.CharField()


def basis_field(**kwargs: object) -> serializers.ChoiceField:
    """Which basis a response's money is on (``apps.costs.bases``)."""
    return serializers.ChoiceField(
        choices=list(BASES),
        help_text="billed: as invoiced (BilledCost, a line on the day it was charged); "
        "amortized: purchases and refunds spread over the period they cover (EffectiveCost).",
        **kwargs,  # type: ignore[arg-type]
    )


class CostReportSerializer(serializers.Serializer):
    basis = basis_field()
    start = serializers.DateField(help_text="First local day, inclusive.")
    end = serializers.DateField(help_text="Last local day, inclusive.")
    timezone = serializers.CharField()
    granularity = serializers.ChoiceField(choices=list(GRANULARITIES))
    group_by = serializers.ListField(child=serializers.CharField())
    filters = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    currency = serializers.ChoiceField(choices=Currency.choices)
    buckets = serializers.ListField(child=serializers.DateField())
    total = MoneyField()
    previous_period = PeriodTotalSerializer()
    unallocated = UnallocatedSerializer()
    month_to_date = MonthToDateSerializer()
    groups = CostGroupSerializer(many=True)
