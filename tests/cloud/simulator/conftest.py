"""Fixtures: a simulator on a free port with a frozen simulation clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from apps.cloud.providers.tencent.simulator import SimulatorServer

from ._sdk import NOW


@pytest.fixture(scope="package")
def sim() -> Iterator[SimulatorServer]:
    """One shared simulator with the clock frozen at NOW and rate limiting off."""
    with SimulatorServer(port=0, seed=1, now=lambda: NOW, rate_limits={}) as server:
        yield server


@pytest.fixture
def make_sim() -> Iterator[Callable[..., SimulatorServer]]:
    """Factory for a private simulator (fault and rate-limit tests), stopped afterwards."""
    servers: list[SimulatorServer] = []

    def make(**options: Any) -> SimulatorServer:
        options.setdefault("now", lambda: NOW)
        server = SimulatorServer(port=0, seed=1, **options).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
