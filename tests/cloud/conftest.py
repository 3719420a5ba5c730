"""Fixtures for sync tests: a simulator with a frozen clock and an account connected to it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from django.conf import LazySettings, settings
from django.core.management import call_command
from django.test import override_settings

from apps.accounts import services as accounts_services
from apps.accounts.models import Organization, User
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.services import cloud_account_create

# Early in a month, so a bill month holds a few thousand lines, not tens of thousands.
SIM_NOW = datetime(2026, 11, 3, 4, 30, 17, tzinfo=UTC)
BACKFILL_DAYS = 2


@pytest.fixture
def make_simulator(settings: LazySettings) -> Iterator[Callable[..., SimulatorServer]]:
    servers: list[SimulatorServer] = []

    def make(**options: Any) -> SimulatorServer:
        options.setdefault("now", lambda: SIM_NOW)
        server = SimulatorServer(port=0, seed=1, **options).start()
        servers.append(server)
        # The simulator listens on 127.0.0.1, which outbound requests refuse unless the
        # operator allows the host (apps.core.outbound): as `make demo` does, only this one.
        settings.OUTBOUND_ALLOWED_HOSTS = [*settings.OUTBOUND_ALLOWED_HOSTS, server.endpoint]
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def simulator(make_simulator: Callable[..., SimulatorServer]) -> SimulatorServer:
    return make_simulator()


def connect(
    organization: Organization, simulator: SimulatorServer, secret_key: str = DEFAULT_SECRET_KEY
) -> CloudAccount:
    return cloud_account_create(
        organization=organization,
        name="Tencent (simulated)",
        secret_id=DEFAULT_SECRET_ID,
        secret_key=secret_key,
        regions=["ap-guangzhou", "ap-shanghai"],
        endpoint=simulator.endpoint,
        endpoint_scheme="http",
    )


@pytest.fixture
def account(acme: Organization, simulator: SimulatorServer) -> CloudAccount:
    return connect(acme, simulator)


@contextlib.contextmanager
def committed_simulated_organization(
    *, email: str, name: str, now: datetime
) -> Iterator[tuple[User, Organization, SimulatorServer]]:
    """An owner, their organization (Asia/Shanghai) and a simulator frozen at ``now``, for a
    module's tests to share: committed (call it inside ``django_db_blocker.unblock()``), every
    table flushed afterwards. Outbound calls reach the simulator only because the block allows
    its host (apps.core.outbound refuses loopback), as `make demo` does."""
    user = User.objects.create_user(email=email, password="pw-123456789", name=name)
    organization = accounts_services.organization_create(
        name=name, owner=user, timezone_name="Asia/Shanghai"
    )
    simulator = SimulatorServer(port=0, seed=1, now=lambda: now, rate_limits={}).start()
    allowed = override_settings(
        OUTBOUND_ALLOWED_HOSTS=[*settings.OUTBOUND_ALLOWED_HOSTS, simulator.endpoint]
    )
    allowed.enable()
    try:
        yield user, organization, simulator
    finally:
        allowed.disable()
        simulator.stop()
        call_command("flush", interactive=False, verbosity=0)
