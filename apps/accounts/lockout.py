"""The response for a login blocked by django-axes, in the API's one error format."""

from django.http import HttpRequest, JsonResponse


def lockout_response(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    return JsonResponse(
        {
            "error": {
                "code": "locked_out",
                "message": "Too many failed sign-in attempts. Try again in 15 minutes.",
                "fields": {},
            }
        },
        status=429,
    )
