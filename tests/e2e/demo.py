"""The demo organization, built the way `make demo` builds it, for the browser tests and the
dashboard bench.

The same commands in the same order as the Makefile's ``demo`` target: ``setup_demo`` connects
the organization to a Tencent Cloud simulator through the cloud-account service, ``backfill``
reads inventory, prices, metrics and bills through the real SDK over HTTP, then ``analyse`` and
``recommend``. Only the history is shorter (one day instead of 30): the bills of the months it
touches are read whole either way, so one day already gives month-to-date spend, phases and
recommendations, and the build stays well under a minute on a shared 2-core machine.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from django.conf import settings
from django.core.management import call_command

from apps.accounts.models import Membership, Organization, User
from apps.accounts.roles import Role
from apps.cloud.management.commands.setup_demo import DEMO_EMAIL, DEMO_ORG_SLUG, DEMO_PASSWORD
from apps.cloud.providers.tencent.simulator import SimulatorServer

DEMO_DAYS = 1
VIEWER_EMAIL = "viewer@example.com"
VIEWER_PASSWORD = "viewer-pass-2026"


@dataclass(frozen=True)
class Demo:
    organization: Organization
    account_id: int
    email: str = DEMO_EMAIL
    password: str = DEMO_PASSWORD


def start_simulator() -> SimulatorServer:
    """The simulator `make demo` starts (seed 1, the real clock), on a free port.

    Its per-second rate limits are off: they only make the client wait, and the wait is what a
    short CI budget cannot afford; the SDK, the signing and the sync code are the same.
    """
    server = SimulatorServer(port=0, seed=1, rate_limits={}).start()
    # `make demo` allows its own simulator, and only it, through outbound requests'
    # refusal of loopback addresses (OUTBOUND_ALLOWED_HOSTS, apps.core.outbound). The demo
    # fixtures live for a module; each simulator has a port of its own.
    settings.OUTBOUND_ALLOWED_HOSTS = [*settings.OUTBOUND_ALLOWED_HOSTS, server.endpoint]
    return server


def build_demo(simulator_endpoint: str, *, days: int = DEMO_DAYS) -> Demo:
    """Run `make demo`'s data steps against the simulator at ``simulator_endpoint``."""
    out = io.StringIO()
    call_command("setup_demo", simulator=simulator_endpoint, stdout=out)
    # The Makefile reads the account id from this line of setup_demo's output; so do we.
    match = re.search(r"^cloud-account-id=(\d+)$", out.getvalue(), re.MULTILINE)
    if match is None:
        raise RuntimeError(f"setup_demo named no cloud account:\n{out.getvalue()}")
    account_id = int(match.group(1))
    call_command("backfill", account=account_id, days=days, no_progress=True, stdout=io.StringIO())
    call_command("analyse", organization=DEMO_ORG_SLUG, stdout=io.StringIO())
    call_command("recommend", organization=DEMO_ORG_SLUG, stdout=io.StringIO())
    return Demo(organization=Organization.objects.get(slug=DEMO_ORG_SLUG), account_id=account_id)


def add_viewer(organization: Organization) -> User:
    """A member of the demo organization who may only read."""
    user = User.objects.filter(email=VIEWER_EMAIL).first()
    if user is None:
        user = User.objects.create_user(
            email=VIEWER_EMAIL, password=VIEWER_PASSWORD, name="Demo Viewer"
        )
    Membership.objects.get_or_create(
        organization=organization, user=user, defaults={"role": Role.VIEWER}
    )
    return user
