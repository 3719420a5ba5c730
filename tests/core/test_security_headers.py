"""The browser's half of "no script from data": a strict Content-Security-Policy on every
response, the CSRF token out of scripts' reach (an HttpOnly cookie; the page carries the token),
and pages of our own that need no inline script to work."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.test.utils import override_settings
from rest_framework.test import APIClient

from apps.accounts.models import User

pytestmark = pytest.mark.django_db

INDEX = """<!doctype html>
<html lang="en">
  <head>
    <title>GPU Ledger</title>
    <script type="module" crossorigin src="/static/assets/index-abc.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
"""


@pytest.fixture
def built_frontend(tmp_path: Path) -> Iterator[Path]:
    """A front-end build of one index.html, as Vite writes it."""
    (tmp_path / "index.html").write_text(INDEX, encoding="utf-8")
    with override_settings(FRONTEND_DIST_DIR=tmp_path):
        yield tmp_path


def directives(header: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


class Scripts(HTMLParser):
    """The <script> elements of a page and the <meta> CSRF token."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline: list[str] = []
        self.csrf_meta: list[str | None] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self.scripts.append(values)
            self._in_script = "src" not in values and values.get("type") != "application/json"
        if tag == "meta" and values.get("name") == "csrf-token":
            self.csrf_meta.append(values.get("content"))
        for name, _value in attrs:
            assert not name.startswith("on"), f"an event handler attribute: <{tag} {name}=...>"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(data.strip()[:80])


def parsed(html: bytes) -> Scripts:
    page = Scripts()
    page.feed(html.decode())
    return page


@pytest.mark.usefixtures("built_frontend")
@pytest.mark.parametrize(
    "path",
    ["/", "/projects/x", "/admin/login/", "/api/docs/", "/api/v1/auth/csrf"],
)
def test_it_sends_a_strict_policy_on_every_page_and_answer(client: Client, path: str) -> None:
    response = client.get(path, HTTP_ACCEPT="text/html")
    assert response.status_code == 200, response.content[:300]
    policy = directives(response.headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    # Nothing loads from another host: every source is this origin, data: or a keyword.
    for directive, sources in policy.items():
        for source in sources:
            assert source in {"'self'", "'none'", "data:", "'unsafe-inline'"}, (directive, source)
        if directive != "style-src":
            assert "'unsafe-inline'" not in sources, directive
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.usefixtures("built_frontend")
@pytest.mark.parametrize("path", ["/", "/admin/login/", "/api/docs/"])
def test_its_pages_need_no_inline_script(client: Client, path: str) -> None:
    page = parsed(client.get(path, HTTP_ACCEPT="text/html").content)
    assert page.scripts, "the page has no script at all"
    assert page.inline == [], f"{path} has inline script the policy refuses: {page.inline}"


def test_the_swagger_ui_start_up_script_is_a_file_of_its_own(client: Client) -> None:
    page = parsed(client.get("/api/docs/").content)
    start = [s["src"] for s in page.scripts if s.get("src") and "script" in (s["src"] or "")]
    assert start == ["/api/docs/?script="]
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script.headers["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content


@pytest.mark.usefixtures("built_frontend")
def test_the_page_carries_the_csrf_token_and_the_cookie_is_out_of_scripts_reach(
    alice: User,
) -> None:
    browser = APIClient(enforce_csrf_checks=True)
    response = browser.get("/login")
    cookie = response.cookies["csrftoken"]
    assert cookie["httponly"] is True
    # Never cached for somebody else: the page holds this visitor's token.
    assert "no-store" in response.headers["Cache-Control"]
    [token] = parsed(response.content).csrf_meta
    assert token

    # The page's token is what a sign-in needs (the client sends it as X-CSRFToken).
    signed_in = browser.post(
        "/api/v1/auth/login",
        {"email": "alice@acme.test", "password": "alice-pass-123"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert signed_in.status_code == 200, signed_in.content
    # The sign-in rotated it: the old one no longer passes, the endpoint's new one does.
    stale = browser.post("/api/v1/auth/logout", HTTP_X_CSRFTOKEN=token)
    assert stale.status_code == 403
    assert "CSRF" in stale.json()["error"]["message"]
    fresh = browser.get("/api/v1/auth/csrf").json()["csrfToken"]
    assert browser.post("/api/v1/auth/logout", HTTP_X_CSRFTOKEN=fresh).status_code in {200, 204}


def test_a_missing_front_end_page_has_the_policy_too(client: Client, tmp_path: Path) -> None:
    with override_settings(FRONTEND_DIST_DIR=tmp_path):
        response = client.get("/")
    assert response.status_code == 503
    assert directives(response.headers["Content-Security-Policy"])["script-src"] == ["'self'"]
