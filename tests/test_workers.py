"""Retries and the beat schedule: every task says what it retries, finitely; every tick expires.

The one retry through a real worker process is tests/integration/test_task_retries.py; here
tasks run eagerly, where Celery re-runs a retried task at once instead of after its backoff.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from celery import Task
from django.core import mail
from django.db import OperationalError

from apps.accounts import services as accounts_services
from apps.accounts.models import Invitation, Organization, User
from apps.cloud.models import CloudAccount
from apps.cloud.providers.tencent.errors import CloudError, ErrorKind
from apps.digests.services import TransientDeliveryError
from workers.celery import app
from workers.defaults import NEVER_RETRY, task_options
from workers.schedule import BEAT_SCHEDULE

# What each task retries, as its module states it (NEVER_RETRY: dispatchers and purges).
STATED_RETRIES: dict[str, tuple[type[BaseException], ...]] = {
    "accounts.send_invitation_email": (OSError,),
    "accounts.send_verification_email": (OSError,),
    "accounts.send_lockout_notice_email": (OSError,),
    "accounts.purge_expired_invitations": NEVER_RETRY,
    "accounts.purge_audit_log": NEVER_RETRY,
    "cloud.dispatch_due": NEVER_RETRY,
    "cloud.dispatch_account": NEVER_RETRY,
    "cloud.run_sync": (CloudError,),
    "analysis.analyse_recent": (OperationalError,),
    "analysis.analyse_full": (OperationalError,),
    "analysis.analyse_batch": (OperationalError,),
    "analysis.announce": (OperationalError,),
    "recommendations.recommend": (OperationalError,),
    "metrics.prune_raw": NEVER_RETRY,
    "metrics.prune_agent_points": NEVER_RETRY,
    "metrics.compact_recent": (OperationalError,),
    "metrics.rebuild_rollups": (OperationalError,),
    "digests.claim_due": NEVER_RETRY,
    "digests.send_digest": (TransientDeliveryError,),
    "digests.sweep_undelivered": NEVER_RETRY,
    "alerts.evaluate": (OperationalError,),
    "alerts.evaluate_thresholds_all": NEVER_RETRY,
    "alerts.evaluate_costs_all": NEVER_RETRY,
    "alerts.send_alert_email": (OSError,),
    "alerts.send_alert_webhook": (OSError,),
    "alerts.sweep_undelivered": NEVER_RETRY,
}


def project_tasks() -> dict[str, Task]:
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if task.__module__.startswith("apps.")}


def test_it_finds_the_tasks_of_every_app() -> None:
    assert set(STATED_RETRIES) <= set(project_tasks())


@pytest.mark.parametrize("name", sorted(project_tasks()))
def test_it_retries_each_task_finitely_or_never_and_says_which(name: str) -> None:
    task = project_tasks()[name]
    # Set on the task itself, not inherited: Celery's own default is "retry nothing".
    assert "autoretry_for" in vars(type(task)), f"{name} does not say what it retries"
    assert isinstance(task.max_retries, int)
    if task.autoretry_for:
        assert 1 <= task.max_retries <= 10
        assert task.retry_backoff
        assert task.retry_jitter
        assert 0 < task.retry_backoff_max <= 600
        assert hasattr(task, "_orig_run"), "autoretry_for without the wrapper retries nothing"
    else:
        assert task.max_retries == 0


@pytest.mark.parametrize(("name", "retried"), sorted(STATED_RETRIES.items()))
def test_it_retries_exactly_the_stated_exceptions(
    name: str, retried: tuple[type[BaseException], ...]
) -> None:
    assert project_tasks()[name].autoretry_for == retried


@pytest.mark.parametrize("entry", sorted(BEAT_SCHEDULE))
def test_it_expires_each_beat_tick_before_the_next_one(entry: str) -> None:
    options: Any = BEAT_SCHEDULE[entry]
    interval: timedelta = options["schedule"]
    expires = options["options"]["expires"]
    assert 0.5 * interval.total_seconds() <= expires < interval.total_seconds()
    assert options["task"] in project_tasks()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": "x.y", "retry_on": NEVER_RETRY, "max_retries": 3}, "never retried"),
        ({"name": "x.y", "retry_on": (OSError,), "max_retries": None}, "finite"),
        ({"name": "x.y", "retry_on": (OSError,), "max_retries": 0}, "at least 1"),
        ({"name": "", "retry_on": NEVER_RETRY}, "explicit name"),
    ],
)
def test_it_refuses_retry_options_that_contradict_themselves(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        task_options(**options)


# --- the retry mechanics, run eagerly ------------------------------------------------------


@pytest.fixture
def eager_retries() -> Iterator[None]:
    """Let ``apply`` run a task's retries: propagating eagerly would raise its first Retry."""
    propagates = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = propagates


@pytest.fixture
def account(acme: Organization) -> CloudAccount:
    return CloudAccount.objects.create(
        organization=acme, name="T", secret_id="AKID", secret_key_encrypted="x", regions=[]
    )


def transient() -> CloudError:
    return CloudError(ErrorKind.TRANSIENT, "RequestLimitExceeded", "Throttled.")


@pytest.mark.django_db
@pytest.mark.usefixtures("eager_retries")
def test_it_retries_a_transient_cloud_error_and_then_succeeds(
    account: CloudAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apps.cloud import tasks

    outcomes: list[object] = [transient(), transient(), "ok"]

    def sync_run(*args: object, **kwargs: object) -> object:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(tasks.runner, "sync_run", sync_run)
    assert tasks.run_sync.apply(args=(account.pk, "inventory")).get() == "ok"
    assert outcomes == []


@pytest.mark.django_db
@pytest.mark.usefixtures("eager_retries")
def test_it_marks_the_account_failing_once_the_retries_are_spent(
    account: CloudAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apps.cloud import tasks

    attempts = []

    def sync_run(*args: object, **kwargs: object) -> str:
        attempts.append(1)
        raise transient()

    monkeypatch.setattr(tasks.runner, "sync_run", sync_run)
    assert tasks.run_sync.apply(args=(account.pk, "inventory")).get() == "failed"
    assert len(attempts) == tasks.run_sync.max_retries + 1
    account.refresh_from_db()
    assert account.status == CloudAccount.Status.FAILING
    assert account.last_error == "Throttled. Retried 6 times."


@pytest.mark.django_db
@pytest.mark.usefixtures("eager_retries")
def test_it_does_not_retry_an_error_it_does_not_name(
    account: CloudAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apps.cloud import tasks

    attempts = []

    def sync_run(*args: object, **kwargs: object) -> str:
        attempts.append(1)
        raise KeyError("a bug")

    monkeypatch.setattr(tasks.runner, "sync_run", sync_run)
    with pytest.raises(KeyError):
        tasks.run_sync.apply(args=(account.pk, "inventory")).get()
    assert len(attempts) == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("eager_retries")
def test_it_gives_up_on_a_dead_mail_server_and_leaves_the_invitation_unsent(
    acme: Organization, alice: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apps.accounts import tasks

    attempts = []

    def send_mail(**kwargs: object) -> int:
        attempts.append(1)
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr(tasks, "send_mail", send_mail)
    invitation = accounts_services.invitation_create(
        organization=acme, email="e@acme.test", role="viewer", invited_by=alice
    )
    with pytest.raises(ConnectionRefusedError):
        tasks.send_invitation_email.apply(args=(invitation.pk, "tok")).get()
    assert len(attempts) == tasks.send_invitation_email.max_retries + 1
    assert Invitation.objects.get(pk=invitation.pk).sent_at is None
    assert mail.outbox == []
