"""Conditional GETs for reports: a strong ``ETag`` of the answer and ``If-None-Match`` -> 304.

A dashboard or a finance script that polls a report sends back the ETag it got; while the
figures are unchanged the answer is a 304 without a body. The ETag is a hash of the JSON the
client would receive, so it changes exactly when the figures (or the period, or the
organization's data) do, with no bookkeeping of what changed. The report is still computed on
each request: this saves the transfer and the client's parsing, not the server's work.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import parse_etags
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

# Answers depend on who asks (the organization comes from the key, the session or this header).
VARY_ON = ("Authorization", "Cookie", "X-Organization")


def representation_etag(data: Any) -> str:
    """A strong ETag of ``data`` as its JSON (the form every client of a report receives)."""
    digest = hashlib.sha256(JSONRenderer().render(data)).hexdigest()
    return f'"{digest[:40]}"'


def etag_matches(request: Request, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (or is ``*``), per RFC 9110 (weak comparison)."""
    header = request.headers.get("If-None-Match", "")
    if not header:
        return False
    wanted = parse_etags(header)
    bare = etag.removeprefix("W/")
    return "*" in wanted or any(tag.removeprefix("W/") == bare for tag in wanted)


class ConditionalGetMixin:
    """For an APIView: successful GETs carry an ``ETag``; a matching ``If-None-Match`` is 304.

    Put it before the view's base class (``class SummaryView(ConditionalGetMixin, APIView)``).
    The schema (``ApiAutoSchema``) documents the header, the parameter and the 304 for it.
    """

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if request.method not in ("GET", "HEAD") or response.status_code != status.HTTP_200_OK:
            return response
        if not isinstance(response, Response) or response.exception:
            return response
        if response.accepted_renderer.format == "json":
            # Rendered once, here, and the ETag hashed from the bytes sent: hashing a second
            # rendering cost a 90-day cost report ~4 ms.
            response.render()
            etag = f'"{hashlib.sha256(response.content).hexdigest()[:40]}"'
        else:
            etag = representation_etag(response.data)
        response["ETag"] = etag
        patch_vary_headers(response, VARY_ON)
        # Private: a shared cache must not serve one organization's report to another; no-cache:
        # a client revalidates (cheaply, with the ETag) before using its copy.
        patch_cache_control(response, private=True, no_cache=True)
        if etag_matches(request, etag):
            response.status_code = status.HTTP_304_NOT_MODIFIED
            response.data = None
            response.content = b""
        return response
