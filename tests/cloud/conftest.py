"""Fixtures for sync tests: a simulator with a frozen clock and an account connected to it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from django.conf import LazySettings

from apps.accounts.models import Organization
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
