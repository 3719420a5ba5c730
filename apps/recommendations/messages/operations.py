"""Data pipeline, thermal and spot (``rules/operations.py``): explanations, steps, formulas."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

TEMPLATES: dict[str, str | Promise] = {
    "data_pipeline.explanation": _(
        "%(name)s was data-bound in %(share)s %% of its analysed minutes over the last "
        "%(days)s days: GPU utilization low, GPU memory allocated and the CPU busy preparing "
        "input. The card is paid for while it waits; a faster input pipeline gives that time "
        "back to training."
    ),
    "data_pipeline.check.explanation": _(
        "%(name)s looked data-bound in %(share)s %% of its analysed minutes over the last "
        "%(days)s days: GPU utilization low with GPU memory allocated. Its metrics have no CPU "
        "utilization for %(without_cpu)s of those %(waiting)s minutes, so a CPU busy preparing "
        "input could not be confirmed: a job stalled on something else, or a notebook holding "
        "the card, looks the same. Check the input pipeline before acting; if it is the "
        "bottleneck, fixing it gives that time back."
    ),
    "data_pipeline.step.profile": _(
        "Profile the input pipeline (e.g. torch.utils.bottleneck, tf.data profiler)."
    ),
    "data_pipeline.step.loader": _(
        "Raise DataLoader num_workers, enable pin_memory and prefetching."
    ),
    "data_pipeline.step.cache": _(
        "Pre-process and cache the data set (decoded, resized) once, on CPU instances."
    ),
    "data_pipeline.step.local": _(
        "Move data next to the instance (local NVMe, CFS Turbo) instead of COS reads."
    ),
    "data_pipeline.formula": _(
        "%(hourly)s %(currency)s/h x %(hours)s h/month = %(monthly)s %(currency)s/month x "
        "%(waiting)s/%(known)s data-bound minutes = %(amount)s %(currency)s/month paid while "
        "waiting for data; %(gpu_hours)s (price: %(price)s)"
    ),
    "data_pipeline.formula.gpu_hours": _(
        "%(hours)s h/month x %(gpus)s GPU(s) x %(waiting)s/%(known)s data-bound minutes = "
        "%(gpu_hours)s GPU-hours/month waiting (hours: %(hours_text)s)"
    ),
    "data_pipeline.formula.no_price": _("%(gpu_hours)s; no price known"),
    "thermal.explanation": _(
        "%(name)s's GPU temperature (p95 of the hour) was above %(min)s °C in %(share)s %% of "
        "its observed hours, up to %(peak)s °C. Hot cards throttle their clocks (slower work "
        "for the same money) and fail sooner. This is an operations alert, not a saving."
    ),
    "thermal.step.ticket": _(
        "Open a ticket with Tencent Cloud support naming the instance and the hours."
    ),
    "thermal.step.restart": _("Stop and start it (STOP_CHARGING) so it is placed on another host."),
    "thermal.step.power": _(
        "Check the workload's power limit (nvidia-smi -pl) if the heat persists."
    ),
    "spot.explanation": _(
        "%(name)s is tagged %(tags)s: its work survives interruption. Spot %(type)s costs "
        "%(spot)s instead of %(postpaid)s %(currency)s/h, but can be reclaimed with about two "
        "minutes' notice whenever the zone needs the capacity."
    ),
    "spot.step.checkpoint": _("Make sure the job checkpoints at least every few minutes."),
    "spot.step.create": _(
        "Create a SPOTPAID %(type)s from an image of this instance; release this one once the "
        "job runs there."
    ),
    "spot.formula": _(
        "%(monthly)s %(currency)s/month x (1 - %(spot)s/%(postpaid)s) = %(amount)s "
        "%(currency)s/month (hours: %(hours_text)s; price: %(price)s)"
    ),
}
