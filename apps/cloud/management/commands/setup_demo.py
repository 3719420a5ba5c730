"""Create (or refresh) the demo organization and the user demo@example.com / demo.

With ``--simulator host:port`` the organization is also connected to the built-in Tencent
Cloud simulator through the normal cloud-account service. Safe to run twice: it finds what
exists and only fills in what is missing.
"""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.accounts.models import Membership, Organization, User
from apps.accounts.roles import Role
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.simulator.constants import DEFAULT_SECRET_ID, DEFAULT_SECRET_KEY
from apps.cloud.services import cloud_account_create, cloud_account_update

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "demo"
DEMO_ORG_SLUG = "demo"
DEMO_ACCOUNT_NAME = "Simulated Tencent Cloud"


class Command(BaseCommand):
    help = "Create the demo organization and the demo user (demo@example.com / demo)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--simulator", default="", help="host:port of the Tencent Cloud simulator to connect"
        )

    @transaction.atomic
    def handle(self, *args: object, **options: Any) -> None:
        user = User.objects.filter(email=DEMO_EMAIL).first()
        if user is None:
            # Bypasses the password validators on purpose: this is a local demo account.
            user = User.objects.create_user(
                email=DEMO_EMAIL, password=DEMO_PASSWORD, name="Demo Lead"
            )
        organization, _ = Organization.objects.get_or_create(
            slug=DEMO_ORG_SLUG,
            defaults={"name": "Demo ML Lab", "timezone": "Asia/Shanghai", "currency": "CNY"},
        )
        Membership.objects.get_or_create(
            organization=organization, user=user, defaults={"role": Role.OWNER}
        )
        self.stdout.write(
            f"Demo organization '{organization.name}'; sign in as {DEMO_EMAIL} / {DEMO_PASSWORD}"
        )
        if options["simulator"]:
            account = connect_simulator(organization, options["simulator"])
            # The Makefile reads this line to backfill the account.
            self.stdout.write(f"cloud-account-id={account.pk}")


def connect_simulator(organization: Organization, endpoint: str) -> CloudAccount:
    """Connect (or re-point) the demo organization's account to the simulator at ``endpoint``."""
    account = (
        CloudAccount.objects.for_organization(organization).filter(name=DEMO_ACCOUNT_NAME).first()
    )
    settings: dict[str, Any] = {
        "secret_id": DEFAULT_SECRET_ID,
        "regions": ["ap-guangzhou", "ap-shanghai"],
        "endpoint": endpoint,
        "endpoint_scheme": CloudAccount.Scheme.HTTP,
    }
    if account is None:
        return cloud_account_create(
            organization=organization,
            name=DEMO_ACCOUNT_NAME,
            secret_key=DEFAULT_SECRET_KEY,
            **settings,
        )
    if any(getattr(account, key) != value for key, value in settings.items()):
        return cloud_account_update(account=account, secret_key=DEFAULT_SECRET_KEY, **settings)
    return account
