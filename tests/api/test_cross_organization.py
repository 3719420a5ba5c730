"""No route of the API shows or changes another organization's data (see cross_organization.py).

Alice owns Acme; Bob owns Globex, which holds one row of every organization-scoped model.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import resolve
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Organization, User
from apps.cloud.models import CloudAccount, Instance, ProjectTagKey
from apps.core.models import OrganizationQuerySet
from tests.api.cross_organization import (
    PROBES,
    coverage_violations,
    cross_organization_violations,
    schema_operations,
)
from tests.api.globex_world import GlobexWorld, globex_world, organization_scoped_models

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(globex: Organization, bob: User) -> GlobexWorld:
    return globex_world(globex, bob)


def test_it_gives_globex_a_row_of_every_organization_scoped_model(world: GlobexWorld) -> None:
    missing = [
        model._meta.label
        for model in organization_scoped_models()
        if not model._default_manager.filter(organization=world.organization).exists()
    ]
    assert missing == []


def test_it_has_a_probe_or_a_reason_for_every_route_of_the_schema() -> None:
    assert [str(v) for v in coverage_violations(schema_operations())] == []


def test_it_reports_a_route_that_has_no_probe() -> None:
    operations = {**schema_operations(), "/api/v1/unprobed/{id}": ["get"]}
    assert [(v.path, v.problem[:20]) for v in coverage_violations(operations)] == [
        ("/api/v1/unprobed/{id}", "no Globex object to ")
    ]


def test_it_shows_and_changes_nothing_of_another_organization(
    alice_client: APIClient, world: GlobexWorld
) -> None:
    violations = cross_organization_violations(alice_client, world)
    assert [str(v) for v in violations] == []


def test_it_reports_exactly_the_routes_of_a_viewset_without_its_organization_filter(
    alice_client: APIClient, world: GlobexWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found through the URLs, wherever the viewsets' modules live.
    api_keys = resolve("/api/v1/api-keys").func.cls  # type: ignore[attr-defined]
    tag_keys = resolve("/api/v1/project-tag-keys").func.cls  # type: ignore[attr-defined]
    monkeypatch.setattr(api_keys, "get_queryset", lambda self: ApiKey.objects.order_by("pk"))
    monkeypatch.setattr(tag_keys, "get_queryset", lambda self: ProjectTagKey.objects.order_by("pk"))

    violations = cross_organization_violations(alice_client, world)

    assert {v.path for v in violations} == {
        "/api/v1/api-keys",
        "/api/v1/api-keys/{id}",
        "/api/v1/api-keys/{id}/revoke",
        "/api/v1/project-tag-keys",
        "/api/v1/project-tag-keys/{id}",
    }
    reported = {str(v) for v in violations}
    assert f"GET /api/v1/api-keys: shows Globex's api_key ['{world['api_key'].pk}']" in reported
    assert "GET /api/v1/api-keys/{id}: answered 200 for Globex's object, not 404" in reported
    assert "POST /api/v1/api-keys/{id}/revoke: changed Globex's data" in reported
    assert "DELETE /api/v1/project-tag-keys/{id}: changed Globex's data" in reported


def test_it_reports_every_route_that_reads_through_for_organization_when_it_stops_filtering(
    alice_client: APIClient, world: GlobexWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proves the probes of the non-model endpoints (phases, profile, summary) can fail too.

    Tenant data is read through ``OrganizationQuerySet.for_organization`` (apps/core/models.py);
    organizations, /me and the settings (one row per organization) are looked up by membership
    or their own key.
    """
    monkeypatch.setattr(OrganizationQuerySet, "for_organization", lambda self, organization: self)
    not_through_for_organization = {
        "/api/v1/me",
        "/api/v1/me/organization",
        "/api/v1/organizations",
        "/api/v1/organizations/{id}",
        "/api/v1/analysis/settings",
        "/api/v1/recommendations/settings",
        # A person's own digests: filtered by the person as well, so another organization's
        # (another person's) stay hidden even without the organization filter.
        "/api/v1/digest-subscriptions",
        "/api/v1/digest-subscriptions/{id}",
        "/api/v1/digest-subscriptions/{id}/preview",
        "/api/v1/alerts/settings",
        "/api/v1/automation/settings",
        # Ingest keys only: a person is refused before any lookup. An ingest key of another
        # organization is tests/metrics/test_agent_ingest.py's (a 404 through for_organization).
        "/api/v1/ingest/gpu-samples",
    }

    reported = {v.path for v in cross_organization_violations(alice_client, world)}

    assert reported >= set(PROBES) - not_through_for_organization


def test_it_tries_every_probe_against_an_object_globex_has(world: GlobexWorld) -> None:
    assert {probe.target for probe in PROBES.values()} <= set(world.objects)


def _scraped_labels(client: APIClient) -> list[dict[str, str]]:
    response = client.get("/metrics")
    assert response.status_code == 200, response.content
    return [
        dict(sample.labels)
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    ]


def test_its_metrics_scrape_never_shows_another_organizations_series(
    acme: Organization,
    world: GlobexWorld,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
) -> None:
    """/metrics (Prometheus' scrape, by API key) is a plain APIView left out of the schema, so
    the generated probes above never reach it: probed here by hand, on ids and labels."""
    account = CloudAccount.objects.create(
        organization=acme, name="Acme Tencent", secret_id="AKIDacme", secret_key_encrypted="x",
        regions=["ap-shanghai"],
    )  # fmt: skip
    Instance.objects.create(
        organization=acme, account=account, provider_id="ins-acme01", name="acme-train",
        region="ap-shanghai", instance_type="GN7.2XLARGE32", gpu_model="T4", gpu_count=1,
    )  # fmt: skip
    globex_instance = world["instance"]
    globex_values = {
        globex_instance.provider_id,
        globex_instance.name,
        world["project"].name,
        world["project"].slug,
        world["budget"].name,
    }

    # Globex's own key sees its series: the check on Acme's scrape below can fail.
    globex_labels = _scraped_labels(key_client(world.organization)[0])
    assert globex_instance.provider_id in {ls.get("instance_id") for ls in globex_labels}

    acme_labels = _scraped_labels(key_client(acme)[0])
    assert {ls["instance_id"] for ls in acme_labels if "instance_id" in ls} == {"ins-acme01"}
    assert [ls for ls in acme_labels if globex_values & set(ls.values())] == []
