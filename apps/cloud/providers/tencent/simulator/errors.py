"""The error an API handler raises to answer ``{"Response": {"Error": ...}}``."""

from __future__ import annotations


class ApiError(Exception):
    """A Tencent Cloud API error: sent with HTTP 200, as the real gateway does."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def missing(name: str) -> ApiError:
    """MissingParameter for a required request field."""
    return ApiError("MissingParameter", f"The request is missing a required parameter `{name}`.")


def invalid_type(name: str, expected: str) -> ApiError:
    """InvalidParameter for a field of the wrong JSON type."""
    return ApiError("InvalidParameter", f"The parameter `{name}` must be of type {expected}.")


def invalid_value(name: str, reason: str, code: str = "InvalidParameterValue") -> ApiError:
    """InvalidParameterValue (or a sub-code) for a field with a bad value."""
    return ApiError(code, f"The value of parameter `{name}` is invalid: {reason}.")


def limit_exceeded(name: str, value: object, maximum: int) -> ApiError:
    """InvalidParameterValue.LimitExceeded for a paging/size parameter above its maximum."""
    return ApiError(
        "InvalidParameterValue.LimitExceeded",
        f"The value `{value}` of parameter `{name}` exceeds the maximum of {maximum}.",
    )
