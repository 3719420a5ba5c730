import time
import pytest
from django.core import mail
from django.test import override_settings
from apps.alerts.models import AlertEvent, AlertDelivery
from apps.cloud.tasks import dispatch_account
from tests.cloud.conftest import connect

pytestmark = pytest.mark.django_db(transaction=True)


@override_settings(SYNC_BACKFILL_DAYS=30)
def test_repro(acme, make_simulator):
    sim = make_simulator(now=__import__("apps.cloud.providers.tencent.simulator.constants", fromlist=["utc_now"]).utc_now)
    t = time.monotonic()
    account = connect(acme, sim)
    dispatch_account.delay(account.pk)
    print("took", time.monotonic() - t)
    for e in AlertEvent.objects.order_by("id"):
        print(e.kind, e.title, e.evidence.get("day"), e.evidence.get("baseline_median"), e.evidence.get("baseline_mad"))
    print("emails", len(mail.outbox), AlertDelivery.objects.count())
