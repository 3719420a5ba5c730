"""The digests API: one's own subscriptions, the preview, holidays and one-click unsubscribe."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from apps.accounts.models import Organization, User
from apps.cloud.models import Project
from apps.digests.models import DigestSubscription
from apps.digests.tokens import unsubscribe_token_make

pytestmark = pytest.mark.django_db
URL = "/api/v1/digest-subscriptions"


def test_it_creates_the_default_weekly_monday_nine_digest_in_the_organizations_timezone(
    charlie_client: APIClient, acme: Organization
) -> None:
    # Charlie is a viewer: a digest is his own mailbox, not the organization's data.
    response = charlie_client.post(URL, {}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["frequency"] == "weekly"
    assert body["weekday"] == 0
    assert body["send_time"] == "09:00:00"
    assert body["timezone"] == ""
    assert body["effective_timezone"] == "Asia/Shanghai"
    assert body["projects"] == []
    assert body["workdays_only"] is True
    next_send = dt.datetime.fromisoformat(body["next_send_at"]).astimezone(
        dt.timezone(dt.timedelta(hours=8))
    )
    assert (next_send.weekday(), next_send.hour, next_send.minute) == (0, 9, 0)


def test_it_names_the_field_of_bad_input(alice_client: APIClient) -> None:
    response = alice_client.post(
        URL, {"timezone": "Mars/Olympus", "frequency": "hourly"}, format="json"
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"timezone", "frequency"}


def test_it_refuses_another_organizations_project_in_the_scope(
    alice_client: APIClient, globex: Organization
) -> None:
    theirs = Project.objects.create(organization=globex, name="secret", slug="secret")
    response = alice_client.post(URL, {"projects": [theirs.pk]}, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"projects"}


def test_it_shows_and_changes_only_ones_own_subscriptions(
    alice_client: APIClient, charlie_client: APIClient, acme: Organization, charlie: User
) -> None:
    mine = alice_client.post(URL, {"frequency": "daily"}, format="json").json()
    charlies = charlie_client.post(URL, {}, format="json").json()
    assert [s["id"] for s in alice_client.get(URL).json()["results"]] == [mine["id"]]
    assert alice_client.get(f"{URL}/{charlies['id']}").status_code == 404
    assert alice_client.patch(f"{URL}/{charlies['id']}", {"frequency": "daily"}).status_code == 404
    assert DigestSubscription.objects.get(pk=charlies["id"]).frequency == "weekly"
    changed = alice_client.patch(
        f"{URL}/{mine['id']}", {"frequency": "monthly", "day_of_month": 3}, format="json"
    ).json()
    next_send = dt.datetime.fromisoformat(changed["next_send_at"]).astimezone(
        dt.timezone(dt.timedelta(hours=8))
    )
    assert next_send.day >= 3  # the 3rd, or the next workday after it
    assert alice_client.delete(f"{URL}/{mine['id']}").status_code == 204


def test_it_previews_the_same_email_it_sends(alice_client: APIClient) -> None:
    created = alice_client.post(URL, {}, format="json").json()
    response = alice_client.get(f"{URL}/{created['id']}/preview")
    assert response.status_code == 200
    body = response.json()
    assert body["subject"].startswith("Acme GPU spend ")
    assert "cid:spend-chart" in body["html"]
    assert "== Spend ==" in body["text"]
    assert body["images"]["spend-chart"].startswith("data:image/png;base64,")


def test_it_lets_owners_and_admins_edit_holidays_and_reschedules_digests(
    alice_client: APIClient, charlie_client: APIClient
) -> None:
    created = alice_client.post(URL, {}, format="json").json()
    due = dt.datetime.fromisoformat(created["next_send_at"])
    local_day = due.astimezone(dt.timezone(dt.timedelta(hours=8))).date()
    assert (
        charlie_client.post(
            "/api/v1/holidays", {"date": local_day.isoformat(), "name": "x"}, format="json"
        ).status_code
        == 403
    )
    response = alice_client.post(
        "/api/v1/holidays", {"date": local_day.isoformat(), "name": "Day off"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert [h["name"] for h in charlie_client.get("/api/v1/holidays").json()["results"]] == [
        "Day off"
    ]
    moved = dt.datetime.fromisoformat(
        alice_client.get(f"{URL}/{created['id']}").json()["next_send_at"]
    )
    assert moved.astimezone(dt.timezone(dt.timedelta(hours=8))).date() > local_day
    duplicate = alice_client.post(
        "/api/v1/holidays", {"date": local_day.isoformat()}, format="json"
    )
    assert duplicate.status_code == 400


def test_it_unsubscribes_with_one_post_and_no_session(alice_client: APIClient) -> None:
    created = alice_client.post(URL, {}, format="json").json()
    token = unsubscribe_token_make(created["id"])
    anonymous = APIClient(enforce_csrf_checks=True)
    url = f"/api/v1/digests/unsubscribe?token={token}"
    # A link scanner's GET changes nothing.
    assert anonymous.get(url).json() == {"unsubscribed": False}
    assert DigestSubscription.objects.get(pk=created["id"]).is_active
    response = anonymous.post(
        url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    subscription = DigestSubscription.objects.get(pk=created["id"])
    assert not subscription.is_active
    assert subscription.next_send_at is None
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert anonymous.post(f"/api/v1/digests/unsubscribe?token={forged}").status_code == 404


# What a browser sends when a person clicks the link in the digest's body.
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize(
    ("language", "question", "done"),
    [
        (
            "en",
            "Stop sending the GPU cost digest of Acme to alice@acme.test?",
            "You are unsubscribed",
        ),
        ("zh-hans", "不再向 alice@acme.test 发送 Acme 的 GPU 成本摘要？", "已退订"),
    ],
)
def test_it_asks_a_browser_to_confirm_on_a_page_and_unsubscribes_on_its_button(
    alice_client: APIClient, alice: User, language: str, question: str, done: str
) -> None:
    alice.language = language
    alice.save(update_fields=["language"])
    created = alice_client.post(URL, {}, format="json").json()
    url = f"/api/v1/digests/unsubscribe?token={unsubscribe_token_make(created['id'])}"
    browser = APIClient(enforce_csrf_checks=True)

    page = browser.get(url, HTTP_ACCEPT=BROWSER_ACCEPT)

    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert question in html
    # The button POSTs the token back to this same URL (the one-click endpoint).
    assert f'<form method="post" action="{url}">' in html
    assert DigestSubscription.objects.get(pk=created["id"]).is_active

    result = browser.post(
        url,
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
        HTTP_ACCEPT=BROWSER_ACCEPT,
    )

    assert result.status_code == 200
    assert result["Content-Type"].startswith("text/html")
    assert done in result.content.decode()
    assert "<form" not in result.content.decode()
    assert not DigestSubscription.objects.get(pk=created["id"]).is_active
    # Opened again later, the page says so rather than offering the button.
    assert done in browser.get(url, HTTP_ACCEPT=BROWSER_ACCEPT).content.decode()


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("query", ["", "?token=", "?token=%20"])
def test_it_answers_an_unsubscribe_link_without_its_token_with_400(method: str, query: str) -> None:
    response = getattr(APIClient(), method)(f"/api/v1/digests/unsubscribe{query}")
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"token"}


def test_it_lists_subscriptions_in_a_fixed_number_of_queries(alice_client: APIClient) -> None:
    def count_queries() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            assert alice_client.get(URL).status_code == 200
        return len(queries)

    alice_client.post(URL, {}, format="json")
    one = count_queries()
    for _ in range(3):
        alice_client.post(URL, {"frequency": "daily"}, format="json")
    assert count_queries() == one
