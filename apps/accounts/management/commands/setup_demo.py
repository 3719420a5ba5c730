"""Create (or refresh) the demo organization and the user demo@example.com / demo.

Safe to run twice: it finds what exists and only fills in what is missing.
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from apps.accounts.models import Membership, Organization, User
from apps.accounts.roles import Role

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "demo"
DEMO_ORG_SLUG = "demo"


class Command(BaseCommand):
    help = "Create the demo organization and the demo user (demo@example.com / demo)."

    @transaction.atomic
    def handle(self, *args: object, **options: object) -> None:
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
