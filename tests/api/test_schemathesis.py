"""Schemathesis against /api/v1/schema/: every operation, as a read-write API key of Globex and
as its owner's browser session (session cookie, CSRF token from /api/v1/auth/csrf).

Examples are generated from the OpenAPI schema (valid and invalid ones) and sent in-process
through Django's WSGI application, so they see the test's database. Each answer must be no
server error, a documented status code and content type, and a body and headers that conform
to the schema; a valid request is accepted (but see ACCEPTANCE_NOT_CHECKED) and an invalid
one rejected. The example count per operation is bounded, and the examples are the same on
every run (derandomized: a red build is reproducible), so the run stays short;
``SCHEMATHESIS_EXPLORE=1`` draws new ones, to keep exploring the contract locally.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterator

import pytest
import schemathesis
from django.conf import LazySettings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import Client
from django.urls import resolve
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok
from schemathesis.schemas import APIOperation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from werkzeug.test import Client as WsgiClient

from apps.accounts import services as accounts_services
from apps.accounts.models import Organization, User
from apps.cloud.models import Instance, Project
from tests.api.globex_world import globex_world

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 6
# Operations after which a session is another one (signed out, or rotated by a sign-in): each
# of their examples gets a fresh session.
SESSION_CHANGING = {
    "POST /api/v1/auth/logout",
    "POST /api/v1/auth/login",
    "POST /api/v1/auth/verify-email",
    "POST /api/v1/auth/set-password",
    "POST /api/v1/invitations/accept",
}
# Schema-valid requests must be accepted, except where validity depends on more than the schema
# can state: several parameters together, or rows that must exist. Each is still checked for
# everything else (no 5xx, documented answers, invalid requests rejected).
ACCEPTANCE_NOT_CHECKED = {
    "GET /api/v1/analysis/summary": "the period: end after start, at most 93 days",
    "GET /api/v1/instances/{id}/phases": "the period: end after start, at most 31 days",
    "GET /api/v1/instances": "the project filter names an existing project's id",
    "POST /api/v1/invitations/accept": "the token is an invitation's, unused and unexpired",
    "POST /api/v1/auth/verify-email": "the token is a signed link of one person",
    "POST /api/v1/auth/set-password": "the token is a signed one-time link of one person",
    "POST /api/v1/auth/login": "the e-mail and password are a person's",
    "GET /api/v1/costs": "the period: end not before start, at most 366 days by day",
    "GET /api/v1/utilization": "the period (end not before start, at most 93 days) and the "
    "project filter names an existing project's slug",
    "GET /api/v1/utilization/hour-of-week": "the period (end not before start, at most 93 "
    "days) and the project filter names an existing project's slug",
    "GET /api/v1/usage/instances": "the period (end not before start, at most 93 days), "
    "util_max not below util_min and the project filter names an existing project's slug",
    "GET /api/v1/usage/projects": "the period: end not before start, at most 93 days",
    "GET /api/v1/exports/costs.csv": "the period: end after start, at most 366 days",
    "GET /api/v1/exports/focus.csv": "the period: end after start, at most 366 days",
    "GET /api/v1/exports/focus": "the period (end after start, at most 366 days) and the "
    "cursor is a `next` link's",
    "GET /api/v1/digests/unsubscribe": "the token is a signed link of an existing digest",
    "POST /api/v1/digests/unsubscribe": "the token is a signed link of an existing digest",
    "POST /api/v1/auth/signup": "the password passes Django's validators: not a common one, "
    "not all digits, not like the e-mail or name (the schema states its minimum length)",
    "POST /api/v1/budgets": "the project is one of the organization's",
    "POST /api/v1/digest-subscriptions": "the projects are the organization's",
    "POST /api/v1/alert-rules": "the project is one of the organization's",
    "POST /api/v1/alert-recipients": "the e-mail is a member's and the project one of the "
    "organization's",
    "PATCH /api/v1/analysis/settings": "the overrides, merged with the stored ones, agree with "
    "each other (a minimum below its maximum, a window a multiple of its block)",
    "PATCH /api/v1/recommendations/settings": "the overrides, merged with the stored ones, "
    "agree with each other (the idle level under the schedule's, the stopped coverage under "
    "the minimum coverage)",
    "POST /api/v1/recommendations/{id}/actions": "the action is one the recommendation's "
    "status allows (an accepted one is not accepted again)",
    "POST /api/v1/recommendations/{id}/automation": "the recommendation is accepted, of a kind "
    "automation carries out, on an account with a write key and automation on, and not "
    "automated yet",
    "PATCH /api/v1/recommendations/{id}/automation": "the recommendation is automated (its "
    "plan has not ended)",
    "DELETE /api/v1/recommendations/{id}/automation": "the recommendation is automated (its "
    "plan has not ended)",
    "POST /api/v1/cloud-accounts": "the endpoint resolves to no loopback, private or metadata "
    "address (DNS, at the time)",
    "POST /api/v1/cloud-accounts/test-connection": "the endpoint resolves to no loopback, "
    "private or metadata address (DNS, at the time)",
}
CHECKS = [
    not_a_server_error,
    positive_data_acceptance,
    negative_data_rejection,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture
def in_test_transaction() -> Iterator[None]:
    """Keep the test's database connection open across WSGI requests, as Django's test client
    does: the handler's request signals would otherwise close it (and the test's transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def write_key(in_test_transaction: None, globex: Organization, bob: User) -> str:
    world = globex_world(globex, bob)
    # What the issue's run found broken: a unicode project slug, an unallocated instance.
    Project.objects.create(organization=globex, name="项目a", slug="项目a")
    Instance.objects.create(
        organization=globex,
        account=world["cloud_account"],
        provider_id="ins-unallocated",
        name="unallocated",
        region="ap-shanghai",
        instance_type="GN7.2XLARGE32",
        gpu_count=1,
        project=None,
    )
    _, raw = accounts_services.api_key_create(
        organization=globex, name="schemathesis", scope="write", created_by=bob
    )
    return raw


@dataclasses.dataclass(frozen=True)
class BrowserSession:
    cookies: dict[str, str]
    headers: dict[str, str]


@pytest.fixture
def owner_session(write_key: str, bob: User) -> Callable[[], BrowserSession]:
    """A fresh browser session of Globex's owner: its cookies and its CSRF token, which the page
    gets from /api/v1/auth/csrf (the cookie is HttpOnly)."""

    def start() -> BrowserSession:
        signed_in = Client()
        signed_in.force_login(bob)  # Writes the session; no request is made.
        # Through the WSGI application, like the examples: Django's test client would close
        # the test's database connection after its request. (Werkzeug's client sends its own
        # cookies only, never a Cookie header.)
        browser = WsgiClient(WSGI)
        browser.set_cookie("sessionid", signed_in.cookies["sessionid"].value)
        answer = browser.get("/api/v1/auth/csrf")
        cookies = {name: browser.get_cookie(name).value for name in ("sessionid", "csrftoken")}  # type: ignore[union-attr]
        token = json.loads(answer.get_data())["csrfToken"]
        return BrowserSession(cookies=cookies, headers={"X-CSRFToken": token})

    return start


WSGI = get_wsgi_application()
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", WSGI)


# Parametrized by hand rather than with ``schema.parametrize()``: under pytest 9 that gives
# every operation the same node id, and pytest-xdist (``make test``) then runs only one of them.
def _operations() -> dict[str, APIOperation]:
    operations = {}
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), f"the schema has an invalid operation: {result}"
        operations[result.ok().label] = result.ok()
    return operations


OPERATIONS = _operations()


def _cases(operation: APIOperation) -> st.SearchStrategy[schemathesis.Case]:
    """Valid and invalid requests of ``operation`` (invalid only where there is input)."""
    valid = operation.as_strategy(GenerationMode.POSITIVE)
    has_input = operation.body or any(True for _ in operation.iter_parameters())
    if not has_input:
        return valid
    return st.one_of(valid, operation.as_strategy(GenerationMode.NEGATIVE))


@pytest.mark.parametrize("principal", ["key", "session"])
@pytest.mark.parametrize("label", sorted(OPERATIONS))
def test_it_answers_every_operation_as_its_schema_says(
    label: str,
    principal: str,
    write_key: str,
    owner_session: Callable[[], BrowserSession],
    settings: LazySettings,
) -> None:
    # Hundreds of requests a minute with one key: not what this test is about.
    settings.API_RATE_LIMIT = "100000/min"
    checks = CHECKS
    if label in ACCEPTANCE_NOT_CHECKED:
        checks = [check for check in CHECKS if check is not positive_data_acceptance]
    session: BrowserSession | None = None

    @hypothesis_settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=not os.environ.get("SCHEMATHESIS_EXPLORE"),
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=_cases(OPERATIONS[label]))
    def answers_as_the_schema_says(case: schemathesis.Case) -> None:
        nonlocal session
        if principal == "key":
            case.call_and_validate(headers={"Authorization": f"Bearer {write_key}"}, checks=checks)
            return
        used = session or owner_session()
        session = None if label in SESSION_CHANGING else used
        case.call_and_validate(headers=used.headers, cookies=used.cookies, checks=checks)

    answers_as_the_schema_says()


def test_it_fails_on_the_instance_project_the_issue_found_once_it_is_back(
    write_key: str, settings: LazySettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proves the checks bite: an instance's project served as a number, not the schema's
    string or null, is reported."""
    settings.API_RATE_LIMIT = "100000/min"
    serializer = resolve("/api/v1/instances").func.cls.serializer_class  # type: ignore[attr-defined]
    shown = serializer.to_representation
    monkeypatch.setattr(
        serializer, "to_representation", lambda self, row: {**shown(self, row), "project": 7}
    )
    case = schema["/api/v1/instances"]["GET"].Case()

    with pytest.raises(FailureGroup, match="Response violates schema"):
        case.call_and_validate(headers={"Authorization": f"Bearer {write_key}"}, checks=CHECKS)


def test_the_owner_session_is_signed_in_and_passes_the_csrf_check(
    owner_session: Callable[[], BrowserSession], bob: User, settings: LazySettings
) -> None:
    """The session examples act as the owner (not anonymously, which would answer 401s the
    checks accept), and their writes pass the CSRF check, which a missing token would fail."""
    session = owner_session()
    me = schema["/api/v1/me"]["GET"].Case()
    holiday = schema["/api/v1/holidays"]["POST"].Case(
        body={"date": "2026-12-25", "name": "Christmas"}
    )

    signed_in = me.call(headers=session.headers, cookies=session.cookies)
    written = holiday.call(headers=session.headers, cookies=session.cookies)
    no_token = holiday.call(cookies=session.cookies)

    assert signed_in.status_code == 200
    assert signed_in.json()["email"] == bob.email
    assert written.status_code == 201, written.text
    assert no_token.status_code == 403
    assert "CSRF" in no_token.json()["error"]["message"]
