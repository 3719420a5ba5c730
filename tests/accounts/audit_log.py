"""Reading the audit log as its readers do: through ``GET /api/v1/audit-log``."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient


def audit_entries(client: APIClient, **params: Any) -> list[dict[str, Any]]:
    """The entries a reader sees (newest first), e.g. ``audit_entries(c, action="budget.created")``."""
    response = client.get("/api/v1/audit-log", {"page_size": 500, **params})
    assert response.status_code == 200, response.content
    return response.json()["results"]


def one_entry(client: APIClient, action: str) -> dict[str, Any]:
    """The one entry of ``action`` (fails when there is none, or more than one)."""
    found = audit_entries(client, action=action)
    assert len(found) == 1, [entry["action"] for entry in found]
    return found[0]
