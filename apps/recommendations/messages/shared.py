"""Words every rule shares: lists, weekdays, how a price was found, monthly hours, what keeps
billing while stopped, and the plan's notes on a formula (``rules/common.py``, ``plans.py``)."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from apps.recommendations.rules.types import LIST_PLUS, LIST_SEMICOLON

#: The code of a list joined by commas: a bare list parameter is one.
LIST_COMMA = "list.comma"

#: List code -> its separator, in the reader's language.
SEPARATORS: dict[str, str | Promise] = {
    LIST_COMMA: pgettext_lazy("list separator", ", "),
    LIST_SEMICOLON: pgettext_lazy("clause separator", "; "),
    LIST_PLUS: " + ",
}

WEEKDAYS: dict[str, str | Promise] = {
    "weekday.0": pgettext_lazy("weekday", "Mon"),
    "weekday.1": pgettext_lazy("weekday", "Tue"),
    "weekday.2": pgettext_lazy("weekday", "Wed"),
    "weekday.3": pgettext_lazy("weekday", "Thu"),
    "weekday.4": pgettext_lazy("weekday", "Fri"),
    "weekday.5": pgettext_lazy("weekday", "Sat"),
    "weekday.6": pgettext_lazy("weekday", "Sun"),
}

TEMPLATES: dict[str, str | Promise] = {
    # Data only (names, numbers, units): the same in every language.
    "week.run": "%(start_day)s %(start_hour)s-%(end_day)s %(end_hour)s",
    "kept.component": "%(name)s (%(code)s) %(hourly)s %(currency)s/h",
    # How the price per hour was found (``PaidPrice.text``).
    "price.billed": _(
        "%(cost)s %(currency)s runtime billed / %(hours)s h billed = %(hourly)s "
        "%(currency)s/h%(parts)s"
    ),
    "price.amortized": _(
        "%(cost)s %(currency)s subscription runtime amortized / %(hours)s h covered = "
        "%(hourly)s %(currency)s/h%(parts)s"
    ),
    "price.parts": _(" (%(items)s)"),
    "price.catalog_subscription": _(
        "catalog subscription %(monthly)s %(currency)s/month / %(hours)s h = %(hourly)s "
        "%(currency)s/h"
    ),
    "price.catalog": _("catalog price %(hourly)s %(currency)s/h"),
    "saving.no_price": _("no price known for this instance"),
    # The hours a month it is paid for (``running_hours_per_month``).
    "hours.none": _("no days in the lookback"),
    "hours.billed": _(
        "%(basis)s h billed in %(days)s days x %(days_per_month)s/%(days)s = %(hours)s h/month"
    ),
    "hours.observed": _(
        "%(basis)s h observed running in %(days)s days x %(days_per_month)s/%(days)s = "
        "%(hours)s h/month"
    ),
    # What a stop saves, and what keeps billing (``PaidPrice.stop_note``, ``still_billed``).
    "stop_note": _("stopping saves %(hourly)s %(currency)s/h%(kept)s%(unknown)s"),
    "stop_note.kept": _("; %(items)s %(currency)s/h keep billing (%(hourly)s %(currency)s/h)"),
    "stop_note.unknown": _(
        "; %(count)s component(s) of unknown kind counted as runtime: %(items)s"
    ),
    "kept.disks": _("system and data disks"),
    "kept.bandwidth": _("bandwidth"),
    "step.install_cron": _(
        "Install the cron lines on a host with tccli configured (or a serverless timer) in the "
        "organization's timezone."
    ),
    # A formula as the instance's plan prices it (``plans.py``).
    "plan.capped": _("%(formula)s; at most the instance's monthly runtime cost %(cost)s"),
    "plan.after": _(
        "%(formula)s; in the instance's plan after %(before)s: %(cost)s x %(left)s left x "
        "%(share)s = %(saving)s"
    ),
    "plan.after_nothing": _(
        "%(formula)s; in the instance's plan after nothing: %(cost)s x %(left)s left x "
        "%(share)s = %(saving)s"
    ),
    "kind.fewer_instances": _("Fewer instances at night"),
}
