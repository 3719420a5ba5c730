"""What a Tencent Cloud error means for a sync: retry later, or stop and tell a person.

The SDK raises one exception type for everything (``TencentCloudSDKException``); its ``code``
decides. Transient errors are retried with backoff; permanent ones mark the cloud account
``failing`` with a message a team lead can act on (which key, which CAM permission).
"""

from __future__ import annotations

import enum

from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException


class ErrorKind(enum.StrEnum):
    TRANSIENT = "transient"  # network, throttling, server-side hiccups: retry with backoff
    CREDENTIALS = "credentials"  # wrong or expired SecretId/SecretKey: stop, ask for a new key
    PERMISSION = "permission"  # the key lacks a CAM permission: stop, name the permission
    CLOCK = "clock"  # signature expired: this machine's clock is off
    INVALID = "invalid"  # a request the cloud rejects: a bug or an unsupported region


class CloudError(Exception):
    """A failed cloud call: what kind of failure, the cloud's code, and a message for people.

    A plain exception class (not a frozen dataclass): Python sets ``__traceback__`` and
    friends on exceptions as they propagate, which a frozen dataclass forbids.
    """

    def __init__(
        self, kind: ErrorKind, code: str, message: str, request_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.request_id = request_id

    def __str__(self) -> str:
        return self.message

    @property
    def is_transient(self) -> bool:
        return self.kind in (ErrorKind.TRANSIENT, ErrorKind.CLOCK)


class InstanceStateConflict(CloudError):
    """The instance is not in a state the operation needs: already stopped or running, or an
    operation (STOPPING, STARTING) is in progress. Read its state back and decide again."""

    reason = "state_conflict"


class CapacitySoldOut(CloudError):
    """StartInstances found no capacity for the instance type in its zone (an instance stopped
    with STOP_CHARGING gave its CPU, memory and GPU back). Try later; nothing was started."""

    reason = "capacity_sold_out"


class NotAuthorized(CloudError):
    """The key may not make this call (CAM: UnauthorizedOperation.*) or was rejected
    (AuthFailure.*): a person must fix the credential or its policy."""

    reason = "not_authorized"


class InstanceNotFound(CloudError):
    """The instance does not exist in that region (terminated, or a wrong id)."""

    reason = "instance_not_found"


# Actions that change instances. Their errors map to the classes above, so automation can
# branch on what went wrong without parsing codes.
WRITE_ACTIONS = frozenset({"StopInstances", "StartInstances"})
STATE_CONFLICT_PREFIXES = (
    "UnsupportedOperation.InstanceState",
    "OperationDenied.InstanceOperationInProgress",
    "MutexOperation.TaskRunning",
)
SOLD_OUT_PREFIXES = ("ResourceInsufficient", "ResourcesSoldOut")
NOT_FOUND_CODES = {"InvalidInstanceId.NotFound"}

TRANSIENT_PREFIXES = (
    "ClientNetworkError",
    "ServerNetworkError",
    "RequestLimitExceeded",
    "InternalError",
    "ServiceUnavailable",
    "ResourceUnavailable",
    "FailedOperation.SummaryDataNotReady",
)
CREDENTIAL_CODES = {
    "AuthFailure.SecretIdNotFound",
    "AuthFailure.InvalidSecretId",
    "AuthFailure.SignatureFailure",
    "AuthFailure.TokenFailure",
    "AuthFailure.InvalidAuthorization",
    "AuthFailure.MFAFailure",
    "InvalidCredential",
}
PERMISSION_PREFIXES = ("AuthFailure.UnauthorizedOperation", "UnauthorizedOperation")

# The CAM policy a read-only GPU Ledger key needs for each API, to name it in messages.
CAM_ACTIONS = {
    "DescribeInstances": "cvm:DescribeInstances",
    "DescribeInstanceTypeConfigs": "cvm:DescribeInstanceTypeConfigs",
    "DescribeZoneInstanceConfigInfos": "cvm:DescribeZoneInstanceConfigInfos",
    "GetMonitorData": "monitor:GetMonitorData",
    "DescribeBillDetail": "finance:DescribeBillDetail (billing)",
    "DescribeAccountBalance": "finance:DescribeAccountBalance (billing)",
    "StopInstances": "cvm:StopInstances",
    "StartInstances": "cvm:StartInstances",
}


def _classify_write(
    code: str, detail: str, request_id: str | None, action: str
) -> CloudError | None:
    """The specific error of a StopInstances/StartInstances answer, None for the generic ones."""
    if code.startswith(STATE_CONFLICT_PREFIXES):
        return InstanceStateConflict(
            ErrorKind.INVALID,
            code,
            f"Tencent Cloud refused {action}: the instance is not in a state that allows it "
            f"({code}). {detail}".strip(),
            request_id,
        )
    if code.startswith(SOLD_OUT_PREFIXES):
        return CapacitySoldOut(
            ErrorKind.INVALID,
            code,
            f"Tencent Cloud has no capacity left to start the instance ({code}). {detail}".strip(),
            request_id,
        )
    if code in NOT_FOUND_CODES:
        return InstanceNotFound(
            ErrorKind.INVALID, code, f"The instance does not exist ({code}).", request_id
        )
    if code.startswith(PERMISSION_PREFIXES):
        return NotAuthorized(
            ErrorKind.PERMISSION,
            code,
            f"The write key of this account is not allowed to call {action}. Grant it the CAM "
            f"permission {CAM_ACTIONS[action]} (docs/automation.md has the policy to attach).",
            request_id,
        )
    if code in CREDENTIAL_CODES:
        return NotAuthorized(
            ErrorKind.CREDENTIALS,
            code,
            f"Tencent Cloud rejected the write SecretId/SecretKey of this account ({code}). "
            "Check that the key pair is correct and enabled, then save it again.",
            request_id,
        )
    return None


def classify(exc: TencentCloudSDKException, *, action: str) -> CloudError:
    """Map an SDK exception raised by ``action`` to a CloudError with a human message."""
    code = exc.get_code() or "Unknown"
    detail = (exc.get_message() or "").strip()
    request_id = exc.get_request_id()
    if action in WRITE_ACTIONS:
        specific = _classify_write(code, detail, request_id, action)
        if specific is not None:
            return specific
    if code.startswith(TRANSIENT_PREFIXES):
        return CloudError(
            ErrorKind.TRANSIENT,
            code,
            f"Tencent Cloud is temporarily unavailable ({code}).",
            request_id,
        )
    if code in CREDENTIAL_CODES:
        return CloudError(
            ErrorKind.CREDENTIALS,
            code,
            "Tencent Cloud rejected the SecretId/SecretKey of this account "
            f"({code}). Check that the key pair is correct and enabled, then save it again.",
            request_id,
        )
    if code == "AuthFailure.SignatureExpire":
        return CloudError(
            ErrorKind.CLOCK,
            code,
            "Tencent Cloud rejected the request time: the server clock is off by more than 5 minutes.",
            request_id,
        )
    if code.startswith(PERMISSION_PREFIXES):
        permission = CAM_ACTIONS.get(action, action)
        return CloudError(
            ErrorKind.PERMISSION,
            code,
            f"The key of this account is not allowed to call {action}. Grant it the CAM permission "
            f"{permission} (the QcloudCVMReadOnlyAccess, QcloudMonitorReadOnlyAccess and "
            "QcloudFinanceBillReadOnlyAccess policies cover every call GPU Ledger makes).",
            request_id,
        )
    return CloudError(
        ErrorKind.INVALID,
        code,
        f"Tencent Cloud rejected {action}: {code} {detail}".strip(),
        request_id,
    )
