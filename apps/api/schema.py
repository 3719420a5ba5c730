"""OpenAPI descriptions of the API's own authentication classes (for drf-spectacular)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object


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
