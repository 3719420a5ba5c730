"""The words of the recommendation settings, in the active language (the API activates the
reader's: ``apps.api.language``).

The rules name each threshold by its field (``idle_gpu_util_p95_max_pct``) and say nothing in
prose; its label and help sentence are here, one catalog per language (English in the source,
Simplified Chinese in ``locale/zh_Hans``), rendered where they are shown.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

#: Threshold name -> (label, help). Every field of ``RuleThresholds`` has one (a test says so).
THRESHOLD_WORDS = {
    "lookback_days": (
        _("Lookback (days)"),
        _("Days of evidence every rule looks back over, unless it has its own."),
    ),
    "days_per_month": (
        _("Days per month"),
        _("Days in a month when an hourly saving is turned into a monthly one."),
    ),
    "idle_lookback_days": (
        _("Stop idle: lookback (days)"),
        _("Days the stop-idle rule looks back over; empty: the general lookback."),
    ),
    "schedule_lookback_days": (
        _("Schedule: lookback (days)"),
        _("Days the day/night schedule rule looks back over; empty: the general lookback."),
    ),
    "downshift_lookback_days": (
        _("Night downshift: lookback (days)"),
        _("Days the night downshift rule looks back over; empty: the general lookback."),
    ),
    "subscription_lookback_days": (
        _("Commitments: lookback (days)"),
        _(
            "Days the monthly subscription and reserved-instance rules look back over; empty: "
            "the general lookback."
        ),
    ),
    "spot_lookback_days": (
        _("Spot: lookback (days)"),
        _("Days the spot rule looks back over; empty: the general lookback."),
    ),
    "downsize_lookback_days": (
        _("Downsize: lookback (days)"),
        _("Days the downsize rule looks back over; empty: the general lookback."),
    ),
    "upsize_lookback_days": (
        _("Upsize: lookback (days)"),
        _("Days the upsize rule looks back over; empty: the general lookback."),
    ),
    "pipeline_lookback_days": (
        _("Data pipeline: lookback (days)"),
        _("Days the data pipeline rule looks back over; empty: the general lookback."),
    ),
    "thermal_lookback_days": (
        _("Thermal: lookback (days)"),
        _("Days the thermal rule looks back over; empty: the general lookback."),
    ),
    "idle_gpu_util_p95_max_pct": (
        _("Idle hour: p95 GPU utilization at most (%)"),
        _("An hour is idle when its p95 GPU utilization is at most this."),
    ),
    "idle_min_share": (
        _("Idle share of observed hours (0-1)"),
        _("Share of observed hours that must be idle for 'idle around the clock'."),
    ),
    "idle_min_evidence_days": (
        _("Stop idle: evidence needed (days)"),
        _("Observed days needed before an idle card is reported."),
    ),
    "idle_held_gpu_mem_min_pct": (
        _("Idle, memory held: GPU memory at least (%)"),
        _(
            "An idle hour holding at least this much GPU memory is 'idle, memory held' (a "
            "notebook or a hung job)."
        ),
    ),
    "schedule_p95_max_pct": (
        _("Off-hours: p95 GPU utilization under (%)"),
        _("An hour of the week is off-hours when its p95 GPU utilization is under this."),
    ),
    "schedule_min_coverage": (
        _("Schedule: hours observed at least (0-1)"),
        _("Share of the weeks an hour of the week must be observed to judge it."),
    ),
    "schedule_stopped_coverage_max": (
        _("Already stopped: observed at most (0-1)"),
        _(
            "An hour of the week observed at most this share of the weeks counts as already stopped."
        ),
    ),
    "schedule_min_run_hours": (
        _("Shortest off-hours window (hours)"),
        _("Shortest off-hours window worth a schedule, in hours."),
    ),
    "schedule_min_evidence_days": (
        _("Schedule: existed at least (days)"),
        _(
            "Days the instance must have existed before a schedule or a night downshift is "
            "suggested."
        ),
    ),
    "downshift_p95_max_pct": (
        _("Night downshift: p95 GPU utilization up to (%)"),
        _(
            "Night p95 GPU utilization, above the schedule level, up to which a multi-card "
            "instance could run on a smaller type."
        ),
    ),
    "downshift_min_run_hours": (
        _("Shortest night window (hours)"),
        _("Shortest night window worth a downshift, in hours."),
    ),
    "downshift_target_load_max_pct": (
        _("Night downshift: smaller type at most (%)"),
        _("The smaller type must run the night load at most this hot."),
    ),
    "subscription_min_evidence_days": (
        _("Commitments: existed at least (days)"),
        _("Days the instance must have existed before a commitment is suggested."),
    ),
    "subscription_uptime_margin": (
        _("Commitments: uptime margin (0-1)"),
        _(
            "How far uptime must exceed the break-even uptime (a share) before a commitment is "
            "suggested."
        ),
    ),
    "spot_tags": (
        _("Spot: interruption-tolerant tags"),
        _(
            "Tags (key=value, case-insensitive) that mark work as interruption-tolerant; only "
            "such instances are offered spot."
        ),
    ),
    "spot_min_evidence_days": (
        _("Spot: evidence needed (days)"),
        _("Observed days needed before spot is suggested."),
    ),
    "downsize_gpu_util_p95_max_pct": (
        _("Downsize: p95 GPU utilization under (%)"),
        _("Downsize only when p95 GPU utilization over the lookback is under this."),
    ),
    "downsize_gpu_mem_peak_max_pct": (
        _("Downsize: peak GPU memory under (%)"),
        _("Downsize only when peak GPU memory over the lookback is under this."),
    ),
    "downsize_target_load_max_pct": (
        _("Downsize: smaller type at most (%)"),
        _("The smaller type must run the same peak at most this hot."),
    ),
    "downsize_min_evidence_days": (
        _("Downsize: evidence needed (days)"),
        _("Observed days needed before downsizing is suggested."),
    ),
    "upsize_gpu_mem_min_pct": (
        _("Memory pressure: p95 GPU memory at least (%)"),
        _("An hour is under memory pressure when its p95 GPU memory is at least this."),
    ),
    "upsize_min_share": (
        _("Memory pressure: share of hours (0-1)"),
        _("Share of observed hours under memory pressure needed to suggest upsizing."),
    ),
    "upsize_gpu_util_min_pct": (
        _("Upsize: average GPU utilization at least (%)"),
        _("Average GPU utilization at least this, so the card is busy too."),
    ),
    "upsize_min_evidence_days": (
        _("Upsize: evidence needed (days)"),
        _("Observed days needed before upsizing is suggested."),
    ),
    "pipeline_min_share": (
        _("Data pipeline: share waiting for data (0-1)"),
        _(
            "Share of the running minutes spent waiting for data above which the data pipeline "
            "is flagged."
        ),
    ),
    "pipeline_min_evidence_days": (
        _("Data pipeline: evidence needed (days)"),
        _("Observed days needed before the data pipeline is flagged."),
    ),
    "thermal_temp_min_c": (
        _("Hot hour: p95 GPU temperature above (°C)"),
        _("An hour is hot when its p95 GPU temperature is above this, in °C."),
    ),
    "thermal_min_share": (
        _("Thermal: share of hot hours (0-1)"),
        _("Share of observed hours that must be hot to raise a thermal alert."),
    ),
    "thermal_min_evidence_days": (
        _("Thermal: evidence needed (days)"),
        _("Observed days needed before a thermal alert."),
    ),
    "automation_busy_gpu_util_pct": (
        _("Automation: busy above GPU utilization (%)"),
        _(
            "Automation does not stop an instance whose GPU utilization over its last 15 "
            "minutes is above this."
        ),
    ),
    "automation_busy_gpu_mem_pct": (
        _("Automation: busy above GPU memory used (%)"),
        _(
            "Automation does not stop an instance whose GPU memory used over its last 15 "
            "minutes is above this (unless a person confirmed it may)."
        ),
    ),
}


def threshold_label(name: str) -> str:
    return str(THRESHOLD_WORDS[name][0])


def threshold_help(name: str) -> str:
    return str(THRESHOLD_WORDS[name][1])
