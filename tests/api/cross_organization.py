"""The cross-organization check: every route of the OpenAPI schema, tried against Globex's data.

``PROBES`` maps each organization-scoped path of the schema to the Globex object it is tried
with; ``NOT_ORGANIZATION_SCOPED`` lists, with a reason, the paths that hold no organization's
data. A schema path in neither is itself a violation, so a new endpoint cannot slip by untested.

For every operation of every probed path, as a member of another organization:

- a path with ``{id}`` (retrieve, update, delete, actions) gets Globex's object id and must
  answer 404: never 403 (that would confirm the object exists), never 2xx;
- a GET without ``{id}`` (a list, a summary, /me) must answer 200 without Globex's ids;
- a write without ``{id}`` (create, settings) must not land in Globex;
- and after every request, every row Globex owns is exactly as before.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import zoneinfo
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import models
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.api.globex_world import DAY, GlobexWorld, globex_snapshot

# The caller's organization (tests/conftest.py's acme).
ACME_TZ = zoneinfo.ZoneInfo("Asia/Shanghai")

HTTP_METHODS = ("get", "put", "patch", "post", "delete")


def listed_ids(body: Any) -> set[Hashable]:
    """The ids of a paginated list's items."""
    return {item["id"] for item in body["results"]}


def primary_key(obj: models.Model) -> Hashable:
    return obj.pk


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def rename_payload(world: GlobexWorld) -> dict[str, Any]:
    """An update that would visibly change Globex's object if it reached it."""
    return {"name": "pwned"}


def takeover_payload(world: GlobexWorld) -> dict[str, Any]:
    """A create that would put the new object into Globex if the API took an organization."""
    return {"organization": world.organization.pk}


@dataclass(frozen=True)
class Probe:
    """How one schema path is tried against Globex's object ``target`` (a GlobexWorld key).

    ``exposed`` reads the identities a GET response shows and ``identify`` the identity of
    ``target``, so a list "leaks" when they meet. ``status`` is the answer a write without
    ``{id}`` must give (None: any answer, as long as Globex's data is unchanged).
    """

    target: str
    exposed: Callable[[Any], Iterable[Hashable]] = listed_ids
    identify: Callable[[models.Model], Hashable] = primary_key
    query: Mapping[str, str] = field(default_factory=dict)
    payload: Callable[[GlobexWorld], dict[str, Any]] = rename_payload
    status: int | None = None
    # How the GET response's body is read (a CSV export is streamed text, not JSON).
    body: Callable[[Any], Any] = lambda response: response.json()


def _with_takeover(**fields: Any) -> Callable[[GlobexWorld], dict[str, Any]]:
    return lambda world: {**takeover_payload(world), **fields}


def _me_organization_ids(body: Any) -> set[Hashable]:
    current = [body["organization"]] if body["organization"] else []
    return {organization["id"] for organization in [*current, *body["organizations"]]}


# Around the day Globex's analysis results are on, so an unfiltered answer would include them.
GLOBEX_PERIOD = {
    "start": (DAY - dt.timedelta(days=1)).isoformat(),
    "end": (DAY + dt.timedelta(days=2)).isoformat(),
}

PROBES: dict[str, Probe] = {
    "/api/v1/me": Probe(
        "organization",
        exposed=_me_organization_ids,
        payload=lambda world: {"language": "zh-hans"},
        status=200,
    ),
    "/api/v1/me/organization": Probe(
        "organization",
        payload=lambda world: {"organization": world.organization.slug},
        status=404,
    ),
    "/api/v1/organizations": Probe("organization", payload=_with_takeover(name="Second")),
    "/api/v1/organizations/{id}": Probe("organization"),
    "/api/v1/members": Probe("member"),
    "/api/v1/members/{id}": Probe("member", payload=lambda world: {"role": "viewer"}),
    "/api/v1/invitations": Probe(
        "invitation", payload=_with_takeover(email="new@acme.test", role="viewer")
    ),
    "/api/v1/invitations/{id}": Probe("invitation"),
    # The audit log is read-only: its writes are 405s, and Globex's entries never show.
    "/api/v1/audit-log": Probe("audit_entry"),
    "/api/v1/audit-log/{id}": Probe("audit_entry"),
    "/api/v1/api-keys": Probe("api_key", payload=_with_takeover(name="k", scope="read")),
    "/api/v1/api-keys/{id}": Probe("api_key"),
    "/api/v1/api-keys/{id}/revoke": Probe("api_key"),
    "/api/v1/cloud-accounts": Probe("cloud_account", payload=_with_takeover(name="pwned")),
    "/api/v1/cloud-accounts/{id}": Probe("cloud_account"),
    "/api/v1/cloud-accounts/{id}/sync": Probe("cloud_account"),
    "/api/v1/cloud-accounts/{id}/write-credential": Probe(
        "cloud_account",
        payload=lambda world: {"secret_id": "AKIDpwned", "secret_key": "pwned-key"},
    ),
    "/api/v1/projects": Probe("project"),
    "/api/v1/projects/{id}": Probe("project"),
    "/api/v1/project-tag-keys": Probe("project_tag_key", payload=_with_takeover(key="owner")),
    "/api/v1/project-tag-keys/{id}": Probe("project_tag_key"),
    "/api/v1/instances": Probe("instance"),
    "/api/v1/instances/{id}": Probe("instance"),
    "/api/v1/instances/{id}/phases": Probe("instance", query=GLOBEX_PERIOD),
    "/api/v1/instances/{id}/profile": Probe("instance"),
    # Grouped by project, so Globex's instance would show up as its project's id.
    "/api/v1/analysis/summary": Probe(
        "project",
        exposed=lambda body: {group["project_id"] for group in body["groups"]},
        query={**GLOBEX_PERIOD, "group_by": "project"},
    ),
    # One settings row per organization, without an id: Globex's overrides must not show.
    "/api/v1/analysis/settings": Probe(
        "analysis_settings",
        exposed=lambda body: {canonical_json(body["thresholds"])},
        identify=lambda settings: canonical_json(settings.thresholds),  # type: ignore[attr-defined]
        payload=lambda world: {"thresholds": {"idle_gpu_util_max_pct": 4.0}},
    ),
    "/api/v1/recommendations": Probe("recommendation"),
    "/api/v1/recommendations/{id}": Probe("recommendation"),
    "/api/v1/recommendations/{id}/actions": Probe(
        "recommendation", payload=lambda world: {"action": "dismiss", "reason": "pwned"}
    ),
    # Globex's automated schedule: its plan must not show, change, end or be created again
    # (holidays are a body both the create and the update take).
    "/api/v1/recommendations/{id}/automation": Probe(
        "automated_recommendation", payload=lambda world: {"skip_dates": ["2026-12-25"]}
    ),
    # Globex's stop of its instance must not show in the history.
    "/api/v1/automation/actions": Probe("automation_action"),
    # One switch per organization, without an id: Globex's (paused) must not show, nor be
    # turned off by another organization's PATCH.
    "/api/v1/automation/settings": Probe(
        "automation_settings",
        exposed=lambda body: {body["paused"]},
        identify=lambda settings: settings.paused,  # type: ignore[attr-defined]
        payload=lambda world: {"paused": False},
    ),
    # Totals by project: Globex's recommendation would show up as its project's id.
    "/api/v1/recommendations/totals": Probe(
        "project",
        exposed=lambda body: {total["key"] for total in body["by_project"]},
        identify=lambda project: str(project.pk),
    ),
    "/api/v1/recommendations/settings": Probe(
        "recommendation_settings",
        exposed=lambda body: {canonical_json(body["thresholds"])},
        identify=lambda settings: canonical_json(settings.thresholds),  # type: ignore[attr-defined]
        payload=lambda world: {"thresholds": {"idle_min_share": 0.5}},
    ),
    # A person's own subscriptions: Globex's (Bob's) must not show, change or preview.
    "/api/v1/digest-subscriptions": Probe(
        "digest_subscription",
        payload=lambda world: {"frequency": "daily", "projects": [world["project"].pk]},
    ),
    "/api/v1/digest-subscriptions/{id}": Probe(
        "digest_subscription", payload=lambda world: {"frequency": "daily"}
    ),
    "/api/v1/digest-subscriptions/{id}/preview": Probe("digest_subscription"),
    "/api/v1/holidays": Probe("holiday", payload=_with_takeover(date="2026-12-25", name="x")),
    "/api/v1/holidays/{id}": Probe("holiday", payload=lambda world: {"name": "pwned"}),
    "/api/v1/budgets": Probe(
        "budget", payload=_with_takeover(name="pwned", amount="1", project=None)
    ),
    "/api/v1/budgets/{id}": Probe("budget"),
    "/api/v1/alert-rules": Probe(
        "threshold_rule",
        payload=_with_takeover(name="pwned", metric="gpu_temp_c", comparison="above", threshold=1),
    ),
    "/api/v1/alert-rules/{id}": Probe("threshold_rule"),
    "/api/v1/alert-recipients": Probe("alert_recipient", payload=_with_takeover(role="viewer")),
    "/api/v1/alert-recipients/{id}": Probe("alert_recipient"),
    "/api/v1/alerts": Probe("alert_event"),
    "/api/v1/alerts/{id}": Probe("alert_event"),
    # One settings row per organization, without an id: Globex's webhook must not show.
    "/api/v1/alerts/settings": Probe(
        "alert_settings",
        exposed=lambda body: {body["webhook_url"]},
        identify=lambda settings: settings.webhook_url,  # type: ignore[attr-defined]
        payload=lambda world: {"anomaly_k": 9.0},
    ),
}


def _csv_column(name: str) -> Callable[[str], set[Hashable]]:
    return lambda text: {row[name] for row in csv.DictReader(io.StringIO(text))}


def _streamed_text(response: Any) -> str:
    return b"".join(response.streaming_content).decode()


def _provider_id(instance: models.Model) -> Hashable:
    return instance.provider_id  # type: ignore[attr-defined]


# The exports show Globex's bill line by its instance's provider id (ResourceId).
PROBES |= {
    "/api/v1/exports/costs.csv": Probe(
        "instance",
        exposed=_csv_column("instance_id"),
        identify=_provider_id,
        query=GLOBEX_PERIOD,
        body=_streamed_text,
    ),
    "/api/v1/exports/focus.csv": Probe(
        "instance",
        exposed=_csv_column("ResourceId"),
        identify=_provider_id,
        query=GLOBEX_PERIOD,
        body=_streamed_text,
    ),
    "/api/v1/exports/focus": Probe(
        "instance",
        exposed=lambda body: {row["ResourceId"] for row in body["results"]},
        identify=_provider_id,
        query=GLOBEX_PERIOD,
    ),
}

# The cost report grouped by instance: Globex's billed instance would show as its resource id.
PROBES["/api/v1/costs"] = Probe(
    "instance",
    exposed=lambda body: {key["value"] for group in body["groups"] for key in group["keys"]},
    identify=lambda instance: instance.provider_id,  # type: ignore[attr-defined]
    query={**GLOBEX_PERIOD, "group_by": "instance"},
)
# Usage per instance: Globex's instance would show as its id.
PROBES["/api/v1/utilization"] = Probe(
    "instance",
    exposed=lambda body: {group["key"] for group in body["groups"]},
    identify=lambda instance: str(instance.pk),
    query={**GLOBEX_PERIOD, "scope": "instance"},
)


def _acme_hour_of_week(rollup: models.Model) -> Hashable:
    local = rollup.hour_start.astimezone(ACME_TZ)  # type: ignore[attr-defined]
    return (local.weekday(), local.hour)


# The fleet's hour-of-week cells: Globex's rollup would fill the cell of its hour in Acme's
# timezone.
PROBES["/api/v1/utilization/hour-of-week"] = Probe(
    "instance_hour_rollup",
    exposed=lambda body: {(cell["weekday"], cell["hour"]) for cell in body["cells"]},
    identify=_acme_hour_of_week,
    query=GLOBEX_PERIOD,
)
PROBES["/api/v1/instances/{id}/timeseries"] = Probe("instance", query=GLOBEX_PERIOD)
# The usage tables: Globex's instance would be a row (by id), its project a row (by slug).
PROBES["/api/v1/usage/instances"] = Probe("instance", query=GLOBEX_PERIOD)
PROBES["/api/v1/usage/projects"] = Probe(
    "project",
    exposed=lambda body: {row["slug"] for row in body["results"]},
    identify=lambda project: project.slug,  # type: ignore[attr-defined]
    query=GLOBEX_PERIOD,
)

# Agent ingest takes ingest-scoped API keys only: a person (of any organization) is a 403, and
# Globex's instance never gets a sample (tests/metrics/agent covers an ingest key of another
# organization: a 404).
PROBES["/api/v1/ingest/gpu-samples"] = Probe(
    "instance",
    payload=lambda world: {
        "instance_id": world["instance"].provider_id,
        "samples": [{"index": 0, "sampled_at": f"{DAY.isoformat()}T00:00:00Z", "util_pct": 1}],
    },
    status=403,
)

NOT_ORGANIZATION_SCOPED: dict[str, str] = {
    "/api/v1/auth/csrf": "hands out a CSRF cookie; no organization's data",
    "/api/v1/auth/login": "signs a person in; answers with that person's own memberships",
    "/api/v1/auth/logout": "ends the caller's own session",
    "/api/v1/cloud-accounts/test-connection": (
        "calls Tencent Cloud with the credentials in the request and stores nothing; reads no "
        "organization's rows (tests/cloud/test_connection_test_api.py covers roles and storage)"
    ),
    "/api/v1/auth/signup": "creates a new person and a new organization; reads none",
    "/api/v1/auth/verify-email": (
        "addressed by a signed token naming one person; answers with that person's own memberships"
    ),
    "/api/v1/auth/set-password": (
        "addressed by a one-time signed link naming one person; answers with their memberships"
    ),
    "/api/v1/auth/verify-email/resend": "sends a link to an address; answers nothing about data",
    "/api/v1/digests/unsubscribe": (
        "addressed by a signed token naming one subscription, not by a session or organization "
        "(tests/digests/test_api.py covers forged and foreign tokens)"
    ),
    "/api/v1/invitations/accept": (
        "addressed by a secret token, not by an organization's id (tests/accounts covers it)"
    ),
}


@dataclass(frozen=True)
class Violation:
    method: str
    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}: {self.problem}"


def schema_operations() -> dict[str, list[str]]:
    """Path -> HTTP methods of every operation of the OpenAPI schema, generated in-process."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        path: [method for method in HTTP_METHODS if method in operations]
        for path, operations in schema["paths"].items()
    }


def coverage_violations(paths: Iterable[str]) -> list[Violation]:
    """Schema paths without a probe or reason, and probes or reasons for paths that are gone."""
    in_schema = set(paths)
    known = set(PROBES) | set(NOT_ORGANIZATION_SCOPED)
    return [
        Violation("*", path, "no Globex object to try this route with: add it to PROBES")
        for path in sorted(in_schema - known)
    ] + [
        Violation("*", path, "listed in PROBES or NOT_ORGANIZATION_SCOPED but not in the schema")
        for path in sorted(known - in_schema)
    ]


def _request(client: APIClient, method: str, url: str, probe: Probe, world: GlobexWorld) -> Any:
    if method == "get":
        return client.get(url, dict(probe.query))
    return getattr(client, method)(url, probe.payload(world), format="json")


def _judge(method: str, path: str, probe: Probe, target: models.Model, response: Any) -> str:
    """What is wrong with one answer, or an empty string."""
    status = response.status_code
    if "{id}" in path:
        return "" if status == 404 else f"answered {status} for Globex's object, not 404"
    if method != "get":
        if probe.status is not None and status != probe.status:
            return f"answered {status}, not {probe.status}"
        return ""
    if status != 200:
        return f"answered {status}, so it could not be checked for Globex's data"
    try:
        exposed = set(probe.exposed(probe.body(response)))
    except (KeyError, TypeError, ValueError) as error:
        return f"its response no longer has the shape this probe reads ({error!r})"
    leaked = exposed & {probe.identify(target)}
    return f"shows Globex's {probe.target} {sorted(map(str, leaked))}" if leaked else ""


def cross_organization_violations(
    client: APIClient, world: GlobexWorld, operations: Mapping[str, list[str]] | None = None
) -> list[Violation]:
    """Every way ``client`` (a member of another organization) reaches Globex's data.

    Deletes run last, so an unfiltered delete cannot hide what the other operations would show.
    """
    operations = schema_operations() if operations is None else operations
    violations = coverage_violations(operations)
    planned = sorted(
        (
            (path, method)
            for path, methods in operations.items()
            if path in PROBES
            for method in methods
        ),
        key=lambda item: (item[1] == "delete", item[0], item[1]),
    )
    for path, method in planned:
        probe = PROBES[path]
        target = world[probe.target]
        before = globex_snapshot(world)
        response = _request(client, method, path.replace("{id}", str(target.pk)), probe, world)
        problem = _judge(method, path, probe, target, response)
        if problem:
            violations.append(Violation(method, path, problem))
        if globex_snapshot(world) != before:
            violations.append(Violation(method, path, "changed Globex's data"))
    return violations
