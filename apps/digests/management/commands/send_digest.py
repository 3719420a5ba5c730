"""Send someone the digest of the latest period now (subscribing them first if need be).

For the demo and for operators: ``manage.py send_digest --email demo@example.com`` queues the
digest on the ``email`` queue; a worker sends it like a scheduled one, once per period.
"""

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts.models import Membership
from apps.digests import services
from apps.digests.models import DigestSubscription


class Command(BaseCommand):
    help = "Queue the digest of the latest ended period for a person (default: weekly)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--email", required=True, help="the member's e-mail address")
        parser.add_argument("--organization", help="organization slug (default: their first)")

    def handle(self, *args: Any, **options: Any) -> None:
        memberships = Membership.objects.select_related("organization", "user").filter(
            user__email=options["email"].lower()
        )
        if options.get("organization"):
            memberships = memberships.filter(organization__slug=options["organization"])
        membership = memberships.order_by("created_at").first()
        if membership is None:
            raise CommandError(
                f"--email: {options['email']!r} is not a member of such an organization."
            )
        subscription = (
            DigestSubscription.objects.select_related("organization", "user")
            .filter(organization=membership.organization, user=membership.user)
            .order_by("created_at")
            .first()
        ) or services.subscription_create_default(
            organization=membership.organization, user=membership.user
        )
        delivery_id = services.digest_send_latest(subscription=subscription, now=timezone.now())
        if delivery_id is None:
            self.stdout.write("The digest of the latest period was sent already.")
        else:
            self.stdout.write(
                f"Digest queued (delivery {delivery_id}) for {membership.user.email}."
            )
