"""The operations log: StopInstances / StartInstances as the world remembers them.

The fleet's instances are frozen and compute their seeded life from a pattern. Once an
instance has been stopped or started through the API, its timeline here decides its state from
that moment on; the seeded history before the first operation stays exactly what it was.

Each accepted operation appends two transitions at once: the in-between state at the request
(STOPPING or STARTING, LatestOperationState OPERATING) and the end state a configurable number
of seconds later on the simulation clock (STOPPED or RUNNING, SUCCESS; or STOPPED, FAILED for a
start that could not get its capacity back). The state at a moment is therefore a pure function
of the timeline and the clock, so a frozen clock freezes an operation half-way, and every reader
(DescribeInstances, GetMonitorData, DescribeBillDetail, the expected figures) sees the same
thing.

Billing and metrics treat STOPPING and STARTING as running: the machine is powered and holds
its resources until it is STOPPED (so it is billed, and it reports metrics, until then). Only
STOPPED stops the runtime charge, and only with STOP_CHARGING.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

RUNNING = "RUNNING"
STOPPING = "STOPPING"
STOPPED = "STOPPED"
STARTING = "STARTING"

KEEP_CHARGING = "KEEP_CHARGING"
STOP_CHARGING = "STOP_CHARGING"
NOT_APPLICABLE = "NOT_APPLICABLE"

STOP_INSTANCES = "StopInstances"
START_INSTANCES = "StartInstances"
WRITE_ACTIONS = frozenset({STOP_INSTANCES, START_INSTANCES})

OPERATING = "OPERATING"
SUCCESS = "SUCCESS"
FAILED = "FAILED"

DEFAULT_STOP_SECONDS = 30
DEFAULT_START_SECONDS = 30


@dataclass(frozen=True)
class Transition:
    """From ``at`` (unix seconds) on, the instance is in ``state`` until the next transition."""

    at: int
    state: str
    stopped_mode: str  # the StoppedMode of the stop that led here; NOT_APPLICABLE otherwise
    operation: str  # StopInstances | StartInstances
    operation_state: str  # OPERATING | SUCCESS | FAILED
    request_id: str

    @property
    def powered(self) -> bool:
        """Running for metrics and billing: everything but STOPPED."""
        return self.state != STOPPED

    @property
    def runtime_billed(self) -> bool:
        """Whether the runtime parts (compute, GPU) are charged in this state."""
        return self.state != STOPPED or self.stopped_mode != STOP_CHARGING


class Operations:
    """Per-instance timelines of operations, plus the capacity knobs (thread-safe).

    ``sold_out_zones``: StartInstances of an instance stopped with STOP_CHARGING in one of
    these zones is refused with ``ResourceInsufficient.AvailabilityZoneSoldOut`` (its CPU,
    memory and GPU were released; an instance stopped with KEEP_CHARGING kept them).
    ``failing_start_zones``: such a start is accepted (STARTING, OPERATING) but ends back in
    STOPPED with LatestOperationState FAILED.
    """

    def __init__(self) -> None:
        self._timelines: dict[str, tuple[Transition, ...]] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str, int], None]] = []
        self.version = 0
        self.stop_seconds = DEFAULT_STOP_SECONDS
        self.start_seconds = DEFAULT_START_SECONDS
        self.sold_out_zones: frozenset[str] = frozenset()
        self.failing_start_zones: frozenset[str] = frozenset()

    def configure(
        self,
        *,
        stop_seconds: int | None = None,
        start_seconds: int | None = None,
        sold_out_zones: Iterable[str] | None = None,
        failing_start_zones: Iterable[str] | None = None,
    ) -> None:
        """Change the knobs given; the others keep their value (empty zones clear a knob)."""
        with self._lock:
            if stop_seconds is not None:
                self.stop_seconds = stop_seconds
            if start_seconds is not None:
                self.start_seconds = start_seconds
            if sold_out_zones is not None:
                self.sold_out_zones = frozenset(sold_out_zones)
            if failing_start_zones is not None:
                self.failing_start_zones = frozenset(failing_start_zones)

    def subscribe(self, listener: Callable[[str, int], None]) -> None:
        """Call ``listener(instance_id, from_moment)`` after every change of a timeline (the
        metric and bill caches forget what they computed from that moment on)."""
        self._listeners.append(listener)

    def timeline(self, instance_id: str) -> tuple[Transition, ...]:
        """The transitions of one instance, oldest first (empty when never operated)."""
        with self._lock:
            return self._timelines.get(instance_id, ())

    def first_at(self, instance_id: str) -> int | None:
        """When the first operation of the instance happened, None if there was none."""
        timeline = self.timeline(instance_id)
        return timeline[0].at if timeline else None

    def latest(self, instance_id: str, moment: int) -> Transition | None:
        """The transition in force at ``moment``, None before the first operation."""
        found = None
        for transition in self.timeline(instance_id):
            if transition.at > moment:
                break
            found = transition
        return found

    def record(self, changes: dict[str, list[Transition]]) -> None:
        """Append transitions for several instances at once (one request is atomic). A
        transition scheduled after the new ones (the clock went back) is dropped."""
        if not changes:
            return
        with self._lock:
            for instance_id, transitions in changes.items():
                first = transitions[0].at
                kept = tuple(t for t in self._timelines.get(instance_id, ()) if t.at < first)
                self._timelines[instance_id] = kept + tuple(transitions)
            self.version += 1
        for instance_id, transitions in changes.items():
            for listener in self._listeners:
                listener(instance_id, transitions[0].at)

    def clear(self) -> None:
        """Forget every operation (the seeded history is back) and reset the knobs."""
        with self._lock:
            operated = list(self._timelines)
            self._timelines.clear()
            self.version += 1
            self.stop_seconds = DEFAULT_STOP_SECONDS
            self.start_seconds = DEFAULT_START_SECONDS
            self.sold_out_zones = frozenset()
            self.failing_start_zones = frozenset()
        for instance_id in operated:
            for listener in self._listeners:
                listener(instance_id, 0)


def intervals_where(
    timeline: tuple[Transition, ...],
    start: int,
    end: int,
    keep: Callable[[Transition], bool],
) -> list[tuple[int, int]]:
    """Half-open intervals inside [start, end) covered by transitions for which ``keep`` holds
    (a transition lasts until the next one; the last one lasts for ever)."""
    out: list[tuple[int, int]] = []
    for number, transition in enumerate(timeline):
        until = timeline[number + 1].at if number + 1 < len(timeline) else end
        a, b = max(start, transition.at), min(end, until)
        if a < b and keep(transition):
            if out and out[-1][1] == a:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
    return out


def merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, touching intervals joined."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(intervals):
        if out and out[-1][1] >= a:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
