"""Built-in Tencent Cloud simulator: the real protocol over a seeded GPU fleet.

Plain Python + numpy, no Django, so it runs stand-alone::

    python -m apps.cloud.providers.tencent.simulator --port 8900 --seed 1

In tests::

    with SimulatorServer(port=0, seed=1, now=lambda: FROZEN) as sim:
        HttpProfile(protocol="http", endpoint=sim.endpoint)
        sim.cloud.expected_bill_total(instance_id, "2026-11")
"""

from __future__ import annotations

from .cam import CamPolicy
from .constants import (
    DEFAULT_CREDENTIALS,
    DEFAULT_RATE_LIMITS,
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    READ_ONLY_SECRET_ID,
    READ_ONLY_SECRET_KEY,
    SIMULATOR_CREDENTIALS,
    WRITE_SECRET_ID,
    WRITE_SECRET_KEY,
)
from .faults import RequestLog, RequestRecord
from .fleet import Fleet, Instance
from .operations import Operations, Transition
from .server import SimulatorServer, serve
from .world import SimulatedCloud

__all__ = [
    "DEFAULT_CREDENTIALS",
    "DEFAULT_RATE_LIMITS",
    "DEFAULT_SECRET_ID",
    "DEFAULT_SECRET_KEY",
    "READ_ONLY_SECRET_ID",
    "READ_ONLY_SECRET_KEY",
    "SIMULATOR_CREDENTIALS",
    "WRITE_SECRET_ID",
    "WRITE_SECRET_KEY",
    "CamPolicy",
    "Fleet",
    "Instance",
    "Operations",
    "RequestLog",
    "RequestRecord",
    "SimulatedCloud",
    "SimulatorServer",
    "Transition",
    "serve",
]
