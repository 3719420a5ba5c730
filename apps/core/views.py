"""Serves the single-page front-end built by Vite (frontend/dist)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils.html import escape
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

FRONTEND_MISSING = """<!doctype html><title>GPU Ledger</title>
<h1>The front-end is not built yet</h1>
<p>Run <code>make frontend</code> (or <code>make demo</code>), then reload this page.</p>"""

# The CSRF cookie is HttpOnly (no script can read it): the page hands its token to the client.
CSRF_META = '<meta name="csrf-token" content="{}">'


def with_csrf_token(html: str, token: str) -> str:
    """index.html with the request's CSRF token in a <meta> at the end of its head."""
    return html.replace("</head>", CSRF_META.format(escape(token)) + "\n  </head>", 1)


@require_GET
@ensure_csrf_cookie
# The page carries the visitor's CSRF token: no cache may keep it for somebody else.
@never_cache
def spa_index(request: HttpRequest, path: str = "") -> HttpResponse:
    # Every non-API path returns the same index.html: the React router decides what to show.
    index = settings.FRONTEND_DIST_DIR / "index.html"
    if not index.is_file():
        return HttpResponse(FRONTEND_MISSING, status=503)
    html = with_csrf_token(index.read_text(encoding="utf-8"), get_token(request))
    return HttpResponse(html, content_type="text/html; charset=utf-8")
