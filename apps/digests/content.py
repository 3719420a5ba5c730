"""A digest's figures and charts for one scope and period, computed once and shared briefly.

The figures depend on the organization, the projects in scope, the period and the timezone,
never on the reader: a thousand subscribers of the same organization at 09:00 would otherwise
run the same queries and draw the same charts a thousand times. They are kept in the cache
(Redis in production, shared by every worker) for ``DIGEST_FIGURES_CACHE_SECONDS`` (default
10 minutes), long enough for one morning's batch and short enough that a digest never shows
figures older than that. The preview endpoint bypasses the cache.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache

from apps.accounts.models import Organization
from apps.digests import charts, selectors
from apps.digests.budgets import budget_lines
from apps.digests.cachekeys import figures_key

# How long others wait for the digest figures one worker is computing.
COMPUTE_LOCK_SECONDS = 120


@dataclasses.dataclass
class Stopwatch:
    """Milliseconds spent per step (queries, charts, templates, smtp) of one digest."""

    ms: dict[str, float] = dataclasses.field(default_factory=dict)

    @contextmanager
    def measure(self, step: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            self.ms[step] = round(self.ms.get(step, 0.0) + elapsed, 2)


@dataclasses.dataclass(frozen=True)
class DigestContent:
    figures: selectors.DigestFigures
    spend_png: bytes
    heatmap_png: bytes


def _cache_key(
    organization: Organization,
    project_ids: Sequence[int] | None,
    periods: Sequence[tuple[dt.datetime, dt.datetime]],
    tz_name: str,
) -> str:
    scope = "all" if project_ids is None else ",".join(str(pk) for pk in sorted(project_ids))
    spans = ";".join(f"{a.isoformat()}/{b.isoformat()}" for a, b in periods)
    digest = hashlib.sha256(f"{scope}|{spans}|{tz_name}".encode()).hexdigest()[:32]
    return figures_key(organization, "figures", digest)


def digest_content(
    *,
    organization: Organization,
    project_ids: Sequence[int] | None,
    periods: Sequence[tuple[dt.datetime, dt.datetime]],
    tz_name: str,
    stopwatch: Stopwatch,
    use_cache: bool = True,
) -> DigestContent:
    """The figures and charts of the digest of ``periods[0]`` (cached, see the module)."""
    key = _cache_key(organization, project_ids, periods, tz_name)
    if use_cache:
        with stopwatch.measure("cache"):
            cached = _cached_or_wait(key)
        if cached is not None:
            return cached
    try:
        content = _compute(organization, project_ids, periods, tz_name, stopwatch, use_cache)
        if use_cache:
            cache.set(key, content, timeout=settings.DIGEST_FIGURES_CACHE_SECONDS)
    finally:
        if use_cache:
            cache.delete(f"{key}:computing")
    return content


def _compute(
    organization: Organization,
    project_ids: Sequence[int] | None,
    periods: Sequence[tuple[dt.datetime, dt.datetime]],
    tz_name: str,
    stopwatch: Stopwatch,
    use_cache: bool,
) -> DigestContent:
    with stopwatch.measure("queries"):
        figures = selectors.digest_figures(
            organization=organization,
            project_ids=project_ids,
            periods=periods,
            tz_name=tz_name,
            use_cache=use_cache,
        )
        figures = dataclasses.replace(
            figures,
            budgets=budget_lines(
                organization=organization,
                period_end=periods[0][1],
                project_ids=project_ids,
                use_cache=use_cache,
            ),
        )
    with stopwatch.measure("charts"):
        return DigestContent(
            figures=figures,
            spend_png=charts.spend_bars(figures.daily_spend, currency=figures.currency),
            heatmap_png=charts.utilization_heatmap(figures.heatmap_days, figures.heatmap),
        )


def _cached_or_wait(key: str) -> DigestContent | None:
    """The cached content, or None when this caller should compute it.

    The first caller takes a short lock and computes; the others (another worker at 09:00
    sharp) wait for its result instead of running the same queries at the same time. A
    lock holder that dies only delays the others by the lock's lifetime.
    """
    deadline = time.monotonic() + COMPUTE_LOCK_SECONDS
    while True:
        cached = cache.get(key)
        if isinstance(cached, DigestContent):
            return cached
        if cache.add(f"{key}:computing", 1, timeout=COMPUTE_LOCK_SECONDS):
            return None
        if time.monotonic() > deadline:
            return None
        time.sleep(0.1)
