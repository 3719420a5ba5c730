"""Titles and risks of every kind of recommendation, and the kinds' labels."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

#: Message code -> its template (``%(name)s`` placeholders, the parameters' names).
TEMPLATES: dict[str, str | Promise] = {
    "stop_idle.title": _("Stop idle %(name)s"),
    "stopped_subscription.title": _(
        "Do not renew %(name)s: it is stopped, and its subscription still bills"
    ),
    "idle_held.title": _("Idle but holding GPU memory: %(name)s"),
    "schedule.title": _("Stop %(name)s outside working hours"),
    "schedule.automate.title": _("Automate the night/weekend stop of %(name)s"),
    "night_downshift.title": _("Run %(name)s as %(target)s at night"),
    "fewer_instances.title": _("Stop %(stop)s of %(count)s %(type)s in %(region)s at night"),
    "subscription.title": _("Switch %(name)s to a monthly subscription"),
    "reserved_instance.title": _("Cover %(name)s with a reserved-instance voucher"),
    "spot.title": _("Run %(name)s's interruption-tolerant work on spot"),
    "downsize.title": _("Downsize %(name)s to %(target)s"),
    "upsize.title": _("Upsize %(name)s to %(target)s (GPU memory pressure)"),
    "upsize.no_larger_type.title": _(
        "%(name)s is short of GPU memory, and no larger %(family)s type exists"
    ),
    "data_pipeline.title": _("Fix the data pipeline feeding %(name)s"),
    "data_pipeline.check.title": _("Check whether the data pipeline holds back %(name)s"),
    "thermal.title": _("%(name)s runs hot"),
    # Risks: how the change could hurt the work.
    "stop_idle.risk": _("Nothing ran on it for the whole lookback; restarting takes minutes."),
    "stopped_subscription.risk": _(
        "Releasing it deletes its disks; until its term ends it can still be started."
    ),
    "idle_held.risk": _("A process still holds GPU memory; stopping it loses its state."),
    "schedule.risk": _(
        "Work started in the window is cut off by the stop; capacity is not guaranteed at restart."
    ),
    "night_downshift.risk": _("A resize stops the instance twice a day; night peaks run hotter."),
    "fewer_instances.risk": _(
        "The %(keep)s remaining instances must take the whole night load: the load balancer "
        "or queue must drain the stopped ones before they stop and add them back once they "
        "have started; a night peak above the p95s runs hotter, and capacity is not "
        "guaranteed at restart."
    ),
    "fewer_instances.risk_one": _(
        "The %(keep)s remaining instance must take the whole night load: the load balancer or "
        "queue must drain the stopped ones before they stop and add them back once they have "
        "started; a night peak above the p95s runs hotter, and capacity is not guaranteed at "
        "restart."
    ),
    "subscription.risk": _(
        "A month is paid ahead: if the work ends early, the rest of the month is lost."
    ),
    "reserved_instance.risk": _(
        "The voucher bills for %(years)s year(s) whether or not anything matches it."
    ),
    "spot.risk": _(
        "Reclaim risk: a spot instance is taken back with ~2 minutes' notice; jobs must "
        "checkpoint and restart."
    ),
    "downsize.risk": _("Peaks beyond the lookback would run slower on the smaller type."),
    "upsize.risk": _(
        "Moving the job to another type means a restart from a checkpoint; the work per hour "
        "assumes it scales with the cards."
    ),
    "upsize.no_larger_type.risk": _(
        "Memory savings in the job change its speed, not the instance."
    ),
    "data_pipeline.risk": _("Pipeline changes do not touch the instance."),
    "thermal.risk": _("Throttling slows the work now; a failing card can stop it."),
}

#: Kind -> its label (``rules.KINDS`` names them in English for the model's choices); a plan's
#: formula names the steps before it by these (``kind.<kind>``), its fixed step too.
KIND_LABELS: dict[str, Promise] = {
    "stop_idle": _("Stop idle"),
    "idle_held": _("Idle, GPU memory held"),
    "schedule": _("Day/night schedule"),
    "night_downshift": _("Night downshift"),
    "subscription": _("Switch to monthly subscription"),
    "reserved_instance": _("Reserved-instance voucher"),
    "spot": _("Move to spot"),
    "downsize": _("Downsize"),
    "upsize": _("Upsize (memory pressure)"),
    "data_pipeline": _("Fix the data pipeline"),
    "thermal": _("Thermal alert"),
}
