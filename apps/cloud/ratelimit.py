"""Rate limits shared by every worker: evenly spaced requests per (cloud account, API).

Tencent Cloud throttles per account and API (e.g. GetMonitorData 20/s, DescribeBillDetail
5/s), counting requests as they arrive. Two rules together keep every one-second window at
the cloud under the limit:
- a sliding-window log: never more than ``limit`` grants in any second (a token bucket would
  allow twice the rate inside one second: a full bucket plus its refill);
- even spacing: grants at least 1/limit s apart, so requests that leave a little late (a busy
  thread, a slow connect) cannot bunch up into a burst on arrival.
With Redis both live in keys updated by one Lua script, so any number of worker processes
share them, and Redis's own clock orders them. Without Redis (the embedded default) the limit
holds per process.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import deque
from functools import cache
from typing import Protocol

from django.conf import settings

# Aim a little under the documented limit: requests leave here evenly spaced, but the network
# can bunch them up on the way to the cloud.
HEADROOM = 0.9
WINDOW_SECONDS = 1.0

# Atomically: wait out the spacing since the last grant; drop log entries older than the
# window; if fewer than `limit` remain, record this grant and answer 0; otherwise answer how
# many microseconds until a grant may be possible.
_LIMITER_LUA = """
local key, last_key = KEYS[1], KEYS[2]
local limit, window_us, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing_us = math.floor(window_us / limit)
local last = tonumber(redis.call('GET', last_key) or '0')
if now_us < last + spacing_us then
  return last + spacing_us - now_us
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now_us - window_us)
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now_us, member)
  redis.call('PEXPIRE', key, math.ceil(window_us / 1000) + 1000)
  redis.call('SET', last_key, now_us, 'PX', math.ceil(window_us / 1000) + 1000)
  return 0
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window_us - now_us)
"""


class Limiter(Protocol):
    def try_acquire(self, key: str, limit: int) -> float:
        """Take a slot now and return 0, or return the seconds to wait before trying again."""


class RedisLimiter:
    def __init__(self, url: str) -> None:
        import redis

        self._client = redis.Redis.from_url(url)
        self._script = self._client.register_script(_LIMITER_LUA)

    def try_acquire(self, key: str, limit: int) -> float:
        wait_us = self._script(
            keys=[f"ratelimit:{key}", f"ratelimit:{key}:last"],
            args=[limit, int(WINDOW_SECONDS * 1e6), uuid.uuid4().hex],
        )
        return int(wait_us) / 1e6


class LocalLimiter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._logs: dict[str, deque[float]] = {}

    def try_acquire(self, key: str, limit: int) -> float:
        with self._lock:
            now = time.monotonic()
            log = self._logs.setdefault(key, deque())
            spacing = WINDOW_SECONDS / limit
            if log and now < log[-1] + spacing:
                return log[-1] + spacing - now
            while log and log[0] <= now - WINDOW_SECONDS:
                log.popleft()
            if len(log) < limit:
                log.append(now)
                return 0.0
            return max(1e-6, log[0] + WINDOW_SECONDS - now)


@cache
def _limiter(redis_url: str) -> Limiter:
    return RedisLimiter(redis_url) if redis_url else LocalLimiter()


def effective_limit(documented_per_second: float) -> int:
    return max(1, int(documented_per_second * HEADROOM))


def acquire(key: str, per_second: float, *, timeout: float = 120.0) -> None:
    """Block until a request under ``key`` may go out at ``per_second`` (documented) rate."""
    limiter = _limiter(settings.REDIS_URL)
    limit = effective_limit(per_second)
    deadline = time.monotonic() + timeout
    while (wait := limiter.try_acquire(key, limit)) > 0:
        if time.monotonic() + wait > deadline:
            raise TimeoutError(f"rate limiter {key} stayed full for {timeout:.0f} s")
        time.sleep(wait)
