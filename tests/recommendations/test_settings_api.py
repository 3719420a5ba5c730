"""GET/PATCH /api/v1/recommendations/settings: the described thresholds a settings page renders."""

from __future__ import annotations

import dataclasses
import re

import pytest
from rest_framework.test import APIClient

from apps.recommendations.rules import DEFAULT_RULE_THRESHOLDS, LOOKBACK_RULES, RuleThresholds
from apps.recommendations.wording import THRESHOLD_WORDS

pytestmark = pytest.mark.django_db
URL = "/api/v1/recommendations/settings"


def by_name(body: dict) -> dict[str, dict]:
    return {field["name"]: field for field in body["fields"]}


def test_it_describes_every_threshold_of_the_dataclass_in_order(alice_client: APIClient) -> None:
    body = alice_client.get(URL).json()
    assert [f["name"] for f in body["fields"]] == [
        f.name for f in dataclasses.fields(RuleThresholds)
    ]
    fields = by_name(body)
    assert fields["lookback_days"] == {
        "name": "lookback_days",
        "rule": "general",
        "type": "int",
        "default": 14,
        "value": None,
        "label": "Lookback (days)",
        "help": "Days of evidence every rule looks back over, unless it has its own.",
    }
    assert (fields["idle_min_share"]["rule"], fields["idle_min_share"]["type"]) == ("idle", "float")
    assert fields["idle_min_share"]["default"] == DEFAULT_RULE_THRESHOLDS.idle_min_share
    assert (
        fields["thermal_lookback_days"]["type"],
        fields["thermal_lookback_days"]["default"],
    ) == (
        "nullable_int",
        None,
    )
    assert fields["spot_tags"]["type"] == "tags"
    assert fields["spot_tags"]["default"] == list(DEFAULT_RULE_THRESHOLDS.spot_tags)
    # Every rule with a lookback has a group, and every field a sentence of help.
    assert {f["rule"] for f in body["fields"]} == {"general", *LOOKBACK_RULES}
    assert all(f["help"].endswith(".") for f in body["fields"])
    assert (body["thresholds"], body["reserved_prices"]) == ({}, [])


def test_it_shows_an_override_as_the_value_and_null_resets_it(alice_client: APIClient) -> None:
    response = alice_client.patch(
        URL,
        {"thresholds": {"idle_min_share": 0.9, "spot_tags": ["team=research"]}},
        format="json",
    )
    assert response.status_code == 200, response.json()
    fields = by_name(response.json())
    assert (fields["idle_min_share"]["value"], fields["idle_min_share"]["default"]) == (0.9, 0.95)
    assert fields["spot_tags"]["value"] == ["team=research"]
    assert fields["upsize_min_share"]["value"] is None

    response = alice_client.patch(URL, {"thresholds": {"idle_min_share": None}}, format="json")
    assert response.status_code == 200, response.json()
    body = alice_client.get(URL).json()
    assert body["thresholds"] == {"spot_tags": ["team=research"]}
    assert by_name(body)["idle_min_share"]["value"] is None


@pytest.mark.parametrize(
    ("thresholds", "name", "reason"),
    [
        ({"idle_min_share": 1.5}, "idle_min_share", "is a share, at most 1"),
        ({"idle_min_share": "high"}, "idle_min_share", "expected a number"),
        ({"lookback_days": 2.5}, "lookback_days", "expected an integer"),
        ({"thermal_lookback_days": 0}, "thermal_lookback_days", "between 1 and 93"),
        ({"spot_tags": "a=b"}, "spot_tags", "expected a list of strings"),
        ({"idle_min_shar": 0.9}, "idle_min_shar", "unknown threshold"),
        ({"idle_min_shar": None}, "idle_min_shar", "unknown threshold"),
        ({"schedule_p95_max_pct": 4}, "idle_gpu_util_p95_max_pct", "must be under"),
        ({"thermal_temp_min_c": {"c": 80}}, "thermal_temp_min_c", "expected a number"),
    ],
)
def test_it_refuses_a_bad_threshold_with_400_naming_it(
    alice_client: APIClient, thresholds: dict, name: str, reason: str
) -> None:
    response = alice_client.patch(URL, {"thresholds": thresholds}, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == [f"thresholds.{name}"]
    assert reason in fields[f"thresholds.{name}"][0]
    assert alice_client.get(URL).json()["thresholds"] == {}


def test_it_refuses_an_infinite_number(alice_client: APIClient) -> None:
    # Python's JSON reads 1e400 as infinity; a JSON column cannot hold it (a 500 if stored).
    response = alice_client.patch(
        URL, '{"thresholds": {"thermal_temp_min_c": 1e400}}', content_type="application/json"
    )
    assert response.status_code == 400
    assert "thermal_temp_min_c" in response.json()["error"]["message"]
    assert alice_client.get(URL).json()["thresholds"] == {}


def test_it_types_and_stores_the_reserved_prices(alice_client: APIClient) -> None:
    price = {"region": "ap-shanghai", "instance_type": "GN7.2XLARGE32", "hourly": "2.5"}
    response = alice_client.patch(URL, {"reserved_prices": [price]}, format="json")
    assert response.status_code == 200, response.json()
    assert alice_client.get(URL).json()["reserved_prices"] == [{**price, "term_years": 1}]
    response = alice_client.patch(
        URL, {"reserved_prices": [{**price, "hourly": "-1"}]}, format="json"
    )
    assert response.status_code == 400
    assert "reserved_prices" in response.json()["error"]["fields"]


def test_it_lets_only_owners_and_admins_change_them(
    alice_client: APIClient, charlie_client: APIClient
) -> None:
    # Charlie is a viewer of Acme: he reads the thresholds, he does not change them.
    assert charlie_client.get(URL).status_code == 200
    response = charlie_client.patch(URL, {"thresholds": {"idle_min_share": 0.9}}, format="json")
    assert response.status_code == 403
    assert alice_client.get(URL).json()["thresholds"] == {}


def test_it_keeps_each_organizations_overrides_to_itself(
    alice_client: APIClient, bob_client: APIClient
) -> None:
    response = alice_client.patch(URL, {"thresholds": {"idle_min_share": 0.9}}, format="json")
    assert response.status_code == 200
    body = bob_client.get(URL).json()
    assert body["thresholds"] == {}
    assert by_name(body)["idle_min_share"]["value"] is None
    # Bob changing his own leaves Alice's alone.
    bob_client.patch(URL, {"thresholds": {"idle_min_share": 0.8}}, format="json")
    assert alice_client.get(URL).json()["thresholds"] == {"idle_min_share": 0.9}


def test_it_states_every_field_of_the_settings_in_the_schema(alice_client: APIClient) -> None:
    schemas = alice_client.get("/api/v1/schema/", {"format": "json"}).json()["components"][
        "schemas"
    ]
    assert set(schemas["Settings"]["properties"]) == {"thresholds", "reserved_prices", "fields"}
    assert set(schemas["ThresholdField"]["properties"]) == {
        "name",
        "rule",
        "type",
        "default",
        "value",
        "label",
        "help",
    }
    assert set(schemas["ReservedPrice"]["properties"]) == {
        "region",
        "instance_type",
        "hourly",
        "term_years",
        "currency",
    }


def test_it_has_a_label_and_a_sentence_of_help_for_each_threshold_and_no_other() -> None:
    assert set(THRESHOLD_WORDS) == {f.name for f in dataclasses.fields(RuleThresholds)}


# A run of Latin letters as long as an English word of four or more letters: the Chinese labels
# keep units and names (GPU, p95, key=value) but no English words.
ENGLISH_WORD = re.compile(r"\b(?!GPU\b|key\b|value\b|Notebook\b)[A-Za-z]{4,}\b")
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_chinese_reader_gets_every_label_and_help_in_chinese(
    alice_client: APIClient, alice
) -> None:
    english = {f["name"]: (f["label"], f["help"]) for f in alice_client.get(URL).json()["fields"]}
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    response = alice_client.get(URL)
    assert response.headers["Content-Language"] == "zh-hans"
    for field in response.json()["fields"]:
        for text, other in zip(
            (field["label"], field["help"]), english[field["name"]], strict=True
        ):
            assert CJK.search(text), (field["name"], text)
            assert not ENGLISH_WORD.search(text), (field["name"], text)
            assert text != other


def test_accept_language_names_the_language_else_the_person_s_choice_else_english(
    alice_client: APIClient, alice, acme, key_client
) -> None:
    # The dashboard names the language it shows on every request; it wins over the stored one.
    response = alice_client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert by_name(response.json())["lookback_days"]["label"] == "回看天数"
    # A header naming none of ours falls back to the person's choice.
    alice.language = "zh-hans"
    alice.save(update_fields=["language"])
    response = alice_client.get(URL, HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert by_name(response.json())["lookback_days"]["label"] == "回看天数"
    response = alice_client.get(URL, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9,zh;q=0.5")
    assert by_name(response.json())["lookback_days"]["label"] == "Lookback (days)"
    # Finance tooling with an API key names its language in Accept-Language.
    tooling, _key = key_client(acme)
    response = tooling.get(URL, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert response.status_code == 200, response.json()
    assert by_name(response.json())["lookback_days"]["label"] == "回看天数"
    assert response.headers["Content-Language"] == "zh-hans"
    assert "Accept-Language" in response.headers["Vary"]
    response = tooling.get(URL)
    assert by_name(response.json())["lookback_days"]["label"] == "Lookback (days)"
