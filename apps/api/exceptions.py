"""The API's one error format: ``{"error": {"code", "message", "fields"}}``.

Every error, from a malformed JSON body to an unexpected exception, leaves the API in this
shape, so clients parse one thing. Model-level ``ValidationError`` raised by services becomes a
400 with the offending fields, like a serializer's.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)

NON_FIELD_KEYS = ("non_field_errors", "__all__")


def _flatten(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        return [f"{key}: {msg}" for key, value in detail.items() for msg in _flatten(value)]
    if isinstance(detail, list):
        return [msg for item in detail for msg in _flatten(item)]
    return [str(detail)]


def _fields(detail: Any) -> dict[str, list[str]]:
    if not isinstance(detail, dict):
        return {}
    return {key: _flatten(value) for key, value in detail.items() if key not in NON_FIELD_KEYS}


def error_body(
    code: str, message: str, fields: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


def invalid_body(fields: dict[str, list[str]]) -> dict[str, Any]:
    """The 400 body of bad input, ``fields`` naming each bad field or query parameter."""
    message = "Invalid input: " + "; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items())
    return error_body("invalid", message, fields)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, DjangoValidationError):
        detail = (
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
        exc = exceptions.ValidationError(detail=detail)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("unhandled API error", exc_info=exc)
        return Response(
            error_body("server_error", "Something went wrong on our side. It has been logged."),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )

    if isinstance(exc, exceptions.ValidationError):
        fields = _fields(exc.detail)
        non_field = (
            exc.detail.get("non_field_errors") if isinstance(exc.detail, dict) else exc.detail
        )
        if non_field:
            response.data = error_body("invalid", " ".join(_flatten(non_field)), fields)
        else:
            response.data = invalid_body(fields)
    elif isinstance(exc, exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else exc.default_code
        response.data = error_body(str(code), " ".join(_flatten(exc.detail)))
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and not response.has_header(
        "Retry-After"
    ):
        # Every 429 says when to come back. Our throttles always know (their wait is at least a
        # second); a throttle that cannot tell gets a minute, DRF's shortest rate window.
        response["Retry-After"] = str(max(1, math.ceil(getattr(exc, "wait", None) or 60)))
    return response
