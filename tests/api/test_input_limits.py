"""The limits the server enforces on input are the ones the schema states (issue 20), and the
other way round: a request the schema forbids is a 400 naming the field, one it allows is
taken. Schemathesis (test_schemathesis.py) samples every operation; these pin the edges it
found, each from both sides."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import jsonschema_rs
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.alerts.models import Budget
from apps.analysis.models import AnalysisSettings
from apps.cloud.models import CloudAccount
from apps.core.timezones import TIMEZONES

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def _property(openapi: dict[str, Any], component: str, name: str) -> dict[str, Any]:
    return dict(openapi["components"]["schemas"][component]["properties"][name])


def _json_schema(schema: Any) -> Any:
    """OpenAPI 3.0's dialect as JSON Schema: ``nullable``, boolean ``exclusiveMinimum``."""
    if isinstance(schema, list):
        return [_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _json_schema(value) for key, value in schema.items()}
    if converted.pop("nullable", False) and "type" in converted:
        converted["type"] = [converted["type"], "null"]
    if converted.get("exclusiveMinimum") is True:
        converted["exclusiveMinimum"] = converted.pop("minimum")
    return converted


def _allows(schema: dict[str, Any], value: Any) -> bool:
    return bool(jsonschema_rs.validator_for(_json_schema(schema)).is_valid(value))


def test_every_request_body_states_that_it_takes_no_other_field(openapi: dict[str, Any]) -> None:
    bodies = {
        content["schema"]["$ref"].rsplit("/", 1)[1]
        for operations in openapi["paths"].values()
        for operation in operations.values()
        for content in operation.get("requestBody", {}).get("content", {}).values()
    }

    loose = [
        name
        for name in sorted(bodies)
        if openapi["components"]["schemas"][name].get("additionalProperties") is not False
    ]

    assert len(bodies) > 20
    assert loose == []


@pytest.mark.parametrize(
    "amount", [5, 5.5, " 5", "5 ", "1e3", "1_000", "\u0665", ".5", "5.", "", "-", "-0", "5.001"]
)
def test_a_budget_amount_the_schema_forbids_is_a_400_naming_it(
    alice_client: APIClient, acme: Organization, openapi: dict[str, Any], amount: Any
) -> None:
    answer = alice_client.post(
        "/api/v1/budgets", {"name": "Fleet", "amount": amount}, format="json"
    )

    assert not _allows(_property(openapi, "BudgetRequest", "amount"), amount)
    assert answer.status_code == 400, answer.content
    assert set(answer.json()["error"]["fields"]) == {"amount"}
    assert not Budget.objects.exists()


@pytest.mark.parametrize(
    "amount", ["0", "12000", "1200.5", "00000000000001.50", "99999999999999.99"]
)
def test_a_budget_amount_the_schema_allows_is_taken_as_written(
    alice_client: APIClient, acme: Organization, openapi: dict[str, Any], amount: str
) -> None:
    answer = alice_client.post(
        "/api/v1/budgets", {"name": "Fleet", "amount": amount}, format="json"
    )

    assert _allows(_property(openapi, "BudgetRequest", "amount"), amount)
    assert answer.status_code == 201, answer.content
    assert Budget.objects.get().amount == Decimal(amount)


def test_a_decimal_error_comes_with_the_other_fields_errors(
    alice_client: APIClient, acme: Organization
) -> None:
    answer = alice_client.post(
        "/api/v1/budgets",
        {"name": "Fleet", "amount": 100, "actual_thresholds_pct": [0], "colour": "red"},
        format="json",
    )

    assert answer.status_code == 400
    fields = answer.json()["error"]["fields"]
    assert fields["amount"] == ['Must be a string, e.g. "1200.50".']
    assert set(fields) == {"amount", "actual_thresholds_pct", "colour"}


def test_the_schema_lists_the_time_zones_the_server_takes(
    alice_client: APIClient, acme: Organization, openapi: dict[str, Any]
) -> None:
    stated = openapi["components"]["schemas"]["TimezoneEnum"]["enum"]
    local = alice_client.post(
        "/api/v1/organizations", {"name": "Initech", "timezone": "localtime"}, format="json"
    )
    berlin = alice_client.post(
        "/api/v1/organizations", {"name": "Initech", "timezone": "Europe/Berlin"}, format="json"
    )

    assert stated == list(TIMEZONES)
    assert "localtime" not in stated  # the machine's own zone, not an IANA name
    assert local.status_code == 400
    assert set(local.json()["error"]["fields"]) == {"timezone"}
    assert berlin.status_code == 201, berlin.content


def test_the_schema_states_the_password_length_the_validators_ask(
    openapi: dict[str, Any], settings: Any
) -> None:
    for component in ("SignupRequest", "SetPasswordRequest", "InvitationAcceptRequest"):
        assert _property(openapi, component, "password")["minLength"] == 8, component


@pytest.mark.parametrize(
    "endpoint", ["sim.example.com:080", "sim.example.com:0", "a:1\n", "a:65536"]
)
def test_an_endpoint_the_schema_forbids_is_a_400_naming_it(
    alice_client: APIClient, acme: Organization, openapi: dict[str, Any], endpoint: str
) -> None:
    answer = alice_client.post(
        "/api/v1/cloud-accounts",
        {
            "name": "Prod",
            "secret_id": "AKID1",
            "secret_key": "key1",
            "regions": ["ap-guangzhou"],
            "endpoint": endpoint,
        },
        format="json",
    )

    assert not _allows(_property(openapi, "CloudAccountRequest", "endpoint"), endpoint)
    assert answer.status_code == 400, answer.content
    assert set(answer.json()["error"]["fields"]) == {"endpoint"}
    assert not CloudAccount.objects.exists()


def test_the_schema_states_the_regions_and_secrets_the_server_takes(
    openapi: dict[str, Any],
) -> None:
    for component in ("CloudAccountRequest", "ConnectionTestRequest"):
        regions = _property(openapi, component, "regions")
        assert regions["minItems"] == 1
        assert "$ref" in str(regions["items"])
        secret = _property(openapi, component, "secret_id")
        assert not _allows(secret, "AKID 1")
        assert _allows(secret, "AKID1")


def test_an_empty_patch_of_ones_language_changes_nothing(
    alice_client: APIClient, alice: User
) -> None:
    alice.language = "zh-hans"
    alice.save()

    answer = alice_client.patch("/api/v1/me", {}, format="json")

    assert answer.status_code == 200, answer.content
    assert answer.json()["language"] == "zh-hans"


def test_an_empty_patch_of_the_analysis_settings_changes_nothing(
    alice_client: APIClient, acme: Organization
) -> None:
    AnalysisSettings.objects.create(organization=acme, thresholds={"min_phase_minutes": 20})

    answer = alice_client.patch("/api/v1/analysis/settings", {}, format="json")

    assert answer.status_code == 200, answer.content
    assert answer.json()["thresholds"] == {"min_phase_minutes": 20}


@pytest.mark.parametrize(
    ("overrides", "allowed"),
    [
        ({"min_phase_minutes": 20, "idle_gpu_util_max_pct": 4.5}, True),
        ({"min_phase_minutes": None}, True),
        ({"min_phase_minutes": 0}, False),
        ({"idle_gpu_util_max_pct": 101}, False),
        ({"switch_penalty": 0}, False),
        ({"profile_min_coverage": 1.5}, False),
        ({"no_such_threshold": 1}, False),
        ({"min_phase_minutes": "20"}, False),
    ],
)
def test_the_thresholds_the_schema_allows_are_the_ones_the_server_takes(
    alice_client: APIClient,
    acme: Organization,
    openapi: dict[str, Any],
    overrides: dict[str, Any],
    allowed: bool,
) -> None:
    schema = _property(openapi, "PatchedAnalysisSettingsRequest", "thresholds")

    answer = alice_client.patch(
        "/api/v1/analysis/settings", {"thresholds": overrides}, format="json"
    )

    assert _allows(schema, overrides) is allowed
    assert answer.status_code == (200 if allowed else 400), answer.content
    if not allowed:
        assert set(answer.json()["error"]["fields"]) == {"thresholds"}


@pytest.mark.parametrize(
    ("body", "allowed"),
    [
        ({"role": "owner"}, True),
        ({"role": "owner", "email": "alice@acme.test"}, False),
        ({"role": "", "email": "alice@acme.test"}, True),
        ({"email": "alice@acme.test"}, True),
        ({"role": ""}, False),
        ({}, False),
    ],
)
def test_an_alert_recipient_is_a_role_or_a_member_as_the_schema_says(
    alice_client: APIClient,
    acme: Organization,
    openapi: dict[str, Any],
    body: dict[str, Any],
    allowed: bool,
) -> None:
    # The one-of that says which fields go together (the properties' enums aside).
    shape = {"oneOf": openapi["components"]["schemas"]["AlertRecipientRequest"]["oneOf"]}

    answer = alice_client.post("/api/v1/alert-recipients", body, format="json")

    assert _allows(shape, body) is allowed
    assert answer.status_code == (201 if allowed else 400), answer.content


@pytest.mark.parametrize(
    ("overrides", "allowed"),
    [
        ({"idle_min_share": 0.9, "spot_tags": ["interruptible=true"]}, True),
        ({"idle_lookback_days": None}, True),
        ({"lookback_days": 94}, False),
        ({"idle_min_share": 1.5}, False),
        ({"thermal_temp_min_c": -1}, False),
        ({"spot_tags": "interruptible=true"}, False),
        ({"no_such_threshold": 1}, False),
    ],
)
def test_the_rule_thresholds_the_schema_allows_are_the_ones_the_server_takes(
    alice_client: APIClient,
    acme: Organization,
    openapi: dict[str, Any],
    overrides: dict[str, Any],
    allowed: bool,
) -> None:
    schema = _property(openapi, "PatchedSettingsRequest", "thresholds")

    answer = alice_client.patch(
        "/api/v1/recommendations/settings", {"thresholds": overrides}, format="json"
    )

    assert _allows(schema, overrides) is allowed
    assert answer.status_code == (200 if allowed else 400), answer.content


@pytest.mark.parametrize(
    ("hourly", "allowed"),
    [
        ("2.5", True),
        ("0.00000001", True),
        ("0", False),
        ("0.000", False),
        ("Infinity", False),
        ("NaN", False),
        ("1e3", False),
        ("-1", False),
        (" 2.5", False),
    ],
)
def test_a_reserved_price_the_schema_allows_is_the_one_the_server_takes(
    alice_client: APIClient, acme: Organization, openapi: dict[str, Any], hourly: str, allowed: bool
) -> None:
    price = {"region": "ap-shanghai", "instance_type": "GN7.2XLARGE32", "hourly": hourly}

    answer = alice_client.patch(
        "/api/v1/recommendations/settings", {"reserved_prices": [price]}, format="json"
    )

    assert _allows(_property(openapi, "ReservedPriceRequest", "hourly"), hourly) is allowed
    assert answer.status_code == (200 if allowed else 400), answer.content
    if not allowed:
        assert set(answer.json()["error"]["fields"]) == {"reserved_prices"}
