"""Query parameters and path ids are checked as the schema states them (apps/api/parameters.py):
every integer one is bounded (a 400 naming it, never an overflow), on every operation the schema
lists, so an endpoint added later is covered without being named here."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import QueryDict
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.api.parameters import INT64_MAX, operations_by_method, parameter_problems
from tests.api.globex_world import globex_world
from tests.api.test_errors import assert_error_format

pytestmark = pytest.mark.django_db

TOO_BIG = str(2**63)
OPENAPI = SchemaGenerator().get_schema(request=None, public=True)


def _integer(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "integer" or schema.get("items", {}).get("type") == "integer"


def _operations(where: str) -> list[tuple[str, str, str]]:
    """(method, path, parameter) for each integer parameter ``where`` (query or path)."""
    return [
        (method, path, parameter["name"])
        for path, operations in OPENAPI["paths"].items()
        for method, operation in operations.items()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == where and _integer(parameter["schema"])
    ]


QUERY = _operations("query")
PATH = _operations("path")


def test_the_schema_has_the_integer_parameters_of_the_issue() -> None:
    # The generated lists are not empty by accident (e.g. a renamed parameter location).
    assert ("get", "/api/v1/recommendations", "project") in QUERY
    assert ("get", "/api/v1/recommendations/totals", "project") in QUERY
    assert ("get", "/api/v1/alerts", "project") in QUERY
    assert ("get", "/api/v1/instances/{id}", "id") in PATH


def _fill(path: str) -> str:
    return path.replace("{id}", "1")


@pytest.mark.parametrize(("method", "path", "name"), QUERY, ids=" ".join)
def test_an_integer_query_parameter_above_64_bits_is_a_400_naming_it(
    method: str, path: str, name: str, alice_client: APIClient, acme: Organization
) -> None:
    response = getattr(alice_client, method)(f"{_fill(path)}?{name}={TOO_BIG}")

    assert response.status_code == 400, response.content
    assert_error_format(response.json())
    assert list(response.json()["error"]["fields"]) == [name]


@pytest.mark.parametrize(("method", "path", "name"), PATH, ids=" ".join)
def test_an_integer_path_id_above_64_bits_is_a_400_naming_it(
    method: str, path: str, name: str, alice_client: APIClient, acme: Organization
) -> None:
    response = getattr(alice_client, method)(
        path.replace("{" + name + "}", TOO_BIG), {}, format="json"
    )

    assert response.status_code == 400, response.content
    assert list(response.json()["error"]["fields"]) == [name]


def test_the_largest_64_bit_id_is_still_a_filter_like_any_other(
    alice_client: APIClient, acme: Organization, alice: User
) -> None:
    globex_world(acme, alice)

    filtered = alice_client.get(f"/api/v1/recommendations?project={INT64_MAX}")
    missing = alice_client.get(f"/api/v1/instances/{INT64_MAX}")

    assert filtered.status_code == 200
    assert filtered.json()["count"] == 0
    assert missing.status_code == 404


def test_the_schema_states_the_bounds_it_enforces() -> None:
    unbounded = [
        f"{method} {path} {name}"
        for method, path, name in QUERY + PATH
        for parameter in OPENAPI["paths"][path][method]["parameters"]
        if parameter["name"] == name
        and "maximum" not in parameter["schema"].get("items", parameter["schema"])
    ]
    assert unbounded == []


# --- the check itself, on a schema of its own -------------------------------------------------

SCHEMA = {
    "paths": {
        "/api/things/{id}": {"get": {"parameters": [
            {"name": "id", "in": "path", "schema": {"type": "integer"}},
        ]}},
        "/api/things/settings": {"get": {"parameters": [
            {"name": "page", "in": "query", "schema": {"type": "integer", "maximum": 10}},
            {"name": "tag:<key>", "in": "query", "schema": {"type": "string"}},
            {"name": "ids", "in": "query",
             "schema": {"type": "array", "items": {"type": "integer", "minimum": 1}}},
        ]}},
    }
}  # fmt: skip


def _problems(path: str, query: str = "", method: str = "GET") -> dict[str, list[str]]:
    return parameter_problems(operations_by_method(SCHEMA), method, path, QueryDict(query))


def test_it_matches_a_literal_path_before_a_templated_one() -> None:
    assert _problems("/api/things/settings", "page=11") == {
        "page": [f"A whole number from {-(2**63)} to 10."]
    }
    assert _problems("/api/things/settings", "page=10") == {}


def test_it_bounds_path_ids_and_repeated_values_and_leaves_other_text_to_the_view() -> None:
    assert list(_problems(f"/api/things/{TOO_BIG}")) == ["id"]
    assert list(_problems(f"/api/things/{TOO_BIG}", method="HEAD")) == ["id"]
    assert _problems("/api/things/abc") == {}
    assert list(_problems("/api/things/settings", "ids=3&ids=0")) == ["ids"]
    assert _problems("/api/things/settings", "ids=3&ids=x") == {}


def test_a_number_of_thousands_of_digits_is_out_of_range_not_a_crash() -> None:
    assert list(_problems("/api/things/" + "9" * 5000)) == ["id"]
    assert _problems("/api/things/" + "0" * 30 + "7") == {}


def test_it_does_not_check_what_the_schema_does_not_describe() -> None:
    assert _problems("/api/elsewhere", "page=" + TOO_BIG) == {}
    assert _problems(f"/api/things/{TOO_BIG}", method="OPTIONS") == {}


# --- unknown query parameters: one rule, every operation ------------------------------------

EVERY_OPERATION = [
    (method, path) for path, operations in OPENAPI["paths"].items() for method in operations
]


@pytest.mark.parametrize(("method", "path"), EVERY_OPERATION, ids=" ".join)
def test_an_unknown_query_parameter_is_a_400_naming_it_on_every_operation(
    method: str, path: str, alice_client: APIClient, acme: Organization
) -> None:
    response = getattr(alice_client, method)(f"{_fill(path)}?organization=globex", {})

    assert response.status_code == 400, response.content
    assert_error_format(response.json())
    (message,) = response.json()["error"]["fields"]["organization"]
    assert message.startswith("Unknown query parameter; this operation takes: ")


def test_it_says_which_parameters_an_operation_takes(alice_client: APIClient) -> None:
    response = alice_client.get("/api/v1/members?pagesize=5")

    assert response.json()["error"]["fields"] == {
        "pagesize": ["Unknown query parameter; this operation takes: page, page_size."]
    }


def test_a_documented_family_of_names_is_known_and_the_rest_is_not() -> None:
    assert _problems("/api/things/settings", "tag:team=a&page=1") == {}
    assert _problems("/api/things/settings", "tagteam=a") == {
        "tagteam": ["Unknown query parameter; this operation takes: ids, page, tag:<key>."]
    }
    assert _problems("/api/things/1", "page=1") == {
        "page": ["Unknown query parameter; this operation takes: none."]
    }
