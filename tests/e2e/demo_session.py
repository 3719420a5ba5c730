"""The demo organization served to a module of browser tests, and the helpers they share.

A module builds the demo once in its own module-scoped ``demo_server`` fixture with
``serve_demo`` (the way `make demo` builds it, see ``tests/e2e/demo.py``), served by a live
server of its own, so the data survives from one test to the next (pytest-django's
``live_server`` flushes the database after every test). The fixtures that sign the owner in
and guard the browser contexts (``owner_state``, ``open_context``, ``owner_page``,
``demo_database``) are in conftest.py and use that module's ``demo_server``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.management import call_command
from django.db import connection, connections
from django.db.backends.base.creation import TEST_DATABASE_PREFIX
from django.test.utils import setup_databases, teardown_databases
from playwright.sync_api import expect
from pytest_django.live_server_helper import LiveServer

from apps.cloud.providers.tencent.simulator import SimulatorServer
from tests.e2e.demo import DEMO_DAYS, Demo, build_demo, start_simulator

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

ARTIFACTS = Path(__file__).parent / "artifacts"
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
# Generous: a shared 2-core CI machine runs the whole suite beside the browser.
WAIT_MS = 30_000


class DemoServer:
    def __init__(self, url: str, demo: Demo, simulator: SimulatorServer) -> None:
        self.url = url
        self.demo = demo
        self.simulator = simulator


@contextlib.contextmanager
def _test_database() -> Iterator[None]:
    """Make sure the demo goes into the test database, never the one DATABASE_URL names.

    pytest-django creates the test database only for aliases its collected tests ask for (a
    ``django_db`` mark, ``db`` or ``live_server``). These modules' tests use a module fixture
    instead, so when a module runs alone nobody has asked: create it here then."""
    name = str(connection.settings_dict["NAME"])
    if name == connection.settings_dict["TEST"].get("NAME") or name.startswith(
        TEST_DATABASE_PREFIX
    ):
        yield  # the suite's other tests had it set up
        return
    config = setup_databases(verbosity=0, interactive=False, aliases={"default": True})
    try:
        yield
    finally:
        connections.close_all()
        teardown_databases(config, verbosity=0)


@contextlib.contextmanager
def serve_demo(
    django_db_blocker: Any,
    *,
    prepare: Callable[[SimulatorServer], None] | None = None,
    days: int = DEMO_DAYS,
) -> Iterator[DemoServer]:
    """The demo organization on the test database, served by a live server of its own.

    ``prepare`` may change the simulated cloud (its fleet's names and tags) before the demo
    reads it, so what it changed arrives through the real sync, as from Tencent Cloud.
    ``days``: how much history the backfill reads (tests/e2e/demo.py).
    """
    with django_db_blocker.unblock(), _test_database():
        simulator = start_simulator()
        server: LiveServer | None = None
        try:
            if prepare is not None:
                prepare(simulator)
            demo = build_demo(simulator.endpoint, days=days)
            server = LiveServer("localhost")
            server._live_server_modified_settings.enable()
            yield DemoServer(server.url, demo, simulator)
        finally:
            if server is not None:
                server._live_server_modified_settings.disable()
                server.stop()
            simulator.stop()
            # Leave the database as a transactional test leaves it: empty, for the next module.
            connections.close_all()
            call_command("flush", interactive=False, verbosity=0)


# --- helpers --------------------------------------------------------------------------------


def sign_in(page: Page, base_url: str, email: str, password: str) -> None:
    page.goto(f"{base_url}/login")
    page.fill("#email", email)
    page.fill("#password", password)
    page.get_by_role("button", name="Sign in").click()
    page.locator(".topbar .user-email").wait_for(timeout=WAIT_MS)


def shoot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def settled(page: Page) -> None:
    """Wait until the page has its data: no request in flight and no loading skeleton left.

    Waits are locator assertions: ``page.wait_for_function`` with a string polls with ``eval``
    in the page, which the Content-Security-Policy refuses (no 'unsafe-eval').
    """
    page.wait_for_load_state("networkidle", timeout=WAIT_MS)
    page.locator("main h1").first.wait_for(timeout=WAIT_MS)
    loading = page.locator('main [aria-busy="true"], main .skeleton, main .spinner')
    expect(loading).to_have_count(0, timeout=WAIT_MS)


def painted_pixels(page: Page, chart: str) -> int:
    """How many pixels of the chart's canvas are not transparent (0: nothing drawn)."""
    count = page.evaluate(
        """(name) => {
            const canvas = document.querySelector(`[data-chart="${name}"] canvas`);
            if (!canvas || !canvas.width || !canvas.height) return 0;
            const ctx = canvas.getContext('2d');
            const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
            let painted = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted += 1;
            return painted;
        }""",
        chart,
    )
    return int(count)


def wait_drawn(page: Page, chart: str) -> None:
    page.locator(f'[data-chart="{chart}"][data-drawn="true"]').wait_for(timeout=WAIT_MS)
    assert painted_pixels(page, chart) > 0, f"the {chart} chart's canvas is blank"
