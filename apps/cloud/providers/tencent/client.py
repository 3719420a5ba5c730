"""The one way GPU Ledger talks to Tencent Cloud: the official SDK, rate-limited and retried.

``TencentClient`` wraps the slim per-product SDK clients (cvm, monitor, billing) for one cloud
account. Every call goes through ``call``: it waits for the shared rate limiter, sends the typed
request, retries transient errors a few times with exponential backoff and jitter (the SDK's
own StandardRetryer is not used: it re-raises the first error even when a retry succeeds), and
turns SDK exceptions into ``CloudError``. Paging helpers yield plain dicts.

An endpoint override (``host:port`` plus scheme) points every service at one host: that is how
the built-in simulator is reached, through exactly the same code as the real cloud.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tencentcloud.billing.v20180709 import billing_client
from tencentcloud.common import credential
from tencentcloud.common.abstract_client import AbstractClient
from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException
from tencentcloud.common.profile.client_profile import ClientProfile
from tencentcloud.common.profile.http_profile import HttpProfile
from tencentcloud.cvm.v20170312 import cvm_client
from tencentcloud.monitor.v20180724 import monitor_client

from apps.cloud import ratelimit
from apps.cloud.providers.tencent.errors import CloudError, ErrorKind, classify

logger = logging.getLogger(__name__)

ROOT_DOMAINS = {"china": "tencentcloudapi.com", "intl": "intl.tencentcloudapi.com"}

# Documented per-second limits (reference/tencent-api.md); overridable per client.
DEFAULT_RATE_LIMITS: dict[str, float] = {
    "DescribeInstances": 40,
    "DescribeInstanceTypeConfigs": 40,
    "DescribeZoneInstanceConfigInfos": 40,
    "GetMonitorData": 20,
    "DescribeBillDetail": 5,
    "DescribeAccountBalance": 20,
}

DESCRIBE_INSTANCES_PAGE = 100
BILL_DETAIL_PAGE = 300

_SERVICES: dict[str, type[AbstractClient]] = {
    "cvm": cvm_client.CvmClient,
    "monitor": monitor_client.MonitorClient,
    "billing": billing_client.BillingClient,
}


@dataclass(frozen=True)
class AccountConfig:
    """Everything needed to reach one Tencent Cloud account. ``secret_key`` is plain text here:
    build it from the encrypted field at the last moment and never log it."""

    secret_id: str
    secret_key: str = field(repr=False)
    site: str = "china"
    endpoint: str = ""  # host:port override for every service, e.g. the simulator
    scheme: str = "https"
    timeout_seconds: int = 30
    rate_key: str = "default"  # namespaces the shared rate limiter, e.g. the account id


@dataclass
class RetryPolicy:
    # Throttling is routine at the documented limits: a call gets a few tries in place; the
    # task's own retries (with longer backoff) cover longer outages.
    attempts: int = 5
    base_delay_seconds: float = 0.5
    max_delay_seconds: float = 8.0
    sleep: Callable[[float], None] = time.sleep

    def delay(self, attempt: int) -> float:
        # Full jitter: spreads workers that failed together so they do not retry together.
        return random.uniform(0, min(self.max_delay_seconds, self.base_delay_seconds * 2**attempt))


class TencentClient:
    def __init__(
        self,
        config: AccountConfig,
        *,
        rate_limits: dict[str, float] | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        try:
            self._credential = credential.Credential(config.secret_id, config.secret_key)
        except TencentCloudSDKException as exc:
            raise CloudError(
                ErrorKind.CREDENTIALS,
                "InvalidCredential",
                f"The key pair is malformed: {exc.get_message()}",
            ) from exc
        self.config = config
        self.rate_limits = {**DEFAULT_RATE_LIMITS, **(rate_limits or {})}
        self.retry = retry or RetryPolicy()
        # SDK clients keep per-request state, so each thread gets its own (see
        # apps/metrics/ingest.py, which fetches several metrics at once).
        self._clients: dict[tuple[int, str, str], AbstractClient] = {}
        self._lock = threading.Lock()
        self.requests_made: dict[str, int] = {}

    # --- plumbing -------------------------------------------------------------------------
    def _client(self, service: str, region: str) -> AbstractClient:
        key = (threading.get_ident(), service, region)
        if key not in self._clients:
            client_class = _SERVICES[service]
            endpoint = self.config.endpoint or f"{service}.{ROOT_DOMAINS[self.config.site]}"
            http_profile = HttpProfile(
                protocol=self.config.scheme,
                endpoint=endpoint,
                reqTimeout=self.config.timeout_seconds,
            )
            profile = ClientProfile(httpProfile=http_profile, language="en-US")
            self._clients[key] = client_class(self._credential, region, profile)
        return self._clients[key]

    def call(
        self, service: str, action: str, params: dict[str, Any], *, region: str = ""
    ) -> dict[str, Any]:
        """One API call with rate limiting and transient retries; returns the Response dict."""
        client = self._client(service, region)
        limit = self.rate_limits.get(action, 10)
        for attempt in range(self.retry.attempts):
            ratelimit.acquire(f"tencent:{self.config.rate_key}:{action}", limit)
            with self._lock:
                self.requests_made[action] = self.requests_made.get(action, 0) + 1
            try:
                # call_json parses the body once; the typed models would build an object per
                # data point and serialize it back, which costs more than the request itself.
                response = client.call_json(action, params)
            except TencentCloudSDKException as exc:
                error = classify(exc, action=action)
                if not error.is_transient or attempt == self.retry.attempts - 1:
                    raise error from None
                logger.info("%s %s: %s, retry %d", action, region or "-", error.code, attempt + 1)
                self.retry.sleep(self.retry.delay(attempt))
                continue
            return response["Response"]
        raise AssertionError("unreachable")

    # --- CVM ------------------------------------------------------------------------------
    def describe_instances(self, region: str) -> Iterator[dict[str, Any]]:
        offset = 0
        while True:
            page = self.call(
                "cvm",
                "DescribeInstances",
                {"Offset": offset, "Limit": DESCRIBE_INSTANCES_PAGE},
                region=region,
            )
            instances = page.get("InstanceSet") or []
            yield from instances
            offset += len(instances)
            if not instances or offset >= (page.get("TotalCount") or 0):
                return

    def describe_instance_type_configs(self, region: str) -> list[dict[str, Any]]:
        return (
            self.call("cvm", "DescribeInstanceTypeConfigs", {}, region=region).get(
                "InstanceTypeConfigSet"
            )
            or []
        )

    def describe_zone_instance_config_infos(
        self, region: str, charge_type: str
    ) -> list[dict[str, Any]]:
        params = {"Filters": [{"Name": "instance-charge-type", "Values": [charge_type]}]}
        return (
            self.call("cvm", "DescribeZoneInstanceConfigInfos", params, region=region).get(
                "InstanceTypeQuotaSet"
            )
            or []
        )

    # --- Monitor --------------------------------------------------------------------------
    def get_monitor_data(
        self,
        region: str,
        metric: str,
        instance_ids: list[str],
        start: datetime,
        end: datetime,
        period_seconds: int = 60,
    ) -> list[dict[str, Any]]:
        """Data points of one metric for at most the configured number of instances."""
        params = {
            "Namespace": "QCE/CVM",
            "MetricName": metric,
            "Period": period_seconds,
            "StartTime": start.isoformat(),
            "EndTime": end.isoformat(),
            "Instances": [
                {"Dimensions": [{"Name": "InstanceId", "Value": i}]} for i in instance_ids
            ],
        }
        return self.call("monitor", "GetMonitorData", params, region=region).get("DataPoints") or []

    # --- Billing --------------------------------------------------------------------------
    def describe_bill_detail(self, month: str) -> Iterator[dict[str, Any]]:
        """Every bill line of a month (``yyyy-mm``), 300 a page, passing back ``Context``."""
        offset, context = 0, None
        while True:
            params: dict[str, Any] = {
                "Month": month,
                "Offset": offset,
                "Limit": BILL_DETAIL_PAGE,
                "NeedRecordNum": 1,
            }
            if context:
                params["Context"] = context
            page = self.call("billing", "DescribeBillDetail", params)
            lines = page.get("DetailSet") or []
            yield from lines
            offset += len(lines)
            context = page.get("Context") or None
            if len(lines) < BILL_DETAIL_PAGE:
                return

    def describe_account_balance(self) -> dict[str, Any]:
        return self.call("billing", "DescribeAccountBalance", {})
