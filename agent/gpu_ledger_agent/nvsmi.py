"""Read the GPUs with nvidia-smi and parse its CSV robustly.

nvidia-smi prints ``[N/A]`` or ``[Not Supported]`` (and, on a failing card, ``[Unknown Error]``
or ``[GPU is lost]``) where it has no value: those become None, never 0, because a card whose
power reading is unsupported did not draw 0 W. A line that does not have every field is
dropped whole rather than guessed at.
"""

from __future__ import annotations

import csv
import logging
import subprocess
from typing import Any

logger = logging.getLogger(__name__)

# (nvidia-smi field, our name, parser). The order is the CSV's column order.
THROTTLE_FIELD = "clocks_throttle_reasons.active"
# Drivers from 535 call it this; older ones know only the name above.
EVENT_FIELD = "clocks_event_reasons.active"
GPU_FIELDS = [
    ("index", "index", "int"),
    ("uuid", "uuid", "str"),
    ("name", "name", "str"),
    ("utilization.gpu", "util_pct", "float"),
    ("memory.used", "mem_used_mb", "float"),
    ("memory.total", "mem_total_mb", "float"),
    ("power.draw", "power_w", "float"),
    ("power.limit", "power_limit_w", "float"),
    ("clocks.sm", "sm_clock_mhz", "float"),
    (THROTTLE_FIELD, "throttle_reasons", "hex"),
    ("temperature.gpu", "temp_c", "float"),
]
APP_FIELDS = "gpu_uuid,pid,used_memory"
FORMAT = "--format=csv,noheader,nounits"
TIMEOUT_S = 20


def missing(text: str) -> bool:
    """True for nvidia-smi's ways of saying "no value" ([N/A], [Not Supported], N/A, ...)."""
    text = text.strip()
    return not text or text.startswith("[") or text.upper() in {"N/A", "NOT SUPPORTED", "ERR!"}


def parse_value(text: str, kind: str) -> Any:
    """One CSV cell as ``kind``; None when nvidia-smi has no value or prints something else."""
    text = text.strip()
    if missing(text):
        return None
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "hex":
            return int(text, 16)
    except ValueError:
        logger.warning("unreadable nvidia-smi value %r (%s): treated as missing", text, kind)
        return None
    return text


def parse_gpus(output: str) -> list[dict[str, Any]]:
    """``--query-gpu`` CSV lines to one dict per GPU (see GPU_FIELDS); bad lines dropped."""
    gpus = []
    for row in csv.reader(output.splitlines(), skipinitialspace=True):
        if not row:
            continue
        if len(row) != len(GPU_FIELDS):
            logger.warning(
                "nvidia-smi line with %d fields, not %d: %r", len(row), len(GPU_FIELDS), row
            )
            continue
        gpu = {name: parse_value(cell, kind) for (_, name, kind), cell in zip(GPU_FIELDS, row)}
        if gpu["index"] is None:
            logger.warning("nvidia-smi line without a GPU index: %r", row)
            continue
        gpus.append(gpu)
    return gpus


def parse_apps(output: str) -> dict[str, list[dict[str, int | None]]]:
    """``--query-compute-apps`` CSV lines to {gpu uuid: [{pid, used_mem_mb}]}."""
    apps: dict[str, list[dict[str, int | None]]] = {}
    for row in csv.reader(output.splitlines(), skipinitialspace=True):
        if len(row) != 3:
            continue  # "No running processes found" and the like
        uuid, pid, used = (cell.strip() for cell in row)
        pid_value = parse_value(pid, "int")
        if missing(uuid) or pid_value is None:
            continue
        used_value = parse_value(used, "float")
        apps.setdefault(uuid, []).append(
            {"pid": pid_value, "used_mem_mb": None if used_value is None else int(used_value)}
        )
    return apps


class NvidiaSmi:
    """Runs nvidia-smi; remembers which name of the throttle field this driver knows."""

    def __init__(self, executable: str = "nvidia-smi") -> None:
        self.executable = executable
        self.throttle_field = THROTTLE_FIELD

    def _run(self, query: str, renames_throttle: bool = False) -> str | None:
        try:
            done = subprocess.run(
                [self.executable, query, FORMAT],
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            logger.warning("nvidia-smi did not run: %s", error)
            return None
        if done.returncode != 0:
            message = (done.stdout + done.stderr).strip()
            if (
                renames_throttle
                and "valid field" in message
                and self.throttle_field == THROTTLE_FIELD
            ):
                raise _UnknownField(message)
            logger.warning("nvidia-smi failed (%s): %s", done.returncode, message[:500])
            return None
        return done.stdout

    def read(self) -> list[dict[str, Any]]:
        """One sample per GPU, each with its processes; [] when nvidia-smi cannot answer."""
        fields = [field for field, _, _ in GPU_FIELDS]
        fields[fields.index(THROTTLE_FIELD)] = self.throttle_field
        try:
            output = self._run("--query-gpu=" + ",".join(fields), renames_throttle=True)
        except _UnknownField:
            logger.info("this driver names the throttle reasons %s", EVENT_FIELD)
            self.throttle_field = EVENT_FIELD
            return self.read()
        if output is None:
            return []
        gpus = parse_gpus(output)
        apps_output = self._run("--query-compute-apps=" + APP_FIELDS)
        # A failed process query is "unknown" (None), not "no processes" ([]).
        apps = None if apps_output is None else parse_apps(apps_output)
        for gpu in gpus:
            gpu["processes"] = None if apps is None else apps.get(gpu["uuid"] or "", [])
        return gpus


class _UnknownField(Exception):
    pass
