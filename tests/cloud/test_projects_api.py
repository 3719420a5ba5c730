"""Projects from tags: the tag keys that name projects, merging values, "Unallocated"."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization
from apps.billing.models import BillLine
from apps.cloud.models import CloudAccount, Instance, Project, ProjectTagKey
from apps.cloud.projects import (
    ProjectResolver,
    project_tag_key_create,
    project_tag_key_delete,
    project_update,
    projects_reassign,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet(acme: Organization) -> dict[str, Instance]:
    account = CloudAccount.objects.create(
        organization=acme,
        name="a",
        secret_id="AKID",
        secret_key_encrypted="x",
        regions=["ap-guangzhou"],
    )
    tags = {
        "vision-1": {"project": "vision", "team": "research"},
        "nlp-1": {"project": "nlp", "team": "research"},
        "team-only": {"team": "platform"},
        "untagged": {},
    }
    instances = {}
    for name, instance_tags in tags.items():
        instances[name] = Instance.objects.create(
            organization=acme,
            account=account,
            provider_id=f"ins-{name}",
            name=name,
            region="ap-guangzhou",
            instance_type="GN7.2XLARGE32",
            tags=instance_tags,
        )
        moment = datetime(2026, 11, 1, tzinfo=UTC)
        BillLine.objects.create(
            organization=acme,
            account=account,
            bill_id=f"b-{name}",
            component_code="c",
            item_code="i",
            month="2026-11",
            resource_id=f"ins-{name}",
            instance=instances[name],
            fee_begin_at=moment,
            fee_end_at=moment,
            list_cost=Decimal("1"),
            cost=Decimal("1"),
            tags={k: v for k, v in instance_tags.items() if k == "project"},
        )
    projects_reassign(acme)
    return instances


def project_of(instance: Instance) -> str | None:
    instance.refresh_from_db()
    return instance.project.name if instance.project else None


def test_it_names_projects_by_the_project_tag_and_leaves_the_rest_unallocated(
    fleet: dict[str, Instance],
) -> None:
    assert {name: project_of(i) for name, i in fleet.items()} == {
        "vision-1": "vision",
        "nlp-1": "nlp",
        "team-only": None,
        "untagged": None,
    }
    vision_project = BillLine.objects.get(bill_id="b-vision-1").project
    assert vision_project is not None
    assert vision_project.name == "vision"
    assert BillLine.objects.get(bill_id="b-untagged").project is None


def test_it_merges_tag_values_into_one_project(
    alice_client: APIClient, fleet: dict[str, Instance]
) -> None:
    nlp = Project.objects.get(name="nlp")
    response = alice_client.patch(
        f"/api/v1/projects/{nlp.pk}", {"name": "ML", "tag_values": ["nlp", "vision"]}, format="json"
    )
    assert response.status_code == 200, response.content
    assert project_of(fleet["vision-1"]) == "ML"
    assert project_of(fleet["nlp-1"]) == "ML"
    assert BillLine.objects.get(bill_id="b-vision-1").project_id == nlp.pk
    assert Project.objects.get(name="vision").tag_values == []


def test_it_uses_the_organizations_tag_keys_in_order(
    alice_client: APIClient, fleet: dict[str, Instance]
) -> None:
    response = alice_client.post(
        "/api/v1/project-tag-keys", {"key": "team", "position": 0}, format="json"
    )
    assert response.status_code == 201, response.content
    assert project_of(fleet["team-only"]) == "platform"
    assert project_of(fleet["vision-1"]) == "research"
    alice_client.post("/api/v1/project-tag-keys", {"key": "project", "position": -1}, format="json")
    assert (
        alice_client.post("/api/v1/project-tag-keys", {"key": "team"}, format="json").status_code
        == 400
    )


def test_it_rejects_bad_project_changes(
    alice_client: APIClient, fleet: dict[str, Instance]
) -> None:
    nlp = Project.objects.get(name="nlp")
    response = alice_client.patch(
        f"/api/v1/projects/{nlp.pk}", {"tag_values": "nlp"}, format="json"
    )
    assert response.status_code == 400
    assert "tag_values" in response.json()["error"]["fields"]
    response = alice_client.patch(f"/api/v1/projects/{nlp.pk}", {"tag_values": []}, format="json")
    assert response.status_code == 400
    assert project_of(fleet["nlp-1"]) == "nlp"


def test_it_keeps_projects_and_tag_rules_within_the_organization(
    bob_client: APIClient, charlie_client: APIClient, fleet: dict[str, Instance]
) -> None:
    nlp = Project.objects.get(name="nlp")
    assert bob_client.get(f"/api/v1/projects/{nlp.pk}").status_code == 404
    assert (
        bob_client.patch(f"/api/v1/projects/{nlp.pk}", {"name": "x"}, format="json").status_code
        == 404
    )
    assert bob_client.get("/api/v1/instances").json()["count"] == 0
    assert bob_client.get(f"/api/v1/instances/{fleet['nlp-1'].pk}").status_code == 404
    assert (
        charlie_client.patch(f"/api/v1/projects/{nlp.pk}", {"name": "x"}, format="json").status_code
        == 403
    )
    assert (
        charlie_client.post("/api/v1/project-tag-keys", {"key": "team"}, format="json").status_code
        == 403
    )
    assert charlie_client.get("/api/v1/instances").json()["count"] == 4


def test_it_resolves_unicode_tag_values_to_projects(acme: Organization) -> None:
    project = ProjectResolver(acme).resolve({"project": "项目A"})
    assert project is not None
    assert project.name == "项目A"
    assert project.slug == "项目a"


def test_it_pins_the_instance_list_query_count(
    alice_client: APIClient, fleet: dict[str, Instance], django_assert_max_num_queries
) -> None:
    with django_assert_max_num_queries(6):
        response = alice_client.get("/api/v1/instances?page_size=100")
    assert response.json()["count"] == 4


def fail_reassignment(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(organization: Organization) -> int:
        raise RuntimeError("re-allocation failed")

    monkeypatch.setattr("apps.cloud.projects.projects_reassign", fail)


def test_it_leaves_the_project_unchanged_when_reassignment_fails(
    fleet: dict[str, Instance], monkeypatch: pytest.MonkeyPatch
) -> None:
    nlp = Project.objects.get(name="nlp")
    fail_reassignment(monkeypatch)
    with pytest.raises(RuntimeError):
        project_update(project=nlp, name="ML", tag_values=["nlp", "vision"])
    nlp.refresh_from_db()
    assert (nlp.name, nlp.tag_values) == ("nlp", ["nlp"])
    assert Project.objects.get(name="vision").tag_values == ["vision"]
    assert project_of(fleet["vision-1"]) == "vision"


def test_it_adds_no_tag_key_when_reassignment_fails(
    acme: Organization, fleet: dict[str, Instance], monkeypatch: pytest.MonkeyPatch
) -> None:
    fail_reassignment(monkeypatch)
    with pytest.raises(RuntimeError):
        project_tag_key_create(organization=acme, key="team")
    assert not ProjectTagKey.objects.filter(key="team").exists()


def test_it_keeps_a_tag_key_when_reassignment_after_its_removal_fails(
    acme: Organization, fleet: dict[str, Instance], monkeypatch: pytest.MonkeyPatch
) -> None:
    tag_key = project_tag_key_create(organization=acme, key="team")
    tag_key_id = tag_key.pk
    fail_reassignment(monkeypatch)
    with pytest.raises(RuntimeError):
        project_tag_key_delete(tag_key=tag_key)
    assert ProjectTagKey.objects.filter(pk=tag_key_id).exists()
    assert project_of(fleet["vision-1"]) == "research"


def test_it_removes_a_tag_key_and_allocates_without_it(
    alice_client: APIClient, acme: Organization, fleet: dict[str, Instance]
) -> None:
    tag_key = project_tag_key_create(organization=acme, key="team", position=0)
    assert project_of(fleet["team-only"]) == "platform"
    response = alice_client.delete(f"/api/v1/project-tag-keys/{tag_key.pk}")
    assert response.status_code == 204
    assert project_of(fleet["team-only"]) is None
    assert project_of(fleet["vision-1"]) == "vision"
