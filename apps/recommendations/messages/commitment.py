"""Monthly subscription and reserved instance (``rules/commitment.py``): explanations, steps,
formulas."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

TEMPLATES: dict[str, str | Promise] = {
    "commitment.subscription": _("monthly subscription"),
    "commitment.reserved": _("%(years)s-year reserved instance"),
    "commitment.explanation": _(
        "%(name)s is pay-as-you-go and was up %(uptime)s %% of the time over the last %(days)s "
        "days; a %(what)s is cheaper above %(break_even)s %% uptime, so at this uptime it saves "
        "%(amount)s %(currency)s a month."
    ),
    "commitment.formula": _(
        "%(hourly)s %(currency)s/h x %(hours)s h/month = %(payg)s %(currency)s/month "
        "pay-as-you-go - %(commitment)s %(currency)s/month %(what)s = %(amount)s "
        "%(currency)s/month (break-even uptime %(commitment)s / (%(hourly)s x %(full)s h) = "
        "%(break_even)s %%; hours: %(hours_text)s; price: %(price)s)"
    ),
    "subscription.step.console": _(
        "Console: CVM > Instances > More > Instance Settings > Switch to Monthly Subscription, "
        "1 month, auto-renew."
    ),
    "subscription.step.api": _(
        "Or the API command below; the subscription starts at once and bills a month ahead."
    ),
    "reserved_instance.step.purchase": _(
        "Console: CVM > Reserved Instances > Purchase: %(type)s in %(region)s, %(years)s year(s)."
    ),
    "reserved_instance.step.match": _(
        "It matches this running pay-as-you-go instance automatically; keep it running as is."
    ),
}
