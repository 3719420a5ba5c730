"""The Instances and Projects tables in Chromium on a billed month of the simulator's fleet.

Sorted by waste, the Instances table opens an instance's page from its name; the Projects table
links each project to its page. Screenshots are saved as artifacts. The month is October 2026
(the simulator's bills), chosen in the URL as a custom range, as a shared link would.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.cloud.conftest import make_simulator  # noqa: F401  (fixture)
from tests.costs.conftest import billed  # noqa: F401  (fixture)
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_login import sign_in

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
]

RANGE = "range=custom&from=2026-10-01&to=2026-10-31"


def test_the_usage_tables_sort_filter_and_link(
    page: Page,
    base_url: str,
    billed: Any,  # noqa: F811
) -> None:
    host = urlparse(base_url).netloc
    elsewhere: list[str] = []
    page.on(
        "request",
        lambda request: (
            elsewhere.append(request.url)
            if urlparse(request.url).netloc not in (host, "")
            and not request.url.startswith("data:")
            else None
        ),
    )
    sign_in(page, base_url, "alice@acme.test", "alice-pass-123")
    page.wait_for_url(re.compile(r"^(?!.*/login).*$"), timeout=15_000)

    page.goto(f"{base_url}/instances?{RANGE}")
    table = page.get_by_test_id("instances-table")
    table.wait_for(timeout=20_000)
    page.locator('button[data-sort="waste"]').click()
    page.wait_for_url(re.compile(r"ordering=-waste"), timeout=10_000)
    header = page.locator("th", has=page.locator('button[data-sort="waste"]'))
    # The URL changes before React renders the new order: wait for the header to say it.
    expect(header).to_have_attribute("aria-sort", "descending", timeout=10_000)
    # The rows of the new order are in once the table is no longer busy.
    page.locator('[data-testid="instances-table"]:not([aria-busy="true"])').wait_for(timeout=20_000)
    assert page.locator('[data-testid="instance-link"]').count() > 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "instances-by-waste.png"), full_page=True)
    page.locator('[data-testid="instance-link"]').first.click()
    page.wait_for_url(re.compile(r"/instances/\d+"), timeout=10_000)

    page.goto(f"{base_url}/projects?{RANGE}")
    page.get_by_test_id("projects-table").wait_for(timeout=20_000)
    links = page.locator('[data-testid="projects-table"] a[href^="/projects/"]')
    assert links.count() > 0
    page.screenshot(path=str(ARTIFACTS / "projects.png"), full_page=True)
    assert elsewhere == []
