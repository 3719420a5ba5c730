"""The Foundation's acceptance path: sign in as the demo user and see the Overview."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.conf import LazySettings
from django.core.management import call_command

from tests.e2e.conftest import ARTIFACTS

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def sign_in(page: Page, base_url: str, email: str, password: str) -> None:
    page.goto(f"{base_url}/login")
    page.fill("#email", email)
    page.fill("#password", password)
    page.get_by_role("button", name="Sign in").click()


def test_it_shows_the_overview_with_the_demo_user_and_organization(
    page: Page, base_url: str, settings: LazySettings
) -> None:
    # Connected, as `make demo` leaves it (nothing syncs here: no worker, no beat); an
    # organization without a cloud account lands on /connect instead (below). The demo allows
    # its simulator's host, and only it (OUTBOUND_ALLOWED_HOSTS, apps.core.outbound).
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1:8900"]
    call_command("setup_demo", simulator="127.0.0.1:8900", verbosity=0)
    sign_in(page, base_url, "demo@example.com", "demo")

    page.get_by_test_id("user-email").wait_for(timeout=15_000)
    assert page.get_by_test_id("user-email").inner_text() == "demo@example.com"
    assert page.get_by_test_id("org-name").inner_text() == "Demo ML Lab"
    assert page.url.rstrip("/") == base_url.rstrip("/")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "overview.png"), full_page=True)


def test_it_shows_the_error_of_a_wrong_password(page: Page, base_url: str) -> None:
    call_command("setup_demo", verbosity=0)
    sign_in(page, base_url, "demo@example.com", "not-the-password")
    page.get_by_text("The e-mail address or the password is wrong.").wait_for(timeout=10_000)
    assert "/login" in page.url


def test_it_sends_a_signed_out_visitor_to_the_login_page(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/instances")
    page.wait_for_url("**/login**", timeout=10_000)
    # The address changes before the form renders: wait for it rather than look at once.
    page.locator("#email").wait_for(state="visible", timeout=10_000)


def test_it_sends_an_owner_without_a_cloud_account_to_connect_one(
    page: Page, own_base_url: str
) -> None:
    call_command("setup_demo", verbosity=0)
    sign_in(page, own_base_url, "demo@example.com", "demo")

    page.wait_for_url("**/connect", timeout=15_000)
    page.get_by_role("heading", name="Connect a Tencent Cloud account", level=1).wait_for(
        timeout=10_000
    )
    page.get_by_role("button", name="Test connection").wait_for(timeout=10_000)
    assert page.get_by_role("form", name="Connect a Tencent Cloud account").is_visible()
