"""OpenAPI plumbing (drf-spectacular): the authentication schemes, the error shape and the
statuses every operation documents."""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from drf_spectacular.utils import Direction, OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny

from apps.api.parameters import bound_integer_schema
from apps.api.serializers import StrictInputMixin, decimal_pattern


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "apps.api.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema: object) -> dict:
        return build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix="Bearer"
        )


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "apps.api.authentication.CsrfSessionAuthentication"
    name = "session"

    def get_security_definition(self, auto_schema: object) -> dict:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Machine-readable: invalid, not_found, permission_denied, throttled, ..."
    )
    message = serializers.CharField(help_text="What went wrong, for a person.")
    # DRF's metaclass moves declared fields out of the class body, so this does not shadow
    # Serializer.fields at run time; only the type checker sees a clash.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per input field (body or query parameter), what is wrong with it.",
    )


class ErrorSerializer(serializers.Serializer):
    """The one error shape of the API (apps/api/exceptions.py)."""

    error = ErrorDetailSerializer()


_ERROR_DESCRIPTIONS = {
    "400": "Invalid input: `error.fields` names each bad field or query parameter.",
    "401": "No credentials, or an invalid or revoked API key.",
    "403": "Signed in, but the role (or the API key's scope) may not do this; or a failed "
    "CSRF check of a browser session.",
    "404": "No such object in the request's organization (another organization's objects "
    "are not found either), or no such page.",
    "415": "The request body is not JSON (`Content-Type: application/json`).",
    "429": "Too many requests for this API key or person: wait `Retry-After` seconds.",
}
_ERROR_EXAMPLES = {
    "400": ("invalid", 'Invalid input: scope: "admin" is not a valid choice.',
            {"scope": ['"admin" is not a valid choice.']}),
    "404": ("not_found", "Not found.", {}),
    "429": ("throttled", "Request was throttled. Expected available in 12 seconds.", {}),
}  # fmt: skip


def _error_response(code: str) -> OpenApiResponse:
    examples = []
    if code in _ERROR_EXAMPLES:
        error_code, message, fields = _ERROR_EXAMPLES[code]
        examples.append(
            OpenApiExample(
                error_code,
                value={"error": {"code": error_code, "message": message, "fields": fields}},
                response_only=True,
                status_codes=[code],
            )
        )
    return OpenApiResponse(ErrorSerializer, _ERROR_DESCRIPTIONS[code], examples)


_RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "integer"},
        "description": "Seconds to wait before the next request.",
    }
}
_ETAG = {
    "ETag": {
        "schema": {"type": "string"},
        "description": "A strong validator of this representation: send it back in "
        "`If-None-Match` to get a 304 while the report is unchanged.",
    }
}


def _requires_credentials(view: Any) -> bool:
    return any(not isinstance(permission, AllowAny) for permission in view.get_permissions())


def _state_input_limits(field: Any, schema: dict[str, Any]) -> None:
    """Add to a request field's schema the limits its serializer enforces beyond what
    drf-spectacular states, so that a request the schema allows is one the server takes."""
    from apps.accounts.models import validate_timezone
    from apps.core.timezones import TIMEZONES

    if isinstance(field, serializers.DecimalField) and isinstance(field.parent, StrictInputMixin):
        # StrictInputMixin takes a decimal as a plain string only (drf-spectacular's pattern
        # would also admit "", "-" and a minus sign where the minimum is 0).
        schema["pattern"] = decimal_pattern(field)
    if getattr(field, "allow_empty", True) is False and schema.get("type") == "array":
        schema["minItems"] = max(schema.get("minItems", 0), 1)
    if validate_timezone in getattr(field, "validators", ()):
        schema["enum"] = [*TIMEZONES, ""] if getattr(field, "allow_blank", False) else [*TIMEZONES]
    extra = getattr(field, "request_schema", None)
    if callable(extra):
        schema.update(extra())
    if (
        isinstance(field, serializers.CharField)
        and field.trim_whitespace
        and not field.allow_blank
        and schema.get("type") == "string"
        and not {"pattern", "format", "enum", "oneOf", "allOf"} & set(schema)
        # A regex validator's pattern (a slug's) is stated after this, and says more.
        and not any(isinstance(v, RegexValidator) for v in field.validators)
    ):
        # DRF trims the text, then refuses it if nothing is left: "   " is blank too.
        schema["pattern"] = r"\S"


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus what every operation of this API can answer.

    Each operation documents, beside its success, the error statuses it can give in the one
    error shape (``Error``): 400 always (bad input, bad query parameters), 401 and 404 where
    credentials are needed (an unknown ``X-Organization`` is a 404 too), 403 (roles, scopes,
    CSRF), 415 where there is a body and 429 where a throttle applies (with ``Retry-After``).
    Views with ``ConditionalGetMixin`` document ``ETag``, ``If-None-Match`` and 304.
    """

    def _conditional(self) -> bool:
        from apps.api.conditional import ConditionalGetMixin

        return self.method == "GET" and isinstance(self.view, ConditionalGetMixin)

    def get_override_parameters(self) -> list:
        parameters = list(super().get_override_parameters())
        if self._conditional():
            parameters.append(
                OpenApiParameter(
                    "If-None-Match",
                    str,
                    OpenApiParameter.HEADER,
                    description="An ETag of an earlier answer: 304 without a body if unchanged.",
                )
            )
        return parameters

    def _get_parameters(self) -> list[dict[str, Any]]:
        # Integer parameters (ids, filters, pages) state the 64-bit range the API enforces
        # (apps/api/parameters.py) unless they state a narrower one.
        parameters: list[dict[str, Any]] = super()._get_parameters()
        for parameter in parameters:
            bound_integer_schema(parameter.get("schema", {}))
        return parameters

    def _map_serializer_field(
        self, field: Any, direction: Direction, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_serializer_field(field, direction, bypass_extensions)
        # An id sent in a body (a project, a budget's scope) is a 64-bit integer at most: a
        # larger one is refused as "does not exist", as the schema then says it is invalid.
        if direction == "request" and isinstance(
            field, serializers.PrimaryKeyRelatedField | serializers.ManyRelatedField
        ):
            bound_integer_schema(schema)
        if direction == "request":
            _state_input_limits(field, schema)
        return schema

    def _map_basic_serializer(self, serializer: Any, direction: Direction) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and isinstance(serializer, StrictInputMixin):
            # A strict serializer refuses a field it does not have ("Unknown field.").
            schema["additionalProperties"] = False
            # What several fields must be together (one of two given, ...), where a
            # serializer's validate() enforces it: stated by the serializer beside the check.
            schema.update(getattr(serializer, "request_schema_extra", {}))
        return schema

    def _get_response_bodies(self, direction: Direction = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        codes = ["400", "403"]
        has_path_parameters = "{" in self.path
        if _requires_credentials(self.view):
            codes += ["401", "404"]
        elif has_path_parameters:
            codes.append("404")
        if self.method in ("POST", "PUT", "PATCH"):
            codes.append("415")
        if self.view.get_throttles():
            codes.append("429")
        for code in sorted(codes):
            if code in responses:
                continue
            response = self._get_response_for_code(_error_response(code), code, direction=direction)
            if code == "429":
                response["headers"] = _RETRY_AFTER
            responses[code] = response
        if self._conditional():
            if "200" in responses:
                responses["200"].setdefault("headers", {}).update(_ETAG)
            responses["304"] = {
                "description": "Not modified: the `If-None-Match` ETag is still current.",
                "headers": _ETAG,
            }
        return responses
