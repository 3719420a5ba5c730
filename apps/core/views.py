"""Serves the single-page front-end built by Vite (frontend/dist)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

FRONTEND_MISSING = """<!doctype html><title>GPU Ledger</title>
<h1>The front-end is not built yet</h1>
<p>Run <code>make frontend</code> (or <code>make demo</code>), then reload this page.</p>"""


@require_GET
@ensure_csrf_cookie
def spa_index(request: HttpRequest, path: str = "") -> HttpResponse:
    # Every non-API path returns the same index.html: the React router decides what to show.
    index = settings.FRONTEND_DIST_DIR / "index.html"
    if not index.is_file():
        return HttpResponse(FRONTEND_MISSING, status=503)
    return HttpResponse(index.read_bytes(), content_type="text/html; charset=utf-8")
