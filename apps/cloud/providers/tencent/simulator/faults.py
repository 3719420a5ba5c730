"""Fault injection, per-(SecretId, action) rate limits, and the request log.

Faults count the requests they apply to (all actions, or only those named in ``actions``) and
strike every Nth one, N per fault kind (when two kinds fall on the same request, HTTP 500
wins, then throttling), so a test knows exactly which calls fail. However the Ns combine, the
server never fails more than ``max_in_a_row`` requests in a row (default 2): a bad day, not
an outage. Rate limits use a sliding
one-second window per (SecretId, action), as Tencent's documented "N requests per second" do.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

THROTTLE = "RequestLimitExceeded"
INTERNAL_ERROR = "InternalError"
HTTP_500 = "HTTP500"
OK = "OK"


@dataclass
class FaultSettings:
    """Current fault switches; 0 disables a fault."""

    throttle_every: int = 0
    internal_error_every: int = 0
    http_500_every: int = 0
    delay_ms: int = 0
    actions: frozenset[str] | None = None  # None: every action is eligible
    max_in_a_row: int = 2


@dataclass
class FaultInjector:
    """Decides, request by request, whether to inject a fault (thread-safe)."""

    settings: FaultSettings = field(default_factory=FaultSettings)
    _count: int = 0
    _streak: int = 0  # faults injected in a row just now
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def configure(
        self,
        throttle_every: int | None = None,
        internal_error_every: int | None = None,
        http_500_every: int | None = None,
        delay_ms: int | None = None,
        actions: Iterable[str] | None = None,
        max_in_a_row: int | None = None,
        reset_count: bool = True,
    ) -> None:
        """Change the switches given (others keep their value) and restart the count."""
        with self._lock:
            s = self.settings
            if throttle_every is not None:
                s.throttle_every = throttle_every
            if internal_error_every is not None:
                s.internal_error_every = internal_error_every
            if http_500_every is not None:
                s.http_500_every = http_500_every
            if delay_ms is not None:
                s.delay_ms = delay_ms
            if actions is not None:
                s.actions = frozenset(actions) or None
            if max_in_a_row is not None:
                s.max_in_a_row = max_in_a_row
            if reset_count:
                self._count = 0
                self._streak = 0

    def clear(self) -> None:
        """Switch every fault off."""
        with self._lock:
            self.settings = FaultSettings()
            self._count = 0
            self._streak = 0

    def pick(self, action: str) -> tuple[str | None, float]:
        """(fault to inject or None, delay in seconds) for the next request of ``action``."""
        with self._lock:
            s = self.settings
            if s.actions is not None and action not in s.actions:
                return None, 0.0
            self._count += 1
            n = self._count
            delay = s.delay_ms / 1000.0
            fault: str | None = None
            if s.http_500_every and n % s.http_500_every == 0:
                fault = HTTP_500
            elif s.throttle_every and n % s.throttle_every == 0:
                fault = THROTTLE
            elif s.internal_error_every and n % s.internal_error_every == 0:
                fault = INTERNAL_ERROR
            if fault is not None and self._streak >= s.max_in_a_row:
                fault = None
            self._streak = self._streak + 1 if fault is not None else 0
            return fault, delay


class RateLimiter:
    """At most ``limits[action]`` accepted requests per (SecretId, action) in any 1 s window."""

    def __init__(self, limits: Mapping[str, int], window_seconds: float = 1.0) -> None:
        self.limits = dict(limits)
        self.window = window_seconds
        self._accepted: dict[tuple[str, str], deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def allow(self, secret_id: str, action: str, at: float | None = None) -> bool:
        """Record the request and say whether it is within the limit."""
        limit = self.limits.get(action)
        if not limit:
            return True
        moment = time.monotonic() if at is None else at
        with self._lock:
            accepted = self._accepted[(secret_id, action)]
            while accepted and accepted[0] <= moment - self.window:
                accepted.popleft()
            if len(accepted) >= limit:
                return False
            # Threads reach this point in any order; the log stays sorted by arrival.
            bisect.insort(accepted, moment)
            return True


@dataclass(frozen=True)
class RequestRecord:
    """One request as the simulator saw it; ``outcome`` is OK, an error code, or HTTP500."""

    monotonic: float
    wall: float
    service: str
    action: str
    secret_id: str
    outcome: str
    request_id: str = ""
    # The request's JSON parameters (None when the body was not a JSON object).
    params: dict[str, Any] | None = field(default=None, compare=False, hash=False)

    def names_instance(self, instance_id: str) -> bool:
        """Whether the request's ``InstanceIds`` include the instance."""
        ids = (self.params or {}).get("InstanceIds")
        return isinstance(ids, list) and instance_id in ids


class RequestLog:
    """Thread-safe list of every request, for tests to prove rate limits were respected."""

    def __init__(self) -> None:
        self._records: list[RequestRecord] = []
        self._lock = threading.Lock()

    def append(self, record: RequestRecord) -> None:
        """Add one record."""
        with self._lock:
            self._records.append(record)

    def records(
        self, action: str | None = None, secret_id: str | None = None
    ) -> list[RequestRecord]:
        """A copy of the records, optionally only one action and/or SecretId."""
        with self._lock:
            records = list(self._records)
        return [
            r
            for r in records
            if (action is None or r.action == action)
            and (secret_id is None or r.secret_id == secret_id)
        ]

    def clear(self) -> None:
        """Forget every record."""
        with self._lock:
            self._records.clear()

    def count(self, action: str | None = None, outcome: str | None = None) -> int:
        """Number of requests (of an action, with an outcome)."""
        return sum(1 for r in self.records(action) if outcome is None or r.outcome == outcome)

    def max_requests_in_any_window(
        self, action: str, seconds: float = 1.0, secret_id: str | None = None
    ) -> int:
        """The most requests of ``action`` (any outcome) that arrived within ``seconds``."""
        times = sorted(r.monotonic for r in self.records(action, secret_id))
        best, first = 0, 0
        for last, moment in enumerate(times):
            while moment - times[first] >= seconds:
                first += 1
            best = max(best, last - first + 1)
        return best
