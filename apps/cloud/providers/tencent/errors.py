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
}


def classify(exc: TencentCloudSDKException, *, action: str) -> CloudError:
    """Map an SDK exception raised by ``action`` to a CloudError with a human message."""
    code = exc.get_code() or "Unknown"
    detail = (exc.get_message() or "").strip()
    request_id = exc.get_request_id()
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
