"""The API answers in its reader's language.

A person signed in to the dashboard reads the language they chose (``User.language``, which
their browser's Accept-Language must not override); any other caller (an API key of finance
tooling, a client not signed in) gets the one its Accept-Language asks for among ours, else
English. Words rendered at the edge (``gettext``: threshold labels and help, DRF's own error
messages) follow it; the figures do not change.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers


class ApiLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith("/api/"):
            return self.get_response(request)
        user = getattr(request, "user", None)
        chosen = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
        language = chosen or translation.get_language_from_request(request)
        with translation.override(language):
            response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ("Accept-Language",))
        return response
