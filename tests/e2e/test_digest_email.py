"""The digest's HTML part as a mail client shows it: rendered in Chromium, screenshots saved.

The message is the one the send path produced (claimed, rendered, handed to Django's e-mail
backend); its ``cid:`` images are resolved from the message's own PNG parts, as a mail client
does, so the screenshot shows exactly what a subscriber sees.
"""

from __future__ import annotations

import base64
import datetime as dt
from email import message_from_bytes
from email.message import Message
from typing import TYPE_CHECKING

import pytest
from django.core import mail

from apps.accounts.models import Organization
from apps.digests import services
from apps.digests.models import DigestSubscription
from tests.digests.world import SHANGHAI, build_world, make_user
from tests.e2e.conftest import ARTIFACTS

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def html_with_inline_images(message: Message) -> str:
    html = ""
    images: dict[str, bytes] = {}
    for part in message.walk():
        if part.get_content_type() == "text/html":
            html = part.get_payload(decode=True).decode()  # type: ignore[union-attr]
        elif part.get_content_type() == "image/png":
            images[part["Content-ID"].strip("<>")] = part.get_payload(decode=True)  # type: ignore[assignment]
    assert html
    assert len(images) == 2
    for cid, png in images.items():
        html = html.replace(f"cid:{cid}", "data:image/png;base64," + base64.b64encode(png).decode())
    return html


def test_it_renders_the_digest_in_chromium_with_its_charts(page: Page, acme: Organization) -> None:
    build_world(acme)
    monday_nine = dt.datetime(2026, 11, 30, 9, tzinfo=SHANGHAI)
    for email, language in (("en@acme.test", "en"), ("zh@acme.test", "zh-hans")):
        user = make_user(email, language=language)
        acme.members.add(user)
        services.subscription_save(
            subscription=DigestSubscription(organization=acme, user=user),
            now=monday_nine - dt.timedelta(days=2),
        )
    services.subscriptions_claim_due(now=monday_nine)
    messages = {m.to[0]: message_from_bytes(m.message().as_bytes()) for m in mail.outbox}
    assert set(messages) == {"en@acme.test", "zh@acme.test"}

    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 720, "height": 900})
    for recipient, name, heading in (
        ("en@acme.test", "digest-email-en.png", "Weekly GPU cost digest of Acme"),
        ("zh@acme.test", "digest-email-zh-hans.png", "Acme 每周 GPU 成本摘要"),
    ):
        page.set_content(html_with_inline_images(messages[recipient]))
        assert page.locator("h1").inner_text() == heading
        images = page.locator("img")
        assert images.count() == 2
        for index in range(2):
            image = images.nth(index)
            # Decoded and laid out: a broken image has no natural width.
            assert image.evaluate("img => img.complete && img.naturalWidth") == 600
            assert len(image.get_attribute("alt") or "") > 20
        page.screenshot(path=str(ARTIFACTS / name), full_page=True)
        assert (ARTIFACTS / name).stat().st_size > 10_000
