"""A newcomer's first hour in Chromium: the dark theme they chose survives a reload (set before
the page is first drawn), and the Projects table marks today's partial day in its trend.

The organization is small and built here: one project billed every hour of yesterday and of
today so far, in the organization's timezone, so the default range ends on a partial today.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from typing import TYPE_CHECKING

import pytest
from django.utils import timezone

from apps.accounts.models import Organization
from tests.alerts.builders import bill, make_account, make_instance, make_project
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_login import sign_in

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

# Before any script of the page runs: the theme <html> carries when <body> first appears, which
# is what the first paint shows.
RECORD_THEME_AT_FIRST_BODY = """
new MutationObserver((records, observer) => {
  if (document.body) {
    window.__themeAtFirstBody = document.documentElement.getAttribute('data-theme');
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


def bill_yesterday_and_today(organization: Organization) -> None:
    tz = zoneinfo.ZoneInfo(organization.timezone)
    account = make_account(organization)
    nlp = make_project(organization, "nlp")
    box = make_instance(account, "box", project=nlp)
    now = timezone.now()
    hour = (now.astimezone(tz) - dt.timedelta(days=1)).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    while hour + dt.timedelta(hours=1) <= now:
        bill(account, hour, "10.00", project=nlp, instance=box)
        hour += dt.timedelta(hours=1)


def test_a_chosen_dark_theme_survives_a_reload_and_today_is_marked_in_the_trend(
    page: Page, own_base_url: str, acme: Organization
) -> None:
    bill_yesterday_and_today(acme)
    page.add_init_script(RECORD_THEME_AT_FIRST_BODY)
    sign_in(page, own_base_url, "alice@acme.test", "alice-pass-123")
    page.wait_for_url(re.compile(r"^(?!.*/login).*$"), timeout=15_000)

    page.goto(f"{own_base_url}/projects")
    toggle = page.get_by_test_id("theme-toggle")
    while toggle.get_attribute("data-theme-choice") != "dark":
        toggle.click()
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"

    page.reload()
    page.get_by_test_id("projects-table").wait_for(timeout=20_000)
    assert page.evaluate("window.__themeAtFirstBody") == "dark"
    assert page.get_by_test_id("theme-toggle").get_attribute("data-theme-choice") == "dark"
    # styles.css's dark --bg, not the light page of the system's (headless: light) theme.
    background = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert background == "rgb(15, 20, 27)"

    trend = page.locator('[data-testid="project-nlp"] svg.sparkline')
    assert trend.get_attribute("aria-label") == (
        "Daily spend of nlp; the last point is today so far"
    )
    today = trend.locator('circle[data-partial="today"]')
    assert today.locator("title").text_content() == "Today so far (the day is not over)"
    # Hollow: filled with the card's colour (dark --surface), outlined in the line's.
    assert today.evaluate("c => getComputedStyle(c).fill") == "rgb(23, 30, 39)"
    assert trend.locator("path[stroke-dasharray]").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "projects-dark-today.png"), full_page=True)
