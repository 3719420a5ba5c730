"""The dashboard language a person chooses, kept on the server (GET and PATCH /api/v1/me)."""

from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail
from rest_framework.test import APIClient

from apps.accounts.models import User

pytestmark = pytest.mark.django_db


def test_it_answers_english_until_the_person_chooses(alice_client: APIClient) -> None:
    assert alice_client.get("/api/v1/me").json()["language"] == "en"


def test_it_stores_the_chosen_language_for_every_later_session(
    alice: User, alice_client: APIClient
) -> None:
    response = alice_client.patch("/api/v1/me", {"language": "zh-hans"}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["language"] == "zh-hans"
    assert response.json()["email"] == alice.email
    alice.refresh_from_db()
    assert alice.language == "zh-hans"
    other_browser = APIClient()
    other_browser.force_login(alice)
    assert other_browser.get("/api/v1/me").json()["language"] == "zh-hans"


def test_it_rejects_a_language_without_a_catalog_naming_the_field(
    alice: User, alice_client: APIClient
) -> None:
    response = alice_client.patch("/api/v1/me", {"language": "fr"}, format="json")

    assert response.status_code == 400
    assert "language" in response.json()["error"]["fields"]
    alice.refresh_from_db()
    assert alice.language == "en"


def test_it_changes_nothing_for_someone_signed_out() -> None:
    response = APIClient().patch("/api/v1/me", {"language": "zh-hans"}, format="json")
    assert response.status_code == 401


def _signup(language: str | None) -> APIClient:
    client = APIClient(REMOTE_ADDR="10.9.8.7")
    data = {
        "email": f"lang-{language}@example.test",
        "password": "correct-horse-battery-9",
        "name": "Mei",
        "organization_name": "Mei's Lab",
    }
    if language is not None:
        data["language"] = language
    response = client.post("/api/v1/auth/signup", data, format="json")
    assert response.status_code == 201, response.content
    return client


def test_it_starts_a_signed_up_account_in_the_language_of_the_sign_up_page() -> None:
    _signup("zh-hans")
    _signup(None)

    assert User.objects.get(email="lang-zh-hans@example.test").language == "zh-hans"
    assert User.objects.get(email="lang-none@example.test").language == "en"


def test_it_refuses_a_sign_up_in_a_language_without_a_catalog() -> None:
    response = APIClient(REMOTE_ADDR="10.9.8.6").post(
        "/api/v1/auth/signup",
        {
            "email": "fr@example.test",
            "password": "correct-horse-battery-9",
            "name": "Amélie",
            "organization_name": "Lab",
            "language": "fr",
        },
        format="json",
    )
    assert response.status_code == 400
    assert "language" in response.json()["error"]["fields"]
    assert not User.objects.filter(email="fr@example.test").exists()


def test_it_starts_an_invited_account_in_the_language_of_the_invitation_page(
    alice_client: APIClient, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        invited = alice_client.post(
            "/api/v1/invitations", {"email": "mei@acme.test", "role": "viewer"}, format="json"
        )
    assert invited.status_code == 201, invited.content
    token = mail.outbox[-1].body.split("token=")[1].split()[0]

    response = APIClient().post(
        "/api/v1/invitations/accept",
        {"token": token, "password": "a-long-pass-9", "language": "zh-hans"},
        format="json",
    )

    assert response.status_code == 200, response.content
    assert response.json()["language"] == "zh-hans"
    assert User.objects.get(email="mei@acme.test").language == "zh-hans"
