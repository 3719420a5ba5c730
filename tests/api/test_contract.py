"""The API's contract plumbing: rate limits, ETags, cursor pages, JSON for every error, the
schema's shapes (nullable project, unicode slugs, ISO 8601 times) and logout with a key."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import jsonschema_rs
import pytest
from django.conf import LazySettings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.validators import validate_unicode_slug
from drf_spectacular.generators import SchemaGenerator
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from apps.accounts.models import ApiKey, Organization, User
from apps.api.pagination import CursorPagination
from apps.cloud.models import Project
from tests.api.globex_world import DAY, GlobexWorld, globex_world
from tests.api.test_errors import assert_error_format

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture
def world(acme: Organization, alice: User) -> GlobexWorld:
    return globex_world(acme, alice)


# --- rate limits ---------------------------------------------------------------------------


def _fresh_budget(*keys: ApiKey) -> None:
    # Key ids repeat between test runs (a new test database): forget earlier runs' counts.
    for key in keys:
        cache.delete(f"throttle_api_key:{key.pk}")


def test_it_limits_each_api_key_on_its_own_and_says_when_to_retry(
    settings: LazySettings,
    key_client: Callable[..., tuple[APIClient, ApiKey]],
    acme: Organization,
) -> None:
    settings.API_RATE_LIMIT = "3/min"
    busy, busy_key = key_client(acme, "read")
    quiet, quiet_key = key_client(acme, "read")
    _fresh_budget(busy_key, quiet_key)

    statuses = [busy.get("/api/v1/projects").status_code for _ in range(3)]
    throttled = busy.get("/api/v1/projects")

    assert statuses == [200, 200, 200]
    assert throttled.status_code == 429
    assert_error_format(throttled.json())
    assert throttled.json()["error"]["code"] == "throttled"
    assert 1 <= int(throttled["Retry-After"]) <= 60
    # Another key of the same organization has its own budget.
    assert quiet.get("/api/v1/projects").status_code == 200


def test_it_documents_429_with_retry_after_on_every_throttled_operation(
    openapi: dict[str, Any],
) -> None:
    missing = [
        f"{method.upper()} {path}"
        for path, operations in openapi["paths"].items()
        for method, operation in operations.items()
        if "Retry-After" not in operation["responses"].get("429", {}).get("headers", {})
    ]
    assert missing == []


# --- ETag / If-None-Match on reports -------------------------------------------------------

SUMMARY = "/api/v1/analysis/summary"
PERIOD = {"start": DAY.isoformat(), "end": "2026-11-03", "group_by": "project"}


def test_it_answers_an_unchanged_report_with_304_and_a_changed_one_with_200(
    alice_client: APIClient, world: GlobexWorld
) -> None:
    first = alice_client.get(SUMMARY, PERIOD)
    etag = first["ETag"]

    again = alice_client.get(SUMMARY, PERIOD, HTTP_IF_NONE_MATCH=etag)
    weak = alice_client.get(SUMMARY, PERIOD, HTTP_IF_NONE_MATCH=f'W/{etag}, "other"')
    Project.objects.filter(pk=world["project"].pk).update(name="renamed research")
    changed = alice_client.get(SUMMARY, PERIOD, HTTP_IF_NONE_MATCH=etag)

    assert first.status_code == 200
    assert etag.startswith('"')
    assert etag.endswith('"')
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", etag)
    assert weak.status_code == 304
    assert "private" in again["Cache-Control"]
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert "renamed research" in {g["project_name"] for g in changed.json()["groups"]}


def test_it_gives_no_etag_to_an_error(alice_client: APIClient, acme: Organization) -> None:
    response = alice_client.get(SUMMARY, {"start": "2026-11-03", "end": "2026-11-01"})
    assert response.status_code == 400
    assert "ETag" not in response


def test_it_answers_an_unchanged_cost_report_with_304_and_a_changed_one_with_200(
    alice_client: APIClient, world: GlobexWorld
) -> None:
    costs = {"start": DAY.isoformat(), "end": "2026-11-03", "group_by": "project"}
    first = alice_client.get("/api/v1/costs", costs)
    etag = first["ETag"]

    again = alice_client.get("/api/v1/costs", costs, HTTP_IF_NONE_MATCH=etag)
    other_period = alice_client.get(
        "/api/v1/costs", {**costs, "end": "2026-11-02"}, HTTP_IF_NONE_MATCH=etag
    )

    assert first.status_code == 200
    assert first.json()["total"] != "0.00"
    assert (again.status_code, again.content, again["ETag"]) == (304, b"", etag)
    assert other_period.status_code == 200
    assert other_period["ETag"] != etag


REPORTS = [
    "/api/v1/analysis/summary",
    "/api/v1/instances/{id}/phases",
    "/api/v1/instances/{id}/profile",
    "/api/v1/costs",
    "/api/v1/utilization",
    "/api/v1/utilization/hour-of-week",
    "/api/v1/instances/{id}/timeseries",
    "/api/v1/usage/instances",
    "/api/v1/usage/projects",
]


@pytest.mark.parametrize("path", REPORTS)
def test_it_documents_the_etag_of_reports(openapi: dict[str, Any], path: str) -> None:
    operation = openapi["paths"][path]["get"]
    assert "ETag" in operation["responses"]["200"]["headers"]
    assert "304" in operation["responses"]
    assert "If-None-Match" in {p["name"] for p in operation["parameters"]}


# --- cursor pagination ---------------------------------------------------------------------


def _pages(queryset: Any, page_size: int) -> Iterator[tuple[list[int], dict[str, Any]]]:
    factory, paginator = APIRequestFactory(), CursorPagination()
    url: str | None = f"/api/v1/things?page_size={page_size}"
    while url:
        request = Request(factory.get(url))
        page: list[Project] = paginator.paginate_queryset(queryset, request) or []
        body = paginator.get_paginated_response([row.pk for row in page]).data
        yield body["results"], body
        url = body["next"] and "/api/v1/things?" + urlparse(body["next"]).query


def test_it_walks_a_large_list_by_cursor_without_gaps_or_repeats(acme: Organization) -> None:
    projects = [
        Project.objects.create(organization=acme, name=f"p{i}", slug=f"p{i}") for i in range(7)
    ]
    queryset = Project.objects.filter(organization=acme)

    pages = list(_pages(queryset, page_size=3))

    assert [len(ids) for ids, _ in pages] == [3, 3, 1]
    assert [i for ids, _ in pages for i in ids] == sorted((p.pk for p in projects), reverse=True)
    assert "count" not in pages[0][1]
    assert "cursor" in parse_qs(urlparse(pages[0][1]["next"]).query)


# --- every error is JSON in the one shape --------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/api/v1/members/abc", "/api/v1/instances/1.5/phases", "/api/v1/no-such-thing"]
)
def test_it_answers_a_path_no_route_takes_with_a_json_404(
    alice_client: APIClient, path: str
) -> None:
    response = alice_client.get(path)
    assert response.status_code == 404
    assert_error_format(response.json())


def test_it_answers_a_failed_csrf_check_with_a_json_403(alice: User) -> None:
    client = APIClient(enforce_csrf_checks=True)
    response = client.post(
        "/api/v1/auth/login",
        {"email": "alice@acme.test", "password": "alice-pass-123"},
        format="json",
    )
    assert response.status_code == 403
    assert_error_format(response.json())
    assert response.json()["error"]["code"] == "csrf_failed"


# --- what schemathesis found -----------------------------------------------------------------


def test_it_logs_out_an_api_key_request_without_an_error_and_keeps_the_key(
    key_client: Callable[..., tuple[APIClient, ApiKey]], acme: Organization
) -> None:
    client, _ = key_client(acme, "write")
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert client.get("/api/v1/projects").status_code == 200


def test_it_serves_an_unallocated_instance_with_a_null_project_as_its_schema_says(
    alice_client: APIClient, world: GlobexWorld, openapi: dict[str, Any]
) -> None:
    world["instance"].project = None
    world["instance"].save(update_fields=["project"])

    (row,) = alice_client.get("/api/v1/instances").json()["results"]

    assert row["project"] is None
    assert openapi["components"]["schemas"]["Instance"]["properties"]["project"]["nullable"]


SLUG_SAMPLES = [
    "项目a", "research", "a-b_c", "ünïcode", "٣٤", "日本語-プロジェクト", "Ⅻ",
    "a b", "a/b", "a.b", "", "tab\t", "a:b", "a@b", "a[b]", "a`b", "a{b}", "a~b", "a+b", "Zz09-_",
]  # fmt: skip


@pytest.mark.parametrize("value", SLUG_SAMPLES)
def test_it_states_project_slugs_in_the_schema_as_the_model_validates_them(
    openapi: dict[str, Any], value: str
) -> None:
    """Every slug the model accepts matches the schema; on ASCII the two agree exactly."""
    slug_schema = openapi["components"]["schemas"]["Project"]["properties"]["slug"]
    try:
        validate_unicode_slug(value)
        model_accepts = True
    except ValidationError:
        model_accepts = False
    schema_accepts = jsonschema_rs.validator_for(
        {"type": "string", "pattern": slug_schema["pattern"]}
    ).is_valid(value)
    if model_accepts or value.isascii():
        assert schema_accepts == model_accepts


def _response_properties(openapi: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for component, schema in openapi["components"]["schemas"].items():
        for name, prop in schema.get("properties", {}).items():
            yield component, name, prop


def test_it_declares_every_moment_of_a_response_as_an_iso_8601_date_time(
    openapi: dict[str, Any],
) -> None:
    """Times are ISO 8601 everywhere: every ``*_at``, ``start`` and ``end`` field is declared
    ``format: date-time`` (so schemathesis checks each value it sees against RFC 3339)."""
    undeclared = [
        f"{component}.{name}"
        for component, name, prop in _response_properties(openapi)
        if (name.endswith("_at") or name in ("start", "end", "until"))
        and not component.endswith("Request")
        and prop.get("format") not in ("date-time", "date")
    ]
    assert undeclared == []


@pytest.mark.parametrize("page_size", ["abc", "0", "501", "-1", "2.5"])
def test_it_answers_a_bad_page_size_with_400_naming_it(
    alice_client: APIClient, page_size: str
) -> None:
    response = alice_client.get("/api/v1/members", {"page_size": page_size})
    assert response.status_code == 400
    assert_error_format(response.json())
    assert "page_size" in response.json()["error"]["fields"]


def test_it_serves_the_page_size_asked_for(alice_client: APIClient) -> None:
    body = alice_client.get("/api/v1/members", {"page_size": "1"}).json()
    assert (body["count"], len(body["results"])) == (2, 1)


# Maps keyed by threshold name that a PATCH also sends (null drops an override): the service
# validates names and values (400 naming the key); their entries are described in prose.
FREE_FORM = {
    "AnalysisSettings.thresholds",
}


def _bare_objects(
    schema: dict[str, Any], openapi: dict[str, Any], where: str, seen: set[str]
) -> list[str]:
    """Places under ``schema`` that are objects with nothing said about their contents."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            return []
        seen.add(name)
        return _bare_objects(openapi["components"]["schemas"][name], openapi, name, seen)
    found = []
    if schema.get("type") == "object" and not (
        schema.get("properties") or schema.get("additionalProperties") or schema.get("allOf")
    ):
        found.append(where)
    if isinstance(schema.get("items"), dict):
        found += _bare_objects(schema["items"], openapi, f"{where}[]", seen)
    if isinstance(schema.get("additionalProperties"), dict):
        found += _bare_objects(schema["additionalProperties"], openapi, f"{where}{{}}", seen)
    for part in [*schema.get("allOf", []), *schema.get("oneOf", []), *schema.get("anyOf", [])]:
        found += _bare_objects(part, openapi, where, seen)
    for name, prop in schema.get("properties", {}).items():
        found += _bare_objects(prop, openapi, f"{where}.{name}", seen)
    return found


def test_it_states_every_field_of_every_answer(openapi: dict[str, Any]) -> None:
    """No operation answers a bare object: every successful answer's fields are in the schema."""
    bare = {
        f"{method.upper()} {path} {status}: {place}"
        for path, operations in openapi["paths"].items()
        for method, operation in operations.items()
        for status, response in operation["responses"].items()
        if status.startswith("2")
        for media in response.get("content", {}).values()
        for place in _bare_objects(media["schema"], openapi, "", set())
        if place not in FREE_FORM
    }
    assert sorted(bare) == []


# --- empty filter values -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["project", "charge_type"])
def test_it_refuses_an_empty_value_of_a_typed_filter_naming_it(
    alice_client: APIClient, world: GlobexWorld, name: str
) -> None:
    response = alice_client.get("/api/v1/instances", {name: ""})
    assert response.status_code == 400
    assert_error_format(response.json())
    assert list(response.json()["error"]["fields"]) == [name]


def test_it_still_takes_an_empty_free_text_filter(
    alice_client: APIClient, world: GlobexWorld
) -> None:
    everything = alice_client.get("/api/v1/instances").json()["count"]
    response = alice_client.get("/api/v1/instances", {"region": "", "state": ""})
    assert response.status_code == 200
    assert everything > 0
    assert response.json()["count"] == everything  # an empty text filter is no filter
