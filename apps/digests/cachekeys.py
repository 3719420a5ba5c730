"""Cache keys of the figures digests share, per organization, with a generation to drop them.

Keys carry the organization's creation time (a database rebuilt from scratch reuses primary
keys and must not find the figures of the organization that had the key before) and a
generation number: ``figures_cache_invalidate`` moves to a new generation, so every figure
cached for the organization is left to expire unread (after fresh bills, say).
"""

from __future__ import annotations

from django.core.cache import cache

from apps.accounts.models import Organization


def _generation_key(organization: Organization) -> str:
    return f"digests:generation:{organization.pk}:{organization.created_at.timestamp()}"


def figures_key(organization: Organization, kind: str, detail: str) -> str:
    generation = cache.get(_generation_key(organization), 0)
    return (
        f"digests:{kind}:{organization.pk}:{organization.created_at.timestamp()}:"
        f"g{generation}:{detail}"
    )


def figures_cache_invalidate(organization: Organization) -> None:
    key = _generation_key(organization)
    cache.add(key, 0, timeout=None)
    cache.incr(key)
