"""The alert e-mail's HTML shows every name from data as text: the alert's own words, the
budget's and project's names, the evidence the evaluator stored, the organization's name."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.alerts.delivery import alert_email_render
from apps.alerts.models import AlertEvent, AlertKind
from apps.alerts.services import budget_create
from tests.alerts.builders import make_project
from tests.html_safety import IMG, PAYLOADS, SCRIPT, SVG, assert_shown_as_text

pytestmark = pytest.mark.django_db


def test_it_shows_hostile_names_in_an_alert_as_text(acme: Organization) -> None:
    Organization.objects.filter(pk=acme.pk).update(name=SCRIPT)
    project = make_project(acme, "research")
    project.name = IMG
    project.save()
    budget = budget_create(organization=acme, name=SVG, amount=Decimal("100"), project=project)
    evidence = {
        "basis": "actual",
        "month": "2026-11",
        "thresholds_pct": [80],
        "currency": "CNY",
        "spent": "90.00",
        "budget_amount": "100.00",
        "percent_used": 90.0,
        "daily_average": "6.00",
        "forecast": "180.00",
        "forecast_pct": 180.0,
        "days_left": 15,
        IMG: SVG,
    }
    for words in ({"title": "", "message": ""}, {"title": IMG, "message": f"{SVG}\n{SCRIPT}"}):
        event = AlertEvent.objects.create(
            organization=acme,
            kind=AlertKind.BUDGET,
            budget=budget,
            project=project,
            evidence=evidence if not words["title"] else {},
            started_at=dt.datetime(2026, 11, 16, tzinfo=dt.UTC),
            **words,
        )
        event = AlertEvent.objects.select_related("organization").get(pk=event.pk)

        rendered = alert_email_render(event)

        assert_shown_as_text(rendered.html, PAYLOADS)
