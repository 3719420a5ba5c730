"""Cloud inventory: projects and GPU instances.

The Tencent Cloud connector (CloudAccount, prices, tag rules, sync) extends this module; the
instance is the unit every metric, cost and recommendation hangs from.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.db import models

from apps.cloud.regions import REGIONS
from apps.core.models import OrganizationScopedModel, TimestampedModel

# host:port, the port 1-65535 written without leading zeros. The API's schema states this very
# pattern (ENDPOINT_PATTERN, ECMA-262 as well as Python), so the two cannot drift apart.
_PORT = r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
ENDPOINT_PATTERN = rf"^[A-Za-z0-9](?:[A-Za-z0-9.-]{{0,251}}[A-Za-z0-9])?:({_PORT})$"
ENDPOINT_RE = re.compile(ENDPOINT_PATTERN)


def validate_endpoint(value: str) -> None:
    # fullmatch: "$" alone would also take a trailing newline.
    if not ENDPOINT_RE.fullmatch(value):
        raise ValidationError("Must be host:port, e.g. 127.0.0.1:8900 (no scheme, no path).")


def validate_regions(value: object) -> None:
    if not isinstance(value, list) or not value:
        raise ValidationError('Give at least one region, e.g. ["ap-guangzhou"].')
    unknown = [region for region in value if region not in REGIONS]
    if unknown:
        raise ValidationError(f"Unknown Tencent Cloud region(s): {', '.join(map(str, unknown))}.")


class CloudAccount(OrganizationScopedModel):
    """An organization's Tencent Cloud account, reached with a (read-only) CAM key pair.

    The SecretKey is stored only encrypted (apps.core.crypto) and never leaves the server.
    """

    class Site(models.TextChoices):
        CHINA = "china", "China (CNY)"
        INTL = "intl", "International (USD)"

    class Status(models.TextChoices):
        PENDING = "pending", "Not synced yet"
        OK = "ok", "OK"
        FAILING = "failing", "Failing"
        DISABLED = "disabled", "Disabled"

    class Scheme(models.TextChoices):
        HTTPS = "https", "https"
        HTTP = "http", "http"

    provider = models.CharField(max_length=16, default="tencent", editable=False)
    name = models.CharField(max_length=100)
    secret_id = models.CharField(max_length=128)
    secret_key_encrypted = models.TextField()
    # A second, write-capable key for automation (StopInstances/StartInstances only, see
    # docs/automation.md); blank while the account has only its read-only key. Encrypted like
    # the read key, never returned by the API.
    write_secret_id = models.CharField(max_length=128, blank=True, default="")
    write_secret_key_encrypted = models.TextField(blank=True, default="")
    automation_enabled = models.BooleanField(default=False)
    # "key=value": the tag the write key's CAM policy limits it to (qcs:resource_tag); blank:
    # no limit. Automation acts only on instances carrying it.
    automation_tag = models.CharField(max_length=255, blank=True, default="")
    regions = models.JSONField(default=list, validators=[validate_regions])
    site = models.CharField(max_length=8, choices=Site.choices, default=Site.CHINA)
    endpoint = models.CharField(
        max_length=260,
        blank=True,
        validators=[validate_endpoint],
        help_text="host:port that every service is sent to instead of *.tencentcloudapi.com.",
    )
    endpoint_scheme = models.CharField(max_length=5, choices=Scheme.choices, default=Scheme.HTTPS)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    @property
    def has_write_credential(self) -> bool:
        return bool(self.write_secret_id and self.write_secret_key_encrypted)

    def __str__(self) -> str:
        return self.name

    @property
    def currency(self) -> str:
        return "USD" if self.site == self.Site.INTL else "CNY"


class SyncKind(models.TextChoices):
    INVENTORY = "inventory", "Instances and tags"
    PRICES = "prices", "Price catalog"
    METRICS = "metrics", "Monitoring metrics"
    BILLS = "bills", "Bills"
    BALANCE = "balance", "Account balance"


class SyncState(TimestampedModel):
    """When each kind of sync of an account last ran and is next due, and its lease.

    Claiming is one conditional UPDATE (``next_run_at <= now`` and no live lease), so two
    workers or a duplicate beat tick cannot run the same sync of an account at once.

    ``backfilled_until`` is the moment the first successful run of the kind synced up to: what
    it brought, the days and months before that moment, is *imported history* (the backfill of
    a newly connected account), and what later runs bring is live. Alerts use it so a backfill
    is reported once, not day by day (``apps.alerts.history``). Set once, by ``sync_release``.
    """

    account = models.ForeignKey(CloudAccount, on_delete=models.CASCADE, related_name="sync_states")
    kind = models.CharField(max_length=16, choices=SyncKind.choices)
    next_run_at = models.DateTimeField(null=True, blank=True)
    leased_until = models.DateTimeField(null=True, blank=True)
    last_started_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    backfilled_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="What the first successful run synced up to: data before it was imported.",
    )
    last_error = models.TextField(blank=True)
    progress = models.JSONField(
        default=dict, blank=True, help_text="Resumable cursor of a long sync."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "kind"], name="syncstate_unique_kind")
        ]

    def __str__(self) -> str:
        return f"{self.account} {self.kind}"


class Project(OrganizationScopedModel):
    """A cost-allocation bucket, named by tag values (e.g. tag ``project``).

    ``tag_values`` lists every tag value that lands here: a rule can merge values
    ("nlp", "NLP team") into one project. Spend with no matching tag is "Unallocated".
    """

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, allow_unicode=True)
    tag_values = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="project_unique_slug")
        ]

    def __str__(self) -> str:
        return self.name


class ChargeType(models.TextChoices):
    POSTPAID_BY_HOUR = "POSTPAID_BY_HOUR", "Pay-as-you-go"
    PREPAID = "PREPAID", "Monthly subscription"
    SPOTPAID = "SPOTPAID", "Spot"
    CDHPAID = "CDHPAID", "Dedicated host"
    CDCPAID = "CDCPAID", "Dedicated cluster"


class InstanceSource(models.TextChoices):
    INVENTORY = "inventory", "Listed by the cloud's inventory"
    BILLS = "bills", "Seen only in bills"


class Instance(OrganizationScopedModel):
    """A cloud GPU instance. Never deleted: a vanished instance is marked terminated.

    Most instances come from the inventory (DescribeInstances). One that ended before the
    account was connected is never listed there; it is learned from its bill lines instead
    (``source="bills"``), terminated, with its lifetime from its first and last billed hour.
    """

    account = models.ForeignKey(
        CloudAccount, null=True, blank=True, on_delete=models.SET_NULL, related_name="instances"
    )
    provider_id = models.CharField(max_length=64, help_text="e.g. ins-9bxebleo")
    name = models.CharField(max_length=200, blank=True)
    region = models.CharField(max_length=32)
    zone = models.CharField(max_length=32, blank=True)
    instance_type = models.CharField(max_length=64)
    gpu_model = models.CharField(max_length=64, blank=True)
    gpu_count = models.FloatField(default=0, help_text="Below 1 means a vGPU share.")
    gpu_memory_gb = models.FloatField(default=0, help_text="Per card.")
    cpu_cores = models.PositiveIntegerField(default=0)
    memory_gb = models.PositiveIntegerField(default=0)
    charge_type = models.CharField(
        max_length=20, choices=ChargeType.choices, default=ChargeType.POSTPAID_BY_HOUR
    )
    state = models.CharField(max_length=20, default="RUNNING")
    # DescribeInstances' StopChargingMode: STOP_CHARGING or KEEP_CHARGING while stopped,
    # NOT_APPLICABLE otherwise; blank where the cloud did not say (learned from bills).
    stop_charging_mode = models.CharField(max_length=20, blank=True, default="")
    source = models.CharField(
        max_length=10, choices=InstanceSource.choices, default=InstanceSource.INVENTORY
    )
    tags = models.JSONField(default=dict, blank=True)
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="instances"
    )
    launched_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    terminated_at = models.DateTimeField(null=True, blank=True)
    # Metrics before this moment are stored; the next metric sync starts here.
    metrics_synced_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "provider_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "provider_id"], name="instance_unique_provider_id"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name or self.provider_id} ({self.instance_type})"


class ProjectTagKey(OrganizationScopedModel):
    """A tag key whose values name projects (e.g. ``project``); the lowest position wins."""

    key = models.CharField(max_length=127)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "key"], name="projecttagkey_unique")
        ]

    def __str__(self) -> str:
        return self.key


class InstanceType(TimestampedModel):
    """Hardware of an instance type (global catalog facts, not tenant data)."""

    instance_type = models.CharField(max_length=64, unique=True)
    family = models.CharField(max_length=32)
    cpu_cores = models.PositiveIntegerField(default=0)
    memory_gb = models.PositiveIntegerField(default=0)
    gpu_count = models.FloatField(default=0)
    gpu_model = models.CharField(max_length=64, blank=True)
    gpu_memory_gb = models.FloatField(default=0, help_text="Per card.")

    def __str__(self) -> str:
        return self.instance_type


class InstancePrice(TimestampedModel):
    """The account's price for a type in a zone and charge type (list and discounted)."""

    account = models.ForeignKey(CloudAccount, on_delete=models.CASCADE, related_name="prices")
    region = models.CharField(max_length=32)
    zone = models.CharField(max_length=32)
    instance_type = models.CharField(max_length=64)
    charge_type = models.CharField(max_length=20, choices=ChargeType.choices)
    hourly_list = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    hourly = models.DecimalField(max_digits=14, decimal_places=4, null=True, blank=True)
    monthly_list = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    monthly = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, default="CNY")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "zone", "instance_type", "charge_type"],
                name="instanceprice_unique",
            )
        ]
