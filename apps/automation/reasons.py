"""The codes automation records (an action's ``reason``, an endpoint's ``unavailable_reason``
and its 400s). Codes, never prose: ``wording.py`` words them per language at the edge."""

from __future__ import annotations

# Why automation is not available for a recommendation (or a plan cannot be created).
NOT_ACCEPTED = "not_accepted"
KIND_NOT_AUTOMATABLE = "kind_not_automatable"
NO_CLOUD_ACCOUNT = "no_cloud_account"
READ_ONLY_CREDENTIAL = "read_only_credential"
AUTOMATION_DISABLED = "automation_disabled"
AUTOMATION_PAUSED = "automation_paused"
MEMORY_HELD_NOT_CONFIRMED = "memory_held_not_confirmed"
PLAN_EXISTS = "plan_exists"
NO_PLAN = "no_plan"
PLAN_ENDED = "plan_ended"

UNAVAILABLE = (
    NOT_ACCEPTED,
    KIND_NOT_AUTOMATABLE,
    NO_CLOUD_ACCOUNT,
    READ_ONLY_CREDENTIAL,
    AUTOMATION_DISABLED,
    AUTOMATION_PAUSED,
)

# Why an action was skipped, cancelled or failed (or how it ended).
OPTED_OUT = "opted_out"
NO_RECENT_METRICS = "no_recent_metrics"
BUSY_GPU_UTIL = "busy_gpu_util"
BUSY_GPU_MEM = "busy_gpu_mem"
PLAN_NOT_ACTIVE = "plan_not_active"
TOO_LATE = "too_late"
ALREADY_IN_STATE = "already_in_state"
CAPACITY_SOLD_OUT = "capacity_sold_out"
NOT_AUTHORIZED = "not_authorized"
INSTANCE_NOT_FOUND = "instance_not_found"
CLOUD_ERROR = "cloud_error"
RETRIES_EXHAUSTED = "retries_exhausted"
NOT_CONFIRMED = "not_confirmed"

ACTION_REASONS = (
    OPTED_OUT,
    NO_RECENT_METRICS,
    BUSY_GPU_UTIL,
    BUSY_GPU_MEM,
    AUTOMATION_PAUSED,
    AUTOMATION_DISABLED,
    READ_ONLY_CREDENTIAL,
    PLAN_NOT_ACTIVE,
    TOO_LATE,
    ALREADY_IN_STATE,
    CAPACITY_SOLD_OUT,
    NOT_AUTHORIZED,
    INSTANCE_NOT_FOUND,
    CLOUD_ERROR,
    RETRIES_EXHAUSTED,
    NOT_CONFIRMED,
)
