"""The stored lifecycle: one row per finding, resolve, reopen, dismiss, snooze, history."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from apps.accounts.models import Organization, User
from apps.recommendations import services
from apps.recommendations.models import Recommendation, RecommendationEvent, Status
from apps.recommendations.selectors import realised_saving, recommendations_list
from tests.recommendations.factories import AS_OF, END, bill_hours, make_instance, set_usage

pytestmark = pytest.mark.django_db


@pytest.fixture
def idle_box(acme: Organization):
    instance = make_instance(acme)
    set_usage(instance, gpu_util_p95=2.0)
    bill_hours(instance, start=END - dt.timedelta(days=14), hours=14 * 24)
    return instance


def _run(organization: Organization, at: dt.datetime = AS_OF) -> services.RunResult:
    return services.recommendations_run(organization=organization, as_of=at)


def _only(organization: Organization) -> Recommendation:
    (row,) = Recommendation.objects.for_organization(organization)
    return row


def test_it_creates_one_priced_recommendation_and_nothing_more_on_a_second_run(
    acme, idle_box
) -> None:
    first = _run(acme)
    assert first.created == 1
    row = _only(acme)
    assert row.kind == "stop_idle"
    # 5.00 CNY/h billed for 336 h in 14 days: 720 h a month.
    assert row.monthly_saving == Decimal("3600.00")
    assert row.price_source == "bills"
    second = _run(acme)
    assert (second.created, second.updated, second.unchanged) == (0, 0, 1)
    assert _only(acme).updated_at == row.updated_at


def test_it_resolves_a_finding_that_disappears_and_reopens_it_when_it_returns(
    acme, idle_box
) -> None:
    _run(acme)
    set_usage(idle_box, gpu_util_p95=80.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=1)).resolved == 1
    assert _only(acme).status == Status.RESOLVED
    set_usage(idle_box, gpu_util_p95=2.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=2)).reopened == 1
    row = _only(acme)
    assert row.status == Status.OPEN
    assert [(e.from_status, e.to_status) for e in row.events.all()] == [
        ("", "open"),
        ("open", "resolved"),
        ("resolved", "open"),
    ]


def test_it_keeps_a_dismissed_recommendation_dismissed_while_the_finding_persists(
    acme, idle_box, alice: User
) -> None:
    _run(acme)
    services.recommendation_dismiss(
        recommendation=_only(acme), actor=alice, now=AS_OF, reason="Kept for the demo."
    )
    _run(acme, AS_OF + dt.timedelta(days=1))
    row = _only(acme)
    assert row.status == Status.DISMISSED
    assert row.status_reason == "Kept for the demo."
    event = row.events.get(to_status=Status.DISMISSED)
    assert event.actor == alice


def test_it_returns_a_snoozed_recommendation_after_its_date(acme, idle_box, alice) -> None:
    _run(acme)
    until = AS_OF + dt.timedelta(days=3)
    services.recommendation_snooze(recommendation=_only(acme), actor=alice, now=AS_OF, until=until)
    _run(acme, AS_OF + dt.timedelta(days=2))
    assert _only(acme).status == Status.SNOOZED
    _run(acme, AS_OF + dt.timedelta(days=3, hours=1))
    row = _only(acme)
    assert row.status == Status.OPEN
    assert row.snoozed_until is None


def test_it_refuses_to_snooze_into_the_past_naming_the_field(acme, idle_box, alice) -> None:
    _run(acme)
    with pytest.raises(ValidationError) as error:
        services.recommendation_snooze(
            recommendation=_only(acme), actor=alice, now=AS_OF, until=AS_OF - dt.timedelta(1)
        )
    assert "until" in error.value.message_dict


def test_it_measures_the_realised_saving_of_an_accepted_recommendation_from_bills(
    acme, idle_box, alice
) -> None:
    _run(acme)
    row = services.recommendation_accept(recommendation=_only(acme), actor=alice, now=END)
    # Four weeks before acceptance: only the last two billed (336 h x 5.00 = 1680.00).
    # After it the instance was stopped for a week but billed one day (24 h = 120.00).
    bill_hours(idle_box, start=END, hours=24)
    realised = realised_saving(row, now=END + dt.timedelta(days=7))
    assert realised is not None
    assert realised.weekly_cost_before == Decimal("420.00")
    assert realised.weekly_cost_after == Decimal("120.00")
    assert realised.weekly_saving == Decimal("300.00")
    assert realised.monthly_saving_promised == Decimal("3600.00")


def test_it_keeps_history_of_every_decision(acme, idle_box, alice) -> None:
    _run(acme)
    row = _only(acme)
    services.recommendation_accept(recommendation=row, actor=alice, now=AS_OF)
    services.recommendation_reopen(recommendation=row, actor=alice, now=AS_OF)
    assert list(
        RecommendationEvent.objects.filter(recommendation=row).values_list("to_status", flat=True)
    ) == ["open", "accepted", "open"]


def test_an_accepted_recommendation_stays_accepted_and_measured_when_its_finding_goes(
    acme, idle_box, alice
) -> None:
    """Following the advice makes the finding disappear: that must not end the measurement."""
    _run(acme)
    services.recommendation_accept(recommendation=_only(acme), actor=alice, now=AS_OF)
    set_usage(idle_box, gpu_util_p95=80.0)  # the finding is gone
    later = AS_OF + dt.timedelta(days=1)
    first = _run(acme, later)
    assert (first.resolved, first.gone_accepted) == (0, 1)
    assert _run(acme, later + dt.timedelta(hours=1)).gone_accepted == 0  # noted once
    row = _only(acme)
    assert row.status == Status.ACCEPTED
    assert row.accepted_at == AS_OF
    assert row.resolved_at == later
    assert list(recommendations_list(organization=acme, statuses=["accepted"])) == [row]
    assert realised_saving(row, now=later) is not None
    assert [(e.from_status, e.to_status, e.reason) for e in row.events.all()][-1] == (
        "accepted",
        "accepted",
        "The finding is no longer seen.",
    )
    # The finding comes back (the change was undone): still accepted, noted, no longer "gone".
    set_usage(idle_box, gpu_util_p95=2.0)
    _run(acme, later + dt.timedelta(hours=2))
    row = _only(acme)
    assert (row.status, row.resolved_at) == (Status.ACCEPTED, None)
    assert row.events.last().reason == "The finding is seen again."


def test_a_row_that_left_accepted_and_reopens_shows_no_realised_saving(
    acme, idle_box, alice
) -> None:
    _run(acme)
    services.recommendation_accept(recommendation=_only(acme), actor=alice, now=AS_OF)
    services.recommendation_dismiss(
        recommendation=_only(acme), actor=alice, now=AS_OF, reason="Changed our minds."
    )
    set_usage(idle_box, gpu_util_p95=80.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=1)).resolved == 1
    set_usage(idle_box, gpu_util_p95=2.0)
    assert _run(acme, AS_OF + dt.timedelta(hours=2)).reopened == 1
    row = _only(acme)
    assert row.status == Status.OPEN
    assert row.accepted_at is None
    assert realised_saving(row, now=END + dt.timedelta(days=7)) is None
