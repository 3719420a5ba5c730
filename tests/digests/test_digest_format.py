"""How a digest writes its durations and draws its charts: hours with one decimal and thousands
separators in both languages; charts with the unit of their value axis and a legend."""

from __future__ import annotations

import datetime as dt
import io
import re
from decimal import Decimal

import pytest
from django.utils import translation
from PIL import Image
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.digests import charts, services
from apps.digests.content import Stopwatch, digest_content
from apps.digests.emails import _movers, digest_periods, digest_render, hours
from apps.digests.models import DigestSubscription
from apps.digests.selectors import UNALLOCATED, Mover
from tests.digests.world import SHANGHAI, World, build_world, make_user

pytestmark = pytest.mark.django_db

# November 2026 in Shanghai: the world's bills and phases run from 8 November (UTC), so the
# month holds more than a thousand GPU-hours (three cards, 544 hours each).
MONTH = (dt.datetime(2026, 11, 1, tzinfo=SHANGHAI), dt.datetime(2026, 12, 1, tzinfo=SHANGHAI))
WEEK = (dt.datetime(2026, 11, 23, tzinfo=SHANGHAI), dt.datetime(2026, 11, 30, tzinfo=SHANGHAI))


@pytest.fixture
def world(acme: Organization) -> World:
    return build_world(acme)


def subscribe(world: World, user: User, frequency: str) -> DigestSubscription:
    return services.subscription_save(
        subscription=DigestSubscription(
            organization=world.organization, user=user, frequency=frequency, day_of_month=1
        ),
        now=MONTH[1] - dt.timedelta(days=3),
    )


def figure(html: str, name: str) -> str:
    match = re.search(rf'data-figure="{name}">([^<]+)<', html)
    assert match, name
    return match.group(1)


def test_it_rounds_hours_to_one_decimal_with_thousands_separators() -> None:
    assert hours("1234.5499") == "1,234.5"
    assert hours(Decimal("1234.55")) == "1,234.6"  # half up, like the money
    assert hours("0") == "0.0"
    assert hours("1000000.04") == "1,000,000.0"


def test_it_writes_the_months_gpu_hours_with_separators_in_english_and_chinese(
    world: World, alice: User, alice_client: APIClient
) -> None:
    summary = alice_client.get(
        "/api/v1/analysis/summary",
        {"start": MONTH[0].isoformat(), "end": MONTH[1].isoformat()},
    ).json()["totals"]
    total = Decimal(summary["gpu_hours"])
    assert total == Decimal("1632")  # 3 cards x (22 days + 16 hours) of the month
    training = Decimal(summary["phases"]["training"]["gpu_hours"])
    assert training == Decimal("816")  # 12 of every 24 hours

    english = digest_render(
        subscription=subscribe(world, alice, "monthly"), period_start=MONTH[0], period_end=MONTH[1]
    )
    assert figure(english.html, "gpu-hours") == "1,632.0"
    assert "GPU total: 1,632.0 GPU-hours, " in english.text
    assert "Training: 816.0 GPU-hours, " in english.text
    assert ">816.0</td>" in english.html  # the phase table's GPU-hours column

    li = make_user("li@acme.test", language="zh-hans")
    world.organization.members.add(li)
    chinese = digest_render(
        subscription=subscribe(world, li, "monthly"), period_start=MONTH[0], period_end=MONTH[1]
    )
    assert figure(chinese.html, "gpu-hours") == "1,632.0"
    assert "GPU 合计: 1,632.0 GPU 小时, " in chinese.text
    assert "训练: 816.0 GPU 小时, " in chinese.text
    assert " h, " not in english.text + chinese.text  # the bare "h" of before


def _pixel(png: bytes, box: tuple[int, int, int, int]) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    left, top, right, bottom = box
    return image.getpixel(((left + right) // 2, (top + bottom) // 2))  # type: ignore[return-value]


def _close(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    # The PNG is palette-mode (64 colours): a colour may move by a step or two.
    return all(abs(x - y) <= 6 for x, y in zip(a, b, strict=True))


def test_it_draws_the_spend_bars_with_their_currency_and_a_legend_of_the_periods(
    world: World, alice: User
) -> None:
    subscription = subscribe(world, alice, "weekly")
    content = digest_content(
        organization=world.organization,
        project_ids=None,
        periods=digest_periods(subscription, *WEEK),
        tz_name="Asia/Shanghai",
        stopwatch=Stopwatch(),
        use_cache=False,
    )
    drawing = charts.draw_spend_bars(content.figures.daily_spend, currency="CNY")

    assert drawing.texts[0] == "CNY"  # the unit, above the value axis
    assert [entry.label for entry in drawing.legend] == [
        "11-23 ~ 11-29",  # the digest's week, in the strong colour
        "11-16 ~ 11-22",
        "11-09 ~ 11-15",
    ]
    assert [entry.colour for entry in drawing.legend] == charts.PERIOD_COLOURS
    for entry in drawing.legend:
        assert _close(_pixel(drawing.png, entry.box), entry.colour), entry
    # The e-mail carries this very chart.
    email = digest_render(subscription=subscription, period_start=WEEK[0], period_end=WEEK[1])
    assert email.images["spend-chart"] == drawing.png


def test_it_draws_the_heatmap_with_clock_hours_and_its_colour_scale() -> None:
    days = [dt.date(2026, 11, 23), dt.date(2026, 11, 24)]
    grid: list[list[float | None]] = [[float(hour * 4) for hour in range(24)], [None] * 24]
    drawing = charts.draw_utilization_heatmap(days, grid)

    assert list(drawing.texts[:8]) == [f"{hour:02d}:00" for hour in range(0, 24, 3)]
    assert "11-23" in drawing.texts
    assert [entry.label for entry in drawing.legend] == ["0%", "25%", "50%", "75%", "100%"]
    assert "GPU" in drawing.texts
    brightness = [sum(entry.colour) for entry in drawing.legend]
    assert brightness == sorted(brightness, reverse=True)  # darker is busier
    for entry in drawing.legend:
        assert _close(_pixel(drawing.png, entry.box), entry.colour), entry
    assert charts.utilization_heatmap(days, grid) == drawing.png


def test_it_names_the_spend_no_project_claims_in_the_readers_language() -> None:
    movers = [
        Mover(key=None, name=UNALLOCATED, current=Decimal("5.00"), previous=Decimal("1.00")),
        Mover(key=7, name="nlp", current=Decimal("3.00"), previous=Decimal("1.00")),
    ]
    with translation.override("zh-hans"):
        assert [row["name"] for row in _movers(movers, "CNY")] == ["未分配", "nlp"]
    with translation.override("en"):
        assert [row["name"] for row in _movers(movers, "CNY")] == ["Unallocated", "nlp"]
