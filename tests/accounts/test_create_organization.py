"""manage.py create_organization: the self-hosted way to the first organization and owner."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from apps.accounts.models import Membership, Organization, User

pytestmark = pytest.mark.django_db

STRONG = "orbit-lantern-meadow-42"


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_organization", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def csrf_client() -> tuple[APIClient, str]:
    address = ".".join(str(random.randint(1, 254)) for _ in range(3))
    client = APIClient(enforce_csrf_checks=True, REMOTE_ADDR=f"10.{address}")
    return client, client.get("/api/v1/auth/csrf").json()["csrfToken"]


def set_password(client: APIClient, token: str, link: str, password: str) -> Any:
    uid = re.search(r"uid=([^&\s]+)", link)
    link_token = re.search(r"token=(\S+)", link)
    assert uid, link
    assert link_token, link
    return client.post(
        "/api/v1/auth/set-password",
        {"uid": uid.group(1), "token": link_token.group(1), "password": password},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )


def test_it_creates_the_owner_with_a_password_from_a_file(tmp_path: Path) -> None:
    password_file = tmp_path / "pw"
    password_file.write_text(STRONG + "\n")

    out, _ = run(
        "--owner", "Ops@Example.test", "--name", "ML Lab", "--timezone", "Europe/Berlin",
        "--currency", "USD", "--password-file", str(password_file),
    )  # fmt: skip

    user = User.objects.get(email="ops@example.test")
    assert user.check_password(STRONG)
    assert not user.email_verification_pending
    organization = Organization.objects.get(name="ML Lab")
    assert (organization.timezone, organization.currency) == ("Europe/Berlin", "USD")
    assert Membership.objects.get(organization=organization, user=user).role == "owner"
    assert "can sign in with the given password" in out


def test_it_reads_the_password_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OWNER_PASSWORD", STRONG)

    run("--owner", "ops@example.test", "--name", "ML Lab")

    assert User.objects.get(email="ops@example.test").check_password(STRONG)


def test_it_prints_a_one_time_set_password_link_that_signs_in_once() -> None:
    out, _ = run("--owner", "ops@example.test", "--name", "ML Lab")
    user = User.objects.get(email="ops@example.test")
    assert not user.has_usable_password()
    link = re.search(r"http\S+/set-password\?\S+", out)
    assert link, out

    client, token = csrf_client()
    weak = set_password(client, token, link.group(0), "123")
    response = set_password(client, token, link.group(0), STRONG)
    reused = set_password(*csrf_client(), link.group(0), "another-" + STRONG)

    assert weak.status_code == 400
    assert list(weak.json()["error"]["fields"]) == ["password"]
    assert response.status_code == 200, response.content
    assert response.json()["organization"]["name"] == "ML Lab"
    assert client.get("/api/v1/me").json()["email"] == "ops@example.test"
    assert reused.status_code == 400
    user.refresh_from_db()
    assert user.check_password(STRONG)


def test_it_makes_an_existing_user_owner_and_keeps_their_password(
    alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OWNER_PASSWORD", STRONG)

    out, err = run("--owner", "alice@acme.test", "--name", "Second Lab")

    organization = Organization.objects.get(name="Second Lab")
    assert Membership.objects.get(organization=organization, user=alice).role == "owner"
    alice.refresh_from_db()
    assert alice.check_password("alice-pass-123")
    assert "keeps their password" in out
    assert "not used" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--owner", "not-an-address", "--name", "Lab"], "is not an e-mail address"),
        (["--owner", "o@example.test", "--name", "  "], "--name must not be blank"),
        (["--owner", "o@example.test", "--name", "Lab", "--timezone", "Mars/Base"], "timezone"),
        (["--owner", "o@example.test", "--name", "Lab", "--currency", "EUR"], "CNY, USD"),
        (
            ["--owner", "o@example.test", "--name", "Lab", "--password-file", "/nonexistent/pw"],
            "Cannot read --password-file",
        ),
    ],
)
def test_it_fails_with_a_clear_message_and_creates_nothing(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=re.escape(message)):
        run(*args)
    assert not User.objects.exists()
    assert not Organization.objects.exists()


def test_it_rejects_a_weak_password_naming_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OWNER_PASSWORD", "password")

    with pytest.raises(CommandError, match=r"password: .*too common"):
        run("--owner", "o@example.test", "--name", "Lab")

    assert not User.objects.exists()


def test_it_is_a_real_command_with_help() -> None:
    from apps.accounts.management.commands.create_organization import Command

    help_text = io.StringIO()
    Command().create_parser("manage.py", "create_organization").print_help(help_text)
    assert "--password-file" in help_text.getvalue()
