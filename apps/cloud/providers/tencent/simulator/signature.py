"""TC3-HMAC-SHA256: verification of incoming requests, and signing for tests and raw clients.

Verification follows the recipe in reference/tencent-api.md §1.3 and honours whatever
``SignedHeaders`` lists (the SDK signs ``content-type;host``, the docs' example adds
``x-tc-action``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from .constants import SIGNATURE_MAX_SKEW_SECONDS
from .errors import ApiError

ALGORITHM = "TC3-HMAC-SHA256"


@dataclass(frozen=True)
class SignedScope:
    """What a valid Authorization header proved: who signed, for which service and when."""

    secret_id: str
    service: str
    date: str
    timestamp: int


def _hmac(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def signature_for(
    secret_key: str,
    *,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, str],
    signed_headers: list[str],
    body: bytes,
    service: str,
    date: str,
    timestamp: int,
) -> str:
    """The hex signature for a request (header names in ``headers`` must be lower-case)."""
    canonical_headers = "".join(f"{h}:{headers[h].strip().lower()}\n" for h in signed_headers)
    canonical_request = "\n".join(
        [
            method,
            path or "/",
            query if method == "GET" else "",
            canonical_headers,
            ";".join(signed_headers),
            hashlib.sha256(body).hexdigest(),
        ]
    )
    string_to_sign = "\n".join(
        [
            ALGORITHM,
            str(timestamp),
            f"{date}/{service}/tc3_request",
            hashlib.sha256(canonical_request.encode()).hexdigest(),
        ]
    )
    key = _hmac(("TC3" + secret_key).encode(), date)
    key = _hmac(key, service)
    key = _hmac(key, "tc3_request")
    return hmac.new(key, string_to_sign.encode(), hashlib.sha256).hexdigest()


def parse_authorization(header: str | None) -> tuple[str, str, str, list[str], str]:
    """(secret_id, date, service, signed_headers, signature) of an Authorization header."""
    if not header:
        raise ApiError("AuthFailure.InvalidAuthorization", "The Authorization header is missing.")
    try:
        algorithm, rest = header.split(" ", 1)
        fields = dict(part.strip().split("=", 1) for part in rest.split(","))
        secret_id, date, service, terminator = fields["Credential"].split("/")
        signed = fields["SignedHeaders"].split(";")
        signature = fields["Signature"]
    except (ValueError, KeyError) as exc:
        raise ApiError(
            "AuthFailure.InvalidAuthorization", "The Authorization header is malformed."
        ) from exc
    if algorithm != ALGORITHM or terminator != "tc3_request":
        raise ApiError(
            "AuthFailure.InvalidAuthorization", f"Only {ALGORITHM} signatures are supported."
        )
    return secret_id, date, service, signed, signature


def verify(
    *,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, str],
    body: bytes,
    secrets: Mapping[str, str],
    now: float,
) -> SignedScope:
    """Check a request's TC3 signature; raise ApiError with the real AuthFailure code if bad.

    ``headers`` must be keyed by lower-case names. ``now`` is the wall clock in unix seconds.
    """
    secret_id, date, service, signed, signature = parse_authorization(headers.get("authorization"))
    if secret_id not in secrets:
        raise ApiError("AuthFailure.SecretIdNotFound", "The SecretId is not found.")
    try:
        timestamp = int(headers.get("x-tc-timestamp", ""))
    except ValueError as exc:
        raise ApiError(
            "AuthFailure.SignatureFailure", "The X-TC-Timestamp header is missing or invalid."
        ) from exc
    if abs(now - timestamp) > SIGNATURE_MAX_SKEW_SECONDS:
        raise ApiError(
            "AuthFailure.SignatureExpire",
            "Signature expired. Timestamp differs from the server time by more than 300 seconds.",
        )
    missing = [h for h in signed if h not in headers]
    if missing:
        raise ApiError(
            "AuthFailure.SignatureFailure", f"Signed header `{missing[0]}` is not in the request."
        )
    expected = signature_for(
        secrets[secret_id],
        method=method,
        path=path,
        query=query,
        headers=headers,
        signed_headers=signed,
        body=body,
        service=service,
        date=date,
        timestamp=timestamp,
    )
    if not hmac.compare_digest(expected, signature):
        raise ApiError(
            "AuthFailure.SignatureFailure",
            "The provided credentials could not be validated. "
            "Please check your signature is correct.",
        )
    if datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d") != date:
        raise ApiError(
            "AuthFailure.SignatureFailure",
            "The date in the credential scope is not the UTC date of X-TC-Timestamp.",
        )
    return SignedScope(secret_id, service, date, timestamp)


def sign_headers(
    *,
    secret_id: str,
    secret_key: str,
    service: str,
    action: str,
    version: str,
    body: bytes,
    host: str,
    timestamp: int,
    region: str | None = None,
    extra_signed: tuple[str, ...] = (),
) -> dict[str, str]:
    """Headers of a signed JSON POST, for raw HTTP clients and tests (not used by the SDK)."""
    date = datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")
    headers = {
        "content-type": "application/json",
        "host": host,
        "x-tc-action": action,
        "x-tc-version": version,
        "x-tc-timestamp": str(timestamp),
    }
    if region:
        headers["x-tc-region"] = region
    signed = ["content-type", "host", *extra_signed]
    signature = signature_for(
        secret_key,
        method="POST",
        path="/",
        query="",
        headers=headers,
        signed_headers=signed,
        body=body,
        service=service,
        date=date,
        timestamp=timestamp,
    )
    headers["authorization"] = (
        f"{ALGORITHM} Credential={secret_id}/{date}/{service}/tc3_request, "
        f"SignedHeaders={';'.join(signed)}, Signature={signature}"
    )
    return headers
