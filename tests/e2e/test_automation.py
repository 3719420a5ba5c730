"""Issue 22's "Run it for me" in a real browser, on the demo data.

The demo is built the way `make demo` builds it (tests/e2e/demo.py), with the history the
schedule rule needs (10 days of evidence), so the fleet has a day/night schedule to carry out.
The demo's cloud account is given the simulator's write key through the cloud-account service
(which tries it on the simulated Tencent Cloud before keeping it) and automation is switched on
for it. Then the owner opens a schedule recommendation, accepts it, turns "Run it for me" on,
reads the next stops and starts (times in the organization's timezone, with their weekday),
adds a skip date and pauses it, in English and once in Chinese (where the panel holds no English
sentence); a viewer sees no control. Every step is photographed into tests/e2e/artifacts/.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.automation.models import AutomationPlan, PlanStatus
from apps.cloud import services as cloud_services
from apps.cloud.models import CloudAccount, Instance
from apps.cloud.providers.tencent.simulator import WRITE_SECRET_ID, WRITE_SECRET_KEY
from apps.recommendations.models import Recommendation
from apps.recommendations.services import recommendation_accept
from tests.e2e.conftest import OpenContext
from tests.e2e.demo import VIEWER_EMAIL, VIEWER_PASSWORD, add_viewer
from tests.e2e.demo_session import (
    ARTIFACTS,
    WAIT_MS,
    DemoServer,
    serve_demo,
    settled,
    shoot,
    sign_in,
)
from tests.e2e.language_text import english_phrases

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

pytestmark = [
    pytest.mark.e2e,
    # A demo of 11 days (the schedule rule's evidence): with the slow stack tests.
    pytest.mark.stack,
    # The first test builds that demo (minutes on a loaded machine) inside its own time limit.
    pytest.mark.timeout(900),
    pytest.mark.xdist_group("e2e-automation"),
    pytest.mark.usefixtures("demo_database"),
]

# The schedule rule wants 10 days of evidence (see test_language_walk.py).
AUTOMATION_DEMO_DAYS = 11
WEEKDAYS_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


@pytest.fixture(scope="module")
def demo_server(
    django_db_setup: None, django_db_blocker: Any, browser: Browser
) -> Iterator[DemoServer]:
    """The demo with a write credential on its cloud account and automation switched on."""
    with serve_demo(django_db_blocker, days=AUTOMATION_DEMO_DAYS) as server:
        with django_db_blocker.unblock():
            account = CloudAccount.objects.get(pk=server.demo.account_id)
            # Through the service a person's PUT uses: it calls StopInstances/StartInstances on
            # the simulator with the key first, and keeps it only when CAM allows both.
            account = cloud_services.cloud_account_set_write_credential(
                account=account, secret_id=WRITE_SECRET_ID, secret_key=WRITE_SECRET_KEY
            )
            cloud_services.cloud_account_set_automation(account=account, enabled=True)
        yield server


def the_schedules(server: DemoServer) -> list[Recommendation]:
    """The demo's day/night schedules of one instance (the first is the one the owner runs),
    in a fixed order whatever the tests did to their status."""
    rows = list(
        Recommendation.objects.filter(
            organization=server.demo.organization, kind="schedule", instance__isnull=False
        )
        .exclude(status="resolved")
        .order_by("pk")
    )
    assert rows, "the demo has no schedule recommendation to carry out"
    return rows


def panel_of(page: Page, server: DemoServer, rec: Recommendation) -> Locator:
    page.goto(f"{server.url}/recommendations/{rec.pk}")
    settled(page)
    panel = page.get_by_test_id("automation-panel")
    panel.wait_for(timeout=WAIT_MS)
    return panel


def accept_and_enable(page: Page, panel: Locator, rec: Recommendation) -> None:
    """Accept the recommendation on its page, then turn "Run it for me" on."""
    unavailable = panel.get_by_test_id("automation-unavailable")
    expect(unavailable).to_have_attribute("data-reason", "not_accepted", timeout=WAIT_MS)
    page.locator(f'[data-testid="rec-actions-{rec.pk}"] button[data-action="accept"]').click()
    enable = panel.locator('button[data-action="automation-enable"]')
    expect(enable).to_be_visible(timeout=WAIT_MS)
    # Before it is on, the panel shows what it would do.
    expect(
        panel.get_by_test_id("automation-preview").locator("tbody tr[data-kind]").first
    ).to_be_visible(timeout=WAIT_MS)
    enable.click()
    expect(panel.get_by_test_id("automation-status")).to_have_attribute(
        "data-status", "active", timeout=WAIT_MS
    )


def next_action_rows(panel: Locator) -> list[tuple[str, str, str]]:
    rows = panel.get_by_test_id("automation-next-actions").locator("tbody tr[data-kind]")
    expect(rows.first).to_be_visible(timeout=WAIT_MS)
    out = []
    for i in range(rows.count()):
        row = rows.nth(i)
        cells = row.locator("td").all_inner_texts()
        out.append((row.get_attribute("data-kind") or "", cells[0], cells[1]))
    return out


def add_skip_date(panel: Locator, day: dt.date) -> None:
    panel.get_by_test_id("automation-skip-input").fill(day.isoformat())
    panel.locator('button[data-action="automation-skip-add"]').click()
    expect(panel.locator(f'[data-skip-date="{day.isoformat()}"]')).to_be_visible(timeout=WAIT_MS)


def pause(panel: Locator) -> None:
    panel.locator('button[data-action="automation-pause"]').click()
    expect(panel.get_by_test_id("automation-status")).to_have_attribute(
        "data-status", "paused", timeout=WAIT_MS
    )
    expect(panel.get_by_test_id("automation-paused-note")).to_be_visible(timeout=WAIT_MS)
    expect(panel.get_by_test_id("automation-next-actions")).to_have_count(0)


def shoot_panel(page: Page, panel: Locator, name: str) -> None:
    """The whole page, and the panel alone (readable at a glance)."""
    shoot(page, name)
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / f"{name}-panel.png"))


def a_week_ahead(server: DemoServer) -> dt.date:
    local_today = dt.datetime.now(ZoneInfo(server.demo.organization.timezone)).date()
    return local_today + dt.timedelta(days=7)


@pytest.fixture
def chinese_owner(demo_server: DemoServer) -> Iterator[None]:
    """The owner's stored language is Simplified Chinese for one test (it wins on every browser)."""
    User.objects.filter(email=demo_server.demo.email).update(language="zh-hans")
    try:
        yield
    finally:
        User.objects.filter(email=demo_server.demo.email).update(language="en")


def test_the_owner_runs_a_schedule_for_them_and_pauses_it(
    owner_page: Page, demo_server: DemoServer
) -> None:
    page = owner_page
    rec = the_schedules(demo_server)[0]
    panel = panel_of(page, demo_server, rec)
    accept_and_enable(page, panel, rec)
    expect(panel.get_by_test_id("automation-status")).to_have_text("Running")

    rows = next_action_rows(panel)
    kinds = {kind for kind, _, _ in rows}
    assert kinds == {"stop", "start"}, rows
    for kind, when, label in rows:
        # "Tue, 27 Oct 2026, 19:00": the weekday and the time, in the organization's timezone.
        assert when.split(",")[0] in WEEKDAYS_EN, when
        assert re.search(r"\b\d{2}:\d{2}$", when), when
        assert label == {"stop": "Stop", "start": "Start"}[kind], (kind, label)
    # The first row is the plan's soonest pending action, at its moment in the org's timezone.
    plan = AutomationPlan.objects.get(recommendation=rec, status=PlanStatus.ACTIVE)
    soonest = plan.actions.filter(status="pending").order_by("next_attempt_at", "id").first()
    assert soonest is not None
    local = soonest.next_attempt_at.astimezone(ZoneInfo(demo_server.demo.organization.timezone))
    assert rows[0][1].endswith(local.strftime("%H:%M")), (rows[0], local)
    assert rows[0][1].startswith(local.strftime("%a")), (rows[0], local)
    shoot_panel(page, panel, "automation-on")

    skip = a_week_ahead(demo_server)
    add_skip_date(panel, skip)
    plan.refresh_from_db()
    assert skip.isoformat() in [str(day) for day in plan.skip_dates]

    pause(panel)
    plan.refresh_from_db()
    assert plan.status == PlanStatus.PAUSED
    # Pausing cancelled the pending actions: the history says so.
    history = panel.get_by_test_id("automation-history")
    expect(history.locator("tbody tr[data-status]").first).to_be_visible(timeout=WAIT_MS)
    shoot_panel(page, panel, "automation-paused")


def test_in_chinese_the_panel_says_it_all_in_chinese(
    chinese_owner: None, owner_page: Page, demo_server: DemoServer
) -> None:
    page = owner_page
    rec = the_schedules(demo_server)[0]
    panel = panel_of(page, demo_server, rec)
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN", timeout=WAIT_MS)
    if not AutomationPlan.objects.filter(recommendation=rec).exists():
        accept_and_enable(page, panel, rec)
    else:
        # The English test left its plan paused: resume it.
        panel.locator('button[data-action="automation-resume"]').click()
        expect(panel.get_by_test_id("automation-status")).to_have_attribute(
            "data-status", "active", timeout=WAIT_MS
        )
    expect(panel.get_by_test_id("automation-status")).to_have_text("运行中")
    rows = next_action_rows(panel)
    for kind, when, label in rows:
        assert any(day in when for day in WEEKDAYS_ZH), when
        assert label == {"stop": "关机", "start": "开机"}[kind], (kind, label)
    add_skip_date(panel, a_week_ahead(demo_server) + dt.timedelta(days=1))
    shoot_panel(page, panel, "automation-on-zh")

    names = list(
        Instance.objects.filter(organization=demo_server.demo.organization).values_list(
            "name", flat=True
        )
    )
    english = english_phrases(panel.inner_text(), [*names, rec.title])
    assert english == [], f"English in the Chinese panel: {english}"

    pause(panel)
    expect(panel.get_by_test_id("automation-status")).to_have_text("已暂停")
    shoot_panel(page, panel, "automation-paused-zh")
    english = english_phrases(panel.inner_text(), [*names, rec.title])
    assert english == [], f"English in the Chinese panel: {english}"


def test_a_viewer_sees_no_control(open_context: OpenContext, demo_server: DemoServer) -> None:
    """An accepted schedule that could run (no plan yet) offers a viewer no "Run it for me", only
    who may turn it on; one that runs (or is paused) offers no pause, skip date or turn-off."""
    schedules = the_schedules(demo_server)
    waiting = schedules[-1]
    if waiting.status != "accepted":
        recommendation_accept(recommendation=waiting, actor=None, now=timezone.now())
    add_viewer(demo_server.demo.organization)
    page = open_context().new_page()
    sign_in(page, demo_server.url, VIEWER_EMAIL, VIEWER_PASSWORD)
    if not AutomationPlan.objects.filter(recommendation=waiting).exists():
        panel = panel_of(page, demo_server, waiting)
        expect(panel.get_by_test_id("automation-who")).to_be_visible(timeout=WAIT_MS)
        expect(panel.locator('button[data-action="automation-enable"]')).to_have_count(0)
        shoot(page, "automation-viewer")
    for rec in schedules:
        panel = panel_of(page, demo_server, rec)
        expect(panel.locator("[data-action^='automation-']")).to_have_count(0)
        expect(panel.get_by_test_id("automation-skip-input")).to_have_count(0)
