"""Batches waiting on disk, and sending them to the ingest API with retries and backoff.

A batch is written to ``outbox/`` (a temporary file renamed into place, so a crash leaves a
whole batch or none) before anything is sent, and deleted only once the server has answered
2xx. A batch whose answer was lost is sent again; the server keys every point by its
timestamp, so storing it twice changes nothing. A batch the server refuses as malformed (400,
413, 415) will never be accepted: it moves to ``rejected/`` beside the server's reason, for a
person to read, instead of blocking the batches behind it.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

INGEST_PATH = "/api/v1/ingest/gpu-samples"
# About a week of one batch a minute; beyond it the oldest batches go first.
MAX_BATCHES = 10_000
# Kept and retried: a wrong or revoked key (401/403) and an instance the server does not know
# yet (404: inventory syncs run every few minutes) are fixed on the server, not in the batch.
RETRYABLE_STATUSES = {401, 403, 404, 408, 429}
BACKOFF_FIRST_S = 5.0
BACKOFF_MAX_S = 300.0


class Outbox:
    def __init__(self, directory: Path, max_batches: int = MAX_BATCHES) -> None:
        self.directory = directory
        self.rejected = directory.parent / "rejected"
        self.max_batches = max_batches
        self._sequence = 0
        directory.mkdir(parents=True, exist_ok=True)
        self.rejected.mkdir(parents=True, exist_ok=True)

    def pending(self) -> list[Path]:
        # Names start with a zero-padded time in milliseconds: the sort is oldest first.
        return sorted(self.directory.glob("*.json"))

    def put(self, batch: dict[str, Any]) -> Path:
        self._sequence += 1
        name = f"{int(time.time() * 1000):015d}-{os.getpid()}-{self._sequence:06d}.json"
        temporary = self.directory / (name + ".tmp")
        temporary.write_text(json.dumps(batch, separators=(",", ":")))
        path = self.directory / name
        os.replace(temporary, path)
        pending = self.pending()
        for old in pending[: max(0, len(pending) - self.max_batches)]:
            logger.warning(
                "outbox full (%d batches): dropping the oldest, %s", len(pending), old.name
            )
            old.unlink()
        return path


class Sender:
    """POSTs the outbox's batches in order; after a failure waits (exponential, jittered)."""

    def __init__(self, outbox: Outbox, url: str, api_key: str, timeout_s: float = 30) -> None:
        self.outbox = outbox
        self.endpoint = url.rstrip("/") + INGEST_PATH
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.failures = 0
        self.next_attempt_at = 0.0

    def flush(self, now: float | None = None) -> int:
        """Send what is waiting, oldest first; stop at the first failure. Returns batches sent."""
        now = time.time() if now is None else now
        if now < self.next_attempt_at:
            return 0
        sent = 0
        for path in self.outbox.pending():
            outcome = self._send(path)
            if outcome == "retry":
                self.failures += 1
                delay = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** (self.failures - 1))
                self.next_attempt_at = now + delay * random.uniform(0.8, 1.2)
                logger.warning(
                    "ingest unreachable; %d batches wait, next try in %.0f s",
                    len(self.outbox.pending()),
                    delay,
                )
                return sent
            self.failures = 0
            self.next_attempt_at = 0.0
            sent += outcome == "sent"
        return sent

    def _send(self, path: Path) -> str:
        body = path.read_bytes()
        request = urllib.request.Request(
            self.endpoint,
            data=body,
            method="POST",
            headers={
                "Authorization": f"Bearer {self.api_key}",
                "Content-Type": "application/json",
                "User-Agent": "gpu-ledger-agent/0.1.0",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                response.read()
        except urllib.error.HTTPError as error:
            reason = error.read().decode("utf-8", "replace")[:4000]
            if error.code in RETRYABLE_STATUSES or error.code >= 500:
                logger.warning("ingest answered %d: %s", error.code, reason[:300])
                return "retry"
            logger.error("ingest refused %s (%d): %s", path.name, error.code, reason[:300])
            os.replace(path, self.outbox.rejected / path.name)
            (self.outbox.rejected / (path.name + ".error")).write_text(f"{error.code}\n{reason}\n")
            return "rejected"
        except (OSError, ValueError) as error:  # refused, reset, timed out, DNS
            logger.warning("ingest not reached: %s", error)
            return "retry"
        path.unlink()
        return "sent"
