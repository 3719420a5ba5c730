"""The digest e-mail's HTML shows every name from data as text: organization, projects,
instances, budgets, recommendations and the cloud account's error (a Tencent Cloud message)."""

from __future__ import annotations

import datetime as dt

import pytest

from apps.accounts.models import Organization, User
from apps.alerts.models import Budget
from apps.digests import services
from apps.digests.emails import digest_render
from apps.digests.models import DigestSubscription
from apps.recommendations.models import Recommendation
from tests.digests.world import SHANGHAI, build_world
from tests.html_safety import IMG, PAYLOADS, SCRIPT, SVG, assert_shown_as_text

pytestmark = pytest.mark.django_db

PERIOD = (dt.datetime(2026, 11, 23, tzinfo=SHANGHAI), dt.datetime(2026, 11, 30, tzinfo=SHANGHAI))


def test_it_shows_hostile_names_in_the_digest_as_text(acme: Organization, alice: User) -> None:
    world = build_world(acme)
    Organization.objects.filter(pk=acme.pk).update(name=SCRIPT)
    world.research.name = IMG
    world.research.save()
    world.instances["serve-b"].name = SVG
    world.instances["serve-b"].save()
    Budget.objects.filter(organization=acme).update(name=SVG)
    Budget.objects.create(organization=acme, name=IMG, amount=1, project=world.research)
    Recommendation.objects.filter(organization=acme).update(title=f"Stop {IMG}")
    world.account.last_error = SCRIPT
    world.account.save()
    subscription = services.subscription_save(
        subscription=DigestSubscription(organization=acme, user=alice),
        now=PERIOD[1] - dt.timedelta(days=3),
    )

    email = digest_render(
        subscription=DigestSubscription.objects.get(pk=subscription.pk),
        period_start=PERIOD[0],
        period_end=PERIOD[1],
        use_cache=False,
    )

    assert_shown_as_text(email.html, [*PAYLOADS, f"Stop {IMG}"])
    # The text part is plain text: the names as they are, for a reader that shows no HTML.
    assert IMG in email.text
