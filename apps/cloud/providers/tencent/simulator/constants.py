"""Fixed values of the simulated Tencent Cloud: credentials, API versions, limits, time helpers.

Everything here is plain data so that tests of other components can import it without starting
a server (e.g. to build a ``Credential`` with the default key pair).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from functools import lru_cache
from typing import TypedDict

# The default credential pair. The key is 32 characters like a real SecretKey; it is a
# simulator-only secret and grants nothing anywhere else.
DEFAULT_SECRET_ID = "AKIDsimulator0000000000000000000000"
DEFAULT_SECRET_KEY = "simulatorSecretKey00000000000000"
DEFAULT_CREDENTIALS: dict[str, str] = {DEFAULT_SECRET_ID: DEFAULT_SECRET_KEY}
# Two more pairs with narrower CAM policies (see ``cam.DEFAULT_POLICIES``): a read-only key
# (everything but StopInstances/StartInstances) and a write key that may call only
# StopInstances, StartInstances and DescribeInstances, as docs/automation.md tells users to
# create. The default pair keeps every permission, so existing set-ups keep working.
READ_ONLY_SECRET_ID = "AKIDsimulatorReadOnly00000000000000"
READ_ONLY_SECRET_KEY = "simulatorReadOnlyKey000000000000"
WRITE_SECRET_ID = "AKIDsimulatorWrite00000000000000000"
WRITE_SECRET_KEY = "simulatorWriteKey000000000000000"
# Every pair a simulator accepts unless told otherwise.
SIMULATOR_CREDENTIALS: dict[str, str] = {
    **DEFAULT_CREDENTIALS,
    READ_ONLY_SECRET_ID: READ_ONLY_SECRET_KEY,
    WRITE_SECRET_ID: WRITE_SECRET_KEY,
}

# Service name (the credential scope) -> the only API version the simulator speaks for it.
SERVICE_VERSIONS: dict[str, str] = {
    "cvm": "2017-03-12",
    "monitor": "2018-07-24",
    "billing": "2018-07-09",
    "tag": "2018-08-13",
}

# Signatures older or newer than this are rejected with AuthFailure.SignatureExpire.
SIGNATURE_MAX_SKEW_SECONDS = 300

# Paging and request-size limits of the real APIs (see reference/tencent-api.md).
DESCRIBE_INSTANCES_MAX_LIMIT = 100
DESCRIBE_INSTANCES_DEFAULT_LIMIT = 20
BILL_DETAIL_MAX_LIMIT = 300
BILL_DETAIL_DEFAULT_LIMIT = 20
TAG_DEFAULT_LIMIT = 15
TAG_MAX_RESOURCE_IDS = 50
MONITOR_DEFAULT_MAX_INSTANCES = 10
MONITOR_DEFAULT_MAX_POINTS = 1440
MONITOR_SUPPORTED_PERIODS = (60, 300, 3600, 86400)
# Cloud Monitor publishes a point only once this much time has passed after its period ended.
MONITOR_DEFAULT_LAG_SECONDS = 90

# Documented per-second rate limits, enforced per (SecretId, action) when rate limiting is on.
DEFAULT_RATE_LIMITS: dict[str, int] = {
    "DescribeInstances": 40,
    "DescribeInstanceTypeConfigs": 40,
    "DescribeZoneInstanceConfigInfos": 40,
    "GetMonitorData": 20,
    "DescribeBillDetail": 5,
    "DescribeAccountBalance": 20,
    "DescribeResourceTagsByResourceIds": 20,
    "StopInstances": 10,
    "StartInstances": 10,
}

# The account behind the default credentials.
ACCOUNT_UIN = "100012345678"
# Cash the account started with, in fen; the balance API subtracts every settled bill line.
INITIAL_CASH_FEN = 150_000_000

# Tencent bills, bill months and bill timestamps are in Beijing time (UTC+8, no DST).
BEIJING = timezone(timedelta(hours=8), "Asia/Shanghai")


class Region(TypedDict):
    RegionId: str
    RegionName: str
    # Zone name -> (ZoneId, ZoneName).
    Zones: dict[str, tuple[str, str]]


REGIONS: dict[str, Region] = {
    "ap-guangzhou": {
        "RegionId": "1",
        "RegionName": "华南地区（广州）",
        "Zones": {
            "ap-guangzhou-3": ("100003", "广州三区"),
            "ap-guangzhou-4": ("100004", "广州四区"),
            "ap-guangzhou-6": ("100006", "广州六区"),
        },
    },
    "ap-shanghai": {
        "RegionId": "4",
        "RegionName": "华东地区（上海）",
        "Zones": {
            "ap-shanghai-2": ("200002", "上海二区"),
            "ap-shanghai-4": ("200004", "上海四区"),
            "ap-shanghai-5": ("200005", "上海五区"),
        },
    },
}


def zone_region(zone: str) -> str:
    """Return the region of a zone name such as ``ap-guangzhou-3``."""
    return zone.rsplit("-", 1)[0]


def utc_now() -> datetime:
    """The default simulation clock: the real time, timezone-aware UTC."""
    return datetime.now(UTC)


def to_epoch(moment: datetime) -> int:
    """Whole unix seconds of an aware datetime."""
    return int(moment.timestamp())


def from_epoch(seconds: float) -> datetime:
    """Aware UTC datetime of unix seconds."""
    return datetime.fromtimestamp(seconds, UTC)


def iso_utc(seconds: float) -> str:
    """``YYYY-MM-DDThh:mm:ssZ`` as DescribeInstances writes CreatedTime."""
    return from_epoch(seconds).strftime("%Y-%m-%dT%H:%M:%SZ")


@lru_cache(maxsize=4096)
def _utc_date(day: int) -> str:
    return datetime.fromtimestamp(day * 86400, UTC).strftime("%Y-%m-%d")


def beijing_str(seconds: float) -> str:
    """``YYYY-MM-DD hh:mm:ss`` in Beijing time, as the bill APIs write times.

    Formatted by hand because bill pages format tens of thousands of times and strftime
    dominated the cost; Beijing has no DST, so shifting by 8 hours is exact.
    """
    day, rest = divmod(int(seconds) + 8 * 3600, 86400)
    return f"{_utc_date(day)} {rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


def iso_beijing(seconds: float) -> str:
    """ISO-8601 with a +08:00 offset, as GetMonitorData echoes StartTime/EndTime."""
    return datetime.fromtimestamp(seconds, BEIJING).isoformat()


def month_bounds(month: str) -> tuple[int, int]:
    """Unix seconds of the start and end (exclusive) of a ``YYYY-MM`` bill month, Beijing time."""
    year, mon = (int(part) for part in month.split("-"))
    start = datetime(year, mon, 1, tzinfo=BEIJING)
    end = datetime(year + (mon == 12), mon % 12 + 1, 1, tzinfo=BEIJING)
    return to_epoch(start), to_epoch(end)


def month_of(seconds: float) -> str:
    """The ``YYYY-MM`` Beijing bill month containing a moment."""
    return datetime.fromtimestamp(seconds, BEIJING).strftime("%Y-%m")
