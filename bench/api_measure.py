"""The measuring half of ``bench.bench_api``: serve, request, and the tables' rows."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CONNECTIONS = 32
DURATION_S = 20.0
WARMUP_ROUNDS = 3
TARGET_RATIO = 2.0
ME = "/api/v1/me"


def _get(port: int, path: str, session: str) -> tuple[int, float, bytes]:
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", path, headers={"Cookie": f"sessionid={session}"})
        response = conn.getresponse()
        body = response.read()
        return response.status, time.perf_counter() - started, body
    finally:
        conn.close()


def with_basis(port: int, session: str, urls: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """Each URL with ``basis=amortized`` where its endpoint takes it (refuses a basis it does
    not know and answers that one), else as it is; and the names of those that took it. Exits
    on any URL that fails as it is."""
    chosen, amortized = {}, []
    for name, path in urls.items():
        status, _seconds, body = _get(port, path, session)
        if status != 200:
            sys.exit(f"{name}: HTTP {status} {body[:300]!r}")
        chosen[name] = path
        if name == ME:
            continue
        joined = f"{path}{'&' if '?' in path else '?'}basis="
        # An endpoint that also answers a basis it cannot know ignores the parameter.
        ignores = _get(port, f"{joined}bench-no-such-basis", session)[0] == 200
        if not ignores and _get(port, f"{joined}amortized", session)[0] == 200:
            chosen[name] = f"{joined}amortized"
            amortized.append(name)
    return chosen, amortized


def unloaded(port: int, session: str, urls: dict[str, str], rounds: int) -> dict[str, list[float]]:
    """``rounds`` rounds (after ``WARMUP_ROUNDS`` not kept), each every URL once, one request
    at a time, starting one URL later each round."""
    names = list(urls)
    latencies: dict[str, list[float]] = defaultdict(list)
    for number in range(WARMUP_ROUNDS + rounds):
        offset = number % len(names)
        for name in names[offset:] + names[:offset]:
            status, seconds, body = _get(port, urls[name], session)
            if status != 200:
                sys.exit(f"{name}: HTTP {status} {body[:300]!r}")
            if number >= WARMUP_ROUNDS:
                latencies[name].append(seconds)
    return latencies


def load(port: int, session: str, urls: dict[str, str]) -> tuple[dict[str, list[float]], dict]:
    """``CONNECTIONS`` threads for ``DURATION_S``, each cycling over the URLs."""
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    lock = threading.Lock()
    deadline = time.perf_counter() + DURATION_S
    names = list(urls)

    def worker(offset: int) -> None:
        n = offset
        while time.perf_counter() < deadline:
            name = names[n % len(names)]
            n += 1
            try:
                status, seconds, _body = _get(port, urls[name], session)
            except OSError:
                status, seconds = 0, 0.0
            with lock:
                if status == 200:
                    latencies[name].append(seconds)
                else:
                    errors[name] += 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors


def serve(port: int) -> subprocess.Popen:
    # Plain HTTP on loopback: no redirect to HTTPS. One signed-in person makes every request,
    # far beyond the per-person API rate limit: lift it, or the limiter answers 429s.
    env = {
        **os.environ,
        "DEBUG": "0",
        "HTTPS": "0",
        "LOG_LEVEL": "WARNING",
        "API_RATE_LIMIT": "1000000/min",
    }
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "3",
            "--backlog",
            "256",
            "--timeout",
            "120",
        ],
        cwd=ROOT,
        env=env,
    )
    for _ in range(200):
        try:
            _get(port, "/api/v1/schema/", "")
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    sys.exit("gunicorn did not start")


def unloaded_rows(
    urls: dict[str, str], latencies: dict[str, list[float]], amortized: list[str]
) -> list[tuple]:
    """A row per URL (in ``urls``' order): median and p95, each as a ratio to /me's."""
    me = np.array(latencies[ME])
    me_p50, me_p95 = float(np.median(me)), float(np.percentile(me, 95))
    rows = []
    for name in urls:
        ms = np.array(latencies[name])
        p50, p95 = float(np.median(ms)), float(np.percentile(ms, 95))
        # The same round's /me beside each request: a ratio that noise drifting over the run
        # does not move.
        paired = float(np.median(ms / me))
        measured = (
            f"median {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms; median {p50 / me_p50:.2f}x "
            f"/me, p95 {p95 / me_p95:.2f}x /me, paired (per round) {paired:.2f}x"
            + ("; basis=amortized" if name in amortized else "")
        )
        if name == ME:
            rows.append((name, measured, "reference", "-"))
            continue
        ok = p50 / me_p50 <= TARGET_RATIO
        rows.append((name, measured, f"median <= {TARGET_RATIO:g}x /me", "pass" if ok else "FAIL"))
    return rows


def loaded_rows(
    urls: dict[str, str], latencies: dict[str, list[float]], errors: dict[str, int]
) -> list[tuple]:
    """A row per URL under load; no target (the server is saturated)."""
    me = float(np.percentile(latencies[ME], 95))
    rows = []
    for name in urls:
        ms = np.array(latencies[name]) * 1000
        p50, p95, p99 = (float(np.percentile(ms, q)) for q in (50, 95, 99))
        rows.append(
            (
                name,
                f"p50 {p50:.0f} ms, p95 {p95:.0f} ms, p99 {p99:.0f} ms; {len(ms)} requests, "
                f"{errors[name]} errors; p95 = {p95 / 1000 / me:.2f}x /me",
                "saturated: no target",
                "-",
            )
        )
    return rows
