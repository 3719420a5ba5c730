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


def test_it_links_an_alert_to_the_alert_history(acme: Organization) -> None:
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
    assert found == [f"{settings.PUBLIC_URL}/settings/alerts"]
    assert all(is_page(url) for url in found)
    assert found[0] in rendered.text
