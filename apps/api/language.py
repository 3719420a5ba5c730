"""The API answers in its reader's language.

One precedence for every caller: the language the request's Accept-Language names among ours
(the dashboard sends the language it is showing on every request, whatever chose it: the
person's choice, or their browser's until they chose; finance tooling with an API key names its
own), else the signed-in person's choice (``User.language``), else English. Words rendered at
the edge (``gettext``: recommendation titles and risks, alert texts, threshold labels and help,
audit action labels, DRF's own error messages) follow it; the figures do not change.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation.trans_real import parse_accept_lang_header


def accepted_language(request: HttpRequest) -> str | None:
    """The first of our languages the request's Accept-Language names (by quality), if any."""
    for code, _quality in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", "")):
        if code == "*":
            continue
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return None


def request_language(request: HttpRequest) -> str:
    user = getattr(request, "user", None)
    chosen = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
    return accepted_language(request) or chosen or "en"


class ApiLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith("/api/"):
            return self.get_response(request)
        language = request_language(request)
        with translation.override(language):
            response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ("Accept-Language",))
        return response
