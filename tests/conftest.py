"""Fixtures shared by the whole suite: the Alice/Bob/Charlie tenancy cast and API clients.

- Alice owns "Acme"; Charlie is a viewer in Acme.
- Bob owns "Globex". Nothing of Globex may ever be visible to Alice or Charlie, and vice versa.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from apps.accounts import services
from apps.accounts.models import ApiKey, Membership, Organization, User
from apps.accounts.roles import Role
from workers.celery import app as celery_app


@pytest.fixture
def alice(db: None) -> User:
    return User.objects.create_user(
        email="alice@acme.test", password="alice-pass-123", name="Alice"
    )


@pytest.fixture
def bob(db: None) -> User:
    return User.objects.create_user(email="bob@globex.test", password="bob-pass-123", name="Bob")


@pytest.fixture
def charlie(db: None) -> User:
    return User.objects.create_user(
        email="charlie@acme.test", password="charlie-pass-123", name="Charlie"
    )


@pytest.fixture
def acme(alice: User, charlie: User) -> Organization:
    organization = services.organization_create(
        name="Acme", owner=alice, timezone_name="Asia/Shanghai"
    )
    Membership.objects.create(organization=organization, user=charlie, role=Role.VIEWER)
    return organization


@pytest.fixture
def globex(bob: User) -> Organization:
    return services.organization_create(
        name="Globex", owner=bob, timezone_name="Europe/Berlin", currency="USD"
    )


@pytest.fixture
def client_for() -> Callable[[User], APIClient]:
    """A session-authenticated API client for a user (CSRF checks off, like most browsers' tests)."""

    def make(user: User) -> APIClient:
        client = APIClient()
        client.force_login(user)
        return client

    return make


@pytest.fixture
def alice_client(
    client_for: Callable[[User], APIClient], alice: User, acme: Organization, globex: Organization
) -> APIClient:
    return client_for(alice)


@pytest.fixture
def bob_client(
    client_for: Callable[[User], APIClient], bob: User, acme: Organization, globex: Organization
) -> APIClient:
    return client_for(bob)


@pytest.fixture
def charlie_client(
    client_for: Callable[[User], APIClient], charlie: User, acme: Organization
) -> APIClient:
    return client_for(charlie)


@pytest.fixture
def key_client() -> Callable[..., tuple[APIClient, ApiKey]]:
    """An API client authenticated with a new API key of ``organization``."""

    def make(organization: Organization, scope: str = "read") -> tuple[APIClient, ApiKey]:
        api_key, raw = services.api_key_create(
            organization=organization, name=f"{scope} key", scope=scope, created_by=None
        )
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        return client, api_key

    return make


@pytest.fixture
def publish_to_broker() -> Iterator[None]:
    """Requests and tasks in this process publish to the broker instead of running inline."""
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    yield
    celery_app.conf.task_always_eager = eager


# --- secrets must never reach a log (see tests/leaks.py) --------------------------------------
RUN_LOG_ROOT = Path(__file__).resolve().parents[1] / "var" / "test"


def run_log_path() -> Path:
    from django.conf import settings

    return Path(settings.VAR_DIR) / "run.log"


def pytest_configure(config: pytest.Config) -> None:
    path = run_log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, mode="w", encoding="utf-8")
    handler.setLevel(logging.DEBUG)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    # SQL is logged at DEBUG; it holds only encrypted secrets and would swamp the file.
    logging.getLogger("django.db.backends").setLevel(logging.INFO)
    # The SDK logs every response body at DEBUG (megabytes of metric points per test).
    logging.getLogger("tencentcloud_sdk_common").setLevel(logging.INFO)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller checks every worker's log at the very end
    from tests.leaks import find_leaks

    leaks = find_leaks(sorted(RUN_LOG_ROOT.glob("*/run.log")))
    if leaks:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_sep("!", "SECRETS FOUND IN LOGS", red=True, bold=True)
            for leak in leaks[:20]:
                reporter.write_line(leak)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
