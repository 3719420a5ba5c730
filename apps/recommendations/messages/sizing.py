"""Downsize and upsize (``rules/sizing.py``): explanations, steps, formulas."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

TEMPLATES: dict[str, str | Promise] = {
    "downsize.explanation": _(
        "Over the last %(days)s days %(name)s never needed its size: p95 GPU utilization "
        "%(util)s %% and peak GPU memory %(mem)s %%. %(target)s (%(cards)s x %(model)s) runs "
        "the same peak under %(max)s %% for less."
    ),
    "downsize.step.stop": _("Stop the instance (ResetInstancesType needs it stopped)."),
    "downsize.step.change": _("Change its type to %(target)s, then start it."),
    "downsize.formula": _(
        "(%(hourly)s - %(target_hourly)s) %(currency)s/h x %(hours)s h/month = %(amount)s "
        "%(currency)s/month; target price %(hourly)s x catalog "
        "%(target_catalog)s/%(current_catalog)s (hours: %(hours_text)s; price: %(price)s)"
    ),
    "upsize.pressure": _(
        "%(name)s (%(cards)s) ran with GPU memory at or above %(min)s %% in %(share)s %% of its "
        "observed hours while %(util)s %% busy: batches are squeezed and out-of-memory failures "
        "are near."
    ),
    "upsize.explanation": _(
        "%(pressure)s %(target)s (%(cards)s) is the next larger %(family)s type."
    ),
    "upsize.explanation.per_work": _(
        "%(pressure)s %(target)s (%(cards)s) is the next larger %(family)s type. Per "
        "%(currency)s it buys %(target_per_money)s instead of %(current_per_money)s samples."
    ),
    "upsize.step.checkpoint": _("Checkpoint the job."),
    "upsize.step.resize": _(
        "Resize to (or recreate on) %(target)s and resume; raise the batch size to use the new "
        "memory."
    ),
    "upsize.target_price.ratio": _("%(hourly)s x catalog %(target)s/%(current)s"),
    "upsize.target_price.catalog": _("catalog %(target)s"),
    "upsize.formula.unpriced": _(
        "no price known for %(type)s or %(target)s (%(charge_type)s), or no throughput for "
        "their GPUs: the work cannot be priced"
    ),
    "upsize.formula.extra": _(
        "now %(hourly)s %(currency)s/h x %(hours)s h/month = %(monthly)s %(currency)s/month for "
        "%(current_per_hour)s samples/h x %(hours)s h; the same samples on the target take "
        "%(hours)s x %(current_per_hour)s/%(target_per_hour)s = %(target_hours)s h x "
        "%(target_hourly)s %(currency)s/h (target %(target_price)s) = %(same_work)s "
        "%(currency)s/month: extra cost %(difference)s %(currency)s/month. Samples per "
        "%(currency)s: samples/h / price/h = %(current_per_money)s now, %(target_per_money)s on "
        "the target (hours: %(hours_text)s; price: %(price)s)"
    ),
    "upsize.formula.saving": _(
        "now %(hourly)s %(currency)s/h x %(hours)s h/month = %(monthly)s %(currency)s/month for "
        "%(current_per_hour)s samples/h x %(hours)s h; the same samples on the target take "
        "%(hours)s x %(current_per_hour)s/%(target_per_hour)s = %(target_hours)s h x "
        "%(target_hourly)s %(currency)s/h (target %(target_price)s) = %(same_work)s "
        "%(currency)s/month: saving %(difference)s %(currency)s/month. Samples per "
        "%(currency)s: samples/h / price/h = %(current_per_money)s now, %(target_per_money)s on "
        "the target (hours: %(hours_text)s; price: %(price)s)"
    ),
    "upsize.no_larger_type.explanation": _(
        "%(pressure)s No %(family)s type sold in %(zone)s is larger: reduce the memory the job "
        "needs (smaller batches with gradient accumulation, mixed precision, activation "
        "checkpointing) or spread it over several instances."
    ),
    "upsize.no_larger_type.step.batch": _(
        "Lower the per-card batch size and accumulate gradients to keep the effective batch."
    ),
    "upsize.no_larger_type.step.precision": _(
        "Train in mixed precision (bf16/fp16) and checkpoint activations."
    ),
    "upsize.no_larger_type.step.shard": _(
        "Or shard the model over more instances (e.g. FSDP, DeepSpeed ZeRO)."
    ),
    "upsize.no_larger_type.formula": _(
        "no type of the %(family)s family in %(zone)s has more GPU memory per card or more "
        "cards than %(type)s: nothing to price"
    ),
}
