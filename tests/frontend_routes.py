"""The front-end's routes, read from its source, so a test can check that an e-mail's links
open a page that exists (the server answers every unknown path with the React app, which then
shows "not found": a wrong link fails nowhere but in the reader's browser).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

SRC = Path(__file__).resolve().parent.parent / "frontend" / "src"
APP = SRC / "App.tsx"
SETTINGS = SRC / "pages" / "settings" / "SettingsPage.tsx"
_ROUTE = re.compile(r'<Route\s+(?:index\b|path="(?P<path>[^"]*)")')
# Paths the server answers itself; everything else is the React app's.
SERVER_PREFIXES = ("/api/", "/admin/", "/static/")


def _route_paths(source: Path) -> list[str]:
    """Each ``<Route>``'s path ("" for an index route), in source order."""
    return [match["path"] or "" for match in _ROUTE.finditer(source.read_text())]


def frontend_routes() -> list[str]:
    """Every page's path pattern (``/recommendations/:id``); ``settings/*`` is expanded into
    its tabs, and the catch-all "not found" routes are left out."""
    tabs = [path for path in _route_paths(SETTINGS) if path != "*"]
    routes = []
    for path in _route_paths(APP):
        if path == "*":
            continue
        path = "/" + path.lstrip("/")
        if path.endswith("/*"):
            prefix = path[: -len("/*")]
            routes += [f"{prefix}/{tab}".rstrip("/") for tab in tabs]
        else:
            routes.append(path)
    return routes


def _matches(pattern: str, path: str) -> bool:
    wanted, given = pattern.strip("/").split("/"), path.strip("/").split("/")
    return len(wanted) == len(given) and all(
        w == g or (w.startswith(":") and g != "") for w, g in zip(wanted, given, strict=True)
    )


def is_page(url: str) -> bool:
    """Whether ``url`` opens one of the front-end's pages (not its "not found")."""
    path = urlsplit(url).path or "/"
    return any(_matches(pattern, path) for pattern in frontend_routes())


def is_served(url: str) -> bool:
    """A front-end page, or a path the server answers itself (an API link)."""
    return urlsplit(url).path.startswith(SERVER_PREFIXES) or is_page(url)
