"""Day/night schedule, night downshift and fewer instances at night (``rules/schedule.py``,
``downshift.py``, ``fewer.py``): explanations, steps, formulas."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

TEMPLATES: dict[str, str | Promise] = {
    "schedule.explanation": _(
        "%(name)s sits under %(max)s %% GPU utilization (p95) in %(windows)s (%(tz)s), "
        "%(weekly_hours)s h a week, yet it runs and is billed in %(running)s of those hours. "
        "Stop it in that window and start it again after. %(honest)s"
    ),
    "schedule.automate.explanation": _(
        "%(name)s is already not running in %(windows)s (%(tz)s), %(weekly_hours)s h a week, "
        "so there is nothing more to save; a schedule makes that automatic, so a forgotten stop "
        "does not run all night. %(honest)s"
    ),
    "schedule.honest": _(
        "STOP_CHARGING stops the runtime charges (compute, GPU) only: %(kept)s keep billing "
        "while it is stopped, and a GPU type can be sold out when it starts again."
    ),
    "schedule.honest.priced": _(
        "STOP_CHARGING stops the runtime charges (compute, GPU) only: %(kept)s keep billing "
        "while it is stopped, and a GPU type can be sold out when it starts again. In numbers: "
        "%(note)s."
    ),
    "schedule.step.tell": _("Tell the instance's users the window."),
    "schedule.formula": _(
        "%(running)s h/week still running inside the %(weekly_hours)s h/week window x "
        "%(days_per_month)s/7 weeks/month = %(hours)s h/month x %(hourly)s %(currency)s/h = "
        "%(amount)s %(currency)s/month (runtime components only; price: %(price)s)"
    ),
    "night_downshift.explanation": _(
        "In %(windows)s (%(tz)s) %(name)s stays between %(idle_max)s and %(max)s %% GPU "
        "utilization (p95, peak %(peak)s %%): low but not zero, so it cannot stop. %(target)s "
        "(%(cards)s x %(model)s) carries that load; switch to it for the window and back for "
        "the day."
    ),
    "night_downshift.step.balance": _(
        "Put the service behind a load balancer so a resize does not drop traffic, or run a "
        "small night instance beside it and stop this one."
    ),
    "night_downshift.step.resize": _(
        "Resize at the window's start and back at its end (the instance must be stopped for "
        "ResetInstancesType)."
    ),
    "night_downshift.formula": _(
        "%(running)s h/week in the window x %(days_per_month)s/7 = %(hours)s h/month x "
        "(%(hourly)s - %(target_hourly)s) %(currency)s/h = %(amount)s %(currency)s/month; "
        "target price %(hourly)s x catalog %(target_catalog)s/%(current_catalog)s (price: "
        "%(price)s)"
    ),
    "fewer_instances.explanation": _(
        "In %(windows)s (%(tz)s) the project's %(count)s %(type)s in %(region)s together carry "
        "at most %(peak)s %% of one instance (the sum of their p95 GPU utilization): low but "
        "not zero, so they cannot all stop, yet %(keep)s of them can carry it at %(per_kept)s "
        "%% each (at most %(max)s %%). The rest of the week needs up to %(day_need)s of them. "
        "Stop %(stop_ids)s (the lowest night load) for the window and start them after; "
        "%(keep_ids)s keep serving. STOP_CHARGING stops the compute charges only: the system "
        "and data disks and the bandwidth keep billing while they are stopped, and a GPU type "
        "can be sold out when they start again."
    ),
    "fewer_instances.explanation_one": _(
        "In %(windows)s (%(tz)s) the project's %(count)s %(type)s in %(region)s together carry "
        "at most %(peak)s %% of one instance (the sum of their p95 GPU utilization): low but "
        "not zero, so they cannot all stop, yet %(keep)s of them can carry it at %(per_kept)s "
        "%% (at most %(max)s %%). The rest of the week needs up to %(day_need)s of them. Stop "
        "%(stop_ids)s (the lowest night load) for the window and start them after; "
        "%(keep_ids)s keeps serving. STOP_CHARGING stops the compute charges only: the system "
        "and data disks and the bandwidth keep billing while they are stopped, and a GPU type "
        "can be sold out when they start again."
    ),
    "fewer_instances.step.drain": _(
        "Serve from %(keep_ids)s at night: take %(stop_ids)s out of the load balancer (or stop "
        "their queue consumers) at the window's start and let them drain before the stop."
    ),
    "fewer_instances.step.stop": _(
        "Stop %(stop_ids)s with STOP_CHARGING at the window's start and start them at its end; "
        "add them back once healthy."
    ),
    "fewer_instances.formula": _(
        "%(lines)s; sum = %(amount)s %(currency)s/month (compute only; prices: %(prices)s)"
    ),
    "fewer_instances.formula.line": _(
        "%(id)s: %(running)s h/week running in the window x %(days_per_month)s/7 = %(hours)s "
        "h/month x %(hourly)s %(currency)s/h = %(part)s %(currency)s"
    ),
    # Data only: an instance and its price.
    "fewer_instances.formula.price": "%(id)s: %(price)s",
}
