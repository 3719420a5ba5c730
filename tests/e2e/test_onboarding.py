"""Issue 10's first-run path in a browser: sign up, confirm the e-mail, connect the simulator,
watch the backfill's progress, then see the first costs.

Every moving part is real: the e-mail goes through a Celery worker process to a loopback SMTP
server, the sync runs in that worker against the built-in Tencent Cloud simulator over HTTP
(the SDK signs, the simulator checks), and the page polls the API the worker writes to.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from django.conf import LazySettings
from django.core.cache import cache
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from apps.accounts.models import User
from apps.cloud.models import CloudAccount, Instance, SyncState
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.sync.progress import PROGRESS_KEY
from tests.e2e.conftest import ARTIFACTS
from tests.integration.conftest import (
    Inbox,
    running_smtp_server,
    start_celery_worker,
    stop_worker,
    wait_for,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("celery-worker"),
]

PASSWORD = "correct-horse-battery-9"
# One day of history keeps the backfill to a minute on a shared CI machine; the path is the same.
BACKFILL_DAYS = "1"


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    yield from running_smtp_server(Inbox())


@pytest.fixture
def simulator(settings: LazySettings) -> Iterator[SimulatorServer]:
    # The real clock: the worker syncs up to "now", as it does for a real account.
    server = SimulatorServer(port=0, seed=1).start()
    # Outbound requests go to 127.0.0.1 only where the operator allows it (apps.core.outbound).
    settings.OUTBOUND_ALLOWED_HOSTS = [server.endpoint]
    yield server
    server.stop()


@pytest.fixture
def worker(
    base_url: str,
    smtp_server: tuple[Inbox, int],
    simulator: SimulatorServer,
    publish_to_broker: None,
) -> Iterator[subprocess.Popen[str]]:
    """A worker of every queue, mailing to the loopback server, with links to the live server."""
    _, smtp_port = smtp_server
    process = start_celery_worker(
        "default,email,sync,analysis",
        EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}",
        PUBLIC_URL=base_url,
        SYNC_BACKFILL_DAYS=BACKFILL_DAYS,
        OUTBOUND_ALLOWED_HOSTS=simulator.endpoint,
    )
    yield process
    stop_worker(process)


def fail_with_worker_output(worker: subprocess.Popen[str], what: str) -> None:
    output = stop_worker(worker)
    pytest.fail(f"{what}; the worker printed:\n{output[-6000:]}")


def sync_phases(account: CloudAccount) -> dict[str, str | None]:
    return {
        state.kind: (state.progress or {}).get(PROGRESS_KEY, {}).get("state")
        for state in SyncState.objects.filter(account=account)
    }


def test_it_signs_up_confirms_connects_and_sees_progress_then_costs(
    page: Page,
    base_url: str,
    smtp_server: tuple[Inbox, int],
    simulator: SimulatorServer,
    worker: subprocess.Popen[str],
) -> None:
    inbox, _ = smtp_server
    # Sign-ups are throttled per IP in the shared cache; this run starts from zero.
    cache.delete("throttle_signup_127.0.0.1")

    # 1. Sign up.
    page.goto(f"{base_url}/signup")
    page.get_by_label("Your name").fill("Dana Scully")
    page.get_by_label("Work e-mail").fill("dana@example.test")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Organization name").fill("Vision Lab")
    page.get_by_label("Timezone").fill("Asia/Shanghai")
    page.get_by_role("button", name="Create account").click()
    page.get_by_test_id("signup-check-inbox").wait_for(timeout=15_000)
    assert User.objects.get(email="dana@example.test").email_verification_pending

    # 2. Signing in before confirming is refused, and says why.
    page.goto(f"{base_url}/login")
    page.fill("#email", "dana@example.test")
    page.fill("#password", PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_test_id("login-not-verified").wait_for(timeout=10_000)
    assert "Confirm your e-mail address" in page.get_by_test_id("login-not-verified").inner_text()

    # 3. The worker mails the link through SMTP; opening it confirms, signs in, opens /connect.
    if not wait_for(lambda: len(inbox.messages) >= 1, timeout=60):
        fail_with_worker_output(worker, "no confirmation e-mail reached the SMTP server")
    message = inbox.messages[0]
    assert message["To"] == "dana@example.test"
    body = str(message.get_payload())
    link = re.search(r"http\S+/verify-email\?token=\S+", body)
    assert link, body
    page.goto(link.group(0))
    page.wait_for_url("**/connect", timeout=15_000)
    page.get_by_role("heading", name="Connect a Tencent Cloud account", level=1).wait_for(
        timeout=30_000
    )

    # 4. Fill the existing form, test the connection (nothing saved), then connect.
    form = page.get_by_role("form", name="Connect a Tencent Cloud account")
    form.get_by_label("Name").fill("Simulated Tencent Cloud")
    form.get_by_label("SecretId").fill(DEFAULT_SECRET_ID)
    form.get_by_label("SecretKey").fill("not-the-key-0000000000000000000")
    form.get_by_role("checkbox", name=re.compile("ap-guangzhou")).check()
    form.get_by_role("checkbox", name=re.compile("ap-shanghai")).check()
    form.get_by_role("button", name="Advanced").click()
    form.get_by_label("Endpoint override (host:port)").fill(simulator.endpoint)
    form.get_by_label("Scheme").select_option("http")
    form.get_by_role("button", name="Test connection").click()
    result = page.get_by_test_id("connection-test-result")
    result.wait_for(timeout=20_000)
    assert result.inner_text().startswith("Connection failed: Tencent Cloud rejected the SecretId")
    assert not CloudAccount.objects.exists()

    form.get_by_label("SecretKey").fill(DEFAULT_SECRET_KEY)
    form.get_by_role("button", name="Test connection").click()
    page.get_by_text("Connected: the key reads CVM in 2 region(s)").wait_for(timeout=20_000)
    assert not CloudAccount.objects.exists()
    form.get_by_role("button", name="Connect and start reading").click()

    # 5. The backfill starts at once (in the worker) and its progress shows per kind.
    page.get_by_test_id("backfill").wait_for(timeout=15_000)
    account = CloudAccount.objects.get()
    if not wait_for(lambda: any(sync_phases(account).values()), timeout=60):
        fail_with_worker_output(worker, "no sync started")
    running_or_done = page.locator(
        "[data-testid^=progress-][data-phase=running], [data-testid^=progress-][data-phase=done]"
    )
    running_or_done.first.wait_for(timeout=30_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "onboarding-progress.png"), full_page=True)

    inventory = page.get_by_test_id("progress-inventory")
    expect(inventory).to_have_attribute("data-phase", "done", timeout=60_000)
    assert "instances" in inventory.inner_text()
    assert Instance.objects.filter(organization=account.organization).exists()

    phases_done = wait_for(
        lambda: set(sync_phases(account).values()) == {"done"}, timeout=240, interval=1
    )
    if not phases_done:
        fail_with_worker_output(worker, f"the backfill did not finish: {sync_phases(account)}")
    page.get_by_role("heading", name="History read").wait_for(timeout=15_000)
    for kind in ("inventory", "prices", "metrics", "bills"):
        assert page.get_by_test_id(f"progress-{kind}").get_attribute("data-phase") == "done"

    # 6. The end of the backfill (metrics and bills) starts the analysis at once, in the worker:
    #    the first costs show without the hourly tick and without anyone sending a task.
    first_cost = page.get_by_test_id("first-cost")
    try:
        first_cost.wait_for(timeout=180_000)
    except PlaywrightTimeoutError:
        fail_with_worker_output(worker, "no first cost appeared after the backfill")
    assert re.search(r"\d", first_cost.inner_text())
    # The bills are in: the figure says what it rests on (bills; subscriptions without hourly
    # lines still at their catalog price), never a bare number.
    basis = first_cost.get_by_test_id("first-cost-basis")
    assert basis.get_attribute("data-basis") in ("bills", "mixed")
    assert "from your bills" in basis.inner_text().lower()
    page.screenshot(path=str(ARTIFACTS / "onboarding-first-costs.png"), full_page=True)
