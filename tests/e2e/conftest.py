"""Headless Chromium (Debian's, never a downloaded build) driven by Playwright.

Browser tests need /usr/bin/chromium and the built front-end. In CI a missing Chromium is a
failure; on a developer machine without it the tests are skipped, and the run says so loudly.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings

# ARTIFACTS: the browser tests import it from here.
from tests.e2e.demo_session import ARTIFACTS, DESKTOP, DemoServer, sign_in  # noqa: F401

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Playwright drives the browser from an event loop in this thread; the ORM calls the tests
# make between browser steps are synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def chromium_path() -> str | None:
    return (
        os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )


SKIP_REASON = "NO CHROMIUM: browser tests SKIPPED. Install it: apt-get install -y chromium"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # In CI a missing Chromium is not skipped: the ``browser`` fixture fails the tests.
    if chromium_path() or os.environ.get("CI"):
        return
    for item in items:
        if "tests/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not chromium_path():
        terminalreporter.write_sep("!", SKIP_REASON, red=True, bold=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = chromium_path()
    if executable is None:
        # Only reached in CI (elsewhere the tests were skipped): a missing browser fails CI.
        pytest.fail("Chromium is required in CI: apt-get install -y chromium")
    if not (settings.FRONTEND_DIST_DIR / "index.html").is_file():
        pytest.fail("The front-end is not built: run `make frontend` first")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def base_url(live_server: object) -> str:
    """The server under test: a running demo if E2E_BASE_URL is set, else Django's live server."""
    return os.environ.get("E2E_BASE_URL") or live_server.url  # type: ignore[attr-defined]


@pytest.fixture
def own_base_url(live_server: object) -> str:
    """Django's live server, for a test that sets up the state it reads: against a running demo
    (E2E_BASE_URL) that state would go to the test database, not to the demo's, so it skips."""
    if os.environ.get("E2E_BASE_URL"):
        pytest.skip("sets up its own data; a running demo (E2E_BASE_URL) has its own database")
    return live_server.url  # type: ignore[attr-defined]


# --- the demo of a module: it defines ``demo_server`` (tests/e2e/demo_session.py) ------------


@pytest.fixture
def demo_database(django_db_blocker: Any, demo_server: DemoServer) -> Iterator[None]:
    """The tests read and write the demo's rows directly (committed: the server sees them).

    A module of demo tests uses it for every test: ``pytest.mark.usefixtures("demo_database")``."""
    with django_db_blocker.unblock():
        yield


@pytest.fixture(scope="module")
def owner_state(browser: Browser, demo_server: DemoServer) -> dict[str, Any]:
    """The demo owner's signed-in session (cookies), reused by the tests that are not about signing in."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        sign_in(page, demo_server.url, demo_server.demo.email, demo_server.demo.password)
        return context.storage_state()  # type: ignore[return-value]
    finally:
        context.close()


OpenContext = Callable[..., "BrowserContext"]


@pytest.fixture
def open_context(browser: Browser, demo_server: DemoServer) -> Iterator[OpenContext]:
    """Opens browser contexts whose every request must go to the live server, or the test fails."""
    server = urlsplit(demo_server.url).netloc
    contexts: list[BrowserContext] = []
    foreign: list[str] = []

    def on_request(request: Any) -> None:
        parts = urlsplit(request.url)
        # data:, blob: and about: never leave the browser; anything with a host must be ours.
        if parts.scheme in {"http", "https", "ws", "wss"} and parts.netloc != server:
            foreign.append(f"{request.method} {request.url} (from {request.frame.url})")

    def open_(
        *, viewport: ViewportSize = DESKTOP, state: Any = None, locale: str | None = None
    ) -> BrowserContext:
        # ``locale``: the browser's language (navigator.languages and Accept-Language).
        context = browser.new_context(viewport=viewport, storage_state=state, locale=locale)
        # A page's requests reach its context's "request" event: this guard covers every page
        # (and popup) of every context of the test.
        context.on("request", on_request)
        contexts.append(context)
        return context

    yield open_
    for context in contexts:
        context.close()
    if foreign:
        pytest.fail("A page asked another host than the server:\n" + "\n".join(foreign))


@pytest.fixture
def owner_page(open_context: OpenContext, owner_state: dict[str, Any]) -> Page:
    """A page of the signed-in demo owner, in a guarded context."""
    return open_context(state=owner_state).new_page()
