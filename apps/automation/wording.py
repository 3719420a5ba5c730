"""The words of automation's codes, in the active language (English in the source, Simplified
Chinese in ``locale/zh_Hans``). Every code of ``reasons`` has one (a test says so)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from apps.automation import reasons as r

REASON_WORDS = {
    r.NOT_ACCEPTED: _("Accept the recommendation before automating it."),
    r.KIND_NOT_AUTOMATABLE: _("GPU Ledger cannot carry out this kind of recommendation."),
    r.NO_CLOUD_ACCOUNT: _("The instance is not in a connected cloud account."),
    r.READ_ONLY_CREDENTIAL: _(
        "The cloud account has only a read-only key: add a key that may stop and start instances."
    ),
    r.AUTOMATION_DISABLED: _("Automation is turned off for the cloud account."),
    r.AUTOMATION_PAUSED: _("Automation is paused for the organization."),
    r.MEMORY_HELD_NOT_CONFIRMED: _(
        "The instance holds GPU memory: confirm that it may be stopped anyway."
    ),
    r.PLAN_EXISTS: _("The recommendation is automated already."),
    r.NO_PLAN: _("The recommendation is not automated."),
    r.PLAN_ENDED: _("The automation has ended."),
    r.OPTED_OUT: _("The instance is tagged gpu-ledger:automation=off: it is never touched."),
    r.NO_RECENT_METRICS: _("No recent GPU metrics: GPU Ledger does not stop what it cannot see."),
    r.BUSY_GPU_UTIL: _("The GPU was busy (utilization above the threshold): not stopped."),
    r.BUSY_GPU_MEM: _("The GPU holds memory (above the threshold): not stopped."),
    r.PLAN_NOT_ACTIVE: _("The automation was paused or ended."),
    r.TOO_LATE: _("Too late to act: the moment has passed."),
    r.ALREADY_IN_STATE: _("The instance was already in that state."),
    r.CAPACITY_SOLD_OUT: _("The cloud has no capacity to start the instance: retrying."),
    r.NOT_AUTHORIZED: _("The cloud refused: the key may not do this."),
    r.INSTANCE_NOT_FOUND: _("The cloud does not know the instance."),
    r.CLOUD_ERROR: _("The cloud call failed."),
    r.RETRIES_EXHAUSTED: _("Gave up after the last retry."),
    r.NOT_CONFIRMED: _("The cloud did not confirm the new state in time."),
}


def reason_text(code: str) -> str:
    """The code's sentence in the active language ("" for no code)."""
    words = REASON_WORDS.get(code)
    return str(words) if words is not None else code
