"""StopInstances / StartInstances on the simulated fleet: the rules, then the transitions.

A request is all or nothing, as Tencent documents for its batch operations: when any instance
of the batch may not be operated, the request answers that error and changes nothing.
The checks run in this order, each over the whole batch: ids well formed and not repeated,
every instance found (in the request's region, not terminated), the credential's tag
condition, the state, then the charge rules (STOP_CHARGING only for pay-as-you-go; capacity
for a start).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .errors import ApiError
from .fleet import POSTPAID, Instance
from .operations import (
    FAILED,
    KEEP_CHARGING,
    NOT_APPLICABLE,
    OPERATING,
    RUNNING,
    START_INSTANCES,
    STARTING,
    STOP_CHARGING,
    STOP_INSTANCES,
    STOPPED,
    STOPPING,
    SUCCESS,
    Transition,
)

if TYPE_CHECKING:
    from .world import SimulatedCloud

INSTANCE_ID = re.compile(r"^ins-[0-9a-z]{8}$")
MAX_INSTANCES = 100
STOP_TYPES = ("SOFT", "HARD", "SOFT_FIRST")
STOPPED_MODES = (KEEP_CHARGING, STOP_CHARGING)

# The state an instance is in -> the error an operation that needs another state answers.
_STATE_ERRORS = {
    RUNNING: "UnsupportedOperation.InstanceStateRunning",
    STOPPED: "UnsupportedOperation.InstanceStateStopped",
    STOPPING: "UnsupportedOperation.InstanceStateStopping",
    STARTING: "UnsupportedOperation.InstanceStateStarting",
}


def _targets(
    cloud: SimulatedCloud,
    region: str | None,
    instance_ids: Sequence[str],
    now: int,
    required_tag: tuple[str, str] | None,
) -> list[Instance]:
    if not instance_ids:
        raise ApiError(
            "MissingParameter", "The request is missing a required parameter `InstanceIds`."
        )
    if len(instance_ids) > MAX_INSTANCES:
        raise ApiError(
            "InvalidParameterValue.LimitExceeded",
            f"At most {MAX_INSTANCES} `InstanceIds` are allowed in one request.",
        )
    malformed = [i for i in instance_ids if not INSTANCE_ID.match(i)]
    if malformed:
        raise ApiError(
            "InvalidInstanceId.Malformed", f"The instance id `{malformed[0]}` is malformed."
        )
    if len(set(instance_ids)) != len(instance_ids):
        raise ApiError("InvalidParameterValue", "The parameter `InstanceIds` repeats an id.")
    found: list[Instance] = []
    missing: list[str] = []
    for instance_id in instance_ids:
        inst = cloud.fleet.by_id.get(instance_id)
        if inst is None or not inst.exists_at(now) or (region and inst.region != region):
            missing.append(instance_id)
        else:
            found.append(inst)
    if missing:
        raise ApiError(
            "InvalidInstanceId.NotFound",
            f"The instance(s) `{', '.join(missing)}` do not exist.",
        )
    if required_tag is not None:
        key, value = required_tag
        for inst in found:
            if inst.tag(key) != value:
                raise ApiError(
                    "UnauthorizedOperation.CamNoAuth",
                    f"The current user is not authorized to operate `{inst.instance_id}`: "
                    f"the CAM policy requires the tag {key}={value} (qcs:resource_tag).",
                )
    return found


def _require_state(instances: list[Instance], wanted: str, now: int) -> None:
    for inst in instances:
        state = inst.state_at(now)
        if state != wanted:
            code = _STATE_ERRORS.get(str(state), "OperationDenied.InstanceOperationInProgress")
            raise ApiError(
                code,
                f"The instance `{inst.instance_id}` is {state}; this operation needs {wanted}.",
            )


def stop_instances(
    cloud: SimulatedCloud,
    instance_ids: Sequence[str],
    *,
    region: str | None,
    stopped_mode: str,
    stop_type: str,
    now: int,
    request_id: str | None = None,
    required_tag: tuple[str, str] | None = None,
) -> str:
    """Stop RUNNING instances: STOPPING now, STOPPED ``stop_seconds`` later. Returns the
    request id the instances' LatestOperationRequestId will show."""
    if stop_type not in STOP_TYPES:
        raise ApiError(
            "InvalidParameterValue", f"The value `{stop_type}` of parameter `StopType` is invalid."
        )
    if stopped_mode not in STOPPED_MODES:
        raise ApiError(
            "InvalidParameterValue",
            f"The value `{stopped_mode}` of parameter `StoppedMode` is invalid.",
        )
    instances = _targets(cloud, region, instance_ids, now, required_tag)
    _require_state(instances, RUNNING, now)
    if stopped_mode == STOP_CHARGING:
        for inst in instances:
            if inst.charge_type != POSTPAID:
                raise ApiError(
                    "UnsupportedOperation.StoppedModeStopCharging",
                    f"The instance `{inst.instance_id}` ({inst.charge_type}) does not support "
                    "no charges when shut down (STOP_CHARGING is for pay-as-you-go only).",
                )
    rid = request_id or str(uuid.uuid4())
    done = now + cloud.operations.stop_seconds
    cloud.operations.record(
        {
            inst.instance_id: [
                Transition(now, STOPPING, stopped_mode, STOP_INSTANCES, OPERATING, rid),
                Transition(done, STOPPED, stopped_mode, STOP_INSTANCES, SUCCESS, rid),
            ]
            for inst in instances
        }
    )
    return rid


def start_instances(
    cloud: SimulatedCloud,
    instance_ids: Sequence[str],
    *,
    region: str | None,
    now: int,
    request_id: str | None = None,
    required_tag: tuple[str, str] | None = None,
) -> str:
    """Start STOPPED instances: STARTING now, RUNNING ``start_seconds`` later (or STOPPED
    again with LatestOperationState FAILED in a failing zone)."""
    instances = _targets(cloud, region, instance_ids, now, required_tag)
    _require_state(instances, STOPPED, now)
    ops = cloud.operations
    released = {inst.instance_id: inst.stop_charging_mode_at(now) for inst in instances}
    for inst in instances:
        # Only a STOP_CHARGING stop gives back the CPU, memory and GPU; KEEP_CHARGING keeps
        # them reserved, so only the former can find its zone sold out.
        if released[inst.instance_id] == STOP_CHARGING and inst.zone in ops.sold_out_zones:
            raise ApiError(
                "ResourceInsufficient.AvailabilityZoneSoldOut",
                f"The zone `{inst.zone}` has no capacity left for `{inst.spec.instance_type}`; "
                f"the instance `{inst.instance_id}` cannot be started now.",
            )
    rid = request_id or str(uuid.uuid4())
    done = now + ops.start_seconds
    changes = {}
    for inst in instances:
        mode = released[inst.instance_id]
        fails = mode == STOP_CHARGING and inst.zone in ops.failing_start_zones
        end = (
            Transition(done, STOPPED, mode, START_INSTANCES, FAILED, rid)
            if fails
            else Transition(done, RUNNING, NOT_APPLICABLE, START_INSTANCES, SUCCESS, rid)
        )
        changes[inst.instance_id] = [
            Transition(now, STARTING, NOT_APPLICABLE, START_INSTANCES, OPERATING, rid),
            end,
        ]
    ops.record(changes)
    return rid
