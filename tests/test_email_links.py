"""Every link in a digest or an alert e-mail opens a page the front-end has (or an API URL)."""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from apps.accounts.models import Organization, User
from apps.alerts.delivery import alert_email_render
from apps.alerts.services import alert_event_raise
from apps.digests import services
from apps.digests.emails import digest_render
from apps.digests.models import DigestSubscription
from apps.recommendations.models import Recommendation
from tests.alerts.builders import make_account, make_instance, make_project
from tests.digests.world import SHANGHAI, build_world
from tests.frontend_routes import frontend_routes, is_page, is_served

pytestmark = pytest.mark.django_db

PERIOD = (dt.datetime(2026, 11, 23, tzinfo=SHANGHAI), dt.datetime(2026, 11, 30, tzinfo=SHANGHAI))
_LINK = re.compile(r'href="([^"]+)"')


def links(html: str) -> list[str]:
    return [url.replace("&amp;", "&") for url in _LINK.findall(html)]


def test_it_reads_the_front_ends_routes() -> None:
    routes = frontend_routes()
    assert {"/", "/reports", "/recommendations/:id", "/settings/alerts"} <= set(routes)
    assert not is_page("https://x.test/settings/digests")
    assert not is_page("https://x.test/alerts")
    assert is_page("https://x.test/recommendations/17")


def test_it_links_a_digest_only_to_pages_that_exist(acme: Organization, alice: User) -> None:
    world = build_world(acme)
    subscription = services.subscription_save(
        subscription=DigestSubscription(organization=world.organization, user=alice),
        now=PERIOD[1] - dt.timedelta(days=3),
    )
    email = digest_render(subscription=subscription, period_start=PERIOD[0], period_end=PERIOD[1])

    found = links(email.html)
    assert found
    assert [url for url in found if not is_served(url)] == []
    # Pages take no query: the recommendations list, for one, ignores an ``id``.
    assert [url for url in found if is_page(url) and urlsplit(url).query] == []
    base = settings.PUBLIC_URL
    assert f"{base}/reports" in found  # where digest subscriptions are managed
    top = Recommendation.objects.get(title="Switch train-a to a monthly subscription")
    assert f"{base}/recommendations/{top.pk}" in found
    assert f"{base}/reports" in email.text
    assert f"{base}/recommendations/{top.pk}" in email.text


def test_it_links_an_alert_to_the_page_of_what_it_is_about(acme: Organization) -> None:
    account = make_account(acme)
    vision = make_project(acme, "vision")
    event = alert_event_raise(
        organization=acme,
        started_at=dt.datetime(2026, 11, 16, tzinfo=SHANGHAI),
        kind="anomaly",
        project=vision,
        instance=make_instance(account, "box", project=vision),
        dedup_key="anomaly:spend:vision",
        evidence={
            "metric": "spend",
            "day": "2026-11-15",
            "value": 1234.5,
            "baseline_median": 100.0,
            "baseline_mad": 10.0,
            "k": 4.0,
            "alert_line": 159.304,
            "unit": "CNY",
        },
    )
    rendered = alert_email_render(event, "en")

    found = links(rendered.html)
    # The instance's page: every role sees it (the alert history is for owners and admins).
    assert found == [f"{settings.PUBLIC_URL}/instances/{event.instance_id}"]
    assert all(is_page(url) for url in found)
    assert found[0] in rendered.text


def test_it_links_a_project_budget_to_the_project_and_the_organizations_to_the_overview(
    acme: Organization,
) -> None:
    vision = make_project(acme, "vision")
    started = dt.datetime(2026, 11, 16, tzinfo=SHANGHAI)
    project_budget = alert_event_raise(
        organization=acme,
        started_at=started,
        kind="budget",
        project=vision,
        dedup_key="budget:vision:80",
        evidence={"threshold_pct": 80},
        title="Vision budget 80% used",
        message="Vision has used 80% of its budget.",
    )
    whole = alert_event_raise(
        organization=acme,
        started_at=started,
        kind="budget",
        dedup_key="budget:all:80",
        evidence={"threshold_pct": 80},
        title="Budget 80% used",
        message="The organization has used 80% of its budget.",
    )
    found = [links(alert_email_render(e, "en").html) for e in (project_budget, whole)]
    assert found == [[f"{settings.PUBLIC_URL}/projects/vision"], [f"{settings.PUBLIC_URL}/"]]
    assert all(is_page(url) for urls in found for url in urls)
