"""Bad input gets 400 in the one error format, never a 500."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def assert_error_format(body: dict) -> None:
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]


@pytest.mark.parametrize(
    "url", ["/api/v1/api-keys", "/api/v1/invitations", "/api/v1/organizations"]
)
def test_it_answers_malformed_json_with_400(alice_client: APIClient, url: str) -> None:
    response = alice_client.generic("POST", url, '{"name": ', content_type="application/json")
    assert response.status_code == 400
    assert_error_format(response.json())
    assert response.json()["error"]["code"] == "parse_error"


@pytest.mark.parametrize(
    ("url", "payload", "field"),
    [
        ("/api/v1/api-keys", {"name": "k", "scope": "read", "nmae": "typo"}, "nmae"),
        ("/api/v1/api-keys", {"name": 5, "scope": "read"}, "name"),
        ("/api/v1/api-keys", {"name": "k", "scope": "admin"}, "scope"),
        ("/api/v1/api-keys", {"name": ["k"], "scope": "read"}, "name"),
        ("/api/v1/invitations", {"email": "not-an-email", "role": "viewer"}, "email"),
        ("/api/v1/invitations", {"email": "a@b.test", "role": 3}, "role"),
        ("/api/v1/organizations", {"name": "x", "currency": "EUR"}, "currency"),
        ("/api/v1/organizations", {"name": None}, "name"),
    ],
)
def test_it_answers_bad_fields_with_400_naming_the_field(
    alice_client: APIClient, url: str, payload: dict, field: str
) -> None:
    response = alice_client.post(url, payload, format="json")
    assert response.status_code == 400, response.content
    assert_error_format(response.json())
    assert field in response.json()["error"]["fields"]


@pytest.mark.parametrize("body", ["[]", "42", '"text"', "null"])
def test_it_answers_a_non_object_body_with_400(alice_client: APIClient, body: str) -> None:
    response = alice_client.generic(
        "POST", "/api/v1/api-keys", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert_error_format(response.json())


def test_it_answers_an_unknown_page_with_404_in_the_error_format(alice_client: APIClient) -> None:
    response = alice_client.get("/api/v1/members?page=99")
    assert response.status_code == 404
    assert_error_format(response.json())


def test_it_serves_the_openapi_schema_and_bundled_docs(alice_client: APIClient) -> None:
    schema = alice_client.get("/api/v1/schema/?format=json")
    assert schema.status_code == 200
    assert "/api/v1/me" in schema.json()["paths"]
    docs = alice_client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    assert "cdn" not in html.lower()
