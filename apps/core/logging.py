"""A logging filter that keeps secrets out of every log line, and gunicorn's access log too.

Secrets must never leave the server (DESIGN.md, convention 7). Code should not log them in the
first place; this filter is the safety net for what slips through: exception messages that
echo a request, a debug line with a header dict.

Links that carry a one-time secret in their query (set-password, e-mail confirmation,
invitation, digest unsubscribe: ``TOKEN_PATHS``) are requested by browsers, so their URL
reaches the request logs: gunicorn's access log (request line and ``Referer``, which every
asset that page loads sends back with the full URL) and runserver's ``django.server`` lines.
Such a path loses its whole query in a log line, and a ``token``/``uid``/``key``... parameter
anywhere is redacted. Gunicorn uses ``TokenSafeAccessLogger`` (config/gunicorn.conf.py);
Django's loggers, ``django.server`` included, go through ``RedactSecretsFilter``.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from gunicorn.glogging import Logger as GunicornLogger

#: Paths whose query is a one-time secret (apps/accounts, apps/digests links).
TOKEN_PATHS = (
    "/set-password",
    "/verify-email",
    "/invitations/accept",
    "/api/v1/digests/unsubscribe",
)
_TOKEN_PATH_QUERY = re.compile(
    r"((?:" + "|".join(re.escape(path) for path in TOKEN_PATHS) + r")/?)\?[^\s\"'#]*"
)
_SECRET_PARAMETER = re.compile(
    r"(?i)([?&;](?:token|uid|key|api_key|secret|password|signature|code)=)[^&;#\s\"']*"
)

_PATTERNS = [
    # "SecretKey": "abc", SecretKey=abc, secret_key='abc' and the like.
    re.compile(r"""(?i)(secret_?key|password|token)(["']?\s*[:=]\s*["']?)([^"'\s,}&]+)"""),
    # Authorization: Bearer <key> and TC3 signatures.
    re.compile(r"""(?i)(bearer\s+)()([A-Za-z0-9_.\-]+)"""),
    re.compile(r"""(?i)(signature=)()([0-9a-f]{16,})"""),
    # GPU Ledger API keys wherever they appear.
    re.compile(r"""()()(glk_[A-Za-z0-9]{8}_[A-Za-z0-9]{8,})"""),
]
REDACTED = "[REDACTED]"


def redact_url(text: str) -> str:
    """``text`` with the query of every token-bearing path, and every secret-named query
    parameter, replaced by ``[REDACTED]`` (a request line, a URL, a Referer)."""
    text = _TOKEN_PATH_QUERY.sub(lambda m: f"{m.group(1)}?{REDACTED}", text)
    return _SECRET_PARAMETER.sub(lambda m: f"{m.group(1)}{REDACTED}", text)


def redact(text: str) -> str:
    text = redact_url(text)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}", text)
    return text


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            # Render the traceback now, redacted, so handlers do not format the raw one.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


class TokenSafeAccessLogger(GunicornLogger):
    """Gunicorn's logger, whose access-log fields (request line, path, query, Referer, every
    header and environ value) go through ``redact`` before the line is written."""

    def atoms(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        return {
            key: redact(value) if isinstance(value, str) else value for key, value in atoms.items()
        }
