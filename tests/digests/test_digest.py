"""The digest e-mail: its parts, its figures (equal to the API's), its language, its claiming."""

from __future__ import annotations

import base64
import datetime as dt
import re
from decimal import Decimal
from email import message_from_bytes
from email.header import decode_header, make_header
from email.message import Message
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import Membership, Organization, User
from apps.digests import services
from apps.digests.models import DeliveryStatus, DigestDelivery, DigestSubscription, Holiday
from tests.digests.world import SHANGHAI, World, build_world, hand_spend, make_user
from tests.integration.conftest import Inbox, running_smtp_server

pytestmark = pytest.mark.django_db

# Monday 30 November 2026, 09:00 in Shanghai: the weekly digest of 23-29 November is due.
MONDAY_NINE = dt.datetime(2026, 11, 30, 9, tzinfo=SHANGHAI)
PERIOD = (dt.datetime(2026, 11, 23, tzinfo=SHANGHAI), dt.datetime(2026, 11, 30, tzinfo=SHANGHAI))


@pytest.fixture
def world(acme: Organization) -> World:
    return build_world(acme)


def subscribe(organization: Organization, user: User, **fields: object) -> DigestSubscription:
    return services.subscription_save(
        subscription=DigestSubscription(organization=organization, user=user, **fields),
        now=MONDAY_NINE - dt.timedelta(days=3),
    )


def send_due(now: dt.datetime, capture: Any) -> list[Message]:
    """Claim at ``now``; the send tasks run eagerly once the claim commits; parse the outbox."""
    with capture(execute=True):
        services.subscriptions_claim_due(now=now)
    return [message_from_bytes(m.message().as_bytes()) for m in mail.outbox]


def parts(message: Message) -> dict[str, list[Message]]:
    found: dict[str, list[Message]] = {}
    for part in message.walk():
        found.setdefault(part.get_content_type(), []).append(part)
    return found


def figure(html: str, name: str) -> str:
    match = re.search(rf'data-figure="{name}">([^<]+)<', html)
    assert match, name
    return match.group(1)


def amount(text: str) -> Decimal:
    return Decimal(text.split()[0].replace(",", ""))


def test_it_sends_a_related_multipart_with_text_html_and_two_cid_pngs(
    world: World, alice: User, django_capture_on_commit_callbacks: Any
) -> None:
    subscribe(world.organization, alice)
    (message,) = send_due(MONDAY_NINE, django_capture_on_commit_callbacks)

    assert message.get_content_type() == "multipart/related"
    found = parts(message)
    assert len(found["text/plain"]) == 1
    assert len(found["text/html"]) == 1
    pngs = found["image/png"]
    assert len(pngs) == 2
    html = found["text/html"][0].get_payload(decode=True).decode()  # type: ignore[union-attr]
    for png in pngs:
        cid = png["Content-ID"].strip("<>")
        assert f'src="cid:{cid}"' in html
        data = png.get_payload(decode=True)
        assert data.startswith(b"\x89PNG")  # type: ignore[union-attr]
        assert len(data) < 100 * 1024
    assert len(re.findall(r'<img [^>]*alt="[^"]{20,}"', html)) == 2
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unfolded = re.sub(r"\r?\n", "", message["List-Unsubscribe"]).strip()
    assert re.fullmatch(r"<http://\S+/api/v1/digests/unsubscribe\?token=\S+>", unfolded)
    delivery = DigestDelivery.objects.get()
    assert delivery.status == DeliveryStatus.SENT
    assert delivery.message_id == message["Message-ID"]
    assert (delivery.period_start, delivery.period_end) == PERIOD


def test_it_shows_the_figures_the_api_gives_for_the_period(
    world: World, alice: User, alice_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    subscribe(world.organization, alice)
    (message,) = send_due(MONDAY_NINE, django_capture_on_commit_callbacks)
    html = parts(message)["text/html"][0].get_payload(decode=True).decode()  # type: ignore[union-attr]
    text = parts(message)["text/plain"][0].get_payload(decode=True).decode()  # type: ignore[union-attr]

    # Spend: every bill line whose fee began in the week, recomputed by hand.
    start, end = PERIOD
    spend = hand_spend(world.organization, start, end)
    # 168 hours x (5.00 + 6.50 + 1.25 + 0.10) = 2,158.80
    assert spend == Decimal("2158.80")
    assert amount(figure(html, "spend")) == spend
    week = dt.timedelta(days=7)
    assert amount(figure(html, "spend-1")) == hand_spend(world.organization, start - week, start)
    assert amount(figure(html, "spend-2")) == hand_spend(
        world.organization, start - 2 * week, start - week
    )

    summary = alice_client.get(
        "/api/v1/analysis/summary", {"start": start.isoformat(), "end": end.isoformat()}
    ).json()["totals"]
    # One decimal, as the digest prints every duration (504 GPU-hours: 3 cards x 168 hours).
    assert figure(html, "gpu-hours") == f"{Decimal(summary['gpu_hours']):,.1f}" == "504.0"
    assert amount(figure(html, "gpu-cost")) == Decimal(summary["cost"])
    assert amount(figure(html, "wasted-cost")) == Decimal(summary["wasted_cost"])
    # By hand: 168 h x 12.75 CNY of compute; idle 8 h and data-bound 4 h of each 24.
    assert Decimal(summary["cost"]) == Decimal("2142.00")
    assert Decimal(summary["wasted_cost"]) == Decimal("1071.00")

    listed = alice_client.get("/api/v1/recommendations", {"status": "open"}).json()["results"]
    top = [item["title"] for item in listed[:5]]
    assert top[0] == "Switch train-a to a monthly subscription"
    positions = [text.index(title) for title in top]
    assert positions == sorted(positions)
    assert "Thermal check of stray-c" not in text  # the sixth is left out
    # Top mover: serve-b went from 4.00 to 6.50 an hour: +420.00 over 168 hours.
    assert "serve-b: 1,092.00 CNY (+420.00 CNY, +62.5%)" in text
    assert "Acme Tencent is failing to sync: AuthFailure.SecretIdNotFound" in text
    assert "GPU budget 2026-11" in text


def test_it_writes_the_digest_in_the_recipients_language(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    li = make_user("li@acme.test", language="zh-hans")
    world.organization.members.add(li)
    subscribe(world.organization, li)
    (message,) = send_due(MONDAY_NINE, django_capture_on_commit_callbacks)
    text = parts(message)["text/plain"][0].get_payload(decode=True).decode()  # type: ignore[union-attr]
    assert "每周 GPU 成本摘要" in text
    assert "按阶段的 GPU 小时与费用" in text
    assert "Spend" not in text
    # The rules' titles are English; in Chinese the list names the kind and the instance.
    assert "关停闲置实例 · train-a" in text
    assert "Switch train-a to a monthly subscription" not in text


def test_it_keeps_the_rules_own_titles_in_english(
    world: World, alice: User, django_capture_on_commit_callbacks: Any
) -> None:
    subscribe(world.organization, alice)
    (message,) = send_due(MONDAY_NINE, django_capture_on_commit_callbacks)
    text = parts(message)["text/plain"][0].get_payload(decode=True).decode()  # type: ignore[union-attr]
    assert "Switch train-a to a monthly subscription" in text


def test_it_claims_a_period_once_whatever_the_number_of_ticks(
    world: World, alice: User, charlie: User, django_capture_on_commit_callbacks: Any
) -> None:
    subscribe(world.organization, alice)
    subscribe(world.organization, charlie, frequency="daily", workdays_only=False)
    send_due(MONDAY_NINE, django_capture_on_commit_callbacks)
    send_due(MONDAY_NINE, django_capture_on_commit_callbacks)
    send_due(MONDAY_NINE + dt.timedelta(minutes=2), django_capture_on_commit_callbacks)
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@acme.test", "charlie@acme.test"]
    assert DigestDelivery.objects.count() == 2


class RefusingRecipients(Inbox):
    """A mail server that knows no such user (a permanent 550 for every recipient)."""

    async def handle_RCPT(
        self, server: object, session: object, envelope: object, address: str, options: object
    ) -> str:
        return "550 5.1.1 No such user here"


def test_it_records_a_refused_address_as_failed_without_retrying(
    world: World, alice: User, settings: object
) -> None:
    subscription = subscribe(world.organization, alice)
    delivery = DigestDelivery.objects.create(
        organization=world.organization,
        subscription=subscription,
        period_start=PERIOD[0],
        period_end=PERIOD[1],
        scheduled_for=MONDAY_NINE,
        recipient="nobody@acme.test",
    )
    server = running_smtp_server(RefusingRecipients())
    inbox, port = next(server)
    try:
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"  # type: ignore[attr-defined]
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port  # type: ignore[attr-defined]
        outcome = services.delivery_send(delivery_id=delivery.pk, final_attempt=False)
    finally:
        server.close()  # type: ignore[attr-defined]
    assert outcome is not None
    assert outcome.status == DeliveryStatus.FAILED
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert "550" in delivery.error
    assert delivery.attempts == 1
    assert inbox.messages == []


def test_it_sends_nothing_to_someone_who_left_the_organization(
    world: World, charlie: User, django_capture_on_commit_callbacks: Any
) -> None:
    subscription = subscribe(world.organization, charlie)
    Membership.objects.filter(organization=world.organization, user=charlie).delete()
    assert send_due(MONDAY_NINE, django_capture_on_commit_callbacks) == []
    delivery = DigestDelivery.objects.get()
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.error == "The recipient is no longer a member."
    subscription.refresh_from_db()
    assert not subscription.is_active


def unsigned(body: str) -> str:
    return re.sub(r"token=[\w:.-]+", "token=…", body)


def test_the_preview_is_the_email_that_is_then_sent(
    world: World,
    alice: User,
    alice_client: APIClient,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    subscription = subscribe(world.organization, alice)
    # Monday 08:00: last week is over, its digest goes out at 09:00; the preview shows it now.
    monkeypatch.setattr(timezone, "now", lambda: MONDAY_NINE - dt.timedelta(hours=1))
    preview = alice_client.get(f"/api/v1/digest-subscriptions/{subscription.pk}/preview").json()
    monkeypatch.undo()

    (message,) = send_due(MONDAY_NINE, django_capture_on_commit_callbacks)
    found = parts(message)
    assert preview["subject"] == str(make_header(decode_header(message["Subject"])))
    for kind, part in (("html", "text/html"), ("text", "text/plain")):
        sent = found[part][0].get_payload(decode=True).decode()  # type: ignore[union-attr]
        # The unsubscribe token is signed with the time it was made: equal but for that.
        assert unsigned(preview[kind]) == unsigned(sent), kind
    sent_images = {
        png["Content-ID"].strip("<>"): png.get_payload(decode=True) for png in found["image/png"]
    }
    assert {
        cid: base64.b64decode(uri.removeprefix("data:image/png;base64,"))
        for cid, uri in preview["images"].items()
    } == sent_images


def test_a_digest_waiting_to_be_sent_is_not_sent_after_its_subscriber_unsubscribed(
    world: World, alice: User, django_capture_on_commit_callbacks: Any
) -> None:
    subscription = subscribe(world.organization, alice)
    # Claimed at 09:00, but the send task has not run yet (the mail server was down, say).
    with django_capture_on_commit_callbacks(execute=False):
        services.subscriptions_claim_due(now=MONDAY_NINE)
    delivery = DigestDelivery.objects.get()
    assert delivery.status == DeliveryStatus.PENDING
    assert services.subscription_unsubscribe(subscription_id=subscription.pk)

    outcome = services.delivery_send(delivery_id=delivery.pk, final_attempt=False)

    assert outcome is not None
    assert outcome.status == DeliveryStatus.FAILED
    assert mail.outbox == []
    delivery.refresh_from_db()
    assert (delivery.status, delivery.error, delivery.retryable) == (
        DeliveryStatus.FAILED,
        services.UNSUBSCRIBED,
        False,
    )
    # The sweep leaves it be: nothing to take back, nothing sent later.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.deliveries_sweep(now=MONDAY_NINE + dt.timedelta(hours=2)) == []
    assert mail.outbox == []


def test_it_claims_everything_due_in_one_tick_batch_after_batch(
    world: World, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    monkeypatch.setattr(services, "CLAIM_BATCH", 2)
    for index in range(5):
        person = make_user(f"p{index}@acme.test")
        world.organization.members.add(person)
        subscribe(world.organization, person)
    assert len(send_due(MONDAY_NINE, django_capture_on_commit_callbacks)) == 5
    assert DigestSubscription.objects.filter(next_send_at__lte=MONDAY_NINE).count() == 0


def test_it_shares_a_scopes_figures_until_they_are_invalidated(world: World) -> None:
    from apps.digests.cachekeys import figures_cache_invalidate
    from apps.digests.content import Stopwatch, digest_content

    periods = [PERIOD, (PERIOD[0] - dt.timedelta(days=7), PERIOD[0])]
    runs = []
    for invalidate in (False, False, True):
        if invalidate:
            figures_cache_invalidate(world.organization)
        stopwatch = Stopwatch()
        digest_content(
            organization=world.organization,
            project_ids=None,
            periods=periods,
            tz_name="Asia/Shanghai",
            stopwatch=stopwatch,
        )
        runs.append("queries" in stopwatch.ms)
    assert runs == [True, False, True]


def test_it_sends_the_latest_digest_on_demand_once_per_period(
    world: World, alice: User, django_capture_on_commit_callbacks: Any
) -> None:
    from django.core.management import call_command

    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            call_command("send_digest", email="alice@acme.test")
    assert [m.to for m in mail.outbox] == [["alice@acme.test"]]
    delivery = DigestDelivery.objects.get()
    assert delivery.status == DeliveryStatus.SENT
    assert delivery.period_end <= dt.datetime.now(dt.UTC)


def test_it_claims_a_workdays_only_daily_digest_covering_every_day_once(
    world: World, charlie: User, django_capture_on_commit_callbacks: Any
) -> None:
    services.holiday_save(
        holiday=Holiday(organization=world.organization, date=dt.date(2026, 12, 2)),
        now=MONDAY_NINE - dt.timedelta(days=4),
    )
    subscribe(world.organization, charlie, frequency="daily")
    # The beat's ticks from Friday to the next Monday, at 09:00 and again a minute later.
    for offset in range(11):
        nine = dt.datetime(2026, 11, 27, 9, tzinfo=SHANGHAI) + dt.timedelta(days=offset)
        for tick in (nine, nine + dt.timedelta(minutes=1)):
            with django_capture_on_commit_callbacks(execute=False):
                services.subscriptions_claim_due(now=tick)
    periods = [
        (d.period_start.astimezone(SHANGHAI).date(), d.period_end.astimezone(SHANGHAI).date())
        for d in DigestDelivery.objects.order_by("period_start")
    ]
    day = dt.date
    # Subscribed on Friday at 09:00 (``subscribe``): the first digest is Monday's.
    assert periods == [
        (day(2026, 11, 27), day(2026, 11, 30)),  # Monday: Friday to Sunday
        (day(2026, 11, 30), day(2026, 12, 1)),
        (day(2026, 12, 1), day(2026, 12, 3)),  # after the holiday: Tuesday and Wednesday
        (day(2026, 12, 3), day(2026, 12, 4)),
        (day(2026, 12, 4), day(2026, 12, 7)),
    ]
