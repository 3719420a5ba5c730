"""Rate limits shared by every worker: evenly spaced requests per (cloud account, API).

Tencent Cloud throttles per account and API (e.g. GetMonitorData 20/s, DescribeBillDetail
5/s), counting requests as they arrive. Two rules together keep every one-second window at
the cloud under the limit:
- a sliding-window log: never more than ``limit`` grants in any second (a token bucket would
  allow twice the rate inside one second: a full bucket plus its refill);
- even spacing: grants on a grid 1/limit s apart, so requests that leave a little late (a busy
  thread, a slow connect) cannot bunch up into a burst on arrival. A grant may come up to
  ``SPACING_TOLERANCE`` of a step before its slot, and the next slot follows the slot, not the
  moment of the grant: a waiting thread always wakes a little late (more so on a busy machine),
  and spacing from the moment of each grant made every such delay a loss, so a key with many
  waiting threads ran at ~75% of its limit (bench/backfill_faults.py). Grants are therefore
  never closer than half a step, and the window still caps every second.
With Redis both live in keys updated by one Lua script, so any number of worker processes
share them, and Redis's own clock orders them. Without Redis (the embedded default) the limit
holds per process.

When the cloud throttles anyway (another client spends the same account's quota, or the
documented limit is wrong), ``throttled(key)`` cuts the key's rate for everyone sharing it
to ``TENCENT_THROTTLE_SLOWDOWN`` of what it was; the rate then doubles back every
``TENCENT_THROTTLE_RECOVERY_SECONDS`` until it is full again. A throttled answer cuts only
when the key's previous one is at least a window (``WINDOW_SECONDS``) old, i.e. it starts a new
episode of throttling:
- every throttled answer within a window of a cut was counted by the cloud (per second)
  together with requests sent at the old rate, and says nothing about the new one (TCP halves
  its window once per round trip for the same reason); without that rule the cuts compounded
  with every throttled answer: on a bad day, when a third of the answers are throttles whatever
  the rate, the threads of a backfill cut the rate several times a second and held it at half
  the limit (bench/backfill_faults.py);
- throttles that go on after a cut did not stop at the lower rate, so the rate is not their
  cause: the key recovers to its full rate meanwhile instead of dipping again every window
  (each dip cost the bad-day backfill a few % of its requests), and the throttled requests are
  retried. Only a window without a throttle ends the episode; the next throttle cuts again.
So the key goes below its rate briefly (by a fifth, for a third of a second with the defaults) at
the start of each episode of throttling, and never for long.

The back-off stretches the spacing between grants (a fractional rate: 4/s cut by 0.8 is one
grant every 0.31 s, not 3/s) and never raises the one-second cap above the limit.
"""

from __future__ import annotations

import bisect
import itertools
import math
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from django.conf import settings

# Aim a little under the documented limit: requests leave here evenly spaced, but the network
# can bunch them up on the way to the cloud.
HEADROOM = 0.9
WINDOW_SECONDS = 1.0
# How early (a fraction of one step between grants) a grant may come before its slot.
SPACING_TOLERANCE = 0.5
# The slowest a throttled key goes, as a fraction of its limit: it must still make progress.
MIN_FACTOR = 0.1

# The current slow-down factor of a key: the factor last set, doubled per recovery period
# since, at most 1. Shared by both scripts below (ARGV[...] positions differ, so a function).
_FACTOR_LUA = """
local function current_factor(slow_key, now_us, recovery_us)
  local f = redis.call('HGET', slow_key, 'f')
  if not f then return 1.0 end
  local at = tonumber(redis.call('HGET', slow_key, 'at') or '0')
  local factor = tonumber(f) * math.pow(2, (now_us - at) / recovery_us)
  if factor > 1.0 then return 1.0 end
  return factor
end
"""

# Atomically: apply the key's slow-down to the limit; wait until the next slot (one step after
# the last grant's slot, less the tolerance); drop log entries older than the window; if fewer
# than `limit` remain, record this grant (and its slot) and answer 0; otherwise answer how many
# microseconds until a grant may be possible.
_LIMITER_LUA = (
    _FACTOR_LUA
    + """
local key, last_key, slow_key = KEYS[1], KEYS[2], KEYS[3]
local limit, window_us, member = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local recovery_us, tolerance = tonumber(ARGV[4]), tonumber(ARGV[5])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local rate = limit * current_factor(slow_key, now_us, recovery_us)
local spacing_us = math.floor(window_us / rate)
limit = math.max(1, math.ceil(rate))
local next_slot = tonumber(redis.call('GET', last_key) or '0') + spacing_us
local earliest = next_slot - math.floor(spacing_us * tolerance)
if now_us < earliest then
  return earliest - now_us
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now_us - window_us)
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, now_us, member)
  redis.call('PEXPIRE', key, math.ceil(window_us / 1000) + 1000)
  redis.call('SET', last_key, math.max(next_slot, now_us), 'PX', math.ceil(window_us / 1000) + 1000)
  return 0
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window_us - now_us)
"""
)

# Atomically: note this throttled answer; unless the key's previous one is less than a window
# old, multiply its current factor by the slow-down (not below the minimum) and restart its
# recovery from now; the hash expires once the rate would be back to full.
_THROTTLED_LUA = (
    _FACTOR_LUA
    + """
local slow_key, last_key = KEYS[1], KEYS[2]
local slowdown, min_factor, recovery_us = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local window_us = tonumber(ARGV[4])
local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local last = tonumber(redis.call('GET', last_key) or '0')
redis.call('SET', last_key, tostring(now_us), 'PX', math.ceil(window_us / 1000) + 1000)
if last > 0 and now_us - last < window_us then
  return tostring(current_factor(slow_key, now_us, recovery_us))
end
local factor = math.max(min_factor, current_factor(slow_key, now_us, recovery_us) * slowdown)
redis.call('HSET', slow_key, 'f', tostring(factor), 'at', tostring(now_us))
local full_after_ms = math.ceil(recovery_us / 1000 * math.log(1 / factor) / math.log(2))
redis.call('PEXPIRE', slow_key, full_after_ms + 1000)
return tostring(factor)
"""
)


@dataclass(frozen=True)
class Backoff:
    """How the shared limiter reacts to a throttled answer (see the module docstring)."""

    slowdown: float = 0.8
    recovery_seconds: float = 1.0

    @classmethod
    def from_settings(cls) -> Backoff:
        return cls(
            slowdown=settings.TENCENT_THROTTLE_SLOWDOWN,
            recovery_seconds=settings.TENCENT_THROTTLE_RECOVERY_SECONDS,
        )


class Limiter(Protocol):
    def try_acquire(self, key: str, limit: int) -> float:
        """Take a slot now and return 0, or return the seconds to wait before trying again."""

    def throttled(self, key: str) -> float:
        """Slow ``key`` down after a throttled answer; returns its new factor (0 to 1]."""

    def factor(self, key: str) -> float:
        """The fraction of its limit ``key`` may use now (1 when not slowed down)."""


class RedisLimiter:
    def __init__(self, url: str, backoff: Backoff) -> None:
        import redis

        self._client = redis.Redis.from_url(url)
        self._script = self._client.register_script(_LIMITER_LUA)
        self._throttled = self._client.register_script(_THROTTLED_LUA)
        self._factor = self._client.register_script(
            _FACTOR_LUA
            + """
local t = redis.call('TIME')
return tostring(current_factor(KEYS[1], tonumber(t[1]) * 1000000 + tonumber(t[2]),
                               tonumber(ARGV[1])))
"""
        )
        self.backoff = backoff

    @property
    def _recovery_us(self) -> int:
        return max(1, int(self.backoff.recovery_seconds * 1e6))

    def try_acquire(self, key: str, limit: int) -> float:
        wait_us = self._script(
            keys=[f"ratelimit:{key}", f"ratelimit:{key}:last", f"ratelimit:{key}:slow"],
            args=[
                limit,
                int(WINDOW_SECONDS * 1e6),
                uuid.uuid4().hex,
                self._recovery_us,
                SPACING_TOLERANCE,
            ],
        )
        return int(wait_us) / 1e6

    def throttled(self, key: str) -> float:
        factor = self._throttled(
            keys=[f"ratelimit:{key}:slow", f"ratelimit:{key}:throttled"],
            args=[
                self.backoff.slowdown,
                MIN_FACTOR,
                self._recovery_us,
                int(WINDOW_SECONDS * 1e6),
            ],
        )
        return float(factor)

    def factor(self, key: str) -> float:
        return float(self._factor(keys=[f"ratelimit:{key}:slow"], args=[self._recovery_us]))


class LocalLimiter:
    def __init__(self, backoff: Backoff, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._logs: dict[str, deque[float]] = {}
        # key -> the slot of its last grant (see SPACING_TOLERANCE), as in Redis.
        self._slots: dict[str, float] = {}
        # key -> (factor set, when), as in Redis.
        self._slow: dict[str, tuple[float, float]] = {}
        # key -> when its last throttled answer came, as in Redis.
        self._last_throttled: dict[str, float] = {}
        self.backoff = backoff
        self._clock = clock

    def _factor(self, key: str, now: float) -> float:
        if key not in self._slow:
            return 1.0
        factor, at = self._slow[key]
        return min(1.0, factor * 2 ** ((now - at) / self.backoff.recovery_seconds))

    def factor(self, key: str) -> float:
        with self._lock:
            return self._factor(key, self._clock())

    def throttled(self, key: str) -> float:
        with self._lock:
            now = self._clock()
            last = self._last_throttled.get(key)
            self._last_throttled[key] = now
            if last is not None and now - last < WINDOW_SECONDS:
                return self._factor(key, now)  # the same episode of throttling: no cut
            factor = max(MIN_FACTOR, self._factor(key, now) * self.backoff.slowdown)
            self._slow[key] = (factor, now)
            return factor

    def try_acquire(self, key: str, limit: int) -> float:
        with self._lock:
            now = self._clock()
            rate = limit * self._factor(key, now)
            limit = max(1, math.ceil(rate))
            log = self._logs.setdefault(key, deque())
            spacing = WINDOW_SECONDS / rate
            next_slot = self._slots.get(key, now - spacing) + spacing
            earliest = next_slot - spacing * SPACING_TOLERANCE
            if now < earliest:
                return earliest - now
            while log and log[0] <= now - WINDOW_SECONDS:
                log.popleft()
            if len(log) < limit:
                log.append(now)
                self._slots[key] = max(next_slot, now)
                return 0.0
            return max(1e-6, log[0] + WINDOW_SECONDS - now)


@cache
def _limiter(redis_url: str, backoff: Backoff) -> Limiter:
    return RedisLimiter(redis_url, backoff) if redis_url else LocalLimiter(backoff)


def shared_limiter() -> Limiter:
    """The limiter every client of this process uses (Redis-backed when REDIS_URL is set)."""
    return _limiter(settings.REDIS_URL, Backoff.from_settings())


def throttled(key: str) -> float:
    """The cloud throttled a request under ``key``: slow every user of the key down."""
    return shared_limiter().throttled(key)


def effective_limit(documented_per_second: float) -> int:
    return max(1, int(documented_per_second * HEADROOM))


class WaitingLine:
    """The threads of this process waiting for one key, served oldest call first.

    Only the thread whose turn it is asks the shared limiter (and sleeps until its slot); the
    others wait here. The turn goes to the smallest ``priority``: the moment its call started,
    so a call that is retrying goes before calls that started after it. Without the line every
    waiting thread polled the limiter and whichever woke first won: on a bad day a call that
    failed several times waited in the crowd again for each attempt, and the metrics window
    it belonged to held back the in-order store of every window after it (the fetch threads
    then idled: apps/metrics/ingest.py, bench/backfill_faults.py). One poller per key also
    spares the limiter (Redis) a script call per waiting thread per slot.
    """

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._waiting: list[tuple[float, int]] = []  # (priority, ticket), sorted
        self._busy = False
        self._tickets = itertools.count()

    def __len__(self) -> int:
        with self._condition:
            return len(self._waiting)

    def turn(self, priority: float, timeout: float) -> _Turn:
        """Wait until it is this caller's turn (use as ``with line.turn(...):``)."""
        return _Turn(self, priority, timeout)

    def _enter(self, priority: float, deadline: float) -> tuple[float, int]:
        ticket = (priority, next(self._tickets))
        with self._condition:
            bisect.insort(self._waiting, ticket)
            while self._busy or self._waiting[0] != ticket:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._waiting.remove(ticket)
                    self._condition.notify_all()
                    raise TimeoutError("waited too long for a turn at the rate limiter")
                self._condition.wait(remaining)
            self._busy = True
            self._waiting.remove(ticket)
        return ticket

    def _leave(self) -> None:
        with self._condition:
            self._busy = False
            self._condition.notify_all()


class _Turn:
    def __init__(self, line: WaitingLine, priority: float, timeout: float) -> None:
        self._line, self._priority = line, priority
        self._deadline = time.monotonic() + timeout

    def __enter__(self) -> None:
        self._line._enter(self._priority, self._deadline)

    def __exit__(self, *exc: object) -> None:
        self._line._leave()


_lines: dict[str, WaitingLine] = {}
_lines_lock = threading.Lock()


def waiting_line(key: str) -> WaitingLine:
    with _lines_lock:
        if key not in _lines:
            _lines[key] = WaitingLine()
        return _lines[key]


def acquire(
    key: str, per_second: float, *, timeout: float = 120.0, priority: float | None = None
) -> None:
    """Block until a request under ``key`` may go out at ``per_second`` (documented) rate.

    ``priority``: the smaller, the sooner among this process's waiting threads (the moment
    the call started, see WaitingLine); by default the moment of asking.
    """
    limiter = shared_limiter()
    limit = effective_limit(per_second)
    deadline = time.monotonic() + timeout
    with waiting_line(key).turn(time.monotonic() if priority is None else priority, timeout):
        while (wait := limiter.try_acquire(key, limit)) > 0:
            if time.monotonic() + wait > deadline:
                raise TimeoutError(f"rate limiter {key} stayed full for {timeout:.0f} s")
            time.sleep(wait)
