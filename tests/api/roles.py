"""The roles check: every write of the OpenAPI schema, as a viewer and with a read-only API key.

Each write operation (POST, PUT, PATCH, DELETE) of every schema path is sent by a member of
Acme with the ``viewer`` role and by a read-only API key of Acme, against Acme's own objects
(so a 404 cannot hide a missing role check). Each must answer 403, never 2xx nor 404, and
leave every row of Acme as it was. Paths are found in the schema; an organization-scoped
path takes its object from ``PROBES`` (tests/api/cross_organization.py), and a write that is
not an organization-scoped change is listed in ``NOT_ORGANIZATION_WRITES`` with its reason.
A write in neither is itself a violation, so a new endpoint cannot slip by unchecked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rest_framework.test import APIClient

from tests.api.cross_organization import PROBES, Probe, Violation, schema_operations
from tests.api.globex_world import GlobexWorld, globex_snapshot

WRITE_METHODS = ("post", "put", "patch", "delete")
VIEWER, READ_KEY = "viewer", "read-only key"
EVERYONE = frozenset({VIEWER, READ_KEY})


@dataclass(frozen=True)
class Exemption:
    """Who may make this write without an editor role, and why."""

    principals: frozenset[str]
    reason: str


NOT_ORGANIZATION_WRITES: dict[tuple[str, str], Exemption] = {
    ("post", "/api/v1/auth/login"): Exemption(EVERYONE, "signs a person in; no data changes"),
    ("post", "/api/v1/auth/logout"): Exemption(EVERYONE, "ends the caller's own session"),
    ("post", "/api/v1/auth/signup"): Exemption(
        EVERYONE, "creates a new person and a new organization of their own"
    ),
    ("post", "/api/v1/auth/verify-email"): Exemption(
        EVERYONE, "addressed by a signed token naming one person"
    ),
    ("post", "/api/v1/auth/verify-email/resend"): Exemption(
        EVERYONE, "sends a link to an address; changes no organization"
    ),
    ("post", "/api/v1/auth/set-password"): Exemption(
        EVERYONE, "addressed by a one-time signed link naming one person"
    ),
    ("post", "/api/v1/invitations/accept"): Exemption(
        EVERYONE, "addressed by the invitation's secret token; joins the invited person"
    ),
    ("post", "/api/v1/me/organization"): Exemption(
        frozenset({VIEWER}),
        "switches the organization the viewer's own session shows (a key has no session: 403)",
    ),
    ("post", "/api/v1/organizations"): Exemption(
        frozenset({VIEWER}),
        "any signed-in person may create an organization of their own (a key may not: 403)",
    ),
    ("patch", "/api/v1/me"): Exemption(
        frozenset({VIEWER}), "sets the caller's own language (a key has no person: 403)"
    ),
    ("post", "/api/v1/digests/unsubscribe"): Exemption(
        EVERYONE, "addressed by a signed token naming one subscription (RFC 8058 one-click)"
    ),
    # Digests go to the subscriber's own mailbox: every member may subscribe themselves; a
    # subscription is its person's alone (another person's, like the world's, is a 404).
    ("post", "/api/v1/digest-subscriptions"): Exemption(
        frozenset({VIEWER}), "subscribes the caller's own mailbox to a digest"
    ),
    ("put", "/api/v1/digest-subscriptions/{id}"): Exemption(
        frozenset({VIEWER}), "only the subscriber's own subscription: another's is a 404"
    ),
    ("patch", "/api/v1/digest-subscriptions/{id}"): Exemption(
        frozenset({VIEWER}), "only the subscriber's own subscription: another's is a 404"
    ),
    ("delete", "/api/v1/digest-subscriptions/{id}"): Exemption(
        frozenset({VIEWER}), "only the subscriber's own subscription: another's is a 404"
    ),
}


# Writes that touch no organization's rows (so the cross-organization test has no probe for
# them) but still need an editor's (or a manager's) role.
ROLE_PROBES: dict[str, Probe] = {
    "/api/v1/cloud-accounts/test-connection": Probe(
        "organization",
        payload=lambda world: {
            "secret_id": "AKIDviewer",
            "secret_key": "viewer-secret",
            "regions": ["ap-shanghai"],
        },
    ),
}
NO_ENTRY = "no entry: add a probe to PROBES (or ROLE_PROBES) or a reason to NOT_ORGANIZATION_WRITES"


def _probe(path: str) -> Probe | None:
    return PROBES.get(path) or ROLE_PROBES.get(path)


def _snapshot(world: GlobexWorld) -> dict:
    """Every row of the organization, but when an API key was last used (the read-only key's
    own requests bump it, and that is bookkeeping, not a change the key made)."""
    snapshot = globex_snapshot(world)
    snapshot["accounts.ApiKey"] = [
        {k: v for k, v in row.items() if k != "last_used_at"} for row in snapshot["accounts.ApiKey"]
    ]
    return snapshot


def write_operations(operations: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    return sorted(
        (method, path)
        for path, methods in operations.items()
        for method in methods
        if method in WRITE_METHODS
    )


def coverage_violations(operations: Mapping[str, list[str]]) -> list[Violation]:
    """Writes with neither a probe (for the object to try) nor an exemption."""
    return [
        Violation(method, path, NO_ENTRY)
        for method, path in write_operations(operations)
        if _probe(path) is None and (method, path) not in NOT_ORGANIZATION_WRITES
    ]


def role_violations(
    clients: Mapping[str, APIClient],
    world: GlobexWorld,
    operations: Mapping[str, list[str]] | None = None,
) -> list[Violation]:
    """Every write that ``clients`` (principal -> client) could make without an editor role.

    ``world`` is the clients' own organization's data (built like Globex's world).
    """
    operations = schema_operations() if operations is None else operations
    violations = coverage_violations(operations)
    for method, path in write_operations(operations):
        exemption = NOT_ORGANIZATION_WRITES.get((method, path))
        probe = _probe(path)
        if probe is None:
            continue
        url = path.replace("{id}", str(world[probe.target].pk))
        for principal, client in clients.items():
            if exemption and principal in exemption.principals:
                continue
            before = _snapshot(world)
            response = getattr(client, method)(url, probe.payload(world), format="json")
            if response.status_code != 403:
                violations.append(
                    Violation(method, path, f"as {principal}: {response.status_code}, not 403")
                )
            if _snapshot(world) != before:
                violations.append(Violation(method, path, f"as {principal}: changed data"))
    return violations


# Reads that only owners and admins may make (the audit log): every other role and every API
# key is answered 404, as if the route did not exist, for the list and for an object alike.
MANAGER_ONLY_READS = ("/api/v1/audit-log", "/api/v1/audit-log/{id}")


def manager_only_read_violations(
    clients: Mapping[str, APIClient], world: GlobexWorld
) -> list[Violation]:
    """Every manager-only read that ``clients`` (none of them an owner or admin) could make."""
    violations = []
    for path in MANAGER_ONLY_READS:
        url = path.replace("{id}", str(world[PROBES[path].target].pk))
        for principal, client in clients.items():
            response = client.get(url)
            if response.status_code != 404:
                violations.append(
                    Violation("get", path, f"as {principal}: {response.status_code}, not 404")
                )
    return violations
