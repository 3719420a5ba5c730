"""Digests through real Celery workers to a real SMTP server on loopback (aiosmtpd).

Time is moved by the argument of the claim task (``digests.claim_due(now_iso)``), never by
touching the clock or the mail path: the beat tick of each hour of a week is sent twice (a
doubled tick) to two worker processes, and each subscriber must get exactly one digest per
period, at their local send time, none on a holiday.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
import zoneinfo
from decimal import Decimal
from email.message import Message

import pytest
from aiosmtpd.controller import Controller
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.digests import services
from apps.digests.models import DeliveryStatus, DigestDelivery, DigestSubscription, Holiday
from apps.digests.tasks import claim_due
from tests.digests.world import build_world, hand_spend, make_user
from tests.integration.conftest import (
    Inbox,
    free_port,
    running_smtp_server,
    start_celery_worker,
    stop_worker,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.stack, pytest.mark.xdist_group("celery-worker")]

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
NEW_YORK = zoneinfo.ZoneInfo("America/New_York")
# Sunday 29 November 2026 00:00 UTC to Sunday 6 December: a whole working week everywhere.
WALK_START = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
WALK_HOURS = 7 * 24
HOLIDAY = dt.date(2026, 12, 2)  # a Wednesday


def subscribe(organization: Organization, user: User, **fields: object) -> DigestSubscription:
    organization.members.add(user)
    return services.subscription_save(
        subscription=DigestSubscription(organization=organization, user=user, **fields),
        now=WALK_START - dt.timedelta(days=1),
    )


def all_claimed(now: dt.datetime) -> bool:
    return not DigestSubscription.objects.filter(is_active=True, next_send_at__lte=now).exists()


def body(message: Message, content_type: str) -> str:
    for part in message.walk():
        if part.get_content_type() == content_type:
            return part.get_payload(decode=True).decode()  # type: ignore[union-attr]
    raise AssertionError(f"no {content_type} part")


def spend_figure(html: str) -> Decimal:
    match = re.search(r'data-figure="spend">([^<]+)<', html)
    assert match
    return Decimal(match.group(1).split()[0].replace(",", ""))


def test_it_sends_each_subscriber_one_digest_at_their_local_time_through_a_week(
    transactional_db: None, publish_to_broker: None, acme: Organization, alice: User
) -> None:
    world = build_world(acme)
    Holiday.objects.create(organization=acme, date=HOLIDAY, name="Company day")
    li = make_user("li@acme.test", language="zh-hans")
    sam = make_user("sam@acme.test")
    dana = make_user("dana@acme.test")
    subscribe(acme, li, timezone="Asia/Shanghai")
    subscribe(acme, sam, timezone="America/New_York")
    subscribe(acme, dana, frequency="daily", timezone="Asia/Shanghai")
    inbox_iter = running_smtp_server(Inbox())
    inbox, port = next(inbox_iter)
    workers = [
        start_celery_worker("default,email", EMAIL_URL=f"smtp://127.0.0.1:{port}") for _ in range(2)
    ]
    outputs = []
    try:
        for hour in range(WALK_HOURS + 1):
            now = WALK_START + dt.timedelta(hours=hour)
            # A doubled beat tick: the same moment claimed twice, by whichever worker.
            claim_due.delay(now.isoformat())
            claim_due.delay(now.isoformat())
            assert wait_for(functools.partial(all_claimed, now), timeout=60, interval=0.05), now
        expected = 2 + 4  # li and sam weekly; dana on Mon, Tue, Thu, Fri (Wed is a holiday)
        delivered = wait_for(lambda: len(inbox.messages) >= expected, timeout=120)
        time.sleep(3)  # long enough for a duplicate to show up
    finally:
        outputs = [stop_worker(worker) for worker in workers]
        inbox_iter.close()  # type: ignore[attr-defined]
    log = "\n".join(output[-3000:] for output in outputs)
    assert delivered, f"{len(inbox.messages)} digests arrived:\n{log}"

    by_recipient: dict[str, list[Message]] = {}
    for message in inbox.messages:
        by_recipient.setdefault(message["To"], []).append(message)
    assert {to: len(messages) for to, messages in by_recipient.items()} == {
        "li@acme.test": 1,
        "sam@acme.test": 1,
        "dana@acme.test": 4,
    }
    sent = {
        (d.recipient, d.scheduled_for)
        for d in DigestDelivery.objects.filter(status=DeliveryStatus.SENT)
    }
    monday_nine_shanghai = dt.datetime(2026, 11, 30, 9, tzinfo=SHANGHAI)
    assert ("li@acme.test", monday_nine_shanghai) in sent
    assert ("sam@acme.test", dt.datetime(2026, 11, 30, 9, tzinfo=NEW_YORK)) in sent
    dana_days = sorted(at.astimezone(SHANGHAI) for to, at in sent if to == "dana@acme.test")
    assert [(at.day, at.hour) for at in dana_days] == [(30, 9), (1, 9), (3, 9), (4, 9)]
    assert DigestDelivery.objects.count() == 6

    # Every message: multipart with text, HTML and PNG parts the HTML references by cid; each
    # chart under 100 KB, and each image described for a reader who does not see it.
    for message in inbox.messages:
        assert message.get_content_type() == "multipart/related"
        html = body(message, "text/html")
        pngs = [p for p in message.walk() if p.get_content_type() == "image/png"]
        cids = [p["Content-ID"].strip("<>") for p in pngs]
        assert len(cids) == 2
        assert all(f"cid:{cid}" in html for cid in cids)
        sizes = [len(p.get_payload(decode=True)) for p in pngs]
        assert all(0 < size < 100 * 1024 for size in sizes), sizes
        images = re.findall(r"<img\b[^>]*>", html)
        assert len(images) == 2
        assert all(re.search(r'\balt="[^"]*\S[^"]*"', image) for image in images), images
        assert body(message, "text/plain")

    # The figures equal the API's (and the bills, recomputed by hand) for each one's period.
    client = APIClient()
    client.force_login(alice)
    for recipient, tz in (("li@acme.test", SHANGHAI), ("sam@acme.test", NEW_YORK)):
        (message,) = by_recipient[recipient]
        delivery = DigestDelivery.objects.get(recipient=recipient)
        start, end = delivery.period_start, delivery.period_end
        assert start.astimezone(tz) == dt.datetime(2026, 11, 23, tzinfo=tz)
        assert end.astimezone(tz) == dt.datetime(2026, 11, 30, tzinfo=tz)
        html = body(message, "text/html")
        assert spend_figure(html) == hand_spend(world.organization, start, end)
        totals = client.get(
            "/api/v1/analysis/summary", {"start": start.isoformat(), "end": end.isoformat()}
        ).json()["totals"]
        # GPU-hours to one decimal with thousands separators, as the digest prints them.
        gpu_hours = Decimal(totals["gpu_hours"])
        assert f'data-figure="gpu-hours">{gpu_hours:,.1f}<' in html
        cost = Decimal(totals["cost"])
        assert f'data-figure="gpu-cost">{cost:,.2f} CNY<' in html
        wasted = Decimal(totals["wasted_cost"])
        assert f'data-figure="wasted-cost">{wasted:,.2f} CNY<' in html

    # The Shanghai subscriber's spend is the Costs API's total for the same local dates (the
    # organization's timezone is Shanghai too; the API's end date is inclusive).
    (message,) = by_recipient["li@acme.test"]
    costs = client.get("/api/v1/costs", {"start": "2026-11-23", "end": "2026-11-29"}).json()
    assert costs["timezone"] == "Asia/Shanghai"
    assert spend_figure(body(message, "text/html")) == Decimal(costs["total"])
    assert "每周 GPU 成本摘要" in body(by_recipient["li@acme.test"][0], "text/plain")


def test_it_retries_while_the_mail_server_is_down_and_delivers_everything_once_it_is_back(
    transactional_db: None, publish_to_broker: None, acme: Organization
) -> None:
    build_world(acme)
    people = [make_user(f"p{index}@acme.test") for index in range(3)]
    for person in people:
        subscribe(acme, person, timezone="Asia/Shanghai")
    port = free_port()  # nothing listens on it yet: the mail server is down
    workers = [
        start_celery_worker("default,email", EMAIL_URL=f"smtp://127.0.0.1:{port}") for _ in range(2)
    ]
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    try:
        claim_due.delay(dt.datetime(2026, 11, 30, 1, 30, tzinfo=dt.UTC).isoformat())
        failed_once = wait_for(
            lambda: DigestDelivery.objects.filter(attempts__gte=1).count() == 3,
            timeout=60,
        )
        time.sleep(5)  # down for a while longer
        controller.start()
        delivered = wait_for(lambda: len(inbox.messages) >= 3, timeout=180)
        time.sleep(3)
    finally:
        outputs = [stop_worker(worker) for worker in workers]
        controller.stop()
    log = "\n".join(output[-3000:] for output in outputs)
    assert failed_once, f"the deliveries did not fail while the server was down:\n{log}"
    assert delivered, f"{len(inbox.messages)} of 3 arrived:\n{log}"
    assert sorted(m["To"] for m in inbox.messages) == [p.email for p in people]
    rows = list(DigestDelivery.objects.all())
    assert [row.status for row in rows] == ["sent"] * 3
    assert all(row.attempts >= 2 and row.message_id for row in rows)
    assert "ConnectionRefusedError" in log or "Connection refused" in log
