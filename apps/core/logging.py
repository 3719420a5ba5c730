"""A logging filter that keeps secrets out of every log line.

Secrets must never leave the server (DESIGN.md, convention 7). Code should not log them in the
first place; this filter is the safety net for what slips through: exception messages that
echo a request, a debug line with a header dict.
"""

from __future__ import annotations

import logging
import re

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


def redact(text: str) -> str:
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
