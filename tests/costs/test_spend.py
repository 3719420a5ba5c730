"""The spend selectors every consumer reads (``apps.costs.spend``), recomputed from the lines."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest

from apps.accounts.models import Organization
from apps.costs import spend
from tests.alerts.builders import bill, make_account, make_instance, make_project

pytestmark = pytest.mark.django_db

SHANGHAI = zoneinfo.ZoneInfo("Asia/Shanghai")
START = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
END = dt.datetime(2026, 11, 3, tzinfo=dt.UTC)


@pytest.fixture
def lines(acme: Organization, globex: Organization) -> dict[str, object]:
    account = make_account(acme)
    research = make_project(acme, "research")
    train = make_instance(account, "train", research)
    bill(account, START - dt.timedelta(hours=1), "100.00", instance=train, project=research)
    # 15:00 UTC is 23:00 in Shanghai (1 November), 16:00 is 00:00 (2 November).
    bill(account, START + dt.timedelta(hours=15), "0.12345678", instance=train, project=research)
    bill(account, START + dt.timedelta(hours=16), "2.50", instance=train, project=research)
    bill(account, START + dt.timedelta(hours=17), "-0.50", instance=train, project=research)
    bill(account, START + dt.timedelta(hours=18), "1.00")  # no project, no instance
    bill(account, START + dt.timedelta(hours=19), "3.00", currency="USD")
    bill(account, END, "100.00")
    bill(make_account(globex), START + dt.timedelta(hours=18), "50.00")
    return {"research": research, "train": train}


def test_it_sums_the_lines_that_begin_in_the_period_exactly(
    acme: Organization, lines: dict[str, object]
) -> None:
    assert spend.spend_total(acme, START, END) == Decimal("6.12345678")
    assert spend.spend_total(acme, START, END, currency="CNY") == Decimal("3.12345678")
    assert spend.spend_total(acme, END, START) == Decimal(0)


def test_it_groups_by_local_day_project_and_instance(
    acme: Organization, lines: dict[str, object]
) -> None:
    research, train = lines["research"].pk, lines["train"].pk  # type: ignore[attr-defined]
    by = spend.spend_by(
        acme, START, END, ("day", "project", "instance"), tz=SHANGHAI, currency="CNY"
    )
    assert by == {
        (dt.date(2026, 11, 1), research, train): Decimal("0.12345678"),
        (dt.date(2026, 11, 2), research, train): Decimal("2.00"),
        (dt.date(2026, 11, 2), None, None): Decimal("1.00"),
    }
    assert spend.spend_by(acme, START, END, ("day",), tz=dt.UTC, currency="CNY") == {
        (dt.date(2026, 11, 1),): Decimal("3.12345678")
    }
    assert spend.spend_by(acme, START, END, ("currency",), project_ids=[research]) == {
        ("CNY",): Decimal("2.12345678")
    }


def test_it_refuses_what_it_cannot_answer(acme: Organization) -> None:
    with pytest.raises(ValueError, match="amortized"):
        spend.spend_total(acme, START, END, basis=spend.AMORTIZED)
    with pytest.raises(ValueError, match="grouped"):
        spend.spend_by(acme, START, END, ("region",))
    with pytest.raises(ValueError, match="timezone"):
        spend.spend_by(acme, START, END, ("day",))
