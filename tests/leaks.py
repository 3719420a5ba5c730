"""The secrets the test suite uses, and the check that none of them reached a log.

Every log record of the test run (all loggers, DEBUG and up, before any redaction) is written
to ``var/test/<worker>/run.log``, and Celery worker processes started by tests append their
output there too. When the run ends, ``tests/conftest.py`` greps those files for these values
and fails the run if one appears: secrets must never be logged, not merely be redacted.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from apps.cloud.providers.tencent.simulator import DEFAULT_SECRET_KEY

WRONG_SECRET_KEY = "wrongSecretKey0000000000000000000"
KNOWN_SECRETS = (DEFAULT_SECRET_KEY, WRONG_SECRET_KEY)


def find_leaks(paths: Iterable[Path], secrets: Iterable[str] = KNOWN_SECRETS) -> list[str]:
    """Lines (``file:line: text``) of the given files that contain one of ``secrets``."""
    leaks = []
    for path in paths:
        if not path.is_file():
            continue
        with path.open(errors="replace") as lines:
            for number, line in enumerate(lines, 1):
                if any(secret in line for secret in secrets):
                    leaks.append(f"{path}:{number}: {line.strip()[:200]}")
    return leaks
