"""API writes take JSON only: a form-encoded or multipart body is a 415 in the error format,
on every operation with a body, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from rest_framework.parsers import JSONParser
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Organization, User
from apps.cloud.models import Project
from tests.api.test_errors import assert_error_format

pytestmark = pytest.mark.django_db

OPENAPI = SchemaGenerator().get_schema(request=None, public=True)
# Operations with a body and no object in their path (those with one find the object first).
WRITES = [
    (method, path)
    for path, operations in OPENAPI["paths"].items()
    for method, operation in operations.items()
    if "requestBody" in operation and "{" not in path
]
INGEST_KEYS_ONLY = {"/api/v1/ingest/gpu-samples"}
FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data; boundary=BoUnDaRy"
BODIES = {
    FORM: "name=x&tag_values=notalist",
    MULTIPART: '--BoUnDaRy\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--BoUnDaRy--\r\n',
}


def test_every_view_of_the_api_parses_json_only() -> None:
    parsers = {
        getattr(callback, "cls", callback).__name__: getattr(
            callback, "cls", callback
        ).parser_classes
        for _, _, _, callback in EndpointEnumerator().get_api_endpoints()
    }
    assert len(parsers) > 20
    assert {name: kinds for name, kinds in parsers.items() if list(kinds) != [JSONParser]} == {}


def test_the_schema_documents_json_bodies_only() -> None:
    assert WRITES
    media_types = {
        media_type
        for operations in OPENAPI["paths"].values()
        for operation in operations.values()
        for media_type in operation.get("requestBody", {}).get("content", {})
    }
    assert media_types == {"application/json"}


@pytest.mark.parametrize("content_type", [FORM, MULTIPART], ids=["form", "multipart"])
@pytest.mark.parametrize(("method", "path"), WRITES, ids=" ".join)
def test_a_write_that_is_not_json_is_a_415(
    method: str,
    path: str,
    content_type: str,
    alice_client: APIClient,
    acme: Organization,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
) -> None:
    # Each case from its own address: the throttle runs before the parser, and the form and
    # multipart cases of one address-limited route (verify-email) would share a count.
    case = WRITES.index((method, path)) * 2 + (content_type == MULTIPART)
    # Agent ingest answers ingest keys only (a person is a 403 before any body is read).
    client = key_client(acme, "ingest")[0] if path in INGEST_KEYS_ONLY else alice_client
    response = client.generic(
        method.upper(),
        path,
        BODIES[content_type],
        content_type=content_type,
        REMOTE_ADDR=f"198.51.{case // 250}.{case % 250 + 1}",
    )

    assert response.status_code == 415, response.content
    assert_error_format(response.json())
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_a_form_encoded_project_edit_is_refused_and_changes_nothing(
    alice_client: APIClient, acme: Organization, alice: User
) -> None:
    """The issue's case: ``tag_values=notalist`` was stored as ``["notalist"]``."""
    project = Project.objects.create(organization=acme, name="Vision", slug="vision")

    response = alice_client.generic(
        "PATCH", f"/api/v1/projects/{project.pk}", "tag_values=notalist", content_type=FORM
    )

    assert response.status_code == 415
    project.refresh_from_db()
    assert project.tag_values == []
    # The same edit as JSON is taken.
    sent = alice_client.patch(
        f"/api/v1/projects/{project.pk}", {"tag_values": ["vision"]}, format="json"
    )
    assert sent.status_code == 200, sent.content
