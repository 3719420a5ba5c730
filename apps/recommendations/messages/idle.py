"""Stop idle and idle-held (``rules/idle.py``): explanations, steps, formulas."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

TEMPLATES: dict[str, str | Promise] = {
    "stop_idle.explanation": _(
        "%(name)s was idle in %(idle)s of its %(observed)s observed hours over the last "
        "%(days)s days (p95 GPU utilization at most %(max)s %%, no GPU memory held, average "
        "%(avg)s %%). Nothing is running on it: stop it with STOP_CHARGING, or release it if "
        "nobody claims it. %(kept)s keep billing while it is stopped."
    ),
    "stop_idle.explanation.priced": _(
        "%(name)s was idle in %(idle)s of its %(observed)s observed hours over the last "
        "%(days)s days (p95 GPU utilization at most %(max)s %%, no GPU memory held, average "
        "%(avg)s %%). Nothing is running on it: stop it with STOP_CHARGING, or release it if "
        "nobody claims it. %(kept)s keep billing while it is stopped (%(note)s)."
    ),
    "idle_held.explanation": _(
        "%(name)s did no work in %(idle)s of its %(observed)s observed hours over the last "
        "%(days)s days, yet it held GPU memory in %(held)s of them (average %(mem)s %% of the "
        "card): a notebook left open or a hung or failed job. Tell the owner before anyone "
        "stops it: stopping it loses what is in memory."
    ),
    "stopped_subscription.explanation": _(
        "%(name)s has been stopped, without a metric for the last %(hours)s hours, but it is a "
        "monthly subscription: a stopped subscription keeps billing until its term ends, so "
        "stopping it saved nothing. Not renewing it saves %(monthly)s %(currency)s a month: "
        "turn off its auto-renewal and release it at the end of its term, or put it back to "
        "work until then."
    ),
    "stopped_subscription.step.renewal": _(
        "Turn off its auto-renewal (ModifyInstancesRenewFlag), so that the subscription ends "
        "with its term."
    ),
    "stopped_subscription.step.release": _(
        "Release it (TerminateInstances) at the end of its term, after a snapshot of its disks "
        "if needed."
    ),
    "stop_idle.step.check": _("Check with the owner (tags, project) that nothing needs it."),
    "stop_idle.step.stop": _(
        "Stop it with STOP_CHARGING (compute and GPU stop billing; %(kept)s still bill)."
    ),
    "stop_idle.step.release": _(
        "Release it (TerminateInstances) once nobody claims it, after a snapshot if needed."
    ),
    "stop_idle.step.no_renewal": _(
        "It is a monthly subscription: turn off auto-renewal and let it expire."
    ),
    "idle_held.step.tell": _("Tell the owner: a process holds GPU memory but computes nothing."),
    "idle_held.step.end": _(
        "Have them save their work and end the process (nvidia-smi shows which one)."
    ),
    "idle_held.step.stop": _("Then stop the instance with STOP_CHARGING or release it."),
    "stop_idle.formula": _(
        "%(hourly)s %(currency)s/h x %(hours)s h/month = %(amount)s %(currency)s/month "
        "(price: %(price)s; hours: %(hours_text)s)"
    ),
    "stop_idle.formula.subscription": _(
        "subscription %(monthly)s %(currency)s/month not renewed (a stopped subscription keeps "
        "billing, so the saving comes only from releasing it at the end of its term)"
    ),
    "stop_idle.formula.amortized": _(
        "%(hourly)s %(currency)s/h x %(hours)s h/month = %(monthly)s %(currency)s/month "
        "(price: %(price)s) not renewed (a stopped subscription keeps billing, so the saving "
        "comes only from releasing it at the end of its term)"
    ),
}
