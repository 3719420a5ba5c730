"""The organization's reserved-instance price table is validated as data."""

from __future__ import annotations

from decimal import Decimal

import pytest

from apps.recommendations.evidence import parse_reserved_prices


def test_it_reads_a_reserved_price_table_with_defaults() -> None:
    (price,) = parse_reserved_prices(
        [{"region": "ap-shanghai", "instance_type": "GN7.2XLARGE32", "hourly": "2.5"}], "CNY"
    )
    assert (price.hourly, price.term_years, price.currency) == (Decimal("2.5"), 1, "CNY")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"region": "x"}, "expected a list"),
        ([{"region": "ap-shanghai", "hourly": "2"}], r"reserved_prices\[0\]"),
        ([{"region": "r", "instance_type": "t", "hourly": "-1"}], "must be positive"),
        ([{"region": "r", "instance_type": "t", "hourly": "abc"}], r"reserved_prices\[0\]"),
    ],
)
def test_it_refuses_a_bad_reserved_price_table_naming_the_entry(raw, message) -> None:
    with pytest.raises(ValueError, match=message):
        parse_reserved_prices(raw, "CNY")
