"""Background work of the alerts app: evaluating alerts, and delivering them.

Evaluation is idempotent (each alert is made once by a constraint, see models), so a duplicate
beat tick or a redelivered message raises nothing more. Beat runs the metric thresholds every
5 minutes (metrics sync every 5) and the budgets and anomalies hourly (bills sync hourly); a
finished analysis also queues a full evaluation of its organizations (``receivers``). A full
evaluation ends with the summary of imported history, the one alert that reports what a
backfill's history showed once the import is over (``evaluation.history``).

Deliveries go out on the ``email`` queue, one task per delivery row. A transient failure (the
mail server down, busy (4xx), the connection dropped; the webhook unreachable, 5xx, 408 or
429) is retried with backoff (workers/defaults.py); a permanent one (an address the server
refuses with 5xx, a webhook answering 4xx) is recorded as failed at once, and so is the last
transient failure once the retries are spent (a few minutes), marked ``retryable``: the
quarter-hourly sweep (``services.deliveries_sweep``) queues it again for a day, so an outage of
hours loses nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import smtplib
from collections.abc import Callable
from typing import Any

from celery import Task, shared_task
from django.db import OperationalError, transaction
from django.utils import timezone

from apps.accounts.models import Organization
from apps.alerts.delivery import WebhookRejected, alert_email_send, webhook_send
from apps.alerts.evaluation.anomalies import anomalies_evaluate
from apps.alerts.evaluation.budgets import budgets_evaluate
from apps.alerts.evaluation.history import history_summarize
from apps.alerts.evaluation.thresholds import thresholds_evaluate
from apps.alerts.models import AlertDelivery, DeliveryStatus
from workers import queues
from workers.defaults import NEVER_RETRY, task_options

logger = logging.getLogger(__name__)

# In order: the summary of imported history comes last, after the alerts it may report.
EVALUATORS: dict[str, Callable[..., list[Any]]] = {
    "budgets": budgets_evaluate,
    "anomalies": anomalies_evaluate,
    "thresholds": thresholds_evaluate,
    "history": history_summarize,
}
COSTS = ("budgets", "anomalies")


@dataclasses.dataclass
class EvaluationResult:
    raised: dict[str, int]


@shared_task(
    **task_options(name="alerts.evaluate", queue=queues.DEFAULT, retry_on=(OperationalError,))
)
def evaluate(
    organization_id: int, parts: list[str] | None = None, as_of: str | None = None
) -> dict[str, Any]:
    """Evaluate ``parts`` (default all) of one organization's alerts as of ``as_of`` (now)."""
    moment = timezone.now() if as_of is None else dt.datetime.fromisoformat(as_of)
    if moment.tzinfo is None:
        raise ValueError(f"as_of must carry a UTC offset, got {as_of!r}")
    organization = Organization.objects.filter(pk=organization_id).first()
    if organization is None:
        return {"skipped": "organization gone"}
    unknown = set(parts or ()) - set(EVALUATORS)
    if unknown:
        raise ValueError(f"parts: unknown {sorted(unknown)}; known {sorted(EVALUATORS)}")
    chosen = set(parts or EVALUATORS)
    raised = {
        part: len(evaluator(organization=organization, as_of=moment))
        for part, evaluator in EVALUATORS.items()
        if part in chosen
    }
    return dataclasses.asdict(EvaluationResult(raised=raised))


def _fan_out(parts: list[str]) -> int:
    ids = list(Organization.objects.values_list("pk", flat=True))
    for organization_id in ids:
        evaluate.delay(organization_id, parts)
    return len(ids)


@shared_task(
    # A dispatcher: the next tick queues the same work.
    **task_options(
        name="alerts.evaluate_thresholds_all", queue=queues.DEFAULT, retry_on=NEVER_RETRY
    )
)
def evaluate_thresholds_all() -> int:
    return _fan_out(["thresholds"])


@shared_task(
    **task_options(name="alerts.evaluate_costs_all", queue=queues.DEFAULT, retry_on=NEVER_RETRY)
)
def evaluate_costs_all() -> int:
    return _fan_out(list(COSTS))


# --- delivery -----------------------------------------------------------------------------


def smtp_failure_is_permanent(exc: BaseException) -> bool:
    """A recipient refused with 5xx, or any 5xx answer: sending again cannot help.

    A recipient refused with 4xx only (greylisting, a full mailbox, the server busy) is
    transient: the same message is accepted later.
    """
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in exc.recipients.values()]
        return any(code >= 500 for code in codes) or not codes
    return isinstance(exc, smtplib.SMTPResponseException) and 500 <= exc.smtp_code < 600


def _deliver(
    task: Task,
    delivery_id: int,
    send: Callable[[AlertDelivery], object],
    is_permanent: Callable[[BaseException], bool],
) -> bool:
    """Send one pending delivery once; record the outcome. Raises a transient error to retry.

    The row is locked while it is sent (SKIP LOCKED), so a redelivered message or a second
    worker finds nothing to send; the outcome is committed before a retry is raised.
    """
    failure: OSError | None = None
    with transaction.atomic():
        delivery = (
            AlertDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event__organization", "event__project", "event__instance")
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING)
            .first()
        )
        if delivery is None:
            return False
        delivery.attempts += 1
        try:
            result = send(delivery)
        except (OSError, WebhookRejected) as exc:
            delivery.error = f"{type(exc).__name__}: {exc}"[:2000]
            final = task.request.retries >= task.max_retries
            transient = isinstance(exc, OSError) and not is_permanent(exc)
            if isinstance(exc, OSError) and transient and not final:
                failure = exc
                logger.info("alert delivery %s: transient failure, retrying: %s", delivery_id, exc)
            else:
                delivery.status = DeliveryStatus.FAILED
                # Out of retries but not refused: the sweep tries again later.
                delivery.retryable = transient
                logger.warning("alert delivery %s failed for good: %s", delivery_id, delivery.error)
        else:
            delivery.status = DeliveryStatus.SENT
            delivery.sent_at = timezone.now()
            delivery.message_id = str(result)[:300]
            delivery.error = ""
        delivery.save()
    if failure is not None:
        raise failure
    return delivery.status == DeliveryStatus.SENT


@shared_task(
    **task_options(
        name="alerts.sweep_undelivered",
        queue=queues.DEFAULT,
        # A sweep: the next beat tick finds whatever this one could not queue.
        retry_on=NEVER_RETRY,
    )
)
def sweep_undelivered() -> int:
    """Queue again the alert deliveries no task will send (lost, or out of retries)."""
    from apps.alerts.services import deliveries_sweep

    return len(deliveries_sweep(now=timezone.now()))


@shared_task(
    bind=True,
    **task_options(
        name="alerts.send_alert_email",
        queue=queues.EMAIL,
        # Every smtplib error is an OSError; permanent ones are recorded, not raised.
        retry_on=(OSError,),
        max_retries=6,
    ),
)
def send_alert_email(self: Task, delivery_id: int) -> bool:
    return _deliver(self, delivery_id, alert_email_send, smtp_failure_is_permanent)


@shared_task(
    bind=True,
    **task_options(
        name="alerts.send_alert_webhook",
        queue=queues.EMAIL,
        # urllib's errors (refused, timeout, 5xx/408/429) are OSErrors; other 4xx are not.
        retry_on=(OSError,),
        max_retries=6,
    ),
)
def send_alert_webhook(self: Task, delivery_id: int) -> bool:
    return _deliver(self, delivery_id, webhook_send, lambda exc: False)
