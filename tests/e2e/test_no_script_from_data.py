"""Issue 20's acceptance in a real browser: no script runs from data, and the policy is strict.

The demo is built as `make demo` builds it, from a simulated Tencent Cloud whose instances carry
hostile names and tag values (anyone in a cloud account can set those); a write API key then
renames a project to a payload (the stored XSS that was found: its tooltip created an admin
invitation), and a budget, an alert rule and an alert get hostile names. Every page is opened
and every chart hovered across its whole canvas, so that each tooltip renders: a payload that
ran would set ``window.__xss``. The names must show as text (they are in the tooltips, escaped),
and no page may report a Content-Security-Policy violation (the policy must not break the app).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import urllib.request
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.accounts.services import api_key_create
from apps.alerts.models import AlertKind, Comparison, ThresholdRule
from apps.alerts.services import alert_event_raise, budget_create
from apps.cloud.models import Instance, Project, ProjectTagKey
from apps.cloud.providers.tencent.simulator import SimulatorServer
from apps.digests.services import subscription_create_default
from apps.digests.tokens import unsubscribe_token_make
from apps.metrics.constants import Metric
from apps.recommendations.models import Recommendation
from tests.e2e.demo_session import WAIT_MS, DemoServer, serve_demo, settled, sign_in
from tests.html_safety import IMG, SCRIPT, SVG

if TYPE_CHECKING:
    from playwright.sync_api import APIResponse, Browser, Page, Response

    from tests.e2e.conftest import OpenContext

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.xdist_group("e2e-hostile-demo"),
    pytest.mark.usefixtures("demo_database"),
]

# Collects what the page's policy refused, before any script of the page runs.
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
});
"""


@dataclasses.dataclass(frozen=True)
class Hostile:
    project: Project  # renamed to IMG through the API with a write key
    tag_project: Project  # created by the sync from the SCRIPT tag value
    instance: Instance  # named IMG in the cloud
    recommendations: list[Recommendation]


def _make_the_fleet_hostile(simulator: SimulatorServer) -> None:
    """Names and tags in the simulated cloud, before the demo's sync reads them."""
    fleet = simulator.cloud.fleet
    changes = {
        0: {"name": IMG, "project": SCRIPT},
        1: {"name": SVG, "project": SVG},
        2: {"name": SCRIPT, "team": IMG},
    }
    for index, change in changes.items():
        before = fleet.all_instances[index]
        tags = dict(before.tags) | {k: v for k, v in change.items() if k != "name"}
        after = dataclasses.replace(before, name=change["name"], tags=tuple(tags.items()))
        fleet.all_instances[index] = after
        fleet.by_id[after.instance_id] = after


@pytest.fixture(scope="module")
def demo_server(
    django_db_setup: None, django_db_blocker: Any, browser: Browser
) -> Iterator[DemoServer]:
    with serve_demo(django_db_blocker, prepare=_make_the_fleet_hostile) as server:
        yield server


@pytest.fixture(scope="module")
def hostile(demo_server: DemoServer, django_db_blocker: Any) -> Hostile:
    with django_db_blocker.unblock():
        organization = demo_server.demo.organization
        # The tag key the Overview offers to stack by (the demo's default key, made explicit).
        ProjectTagKey.objects.get_or_create(organization=organization, key="project")
        tag_project = Project.objects.get(organization=organization, name=SCRIPT)
        # The attack as found: a write key (team-lead rights) renames the biggest project.
        _key, raw_key = api_key_create(
            organization=organization, name="ci", scope="write", created_by=None
        )
        project = (
            Project.objects.filter(organization=organization)
            .exclude(pk=tag_project.pk)
            .exclude(name=SVG)
            .order_by("pk")
            .first()
        )
        assert project is not None
        request = urllib.request.Request(
            f"{demo_server.url}/api/v1/projects/{project.pk}",
            method="PATCH",
            data=json.dumps({"name": IMG}).encode(),
            headers={"Authorization": f"Bearer {raw_key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as answer:
            assert json.loads(answer.read())["name"] == IMG
        project.refresh_from_db()

        budget = budget_create(
            organization=organization, name=SVG, amount=Decimal("10.00"), project=project
        )
        ThresholdRule.objects.create(
            organization=organization,
            name=IMG,
            metric=Metric.GPU_UTIL_PCT,
            comparison=Comparison.BELOW,
            threshold=5,
            duration_minutes=30,
        )
        alert_event_raise(
            organization=organization,
            started_at=dt.datetime.now(dt.UTC),
            kind=AlertKind.BUDGET,
            budget=budget,
            project=project,
            title=f"Budget {SVG} at 100% {SCRIPT}",
            message=f"{IMG} spent all of {SVG}",
        )
        instance = Instance.objects.get(organization=organization, name=IMG)
        with_charts = Recommendation.objects.filter(
            organization=organization, instance__isnull=False
        ).order_by("pk")
        profile = next((r for r in with_charts if r.evidence.get("chart") == "profile"), None)
        daily = next(
            (
                r
                for r in with_charts
                if r.evidence.get("chart") != "profile" and r.evidence.get("chart_range")
            ),
            None,
        )
        recommendations = [r for r in (profile, daily) if r is not None]
        assert recommendations, "the demo has no recommendation with an evidence chart"
        return Hostile(project, tag_project, instance, recommendations)


def csp_directives(response: Response | APIResponse | None) -> dict[str, list[str]]:
    assert response is not None
    header = response.headers.get("content-security-policy")
    assert header, f"{response.url} has no Content-Security-Policy"
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def assert_strict(response: Response | APIResponse | None) -> None:
    policy = csp_directives(response)
    scripts = policy.get("script-src", policy.get("default-src"))
    assert scripts == ["'self'"], f"script-src {scripts}"
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    for directive, sources in policy.items():
        # Only styles may be inline (ECharts' tooltips and React's style attributes).
        if directive.startswith("style-src"):
            continue
        assert "'unsafe-inline'" not in sources, directive
        assert "'unsafe-eval'" not in sources, directive
    assert response is not None
    assert response.headers.get("x-frame-options") == "DENY"
    assert response.headers.get("x-content-type-options") == "nosniff"
    assert response.headers.get("referrer-policy") == "same-origin"


def hover_every_chart(page: Page) -> str:
    """Moves the mouse across every chart's canvas, row by row; returns the tooltips' text."""
    charts = page.locator('[data-testid="chart"]')
    seen: list[str] = []
    for index in range(charts.count()):
        chart = charts.nth(index)
        chart.scroll_into_view_if_needed()
        expect(chart).to_have_attribute("data-drawn", "true", timeout=WAIT_MS)
        box = chart.bounding_box()
        assert box is not None
        # Three rows of 31 points: every bar, band and heatmap column is crossed (a day's bars
        # are wider than a step; an axis tooltip answers anywhere along its axis).
        for row in (0.3, 0.55, 0.8):
            for step in range(1, 32):
                page.mouse.move(box["x"] + box["width"] * step / 32, box["y"] + box["height"] * row)
            # A frame for the tooltip to render before the next row.
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => done(null)))")
            seen.append(chart.inner_text())
        page.mouse.move(0, 0)
    return "\n".join(seen)


def open_and_hover(page: Page, url: str) -> str:
    response = page.goto(url)
    settled(page)
    tooltips = hover_every_chart(page)
    flag = page.evaluate("() => window.__xss")
    assert flag is None, f"a script from data ran on {url}"
    violations = page.evaluate("() => window.__cspViolations")
    assert violations == [], f"{url}: {violations}"
    assert_strict(response)
    return tooltips


def test_no_script_from_names_runs_on_any_page_or_chart_tooltip(
    open_context: OpenContext,
    owner_state: dict[str, Any],
    demo_server: DemoServer,
    hostile: Hostile,
) -> None:
    context = open_context(state=owner_state)
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    base = demo_server.url

    overview = open_and_hover(page, base)
    # The renamed project is a series of "spend over time": its name is in the tooltip, as text.
    assert IMG in overview
    by_tag = open_and_hover(page, f"{base}/?spend_by=tag:project")
    assert SCRIPT in by_tag
    assert SVG in by_tag
    open_and_hover(page, f"{base}/projects/{hostile.project.slug}")
    open_and_hover(page, f"{base}/projects/{hostile.tag_project.slug}")
    for path in ("/projects", "/instances", "/recommendations", "/reports"):
        open_and_hover(page, f"{base}{path}")
    open_and_hover(page, f"{base}/instances/{hostile.instance.pk}")
    assert page.locator("main h1").first.inner_text().startswith(IMG)
    for recommendation in hostile.recommendations:
        open_and_hover(page, f"{base}/recommendations/{recommendation.pk}")
    for tab in (
        "members",
        "invitations",
        "api-keys",
        "cloud-accounts",
        "projects",
        "budgets",
        "alerts",
        "recommendations",
    ):
        open_and_hover(page, f"{base}/settings/{tab}")
    # The hostile names were on those pages, as text.
    page.goto(f"{base}/settings/alerts")
    settled(page)
    assert IMG in page.locator("main").inner_text()


def test_the_csrf_token_is_not_readable_by_scripts_and_writes_still_work(
    open_context: OpenContext, demo_server: DemoServer
) -> None:
    page = open_context().new_page()
    sign_in(page, demo_server.url, demo_server.demo.email, demo_server.demo.password)
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["csrftoken"]["httpOnly"] is True
    assert "csrftoken" not in page.evaluate("() => document.cookie")

    # A write after the sign-in rotated the token: the page's client finds the new one.
    page.goto(f"{demo_server.url}/recommendations")
    row = page.locator("main [data-testid^=rec-row-]").first
    row.wait_for(timeout=WAIT_MS)
    pk = int((row.get_attribute("data-testid") or "").removeprefix("rec-row-"))
    title = Recommendation.objects.get(pk=pk).title
    row.get_by_role("button", name=f"Accept: {title}").click()
    page.get_by_test_id("rec-notice").wait_for(timeout=WAIT_MS)
    assert Recommendation.objects.get(pk=pk).status == "accepted"

    # Signing out and in again (a new token each time) leaves the client able to write.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(re.compile(r"/login"), timeout=WAIT_MS)
    sign_in(page, demo_server.url, demo_server.demo.email, demo_server.demo.password)
    page.goto(f"{demo_server.url}/recommendations?status=accepted")
    row = page.get_by_test_id(f"rec-row-{pk}")
    row.get_by_role("button", name=f"Reopen: {title}").click()
    page.get_by_test_id("rec-notice").wait_for(timeout=WAIT_MS)
    assert Recommendation.objects.get(pk=pk).status == "open"


def test_every_html_page_has_a_strict_policy_and_runs_within_it(
    open_context: OpenContext, demo_server: DemoServer, hostile: Hostile
) -> None:
    context = open_context()
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    base = demo_server.url

    def visit(path: str, ready: str) -> None:
        response = page.goto(f"{base}{path}", wait_until="load")
        page.locator(ready).first.wait_for(timeout=WAIT_MS)
        page.wait_for_load_state("networkidle", timeout=WAIT_MS)
        assert page.evaluate("() => window.__xss") is None, f"a script from data ran on {path}"
        violations = page.evaluate("() => window.__cspViolations")
        assert violations == [], f"{path}: {violations}"
        assert_strict(response)

    # Django's own pages: the API docs, the browsable API, the unsubscribe page of a digest.
    visit("/login", "#email")
    visit("/api/docs/", ".swagger-ui .opblock")
    visit("/api/v1/auth/csrf", "#content")
    subscription = subscription_create_default(
        organization=demo_server.demo.organization,
        user=User.objects.get(email=demo_server.demo.email),
    )
    visit(f"/api/v1/digests/unsubscribe?token={unsubscribe_token_make(subscription.pk)}", "form")
    # The admin, signed in, on the hostile project (its change form runs the admin's scripts).
    User.objects.create_superuser(email="root@example.com", password="root-pass-2026")
    visit("/admin/login/", "#login-form")
    page.fill("#id_username", "root@example.com")
    page.fill("#id_password", "root-pass-2026")
    page.locator("#login-form [type=submit]").click()
    page.wait_for_url(re.compile(r"/admin/$"), timeout=WAIT_MS)
    visit("/admin/", "#content-main")
    visit("/admin/cloud/project/", "#result_list")
    assert IMG in page.locator("#result_list").inner_text()
    visit(f"/admin/cloud/project/{hostile.project.pk}/change/", "#project_form")
    # An API answer (JSON) carries the policy too, should a browser ever render one.
    assert_strict(page.request.get(f"{base}/api/v1/auth/csrf"))
