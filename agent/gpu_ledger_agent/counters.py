"""Work counters: what a training script reports (``report``) and what a vLLM server counts.

Every counter the agent sends is cumulative and never decreases, so the server can tell a
retried point from new work, and the work done between two points is their difference:

- ``report(samples=128)`` appends one JSON line to ``<spool>/work/<pid>.jsonl`` (one small
  ``O_APPEND`` write, atomic on a local file system, so processes never interleave). The agent
  reads each file from where it stopped (its offset and the running totals are saved together
  in ``state.json``, so nothing is counted twice or lost across restarts) and adds the counts
  to its totals.
- vLLM's Prometheus counters restart at 0 with the server; the agent keeps an offset per
  counter so what it sends carries on from the last value instead of falling back.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import time
import urllib.request
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

DEFAULT_SPOOL_DIR = "/var/lib/gpu-ledger-agent"
NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
# A fully read file nobody has written to for this long belongs to a finished run.
STALE_WORK_FILE_S = 3600

# vLLM metric -> our counter name (the sum over its label sets: models, finish reasons).
VLLM_COUNTERS = {
    "vllm:generation_tokens_total": "generation_tokens",
    "vllm:prompt_tokens_total": "prompt_tokens",
    "vllm:request_success_total": "requests",
}


def spool_dir() -> Path:
    return Path(os.environ.get("GPU_LEDGER_SPOOL_DIR") or DEFAULT_SPOOL_DIR)


def report(**counts: float) -> bool:
    """Count work done since the last call, e.g. ``report(samples=256)`` or ``report(tokens=n)``.

    Returns False (and logs why) when the spool cannot be written, so a training run never
    fails because the agent is not installed. Bad names or values raise ValueError: those are
    bugs in the caller, not conditions of the machine.
    """
    for name, value in counts.items():
        if not NAME.match(name):
            raise ValueError(f"counter name {name!r}: use lower-case letters, digits and _")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"counter {name}: {value!r} is not a number")
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"counter {name}: {value!r} must be a finite number >= 0")
    if not counts:
        return True
    line = json.dumps({"at": time.time(), "counts": counts}, separators=(",", ":")) + "\n"
    path = spool_dir() / "work" / f"{os.getpid()}.jsonl"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError as error:
        logger.warning("gpu_ledger_agent.report could not write %s: %s", path, error)
        return False
    return True


class CounterState:
    """Running totals, work-file offsets and vLLM offsets, saved atomically as one file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {"totals": {}, "files": {}, "vllm": {}}
        if path.exists():
            try:
                self.data.update(json.loads(path.read_text()))
            except (OSError, ValueError) as error:
                # Starting again from zero would make the counters fall back: refuse instead.
                raise RuntimeError(f"unreadable counter state {path}: {error}") from error

    def save(self) -> None:
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.data, sort_keys=True))
        os.replace(temporary, self.path)

    def collect_reports(self, work_dir: Path) -> None:
        """Add the complete lines written since the last call to the totals."""
        totals, files = self.data["totals"], self.data["files"]
        for path in sorted(work_dir.glob("*.jsonl")):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            known = files.get(path.name)
            offset = known["offset"] if known and known["inode"] == stat.st_ino else 0
            with path.open("rb") as handle:
                handle.seek(offset)
                chunk = handle.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]  # a line being written waits
            for number, raw in enumerate(complete.splitlines(), 1):
                try:
                    counts = json.loads(raw)["counts"]
                    for name, value in counts.items():
                        if NAME.match(name) and isinstance(value, (int, float)) and value >= 0:
                            totals[name] = totals.get(name, 0) + value
                except (ValueError, KeyError, TypeError, AttributeError):
                    logger.warning(
                        "%s: unreadable report line near %d: %r", path, number, raw[:200]
                    )
            offset += len(complete)
            files[path.name] = {"inode": stat.st_ino, "offset": offset}
            if offset == stat.st_size and time.time() - stat.st_mtime > STALE_WORK_FILE_S:
                path.unlink()
                del files[path.name]

    def report_counters(self) -> dict[str, float]:
        return dict(self.data["totals"])

    def vllm_counters(self, raw: dict[str, float]) -> dict[str, float]:
        """vLLM's raw counters carried over its restarts (a raw value that fell = a restart)."""
        seen = self.data["vllm"]
        values = {}
        for name, value in raw.items():
            entry = seen.setdefault(name, {"last": 0.0, "offset": 0.0})
            if value < entry["last"]:
                entry["offset"] += entry["last"]
            entry["last"] = value
            values[name] = entry["offset"] + value
        return values


def parse_prometheus(text: str) -> dict[str, float]:
    """VLLM_COUNTERS' values from Prometheus text exposition, summed over label sets."""
    sums: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        metric = line.split("{", 1)[0].split(" ", 1)[0]
        name = VLLM_COUNTERS.get(metric)
        if name is None:
            continue
        # The value follows the (possibly space-containing) label set; a timestamp may follow.
        rest = line[line.rfind("}") + 1 :] if "{" in line else line[len(metric) :]
        fields = rest.split()
        try:
            value = float(fields[0])
        except (IndexError, ValueError):
            logger.warning("unreadable vLLM metric line: %r", line[:200])
            continue
        if math.isfinite(value) and value >= 0:
            sums[name] = sums.get(name, 0.0) + value
    return sums


def scrape_vllm(url: str, timeout_s: float = 5) -> dict[str, float] | None:
    """vLLM's counters now, or None when the endpoint does not answer (missing, not zero)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return parse_prometheus(response.read().decode("utf-8", "replace"))
    except (OSError, ValueError) as error:
        logger.warning("vLLM metrics at %s did not answer: %s", url, error)
        return None


def counter_points(sampled_at: str, source: str, values: dict[str, float]) -> list[dict[str, Any]]:
    return [
        {"source": source, "name": name, "sampled_at": sampled_at, "value": value}
        for name, value in sorted(values.items())
    ]
