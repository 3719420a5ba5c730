"""Price catalog sync: what each instance type costs this account, per zone and charge type.

``DescribeZoneInstanceConfigInfos`` quotes yuan (or dollars on the international site) as
floats; they are converted through ``str`` to Decimal so 5.2 stays 5.2, not 5.2000000000000002.
Pay-as-you-go and spot quote per hour (``UnitPrice`` list, ``UnitPriceDiscount`` paid);
subscriptions quote per month (``OriginalPrice`` list, ``DiscountPrice`` paid).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction

from apps.cloud.models import ChargeType, CloudAccount, InstancePrice
from apps.cloud.providers.tencent.client import TencentClient

PRICED_CHARGE_TYPES = (ChargeType.POSTPAID_BY_HOUR, ChargeType.PREPAID, ChargeType.SPOTPAID)


@dataclass(frozen=True)
class PricesResult:
    prices: int

    def __str__(self) -> str:
        return f"{self.prices} prices"


def _money(value: Any) -> Decimal | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    amount = Decimal(str(value))
    return amount if amount > 0 else None


def _price_fields(charge_type: str, price: dict[str, Any]) -> dict[str, Decimal | None]:
    if charge_type == ChargeType.PREPAID:
        return {
            "monthly_list": _money(price.get("OriginalPrice")),
            "monthly": _money(price.get("DiscountPrice")),
            "hourly_list": None,
            "hourly": None,
        }
    return {
        "hourly_list": _money(price.get("UnitPrice")),
        "hourly": _money(price.get("UnitPriceDiscount")) or _money(price.get("UnitPrice")),
        "monthly_list": None,
        "monthly": None,
    }


def sync_prices(account: CloudAccount, client: TencentClient) -> PricesResult:
    rows: list[InstancePrice] = []
    for region in account.regions:
        for charge_type in PRICED_CHARGE_TYPES:
            for item in client.describe_zone_instance_config_infos(region, charge_type):
                rows.append(
                    InstancePrice(
                        account=account,
                        region=region,
                        zone=item["Zone"],
                        instance_type=item["InstanceType"],
                        charge_type=charge_type,
                        currency=account.currency,
                        **_price_fields(charge_type, item.get("Price") or {}),
                    )
                )
    with transaction.atomic():
        InstancePrice.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["account", "zone", "instance_type", "charge_type"],
            update_fields=[
                "region",
                "hourly_list",
                "hourly",
                "monthly_list",
                "monthly",
                "currency",
                "updated_at",
            ],
        )
    return PricesResult(prices=len(rows))
