"""Retries of one call (a time budget, exponential backoff, full jitter), the shared back-off of
the rate limiter after a throttled answer, and the simulator's fault pattern."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

import pytest
from django.conf import settings

from apps.cloud import ratelimit
from apps.cloud.providers.tencent.client import AccountConfig, RetryPolicy, TencentClient
from apps.cloud.providers.tencent.errors import CloudError, ErrorKind
from apps.cloud.providers.tencent.simulator import (
    DEFAULT_SECRET_ID,
    DEFAULT_SECRET_KEY,
    SimulatorServer,
)
from apps.cloud.providers.tencent.simulator.faults import (
    HTTP_500,
    INTERNAL_ERROR,
    THROTTLE,
    FaultInjector,
)

# A cheap action to call many times (the simulator computes the balance from every bill line).
ACTION = "DescribeInstanceTypeConfigs"
REGION = "ap-guangzhou"


class FakeClock:
    """A monotonic clock that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


# --- the simulator's faults -------------------------------------------------------------------


def test_it_injects_every_nth_request_per_fault_kind() -> None:
    faults = FaultInjector()
    faults.configure(throttle_every=3, internal_error_every=4, http_500_every=6)
    picked = [faults.pick("GetMonitorData")[0] for _ in range(12)]
    t, i, h = THROTTLE, INTERNAL_ERROR, HTTP_500
    assert picked == [None, None, t, i, None, h, None, i, t, None, None, h]


def test_it_never_fails_more_than_two_requests_in_a_row() -> None:
    faults = FaultInjector()
    faults.configure(throttle_every=1)
    picked = [faults.pick("DescribeInstances")[0] for _ in range(6)]
    assert picked == [THROTTLE, THROTTLE, None, THROTTLE, THROTTLE, None]
    faults.configure(max_in_a_row=5)
    assert [faults.pick("DescribeInstances")[0] for _ in range(6)] == [THROTTLE] * 5 + [None]


# --- one call's retries -----------------------------------------------------------------------


def test_it_jitters_each_wait_fully_up_to_the_exponential_ceiling() -> None:
    policy = RetryPolicy(base_delay_seconds=0.1, max_delay_seconds=1.0)
    for attempt, ceiling in [(0, 0.1), (2, 0.4), (3, 0.8), (4, 1.0), (60, 1.0)]:
        waits = [policy.delay(attempt) for _ in range(500)]
        assert 0 <= min(waits) < ceiling * 0.1, attempt
        assert ceiling * 0.9 < max(waits) <= ceiling, attempt


@pytest.fixture
def simulator_without_rate_limits(
    make_simulator: Callable[..., SimulatorServer],
) -> SimulatorServer:
    return make_simulator(rate_limits={})


def fast_client(simulator: SimulatorServer, policy: RetryPolicy | None = None) -> TencentClient:
    """A client of its own rate-limiter key (parallel test workers share Redis), at 10,000/s."""
    config = AccountConfig(
        secret_id=DEFAULT_SECRET_ID,
        secret_key=DEFAULT_SECRET_KEY,
        endpoint=simulator.endpoint,
        scheme="http",
        rate_key=f"test-{uuid.uuid4().hex}",
    )
    return TencentClient(config, retry=policy, rate_limits={ACTION: 1e4})


def test_it_retries_transient_errors_for_a_time_budget_not_a_count(
    simulator_without_rate_limits: SimulatorServer,
) -> None:
    simulator = simulator_without_rate_limits
    simulator.faults.configure(internal_error_every=1, max_in_a_row=10**6)  # an outage
    clock = FakeClock()
    policy = RetryPolicy(
        budget_seconds=0.05,
        base_delay_seconds=0.001,
        max_delay_seconds=0.002,
        clock=clock,
        sleep=clock.sleep,
    )
    with pytest.raises(CloudError) as raised:
        fast_client(simulator, policy).describe_instance_type_configs(REGION)
    assert raised.value.code == "InternalError"
    requests = simulator.request_log.count(ACTION)
    # Waits of at most 2 ms within a 50 ms budget: far more tries than any fixed count.
    assert requests >= 25
    assert requests == len(clock.sleeps) + 1
    assert sum(clock.sleeps) <= 0.05


def test_it_succeeds_after_faults_and_stops_retrying_at_the_callers_deadline(
    simulator_without_rate_limits: SimulatorServer,
) -> None:
    simulator = simulator_without_rate_limits
    simulator.faults.configure(http_500_every=1)  # two bare HTTP 500s, then an answer
    clock = FakeClock()
    policy = RetryPolicy(base_delay_seconds=0.01, clock=clock, sleep=clock.sleep)
    assert fast_client(simulator, policy).describe_instance_type_configs(REGION)
    assert simulator.request_log.count(ACTION) == 3

    simulator.faults.configure(http_500_every=1, max_in_a_row=10**6)
    simulator.request_log.clear()
    policy = RetryPolicy(
        budget_seconds=3600,
        base_delay_seconds=1.0,
        max_delay_seconds=1.0,
        deadline=clock.now + 0.5,
        clock=clock,
        sleep=clock.sleep,
    )
    with pytest.raises(CloudError, match="temporarily unavailable"):
        fast_client(simulator, policy).describe_instance_type_configs(REGION)
    assert sum(clock.sleeps[2:]) <= 0.5


def test_it_sends_a_permanent_error_once(
    simulator_without_rate_limits: SimulatorServer,
) -> None:
    simulator = simulator_without_rate_limits
    client = fast_client(simulator)
    with pytest.raises(CloudError) as raised:
        client.call("cvm", "DescribeInstances", {"Limit": 1000}, region="ap-guangzhou")
    assert raised.value.kind == ErrorKind.INVALID
    assert "Tencent Cloud rejected DescribeInstances" in str(raised.value)
    assert simulator.request_log.count() == 1


def test_it_slows_the_shared_limiter_when_throttled(
    simulator_without_rate_limits: SimulatorServer,
) -> None:
    simulator = simulator_without_rate_limits
    simulator.faults.configure(throttle_every=1)
    client = fast_client(simulator, RetryPolicy(base_delay_seconds=0.001))
    key = f"tencent:{client.config.rate_key}:{ACTION}"
    assert ratelimit.shared_limiter().factor(key) == 1.0
    client.describe_instance_type_configs(REGION)
    # Two throttled answers within a second: every user of the key is down to about 0.8 of its
    # limit, once (the rate limit of this action was switched off above, so it is the only
    # slow-down): the second answer was counted in the same window as the first.
    assert simulator.request_log.count(outcome="RequestLimitExceeded") == 2
    # (It has been recovering since, by 2**(seconds since the cut): a tenth of a second here.)
    assert 0.75 < ratelimit.shared_limiter().factor(key) < 1.0


# --- the limiter's shared back-off ------------------------------------------------------------


def test_it_slows_a_throttled_key_down_and_recovers() -> None:
    clock = FakeClock()
    limiter = ratelimit.LocalLimiter(
        ratelimit.Backoff(slowdown=0.5, recovery_seconds=1.0), clock=clock
    )
    assert limiter.try_acquire("k", 10) == 0
    clock.sleep(0.1)
    assert limiter.try_acquire("k", 10) == 0  # 10/s: 0.1 s apart
    assert limiter.throttled("k") == 0.5
    assert limiter.throttled("other") == 0.5
    assert limiter.factor("k") == 0.5
    clock.sleep(0.05)
    # About 5/s now (recovering since the cut 0.05 s ago): the next slot is about 0.19 s after
    # the last one instead of 0.1 s, and a grant may come half a step before it.
    step = 1 / (10 * 0.5 * 2**0.05)
    assert limiter.try_acquire("k", 10) == pytest.approx(
        step * (1 - ratelimit.SPACING_TOLERANCE) - 0.05
    )
    clock.sleep(0.5)
    assert limiter.factor("k") == pytest.approx(0.5 * 2**0.55)
    clock.sleep(0.5)
    assert limiter.factor("k") == 1.0
    assert limiter.try_acquire("unthrottled", 10) == 0


def test_it_cuts_a_throttled_key_at_most_once_per_window() -> None:
    clock = FakeClock()
    limiter = ratelimit.LocalLimiter(
        ratelimit.Backoff(slowdown=0.5, recovery_seconds=10.0), clock=clock
    )
    assert limiter.throttled("k") == 0.5
    # A burst of throttled answers within the window of the cut: counted at the old rate.
    for _ in range(20):
        clock.sleep(0.04)
        limiter.throttled("k")
    assert limiter.factor("k") == pytest.approx(0.5 * 2 ** (0.8 / 10))
    # Throttled again in every later window: the cuts compound (slow recovery here) down to
    # the minimum, where it still makes progress.
    for _ in range(10):
        clock.sleep(1.0)
        limiter.throttled("k")
    assert limiter.factor("k") == ratelimit.MIN_FACTOR


def test_it_recovers_its_full_rate_while_throttles_go_on_whatever_the_rate() -> None:
    clock = FakeClock()
    limiter = ratelimit.LocalLimiter(
        ratelimit.Backoff(slowdown=0.8, recovery_seconds=1.0), clock=clock
    )
    assert limiter.throttled("k") == 0.8
    # A throttled answer every 0.3 s for a minute, as on a bad day: the cut did not stop them,
    # so the rate is not their cause; the key is back to its full rate after a third of a
    # second and stays there (each later window used to cut it again).
    factors = []
    for _ in range(200):
        clock.sleep(0.3)
        limiter.throttled("k")
        factors.append(limiter.factor("k"))
    assert factors[1:] == [1.0] * 199
    # A window without a throttle ends the episode: the next throttle cuts again.
    clock.sleep(1.0)
    assert limiter.throttled("k") == 0.8


def test_it_spaces_a_slowed_key_by_its_fractional_rate() -> None:
    clock = FakeClock()
    limiter = ratelimit.LocalLimiter(
        ratelimit.Backoff(slowdown=0.8, recovery_seconds=1000.0), clock=clock
    )
    limiter.throttled("bills")
    assert limiter.try_acquire("bills", 4) == 0
    # 4/s cut to 3.2/s: the next slot 1/3.2 s later (not 1/3 s, as a whole-number limit would).
    assert limiter.try_acquire("bills", 4) == pytest.approx(
        (1 - ratelimit.SPACING_TOLERANCE) / 3.2, rel=1e-3
    )


def test_it_keeps_grants_on_their_grid_when_a_waiting_thread_wakes_late() -> None:
    clock = FakeClock()
    limiter = ratelimit.LocalLimiter(ratelimit.Backoff(), clock=clock)
    assert limiter.try_acquire("k", 10) == 0  # the slot at 0 s (10/s: a step of 0.1 s)
    clock.sleep(0.04)
    # Never closer than half a step to the last grant.
    assert limiter.try_acquire("k", 10) == pytest.approx(0.01)
    clock.sleep(0.09)
    assert limiter.try_acquire("k", 10) == 0  # 0.03 s late for its slot at 0.1 s
    clock.sleep(0.07)
    # The next slot is at 0.2 s (after the slot, not after the late grant at 0.13 s): granted.
    assert limiter.try_acquire("k", 10) == 0
    # Ten grants a second at most, whatever the lateness: the next slots are 0.3, 0.4, ...
    granted = 3
    while clock.now < 1000.0 + 0.999:
        wait = limiter.try_acquire("k", 10)
        if wait == 0:
            granted += 1
            clock.sleep(0.031)  # every waiting thread wakes late
        else:
            clock.sleep(wait)
    assert granted == 10


@pytest.mark.skipif(not settings.REDIS_URL, reason="the shared limiter is in Redis only with it")
def test_it_shares_the_back_off_between_processes_through_redis() -> None:
    key = f"test:{uuid.uuid4().hex}"
    backoff = ratelimit.Backoff(slowdown=0.5, recovery_seconds=1.0)
    # Two limiters as two worker processes would have, on the same Redis.
    one = ratelimit.RedisLimiter(settings.REDIS_URL, backoff)
    other = ratelimit.RedisLimiter(settings.REDIS_URL, backoff)
    assert other.try_acquire(key, 10) == 0
    assert one.throttled(key) == 0.5
    assert 0.5 <= other.factor(key) < 0.75
    # At 5/s instead of 10/s, the next slot is 0.2 s after the last instead of 0.1 s, and a
    # grant may come half a step early: a wait of most of 0.1 s instead of most of 0.05 s.
    assert other.try_acquire(key, 10) > 0.05
    time.sleep(1.2)  # 0.5 doubles back to 1 within one recovery period
    assert other.factor(key) == 1.0
    # Cut again; a second throttled answer within the window does not cut further.
    assert one.throttled(key) == 0.5
    assert 0.5 <= float(other.throttled(key)) < 0.75


def test_it_keeps_a_calls_waits_short_while_other_requests_of_the_key_succeed(
    simulator_without_rate_limits: SimulatorServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    simulator = simulator_without_rate_limits
    # Every other request fails, and this call's attempts all land on the failing ones: its
    # neighbours' requests (another thread's, sent while it waits) take the others.
    simulator.faults.configure(internal_error_every=1, max_in_a_row=1)
    monkeypatch.setattr("random.uniform", lambda low, high: high)  # every wait at its ceiling
    clock = FakeClock()
    neighbours: list[object] = []

    def sleep_while_a_neighbour_succeeds(seconds: float) -> None:
        clock.sleep(seconds)
        neighbours.append(client.describe_instance_type_configs(REGION))

    policy = RetryPolicy(
        budget_seconds=5.0,
        base_delay_seconds=1.0,
        max_delay_seconds=60.0,
        clock=clock,
        sleep=sleep_while_a_neighbour_succeeds,
    )
    client = fast_client(simulator, policy)
    with pytest.raises(CloudError, match="temporarily unavailable"):
        client.describe_instance_type_configs(REGION)
    # The API answered every other request: each retry waited the base delay, not 1, 2, 4 s.
    assert clock.sleeps == [1.0] * 5
    assert len(neighbours) == 5
    assert simulator.request_log.count(ACTION, outcome="InternalError") == 6

    # An outage (every request fails, nobody succeeds in between): the waits grow.
    simulator.faults.configure(internal_error_every=1, max_in_a_row=10**6)
    clock.sleeps.clear()
    policy.budget_seconds, policy.sleep = 10.0, clock.sleep
    with pytest.raises(CloudError, match="temporarily unavailable"):
        client.describe_instance_type_configs(REGION)
    assert clock.sleeps == [1.0, 2.0, 4.0]


# --- the line of this process's threads at the limiter ----------------------------------------


class GateLimiter:
    """A limiter that grants one request each time the test opens the gate, and records who
    asked in which order."""

    def __init__(self) -> None:
        self.gate = threading.Semaphore(0)
        self.asked: list[str] = []
        self.first_asked = threading.Event()

    def try_acquire(self, key: str, limit: int) -> float:
        self.asked.append(threading.current_thread().name)
        self.first_asked.set()
        self.gate.acquire()
        return 0.0

    def throttled(self, key: str) -> float:
        return 1.0

    def factor(self, key: str) -> float:
        return 1.0


def test_it_serves_the_oldest_call_first_among_the_threads_waiting_for_a_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limiter = GateLimiter()
    monkeypatch.setattr(ratelimit, "shared_limiter", lambda: limiter)
    key = f"test:{uuid.uuid4().hex}"

    def call(priority: float) -> threading.Thread:
        thread = threading.Thread(
            target=ratelimit.acquire, args=(key, 10), kwargs={"priority": priority}
        )
        thread.name = f"started at {priority:g}"
        thread.start()
        return thread

    # One call has its turn and waits for a slot; three more queue up behind it: a retry of a
    # call that started at 1 and two calls that started later.
    threads = [call(5.0)]
    assert limiter.first_asked.wait(10)
    threads += [call(3.0), call(1.0), call(4.0)]
    for _ in range(10_000):  # (only waits for the threads to queue; nothing is timed)
        if len(ratelimit.waiting_line(key)) == 3:
            break
        time.sleep(0.001)
    assert len(ratelimit.waiting_line(key)) == 3
    for _ in threads:
        limiter.gate.release()
    for thread in threads:
        thread.join(10)
    # Only the thread whose turn it is asks the limiter; the turns go oldest call first.
    assert limiter.asked == [f"started at {p}" for p in ("5", "1", "3", "4")]
    assert len(ratelimit.waiting_line(key)) == 0
