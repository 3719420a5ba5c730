"""Issue 13's acceptance in a real browser, on the demo data.

The demo organization is built once for the module the way `make demo` builds it (see
``tests/e2e/demo.py``: setup_demo, a backfill through the SDK against the Tencent Cloud
simulator, analyse, recommend) and served by a live server of its own, so the data survives
from one test to the next (pytest-django's ``live_server`` flushes the database after every
test). The tests follow the shared test-id contract of the dashboard pages (``data-testid``,
``data-chart``, ``data-drawn``, ``data-sort``, ``data-action``).

Every browser context of this module fails its test if any page asks another host for
anything (no CDN, no font service, no telemetry), and every page is photographed into
tests/e2e/artifacts/.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.simulator import DEFAULT_SECRET_ID
from apps.recommendations.models import Recommendation
from tests.e2e.conftest import OpenContext
from tests.e2e.demo import VIEWER_EMAIL, VIEWER_PASSWORD, Demo, add_viewer
from tests.e2e.demo_session import (
    WAIT_MS,
    DemoServer,
    serve_demo,
    settled,
    shoot,
    sign_in,
    wait_drawn,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, ViewportSize

pytestmark = [
    pytest.mark.e2e,
    # One worker builds the demo once and runs every test of the module against it.
    pytest.mark.xdist_group("e2e-demo"),
    pytest.mark.usefixtures("demo_database"),
]

TABLET_PORTRAIT: ViewportSize = {"width": 768, "height": 1024}
TABLET_LANDSCAPE: ViewportSize = {"width": 1024, "height": 768}
OVERVIEW_CHARTS = ("spend-over-time", "phase-breakdown", "fleet-heatmap")


@pytest.fixture(scope="module")
def demo_server(
    django_db_setup: None, django_db_blocker: Any, browser: Browser
) -> Iterator[DemoServer]:
    """The demo organization on the test database, served by a live server of this module."""
    # ``browser`` first: without Chromium or the built front-end there is nothing to build for.
    with serve_demo(django_db_blocker) as server:
        yield server


@pytest.fixture
def page(owner_page: Page) -> Page:
    """A page of the signed-in demo owner (overrides the conftest's unguarded page)."""
    return owner_page


def first_listed_recommendation(page: Page, demo: Demo) -> Recommendation:
    """The first recommendation the (open) Recommendations page lists."""
    row = page.locator("main [data-testid^=rec-row-]").first
    row.wait_for(timeout=WAIT_MS)
    pk = int((row.get_attribute("data-testid") or "").removeprefix("rec-row-"))
    return Recommendation.objects.get(organization=demo.organization, pk=pk)


# --- the owner ----------------------------------------------------------------------------


def test_it_signs_in_with_the_demo_login(
    open_context: OpenContext, demo_server: DemoServer
) -> None:
    page = open_context().new_page()
    sign_in(page, demo_server.url, demo_server.demo.email, demo_server.demo.password)
    assert page.url.rstrip("/") == demo_server.url.rstrip("/")
    assert page.locator(".topbar .user-email").inner_text() == demo_server.demo.email


def test_the_overview_shows_spend_charts_and_top_recommendations(
    page: Page, demo_server: DemoServer
) -> None:
    page.goto(demo_server.url)
    mtd = page.get_by_test_id("mtd-spend")
    mtd.wait_for(timeout=WAIT_MS)
    # Bills appear once their hour is over: in the first hour of the organization's month
    # there is rightly nothing to show yet.
    local = dt.datetime.now(ZoneInfo(demo_server.demo.organization.timezone))
    if local.day == 1 and local.hour < 1:
        pytest.skip("the first hour of the month has no settled bill yet")
    expect(mtd).to_have_text(re.compile(r"[1-9]"), timeout=WAIT_MS)
    for chart in OVERVIEW_CHARTS:
        wait_drawn(page, chart)
    top = page.get_by_test_id("top-recommendations")
    top.locator('button[data-action="accept"]').first.wait_for(timeout=WAIT_MS)
    assert top.locator('button[data-action="dismiss"]').count() > 0
    shoot(page, "overview-charts")


def test_it_opens_the_most_wasteful_instance_and_sees_its_phase_bands(
    page: Page, demo_server: DemoServer
) -> None:
    page.goto(f"{demo_server.url}/instances")
    page.get_by_test_id("instances-table").wait_for(timeout=WAIT_MS)
    page.locator('button[data-sort="waste"]').click()
    page.wait_for_url(re.compile(r"[?&]ordering=-waste\b"), timeout=WAIT_MS)
    settled(page)
    shoot(page, "instances-by-waste")
    page.locator('a[data-testid="instance-link"]').first.click()
    page.wait_for_url(re.compile(r"/instances/\d+"), timeout=WAIT_MS)
    wait_drawn(page, "instance-timeseries")
    bands = page.locator('[data-chart="instance-timeseries"]').get_attribute("data-phase-bands")
    assert bands is not None, "the time series does not say how many phase bands it drew"
    assert int(bands) > 0, f"data-phase-bands={bands!r}"
    wait_drawn(page, "instance-daily-cost")
    shoot(page, "instance")


def test_the_project_page_shows_the_overview_scoped_to_the_project(
    page: Page, demo_server: DemoServer
) -> None:
    page.goto(f"{demo_server.url}/projects")
    table = page.get_by_test_id("projects-table")
    table.wait_for(timeout=WAIT_MS)
    table.locator('a[href^="/projects/"]').first.click()
    page.wait_for_url(re.compile(r"/projects/[^/?#]+"), timeout=WAIT_MS)
    page.get_by_test_id("mtd-spend").wait_for(timeout=WAIT_MS)
    wait_drawn(page, "spend-over-time")
    shoot(page, "project")


def test_accepting_a_recommendation_moves_it_to_accepted_and_the_api_agrees(
    page: Page, demo_server: DemoServer
) -> None:
    page.goto(f"{demo_server.url}/recommendations")
    recommendation = first_listed_recommendation(page, demo_server.demo)
    assert recommendation.status == "open"
    row = page.get_by_test_id(f"rec-row-{recommendation.pk}")
    row.get_by_role("button", name=f"Accept: {recommendation.title}").click()
    page.get_by_test_id("rec-notice").wait_for(timeout=WAIT_MS)
    # It left the open ones and shows among the accepted.
    row.wait_for(state="detached", timeout=WAIT_MS)
    page.goto(f"{demo_server.url}/recommendations?status=accepted")
    page.get_by_test_id(f"rec-row-{recommendation.pk}").wait_for(timeout=WAIT_MS)

    answer = page.request.get(f"{demo_server.url}/api/v1/recommendations/{recommendation.pk}")
    assert answer.ok, answer.text()
    assert answer.json()["status"] == "accepted"
    recommendation.refresh_from_db()
    assert recommendation.status == "accepted"


def test_a_cloud_account_with_a_wrong_key_shows_the_error(
    page: Page, demo_server: DemoServer
) -> None:
    accounts_before = CloudAccount.objects.count()
    page.goto(f"{demo_server.url}/settings/cloud-accounts")
    page.get_by_role("button", name="Connect Tencent Cloud account").click()
    form = page.get_by_role("form", name="Connect Tencent Cloud account")
    form.get_by_label("Name").fill("Second account")
    form.get_by_label("SecretId").fill(DEFAULT_SECRET_ID)
    form.get_by_label("SecretKey").fill("not-the-key-0000000000000000000")
    form.get_by_role("checkbox", name=re.compile("ap-guangzhou")).check()
    form.get_by_role("button", name="Advanced").click()
    form.get_by_label("Endpoint override (host:port)").fill(demo_server.simulator.endpoint)
    form.get_by_label("Scheme").select_option("http")
    form.get_by_role("button", name="Test connection").click()

    result = page.get_by_test_id("connection-test-result")
    result.wait_for(timeout=WAIT_MS)
    assert result.inner_text().startswith("Connection failed: Tencent Cloud rejected the SecretId")
    assert CloudAccount.objects.count() == accounts_before
    shoot(page, "settings-cloud-accounts-wrong-key")


def test_an_owner_overrides_a_recommendation_threshold_and_resets_it(
    page: Page, demo_server: DemoServer
) -> None:
    settings_url = f"{demo_server.url}/api/v1/recommendations/settings"
    page.goto(f"{demo_server.url}/settings/recommendations")
    form = page.get_by_role("form", name="Recommendation thresholds")
    share = form.get_by_role(
        "textbox", name="Idle share of observed hours (0-1) idle_min_share", exact=True
    )
    share.fill("0.9")
    form.get_by_role("button", name="Save 1 change").click()
    page.get_by_role("status").filter(has_text="Saved 1 threshold").wait_for(timeout=WAIT_MS)
    assert page.request.get(settings_url).json()["thresholds"]["idle_min_share"] == 0.9
    shoot(page, "settings-recommendations-saved")

    form.get_by_role("button", name="Reset Idle share of observed hours (0-1) to default").click()
    form.get_by_role("button", name="Save 1 change").click()
    page.get_by_role("status").filter(has_text="Saved 1 threshold").wait_for(timeout=WAIT_MS)
    assert "idle_min_share" not in page.request.get(settings_url).json()["thresholds"]


def test_an_owner_sees_their_sign_ins_in_the_audit_log(
    open_context: OpenContext, demo_server: DemoServer
) -> None:
    demo = demo_server.demo
    page = open_context().new_page()
    page.goto(f"{demo_server.url}/login")
    page.fill("#email", demo.email)
    page.fill("#password", "not-the-password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("The e-mail address or the password is wrong.").wait_for(timeout=WAIT_MS)
    sign_in(page, demo_server.url, demo.email, demo.password)

    page.get_by_role("link", name="Settings").first.click()
    page.get_by_role("link", name="Audit log").click()
    page.wait_for_url("**/settings/audit-log", timeout=WAIT_MS)
    rows = page.get_by_test_id("audit-row")
    signed_in = rows.filter(has_text="Signed in").first
    signed_in.wait_for(timeout=WAIT_MS)
    assert demo.email in signed_in.inner_text()
    failed = rows.filter(has_text="Sign-in failed").first
    failed.wait_for(timeout=WAIT_MS)
    # Newest first: the sign-in comes after (above) the failed attempt before it.
    texts = rows.all_inner_texts()
    assert texts.index(signed_in.inner_text()) < texts.index(failed.inner_text())
    failed.get_by_text("Show").click()
    assert "reason" in failed.inner_text()
    assert "not-the-password" not in page.content()

    page.get_by_label("Action").select_option("sign_in.failed")
    page.get_by_role("button", name="Filter").click()
    # Locator assertions, not wait_for_function: the CSP refuses the eval it polls with.
    expect(rows.filter(has_not_text="Sign-in failed")).to_have_count(0, timeout=WAIT_MS)
    expect(rows.first).to_contain_text("Sign-in failed")
    shoot(page, "settings-audit-log-filtered")


def test_every_page_is_photographed(page: Page, demo_server: DemoServer) -> None:
    base = demo_server.url
    recommendation = Recommendation.objects.filter(organization=demo_server.demo.organization)
    pages = [
        ("overview-page", "/"),
        ("projects", "/projects"),
        ("instances", "/instances"),
        ("recommendations", "/recommendations"),
        ("recommendation", f"/recommendations/{recommendation.order_by('-pk').first().pk}"),  # type: ignore[union-attr]
        ("reports", "/reports"),
        ("settings-members", "/settings/members"),
        ("settings-invitations", "/settings/invitations"),
        ("settings-api-keys", "/settings/api-keys"),
        ("settings-cloud-accounts", "/settings/cloud-accounts"),
        ("settings-projects", "/settings/projects"),
        ("settings-budgets", "/settings/budgets"),
        ("settings-alerts", "/settings/alerts"),
        ("settings-recommendations", "/settings/recommendations"),
        ("settings-audit-log", "/settings/audit-log"),
    ]
    for name, path in pages:
        page.goto(f"{base}{path}")
        settled(page)
        shoot(page, name)
        if name == "instances":
            # An instance, opened from the list as a user would.
            page.locator('main a[href^="/instances/"]').first.click()
            page.wait_for_url(re.compile(r"/instances/\d+"), timeout=WAIT_MS)
            settled(page)
            shoot(page, "instance-page")


# --- the viewer ---------------------------------------------------------------------------


@pytest.fixture
def viewer_page(open_context: OpenContext, demo_server: DemoServer) -> Page:
    add_viewer(demo_server.demo.organization)
    page = open_context().new_page()
    sign_in(page, demo_server.url, VIEWER_EMAIL, VIEWER_PASSWORD)
    return page


def test_a_viewer_sees_recommendations_without_action_buttons_and_no_settings_link(
    viewer_page: Page, demo_server: DemoServer
) -> None:
    page = viewer_page
    page.goto(f"{demo_server.url}/recommendations")
    first_listed_recommendation(page, demo_server.demo)
    settled(page)
    main = page.locator("main")
    assert main.locator("[data-testid^=rec-actions-]").count() == 0
    for action in ("Accept", "Dismiss", "Snooze", "Reopen"):
        # "Accept: <title>" and so on (the status filter's "Accepted" is not an action).
        assert main.get_by_role("button", name=re.compile(f"^{action}: ")).count() == 0, action
    shoot(page, "viewer-recommendations")

    # A viewer changes nothing in Settings: the navigation does not offer it.
    nav = page.get_by_role("navigation", name="Main")
    assert nav.get_by_role("link", name="Recommendations").count() == 1
    assert nav.get_by_role("link", name="Settings").count() == 0
    # Typed by hand, Settings says who manages it instead of showing tabs.
    page.goto(f"{demo_server.url}/settings/projects")
    notice = page.get_by_test_id("settings-managed")
    notice.wait_for(timeout=WAIT_MS)
    assert "managed by your organization's owners and admins" in notice.inner_text()
    assert page.locator("main button").count() == 0

    # The recommendation thresholds stay readable (they explain the recommendations), without a control.
    page.goto(f"{demo_server.url}/recommendations")
    page.get_by_role("link", name="Rule thresholds").click()
    page.get_by_role("region", name="Stop idle").wait_for(timeout=WAIT_MS)
    settled(page)
    assert page.get_by_test_id("settings-managed").count() == 1
    assert page.locator("main input, main button").count() == 0
    shoot(page, "viewer-settings-recommendations")


def test_a_viewer_sees_no_action_buttons_on_the_overview_and_instances(
    viewer_page: Page, demo_server: DemoServer
) -> None:
    page = viewer_page
    page.goto(demo_server.url)
    page.get_by_test_id("top-recommendations").wait_for(timeout=WAIT_MS)
    settled(page)
    assert page.locator("main button[data-action]").count() == 0
    shoot(page, "viewer-overview")

    page.goto(f"{demo_server.url}/instances")
    page.locator('a[data-testid="instance-link"]').first.wait_for(timeout=WAIT_MS)
    settled(page)
    assert page.locator("main button[data-action]").count() == 0


# --- a tablet -----------------------------------------------------------------------------


def assert_no_horizontal_overflow(page: Page) -> None:
    """The document is no wider than the window (no horizontal scroll bar on the page)."""
    overflow = page.evaluate(
        r"""() => {
            const width = document.documentElement.clientWidth;
            const wide = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
            // Name the outermost elements that stick out, so a failure says what to fix.
            const culprits = [];
            for (const el of document.querySelectorAll('body *')) {
                if (el.getBoundingClientRect().right <= width + 0.5) continue;
                if (culprits.some((c) => c.contains(el))) continue;
                culprits.push(el);
            }
            const name = (el) =>
                el.tagName.toLowerCase() +
                (el.dataset.testid ? `[data-testid=${el.dataset.testid}]` : '') +
                (el.className && typeof el.className === 'string'
                    ? '.' + el.className.trim().split(/\s+/).join('.') : '');
            const describe = (el) => {
                const path = [];
                for (let a = el; a && a !== document.body && path.length < 4; a = a.parentElement)
                    path.unshift(name(a));
                return path.join(' > ') + ` (right edge ${Math.round(el.getBoundingClientRect().right)} px)`;
            };
            return { by: wide - width, culprits: culprits.slice(0, 8).map(describe) };
        }"""
    )
    assert overflow["by"] <= 0, (
        f"the page is {overflow['by']} px wider than the {page.viewport_size} window: "
        + "; ".join(overflow["culprits"])
    )


def test_a_tablet_gets_a_collapsed_navigation_and_no_horizontal_overflow(
    open_context: OpenContext, owner_state: dict[str, Any], demo_server: DemoServer
) -> None:
    page = open_context(viewport=TABLET_PORTRAIT, state=owner_state).new_page()
    page.goto(demo_server.url)
    settled(page)
    assert_no_horizontal_overflow(page)

    # The navigation folds behind a menu button and opens on demand.
    nav = page.get_by_role("navigation", name="Main")
    menu = page.get_by_role("button", name="Menu")
    expect(menu).to_be_visible()
    expect(nav.get_by_role("link", name="Instances")).to_be_hidden()
    shoot(page, "overview-tablet")
    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    nav.get_by_role("link", name="Instances").click()
    page.wait_for_url("**/instances", timeout=WAIT_MS)
    # A client-side navigation: the URL changes before React renders the new page, and
    # "networkidle" was reached on the first page already, so settled() alone could look at
    # the Overview still. Wait for the Instances heading, then for its data.
    expect(page.locator("main h1")).to_have_text("Instances", timeout=WAIT_MS)
    settled(page)
    # Choosing a page folds the menu again; a wide table scrolls inside itself, not the page.
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(nav.get_by_role("link", name="Instances")).to_be_hidden()
    assert_no_horizontal_overflow(page)
    shoot(page, "instances-tablet")

    page.set_viewport_size(TABLET_LANDSCAPE)
    for name, path in (
        ("overview-tablet-landscape", "/"),
        ("instances-tablet-landscape", "/instances"),
    ):
        page.goto(f"{demo_server.url}{path}")
        settled(page)
        assert_no_horizontal_overflow(page)
        shoot(page, name)
