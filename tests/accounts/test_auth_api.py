import pytest
from django.conf import LazySettings
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User

pytestmark = pytest.mark.django_db


def csrf_client() -> tuple[APIClient, str]:
    client = APIClient(enforce_csrf_checks=True)
    token = client.get("/api/v1/auth/csrf").json()["csrfToken"]
    return client, token


def test_it_signs_in_with_email_and_password_and_returns_me(
    alice: User, acme: Organization
) -> None:
    client, token = csrf_client()
    response = client.post(
        "/api/v1/auth/login",
        {"email": "Alice@Acme.test", "password": "alice-pass-123"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 200, response.content
    assert response.json()["email"] == "alice@acme.test"
    assert response.json()["organization"]["name"] == "Acme"
    assert client.get("/api/v1/me").json()["organization"]["role"] == "owner"


def test_it_rejects_a_login_without_csrf_token(alice: User) -> None:
    client = APIClient(enforce_csrf_checks=True)
    response = client.post(
        "/api/v1/auth/login", {"email": alice.email, "password": "alice-pass-123"}, format="json"
    )
    assert response.status_code == 403


def test_it_rejects_a_wrong_password_in_the_error_format(alice: User) -> None:
    client, token = csrf_client()
    response = client.post(
        "/api/v1/auth/login",
        {"email": alice.email, "password": "nope"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_credentials"
    assert client.get("/api/v1/me").status_code in (401, 403)


def test_it_locks_out_after_repeated_failures_even_with_the_right_password(alice: User) -> None:
    client, token = csrf_client()
    for _ in range(5):
        client.post(
            "/api/v1/auth/login",
            {"email": alice.email, "password": "wrong"},
            format="json",
            HTTP_X_CSRFTOKEN=token,
        )
    response = client.post(
        "/api/v1/auth/login",
        {"email": alice.email, "password": "alice-pass-123"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "locked_out"


def test_it_says_why_a_sign_in_is_refused_in_the_readers_language(alice: User) -> None:
    client, token = csrf_client()

    def sign_in(password: str) -> dict[str, str]:
        response = client.post(
            "/api/v1/auth/login",
            {"email": alice.email, "password": password},
            format="json",
            HTTP_X_CSRFTOKEN=token,
            HTTP_ACCEPT_LANGUAGE="zh-CN",
        )
        return response.json()["error"]

    assert sign_in("wrong")["message"] == "邮箱地址或密码错误。"
    for _ in range(4):
        refused = sign_in("wrong")
    assert refused["code"] == "locked_out"
    assert refused["message"].startswith("登录失败次数过多。请在 ")
    assert refused["message"].endswith(" 分钟后重试。")


def test_it_enforces_csrf_on_session_writes(alice: User, acme: Organization) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post("/api/v1/api-keys", {"name": "k", "scope": "read"}, format="json")
    assert response.status_code == 403
    token = client.get("/api/v1/auth/csrf").json()["csrfToken"]
    response = client.post(
        "/api/v1/api-keys", {"name": "k", "scope": "read"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 201


def test_it_signs_out(alice_client: APIClient) -> None:
    assert alice_client.post("/api/v1/auth/logout").status_code == 204
    assert alice_client.get("/api/v1/me").status_code == 401


def test_it_answers_401_to_anonymous_requests_in_the_error_format() -> None:
    response = APIClient().get("/api/v1/me")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_it_switches_between_own_organizations_only(
    client_for, alice: User, acme: Organization, globex: Organization
) -> None:
    from apps.accounts import services

    second = services.organization_create(name="Acme Research", owner=alice)
    client = client_for(alice)
    response = client.post("/api/v1/me/organization", {"organization": second.slug}, format="json")
    assert response.status_code == 200
    assert response.json()["organization"]["slug"] == second.slug
    assert client.get("/api/v1/me").json()["organization"]["slug"] == second.slug
    assert {o["slug"] for o in response.json()["organizations"]} == {acme.slug, second.slug}

    response = client.post("/api/v1/me/organization", {"organization": globex.slug}, format="json")
    assert response.status_code == 404
    assert client.get("/api/v1/me").json()["organization"]["slug"] == second.slug


def test_it_accepts_the_x_organization_header_for_own_organizations_only(
    alice_client: APIClient, globex: Organization
) -> None:
    assert alice_client.get("/api/v1/members", HTTP_X_ORGANIZATION=globex.slug).status_code == 404


def test_it_tells_the_dashboard_where_caught_mail_is_kept(
    alice_client: APIClient, settings: LazySettings
) -> None:
    assert alice_client.get("/api/v1/me").json()["caught_mail_dir"] == ""
    settings.CAUGHT_MAIL_DIR = "/srv/ledger/var/mail"
    assert alice_client.get("/api/v1/me").json()["caught_mail_dir"] == "/srv/ledger/var/mail"
