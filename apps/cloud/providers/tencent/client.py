"""The one way GPU Ledger talks to Tencent Cloud: the official SDK, rate-limited and retried.

``TencentClient`` wraps the slim per-product SDK clients (cvm, monitor, billing) for one cloud
account. Every call goes through ``call``: it waits for the shared rate limiter, sends the
request, retries transient errors with exponential backoff and full jitter for as long as its
retry budget (a time, not a count) lasts, and turns SDK exceptions into ``CloudError``; a
permanent error (wrong key, missing permission, invalid parameter) is raised at once. A
throttled answer also slows the shared limiter down for every thread and process of the
account (apps/cloud/ratelimit.py); among the threads of this process waiting for the same API,
the call that started first goes first, so a retry does not queue behind newer calls. The SDK's
own StandardRetryer is not used: it re-raises the first error even when a retry succeeds.
Paging helpers yield plain dicts.

An endpoint override (``host:port`` plus scheme) points every service at one host: that is how
the built-in simulator is reached, through exactly the same code as the real cloud.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
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
from apps.core.outbound import OutboundRefused, guard_requests_session, outbound_check

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
    "StopInstances": 10,
    "StartInstances": 10,
}
# Describe calls take at most this many InstanceIds.
DESCRIBE_INSTANCES_IDS = 100

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


def _check_override(endpoint: str) -> None:
    """An endpoint override outbound requests may not reach is a permanent error (the
    account's owner must change it), not a network hiccup to retry."""
    host, _, port = endpoint.rpartition(":")
    try:
        outbound_check(host, int(port))
    except (OutboundRefused, ValueError) as exc:
        raise CloudError(ErrorKind.INVALID, "EndpointRefused", str(exc)) from None


@dataclass
class RetryPolicy:
    """How long one call keeps retrying transient errors.

    The budget is a time, not a count: several threads share the account's requests, so one
    call can meet many faults in a row on a bad day although the cloud never fails more than
    a few times in a row. A call gives up when the next wait would end after its budget (or
    after ``deadline``, the caller's own hard stop, a ``time.monotonic()`` value).
    """

    budget_seconds: float = 120.0
    # Small: the rate limiter already spaces the retry out, so a first wait only has to
    # de-synchronise the threads that failed together; the exponent grows it for an outage.
    base_delay_seconds: float = 0.05
    max_delay_seconds: float = 8.0
    deadline: float | None = None
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def from_settings(cls, **overrides: Any) -> RetryPolicy:
        from django.conf import settings

        values: dict[str, Any] = {
            "budget_seconds": settings.TENCENT_RETRY_BUDGET_SECONDS,
            "base_delay_seconds": settings.TENCENT_RETRY_BASE_SECONDS,
            "max_delay_seconds": settings.TENCENT_RETRY_MAX_DELAY_SECONDS,
        }
        return cls(**{**values, **overrides})

    def delay(self, attempt: int) -> float:
        # Full jitter: spreads threads and workers that failed together so they do not retry
        # together. The exponent is capped so a long outage cannot overflow the float.
        ceiling = self.base_delay_seconds * 2 ** min(attempt, 30)
        return random.uniform(0, min(self.max_delay_seconds, ceiling))

    def give_up_at(self, started: float) -> float:
        end = started + self.budget_seconds
        return end if self.deadline is None else min(end, self.deadline)


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
        self.retry = retry or RetryPolicy.from_settings()
        # SDK clients keep per-request state, so each thread gets its own (see
        # apps/metrics/ingest.py, which fetches several metrics at once).
        self._clients: dict[tuple[int, str, str], AbstractClient] = {}
        self._lock = threading.Lock()
        self.requests_made: dict[str, int] = {}
        # rate key -> transient failures answered in a row, by any thread (see ``call``).
        self._failures_in_a_row: dict[str, int] = {}
        self._stopped: BaseException | None = None

    def stop(self, reason: BaseException) -> None:
        """Make every call from now on, in every thread, raise ``reason`` instead of sending.

        The backfill command reads several kinds at once; when one of them stops for good (a
        permanent error, the deadline) the others stop at their next request or retry.
        """
        self._stopped = reason

    # --- plumbing -------------------------------------------------------------------------
    def _client(self, service: str, region: str) -> AbstractClient:
        key = (threading.get_ident(), service, region)
        if key not in self._clients:
            client_class = _SERVICES[service]
            endpoint = self.config.endpoint or f"{service}.{ROOT_DOMAINS[self.config.site]}"
            if self.config.endpoint:
                _check_override(self.config.endpoint)
            http_profile = HttpProfile(
                protocol=self.config.scheme,
                endpoint=endpoint,
                reqTimeout=self.config.timeout_seconds,
            )
            profile = ClientProfile(httpProfile=http_profile, language="en-US")
            client = client_class(self._credential, region, profile)
            if self.config.endpoint:
                # A tenant aims an override: its connections go only to checked public
                # addresses (or the operator's allowed hosts), whatever the name resolves to
                # by the time the SDK connects. The SDK keeps its requests session here.
                guard_requests_session(client.request.conn._session)
            self._clients[key] = client
        return self._clients[key]

    def call(
        self,
        service: str,
        action: str,
        params: dict[str, Any],
        *,
        region: str = "",
        idempotent: bool = True,
    ) -> dict[str, Any]:
        """One API call with rate limiting and transient retries; returns the Response dict.

        Raises the last CloudError when the error is permanent, or when the retry budget would
        run out before the next attempt. A call that is not ``idempotent`` (StopInstances,
        StartInstances) is retried only when the error proves the cloud did nothing: a
        throttled request (RequestLimitExceeded) is refused at the gateway before any work.
        A timeout, a network error or an InternalError may come after the cloud acted on the
        request (the instance may be STOPPING already), so the write is not sent again; the
        caller reads the state back (``describe_instance_states``) and decides.
        """
        client = self._client(service, region)
        limit = self.rate_limits.get(action, 10)
        key = f"tencent:{self.config.rate_key}:{action}"
        policy = self.retry
        give_up_at = policy.give_up_at(policy.clock())
        # Among this process's threads waiting for the key, the call that started first goes
        # first, retries included (see ratelimit.WaitingLine).
        started = time.monotonic()
        attempt = 0
        while True:
            if self._stopped is not None:
                raise self._stopped
            ratelimit.acquire(key, limit, priority=started)
            if self._stopped is not None:  # stopped while this thread waited for its turn
                raise self._stopped
            with self._lock:
                self.requests_made[action] = self.requests_made.get(action, 0) + 1
            try:
                # call_json parses the body once; the typed models would build an object per
                # data point and serialize it back, which costs more than the request itself.
                response = client.call_json(action, params)
            except TencentCloudSDKException as exc:
                error = classify(exc, action=action)
                if error.code.startswith("RequestLimitExceeded"):
                    # Every thread and worker of this account slows down, not only this call.
                    ratelimit.throttled(key)
                if not error.is_transient:
                    raise error from None
                if not idempotent and not error.code.startswith("RequestLimitExceeded"):
                    raise error from None
                with self._lock:
                    streak = self._failures_in_a_row[key] = self._failures_in_a_row.get(key, 0) + 1
                # The exponent grows with this call's failures, but only as long as the API
                # fails every request in a row (for every thread of this client): when other
                # requests of the key succeed in between, the API is up and this call was
                # unlucky (on a bad day the threads' requests interleave, and a call meets
                # many faults in a row although the cloud never fails more than a few in a
                # row); it retries after a short wait instead of seconds. In an outage every
                # request fails, and the waits grow as they would for a single thread.
                wait_seconds = policy.delay(min(attempt, streak - 1))
                if policy.clock() + wait_seconds > give_up_at:
                    logger.info("%s %s: %s, retry budget spent", action, region or "-", error.code)
                    raise error from None
                attempt += 1
                logger.info("%s %s: %s, retry %d", action, region or "-", error.code, attempt)
                policy.sleep(wait_seconds)
                continue
            with self._lock:
                self._failures_in_a_row[key] = 0
            return response["Response"]

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

    def describe_instance_states(
        self, region: str, instance_ids: Sequence[str]
    ) -> dict[str, dict[str, Any]]:
        """Provider id -> {"state", "stop_charging_mode", "latest_operation",
        "latest_operation_state"} for the ids that exist in the region (absent ones are
        missing from the dict), 100 ids a request."""
        ids = list(dict.fromkeys(instance_ids))
        states: dict[str, dict[str, Any]] = {}
        for first in range(0, len(ids), DESCRIBE_INSTANCES_IDS):
            chunk = ids[first : first + DESCRIBE_INSTANCES_IDS]
            page = self.call(
                "cvm",
                "DescribeInstances",
                {"InstanceIds": chunk, "Limit": DESCRIBE_INSTANCES_IDS},
                region=region,
            )
            for item in page.get("InstanceSet") or []:
                states[item["InstanceId"]] = {
                    "state": item.get("InstanceState"),
                    "stop_charging_mode": item.get("StopChargingMode"),
                    "latest_operation": item.get("LatestOperation"),
                    "latest_operation_state": item.get("LatestOperationState"),
                }
        return states

    def stop_instances(
        self,
        region: str,
        instance_ids: Sequence[str],
        *,
        stopped_mode: str = "STOP_CHARGING",
        stop_type: str = "SOFT",
    ) -> str:
        """StopInstances (at most 100 ids); returns the RequestId, which the instances'
        LatestOperationRequestId shows. The stop is asynchronous: the instances are STOPPING
        when this returns. Raises InstanceStateConflict, InstanceNotFound, NotAuthorized or
        another CloudError; never retried after a timeout (see ``call``)."""
        params = {
            "InstanceIds": list(instance_ids),
            "StopType": stop_type,
            "StoppedMode": stopped_mode,
        }
        response = self.call("cvm", "StopInstances", params, region=region, idempotent=False)
        return str(response.get("RequestId", ""))

    def start_instances(self, region: str, instance_ids: Sequence[str]) -> str:
        """StartInstances (at most 100 ids); returns the RequestId. Asynchronous: STARTING on
        return. Raises CapacitySoldOut, InstanceStateConflict, InstanceNotFound,
        NotAuthorized or another CloudError; never retried after a timeout."""
        params = {"InstanceIds": list(instance_ids)}
        response = self.call("cvm", "StartInstances", params, region=region, idempotent=False)
        return str(response.get("RequestId", ""))

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
