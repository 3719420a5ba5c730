"""POST /api/v1/ingest/gpu-samples: ingest keys, tenancy, bounds, validation, idempotency."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import ApiKey, Organization
from apps.cloud.models import Instance
from apps.metrics.agent.serializers import MAX_BODY_BYTES, MAX_SAMPLES
from apps.metrics.agent.services import agent_points_prune
from apps.metrics.models import GpuHourRollup, GpuSample, WorkCounterPoint
from tests.api.cross_organization import schema_operations
from tests.metrics.conftest import MakeInstances

pytestmark = pytest.mark.django_db
URL = "/api/v1/ingest/gpu-samples"
KeyClient = Callable[..., tuple[APIClient, ApiKey]]


def at(seconds_ago: int) -> str:
    moment = timezone.now().replace(microsecond=0) - dt.timedelta(seconds=seconds_ago)
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def sample(index: int = 0, seconds_ago: int = 60, **fields: Any) -> dict[str, Any]:
    return {
        "index": index,
        "sampled_at": at(seconds_ago),
        "uuid": f"GPU-{index}",
        "name": "NVIDIA H800",
        "util_pct": 97.0,
        "mem_used_mb": 71234.0,
        "mem_total_mb": 81559.0,
        "power_w": 612.37,
        "power_limit_w": 700.0,
        "sm_clock_mhz": 1980.0,
        "throttle_reasons": 4,
        "temp_c": 63.0,
        "processes": [{"pid": 23817, "used_mem_mb": 70112}],
        **fields,
    }


def counter(value: float, seconds_ago: int = 60, name: str = "samples") -> dict[str, Any]:
    return {"source": "report", "name": name, "sampled_at": at(seconds_ago), "value": value}


@pytest.fixture
def instance(acme: Organization, make_instances: MakeInstances) -> Instance:
    (made,) = make_instances(acme, gpu_count=8)
    return made


@pytest.fixture
def ingest(key_client: KeyClient, acme: Organization) -> APIClient:
    client, _ = key_client(acme, "ingest")
    return client


def post(client: APIClient, body: Any) -> Any:
    return client.post(URL, body, format="json")


def stored() -> tuple[int, int]:
    return GpuSample.objects.count(), WorkCounterPoint.objects.count()


def test_it_stores_what_the_agent_sent_and_a_resent_batch_once(
    ingest: APIClient, instance: Instance
) -> None:
    batch = {
        "instance_id": instance.provider_id,
        "samples": [sample(0), sample(1, util_pct=None, power_w=None, processes=None)],
        "counters": [counter(512, seconds_ago=120), counter(640)],
    }
    first = post(ingest, batch)
    assert first.status_code == 200, first.json()
    assert first.json() == {
        "instance_id": instance.provider_id,
        "samples_received": 2,
        "samples_stored": 2,
        "counters_received": 2,
        "counters_stored": 2,
    }
    again = post(ingest, batch)
    assert (again.json()["samples_stored"], again.json()["counters_stored"]) == (0, 0)
    assert stored() == (2, 2)
    card0, card1 = GpuSample.objects.order_by("gpu_index")
    assert (card0.util_pct, card0.power_w, card0.throttle_reasons, card0.processes) == (
        97.0,
        612.37,
        4,
        [{"pid": 23817, "used_mem_mb": 70112}],
    )
    # Missing stays missing: NULL, not 0, and "processes not read" is not "no processes".
    assert (card1.util_pct, card1.power_w, card1.processes) == (None, None, None)
    assert list(
        WorkCounterPoint.objects.order_by("sampled_at").values_list("value", flat=True)
    ) == [
        512,
        640,
    ]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b["samples"][1].update(util_pct=140), "samples[1].util_pct"),
        (lambda b: b["samples"][1].update(util_pct="lots"), "samples[1].util_pct"),
        (
            lambda b: b["samples"][0].update(sampled_at="2026-12-02T08:00:00"),
            "samples[0].sampled_at",
        ),
        (
            lambda b: b["samples"][0].update(sampled_at="2020-01-01T00:00:00Z"),
            "samples[0].sampled_at",
        ),
        (lambda b: b["samples"][0].pop("index"), "samples[0].index"),
        (lambda b: b["samples"][0].update(index=64), "samples[0].index"),
        (lambda b: b["samples"][0].update(temprature_c=40), "samples[0].temprature_c"),
        (lambda b: b["samples"][0].update(processes=[{"pid": -1}]), "samples[0].processes[0].pid"),
        (lambda b: b["samples"].append(dict(b["samples"][0])), "samples[2]"),
        (lambda b: b["counters"][0].update(value=-5), "counters[0].value"),
        (lambda b: b["counters"][0].update(source="nvml"), "counters[0].source"),
        (lambda b: b["counters"][1].update(value=100), "counters[1].value"),  # falls
        (lambda b: b.update(instance_id="i-123; DROP"), "instance_id"),
        (lambda b: b.update(samples=[sample(0)] * (MAX_SAMPLES + 1)), "samples"),
    ],
)
def test_it_refuses_a_bad_batch_naming_the_field_and_stores_none_of_it(
    ingest: APIClient, instance: Instance, change: Callable[[dict], Any], field: str
) -> None:
    batch = {
        "instance_id": instance.provider_id,
        "samples": [sample(0), sample(1)],
        "counters": [counter(512, seconds_ago=120), counter(640)],
    }
    change(batch)
    response = post(ingest, batch)
    assert response.status_code == 400, response.json()
    assert field in response.json()["error"]["fields"], response.json()
    assert stored() == (0, 0)


def test_it_refuses_a_counter_below_what_is_stored_before_it(
    ingest: APIClient, instance: Instance
) -> None:
    earlier = counter(900, 300)
    assert (
        post(ingest, {"instance_id": instance.provider_id, "counters": [earlier]}).status_code
        == 200
    )
    later_but_lower = {
        "instance_id": instance.provider_id,
        "samples": [sample(0)],
        "counters": [{**earlier, "sampled_at": at(60), "value": 10}],
    }
    response = post(ingest, later_but_lower)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["counters[0].value"]
    # The batch's samples were not stored either: a batch is all or nothing.
    assert stored() == (0, 1)
    # The same moment again with another value: a sent point never changes.
    changed = post(
        ingest, {"instance_id": instance.provider_id, "counters": [{**earlier, "value": 901}]}
    )
    assert changed.status_code == 400
    assert list(changed.json()["error"]["fields"]) == ["counters[0].value"]
    assert list(WorkCounterPoint.objects.values_list("value", flat=True)) == [900]


def test_it_refuses_a_body_over_the_limit_before_reading_it(
    ingest: APIClient, instance: Instance
) -> None:
    padding = "x" * (MAX_BODY_BYTES + 1)
    body = json.dumps({"instance_id": instance.provider_id, "agent_version": padding})
    response = ingest.post(URL, body, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert stored() == (0, 0)


def test_it_answers_another_organizations_instance_with_404(
    ingest: APIClient, globex: Organization, instance: Instance
) -> None:
    theirs = Instance.objects.create(
        organization=globex, provider_id="ins-gx7f3k2p", region="ap-shanghai", instance_type="x"
    )
    response = post(ingest, {"instance_id": theirs.provider_id, "samples": [sample(0)]})
    assert response.status_code == 404
    assert post(ingest, {"instance_id": "ins-nosuch", "samples": [sample(0)]}).status_code == 404
    assert stored() == (0, 0)


def test_it_takes_ingest_keys_only(
    key_client: KeyClient, alice_client: APIClient, acme: Organization, instance: Instance
) -> None:
    batch = {"instance_id": instance.provider_id, "samples": [sample(0)]}
    write_client, _ = key_client(acme, "write")
    read_client, _ = key_client(acme, "read")
    for client in (alice_client, write_client, read_client, APIClient()):
        assert post(client, batch).status_code in (401, 403)
    assert stored() == (0, 0)


def test_it_lets_an_ingest_key_read_and_change_nothing(
    ingest: APIClient, instance: Instance, acme: Organization
) -> None:
    """Every operation of the schema (and /metrics) is a 403 to an ingest key, except the
    public ones (sign-in, CSRF cookie, ...), which answer it as they answer anyone."""
    anonymous = APIClient()

    def call(client: APIClient, method: str, url: str) -> int:
        if method == "get":
            return client.get(url).status_code
        return getattr(client, method)(url, {}, format="json").status_code

    answers, public = {}, {}
    operations = [
        (method, path)
        for path, methods in schema_operations().items()
        if path != URL
        for method in methods
    ]
    for method, path in [*operations, ("get", "/metrics")]:
        url = path.replace("{id}", str(instance.pk))
        code = call(ingest, method, url)
        if code != 403:
            answers[f"{method.upper()} {path}"] = code
            public[f"{method.upper()} {path}"] = call(anonymous, method, url)
    # Anything but a 403 must be what an anonymous caller gets, from an endpoint open to all.
    assert answers == public
    assert not {op: code for op, code in public.items() if code in (401, 403)}
    assert len(answers) < 12 < len(operations)
    assert Instance.objects.filter(pk=instance.pk, name=instance.name).exists()


def test_it_prunes_agent_points_past_raw_retention_and_keeps_the_first_kept_day(
    instance: Instance,
) -> None:
    as_of = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.UTC)
    first_kept = dt.datetime(2026, 11, 27, tzinfo=dt.UTC)  # 5 days of retention
    for moment in (first_kept - dt.timedelta(seconds=1), first_kept, as_of):
        GpuSample.objects.create(
            instance=instance, gpu_index=0, sampled_at=moment, received_at=as_of
        )
        WorkCounterPoint.objects.create(
            instance=instance,
            source="report",
            name="samples",
            sampled_at=moment,
            value=1,
            received_at=as_of,
        )
    assert agent_points_prune(as_of=as_of, retention_days=5, batch_size=1) == 2
    assert agent_points_prune(as_of=as_of, retention_days=5) == 0
    assert sorted(GpuSample.objects.values_list("sampled_at", flat=True)) == [first_kept, as_of]
    assert WorkCounterPoint.objects.count() == 2


def test_it_rolls_each_card_up_by_hour_leaving_missing_values_out(
    ingest: APIClient, instance: Instance
) -> None:
    hour = timezone.now().astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
    hour -= dt.timedelta(hours=2)

    def reading(minute: int, util: float | None, power: float | None, reasons: int | None) -> dict:
        moment = (hour + dt.timedelta(minutes=minute)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return sample(0, sampled_at=moment, util_pct=util, power_w=power, throttle_reasons=reasons)

    batch = {
        "instance_id": instance.provider_id,
        "samples": [
            reading(1, 90, 300, 0x4),  # power cap
            reading(2, None, 310, 0x24),  # power cap and thermal
            reading(3, 50, None, None),
            reading(4, 100, None, 0),
            reading(61, 10, 100, 0),  # the next hour
        ],
    }
    assert post(ingest, batch).status_code == 200
    assert post(ingest, batch).status_code == 200  # resent: the same rollups
    first, second = GpuHourRollup.objects.filter(instance=instance).order_by("hour_start")
    assert (first.hour_start, first.samples, first.gpu_name) == (hour, 4, "NVIDIA H800")
    # By hand: util 90, 50, 100 (one missing): mean 80, p95 = 90 + 0.9 x (100 - 90), max 100.
    assert (first.util_pct_avg, first.util_pct_p95, first.util_pct_max) == (80, 99, 100)
    assert (first.util_pct_samples, first.power_w_avg, first.power_w_samples) == (3, 305, 2)
    assert (first.throttle_samples, first.power_throttled_samples) == (3, 2)
    assert first.thermal_throttled_samples == 1
    assert (second.samples, second.util_pct_avg, second.power_throttled_samples) == (1, 10, 0)
    # A late reading of the first hour rebuilds it.
    late = {"instance_id": instance.provider_id, "samples": [reading(30, 20, None, None)]}
    assert post(ingest, late).status_code == 200
    first.refresh_from_db()
    assert (first.samples, first.util_pct_avg, first.power_w_avg) == (5, 65, 305)


def test_it_rolls_up_an_hour_without_a_power_reading_as_null_not_zero(
    ingest: APIClient, instance: Instance
) -> None:
    batch = {"instance_id": instance.provider_id, "samples": [sample(0, power_w=None)]}
    assert post(ingest, batch).status_code == 200
    (rollup,) = GpuHourRollup.objects.all()
    assert (rollup.power_w_avg, rollup.power_w_max, rollup.power_w_samples) == (None, None, 0)


def test_it_makes_ingest_keys_through_the_api_keys_endpoint(
    alice_client: APIClient, instance: Instance
) -> None:
    created = alice_client.post(
        "/api/v1/api-keys", {"name": "agents", "scope": "ingest"}, format="json"
    )
    assert created.status_code == 201, created.json()
    assert created.json()["scope"] == "ingest"
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {created.json()['key']}")
    assert (
        post(agent, {"instance_id": instance.provider_id, "samples": [sample(0)]}).status_code
        == 200
    )
    assert agent.get("/api/v1/instances").status_code == 403
