"""Issue 19's language walk: every page of the dashboard, every recommendation and every alert,
read in Chromium in Simplified Chinese and in English.

The demo organization is built the way `make demo` builds it (tests/e2e/demo.py: the fleet
synced from the Tencent Cloud simulator through the SDK, analysed, recommended; its alerts
evaluated), with a budget it has crossed (a budget alert) and a pending invitation (the page
that accepts it). The owner switches the language with the top bar's picker, which stores it on
the server, and then opens each route of ``tests/frontend_routes.py``: the ids in the paths are
read from the API (an instance, a project, every recommendation), the alert history is paged
through to its end, and the pages of a person not signed in are opened in a browser that asks
for the language. Each page is photographed (tests/e2e/artifacts/walk/<language>/) once nothing
is loading, and its visible text read (tests/e2e/language_text.py says what counts).

- zh-CN: no English sentence, no raw key. English that comes from a recommendation's own
  words (its explanation, steps, formula, rendered per language by apps/recommendations) is
  reported as its own group, with the field it came from, so that a failure says where to look.
- en: no raw key, placeholder or code name, and no "undefined", "NaN" or "null" shown as text.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from django.core import mail
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.accounts.roles import Role
from apps.accounts.services import invitation_create
from apps.alerts.models import AlertEvent, AlertKind
from apps.alerts.services import budget_create
from apps.alerts.tasks import evaluate
from apps.digests.services import subscription_create_default
from tests.e2e.conftest import OpenContext
from tests.e2e.demo_session import ARTIFACTS, WAIT_MS, DemoServer, serve_demo
from tests.e2e.language_text import (
    catalog_namespaces,
    english_phrases,
    raw_markers,
    strings_in,
)
from tests.frontend_routes import frontend_routes

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [
    pytest.mark.e2e,
    # ~3.5 minutes on one worker (a demo of 11 days, 59 pages twice): with the slow stack tests
    # (make test-stack), so that make test stays within its time.
    pytest.mark.stack,
    # One worker builds the demo once and walks it in both languages.
    pytest.mark.xdist_group("e2e-language-walk"),
    pytest.mark.usefixtures("demo_database"),
]

INVITED_EMAIL = "new.colleague@example.com"
# History enough for every rule to find what it looks for (the schedule rule wants the most:
# 10 days of evidence), so that the walk reads a recommendation of every kind the fleet has.
WALK_DEMO_DAYS = 11
SERVER_LANGUAGE = {"zh-CN": "zh-hans", "en": "en"}
# Anything still loading: a spinner, a skeleton, a region that says it is busy.
LOADING = '[aria-busy="true"], .skeleton, .spinner'

# What reads a page: its visible text, its title, and the words its elements carry for a
# screen reader or a tooltip (those are read, too).
READ_PAGE = """() => {
  const attributes = [];
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
    for (const name of ['title', 'aria-label', 'placeholder', 'alt']) {
      const value = el.getAttribute(name);
      if (value) attributes.push(value);
    }
  }
  for (const el of document.querySelectorAll('svg title')) attributes.push(el.textContent || '');
  const code = [...document.querySelectorAll('code')].map((el) => el.innerText);
  return { text: [document.title, document.body.innerText, ...attributes].join('\\n'), code };
}"""


@dataclass
class WalkData:
    invitation_token: str


@dataclass
class PageRead:
    name: str
    url: str
    text: str
    code: list[str]


@dataclass
class Walk:
    language: str
    pages: list[PageRead] = field(default_factory=list)
    # Every string of every recommendation as the API gave it in this language, by its id and
    # where in it (``action.steps[0]``): the prose of the rules.
    recommendation_strings: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    # Names from the data (instances, projects, the organization, people): not our words.
    data_names: set[str] = field(default_factory=set)
    alert_titles: list[str] = field(default_factory=list)
    routes_seen: set[str] = field(default_factory=set)


@pytest.fixture(scope="module")
def demo_server(
    django_db_setup: None, django_db_blocker: Any, browser: Browser
) -> Iterator[DemoServer]:
    with serve_demo(django_db_blocker, days=WALK_DEMO_DAYS) as server:
        yield server


@pytest.fixture(scope="module")
def walk_data(demo_server: DemoServer, django_db_blocker: Any) -> WalkData:
    """What the demo lacks for a page of every kind: a crossed budget's alert, an invitation,
    the owner's digest (its preview)."""
    organization = demo_server.demo.organization
    with django_db_blocker.unblock():
        # Low enough that the month so far has crossed it (the demo's spend is thousands).
        budget_create(
            organization=organization,
            name="fleet-monthly",
            amount=Decimal("100.00"),
            actual_thresholds_pct=[80, 100],
        )
        evaluate(organization.pk, ["budgets"])
        assert AlertEvent.objects.filter(organization=organization, kind=AlertKind.BUDGET).exists()
        owner = User.objects.get(email=demo_server.demo.email)
        subscription_create_default(organization=organization, user=owner)
        mail.outbox.clear()
        invitation_create(
            organization=organization, email=INVITED_EMAIL, role=Role.VIEWER, invited_by=owner
        )
        link = next(
            re.search(r"/invitations/accept\?token=([\w-]+)", str(message.body))
            for message in mail.outbox
            if INVITED_EMAIL in message.to
        )
        assert link is not None, "the invitation e-mail has no link"
    return WalkData(invitation_token=link.group(1))


# --- walking ---------------------------------------------------------------------------------


def settle(page: Page) -> None:
    """Nothing in flight, a heading drawn, nothing loading (locator waits: the CSP refuses eval)."""
    page.wait_for_load_state("networkidle", timeout=WAIT_MS)
    page.locator("h1").first.wait_for(timeout=WAIT_MS)
    expect(page.locator(LOADING)).to_have_count(0, timeout=WAIT_MS)


def shot_name(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", path.strip("/")).strip("-") or "overview"


def read(page: Page, walk: Walk, route: str, url: str, name: str | None = None) -> None:
    page.goto(url)
    settle(page)
    expect(page.locator("html")).to_have_attribute("lang", walk.language, timeout=WAIT_MS)
    record(page, walk, route, name or shot_name(urlsplit(url).path + "?" + urlsplit(url).query))


def record(page: Page, walk: Walk, route: str, name: str, also: str = "") -> None:
    """Photograph the page and keep its text (``also``: text in a frame, which the page's own
    text does not include)."""
    folder = ARTIFACTS / "walk" / walk.language
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    seen = page.evaluate(READ_PAGE)
    text = f"{seen['text']}\n{also}"
    walk.pages.append(PageRead(name=name, url=page.url, text=text, code=seen["code"]))
    walk.routes_seen.add(route)


def api_all(page: Page, base_url: str, path: str) -> list[dict[str, Any]]:
    """Every row of a paged list endpoint, as the signed-in owner reads it."""
    rows: list[dict[str, Any]] = []
    url: str | None = f"{base_url}{path}"
    while url:
        response = page.request.get(url)
        assert response.ok, f"GET {url}: {response.status}"
        body = response.json()
        rows += body["results"]
        url = body.get("next")
    return rows


def choose_language(page: Page, base_url: str, language: str) -> None:
    """The owner picks ``language`` in the top bar; the server stores it for every browser."""
    page.goto(base_url)
    settle(page)
    picker = page.get_by_test_id("language-picker")
    if picker.input_value() != language:
        with page.expect_response(
            lambda r: r.url.endswith("/api/v1/me") and r.request.method == "PATCH"
        ) as stored:
            picker.select_option(language)
        assert stored.value.ok, f"PATCH /api/v1/me: {stored.value.status}"
    expect(page.locator("html")).to_have_attribute("lang", language, timeout=WAIT_MS)


def walk_signed_out(open_context: OpenContext, base_url: str, walk: Walk, data: WalkData) -> None:
    """The pages of someone not signed in, in a browser that asks for the walk's language."""
    page = open_context(locale=walk.language).new_page()
    read(page, walk, "/login", f"{base_url}/login")
    # A wrong password: the server's answer, in the language the browser asks for.
    page.fill("#email", INVITED_EMAIL)
    page.fill("#password", "not-the-password")
    page.locator('button[type="submit"]').click()
    page.get_by_role("alert").wait_for(timeout=WAIT_MS)
    record(page, walk, "/login", "login-wrong-password")
    read(page, walk, "/signup", f"{base_url}/signup")
    token = data.invitation_token
    read(
        page,
        walk,
        "/invitations/accept",
        f"{base_url}/invitations/accept?token={token}",
        name="invitations-accept",
    )
    # Links that are no longer good: the server's own answer, in the reader's language.
    read(page, walk, "/verify-email", f"{base_url}/verify-email?token=expired-or-wrong")
    read(page, walk, "/set-password", f"{base_url}/set-password?uid=1&token=expired-or-wrong")
    read(page, walk, "/set-password", f"{base_url}/set-password", name="set-password-no-link")


def walk_digest_preview(page: Page, base_url: str, walk: Walk) -> None:
    """The owner's digest as it will be e-mailed, previewed on the Reports page."""
    read(page, walk, "/reports", f"{base_url}/reports")
    page.locator("td.table__actions button").first.click()
    preview = page.get_by_test_id("digest-preview")
    preview.wait_for(timeout=WAIT_MS)
    settle(page)
    frame = page.frame_locator('[data-testid="digest-preview-frame"]')
    # The HTML e-mail is drawn in a sandboxed frame: its words are read from the frame itself.
    mail_text = frame.locator("body").inner_text(timeout=WAIT_MS)
    assert mail_text.strip(), "the digest preview is empty"
    record(page, walk, "/reports", "reports-digest-preview", also=mail_text)


def walk_alert_history(page: Page, base_url: str, walk: Walk) -> None:
    """The alerts tab, and every further page of its history: each alert is read once."""
    read(page, walk, "/settings/alerts", f"{base_url}/settings/alerts")
    history = page.locator('section[aria-labelledby="history-title"]')
    number = 1
    while True:
        following = history.locator("nav.pagination button").last
        if following.count() == 0 or following.is_disabled():
            break
        first_row = history.locator("tbody tr").first.inner_text()
        following.click()
        expect(history.locator("tbody tr").first).not_to_have_text(first_row, timeout=WAIT_MS)
        settle(page)
        number += 1
        record(page, walk, "/settings/alerts", f"settings-alerts-history-{number}")


def walk_signed_in(
    open_context: OpenContext,
    owner_state: dict[str, Any],
    demo_server: DemoServer,
    walk: Walk,
) -> None:
    base_url = demo_server.url
    page = open_context(state=owner_state, locale=walk.language).new_page()
    choose_language(page, base_url, walk.language)
    owner = User.objects.get(email=demo_server.demo.email)
    assert owner.language == SERVER_LANGUAGE[walk.language]

    instances = api_all(page, base_url, "/api/v1/instances?page_size=500")
    projects = api_all(page, base_url, "/api/v1/projects?page_size=500")
    recommendations = api_all(page, base_url, "/api/v1/recommendations?page_size=500")
    alerts = api_all(page, base_url, "/api/v1/alerts?page_size=500")
    members = api_all(page, base_url, "/api/v1/members?page_size=500")
    accounts = api_all(page, base_url, "/api/v1/cloud-accounts?page_size=500")
    budgets = api_all(page, base_url, "/api/v1/budgets?page_size=500")
    for rows, what in ((instances, "instances"), (projects, "projects")):
        assert rows, f"the demo has no {what}"
    for rows, what in ((recommendations, "recommendations"), (alerts, "alerts")):
        assert rows, f"the demo has no {what}"
    walk.alert_titles = [alert["title"] for alert in alerts]
    walk.data_names |= {row.get("name") or "" for row in instances + projects}
    walk.data_names |= {row.get("name") or "" for row in members + accounts + budgets}
    walk.data_names.add(demo_server.demo.organization.name)

    read(page, walk, "/", base_url)
    for route in ("/connect", "/projects", "/instances", "/recommendations"):
        read(page, walk, route, f"{base_url}{route}")
    walk_digest_preview(page, base_url, walk)
    read(page, walk, "/projects/:slug", f"{base_url}/projects/{projects[0]['slug']}")
    read(page, walk, "/instances/:id", f"{base_url}/instances/{instances[0]['id']}")
    for summary in recommendations:
        response = page.request.get(f"{base_url}/api/v1/recommendations/{summary['id']}")
        assert response.ok
        walk.recommendation_strings[summary["id"]] = [
            (path, " ".join(text.split())) for path, text in strings_in(response.json())
        ]
        read(page, walk, "/recommendations/:id", f"{base_url}/recommendations/{summary['id']}")
    # /settings opens its first tab; each tab has a path of its own.
    read(page, walk, "/settings", f"{base_url}/settings", name="settings")
    # Each tab once (the recommendations tab is also a route of its own: the same page).
    for route in dict.fromkeys(frontend_routes()):
        if route.startswith("/settings/") and route != "/settings/alerts":
            read(page, walk, route, f"{base_url}{route}")
    walk_alert_history(page, base_url, walk)


def walk_everything(
    language: str,
    open_context: OpenContext,
    owner_state: dict[str, Any],
    demo_server: DemoServer,
    walk_data: WalkData,
) -> Walk:
    walk = Walk(language=language)
    # This run's photographs only: a page the walk no longer opens leaves none behind.
    shutil.rmtree(ARTIFACTS / "walk" / language, ignore_errors=True)
    walk_signed_out(open_context, demo_server.url, walk, walk_data)
    walk_signed_in(open_context, owner_state, demo_server, walk)
    missing = set(frontend_routes()) - walk.routes_seen
    assert not missing, f"the walk has no way to open {sorted(missing)}: teach it"
    everything = "\n".join(page.text for page in walk.pages)
    unseen = [title for title in walk.alert_titles if title not in everything]
    assert not unseen, f"alerts the walk did not see: {unseen}"
    return walk


# --- judging ---------------------------------------------------------------------------------


def report(title: str, findings: dict[str, list[str]]) -> str:
    lines = [title]
    for page_name, phrases in findings.items():
        lines.append(f"  {page_name}:")
        lines += [f"    {phrase}" for phrase in phrases]
    return "\n".join(lines)


def prose_source(phrase: str, walk: Walk, page: PageRead) -> str | None:
    """Which recommendation's words hold ``phrase`` (``explanation``, ``#12 action.steps[0]``):
    the page's own recommendation first, then any (a list, the overview, a digest)."""
    own = re.search(r"/recommendations/(\d+)", page.url)
    own_id = int(own.group(1)) if own else None
    ordered = sorted(walk.recommendation_strings.items(), key=lambda item: item[0] != own_id)
    for pk, strings in ordered:
        for path, text in strings:
            if phrase in text:
                return path if pk == own_id else f"#{pk} {path}"
    return None


def prose_fields(prose: dict[str, list[str]]) -> str:
    """Which fields of a recommendation the English came from, and on how many pages."""
    pages_by_field: dict[str, set[str]] = {}
    for page_name, findings in prose.items():
        for finding in findings:
            source = finding.rsplit("(", 1)[-1].rstrip(")")
            path = re.sub(r"\[\d+\]", "[]", source.split(" ")[-1])
            pages_by_field.setdefault(path, set()).add(page_name)
    return ", ".join(
        f"{path} ({len(pages)} pages)" for path, pages in sorted(pages_by_field.items())
    )


def test_in_chinese_no_page_shows_an_english_sentence_or_a_raw_key(
    open_context: OpenContext,
    owner_state: dict[str, Any],
    demo_server: DemoServer,
    walk_data: WalkData,
) -> None:
    walk = walk_everything("zh-CN", open_context, owner_state, demo_server, walk_data)
    namespaces = catalog_namespaces()
    ours: dict[str, list[str]] = {}
    prose: dict[str, list[str]] = {}
    for page in walk.pages:
        for phrase in english_phrases(page.text, walk.data_names):
            source = prose_source(phrase, walk, page)
            if source is None:
                ours.setdefault(page.name, []).append(repr(phrase))
            else:
                prose.setdefault(page.name, []).append(f"{phrase!r}  ({source})")
        for marker in raw_markers(page.text, namespaces, page.code):
            ours.setdefault(page.name, []).append(marker)
    prose_report = report(
        "Recommendation prose still in English (apps/recommendations renders it), from "
        f"{prose_fields(prose)}:",
        prose,
    )
    if ours or prose:
        pytest.fail(
            "\n\n".join(
                part
                for part in (
                    report("English sentences or raw keys in the Chinese dashboard:", ours)
                    if ours
                    else "",
                    prose_report if prose else "",
                )
                if part
            ),
            pytrace=False,
        )


def test_in_english_no_page_shows_a_raw_key_or_a_missing_value(
    open_context: OpenContext,
    owner_state: dict[str, Any],
    demo_server: DemoServer,
    walk_data: WalkData,
) -> None:
    walk = walk_everything("en", open_context, owner_state, demo_server, walk_data)
    namespaces = catalog_namespaces()
    findings = {
        page.name: markers
        for page in walk.pages
        if (markers := raw_markers(page.text, namespaces, page.code))
    }
    assert not findings, report("Raw keys, placeholders or missing values in English:", findings)
