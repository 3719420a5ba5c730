"""Request validation shared by the handlers, with the real error codes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ApiError, invalid_type, invalid_value, missing
from ..world import SimulatedCloud

_TYPE_NAMES = {int: "Integer", str: "String", list: "Array", dict: "Object", bool: "Boolean"}


@dataclass(frozen=True)
class RequestContext:
    """What a handler knows about the request besides its parameters."""

    cloud: SimulatedCloud
    region: str | None
    secret_id: str
    now: int  # simulation time of the request, unix seconds
    request_id: str | None = None  # the RequestId the answer carries
    # The tag a CAM policy limits the credential's StopInstances/StartInstances to (qcs:resource_tag).
    resource_tag: tuple[str, str] | None = None


def check(
    params: Mapping[str, Any], spec: Mapping[str, type], required: tuple[str, ...] = ()
) -> None:
    """UnknownParameter, MissingParameter and InvalidParameter checks of top-level fields."""
    for name in params:
        if name not in spec:
            raise ApiError("UnknownParameter", f"The parameter `{name}` is not recognized.")
    for name in required:
        if params.get(name) is None:
            raise missing(name)
    for name, expected in spec.items():
        value = params.get(name)
        if value is None:
            continue
        # JSON booleans are Python ints; a boolean where a number is expected is still wrong.
        wrong_bool = isinstance(value, bool) and expected is not bool
        if wrong_bool or not isinstance(value, expected):
            raise invalid_type(name, _TYPE_NAMES[expected])


def paging(
    params: Mapping[str, Any], default_limit: int, max_limit: int, limit_code: str
) -> tuple[int, int]:
    """(offset, limit) with the real bounds: Offset >= 0, 1 <= Limit <= max."""
    offset = params.get("Offset", 0)
    limit = params.get("Limit", default_limit)
    if offset < 0:
        raise invalid_value("Offset", "must not be negative")
    if limit < 1:
        raise invalid_value("Limit", "must be at least 1")
    if limit > max_limit:
        raise ApiError(
            limit_code,
            f"The value `{limit}` of parameter `Limit` exceeds the maximum of {max_limit}.",
        )
    return offset, limit


def string_list(value: Any, name: str) -> list[str]:
    """A JSON array of strings, or InvalidParameter."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise invalid_type(name, "Array of String")
    return value


def filters(
    value: Any, allowed: tuple[str, ...], max_filters: int = 10, max_values: int = 5
) -> list[tuple[str, list[str]]]:
    """Parse ``Filters`` [{Name, Values}]; unknown names are InvalidFilter.

    A name ending in ``:`` in ``allowed`` is a prefix (``tag:`` accepts ``tag:<key>``).
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise invalid_type("Filters", "Array of Filter")
    if len(value) > max_filters:
        raise ApiError(
            "InvalidParameterValue.LimitExceeded", f"At most {max_filters} filters are allowed."
        )
    parsed = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("Name"), str):
            raise invalid_type("Filters.Name", "String")
        unknown = set(item) - {"Name", "Values"}
        if unknown:
            raise ApiError(
                "UnknownParameter", f"The parameter `Filters.{unknown.pop()}` is not recognized."
            )
        name = item["Name"]
        values = string_list(item.get("Values"), f"Filters.{name}.Values")
        if not any(
            name == a or (a.endswith(":") and name.startswith(a) and len(name) > len(a))
            for a in allowed
        ):
            raise ApiError("InvalidFilter", f"The filter `{name}` is not supported.")
        if len(values) > max_values:
            raise ApiError(
                "InvalidFilterValue.LimitExceeded",
                f"The filter `{name}` takes at most {max_values} values.",
            )
        parsed.append((name, values))
    return parsed
